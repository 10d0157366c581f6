"""Tables and root state of the incremental-MRV exact cover (:mod:`puzzlebatch.puzzles.polyomino.mrv_rules`).

A piece placed at most once (a group with one copy) becomes a primary item of its own, so that the search can
branch on the piece with the fewest placements left as well as on a cell (Knuth's choice in DLX).  Pieces with
any number of copies need no item.  Pieces with k > 1 copies cannot be said with live/dead options alone:
:func:`supports` tells, and the solver then uses the recounting rule.
"""

from __future__ import annotations

from dataclasses import dataclass
import numpy as np

from puzzlebatch.limits import check_memory
from puzzlebatch.puzzles.polyomino import mrv_rules as R
from puzzlebatch.puzzles.polyomino.cover import UNLIMITED, ExactCover, TablePacker, bitset_words


def supports(ec: ExactCover) -> bool:
    """True when every group has one copy (left, or used up) or any number of copies."""
    for g, c in enumerate(ec.group_copies):
        if c != UNLIMITED and c - ec.group_used.get(g, 0) > 1:
            return False
    return True


@dataclass
class Encoded:
    tables: np.ndarray
    root: np.ndarray
    goal: int
    lists: list[list[int]]
    piece_item: dict[int, int]  # group -> its item (groups with one copy)


