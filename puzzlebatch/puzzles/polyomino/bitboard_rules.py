"""Exact cover on a one-word bitboard, as batch-DFS rules (numba subset; compiled for CPU and CUDA).

The rule of :mod:`puzzlebatch.puzzles.polyomino.rules` in its first-empty-cell mode, cut down to what a board of
at most 64 cells with pieces used once needs, so that a node is a handful of word operations:

* the covered cells are one int64 word (up to 64 cells: the masks are applied after every right shift, so the
  sign bit is a cell like any other), the placed pieces another;
* the candidates of a cell are the placements whose *first* cell (in search order) it is, listed piece by piece,
  each entry holding its placement mask, its piece bit, the option id and the mask of the empty cells around it.
  Each cell has 2^k such lists, one for each way its k *key cells* (the cells its candidates cover most) can be
  covered, holding only the candidates that fit it;
* X1 is the lowest empty cell (one ``x & -x``) and its list the one its key cells pick; X2 scans that list,
  four candidates at a time;
* X4, the region test, looks only where the placement just made can have cut a region off: from each empty cell
  next to it a flood fill by shifts of the whole word grows at most ``H_FLOODK`` steps.  A region that closes
  within them, and is not all the empty cells, must have a size that the pieces left can fill (equal piece
  sizes: a multiple of the size; otherwise the subset sums of the pieces left, built only when such a region is
  found); a hole smaller than twice the smallest piece, which only one piece can fill, must also be the cells
  of a placement of a piece left (:func:`completions`: the table of placements by their cells, or a scan of its
  first cell's list).  A region still growing is left alone: the test only ever rejects dead nodes, whatever
  the bound;
* X6 (``leaf_count``): when at most three pieces are left the solutions are counted without placing them: with
  three, each fitting placement at the first empty cell leaves two; with two, the last piece's placement, if any,
  is looked up by its cells in a hash table of the placements (``pieces_of``).  Three pieces counted so (not
  searched with the region test, the memo and a move each) made 6x10 5 % faster; four, not faster.

Tables (flat int64): a header (``H_*``), the candidate entries, the list starts (2^k lists a cell), per option its
mask and piece bit, the piece sizes, the key cells, the placements by their cells.  State: covered cells, placed
pieces, the option of each depth, the candidate list of each depth (-1: the board is full).
"""

import numpy as np

WORD_BITS = 63  # the subset-sums word
MAX_CELLS = 64
M63 = 9223372036854775807  # (1 << 63) - 1

# The subset-sum test stays out of line (see puzzlebatch.jit.unit): it is called only when a small region closes.
NOT_INLINED = ("size_ok",)

H_GOAL = 0  # options in a solution (the DFS goal depth)
H_FULL = 1  # the board's cells (a word)
H_ALL = 2  # every piece's bit
H_PRUNE = 3  # 1: region test
H_FLOODK = 4  # flood-fill steps before a region is taken to be large enough
H_UNIFORM = 5  # the common piece size, 0 when sizes differ
H_NG = 6  # pieces
H_LSTART = 7  # offset: per cell, where its candidates start (n_cells + 1 entries, in entries)
H_ENT = 8  # offset: candidate entries, by field: ENT_WIDTH columns of H_NENT words (E_* says which)
H_OPT = 9  # offset: per option, its mask and its piece bit
H_GSIZE = 10  # offset: per piece, its size
H_GROW = 11  # offset: the shift of each of 3 axes, then the +masks, then the -masks (cells with a neighbour
#              that way: a cell receives along +axis from below when it has a - neighbour, and vice versa)
S_OPT = 12  # state offset of the option per depth
S_ITEM = 13  # state offset of the candidate list per depth (the first empty cell and its key; -1: board full)
H_KEYBITS = 14  # key cells a cell (k: 2^k lists a cell)
H_KEYS = 15  # offset: per cell, its k key cells, each as a word with its bit set
H_NENT = 16  # entries (the lists' entries, then SCAN padding entries that never fit)
H_PHASH = 17  # offset: the placements by their cells, in 2^H_PHBITS buckets (see pieces_of)
H_PHBITS = 18  # log2 of its buckets; 0: no such table (the last piece's placements are then looked up by a scan)
H_MINSIZE = 19  # the smallest piece's size: a closed region below twice it is one piece's hole
H_WIDTH = 20
PHASH_MUL = -7046029254386353131  # 0x9E3779B97F4A7C15 as an int64: Fibonacci hashing of a placement's cells
SCAN = 4  # candidates the scan tests at once, without a branch each

