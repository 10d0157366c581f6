"""Hex Tetris: batch playouts (numba CPU prange, or CUDA) against the scalar Python model, side by side in one run.

Three measurements, each checked for equal results before it is timed:

1. scoring: all 175 reference solutions (1.43 M commands) scored with ``runners.hextris.score_solutions``;
   target < 1 s in total on the CPU.  Median of ``--repeat`` warm runs.
2. command playouts: ``--copies`` copies of the 175 reference games advanced by their command strings in one
   batch; commands executed per second (target 20 M/s on the 2-core machine), against the scalar model
   (``puzzles.hextris.model``) on ``--peer-games`` of the same games.
3. policy playouts: every seed of problems 6 and 2 played to the end by the greedy policy (BFS of all lockable
   positions per unit, five weighted features each); units placed per second, against a greedy player in plain
   Python on ``--peer-units`` units: the same BFS over the scalar model's positions (frozensets), with a simpler
   evaluation (lowest sum of rows), so the ratio is if anything understated.

    python bench/hextris.py [--backend cpu|cuda] [--repeat 5] [--copies 8] [--peer-games 6] [--peer-units 40]

Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import puzzlebatch  # noqa: E402
from puzzlebatch.puzzles.hextris import model  # noqa: E402
from puzzlebatch.puzzles.hextris.encode import encode_commands  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402
from puzzlebatch.runners.hextris.playouts import GREEDY_WEIGHTS, Playouts, parse_solutions, score_solutions  # noqa: E402


def _median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def bench_scoring(backend, problems, entries, phrases, repeat):
    t0 = time.perf_counter()
    run = score_solutions(problems, entries, phrases, backend)
    first = time.perf_counter() - t0
    bad = [s for s, e in zip(run.scores, entries) if (s.move_score, s.power_score, s.end) !=
           (e["move_score"], e["power_score"], e["end"])]
    assert not bad, f"{len(bad)} reference scores differ"
    med, best = _median_time(lambda: score_solutions(problems, entries, phrases, backend), repeat)
    return {"solutions": len(entries), "commands": run.commands, "first_call_s": first, "median_s": med,
            "min_s": best, "target_s": 1.0, "met": med < 1.0}


def bench_commands(backend, problems, entries, repeat, copies, peer_games):
    ids = sorted(problems)
    index = {p: i for i, p in enumerate(ids)}
    sim = Playouts([problems[p] for p in ids], backend)
    batch = entries * copies
    seeds = [e["seed"] for e in batch]
    prob = [index[e["problemId"]] for e in batch]
    codes, offsets = encode_commands([e["solution"] for e in batch])

    def run():
        games = sim.new_games(seeds, prob)
        sim.run_commands(games, (codes, offsets))
        return games

    games = run()  # compile
    n_cmds = int(games.commands.sum())
    assert all(games.move_scores[i] == batch[i]["move_score"] for i in range(len(batch)))
    med, best = _median_time(run, repeat)
    ours = n_cmds / med
    # the peer: the scalar model on the shortest few reference games of different problems
    sample = sorted(entries, key=lambda e: len(e["solution"]))[:: max(1, len(entries) // peer_games)][:peer_games]
    t0 = time.perf_counter()
    peer_cmds = 0
    for e in sample:
        g = model.play(problems[e["problemId"]], e["seed"], e["solution"])
        assert g.move_score == e["move_score"]
        peer_cmds += g.commands
    peer_s = time.perf_counter() - t0
    peer = peer_cmds / peer_s
    return {"games": len(batch), "commands": n_cmds, "median_s": med, "min_s": best, "commands_per_s": ours,
            "peer_games": len(sample), "peer_commands": peer_cmds, "peer_s": peer_s, "peer_commands_per_s": peer,
            "ratio": ours / peer, "target_commands_per_s": 20e6, "met": ours >= 20e6}


def _python_bfs_policy_units(problem, seed, units):
    """The greedy policy in plain Python (for the peer): BFS over positions, lowest lockable, then lock."""
    game = model.Game(problem, seed)
    placed = 0
    while game.end == model.IN_PROGRESS and placed < units:
        start = (game.pivot, game.members)
        seen = {start: None}
        queue = [start]
        best, best_key = None, None
        for pos in queue:
            game.pivot, game.members = pos
            locks = False
            for c in range(6):
                nxt = game.moved(c)
                if not game.valid(nxt[1]):
                    locks = True
                elif nxt not in seen:
                    seen[nxt] = (pos, c)
                    queue.append(nxt)
            if locks:
                key = sum(y for _, y in pos[1])
                if best_key is None or key > best_key:
                    best, best_key = pos, key
        game.pivot, game.members = best
        for c in (model.SW, model.SE, model.W, model.E, model.CW, model.CCW):
            if not game.valid(game.moved(c)[1]):
                game._lock()
                break
        placed += 1
    return placed


def bench_policy(backend, repeat, peer_units):
    rows = {}
    for pid in (6, 2):
        p = model.official_problem(pid)
        sim = Playouts([p], backend)
        seeds = list(dict.fromkeys(p.source_seeds))

        def run(sim=sim, seeds=seeds):
            games = sim.new_games(seeds)
            sim.run_policy(games, GREEDY_WEIGHTS, record=False)
            return games

        games = run()
        units = int(games.units_locked.sum())
        med, best = _median_time(run, repeat)
        t0 = time.perf_counter()
        peer_n = _python_bfs_policy_units(p, seeds[0], peer_units)
        peer_s = time.perf_counter() - t0
        rows[pid] = {"games": len(seeds), "units": units, "median_s": med, "units_per_s": units / med,
                     "peer_units": peer_n, "peer_s": peer_s, "peer_units_per_s": peer_n / peer_s,
                     "ratio": (units / med) / (peer_n / peer_s)}
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--copies", type=int, default=8)
    ap.add_argument("--peer-games", type=int, default=6)
    ap.add_argument("--peer-units", type=int, default=40)
    ap.add_argument("--skip-policy", action="store_true")
    args = ap.parse_args()
    backend = select_backend(args.backend)
    import numba

    problems = {i: model.official_problem(i) for i in range(25)}
    ref = json.loads((model.DATA_DIR / "reference_scores.json").read_text())
    entries = parse_solutions(ref, "reference")
    for e, r in zip(entries, ref):
        e.update(move_score=r["move_score"], power_score=r["power_score"], end=r["end"])
    phrases = model.load_phrases()

    out = {"backend": backend.name, "device": backend.device, "threads": numba.get_num_threads(),
           "python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
           "puzzlebatch": puzzlebatch.__version__, "cpus": os.cpu_count()}
    out["scoring"] = s = bench_scoring(backend, problems, entries, phrases, args.repeat)
    print(f"scoring: {s['solutions']} reference solutions, {s['commands']:,} commands: median {s['median_s']:.3f} s "
          f"(min {s['min_s']:.3f}, first call with compilation {s['first_call_s']:.1f} s); target < 1 s: "
          f"{'met' if s['met'] else 'NOT met'}")
    out["commands"] = c = bench_commands(backend, problems, entries, args.repeat, args.copies, args.peer_games)
    print(f"command playouts: {c['games']} games, {c['commands']:,} commands: median {c['median_s']:.3f} s = "
          f"{c['commands_per_s'] / 1e6:.1f} M commands/s; scalar model {c['peer_commands_per_s'] / 1e3:.0f} K/s "
          f"({c['peer_commands']:,} commands); ratio {c['ratio']:.0f}x; target 20 M/s: "
          f"{'met' if c['met'] else 'NOT met'}")
    if not args.skip_policy:
        out["policy"] = pol = bench_policy(backend, args.repeat, args.peer_units)
        for pid, r in pol.items():
            print(f"policy playouts, problem {pid}: {r['games']} games, {r['units']} units: median "
                  f"{r['median_s']:.3f} s = {r['units_per_s']:.0f} units/s; plain Python BFS "
                  f"{r['peer_units_per_s']:.1f} units/s; ratio {r['ratio']:.0f}x")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
