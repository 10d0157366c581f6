"""Learn the weight-fit table of the hex Tetris player, then judge it on generated boards held out from learning.

    python bench/hextris_fit.py learn [--qualifier 0-24] [--generated 0-29] [--seeds 1] [--beam 4]
        [--max-units 300]
        [--out puzzlebatch/data/hextris/weight_fit.json]
    python bench/hextris_fit.py judge [--generated 100-119] [--seconds 20] [--rows 3] [--jitter 8] [--weights FILE]
    python bench/hextris_fit.py loo                      # leave-one-out on the table itself, no play
    python bench/hextris_fit.py sensitivity [--generated 100-119] [--jitter 8] [--jitter-scale 0.5] [--beam 4]

``learn`` plays every candidate row (:data:`CANDIDATES`) on every learning board: the first ``--seeds`` seeds of
each, all rows in one batch of the beam player at a fixed beam, then each plan spelled alone (plain paths and the
greedy weavings within ``--spell-seconds``, no phrase search) and scored by the exact scorer. A board's entry is
each row's mean total over the default weights' (row 0), with the board's features
(:func:`puzzlebatch.runners.hextris.fit.board_features`).

``judge`` plays each held-out generated board twice with the full player (``play_problems``) at the same
``--seconds``: with the default weights, then with the fitted portfolio (``fitted_weights``, ``--rows`` rows and
``--jitter`` rows near the default weights: what ``--weights fit`` plays on a clock), or with the weights of
``--weights FILE`` (e.g. ``bench/hextris_ga_generated.py --save``'s).
It prints the problem scores (the floor of the mean over the seeds, as the contest ranked) and counts the boards
where the portfolio scored more, the same, or less. Generated boards of the learning seeds are refused here.

``sensitivity`` asks of each board whether its placements depend on the weights at all: the candidate rows (the
default weights first) and ``--jitter`` rows near the default (``--jitter-scale``) play the first ``--seeds``
seeds' first ``--max-units`` units in one batch at the fixed ``--beam``, without phrases; it prints how many
different games the rows play and their move scores. On a board where every row plays the same game no choice of
weights can score more there: what it scores is the phrase weaving's.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzlebatch.puzzles.hextris.generate import generate_problem  # noqa: E402
from puzzlebatch.puzzles.hextris.model import load_phrases, official_problem, parse_problem  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402
from puzzlebatch.runners.hextris import fit  # noqa: E402
from puzzlebatch.runners.hextris.player import DEFAULT_WEIGHTS, SURVIVAL_WEIGHTS, BeamPlayer, load_weights, \
    play_problems, spell  # noqa: E402

#: candidate rows: the default weights; rows part full weighed 1 and 6; the GA's tuned vector (relative coding,
#: held-out win) with rows part full 0 and 1; and the survival row of problem 18
CANDIDATES = np.array([DEFAULT_WEIGHTS,
                       [0.2, 0, 0, 0, 0, 3, 3, 5, 3, 0, 90, 0, 1],
                       [0.2, 0, 0, 0, 0, 3, 3, 5, 3, 0, 90, 0, 6],
                       [0.07, 0, 0, 0, 1.5, 12, 4.24, 5, 3, 1, 45, 2.5, 0],
                       [0.07, 0, 0, 0, 1.5, 12, 4.24, 5, 3, 1, 45, 2.5, 1],
                       SURVIVAL_WEIGHTS[0]], dtype=np.float64)


def _ids(spec: str) -> list[int]:
    out: list[int] = []
    for part in spec.split(","):
        if part.strip():
            a, _, b = part.partition("-")
            out.extend(range(int(a), int(b or a) + 1))
    return out


def learn(args) -> None:
    cpu = select_backend(args.backend)
    phrases = load_phrases()
    boards = [(f"qualifier {n}", official_problem(n)) for n in _ids(args.qualifier)] + \
             [(f"generated {s}", parse_problem(generate_problem(s))) for s in _ids(args.generated)]
    # the first --max-units units of each game (problem 24's 1,620 units on 100x40 take half an hour a row here)
    boards = [(n, dataclasses.replace(p, source_length=min(p.source_length, args.max_units))) for n, p in boards]
    rows = CANDIDATES
    out = {"schema": "puzzlebatch-hextris-weight-fit", "features_names": list(fit.FEATURES),
           "candidates": rows.tolist(),
           "how": (f"python bench/hextris_fit.py learn --qualifier {args.qualifier} --generated {args.generated} "
                   f"--seeds {args.seeds} --beam {args.beam} --spell-seconds {args.spell_seconds} "
                   f"--max-units {args.max_units}"),
           "settings": {"seeds": args.seeds, "beam": args.beam, "keep": 8, "max_units": args.max_units,
                        "spelling": f"plain and greedy weavings, {args.spell_seconds} s a plan"},
           "boards": []}
    t_all = time.perf_counter()
    part = Path(args.out + ".partial")  # boards done, kept across an interrupted run with the same settings
    done = {}
    if part.exists():
        old = json.loads(part.read_text())
        if old.get("settings") == out["settings"] and old.get("candidates") == out["candidates"]:
            done = {b["name"]: b for b in old["boards"]}
    for name, p in boards:
        if name in done:
            out["boards"].append(done[name])
            continue
        t = time.perf_counter()
        seeds = list(dict.fromkeys(p.source_seeds))[: args.seeds]
        player = BeamPlayer(p, cpu, np.repeat(rows, len(seeds), axis=0), args.beam, 8, args.beam)
        plans = player.plan(seeds * len(rows))
        totals = []
        for pl in plans:  # each plan's weaving bounded alike (the greedy weaver may take minutes on a board)
            s = spell([pl], cpu, phrases, search_beam=0, deadline=time.perf_counter() + args.spell_seconds)
            totals.append(s[0].total if s else 0)
        per_row = np.array(totals, np.float64).reshape(len(rows), len(seeds)).mean(axis=1)
        rel = (per_row / max(per_row[0], 1.0)).tolist()
        out["boards"].append({"name": name, "features": fit.board_features(p).tolist(), "totals": per_row.tolist(),
                              "relative": rel})
        part.write_text(json.dumps(out))
        print(f"{name:14s} {p.width}x{p.height} units {len(p.units)} length {p.source_length} seeds {len(seeds)}: "
              + " ".join(f"{r:.3f}" for r in rel) + f"  ({time.perf_counter() - t:.1f} s)", flush=True)
    out["seconds"] = time.perf_counter() - t_all
    out["machine"] = cpu.device
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    part.unlink(missing_ok=True)
    print(f"wrote {args.out}: {len(out['boards'])} boards, {len(rows)} candidates, {out['seconds']:.0f} s")


def sensitivity(args) -> None:
    cpu = select_backend(args.backend)
    ids = _ids(args.generated)
    same = more = 0
    rows_out = []
    for s in ids:
        t = time.perf_counter()
        p = parse_problem(generate_problem(s))
        p = dataclasses.replace(p, source_length=min(p.source_length, args.max_units))
        seeds = list(dict.fromkeys(p.source_seeds))[: args.seeds]
        rows = np.vstack([CANDIDATES, fit.jittered_rows(DEFAULT_WEIGHTS, args.jitter, s, args.jitter_scale)])
        player = BeamPlayer(p, cpu, np.repeat(rows, len(seeds), axis=0), args.beam, 8, args.beam)
        plans = player.plan(seeds * len(rows))
        solved = [spell([pl], cpu, [], weave_phrases=False) for pl in plans]  # alone: spell keeps a game's best
        games = [(x[0].entry["seed"], x[0].entry["solution"]) if x else (i, "") for i, x in enumerate(solved)]
        moves = np.array([x[0].move_score if x else 0 for x in solved], np.int64).reshape(len(rows), len(seeds))
        moves = moves.sum(axis=1)
        distinct = max(len({g for g in games[k::len(seeds)]}) for k in range(len(seeds)))  # per seed, the most
        same += distinct == 1
        more += bool((moves[1:] > moves[0]).any())
        rows_out.append({"seed": s, "distinct_games": distinct, "moves": moves.tolist()})
        print(f"generated {s}: {p.width}x{p.height}, {len(p.units)} units, {p.source_length} units played, "
              f"{len(seeds)} seeds: {distinct} different games from {len(rows)} rows; move score default "
              f"{moves[0]:,}, the others {moves[1:].min():,}-{moves[1:].max():,} ({(moves[1:] > moves[0]).sum()} "
              f"more); {time.perf_counter() - t:.1f} s", flush=True)
    print(f"{len(ids)} boards: every row plays the same game on {same}; some row scores more moves than the default "
          f"weights on {more}")
    print(json.dumps({"machine": cpu.device, "settings": {"jitter": args.jitter, "scale": args.jitter_scale,
                                                          "beam": args.beam, "seeds": args.seeds,
                                                          "max_units": args.max_units}, "boards": rows_out}))


def loo(args) -> None:
    """Leave-one-out on the table: for each board, the rows :func:`fit.choose_rows` plays as the other boards
    predict them, and the best of their measured relative scores there (the portfolio at the learning settings)."""
    doc = json.loads(Path(args.table or fit.FIT_FILE).read_text())
    got, best, gen = [], [], []
    for b in doc["boards"]:
        score = fit.predict_features(np.array(b["features"]), k=args.k, path=args.table, exclude=b["name"])
        got.append(max(b["relative"][i] for i in fit.choose_rows(score, args.rows)))
        best.append(max(b["relative"]))
        gen.append(b["name"].startswith("generated"))
    got, best, gen = np.array(got), np.array(best), np.array(gen)
    print(f"leave-one-out, {args.rows} rows, k {args.k}: the portfolio's best over the default: mean "
          f"{got.mean():.4f}, above 1 on {(got > 1).sum()} of {len(got)} boards ({(got[gen] > 1).sum()} of "
          f"{gen.sum()} generated), below on {(got < 1).sum()}; the best of all candidates per board: mean "
          f"{best.mean():.4f}, above 1 on {(best > 1).sum()}")


def judge(args) -> None:
    cpu = select_backend(args.backend)
    doc = json.loads(Path(args.table or fit.FIT_FILE).read_text())
    learned = {b["name"] for b in doc["boards"]}
    ids = _ids(args.generated)
    clash = [s for s in ids if f"generated {s}" in learned]
    if clash:
        raise SystemExit(f"judge: generated boards {clash} were learned from; judge on others")
    phrases = load_phrases()
    wins = ties = losses = 0
    rows_out = []
    for s in ids:
        p = parse_problem(generate_problem(s))
        w = load_weights(args.weights) if args.weights else fit.fitted_weights(p, rows=args.rows, path=args.table,
                                                                               jitter=args.jitter,
                                                                               jitter_scale=args.jitter_scale)
        scores = {}
        for label, weights in (("default", DEFAULT_WEIGHTS), ("fitted", w)):
            t = time.perf_counter()
            solved = play_problems([p], cpu, weights=weights, seconds=args.seconds, phrases=phrases)
            n = len(set(p.source_seeds))
            scores[label] = int(sum(x.total for x in solved) // n)
            scores[label + "_s"] = time.perf_counter() - t
        d, f = scores["default"], scores["fitted"]
        wins += f > d
        ties += f == d
        losses += f < d
        rows_out.append({"seed": s, "default": d, "fitted": f, "rows": np.atleast_2d(w).tolist(),
                         "seconds": [scores["default_s"], scores["fitted_s"]]})
        print(f"generated {s}: {p.width}x{p.height}, {len(p.units)} units, length {p.source_length}, "
              f"{len(set(p.source_seeds))} seeds: default {d:,}, fitted {f:,} ({f / max(d, 1) - 1:+.2%}); "
              f"{scores['default_s']:.0f} s / {scores['fitted_s']:.0f} s", flush=True)
    print(f"fitted against default on {len(ids)} held-out boards at {args.seconds} s each: {wins} more, {ties} "
          f"equal, {losses} less; totals {sum(r['fitted'] for r in rows_out):,} against "
          f"{sum(r['default'] for r in rows_out):,}")
    print(json.dumps({"machine": cpu.device, "load": os.getloadavg(), "boards": rows_out}))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("part", choices=["learn", "judge", "loo", "sensitivity"])
    ap.add_argument("--qualifier", default="0-24")
    ap.add_argument("--generated", default=None, help="generated board seeds (learn: 0-29; judge: 100-119)")
    ap.add_argument("--seeds", type=int, default=1, help="learn, sensitivity: seeds played per board")
    ap.add_argument("--beam", type=int, default=4, help="learn, sensitivity: the fixed beam")
    ap.add_argument("--max-units", type=int, default=300, help="learn, sensitivity: units played of each game at most")
    ap.add_argument("--spell-seconds", type=float, default=2.5, help="learn: weaving time per plan")
    ap.add_argument("--seconds", type=float, default=20.0, help="judge: seconds per board and per side")
    ap.add_argument("--weights", help="judge: play this weights file (play --weights) against the default weights "
                    "instead of the fitted portfolio")
    ap.add_argument("--rows", type=int, default=fit.ROWS)
    ap.add_argument("--jitter", type=int, default=fit.JITTER_ROWS,
                    help="judge, sensitivity: rows near the default weights after the chosen ones (what "
                    "`--weights fit` adds on a clock; 0: none)")
    ap.add_argument("--jitter-scale", type=float, default=fit.JITTER_SCALE,
                    help="judge: each non-zero default weight of those rows times exp(scale * z), z normal")
    ap.add_argument("--k", type=int, default=fit.NEIGHBOURS)
    ap.add_argument("--table", default=None, help="the weight-fit table (default: the package's)")
    ap.add_argument("--out", default=str(fit.FIT_FILE))
    ap.add_argument("--backend", default="cpu")
    args = ap.parse_args()
    if args.generated is None:
        args.generated = "0-29" if args.part == "learn" else "100-119"
    {"learn": learn, "judge": judge, "loo": loo, "sensitivity": sensitivity}[args.part](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
