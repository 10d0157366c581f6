"""What the polyomino verbs read from their arguments: rectangles, piece sets, mirror choice.  Shared by
:mod:`.cli`, :mod:`.large_cli` and :mod:`.cutsolve_cli` (which otherwise would import each other)."""

from __future__ import annotations

import re

from puzzlebatch import limits
from puzzlebatch.errors import PuzzleInputError

_RECT = re.compile(r"^\s*(\d+)x(\d+)\s*$")


def mirror(args) -> bool | None:
    """``--mirror yes|no|default`` as the piece loader takes it."""
    return {"yes": True, "no": False, "default": None}[args.mirror]


def rect(spec: str | None, where: str = "--board") -> tuple[int, int] | None:
    """``WxH`` as ``(w, h)`` (None when the board is not a plain rectangle); sides and cells checked."""
    m = _RECT.match((spec or "").lower())
    if not m:
        return None
    w, h = int(m.group(1)), int(m.group(2))
    if w < 1 or h < 1:
        raise PuzzleInputError(f"{where}: board {spec} must have sides >= 1")
    limits.CELLS.check(w * h, f"{where} {spec}")
    return w, h


def pieces(args):
    """The pieces named by ``--pieces`` with ``--unlimited``, ``--mirror`` and ``--copies``."""
    from puzzlebatch.puzzles.polyomino import shapes as S

    return S.load_pieces(args.pieces, unlimited=args.unlimited, mirror=mirror(args), count=args.copies)


def pieces_once_on_a_board(args, method: str):
    """The flat board and the pieces of a `--method classes|cut` puzzle (each piece once), or a one-line error."""
    from puzzlebatch.puzzles.polyomino import packing as P

    if args.level or args.unlimited or args.copies:
        raise PuzzleInputError(f"--method {method}: each piece once on a board (no --level, --unlimited, --copies)")
    board = P.parse_board(args.board)
    if board.dim != 2:
        raise PuzzleInputError(f"--method {method}: flat boards only")
    return board, pieces(args)
