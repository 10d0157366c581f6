"""Random-cut puzzles: cut a board (a rectangle or any mask) into connected random pieces of A..B cells.

Reproducible from the seed (numpy's PCG64).  Pieces grow one at a time from the first uncut cell in scan order,
each to a random target size drawn in ``[A, B]``, adding a random uncut neighbour at a time.  A piece that gets
stuck below ``A`` cells is merged into a neighbouring piece when the sum stays within ``B``; otherwise the union of
the two is re-cut into two connected parts of allowed sizes (random growths, many tries).  When even that fails
the whole cut is restarted from the next random draw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.polyomino import shapes as S

Cell = tuple[int, int]


@dataclass
class Cut:
    size: tuple[int, int]
    pieces: list[list[Cell]]  # absolute cells of each piece, in board coordinates

    def piece_objects(self, prefix: str = "P") -> list[S.Piece]:
        width = max(3, len(str(len(self.pieces))))
        return [S.Piece(f"{prefix}{i + 1:0{width}d}", S.normalize(c), "free", 1, "random cut")
                for i, c in enumerate(self.pieces)]


def _neighbours(c: Cell) -> Iterable[Cell]:
    x, y = c
    return ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))


def _grow(start: Cell, allowed: set, target: int, rng: np.random.Generator) -> list[Cell]:
    piece = [start]
    inside = {start}
    frontier = [n for n in _neighbours(start) if n in allowed]
    while len(piece) < target and frontier:
        i = int(rng.integers(len(frontier)))
        c = frontier[i]
        frontier[i] = frontier[-1]
        frontier.pop()
        if c in inside:
            continue
        piece.append(c)
        inside.add(c)
        frontier.extend(n for n in _neighbours(c) if n in allowed and n not in inside)
    return piece


def _split(union: set, a: int, b: int, rng: np.random.Generator, tries: int = 200):
    cells = sorted(union)
    for _ in range(tries):
        start = cells[int(rng.integers(len(cells)))]
        lo, hi = max(a, len(union) - b), min(b, len(union) - a)
        if lo > hi:
            return None
        part = _grow(start, union, int(rng.integers(lo, hi + 1)), rng)
        rest = union - set(part)
        if lo <= len(part) <= hi and S.is_connected(frozenset(rest)):
            return part, sorted(rest)
    return None


def random_cut(cells: Iterable[Cell], a: int, b: int, seed: int = 0, size: tuple[int, int] | None = None,
               attempts: int = 50, depth: int = 0) -> Cut:
    """Cut the cells into connected pieces of ``a..b`` cells (see module doc)."""
    if not 1 <= a <= b:
        raise PuzzleInputError(f"--sizes: {a}-{b} must satisfy 1 <= A <= B")
    cells = sorted(set((int(c[0]), int(c[1])) for c in cells), key=lambda c: (c[1], c[0]))
    if len(cells) < a:
        raise PuzzleInputError(f"--random-cut: the board has {len(cells)} cells, fewer than A={a}")
    if size is None:
        size = (max(c[0] for c in cells) + 1, max(c[1] for c in cells) + 1)
    rng = np.random.default_rng(seed)
    board = set(cells)
    for _ in range(attempts):
        owner: dict[Cell, int] = {}
        pieces: list[list[Cell]] = []
        ok = True
        for c in cells:
            if c in owner:
                continue
            free = _component_free(c, owner, board, limit=b)
            piece = _grow(c, free, int(rng.integers(a, b + 1)), rng)
            k = len(pieces)
            pieces.append(piece)
            for d in piece:
                owner[d] = k
            if len(piece) >= a:
                continue
            # too small: merge into a neighbour, or re-cut the union of the two
            nbrs = sorted({owner[n] for d in piece for n in _neighbours(d) if n in owner and owner[n] != k})
            rng.shuffle(nbrs)
            fixed = False
            for j in nbrs:
                if len(pieces[j]) + len(piece) <= b:
                    pieces[j] = pieces[j] + piece
                    for d in piece:
                        owner[d] = j
                    pieces[k] = []
                    fixed = True
                    break
            if not fixed:
                for j in nbrs:
                    got = _split(set(pieces[j]) | set(piece), a, b, rng)
                    if got is not None:
                        pieces[j], pieces[k] = list(got[0]), list(got[1])
                        for d in pieces[j]:
                            owner[d] = j
                        for d in pieces[k]:
                            owner[d] = k
                        fixed = True
                        break
            if not fixed and depth < 3:  # re-cut the fragment with all its neighbours
                union = set(piece).union(*(pieces[j] for j in nbrs))
                try:
                    sub = random_cut(union, a, b, int(rng.integers(1 << 31)), size, attempts=20, depth=depth + 1)
                except PuzzleInputError:
                    sub = None
                if sub is not None:
                    slots = list(nbrs) + [k]
                    for j in slots:
                        pieces[j] = []
                    for q, part in enumerate(sub.pieces):
                        if q < len(slots):
                            j = slots[q]
                        else:
                            j = len(pieces)
                            pieces.append([])
                        pieces[j] = list(part)
                        for d in part:
                            owner[d] = j
                    fixed = True
            if not fixed:
                ok = False
                break
        if ok:
            return Cut(size, [sorted(p) for p in pieces if p])
    raise PuzzleInputError(f"--sizes: could not cut the board into connected pieces of {a}-{b} cells "
                           f"in {attempts} attempts (try a wider size range)")


def _component_free(c: Cell, owner: dict, board: set, limit: int) -> set:
    """Uncut board cells within ``limit`` steps of ``c`` (the cells a piece grown from ``c`` may use)."""
    seen = {c}
    layer = [c]
    for _ in range(limit):
        nxt = []
        for d in layer:
            for n in _neighbours(d):
                if n in board and n not in owner and n not in seen:
                    seen.add(n)
                    nxt.append(n)
        layer = nxt
    return seen


def check_cut(cut: Cut, cells: Iterable[Cell], a: int, b: int) -> None:
    """Every cell in exactly one piece, each piece connected with a..b cells.  Raises AssertionError."""
    cells = set(cells)
    seen: set = set()
    for p in cut.pieces:
        assert a <= len(p) <= b, f"a piece of {len(p)} cells"
        assert S.is_connected(frozenset(p)), "a piece is not connected"
        for c in p:
            assert c in cells and c not in seen, f"cell {c} outside the board or in two pieces"
            seen.add(c)
    assert seen == cells, f"{len(cells - seen)} cells not cut"
