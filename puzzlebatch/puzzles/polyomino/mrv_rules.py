"""Exact cover with MRV on live-option bitsets, as batch-DFS rules (numba subset; compiled for CPU and CUDA).

What dancing links keeps, kept in flat words: each node knows which options are *live* (still compatible with the
options chosen so far), as a bitset per depth, and which of those words are not zero.  A choice is one AND-NOT
per non-zero word with the option's precomputed conflict mask; the most constrained item comes from one pass over
the child's live options, not from a recount of every item's options against the board.

Static tables: per option its items, its items as a bitset, and its *conflict mask* -- the options that cannot
join it in a solution (they share a primary item, an uncoloured secondary item, or a secondary item with another
colour: Knuth's XCC rule is pairwise, so one mask per option says it all).  Per item the options that contain it.

State (per work item): the covered items; per depth the live options and the list of their non-zero words (the
child's words are computed from its parent's, so undo has nothing to restore but the covered items); the option
and item of each depth; scratch counts.  Words of a depth's slot outside its list are zero (a slot is cleared
word by word, along its old list, before it is rewritten).

X1  [Choose an item]  The uncovered primary item with the fewest live options (ties: the lowest index; pieces
    are items too).  On boards of at most two words of items one pass adds the live options into bit-sliced
    counters (four bits and a flag for sixteen or more, per item): an item held by none kills the node, the
    least count below sixteen is the choice; only when every item is held sixteen times or more are the counts
    taken (with three bits and eight, that recount took 5 % more of a Bedlam count; five bits cost more than
    they save).
    ``-1``: every primary
    item is covered, a "finish" move then runs on to the goal depth; ``-2``: the node is dead.
X2  [Try an option]  A node's choices are option ids; :func:`next_choice` finds the next live option of the
    item with a scan of ``live & options(item)`` along the non-zero words.
X3  [Cover]  ``live(child) = live & ~conflict(o)`` (``o`` is its own conflict), word by word, and ``o``'s items
    covered.
X4  [Prune]  The child is rejected when an uncovered item is left with no live option (X1 returns -2).  First,
    before the child is built, its option's *watched* items (those whose options it kills the largest share of:
    on a board, the cells around a placement) are looked at, each until one live option of the child holds it:
    most dead children (on the Bedlam cube, 94 % of them) die there, without X1's pass over the live options.
X5  [Uncover]  :func:`undo` uncovers ``o``'s items; the parent's words were never touched.
X6  [Count the last levels]  :func:`leaf_count`: when every completion needs at most two more options, the
    pairs are counted from the words without applying either (a live option of the chosen item that covers
    every uncovered item is one solution; one that leaves ``r`` items is completed by each live option that is
    compatible with it, holds the first item left and has ``r`` primary items).
"""

import numpy as np

WORD_BITS = 63
M63 = 9223372036854775807

# header entries
H_NW = 0  # words of an item bitset
H_NI = 1  # items (primary first)
H_NP = 2  # primary items
H_LW = 3  # words of an option bitset
H_NOPT = 4
H_GOAL = 5
H_K = 6  # widest option (items), the row width of OPTITEMS
H_OPTITEMS = 7  # offset: n_opt x K item ids, -1 padded
H_OPTBITS = 8  # offset: n_opt x NW, each option's items
H_CONF = 9  # offset: n_opt x LW, each option's conflict mask (itself included)
H_IMASK = 10  # offset: per primary item, the options that contain it (NP x LW)
H_MINPRIM = 11  # the fewest primary items of one option
H_PRIMCNT = 12  # offset: per option, how many primary items it has
H_PRIM = 13  # offset: NW words, the primary items
H_MAXPRIM = 14  # the most primary items of one option
# state offsets (the values are offsets into the state)
S_LIVE = 15  # per depth, LW words of live options
S_CNT = 16  # scratch: a count per primary item
H_ZERO = 17  # 0: added to an int32 choice to widen it to int64 before shifting (the simulator keeps int32)
S_OPT = 18
S_ITEM = 19
S_NZ = 20  # per depth, LW + 1 entries: how many live words are not zero, then their indices in order
H_WATCH = 21  # offset: per option, H_KW primary items (-1 padded) it is most likely to leave without an option
H_KW = 22  # watched items an option (0: none)
H_WIDTH = 23


def bit_index(b):
    """Index of the single set bit of ``b`` (a power of two below 2**63), without branches."""
    return popcount(b - 1)


