"""Hex Tetris: candidate placements evaluated per second by the batch kernel, against the same rules run as plain
Python, side by side in one run.

For each problem, ``--states`` beam states are taken mid-game (the greedy policy plays ``--units`` units from
every seed), and every lockable placement of each state's unit is evaluated: the lock and its line clears on a
scratch board, then the hex board features (``evaluation.evaluate_placements`` through ``Playouts.evaluate``, numba
CPU prange over the states, or CUDA).  The peer is the same rule functions run as plain Python (what the
kernels compile, on numpy arrays as numba's CUDA simulator runs them), on ``--peer-states`` of the states; its
results must equal the kernel's.  Medians of
``--repeat`` warm runs; placements per second = placements evaluated / median seconds.

    python bench/hextris_eval.py [--problems 6,14,18,24] [--backend cpu|cuda] [--states 64] [--units 20]
        [--repeat 5] [--peer-states 2]

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
from puzzlebatch.puzzles.hextris import evaluation, rules  # noqa: E402
from puzzlebatch.puzzles.hextris.encode import problem_tables  # noqa: E402
from puzzlebatch.puzzles.hextris.model import official_problem  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402
from puzzlebatch.runners.hextris.playouts import GREEDY_WEIGHTS, Playouts  # noqa: E402


def _median(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _plain(tab, games, g, cap):
    """``evaluation.evaluate_placements`` as plain Python (the kernels' source) on numpy arrays, for game ``g``."""
    state = games.states[g].copy()
    board = games.boards[g].copy()
    vis = games.vis[g].copy()
    work = np.zeros(2 * tab[rules.H_NPOS], np.int64)
    scratch = np.zeros(evaluation.eval_scratch_len(tab), np.int64)
    out = np.zeros((cap, 3), np.int64)
    feats = np.zeros((cap, evaluation.N_CAND), np.int64)
    n = evaluation.evaluate_placements(state, board, vis, tab, work, scratch, out, feats, cap)
    return n, out[:n], feats[:n]


def bench_problem(backend, pid, states, units, repeat, peer_states):
    p = official_problem(pid)
    sim = Playouts([p], backend)
    seeds = [p.source_seeds[k % len(p.source_seeds)] for k in range(states)]
    games = sim.new_games(seeds)
    # mid-game boards, different from state to state: the greedy policy, then k random single moves down
    sim.run_policy(games, GREEDY_WEIGHTS, max_units=units, record=False)
    sim.run_commands(games, ["al"[k % 2] * (k % 5) for k in range(states)])
    places, feats, counts = sim.evaluate(games)  # compiles
    n = int(counts.sum())
    med = _median(lambda: sim.evaluate(games), repeat)
    tab = problem_tables(p)
    k = min(peer_states, states)
    t0 = time.perf_counter()
    peer_n = 0
    for g in range(k):
        m, pl, f = _plain(tab, games, g, places.shape[1])
        assert m == counts[g] and np.array_equal(pl, places[g, :m]) and np.array_equal(f, feats[g, :m]), \
            f"problem {pid}, state {g}: plain Python and kernel differ"
        peer_n += m
    peer_s = time.perf_counter() - t0
    return {"problem": pid, "board": f"{p.width}x{p.height}", "states": states, "placements": n,
            "median_s": med, "per_second": n / med, "peer_placements": peer_n, "peer_s": peer_s,
            "peer_per_second": peer_n / peer_s if peer_s else 0.0,
            "ratio": (n / med) / (peer_n / peer_s) if peer_n and peer_s else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", default="6,14,18,24")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--states", type=int, default=64)
    ap.add_argument("--units", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--peer-states", type=int, default=2)
    args = ap.parse_args()
    backend = select_backend(args.backend)
    rows = [bench_problem(backend, int(pid), args.states, args.units, args.repeat, args.peer_states)
            for pid in args.problems.split(",")]
    print(f"backend {backend.name} ({backend.device}); puzzlebatch {puzzlebatch.__version__}, Python "
          f"{platform.python_version()}; load average {os.getloadavg()[0]:.1f}")
    print("| problem | board | states | placements | median s | placements/s | plain Python /s | ratio |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['problem']} | {r['board']} | {r['states']} | {r['placements']} | {r['median_s']:.3f} | "
              f"{r['per_second']:,.0f} | {r['peer_per_second']:,.0f} | {r['ratio']:.0f}x |")
    print(json.dumps({"backend": backend.name, "rows": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
