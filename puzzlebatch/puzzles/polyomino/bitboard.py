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
# Key cells a cell's candidate list is split by (2^KEY_BITS lists a cell; see keyed_lists).
KEY_BITS = 4


def _word(v: int) -> int:
    """A 64-bit pattern as the int64 with the same bits."""
    return v - (1 << 64) if v >= 1 << 63 else v


def supports(ec: ExactCover) -> bool:
    """True when the cells are one word of items, every option belongs to a piece, each piece has one copy (or
    none left), and there are no colours or secondary items."""
    return ec.n_primary <= R.MAX_CELLS and len(ec.groups) <= R.WORD_BITS and pieces_once(ec)


def pieces_once(ec: ExactCover) -> bool:
    """What both bitboard rules need besides room: a board of cells only (no colours, no secondary items), every
    option a piece's, each piece with one copy (or none left)."""
    if ec.geometry is None or ec.n_items != ec.n_primary or ec.colored:
        return False
    if not ec.options or min(ec.option_group) < 0:
        return False
    return all(c != UNLIMITED and c - ec.group_used.get(g, 0) <= 1 for g, c in enumerate(ec.group_copies))


@dataclass
class Encoded:
    tables: np.ndarray
    root: np.ndarray
    goal: int


def list_index(cover: int, cell: int, keys: np.ndarray) -> int:
    """The candidate list of ``cell`` when the covered cells are ``cover`` (the rule's ``list_of``)."""
    k = keys.shape[1]
    return (cell << k) | sum(((cover >> int(c)) & 1) << i for i, c in enumerate(keys[cell]))


def keyed_lists(masks: np.ndarray, first: np.ndarray, groups: np.ndarray, pbit: np.ndarray, nbr: np.ndarray,
                ncell: int, key_bits: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The candidate entries, listed by first cell and key, their list starts and each cell's key cells (the
    one-word layout; see :func:`candidate_lists`)."""
    n_opt = len(masks)
    bits = np.unpackbits(masks.astype("<u8").view(np.uint8).reshape(n_opt, 8), axis=1, bitorder="little")
    opt, starts, keys = candidate_lists(bits[:, :ncell].astype(bool), first, groups, ncell, key_bits)
    ent = np.column_stack([masks.view(np.int64)[opt], pbit[opt], opt, nbr[opt]])
    return ent, starts, keys


def candidate_lists(cells: np.ndarray, first: np.ndarray, groups: np.ndarray, ncell: int,
                    key_bits: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The options of each candidate list, by first cell and key, their list starts and each cell's key cells
    (``cells``: an (options, cells) bool matrix of the cells each option covers).

    A cell's key cells are the ``key_bits`` other cells that most of its candidates cover (bit ``i`` of a key: key
    cell ``i`` is covered); list ``cell << k | key`` holds the candidates of ``cell`` that cover none of the key cells
    its key marks covered, in the order of the cell's whole list (measured on 6x10: 16 candidates looked at a node
    with one list a cell, 9.5 with four key cells; bench/log/polyomino.md)."""
    n_opt = len(first)
    # per_cell[a, b]: the candidates of cell a that cover cell b
    by_first = np.argsort(first, kind="stable")
    firsts, starts_of = np.unique(first[by_first], return_index=True)
    k = max(0, min(int(key_bits), 6))
    width = max(ncell, k)  # columns past the cells: never covered, so never keys
    cells = np.pad(cells[:, :ncell], ((0, 0), (0, width - ncell)))
    per_cell = np.zeros((ncell, width), np.int64)
    if n_opt:
        per_cell[firsts] = np.add.reduceat(cells[by_first].astype(np.int64), starts_of, axis=0)
    per_cell[np.arange(ncell), np.arange(ncell)] = -1  # never a cell's own key
    keys = np.argsort(-per_cell, axis=1, kind="stable")[:, :k].astype(np.int64)
    # a key cell no candidate covers is no key: the cell itself (always free when its list is read)
    unused = np.take_along_axis(per_cell, keys, axis=1) <= 0
    keys[unused] = np.repeat(np.arange(ncell), k).reshape(ncell, k)[unused]
    nk = 1 << k
    order = np.lexsort((np.arange(n_opt), groups, first))  # by cell, piece by piece, option order within
    # the key cells each candidate covers, as key bits (a cell's own bit never marks a list: it is free when its
    # list is read)
    kcell = keys[first[order]]  # (candidate, k)
    hits = cells[order[:, None], kcell] & (kcell != first[order][:, None])
    covers = (hits.astype(np.int64) << np.arange(k)).sum(axis=1) if k else np.zeros(n_opt, np.int64)
    fits = (covers[:, None] & np.arange(nk)[None, :]) == 0  # (candidate, key)
    key_of, cand = np.nonzero(fits.T)  # key-major: sorted by (cell, key, order) below
    lst = (first[order][cand] << k) | key_of
    srt = np.argsort(lst, kind="stable")  # within a list, candidates stay in order: nonzero gave them ascending
    cand, lst = cand[srt], lst[srt]
    starts = np.zeros(ncell * nk + 1, np.int64)
    starts[1:] = np.cumsum(np.bincount(lst, minlength=ncell * nk))
    return order[cand], starts, keys


def key_words(keys: np.ndarray, words: int) -> np.ndarray:
    """Each cell's key cells (``keys``, by number) as the rule's ``list_of`` reads them: per key cell ``words``
    words with only its bit set."""
    bits = np.left_shift(np.uint64(1), (keys[..., None] - 64 * np.arange(words)).astype(np.uint64) & np.uint64(63))
    inside = (keys[..., None] >= 64 * np.arange(words)) & (keys[..., None] < 64 * (np.arange(words) + 1))
    return np.where(inside, bits, np.uint64(0)).view(np.int64).reshape(len(keys), -1)