def popcount(x):
    """Set bits of a non-negative int64 (SWAR; the byte sums are added by one wrapping multiply, the form LLVM
    turns into a popcount instruction on the CPU)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF


def is_live(state, depth, o, tables):
    q = o // WORD_BITS
    return ((state[tables[S_LIVE] + depth * tables[H_LW] + q] >> (o - q * WORD_BITS)) & 1) == 1


def nz_list(depth, tables):
    """Where the list of non-zero live words of ``depth`` starts in the state (its length, then the indices)."""
    return tables[S_NZ] + depth * (tables[H_LW] + 1)


def pick_from_planes(state, a0, a1, a2, a3, as_, b0, b1, b2, b3, bs, tables):
    """X1 from bit-sliced counters of the live options (boards of at most two words of items): per item word,
    four count bits (``a0 .. a3`` for word 0, ``b0 .. b3`` for word 1) and a flag for sixteen or more (``as_``,
    ``bs``).  An uncovered item held by none kills the node; otherwise the least count below sixteen is the MRV
    choice (ties: the lowest index).  -3: every uncovered item is held sixteen times or more, the counts decide
    (:func:`count_pick`)."""
    prim = tables[H_PRIM]
    e0 = (~state[0]) & tables[prim] & M63
    e1 = 0
    if tables[H_NW] == 2:
        e1 = (~state[1]) & tables[prim + 1] & M63
    if e0 == 0 and e1 == 0:
        return -1
    for k in range(16):
        m0 = e0 & ~as_ & (a0 if (k & 1) else ~a0) & (a1 if (k & 2) else ~a1) & (a2 if (k & 4) else ~a2) & \
            (a3 if (k & 8) else ~a3)
        if m0 != 0:
            return -2 if k == 0 else bit_index(m0 & (-m0))
        m1 = e1 & ~bs & (b0 if (k & 1) else ~b0) & (b1 if (k & 2) else ~b1) & (b2 if (k & 4) else ~b2) & \
            (b3 if (k & 8) else ~b3)
        if m1 != 0:
            return -2 if k == 0 else WORD_BITS + bit_index(m1 & (-m1))
    return -3


def count_pick(state, depth, tables):
    """X1 by counting each uncovered primary item's live options (a pass over the live options)."""
    nw = tables[H_NW]
    np_ = tables[H_NP]
    lw = tables[H_LW]
    k = tables[H_K]
    prim = tables[H_PRIM]
    cnt = tables[S_CNT]
    live = tables[S_LIVE] + depth * lw
    nz = nz_list(depth, tables)
    items = tables[H_OPTITEMS]
    for i in range(np_):
        state[cnt + i] = 0
    for j in range(state[nz]):
        w = state[nz + 1 + j]
        x = state[live + w]
        while x != 0:
            low = x & (-x)
            x = x ^ low
            base = items + (w * WORD_BITS + bit_index(low)) * k
            for q in range(k):
                it = tables[base + q]
                if it < 0 or it >= np_:
                    break
                state[cnt + it] += 1
    best = -1
    best_n = 1 << 62
    for w in range(nw):
        x = (~state[w]) & tables[prim + w] & M63
        while x != 0:
            low = x & (-x)
            x = x ^ low
            i = w * WORD_BITS + bit_index(low)
            n = state[cnt + i]
            if n < best_n:
                if n == 0:
                    return -2
                best_n = n
                best = i
    return best


def n_choices(state, depth, tables):
    if depth >= tables[H_GOAL]:
        return 0
    if state[tables[S_ITEM] + depth] < 0:
        return 1
    return tables[H_NOPT]


def next_live(state, depth, base, c, n, tables):
    """The smallest option id ``>= c`` in ``live(depth) & tables[base:]`` (``n`` when none), along the non-zero
    words."""
    if c >= n:
        return n
    live = tables[S_LIVE] + depth * tables[H_LW]
    nz = nz_list(depth, tables)
    q = c // WORD_BITS
    for j in range(state[nz]):
        w = state[nz + 1 + j]
        if w < q:
            continue
        x = state[live + w] & tables[base + w]
        if w == q:
            sh = tables[H_ZERO] + (c - q * WORD_BITS)
            x = x & (M63 ^ ((1 << sh) - 1))
        if x != 0:
            return w * WORD_BITS + bit_index(x & (-x))
    return n


