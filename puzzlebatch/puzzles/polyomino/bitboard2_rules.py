"""Exact cover on a two-word bitboard, as batch-DFS rules (numba subset; compiled for CPU and CUDA).

The rule of :mod:`puzzlebatch.puzzles.polyomino.bitboard_rules` for boards of 65 to 128 cells, with the same
steps and the same tree (a board that fits one word searches the same nodes on either: a test checks it):

* the *items* are the cells (bits ``0 .. n_cells - 1``) and then the pieces (one bit each, from ``n_cells``), in
  two int64 words: a placement's mask holds its cells and its piece, so one test of both words says whether it
  fits, and the two words of covered items are the whole key of a node (``MERGE_KEY``: a count merges and
  remembers subtrees on them).  Boards whose cells and pieces need more than 128 bits are not taken;
* X1 is the lowest empty cell (``x & -x`` of the first word with an empty cell) and its list the one its key cells
  pick; X2 scans that list :data:`SCAN` candidates at a time, verdicts gathered in a word;
* X4, the region test, floods from the empty cells next to the placement by shifts of the 128-bit pair (a shift
  carries bits between the words), at most ``H_FLOODK`` steps, as on one word (a hole smaller than twice the
  smallest piece must be a placement of a piece left: a scan of its first cell's list);
* X6 (``leaf_count``): with at most three pieces left the solutions are counted without placing them (three:
  each fitting placement at the first empty cell leaves two); the last piece's placements are found by a scan
  of the list of the first cell it must cover.

Tables (flat int64): a header (``H_*``), the candidate entries (by field: both mask words, the option id, both
words of the empty cells around it), the list starts (2^k lists a cell), per option its two mask words, the piece
sizes, the growth shifts and masks, the key cells.  State: the two words of covered items, the option of each
depth, the candidate list of each depth (-1: the board is full).
"""

import numpy as np

WORD_BITS = 63  # the subset-sums word
MAX_ITEMS = 128  # cells and pieces
M63 = 9223372036854775807  # (1 << 63) - 1

# The subset-sum test stays out of line (see puzzlebatch.jit.unit): it is called only when a small region closes.
NOT_INLINED = ("size_ok",)

H_GOAL = 0  # options in a solution (the DFS goal depth)
H_FULL0 = 1  # the board's cells in the first word
H_FULL1 = 2  # ... and in the second
H_PALL0 = 3  # the pieces' bits in the first word
H_PALL1 = 4  # ... and in the second
H_PRUNE = 5  # 1: region test
H_FLOODK = 6  # flood-fill steps before a region is taken to be large enough
H_UNIFORM = 7  # the common piece size, 0 when sizes differ
H_NG = 8  # pieces
H_NCELL = 9  # cells (the first piece's bit)
H_LSTART = 10  # offset: per list, where its candidates start (lists + 1 entries, in entries)
H_ENT = 11  # offset: candidate entries, by field: ENT_WIDTH columns of H_NENT words (E_* says which)
H_NENT = 12  # entries (the lists' entries, then SCAN padding entries that never fit)
H_OPT = 13  # offset: per option, its two mask words
H_GSIZE = 14  # offset: per piece, its size
H_GROW = 15  # offset: per axis its index shift (0: none), then per axis the two words of the cells with a +
#              neighbour, then of the cells with a - neighbour (a cell receives along +axis when it has a - one)
H_KEYBITS = 16  # key cells a cell (k: 2^k lists a cell)
H_KEYS = 17  # offset: per cell, its k key cells, each as two words with its bit set
S_OPT = 18  # state offset of the option per depth
S_ITEM = 19  # state offset of the candidate list per depth (the first empty cell and its key; -1: board full)
H_MINSIZE = 20  # the smallest piece's size: a closed region below twice it is one piece's hole
H_WIDTH = 21
SCAN = 4  # candidates the scan tests at once, without a branch each

ENT_WIDTH = 5
E_M0 = 0  # its items (cells and piece), first word
E_M1 = 1  # second word
E_OPT = 2  # its option id
E_N0 = 3  # the empty cells around it, first word
E_N1 = 4  # second word
S_C0 = 0  # covered items, first word
S_C1 = 1  # second word
# The covered items decide everything below a node: a count merges and remembers nodes on them.
MERGE_KEY = (S_C0, S_C1)


