"""Sliding puzzles (the "taquin"): boards, goals, solvability by parity, moves.

A board of ``rows x cols`` cells holds the tiles ``1 .. rows*cols - 1`` and the blank ``0``, listed in row order
(cell ``k`` is row ``k // cols``, column ``k % cols``).  Two goals are offered:

``blank-last``
    ``1 2 .. n-1 0`` — the source document's goal (the default of the command line).
``blank-first``
    ``0 1 .. n-1`` — Korf's goal, used by the instance files in ``puzzlebatch/data/sliding``.

Internally every solver works towards ``blank-first``: a blank-last problem is turned into a blank-first one by
rotating the board 180 degrees and relabelling tile ``t`` as ``n - t`` (:func:`to_blank_first`).  The rotation keeps
adjacency, so optimal lengths are unchanged and moves map one to one (tile ``t`` <-> tile ``n - t``, blank direction
reversed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from puzzlebatch.errors import PuzzleInputError

GOALS = ("blank-last", "blank-first")
# Blank directions: the blank moves Up/Down/Left/Right (the tile on that side slides the other way).
DIRECTIONS = "UDLR"
DELTAS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
OPPOSITE = {"U": "D", "D": "U", "L": "R", "R": "L"}


@dataclass(frozen=True)
class Board:
    """A sliding-puzzle position: ``tiles[k]`` is the tile on cell ``k`` (row order), 0 the blank."""

    rows: int
    cols: int
    tiles: tuple[int, ...]

    @property
    def n(self) -> int:
        return self.rows * self.cols

    @property
    def blank(self) -> int:
        return self.tiles.index(0)

    def array(self) -> np.ndarray:
        return np.array(self.tiles, dtype=np.int8)

    def grid(self) -> np.ndarray:
        return np.array(self.tiles, dtype=np.int64).reshape(self.rows, self.cols)

    def text(self) -> str:
        return " ".join(map(str, self.tiles))

    def pretty(self) -> str:
        w = len(str(self.n - 1))
        return "\n".join(" ".join(("." * w if t == 0 else f"{t:>{w}d}") for t in row) for row in self.grid())

    def __str__(self) -> str:
        return f"{self.rows}x{self.cols}: {self.text()}"


def parse_size(text: str, where: str = "size") -> tuple[int, int]:
    """``"3x4"`` -> (3, 4); ``"4"`` -> (4, 4).  Sizes from 2x2 up to 6x6 (BFS and PDB limits are stricter)."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:[xX]\s*(\d+))?\s*", text)
    if not m:
        raise PuzzleInputError(f"{where}: {text!r} is not a board size like 3x3 or 3x4")
    rows = int(m.group(1))
    cols = int(m.group(2)) if m.group(2) else rows
    if not (2 <= rows <= 6 and 2 <= cols <= 6):
        raise PuzzleInputError(f"{where}: {rows}x{cols} is outside the supported sizes 2x2 .. 6x6")
    return rows, cols


def goal_board(rows: int, cols: int, goal: str = "blank-last") -> Board:
    n = rows * cols
    if goal == "blank-last":
        return Board(rows, cols, tuple(range(1, n)) + (0,))
    if goal == "blank-first":
        return Board(rows, cols, tuple(range(n)))
    raise PuzzleInputError(f"--goal: {goal!r} is not one of {', '.join(GOALS)}")


