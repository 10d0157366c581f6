"""Screen weight vectors of the hex Tetris player on one game, planning only (no phrase weaving): every row of the
weights file is planned in one batch at a fixed beam, and for each the units locked, the move score, how the
game ended, and the mean row of the locked units' pivots (over the game and over its last 400 units) are printed.

    python bench/hextris_weights_screen.py PROBLEM WEIGHTS.json [--beam 16] [--children 2] [--seed S]
        [--backend cpu]

The pivot's row is where a unit locks: units spawn at the top, so the deeper they lock the more rows their
commands descend, and phrases of power pay per character; on a board whose total is mostly power (problem 24)
the mean row is the quickest sign of a vector's worth, minutes before a full run's exact score.  On a board where
games die (problem 18) the units locked say it.  A screen is not a score: confirm with
``bench/hextris_player.py --weights``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzlebatch.puzzles.hextris.model import official_problem  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402
from puzzlebatch.runners.hextris.player import FEATURE_NAMES, BeamPlayer, load_weights  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("problem", type=int, help="qualifier problem 0..24")
    ap.add_argument("weights", help="JSON: one weight vector or a list of them (as --weights)")
    ap.add_argument("--beam", type=int, default=16)
    ap.add_argument("--children", type=int, default=2, help="children placed per beam state (0: no limit)")
    ap.add_argument("--seed", type=int, default=None, help="the seed (default: the problem's first)")
    ap.add_argument("--backend", default="cpu")
    args = ap.parse_args()
    problem = official_problem(args.problem)
    w = load_weights(args.weights)
    rows = w if w.ndim == 2 else w[None, :]
    backend = select_backend(args.backend)
    seed = problem.source_seeds[0] if args.seed is None else args.seed
    player = BeamPlayer(problem, backend, weights=rows, beam=args.beam, keep=8, lookahead=0,
                        children=args.children or None)
    t = time.perf_counter()
    plans = player.plan([seed] * len(rows))
    wall = time.perf_counter() - t
    print(f"problem {args.problem} seed {seed}, beam {args.beam}, {len(rows)} rows in one batch, {wall:.1f} s on "
          f"{backend.name}")
    print("| " + " | ".join(FEATURE_NAMES) + " | units | move score | end | mean row | last 400 |")
    print("|" + "---:|" * (len(FEATURE_NAMES) + 2) + "---|---:|---:|")
    for r, p in zip(rows, plans):
        ys = np.array([q[1] for q in p.placements], dtype=np.float64)
        mean = ys.mean() if len(ys) else float("nan")
        last = ys[-400:].mean() if len(ys) else float("nan")
        print("| " + " | ".join(f"{v:g}" for v in r) + f" | {len(p.placements)} | {p.move_score} | {p.end} | "
              f"{mean:.2f} | {last:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
