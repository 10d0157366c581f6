"""Snake objects <-> the flat arrays the rules read (see :mod:`puzzlebatch.puzzles.snake.rules`)."""

from __future__ import annotations

import numpy as np

from puzzlebatch.puzzles.snake import rules
from puzzlebatch.puzzles.snake.model import DIRECTIONS, Box, Chain


def n_words(n_cells: int) -> int:
    return -(-n_cells // rules.WORD_BITS)


def state_width(n_cells: int) -> int:
    return n_words(n_cells) + 2 * n_cells


def tables(chain: Chain, box: Box) -> np.ndarray:
    """The flat int64 table vector: header, neighbours, corner flags, perpendicular directions."""
    n = box.volume
    xyz = box.coords()
    dims = np.array(box.dims)
    nbr = np.full((n, 6), -1, dtype=np.int64)
    for d, step in enumerate(DIRECTIONS):
        moved = xyz + step
        inside = np.all((moved >= 0) & (moved < dims), axis=1)
        nbr[inside, d] = box.index(moved[inside, 0], moved[inside, 1], moved[inside, 2])
    perp = np.array([[e for e in range(6) if e // 2 != d // 2] for d in range(6)], dtype=np.int64)
    corner = np.array(chain.corners, dtype=np.int64)
    header = np.zeros(5, dtype=np.int64)
    parts = [header, nbr.ravel(), corner, perp.ravel()]
    offsets = np.cumsum([0] + [len(p) for p in parts])
    header[rules.H_CELLS] = n
    header[rules.H_WORDS] = n_words(n)
    header[rules.H_NBR] = offsets[1]
    header[rules.H_CORNER] = offsets[2]
    header[rules.H_PERP] = offsets[3]
    return np.concatenate(parts).astype(np.int64)


def root_state(box: Box) -> np.ndarray:
    """The empty box: nothing placed (depth 0)."""
    return np.zeros(state_width(box.volume), dtype=np.int64)


def cells_of(state: np.ndarray, depth: int, box: Box) -> np.ndarray:
    """The cells of cubes 0..depth-1 in a state."""
    w = n_words(box.volume)
    return np.asarray(state[w:w + depth], dtype=np.int64)


def coords_of(cells: np.ndarray, box: Box) -> np.ndarray:
    """(k, 3) coordinates (x, y, z) of cell indices."""
    return box.coords()[np.asarray(cells, dtype=np.int64)]
