"""Which piece breaks the board's symmetry: the count's tree with each piece used once as the first one fixed.

The symmetry breaking (``packing.break_symmetry``) fixes first the piece used once with the fewest candidate
placements, one per rotation class.  This script makes it take a given piece first instead (the line that picks it
is rewritten in a copy of the function, in this process only) and counts, so that the trees can be compared:

    NUMBA_NUM_THREADS=2 python bench/polyomino_fixed_piece.py --board 4x4x4 --pieces bedlam   # every piece
    NUMBA_NUM_THREADS=2 python bench/polyomino_fixed_piece.py 1 11                           # pieces 1 and 11

``-1`` is the package's own choice.  Every count is checked against the first one's.
"""

from __future__ import annotations

import argparse
import inspect
import time

PICK = "g = min(allowed, key=lambda a: counts[a])"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pieces_first", nargs="*", type=int, help="piece indices (-1: the package's choice); all if none")
    ap.add_argument("--board", default="4x4x4")
    ap.add_argument("--pieces", default="bedlam")
    args = ap.parse_args()

    from puzzlebatch.api import polyomino as api
    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.puzzles.polyomino import shapes as S

    src = inspect.getsource(P.break_symmetry)
    if PICK not in src:
        raise SystemExit(f"break_symmetry no longer picks its piece with {PICK!r}: update this script")
    src = src.replace(PICK, "g = FIRST if FIRST in allowed and not fixed else min(allowed, key=lambda a: counts[a])")
    exec(compile(src, P.__file__, "exec"), P.__dict__)  # noqa: S102 - the package's own function, one line changed
    names = [p.name for p in S.load_pieces(args.pieces)]
    todo = args.pieces_first or [-1, *range(len(names))]
    first = None
    for k in todo:
        P.__dict__["FIRST"] = k
        t0 = time.perf_counter()
        r = api.count(args.board, args.pieces, backend="cpu")
        first = first or (r.solutions, r.distinct)
        assert (r.solutions, r.distinct) == first, (k, r.solutions, r.distinct, first)
        label = "the package's choice" if k < 0 else f"{k} ({names[k]})"
        print(f"first fixed: {label:24} {r.solutions:,} / {r.distinct:,}  {r.nodes:>12,} nodes  "
              f"{r.seconds:6.2f} s  ({time.perf_counter() - t0:.2f} s wall)", flush=True)


if __name__ == "__main__":
    main()