def parse_board(text: str, size: tuple[int, int] | None = None, where: str = "board") -> Board:
    """Read tiles in row order, separated by spaces, commas or newlines (a grid), ``0`` or ``.``/``_`` the blank.

    The size is ``size`` when given, else the grid's shape when the text has several non-empty lines of equal
    length, else the square whose area is the number of tiles.
    """
    lines = [ln for ln in text.replace(",", " ").splitlines() if ln.strip()]
    tokens = [tok for ln in lines for tok in ln.split()]
    if not tokens:
        raise PuzzleInputError(f"{where}: no tiles given")
    values = []
    for tok in tokens:
        if tok in (".", "_"):
            values.append(0)
        elif tok.isdigit():
            values.append(int(tok))
        else:
            raise PuzzleInputError(f"{where}: {tok!r} is not a tile number")
    n = len(values)
    if size is None:
        widths = {len(ln.split()) for ln in lines}
        if len(lines) > 1 and len(widths) == 1:
            size = (len(lines), widths.pop())
        else:
            side = int(round(n ** 0.5))
            if side * side != n:
                raise PuzzleInputError(f"{where}: {n} tiles is not a square board; give the size (e.g. --size 3x4)")
            size = (side, side)
    rows, cols = size
    if rows * cols != n:
        raise PuzzleInputError(f"{where}: {n} tiles given for a {rows}x{cols} board ({rows * cols} expected)")
    if not (2 <= rows <= 6 and 2 <= cols <= 6):
        raise PuzzleInputError(f"{where}: {rows}x{cols} is outside the supported sizes 2x2 .. 6x6")
    seen: dict[int, int] = {}
    for k, v in enumerate(values):
        if v >= n:
            raise PuzzleInputError(f"{where}: tile {v} at position {k + 1} is out of range 0..{n - 1}")
        if v in seen:
            raise PuzzleInputError(f"{where}: tile {v} appears twice (positions {seen[v] + 1} and {k + 1})")
        seen[v] = k
    return Board(rows, cols, tuple(values))


def read_instances(path: str | Path, size: tuple[int, int] | None = None) -> list[tuple[Board, int | None]]:
    """Instances in the data folder's format: one a line, tiles in row order, optionally the optimal length last.

    Blank lines and ``#`` comments are skipped.  Returns ``(board, optimal_length or None)`` per instance; more
    instances than the instances limit (``$PUZZLEBATCH_MAX_INSTANCES``) is a one-line error naming the line.
    """
    from puzzlebatch import limits
    from puzzlebatch.outputs import read_text

    path = Path(path)
    text = read_text(path)
    limit = limits.INSTANCES.value
    out = []
    for no, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if len(out) >= limit:
            limits.INSTANCES.check(len(out) + 1, f"{path}:{no}")
        toks = line.replace(",", " ").split()
        where = f"{path}:{no}"
        n_known = None
        if size is not None:
            n = size[0] * size[1]
        else:
            n = next((s * s for s in range(2, 7) if len(toks) in (s * s, s * s + 1)), None)
            if n is None:
                raise PuzzleInputError(f"{where}: {len(toks)} numbers is neither n*n tiles nor n*n tiles + a length")
        if len(toks) == n + 1:
            if not toks[-1].isdigit():
                raise PuzzleInputError(f"{where}: optimal length {toks[-1]!r} is not a number")
            n_known = int(toks[-1])
            toks = toks[:-1]
        out.append((parse_board(" ".join(toks), size, where), n_known))
    if not out:
        raise PuzzleInputError(f"{path}: no instances")
    return out


# -- solvability -------------------------------------------------------------------------------------------------

def inversions(seq) -> int:
    """Number of pairs out of order in ``seq`` (O(n log n) by merge counting is not needed at n <= 36)."""
    count = 0
    for i in range(len(seq)):
        for j in range(i + 1, len(seq)):
            if seq[i] > seq[j]:
                count += 1
    return count


def parity_invariant(board: Board) -> tuple[int, int, int]:
    """``(invariant, inversions, blank_row)`` with invariant = inversions + (cols-1) * blank_row (mod 2).

    Inversions are counted over the tiles in row order, the blank left out.  A horizontal move of the blank
    changes neither; a vertical move changes the blank row by one and moves one tile across ``cols - 1`` others.
    So the invariant is constant along moves, and two boards with equal invariants are connected (Johnson &
    Story, 1879).
    """
    seq = [t for t in board.tiles if t]
    inv = inversions(seq)
    row = board.blank // board.cols
    return (inv + (board.cols - 1) * row) % 2, inv, row


