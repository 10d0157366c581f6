"""Exact cover with incremental MRV, as batch-DFS rules (numba subset; compiled for CPU and CUDA).

What dancing links keeps, kept in flat words: every option is *live* (still compatible with the options chosen
so far) or not, and every primary item knows how many live options contain it.  Choosing the most constrained
item is then a scan of those counts (O(items)), not a recount of every item's options at every node.

Static tables: per option its items, its items as a bitset, and its *conflict mask* -- the options that cannot
join it in a solution (they share a primary item, an uncoloured secondary item, or a secondary item with another
colour: Knuth's XCC rule is pairwise, so one mask per option says it all).  Per item the options that contain it.

State (per work item): the covered items, the live options (a bitset), the count of live options of each primary
item, and per depth the options that the choice at that depth killed (so that undo brings exactly those back).

X1  [Choose an item]  The uncovered primary item with the fewest live options (ties: the lowest index; pieces
    are items too).  ``-1``: every primary item is covered, a "finish" move then runs on to the goal depth;
    ``-2``: some uncovered item has no live option, the node is dead.
X2  [Try an option]  A node's choices are option ids; :func:`next_choice` finds the next live option of the
    item with a word scan of ``live & options(item)``.
X3  [Cover]  Kill ``live & conflict(o)`` (``o`` is its own conflict), remember them in the depth's log, and for
    every killed option decrement the counts of its items (bit-parallel over the option words).
X4  [Prune]  The child is rejected when an uncovered item is left with no live option (X1 returns -2).
X5  [Uncover]  :func:`undo` revives the logged options and restores their items' counts.
X6  [Count the last levels]  :func:`leaf_count`: when every completion needs at most two more options, the
    pairs are counted from the words without applying either (a live option of the chosen item that covers
    every uncovered item is one solution; one that leaves ``r`` items is completed by each live option that is
    compatible with it, holds the first item left and has ``r`` primary items).
"""

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
S_LIVE = 15
S_CNT = 16
H_ZERO = 17  # 0: added to an int32 choice to widen it to int64 before shifting (the simulator keeps int32)
S_OPT = 18
S_ITEM = 19
H_WIDTH = 20


def bit_index(b):
    """Index of the single set bit of ``b`` (a power of two below 2**63), without branches."""
    return popcount(b - 1)


def popcount(x):
    """Set bits of a non-negative int64 (SWAR without a multiply)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


def is_live(state, depth, o, tables):
    q = o // WORD_BITS
    return ((state[tables[S_LIVE] + depth * tables[H_LW] + q] >> (o - q * WORD_BITS)) & 1) == 1


def pick_item(state, depth, tables):
    """X1 for the node at ``depth``: the uncovered primary item with the fewest live options (-1: none
    uncovered, -2: one has none); see :func:`pick_from_planes` and :func:`count_pick`."""
    if tables[H_NW] <= 2:
        lw = tables[H_LW]
        live = tables[S_LIVE] + depth * lw
        bits = tables[H_OPTBITS]
        nw = tables[H_NW]
        u0 = 0
        u1 = 0
        t0 = 0
        t1 = 0
        h0 = 0
        h1 = 0
        for w in range(lw):
            x = state[live + w]
            while x != 0:
                low = x & (-x)
                x = x ^ low
                b = bits + (w * WORD_BITS + bit_index(low)) * nw
                v = tables[b]
                h0 = h0 | (t0 & v)
                t0 = t0 | (u0 & v)
                u0 = u0 | v
                if nw == 2:
                    v = tables[b + 1]
                    h1 = h1 | (t1 & v)
                    t1 = t1 | (u1 & v)
                    u1 = u1 | v
        it = pick_from_planes(state, u0, u1, t0, t1, h0, h1, tables)
        if it != -3:
            return it
    return count_pick(state, depth, tables)


def pick_from_planes(state, u0, u1, t0, t1, h0, h1, tables):
    """X1 from the bit planes of the live options (boards of at most two words): ``u`` the items some live
    option holds, ``t`` two, ``h`` three.  An uncovered item held by none kills the node; one held once, else one
    held exactly twice, is the MRV choice (the least count; ties: the lowest index).  -3: every uncovered item is
    held three times or more, the counts decide (:func:`count_pick`)."""
    prim = tables[H_PRIM]
    e0 = (~state[0]) & tables[prim] & M63
    e1 = 0
    if tables[H_NW] == 2:
        e1 = (~state[1]) & tables[prim + 1] & M63
    if (e0 & ~u0) != 0 or (e1 & ~u1) != 0:
        return -2
    if e0 == 0 and e1 == 0:
        return -1
    f = e0 & ~t0
    if f != 0:
        return bit_index(f & (-f))
    f = e1 & ~t1
    if f != 0:
        return WORD_BITS + bit_index(f & (-f))
    f = e0 & ~h0
    if f != 0:
        return bit_index(f & (-f))
    f = e1 & ~h1
    if f != 0:
        return WORD_BITS + bit_index(f & (-f))
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
    items = tables[H_OPTITEMS]
    for i in range(np_):
        state[cnt + i] = 0
    for w in range(lw):
        x = state[live + w]
        while x != 0:
            low = x & (-x)
            x = x ^ low
            base = items + (w * WORD_BITS + bit_index(low)) * k
            for j in range(k):
                it = tables[base + j]
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
    """The smallest option id ``>= c`` in ``live(depth) & tables[base:]`` (``n`` when none)."""
    lw = tables[H_LW]
    live = tables[S_LIVE] + depth * lw
    if c >= n:
        return n
    w = c // WORD_BITS
    sh = tables[H_ZERO] + (c - w * WORD_BITS)
    x = state[live + w] & tables[base + w] & (M63 ^ ((1 << sh) - 1))
    while x == 0:
        w += 1
        if w >= lw:
            return n
        x = state[live + w] & tables[base + w]
    return w * WORD_BITS + bit_index(x & (-x))


def next_choice(state, depth, c, n, tables):
    """X2: the next live option of the node's item, from ``c`` on."""
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        return c
    return next_live(state, depth, tables[H_IMASK] + it * tables[H_LW], c, n, tables)