def next_choice(state, depth, c, n, tables):
    """X2: the next live option of the node's item, from ``c`` on."""
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        return c
    return next_live(state, depth, tables[H_IMASK] + it * tables[H_LW], c, n, tables)


def clear_slot(state, depth, tables):
    """Zero the live words of ``depth``'s slot along its list (the words outside it are zero already)."""
    live = tables[S_LIVE] + depth * tables[H_LW]
    nz = nz_list(depth, tables)
    for j in range(state[nz]):
        state[live + state[nz + 1 + j]] = 0
    state[nz] = 0


def apply(state, depth, choice, tables):
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        state[tables[S_OPT] + depth] = -1
        state[tables[S_ITEM] + depth + 1] = -1
        clear_slot(state, depth + 1, tables)
        lw = tables[H_LW]
        live = tables[S_LIVE] + depth * lw
        pn = nz_list(depth, tables)
        cn = pn + lw + 1
        for j in range(state[pn]):
            w = state[pn + 1 + j]
            state[live + lw + w] = state[live + w]
            state[cn + 1 + j] = w
        state[cn] = state[pn]
        return True
    q = choice // WORD_BITS
    if ((tables[tables[H_IMASK] + it * tables[H_LW] + q] >> (choice - q * WORD_BITS)) & 1) == 0:
        return False  # not an option of this item
    return place(state, depth, choice, tables)


def watched_dead(state, depth, o, tables):
    """X4 before the child is built: is one of ``o``'s watched items uncovered and held by no option of
    ``live(depth) & ~conflict(o)``?  (The same verdict X1 gives on the child, for those items.)"""
    kw = tables[H_KW]
    lw = tables[H_LW]
    live = tables[S_LIVE] + depth * lw
    conf = tables[H_CONF] + o * lw
    pn = nz_list(depth, tables)
    watch = tables[H_WATCH] + o * kw
    for q in range(kw):
        i = tables[watch + q]
        if i < 0:
            break
        wi = i // WORD_BITS
        if ((state[wi] >> (i - wi * WORD_BITS)) & 1) == 1:
            continue  # covered already
        im = tables[H_IMASK] + i * lw
        held = False
        for j in range(state[pn]):
            w = state[np.uint64(pn + 1 + j)]
            if (state[np.uint64(live + w)] & tables[np.uint64(im + w)] & ~tables[np.uint64(conf + w)]) != 0:
                held = True
                break
        if not held:
            return True
    return False


def place(state, depth, o, tables):
    """Choose option ``o`` at ``depth`` (X3, X4 and the child's X1); False, and no change but to the child's
    slot, when it cannot."""
    if not is_live(state, depth, o, tables):
        return False
    if watched_dead(state, depth, o, tables):
        return False
    goal = tables[H_GOAL]
    nw = tables[H_NW]
    lw = tables[H_LW]
    live = tables[S_LIVE] + depth * lw
    child = live + lw
    conf = tables[H_CONF] + o * lw
    pn = nz_list(depth, tables)
    cn = pn + lw + 1
    clear_slot(state, depth + 1, tables)
    bits = tables[H_OPTBITS] + o * nw
    for w in range(nw):
        state[w] = state[w] | tables[bits + w]
    k = 0
    if nw <= 2:
        # the child's live words and its bit planes (X1) in one pass
        obits = tables[H_OPTBITS]
        a0 = 0
        a1 = 0
        a2 = 0
        a3 = 0
        as_ = 0
        b0 = 0
        b1 = 0
        b2 = 0
        b3 = 0
        bs = 0
        for j in range(state[pn]):
            # unsigned indices: no test for a negative one (numba's wraparound) on each read of this loop
            w = state[np.uint64(pn + 1 + j)]
            x = state[np.uint64(live + w)] & ~tables[np.uint64(conf + w)]
            if x != 0:
                state[np.uint64(child + w)] = x
                state[np.uint64(cn + 1 + k)] = w
                k += 1
            while x != 0:
                low = x & (-x)
                x = x ^ low
                b = obits + (w * WORD_BITS + bit_index(low)) * nw
                c = tables[np.uint64(b)]  # add the option's items to the 4-bit counters, saturating at 16
                t = a0 & c
                a0 = a0 ^ c
                c = a1 & t
                a1 = a1 ^ t
                t = a2 & c
                a2 = a2 ^ c
                c = a3 & t
                a3 = a3 ^ t
                as_ = as_ | c
                if nw == 2:
                    c = tables[np.uint64(b + 1)]
                    t = b0 & c
                    b0 = b0 ^ c
                    c = b1 & t
                    b1 = b1 ^ t
                    t = b2 & c
                    b2 = b2 ^ c
                    c = b3 & t
                    b3 = b3 ^ t
                    bs = bs | c
        state[cn] = k
        nxt = pick_from_planes(state, a0, a1, a2, a3, as_, b0, b1, b2, b3, bs, tables)
        if nxt == -3:
            nxt = count_pick(state, depth + 1, tables)
    else:
        for j in range(state[pn]):
            w = state[pn + 1 + j]
            x = state[live + w] & ~tables[conf + w]
            if x != 0:
                state[child + w] = x
                state[cn + 1 + k] = w
                k += 1
        state[cn] = k
        nxt = count_pick(state, depth + 1, tables)
    if nxt == -2 or (nxt >= 0 and depth + 1 >= goal):
        for w in range(nw):
            state[w] = state[w] & ~tables[bits + w]
        return False
    state[tables[S_OPT] + depth] = o
    state[tables[S_ITEM] + depth + 1] = nxt
    return True