# The fields of a candidate entry, each a column of H_NENT words (the scan reads masks and piece bits in runs).
ENT_WIDTH = 4
E_MASK = 0  # its cells
E_PIECE = 1  # its piece bit
E_OPT = 2  # its option id
E_NBR = 3  # the empty cells around it
S_COVER = 0
S_USED = 1
# The covered cells and the placed pieces decide everything below a node (its list is the first empty cell's, its
# region test needs the pieces left): a count merges the nodes where they are equal (puzzlebatch.cpu_fallback.merge).
MERGE_KEY = (S_COVER, S_USED)


def bit_index(b):
    """Index of the single set bit of ``b`` (a power of two below 2**63), without branches."""
    return popcount(b - 1)


def popcount(x):
    """Set bits of a non-negative int64 (SWAR; LLVM turns it into a popcount instruction on the CPU)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF


def size_ok(size, used, tables):
    """Can the pieces not in ``used`` fill a region of ``size`` cells exactly?"""
    u = tables[H_UNIFORM]
    if size >= WORD_BITS:
        return True  # beyond the sums word (a 64-cell board less one cell): not tested
    if u > 0:
        return size - (size // u) * u == 0
    sums = 1
    gs = tables[H_GSIZE]
    for g in range(tables[H_NG]):
        if ((used >> g) & 1) == 0:
            sums = sums | ((sums << tables[gs + g]) & M63)
    return ((sums >> size) & 1) == 1


def dead_region(free, used, seeds, tables):
    """True when a region of the empty cells ``free`` next to ``seeds`` closes within ``H_FLOODK`` flood steps
    and cannot be filled by the pieces left."""
    gr = tables[H_GROW]
    s0 = tables[gr]
    s1 = tables[gr + 1]
    s2 = tables[gr + 2]
    p0 = tables[gr + 3]
    p1 = tables[gr + 4]
    p2 = tables[gr + 5]
    n0 = tables[gr + 6]
    n1 = tables[gr + 7]
    n2 = tables[gr + 8]
    k = tables[H_FLOODK]
    while seeds != 0:
        r = seeds & (-seeds)
        closed = False
        if s2 == 0:  # a flat board: two axes
            for _ in range(k):
                n = (r | ((r << s0) & n0) | ((r << s1) & n1) | ((r >> s0) & p0) | ((r >> s1) & p1)) & free
                if n == r:
                    closed = True
                    break
                r = n
        else:
            for _ in range(k):
                n = r | ((r << s0) & n0) | ((r << s1) & n1) | ((r << s2) & n2)
                n = (n | ((r >> s0) & p0) | ((r >> s1) & p1) | ((r >> s2) & p2)) & free
                if n == r:
                    closed = True
                    break
                r = n
        if closed and r != free:
            size = popcount(r)
            if not size_ok(size, used, tables):
                return True
            if size < 2 * tables[H_MINSIZE] and completions(bit_index(r & (-r)), r, tables[H_ALL] & ~used,
                                                             tables) == 0:
                return True  # a hole for one piece (its size passed) that no piece left fits exactly
        seeds = seeds & ~r  # r holds its seed, closed or not
    return False


def list_of(cov, cell, tables):
    """The candidate list of ``cell`` (an empty cell) when ``cov`` is covered: the cell's key cells pick it."""
    k = tables[H_KEYBITS]
    keys = tables[H_KEYS] + cell * k
    key = 0
    for i in range(k):
        # the key cells' bits side by side (unsigned indices: no wraparound test), so that the loads are one
        # vector load, not a gather of cell numbers and a shift by each (6 % of a 6x10 count)
        key = key | (int((cov & tables[np.uint64(keys + i)]) != 0) << i)
    return (cell << k) | key


