"""Tables and root state of the two-word bitboard exact cover (:mod:`puzzlebatch.puzzles.polyomino.bitboard2_rules`).

It takes the packings the one-word bitboard (:mod:`puzzlebatch.puzzles.polyomino.bitboard`) cannot hold, up to 128
cells and pieces together, each piece used at most once: the twelve pentominoes with the five tetrominoes on 8x10
(80 cells), the one-sided pentominoes on 6x15 (90), a 9x9 board less a piece's cells.  :func:`supports` tells.
"""

from __future__ import annotations

import numpy as np

from puzzlebatch.puzzles.polyomino import bitboard as B
from puzzlebatch.puzzles.polyomino import bitboard2_rules as R
from puzzlebatch.puzzles.polyomino.cover import ExactCover


def supports(ec: ExactCover) -> bool:
    """True when the cells and the pieces fit two words together, every option belongs to a piece, each piece
    has one copy (or none left), and there are no colours or secondary items."""
    return ec.n_primary + len(ec.groups) <= R.MAX_ITEMS and B.pieces_once(ec)


def _pair(v: int) -> tuple[int, int]:
    return B._word(v & ((1 << 64) - 1)), B._word(v >> 64)


def encode(ec: ExactCover, prune: bool = True, flood: int | None = None,
           key_bits: int | None = None) -> B.Encoded:
    """Tables and root; each cell's candidates are tried piece by piece, in option order within a piece, in the
    same lists as the one-word rule (``key_bits``: key cells a cell, default ``bitboard.KEY_BITS``)."""
    if not supports(ec):
        raise ValueError("the two-word bitboard rule needs at most 128 cells and pieces, pieces used once")
    n_opt = len(ec.options)
    ncell = ec.n_primary
    ng = len(ec.groups)
    goal = ec.max_depth()
    groups = np.asarray(ec.option_group, np.int64)
    cells = np.zeros((n_opt, ncell), bool)
    first = np.zeros(n_opt, np.int64)
    item_masks = []  # per option: its cells and its piece, as one Python int
    cell_masks = []
    for o, items in enumerate(ec.options):
        its = [int(i) for i in items]
        cells[o, its] = True
        first[o] = min(its)
        m = sum(1 << i for i in its)
        cell_masks.append(m)
        item_masks.append(m | 1 << (ncell + int(groups[o])))
    full = (1 << ncell) - 1
    # per axis of the box (search order): its index shift, the cells with a + and with a - neighbour
    geo = ec.geometry
    shifts, plus, minus = [0, 0, 0], [0, 0, 0], [0, 0, 0]
    stride = 1
    idx = np.arange(int(np.prod(geo.shape)))
    for axis, size in enumerate(geo.shape[:3]):
        pos = (idx // stride) % size
        plus[axis] = sum(1 << int(i) for i in np.flatnonzero(pos < size - 1)) & full
        minus[axis] = sum(1 << int(i) for i in np.flatnonzero(pos > 0)) & full
        shifts[axis] = stride if plus[axis] else 0  # an axis of one cell grows nothing
        stride *= size

    def around(m: int) -> int:  # the empty cells next to a placement (where it can cut a region off)
        a = 0
        for axis in range(3):
            if shifts[axis]:
                a |= ((m & plus[axis]) << shifts[axis]) | ((m & minus[axis]) >> shifts[axis])
        return a & full & ~m

    opt, starts, keys = B.candidate_lists(cells, first, groups, ncell, B.KEY_BITS if key_bits is None
                                          else key_bits)
    pairs = np.array([_pair(m) for m in item_masks], np.int64).reshape(n_opt, 2)
    nbr = np.array([_pair(around(m)) for m in cell_masks], np.int64).reshape(n_opt, 2)
    ent = np.column_stack([pairs[opt, 0], pairs[opt, 1], opt, nbr[opt, 0], nbr[opt, 1]])
    packer = B.common_tables(R, ec, prune, flood, ent, starts, keys, 2)
    header, put = packer.header, packer.put
    header[R.H_FULL0], header[R.H_FULL1] = _pair(full)
    header[R.H_PALL0], header[R.H_PALL1] = _pair(((1 << ng) - 1) << ncell)
    header[R.H_NCELL] = ncell
    put(R.H_OPT, pairs)
    put(R.H_GROW, shifts + [w for m in plus for w in _pair(m)] + [w for m in minus for w in _pair(m)])
    tables, root = B.finish_tables(R, packer, goal)
    s_item = int(tables[R.S_ITEM])
    cover = sum(1 << int(i) for i in ec.precovered)
    for g in range(ng):
        if ec.group_copies[g] - ec.group_used.get(g, 0) <= 0:
            cover |= 1 << (ncell + g)
    root[R.S_C0], root[R.S_C1] = _pair(cover)
    free = full & ~cover
    cell = (free & -free).bit_length() - 1
    root[s_item] = B.list_index(cover & full, cell, keys) if free else -1
    if free and goal == 0:
        root[s_item] = -2
    return B.Encoded(tables, root, goal)