def fix_options(state, fixed, k, tables):
    """Turn the root ``state`` into the node where options ``fixed[0..k-1]`` were chosen at depths 0..k-1 (a
    symmetry-breaking leaf); False when one cannot be placed."""
    for d in range(k):
        if not place(state, d, fixed[d], tables):
            return False
    return True


def undo(state, depth, choice, tables):
    o = state[tables[S_OPT] + depth]
    if o >= 0:
        nw = tables[H_NW]
        bits = tables[H_OPTBITS] + o * nw
        for w in range(nw):
            state[w] = state[w] & ~tables[bits + w]


def completions(state, depth, p, r, tables):
    """Live options compatible with ``p`` that cover the ``r`` uncovered primary items ``p`` leaves (-1: some
    live option there covers fewer, the rest needs a deeper search)."""
    nw = tables[H_NW]
    lw = tables[H_LW]
    prim = tables[H_PRIM]
    bits = tables[H_OPTBITS] + p * nw
    j = -1
    for w in range(nw):
        x = (~state[w]) & (~tables[bits + w]) & tables[prim + w] & M63
        if x != 0:
            j = w * WORD_BITS + bit_index(x & (-x))
            break
    if j < 0:
        return 1
    live = tables[S_LIVE] + depth * lw
    conf = tables[H_CONF] + p * lw
    mask = tables[H_IMASK] + j * lw
    pc = tables[H_PRIMCNT]
    nz = nz_list(depth, tables)
    found = 0
    for jj in range(state[nz]):
        w = state[nz + 1 + jj]
        x = state[live + w] & tables[mask + w] & ~tables[conf + w]
        while x != 0:
            low = x & (-x)
            x = x ^ low
            q = w * WORD_BITS + bit_index(low)
            if tables[pc + q] != r:
                return -1
            found += 1
    return found


def leaf_count(state, depth, tables):
    """X6: the number of solutions below this node when at most two more options complete it, else -1.

    Every live option contains only uncovered items.  A live option of the chosen item with as many primary
    items as are uncovered covers them all: one solution.  One that leaves ``r`` items is completed by each
    option of :func:`completions`.  When every primary item is covered the node is one solution.
    """
    it = state[tables[S_ITEM] + depth]
    if it == -1:
        return 1
    if it < 0:
        return 0
    nw = tables[H_NW]
    lw = tables[H_LW]
    prim = tables[H_PRIM]
    left = 0
    for w in range(nw):
        left += popcount((~state[w]) & tables[prim + w] & M63)
    minp = tables[H_MINPRIM]
    if left > 2 * tables[H_MAXPRIM] or minp <= 0:
        return -1
    live = tables[S_LIVE] + depth * lw
    mask = tables[H_IMASK] + it * lw
    pc = tables[H_PRIMCNT]
    nz = nz_list(depth, tables)
    found = 0
    for jj in range(state[nz]):
        w = state[nz + 1 + jj]
        x = state[live + w] & tables[mask + w]
        while x != 0:
            low = x & (-x)
            x = x ^ low
            p = w * WORD_BITS + bit_index(low)
            r = left - tables[pc + p]
            if r == 0:
                found += 1
            elif r < 2 * minp:
                k = completions(state, depth, p, r, tables)
                if k < 0:
                    return -1
                found += k
            else:
                return -1
    return found