def next_choice(state, depth, c, n, tables):
    """X2: the first candidate from ``c`` on whose piece is not placed and whose cells are empty.  The candidates
    are tested :data:`SCAN` at a time, their verdicts gathered in a word, one branch a block: which ones fit is
    data no predictor learns, and a branch a candidate cost a third of the search (bench/log/polyomino.md)."""
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        return c
    em = tables[H_ENT] + tables[tables[H_LSTART] + it]
    ep = em + tables[H_NENT]
    cov = state[S_COVER]
    used = state[S_USED]
    while c < n:
        r = 0
        for k in range(SCAN):
            # unsigned indices: no test for a negative one (numba's wraparound) on each read
            f = ((cov & tables[np.uint64(em + c + k)]) | (used & tables[np.uint64(ep + c + k)])) == 0
            r = r | ((int(f) & int(c + k < n)) << k)
        if r != 0:
            return c + bit_index(r & (-r))
        c += SCAN
    return n


def child_key(state, depth, c, tables):
    """The memo key (covered cells, placed pieces) of the child candidate ``c`` makes, should it pass the region
    test; not known for the finish move of a full board (no child to look up)."""
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        return False, 0, 0
    e = tables[H_ENT] + tables[tables[H_LSTART] + it] + c
    return True, state[S_COVER] | tables[e], state[S_USED] | tables[e + tables[H_NENT]]


def candidate_fits(state, depth, c, tables):
    """Does candidate ``c`` (below :func:`n_choices`) of the node's list fit: its cells empty and its piece not
    placed?  Always, for the finish move of a full board.  :func:`next_choice` makes the same test four
    candidates at a time; the CUDA kernel whose lanes share an item (``dfs_lanes_kernel``) one candidate a lane."""
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        return True
    e = tables[H_ENT] + tables[tables[H_LSTART] + it] + c
    return ((state[S_COVER] & tables[e]) | (state[S_USED] & tables[e + tables[H_NENT]])) == 0


def list_len(it, tables):
    """Entries in candidate list ``it``."""
    ls = tables[H_LSTART]
    return tables[ls + it + 1] - tables[ls + it]


def n_choices(state, depth, tables):
    if depth >= tables[H_GOAL]:
        return 0
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        return 1
    return list_len(it, tables)


def place(state, depth, e, tables):
    """X3, X4 and the child's X1 for candidate entry ``e``; False (state unchanged) when it cannot."""
    ent = tables[H_ENT] + e
    ne = tables[H_NENT]
    m = tables[ent]
    p = tables[ent + ne]
    if (state[S_COVER] & m) != 0 or (state[S_USED] & p) != 0:
        return False
    cov = state[S_COVER] | m
    used = state[S_USED] | p
    free = (~cov) & tables[H_FULL]
    nxt = -1
    if free != 0:
        if depth + 1 >= tables[H_GOAL]:
            return False  # out of moves with cells uncovered
        if tables[H_PRUNE] != 0 and dead_region(free, used, tables[ent + E_NBR * ne] & free, tables):
            return False
        nxt = list_of(cov, bit_index(free & (-free)), tables)
    state[S_COVER] = cov
    state[S_USED] = used
    state[tables[S_OPT] + depth] = tables[ent + E_OPT * ne]
    state[tables[S_ITEM] + depth + 1] = nxt
    return True


def apply(state, depth, choice, tables):
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        # X1 finish move: every cell is covered.
        state[tables[S_OPT] + depth] = -1
        state[tables[S_ITEM] + depth + 1] = -1
        return True
    return place(state, depth, tables[tables[H_LSTART] + it] + choice, tables)


def undo(state, depth, choice, tables):
    o = state[tables[S_OPT] + depth]
    if o >= 0:
        b = tables[H_OPT] + 2 * o
        state[S_COVER] = state[S_COVER] & ~tables[b]
        state[S_USED] = state[S_USED] & ~tables[b + 1]


def fix_options(state, fixed, k, tables):
    """Turn the root ``state`` into the node where options ``fixed[0..k-1]`` were chosen at depths 0..k-1 (a
    symmetry-breaking leaf, placed in any order); False when one does not fit, or the node is dead or pruned."""
    for d in range(k):
        o = fixed[d]
        b = tables[H_OPT] + 2 * o
        m = tables[b]
        p = tables[b + 1]
        if (state[S_COVER] & m) != 0 or (state[S_USED] & p) != 0:
            return False
        state[S_COVER] = state[S_COVER] | m
        state[S_USED] = state[S_USED] | p
        state[tables[S_OPT] + d] = o
    free = (~state[S_COVER]) & tables[H_FULL]
    nxt = -1
    if free != 0:
        if k >= tables[H_GOAL]:
            return False
        if tables[H_PRUNE] != 0 and k > 0 and dead_region(free, state[S_USED], free, tables):
            return False
        nxt = list_of(state[S_COVER], bit_index(free & (-free)), tables)
    state[tables[S_ITEM] + k] = nxt
    return True


