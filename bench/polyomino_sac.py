"""Bedlam's MRV tree with options dropped at every node (singleton arc consistency): the experiment's driver.

The drop is not in the package (it made the count slower, see bench/log/polyomino.md, "Bedlam: dropping, at every
node, the options after which an item has none").  To rerun the figures, apply its patch to a worktree and run this
script against it:

    git worktree add /tmp/sac HEAD && git -C /tmp/sac apply "$PWD/bench/log/polyomino_sac.patch"
    PYTHONPATH=/tmp/sac NUMBA_NUM_THREADS=1 python bench/polyomino_sac.py 0:0:0:99:0 15:99:0:99:0 15:1:0:99:0

Each variant is ``limit:rounds:first:last:watched``: items of at most ``limit`` live options (below 16; 0: no drop)
are looked at, for at most ``rounds`` rounds after the first, at depths ``first`` to ``last``; ``watched`` 1 looks
only at each option's watched items.  The first count of a process includes the compile (minutes with the patch).
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variants", nargs="+", help="limit:rounds:first:last:watched (see the module docstring)")
    ap.add_argument("--board", default="4x4x4")
    ap.add_argument("--pieces", default="bedlam")
    ap.add_argument("--repeat", type=int, default=1, help="counts a variant (the fastest is printed)")
    args = ap.parse_args()

    import puzzlebatch.api.polyomino as A
    from puzzlebatch.puzzles.polyomino import mrv

    if not hasattr(mrv, "SACD"):
        ap.exit(2, "bench/polyomino_sac.py: the package imported has no drop; apply bench/log/polyomino_sac.patch "
                   "to a worktree and put it first on PYTHONPATH (see this script's docstring)\n")
    for spec in args.variants:
        try:
            limit, rounds, first, last, watched = (int(v) for v in spec.split(":"))
        except ValueError:
            ap.error(f"variant {spec!r}: expected five integers limit:rounds:first:last:watched")
        mrv.SAC, mrv.ROUNDS, mrv.SACD, mrv.SACD2, mrv.SACW = limit, rounds, first, last, watched
        best = None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            res = A.count(args.board, args.pieces, branch="mrv", backend="cpu").to_dict()
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        print(f"{args.board} {args.pieces} {spec}: {res['solutions']:,} / {res['distinct']:,}, "
              f"{res['nodes']:,} nodes, {best:.2f} s", flush=True)


if __name__ == "__main__":
    main()
