"""Packings as text, JSON and stored rows: one letter per piece on the board, placements as ``{"piece", "cells"}``
objects, and a solution as the row of option ids a results file holds.

What the command line prints, the Python API returns and ``show`` draws from a stored run all come from here, so a
solution reads the same everywhere."""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np


def placements_json(pk, placements) -> list[dict]:
    """The pieces of a level (``pk.preplaced``) and ``placements`` (pairs of piece index and cells) as JSON rows
    ``{"piece": name, "cells": [[x, y(, z)], ...]}``, sorted by piece and cells."""
    return [{"piece": pk.pieces[k].name, "cells": sorted([int(v) for v in c] for c in cells)}
            for k, cells in sorted(list(pk.preplaced) + [(k, c) for k, c in placements],
                                   key=lambda kc: (kc[0], sorted(map(tuple, kc[1]))))]


def pieces_json(pieces, placements) -> list[dict]:
    """``placements`` (pairs of piece index and flat cells) as JSON rows, in the order given."""
    return [{"piece": pieces[k].name, "cells": sorted([int(x), int(y)] for x, y in cells)} for k, cells in placements]


def grid_text(pk, placements) -> str:
    """Letters on the board: one glyph per piece, ``.`` for an empty cell, a space for a hole; a solid board's
    layers side by side."""
    board = pk.board
    size = board.size
    grid = np.full(size[::-1], " ", dtype="<U1")  # [z][y][x] or [y][x]
    for c in board.playable:
        grid[c[::-1]] = "."
    for k, cells in list(pk.preplaced) + list(placements):
        for c in cells:
            grid[tuple(int(v) for v in c)[::-1]] = pk.glyphs[k]
    if board.dim == 2:
        return "\n".join("".join(row) for row in grid)
    blocks = [["z=%d" % z + " " * (size[0] - 3)] + ["".join(r) for r in grid[z]] for z in range(size[2])]
    return "\n".join("   ".join(b[i].ljust(size[0]) for b in blocks) for i in range(size[1] + 1))


def legend(pk) -> str:
    """``glyph=name`` of every piece whose glyph is not its name (empty when every name is its letter)."""
    return "  ".join(f"{g}={p.name}" for g, p in zip(pk.glyphs, pk.pieces) if g != p.name)


def flat_grid(size: tuple[int, int], placements: Iterable, glyphs: Sequence[str], playable=None,
              empty: str = ".") -> str:
    """A flat tiling as letters: piece ``k`` drawn as ``glyphs[k % len(glyphs)]``; cells of ``playable`` (default:
    every cell) not covered are ``empty``, cells outside it a space."""
    w, h = size
    if playable is None:
        grid = np.full((h, w), empty, dtype="<U1")
    else:
        grid = np.full((h, w), " ", dtype="<U1")
        for x, y in playable:
            grid[y, x] = empty
    for k, cells in placements:
        for x, y in cells:
            grid[y, x] = glyphs[k % len(glyphs)]
    return "\n".join("".join(r) for r in grid)


def option_dtype(pk) -> type:
    """The integer type of a stored solution row (option ids, compactly)."""
    return np.int16 if len(pk.cover.options) < 32767 else np.int32


def option_row(pk, placements) -> np.ndarray:
    """A solution's placements (pairs of piece index and cells) as the sorted option ids a stored solution row
    holds (``count --all``, a kept solve)."""
    ids = {(int(g), frozenset(map(tuple, c.tolist()))): o
           for o, (g, c) in enumerate(zip(pk.cover.option_group, pk.option_cells))}
    return np.array(sorted(ids[(int(k), frozenset(tuple(int(v) for v in c) for c in cells))]
                           for k, cells in placements), np.int64)