def phash_slot(m, bits):
    """The home slot of the placement cells ``m`` in a table of ``2^bits`` slots: the top bits of a wrapping
    product (Fibonacci hashing)."""
    return ((m * PHASH_MUL) >> (64 - bits)) & ((1 << bits) - 1)


def pieces_of(m, tables):
    """The piece bits of the placements whose cells are exactly ``m`` (0: none), from its bucket of the table of
    placements by their cells (``bitboard.placement_table``)."""
    bits = tables[H_PHBITS]
    h = tables[H_PHASH]
    s = h + phash_slot(m, bits)
    pairs = h + (1 << bits) + 1
    for i in range(tables[s], tables[s + 1]):
        if tables[pairs + 2 * i] == m:
            return tables[pairs + 2 * i + 1]
    return 0


def completions(cell, rest, pieces, tables):
    """The placements of a piece in ``pieces`` (piece bits) that cover exactly the cells ``rest`` (``cell``: its
    first); with the table of placements by their cells, 1 when there is one (its count where ``pieces`` is one
    piece: a piece's placements have distinct cells)."""
    if tables[H_PHBITS] > 0:
        return int((pieces_of(rest, tables) & pieces) != 0)
    ls = tables[H_LSTART]
    cell = list_of(tables[H_FULL] & ~rest, cell, tables)  # they fit wherever the rest is covered
    em = tables[H_ENT] + tables[ls + cell]
    ep = em + tables[H_NENT]
    found = 0
    for c in range(tables[ls + cell + 1] - tables[ls + cell]):
        if tables[em + c] == rest and (tables[ep + c] & pieces) != 0:
            found += 1
    return found


def two_left(free, it, left, tables):
    """The ways the pieces ``left`` (one or two piece bits) cover exactly the empty cells ``free``, one of them at
    the first empty cell, whose candidate list is ``it``: a fitting placement that covers every empty cell is one
    way; one that leaves ``rest`` is completed by each placement of the other piece on exactly ``rest``."""
    ls = tables[H_LSTART]
    em = tables[H_ENT] + tables[ls + it]
    ep = em + tables[H_NENT]
    n = list_len(it, tables)
    found = 0
    for c in range(n):
        p = tables[ep + c]
        m = tables[em + c]
        if (p & left) == 0 or (m & ~free) != 0:
            continue
        rest = free & ~m
        if rest == 0:
            found += 1
        elif (left & ~p) != 0:
            found += completions(bit_index(rest & (-rest)), rest, left & ~p, tables)
    return found


def leaf_count(state, depth, tables):
    """X6: the solutions below this node when at most three pieces are left, counted without applying them; -1:
    search on.  With two (:func:`two_left`), the last piece's placement, if any, is looked up by its cells; with
    three, each fitting placement at the first empty cell leaves a two-piece count on the cells it leaves."""
    it = state[tables[S_ITEM] + depth]
    if it == -1:
        return 1
    if it < 0:
        return 0
    left = tables[H_ALL] & ~state[S_USED]
    two = left & (left - 1)
    three = two & (two - 1)
    if (three & (three - 1)) != 0:
        return -1
    cov = state[S_COVER]
    free = (~cov) & tables[H_FULL]
    if three == 0:
        return two_left(free, it, left, tables)
    ls = tables[H_LSTART]
    em = tables[H_ENT] + tables[ls + it]
    ep = em + tables[H_NENT]
    n = list_len(it, tables)
    found = 0
    for c in range(n):
        p = tables[ep + c]
        m = tables[em + c]
        if (p & left) == 0 or (m & cov) != 0:
            continue
        rest = free & ~m
        if rest == 0:
            found += 1
        else:
            found += two_left(rest, list_of(cov | m, bit_index(rest & (-rest)), tables), left & ~p, tables)
    return found