def apply(state, depth, choice, tables):
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        state[tables[S_OPT] + depth] = -1
        state[tables[S_ITEM] + depth + 1] = -1
        lw = tables[H_LW]
        live = tables[S_LIVE] + depth * lw
        for w in range(lw):
            state[live + lw + w] = state[live + w]
        return True
    q = choice // WORD_BITS
    if ((tables[tables[H_IMASK] + it * tables[H_LW] + q] >> (choice - q * WORD_BITS)) & 1) == 0:
        return False  # not an option of this item
    return place(state, depth, choice, tables)


def place(state, depth, o, tables):
    """Choose option ``o`` at ``depth`` (X3, X4 and the child's X1); False, and no change, when it cannot."""
    if not is_live(state, depth, o, tables):
        return False
    goal = tables[H_GOAL]
    nw = tables[H_NW]
    lw = tables[H_LW]
    live = tables[S_LIVE] + depth * lw
    conf = tables[H_CONF] + o * lw
    bits = tables[H_OPTBITS] + o * nw
    for w in range(nw):
        state[w] = state[w] | tables[bits + w]
    if nw <= 2:
        # the child's live words and its bit planes (pick_item) in one pass
        obits = tables[H_OPTBITS]
        u0 = 0
        u1 = 0
        t0 = 0
        t1 = 0
        h0 = 0
        h1 = 0
        for w in range(lw):
            x = state[live + w] & ~tables[conf + w]
            state[live + lw + w] = x
            while x != 0:
                low = x & (-x)
                x = x ^ low
                b = obits + (w * WORD_BITS + bit_index(low)) * nw
                v = tables[b]
                h0 = h0 | (t0 & v)
                t0 = t0 | (u0 & v)
                u0 = u0 | v
                if nw == 2:
                    v = tables[b + 1]
                    h1 = h1 | (t1 & v)
                    t1 = t1 | (u1 & v)
                    u1 = u1 | v
        nxt = pick_from_planes(state, u0, u1, t0, t1, h0, h1, tables)
        if nxt == -3:
            nxt = count_pick(state, depth + 1, tables)
    else:
        for w in range(lw):
            state[live + lw + w] = state[live + w] & ~tables[conf + w]
        nxt = count_pick(state, depth + 1, tables)
    if nxt == -2 or (nxt >= 0 and depth + 1 >= goal):
        for w in range(nw):
            state[w] = state[w] & ~tables[bits + w]
        return False
    state[tables[S_OPT] + depth] = o
    state[tables[S_ITEM] + depth + 1] = nxt
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
    found = 0
    for w in range(lw):
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
    found = 0
    for w in range(lw):
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