def solvability(board: Board, goal: Board) -> tuple[bool, str]:
    """Whether ``goal`` can be reached from ``board``, with the reason in words."""
    inv_b = parity_invariant(board)
    inv_g = parity_invariant(goal)
    ok = inv_b[0] == inv_g[0]
    if board.cols % 2:
        why = (f"{inv_b[1]} inversions ({'even' if inv_b[1] % 2 == 0 else 'odd'} permutation of the tiles) against "
               f"{inv_g[1]} for the goal ({'even' if inv_g[1] % 2 == 0 else 'odd'}); with an odd width "
               f"({board.cols}) every move keeps the parity of the inversions")
    else:
        why = (f"{inv_b[1]} inversions + blank on row {inv_b[2]} = {inv_b[1] + inv_b[2]} "
               f"({'even' if inv_b[0] == 0 else 'odd'}) against {inv_g[1]} + {inv_g[2]} = {inv_g[1] + inv_g[2]} "
               f"for the goal ({'even' if inv_g[0] == 0 else 'odd'}); with an even width ({board.cols}) every move "
               f"keeps inversions + blank row (mod 2)")
    return ok, ("solvable: " if ok else "unsolvable: ") + why


# -- goal conversion ---------------------------------------------------------------------------------------------

def to_blank_first(board: Board, goal: str) -> Board:
    """The board seen from the blank-first goal (identity for ``blank-first``; 180 degrees + t -> n-t otherwise)."""
    if goal == "blank-first":
        return board
    n = board.n
    return Board(board.rows, board.cols, tuple((n - t) % n for t in reversed(board.tiles)))


def tile_from_blank_first(tile: int, n: int, goal: str) -> int:
    return tile if goal == "blank-first" else n - tile


def direction_from_blank_first(d: str, goal: str) -> str:
    return d if goal == "blank-first" else OPPOSITE[d]


# -- moves -------------------------------------------------------------------------------------------------------

def move_blank(board: Board, d: str) -> tuple[Board, int]:
    """Move the blank one step in direction ``d`` (U/D/L/R); returns (new board, tile moved).

    Raises PuzzleInputError when the blank would leave the board.
    """
    if d not in DELTAS:
        raise PuzzleInputError(f"move {d!r}: not one of U, D, L, R")
    b = board.blank
    r, c = divmod(b, board.cols)
    dr, dc = DELTAS[d]
    r2, c2 = r + dr, c + dc
    if not (0 <= r2 < board.rows and 0 <= c2 < board.cols):
        raise PuzzleInputError(f"move {d}: the blank at row {r + 1}, column {c + 1} cannot move that way")
    k = r2 * board.cols + c2
    tiles = list(board.tiles)
    tile = tiles[k]
    tiles[b], tiles[k] = tile, 0
    return Board(board.rows, board.cols, tuple(tiles)), tile


def move_tile(board: Board, tile: int) -> Board:
    """Slide tile ``tile`` into the blank; PuzzleInputError if it is not next to the blank."""
    if not 1 <= tile < board.n:
        raise PuzzleInputError(f"move {tile}: no such tile on a {board.rows}x{board.cols} board")
    k = board.tiles.index(tile)
    b = board.blank
    (r, c), (rb, cb) = divmod(k, board.cols), divmod(b, board.cols)
    if abs(r - rb) + abs(c - cb) != 1:
        raise PuzzleInputError(f"move {tile}: tile {tile} is not next to the blank")
    tiles = list(board.tiles)
    tiles[b], tiles[k] = tile, 0
    return Board(board.rows, board.cols, tuple(tiles))


def replay(board: Board, moves) -> list[Board]:
    """All boards along ``moves`` (tile numbers, or blank directions as letters), each move validated."""
    path = [board]
    for m in moves:
        if isinstance(m, str) and m in DELTAS:
            board, _ = move_blank(board, m)
        else:
            board = move_tile(board, int(m))
        path.append(board)
    return path


def directions_to_tiles(board: Board, dirs: str) -> list[int]:
    tiles = []
    for d in dirs:
        board, t = move_blank(board, d)
        tiles.append(t)
    return tiles