def placement_table(masks: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, int]:
    """The placements by their cells, for ``pieces_of`` (bitboard_rules): ``(words, bits)``, the start of each
    of ``2^bits`` buckets (and the end of the last), then a (cells, piece bits) pair for each distinct set of
    cells, by bucket; a set's bucket is ``phash_slot`` of its cells.  ``bits`` 0 (and no words) when two
    placements of one piece have the same cells, where a look-up could not count them."""
    if len(masks) == 0:
        return np.zeros(0, np.int64), 0
    order = np.lexsort((groups, masks))
    m, g = masks[order], groups[order]
    new = np.concatenate([[True], m[1:] != m[:-1]])
    if np.any(~new & (g == np.concatenate([[-1], g[:-1]]))):
        return np.zeros(0, np.int64), 0
    first = np.flatnonzero(new)
    cells = m[first]
    pieces = np.bitwise_or.reduceat(np.left_shift(np.int64(1), g), first)
    bits = max(1, int(len(cells) * 2 - 1).bit_length())  # about two buckets a set of cells
    home = ((cells * np.int64(R.PHASH_MUL)) >> np.int64(64 - bits)) & ((1 << bits) - 1)  # phash_slot, wrapping
    by = np.argsort(home, kind="stable")
    starts = np.searchsorted(home[by], np.arange((1 << bits) + 1))
    return np.concatenate([starts, np.column_stack([cells[by], pieces[by]]).ravel()]).astype(np.int64), bits


def common_tables(R, ec: ExactCover, prune: bool, flood: int | None, ent: np.ndarray, starts: np.ndarray,
                  keys: np.ndarray, words: int) -> TablePacker:
    """The tables both bitboard rules (``R``: one word or two) read alike: the goal, the region test's settings,
    the pieces' sizes, the candidate lists (entries by field) and the key cells (:func:`key_words` of ``keys``, in
    ``words`` words a key cell)."""
    ng = len(ec.groups)
    sizes = [ec.group_size(g) for g in range(ng)]
    placeable = [sizes[g] for g in range(ng) if ec.group_copies[g] - ec.group_used.get(g, 0) > 0]
    packer = TablePacker(R.H_WIDTH)
    header, put = packer.header, packer.put
    header[R.H_GOAL] = ec.max_depth()
    header[R.H_PRUNE] = 1 if prune else 0
    header[R.H_FLOODK] = max(0, int(DEFAULT_FLOOD if flood is None else flood))
    header[R.H_UNIFORM] = placeable[0] if placeable and all(s == placeable[0] for s in placeable) else 0
    header[R.H_MINSIZE] = min(placeable) if placeable else 0
    header[R.H_NG] = ng
    header[R.H_KEYBITS] = keys.shape[1]
    put(R.H_LSTART, starts)
    # by field (the scan reads masks and piece bits in runs), with SCAN entries after the last list that the scan
    # may read past a list's end (masked out by the list's length)
    ent = np.concatenate([ent, np.zeros((R.SCAN, R.ENT_WIDTH), np.int64)])
    header[R.H_NENT] = len(ent)
    put(R.H_ENT, ent.T)
    put(R.H_KEYS, key_words(keys, words))
    put(R.H_GSIZE, sizes or [0])
    return packer


def finish_tables(R, packer: TablePacker, goal: int) -> tuple[np.ndarray, np.ndarray]:
    """The tables, and a root state with no option chosen (the rules' state: two words, then the option and the
    candidate list of each depth); the caller fills in its covered items and first list."""
    s_opt = 2
    s_item = s_opt + goal
    packer.header[R.S_OPT] = s_opt
    packer.header[R.S_ITEM] = s_item
    root = np.zeros(s_item + goal + 1, np.int64)
    root[s_opt:s_item] = -1
    return packer.tables(), root


def encode(ec: ExactCover, prune: bool = True, flood: int | None = None,
           key_bits: int | None = None) -> Encoded:
    """Tables and root; each cell's candidates are tried piece by piece, in option order within a piece
    (``key_bits``: key cells a cell, default :data:`KEY_BITS`; see :func:`keyed_lists`)."""
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

    ent, starts, keys = keyed_lists(masks_u, first, groups, pbit, nbr, ncell, KEY_BITS if key_bits is None
                                    else key_bits)
    packer = common_tables(R, ec, prune, flood, ent, starts, keys, 1)
    header, put = packer.header, packer.put
    header[R.H_FULL] = _word(full)
    header[R.H_ALL] = (1 << ng) - 1
    put(R.H_OPT, np.column_stack([masks, pbit]))
    put(R.H_GROW, grow)
    phash, header[R.H_PHBITS] = placement_table(masks, groups)
    put(R.H_PHASH, phash)
    tables, root = finish_tables(R, packer, goal)
    s_item = int(tables[R.S_ITEM])
    cover = 0
    for i in ec.precovered:
        cover |= 1 << int(i)
    root[R.S_COVER] = _word(cover)
    for g in range(ng):
        if ec.group_copies[g] - ec.group_used.get(g, 0) <= 0:
            root[R.S_USED] |= 1 << g
    free = full & ~cover
    cell = (free & -free).bit_length() - 1
    root[s_item] = list_index(cover, cell, keys) if free else -1
    if free and goal == 0:
        root[s_item] = -2
    return Encoded(tables, root, goal)