def _pack(rows: np.ndarray, n_bits: int) -> np.ndarray:
    """Bool rows (n, n_bits) as 63-bit words: an (n, ceil(n_bits / 63)) int64 array (bit j of word w is column
    63 w + j; the 64th bit of each word stays 0)."""
    lw = max(1, -(-n_bits // R.WORD_BITS))
    pad = np.zeros((rows.shape[0], lw, 64), bool)
    flat = np.zeros((rows.shape[0], lw * R.WORD_BITS), bool)
    flat[:, :n_bits] = rows
    pad[:, :, :R.WORD_BITS] = flat.reshape(rows.shape[0], lw, R.WORD_BITS)
    packed = np.packbits(pad, axis=2, bitorder="little")  # (n, lw, 8) bytes, least significant first
    return np.ascontiguousarray(packed).view("<u8").reshape(rows.shape[0], lw).astype(np.int64)


def conflicts(ec: ExactCover, items_of: list[list[int]], n_primary: int, n_items: int,
              new_id=lambda i: i) -> np.ndarray:
    """(n_opt, n_opt) bool: options that cannot both be in a solution (sharing any item; with colours, a
    secondary item shared with the same colour is allowed).  ``new_id`` maps the cover's item ids to these."""
    n_opt = len(items_of)
    inc = np.zeros((n_opt, n_items), np.float32)
    for o, its in enumerate(items_of):
        inc[o, its] = 1.0
    colors = ec.option_colors
    if not ec.colored:
        return (inc @ inc.T) > 0
    prim = inc[:, :n_primary]
    conf = (prim @ prim.T) > 0
    # secondary items: shared with a different colour, or where either side gives none (colour 0)
    col = np.zeros((n_opt, n_items), np.int64)
    for o, pairs in enumerate(colors):
        for it, c in pairs:
            col[o, new_id(it)] = c
    for it in range(n_primary, n_items):
        users = np.flatnonzero(inc[:, it] > 0)
        if len(users) < 2:
            continue
        c = col[users, it]
        bad = (c[:, None] != c[None, :]) | (c[:, None] == 0) | (c[None, :] == 0)
        conf[np.ix_(users, users)] |= bad
    np.fill_diagonal(conf, True)
    return conf


WATCHED = 4  # items watched an option (3 to 8 measured alike on the Bedlam cube: bench/log/polyomino.md)


def watched_items(conf: np.ndarray | None, imask: np.ndarray, n_opt: int, n_primary: int,
                  k: int | None = None) -> np.ndarray:
    """(n_opt, k) int64: per option, the primary items outside it whose options it kills the largest share of
    (most first, -1 padded; only items it kills some of).  Choosing the option leaves such an item without an
    option most often: :func:`mrv_rules.watched_dead` looks at them before the child is built."""
    k = WATCHED if k is None else k
    out = np.full((max(n_opt, 1), k), -1, np.int64)
    if not n_opt or not n_primary or not k:
        return out
    holds = imask[:n_primary].T  # (n_opt, n_primary): the option holds the item
    held = holds.sum(axis=0).astype(np.float32)  # options per item
    share = (conf.astype(np.float32) @ holds.astype(np.float32)) / np.maximum(held, 1.0)
    share[holds] = 0.0  # its own items are covered by it
    k = min(k, n_primary)
    top = np.argpartition(-share, k - 1, axis=1)[:, :k] if k < n_primary else np.tile(np.arange(k), (n_opt, 1))
    # most first; ties: the lower item
    order = np.lexsort((top, -np.take_along_axis(share, top, axis=1)), axis=1)
    top = np.take_along_axis(top, order, axis=1)
    keep = np.take_along_axis(share, top, axis=1) > 0
    out[:, :k] = np.where(keep, top, -1)
    return out


def encode(ec: ExactCover) -> Encoded:
    """Tables and root; the options are tried in id order."""
    if not supports(ec):
        raise ValueError("incremental MRV needs every piece to have one copy or any number of copies")
    n_opt = len(ec.options)
    groups = ec.option_group if ec.option_group else [-1] * n_opt
    # items: the cover's primary items, a piece item per one-copy group, then the secondary items.  A piece
    # item is primary (used exactly once, and a branching candidate) when the pieces must fill the free cells
    # exactly; otherwise a piece may stay out, and its item is secondary (at most once).
    piece_item: dict[int, int] = {}
    np0 = ec.n_primary
    placeable = set(int(g) for g in groups if g >= 0)
    once = [g for g, c in enumerate(ec.group_copies) if c != UNLIMITED and g in placeable]
    free = np0 - sum(1 for i in ec.precovered if i < np0)
    left = [g for g in once if ec.group_copies[g] - ec.group_used.get(g, 0) > 0]
    exact = (bool(once) and len(once) == len(ec.group_copies) and all(g >= 0 for g in groups)
             and sum(ec.group_size(g) for g in left) == free)
    for k, g in enumerate(once):
        piece_item[g] = (np0 + k) if exact else (ec.n_items + k)
    n_primary = np0 + (len(once) if exact else 0)
    n_items = ec.n_items + len(once)

    def new_id(i: int) -> int:
        return i if i < np0 else i + (len(once) if exact else 0)

    items_of = []
    for o, opt in enumerate(ec.options):
        its = [new_id(i) for i in opt]
        g = groups[o]
        if g in piece_item:
            its.append(piece_item[g])
        items_of.append(sorted(its))
    nw = max(1, -(-n_items // R.WORD_BITS))
    lw = max(1, -(-n_opt // R.WORD_BITS))
    goal = ec.max_depth()
    k = max((len(x) for x in items_of), default=1)
    # The conflict masks are built as dense (n_opt, n_opt) products and boolean masks first (see conflicts and
    # _pack) and as float32 for the watched items: about 14 bytes per pair of options at the peak, beside the
    # (n_opt, n_items) incidence matrix.
    check_memory(8 * (n_opt * (2 * lw + nw + k) + 8 * lw * (goal + 1)) + 14 * n_opt * n_opt
                 + 12 * n_opt * n_items, f"incremental MRV over {n_opt:,} options (a conflict mask each)")

    lists: list[list[int]] = [[] for _ in range(n_primary)]
    for o, its in enumerate(items_of):
        for i in its:
            if i < n_primary:
                lists[i].append(o)
    imask = np.zeros((max(n_primary, 1), n_opt), bool)
    for i, opts in enumerate(lists):
        imask[i, opts] = True

    optitems = np.full((max(n_opt, 1), k), -1, np.int64)
    for o, its in enumerate(items_of):
        optitems[o, :len(its)] = its
    optbits = np.zeros((max(n_opt, 1), nw), np.int64)
    for o, its in enumerate(items_of):
        optbits[o] = bitset_words(its, nw)
    conf_rows = conflicts(ec, items_of, n_primary, n_items, new_id) if n_opt else None
    conf = _pack(conf_rows, n_opt) if n_opt else np.zeros((1, lw), np.int64)
    watch = watched_items(conf_rows, imask, n_opt, n_primary)
    primcnt = np.asarray([sum(1 for i in its if i < n_primary) for its in items_of] or [0], np.int64)

    packer = TablePacker(R.H_WIDTH)
    header, put = packer.header, packer.put

    header[R.H_NW] = nw
    header[R.H_NI] = n_items
    header[R.H_NP] = n_primary
    header[R.H_LW] = lw
    header[R.H_NOPT] = n_opt
    header[R.H_GOAL] = goal
    header[R.H_K] = k
    header[R.H_MAXPRIM] = int(primcnt.max()) if n_opt else 0
    header[R.H_MINPRIM] = int(primcnt.min()) if n_opt else 0
    put(R.H_OPTITEMS, optitems)
    put(R.H_OPTBITS, optbits)
    put(R.H_CONF, conf)
    put(R.H_IMASK, _pack(imask, n_opt))
    put(R.H_PRIMCNT, primcnt)
    header[R.H_KW] = watch.shape[1]
    put(R.H_WATCH, watch)
    put(R.H_PRIM, bitset_words(range(n_primary), nw))
    # state: covered | live options per depth (goal + 1 slots) | option per depth | item per depth | counts |
    # per depth the non-zero live words (a count, then their indices)
    s_live = nw
    s_opt = s_live + lw * (goal + 1)
    s_item = s_opt + goal
    s_cnt = s_item + goal + 1
    s_nz = s_cnt + n_primary
    width = s_nz + (lw + 1) * (goal + 1)
    header[R.S_LIVE] = s_live
    header[R.S_CNT] = s_cnt
    header[R.S_NZ] = s_nz
    header[R.S_OPT] = s_opt
    header[R.S_ITEM] = s_item
    tables = packer.tables()

    covered = {new_id(i) for i in ec.precovered}
    for g, it in piece_item.items():
        if ec.group_copies[g] - ec.group_used.get(g, 0) <= 0:
            covered.add(it)
    alive = np.asarray([not any(i in covered for i in its) for its in items_of], bool)
    root = np.zeros(width, np.int64)
    root[:nw] = bitset_words(sorted(covered), nw)
    root[s_live:s_live + lw] = _pack(alive[None, :], n_opt)[0] if n_opt else 0
    nonzero = np.flatnonzero(root[s_live:s_live + lw])
    root[s_nz] = len(nonzero)
    root[s_nz + 1:s_nz + 1 + len(nonzero)] = nonzero
    counts = np.zeros(n_primary, np.int64)
    for o in np.flatnonzero(alive):
        for i in items_of[o]:
            if i < n_primary:
                counts[i] += 1
    root[s_cnt:s_cnt + n_primary] = counts
    root[s_opt:s_item] = -1
    free = [i for i in range(n_primary) if i not in covered]
    if not free:
        it = -1
    else:
        c = counts[free]
        it = -2 if c.min() == 0 else free[int(np.argmin(c))]
    root[s_item] = it
    return Encoded(tables, root, goal, lists, piece_item)


def decode(enc: Encoded, state: np.ndarray) -> list[int]:
    t = enc.tables
    opts = state[t[R.S_OPT]:t[R.S_OPT] + enc.goal]
    return [int(o) for o in opts if o >= 0]
