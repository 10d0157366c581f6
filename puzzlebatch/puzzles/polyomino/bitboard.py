"""Tables and root state of the one-word bitboard exact cover (:mod:`puzzlebatch.puzzles.polyomino.bitboard_rules`).

It takes packings whose cells fit one 64-bit word and whose pieces are each used at most once (every pentomino
rectangle, the 8x8 board minus its centre, IQ Puzzler Pro, the Soma cube); :func:`supports` tells.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from puzzlebatch.puzzles.polyomino import bitboard_rules as R
from puzzlebatch.puzzles.polyomino.cover import UNLIMITED, ExactCover, TablePacker

# Flood-fill steps of the region test (bench/polyomino.py --flood): enough to close the holes a placement cuts off
# next to the first empty cell, few enough to cost less than the nodes they save.
DEFAULT_FLOOD = 6


def _word(v: int) -> int:
    """A 64-bit pattern as the int64 with the same bits."""
    return v - (1 << 64) if v >= 1 << 63 else v


def supports(ec: ExactCover) -> bool:
    """True when the cells are one word of items, every option belongs to a piece, each piece has one copy (or
    none left), and there are no colours or secondary items."""
    if ec.geometry is None or ec.n_items != ec.n_primary or ec.n_primary > R.MAX_CELLS or ec.colored:
        return False
    if not ec.options or len(ec.groups) > R.WORD_BITS or any(g < 0 for g in ec.option_group):
        return False
    return all(c != UNLIMITED and c - ec.group_used.get(g, 0) <= 1 for g, c in enumerate(ec.group_copies))


@dataclass
class Encoded:
    tables: np.ndarray
    root: np.ndarray
    goal: int


def encode(ec: ExactCover, prune: bool = True, flood: int | None = None) -> Encoded:
    """Tables and root; each cell's candidates are tried piece by piece, in option order within a piece."""
    if not supports(ec):
        raise ValueError("the bitboard rule needs at most 64 cells and pieces used once")
    n_opt = len(ec.options)
    ncell = ec.n_primary
    ng = len(ec.groups)
    goal = ec.max_depth()
    items = ec.option_array() if n_opt else np.zeros((0, 1), np.int64)
    pad = items < 0
    if np.any(items >= 64):
        raise ValueError("the bitboard rule needs every option's items below 64")
    bits = np.where(pad, np.uint64(0), np.left_shift(np.uint64(1), np.where(pad, 0, items).astype(np.uint64)))
    masks_u = np.bitwise_or.reduce(bits, axis=1) if n_opt else np.zeros(0, np.uint64)
    masks = masks_u.view(np.int64)
    first = np.where(pad, np.iinfo(np.int64).max, items).min(axis=1) if n_opt else np.zeros(0, np.int64)
    groups = np.asarray(ec.option_group, np.int64)
    pbit = np.left_shift(np.int64(1), groups)
    full = (1 << ncell) - 1
    geo = ec.geometry
    grow = [0] * 9  # per axis of the box (search order): its index shift, the cells with a + and a - neighbour
    stride = 1
    idx = np.arange(int(np.prod(geo.shape)))
    for axis, size in enumerate(geo.shape[:3]):
        pos = (idx // stride) % size
        grow[axis] = stride
        grow[3 + axis] = sum(1 << int(i) for i in np.flatnonzero(pos < size - 1))
        grow[6 + axis] = sum(1 << int(i) for i in np.flatnonzero(pos > 0))
        stride *= size
    # the cells around each option (its empty neighbours after it is placed are where a region can be cut off)
    full_u = np.uint64(full)
    m = masks_u & full_u
    around = np.zeros(n_opt, np.uint64)
    for axis in range(3):  # uint64 shifts drop the bits past 64, which the mask with ``full`` drops anyway
        s, p, q = grow[axis], grow[3 + axis] & full, grow[6 + axis] & full
        if s:
            around |= ((m & np.uint64(p)) << np.uint64(s)) | ((m & np.uint64(q)) >> np.uint64(s))
    nbr = (around & full_u & ~m).view(np.int64)
    grow = [_word(v & full) if k >= 3 else v for k, v in enumerate(grow)]

    order = np.lexsort((np.arange(n_opt), groups, first))
    cell_of = first[order]
    starts = np.zeros(ncell + 1, np.int64)
    starts[1:] = np.cumsum(np.bincount(cell_of, minlength=ncell))
    m = len(order)
    g_of = groups[order]
    boundary = np.ones(m, bool)  # a run ends where the next entry is in another list or of another piece
    boundary[:-1] = (cell_of[1:] != cell_of[:-1]) | (g_of[1:] != g_of[:-1])
    ends = np.flatnonzero(boundary)
    run_end = ends[np.searchsorted(ends, np.arange(m))] + 1
    ent = np.column_stack([masks[order], pbit[order], run_end - starts[cell_of], order, nbr[order]])
    sizes = [ec.group_size(g) for g in range(ng)]
    placeable = [sizes[g] for g in range(ng) if ec.group_copies[g] - ec.group_used.get(g, 0) > 0]
    uniform = placeable[0] if placeable and all(s == placeable[0] for s in placeable) else 0

    packer = TablePacker(R.H_WIDTH)
    header, put = packer.header, packer.put

    header[R.H_GOAL] = goal
    header[R.H_FULL] = _word(full)
    header[R.H_ALL] = (1 << ng) - 1
    header[R.H_PRUNE] = 1 if prune else 0
    header[R.H_FLOODK] = max(0, int(DEFAULT_FLOOD if flood is None else flood))
    header[R.H_UNIFORM] = uniform
    header[R.H_NG] = ng
    put(R.H_LSTART, starts)
    put(R.H_ENT, ent)
    put(R.H_OPT, np.column_stack([masks, pbit]))
    put(R.H_GSIZE, sizes or [0])
    put(R.H_GROW, grow)
    s_opt = 2
    s_item = s_opt + goal
    width = s_item + goal + 1
    header[R.S_OPT] = s_opt
    header[R.S_ITEM] = s_item
    tables = packer.tables()

    root = np.zeros(width, np.int64)
    cover = 0
    for i in ec.precovered:
        cover |= 1 << int(i)
    root[R.S_COVER] = _word(cover)
    for g in range(ng):
        if ec.group_copies[g] - ec.group_used.get(g, 0) <= 0:
            root[R.S_USED] |= 1 << g
    root[s_opt:s_item] = -1
    free = full & ~cover
    root[s_item] = (free & -free).bit_length() - 1 if free else -1
    if free and goal == 0:
        root[s_item] = -2
    return Encoded(tables, root, goal)