def popcount(x):
    """Set bits of an int64 word (SWAR; LLVM turns it into a popcount instruction on the CPU)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF


def low_index(a, b):
    """Index (0..127) of the lowest set bit of the pair ``(a, b)`` (not both zero)."""
    if a != 0:
        return popcount((a & (-a)) - 1)
    return 64 + popcount((b & (-b)) - 1)


def shift_up(a, b, s):
    """The pair ``(a, b)`` as one 128-bit number shifted left by ``s`` (1..127); bits past 128 are dropped."""
    if s >= 64:
        return 0, a << (s - 64)
    return a << s, (b << s) | ((a >> (64 - s)) & ~((-1) << s))


def shift_down(a, b, s):
    """The pair ``(a, b)`` shifted right by ``s`` (1..127), zeros coming in from the top."""
    if s > 64:
        return (b >> (s - 64)) & ~((-1) << (128 - s)), 0
    if s == 64:
        return b, 0
    keep = ~((-1) << (64 - s))
    return ((a >> s) & keep) | (b << (64 - s)), (b >> s) & keep


def covered(c0, c1, i):
    """Is item ``i`` set in the pair?"""
    if i < 64:
        return (c0 >> i) & 1
    return (c1 >> (i - 64)) & 1


def size_ok(size, c0, c1, tables):
    """Can the pieces not covered in ``(c0, c1)`` fill a region of ``size`` cells exactly?"""
    u = tables[H_UNIFORM]
    if size >= WORD_BITS:
        return True  # beyond the sums word: not tested
    if u > 0:
        return size - (size // u) * u == 0
    sums = 1
    gs = tables[H_GSIZE]
    nc = tables[H_NCELL]
    for g in range(tables[H_NG]):
        if covered(c0, c1, nc + g) == 0:
            sums = sums | ((sums << tables[gs + g]) & M63)
    return ((sums >> size) & 1) == 1


def grow_axis(r0, r1, s, g, tables):
    """The neighbours of the cells ``(r0, r1)`` along the axis of shift ``s`` (its growth masks from ``g``)."""
    u0, u1 = shift_up(r0 & tables[g], r1 & tables[g + 1], s)
    d0, d1 = shift_down(r0 & tables[g + 6], r1 & tables[g + 7], s)
    return u0 | d0, u1 | d1


def dead_region(f0, f1, c0, c1, q0, q1, tables):
    """True when a region of the empty cells ``(f0, f1)`` next to the seeds ``(q0, q1)`` closes within
    ``H_FLOODK`` flood steps and cannot be filled by the pieces left (those not covered in ``(c0, c1)``)."""
    gr = tables[H_GROW]
    k = tables[H_FLOODK]
    while (q0 | q1) != 0:
        if q0 != 0:
            r0 = q0 & (-q0)
            r1 = 0
        else:
            r0 = 0
            r1 = q1 & (-q1)
        closed = False
        for _ in range(k):
            n0 = r0
            n1 = r1
            for axis in range(3):  # one step grows from the cells of the last, along every axis
                s = tables[gr + axis]
                if s != 0:
                    a0, a1 = grow_axis(r0, r1, s, gr + 3 + 2 * axis, tables)
                    n0 = n0 | a0
                    n1 = n1 | a1
            n0 = n0 & f0
            n1 = n1 & f1
            if n0 == r0 and n1 == r1:
                closed = True
                break
            r0 = n0
            r1 = n1
        if closed and (r0 != f0 or r1 != f1):
            size = popcount(r0) + popcount(r1)
            if not size_ok(size, c0, c1, tables):
                return True
            if size < 2 * tables[H_MINSIZE] and completions(r0, r1, tables[H_PALL0] & ~c0,
                                                             tables[H_PALL1] & ~c1, tables) == 0:
                return True  # a hole for one piece (its size passed) that no piece left fits exactly
        q0 = q0 & ~r0  # r holds its seed, closed or not
        q1 = q1 & ~r1
    return False


def list_of(c0, c1, cell, tables):
    """The candidate list of ``cell`` (an empty cell) when ``(c0, c1)`` is covered: its key cells pick it."""
    k = tables[H_KEYBITS]
    keys = tables[H_KEYS] + 2 * cell * k
    key = 0
    for i in range(k):
        # the key cells' bits side by side (unsigned indices: no wraparound test), as in the one-word rule
        hit = (c0 & tables[np.uint64(keys + 2 * i)]) | (c1 & tables[np.uint64(keys + 2 * i + 1)])
        key = key | (int(hit != 0) << i)
    return (cell << k) | key


def next_choice(state, depth, c, n, tables):
    """X2: the first candidate from ``c`` whose items (cells and piece) are all uncovered, :data:`SCAN` at a
    time, their verdicts gathered in a word (one branch a block)."""
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        return c
    e0 = tables[H_ENT] + tables[tables[H_LSTART] + it]
    e1 = e0 + tables[H_NENT]
    c0 = state[S_C0]
    c1 = state[S_C1]
    while c < n:
        r = 0
        for k in range(SCAN):
            # unsigned indices: no test for a negative one (numba's wraparound) on each read
            f = ((c0 & tables[np.uint64(e0 + c + k)]) | (c1 & tables[np.uint64(e1 + c + k)])) == 0
            r = r | ((int(f) & int(c + k < n)) << k)
        if r != 0:
            return c + popcount((r & (-r)) - 1)
        c += SCAN
    return n


def child_key(state, depth, c, tables):
    """The memo key (the two words of covered items) of the child candidate ``c`` makes, should it pass the
    region test; not known for the finish move of a full board (no child to look up)."""
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        return False, 0, 0
    e = tables[H_ENT] + tables[tables[H_LSTART] + it] + c
    return True, state[S_C0] | tables[e], state[S_C1] | tables[e + tables[H_NENT]]


def candidate_fits(state, depth, c, tables):
    """Are the items (cells and piece) of candidate ``c`` (below :func:`n_choices`) of the node's list all
    uncovered?  Always, for the finish move of a full board (one candidate a lane in ``dfs_lanes_kernel``)."""
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        return True
    e = tables[H_ENT] + tables[tables[H_LSTART] + it] + c
    return ((state[S_C0] & tables[e]) | (state[S_C1] & tables[e + tables[H_NENT]])) == 0


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
    m0 = tables[ent]
    m1 = tables[ent + ne]
    if (state[S_C0] & m0) != 0 or (state[S_C1] & m1) != 0:
        return False
    c0 = state[S_C0] | m0
    c1 = state[S_C1] | m1
    f0 = (~c0) & tables[H_FULL0]
    f1 = (~c1) & tables[H_FULL1]
    nxt = -1
    if (f0 | f1) != 0:
        if depth + 1 >= tables[H_GOAL]:
            return False  # out of moves with cells uncovered
        if tables[H_PRUNE] != 0 and dead_region(f0, f1, c0, c1, tables[ent + E_N0 * ne] & f0,
                                                tables[ent + E_N1 * ne] & f1, tables):
            return False
        nxt = list_of(c0, c1, low_index(f0, f1), tables)
    state[S_C0] = c0
    state[S_C1] = c1
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
        state[S_C0] = state[S_C0] & ~tables[b]
        state[S_C1] = state[S_C1] & ~tables[b + 1]


def fix_options(state, fixed, k, tables):
    """Turn the root ``state`` into the node where options ``fixed[0..k-1]`` were chosen at depths 0..k-1 (a
    symmetry-breaking leaf, placed in any order); False when one does not fit, or the node is dead or pruned."""
    for d in range(k):
        o = fixed[d]
        b = tables[H_OPT] + 2 * o
        m0 = tables[b]
        m1 = tables[b + 1]
        if (state[S_C0] & m0) != 0 or (state[S_C1] & m1) != 0:
            return False
        state[S_C0] = state[S_C0] | m0
        state[S_C1] = state[S_C1] | m1
        state[tables[S_OPT] + d] = o
    c0 = state[S_C0]
    c1 = state[S_C1]
    f0 = (~c0) & tables[H_FULL0]
    f1 = (~c1) & tables[H_FULL1]
    nxt = -1
    if (f0 | f1) != 0:
        if k >= tables[H_GOAL]:
            return False
        if tables[H_PRUNE] != 0 and k > 0 and dead_region(f0, f1, c0, c1, f0, f1, tables):
            return False
        nxt = list_of(c0, c1, low_index(f0, f1), tables)
    state[tables[S_ITEM] + k] = nxt
    return True


def completions(r0, r1, l0, l1, tables):
    """The placements of a piece left (uncovered in ``(l0, l1)``, the pieces' bits) covering exactly the cells
    ``(r0, r1)``: a scan of the list of their first cell (they fit wherever the rest is covered)."""
    cell = low_index(r0, r1)
    it = list_of((~r0) & tables[H_FULL0], (~r1) & tables[H_FULL1], cell, tables)
    ls = tables[H_LSTART]
    e0 = tables[H_ENT] + tables[ls + it]
    e1 = e0 + tables[H_NENT]
    x0 = tables[H_FULL0]
    x1 = tables[H_FULL1]
    found = 0
    for c in range(list_len(it, tables)):
        m0 = tables[e0 + c]
        m1 = tables[e1 + c]
        if (m0 & x0) == r0 and (m1 & x1) == r1 and ((m0 & l0) | (m1 & l1)) != 0:
            found += 1
    return found


def two_left(f0, f1, it, l0, l1, tables):
    """The ways the pieces left (one or two, uncovered in ``(l0, l1)``) cover exactly the empty cells ``(f0, f1)``,
    one of them at the first empty cell, whose candidate list is ``it``: a fitting placement that covers every
    empty cell is one way; one that leaves ``rest`` is completed by each placement of the other piece on exactly
    ``rest``."""
    ls = tables[H_LSTART]
    e0 = tables[H_ENT] + tables[ls + it]
    e1 = e0 + tables[H_NENT]
    n = list_len(it, tables)
    x0 = tables[H_FULL0]
    x1 = tables[H_FULL1]
    two = popcount(l0) + popcount(l1) == 2
    found = 0
    for c in range(n):
        m0 = tables[e0 + c]
        m1 = tables[e1 + c]
        # its cells empty, its piece left
        if (m0 & x0 & ~f0) != 0 or (m1 & x1 & ~f1) != 0 or ((m0 & ~x0 & ~l0) | (m1 & ~x1 & ~l1)) != 0:
            continue
        r0 = f0 & ~m0
        r1 = f1 & ~m1
        if (r0 | r1) == 0:
            found += 1
        elif two:
            found += completions(r0, r1, l0 & ~m0, l1 & ~m1, tables)
    return found


def leaf_count(state, depth, tables):
    """X6: the solutions below this node when at most three pieces are left, counted without applying them; -1:
    search on.  With two (:func:`two_left`), the last piece's placements on the cells left are counted; with
    three, each fitting placement at the first empty cell leaves a two-piece count on the cells it leaves."""
    it = state[tables[S_ITEM] + depth]
    if it == -1:
        return 1
    if it < 0:
        return 0
    c0 = state[S_C0]
    c1 = state[S_C1]
    l0 = tables[H_PALL0] & ~c0
    l1 = tables[H_PALL1] & ~c1
    left = popcount(l0) + popcount(l1)
    if left > 3:
        return -1
    f0 = (~c0) & tables[H_FULL0]
    f1 = (~c1) & tables[H_FULL1]
    if left < 3:
        return two_left(f0, f1, it, l0, l1, tables)
    ls = tables[H_LSTART]
    e0 = tables[H_ENT] + tables[ls + it]
    e1 = e0 + tables[H_NENT]
    n = list_len(it, tables)
    found = 0
    for c in range(n):
        m0 = tables[e0 + c]
        m1 = tables[e1 + c]
        if (m0 & c0) != 0 or (m1 & c1) != 0:
            continue
        r0 = f0 & ~m0
        r1 = f1 & ~m1
        if (r0 | r1) == 0:
            found += 1
        else:
            found += two_left(r0, r1, list_of(c0 | m0, c1 | m1, low_index(r0, r1), tables), l0 & ~m0, l1 & ~m1,
                              tables)
    return found
