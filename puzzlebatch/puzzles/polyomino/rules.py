"""Exact cover on bitsets, as batch-DFS rules (plain functions in the numba subset; compiled for CPU and CUDA).

Long because it is the whole of Algorithm X on one table layout: the branching rules, the region test and Knuth's
colours, which call each other by name in one compile unit.

Knuth's Algorithm X without the links: the covered items are a bitset (63 items to an int64 word, so every word
stays a non-negative int64 on every target), each option is a bitset, and the branching item's candidate options
come from a per-item list.  Polyomino packing is the special case where the items are the board's cells.

X1  [Choose an item]  The node at ``depth`` branches on ``state[ITEM + depth]``, chosen when the node was made
    (in :func:`apply`): the first uncovered primary item in item order (mode FIRST: each item lists only the
    options whose *smallest* primary item it is), or the uncovered primary item with the fewest options that
    still fit (mode MRV, Knuth's choice; each item lists every option containing it).  ``-1``: every primary item
    is covered; the node then has one "finish" move that goes straight on, so that every solution reaches the
    fixed goal depth.
X2  [Try an option]  Option ``o`` fits when it shares no covered item and its group (a piece with a number of
    copies) has a copy left.  :func:`next_choice` scans the candidate list for the next option that fits (each
    list entry holds its option's words, its piece bit and where the next piece's candidates start, so a placed
    piece's candidates are skipped at once).
X3  [Cover]  OR it in, take a copy, choose the child's item (X1).
X4  [Prune]  Reject the child when an item has no fitting option (MRV), or when a connected region of empty
    cells cannot be filled by the pieces left: its size must be a sum of remaining piece sizes (the subset-sum
    test of the IQ Puzzler Pro study; regions by bit-parallel flood fill on the board's own layout).
X5  [Uncover]  :func:`undo` clears the option's bits and gives the copy back.

Colours (Knuth's XCC, header ``H_XCC``): a secondary item that an option gives a colour is not in that option's
bitset; the option lists it as a triple (item, slot, colour) instead.  A slot holds the item's colour and the number
of chosen options holding it.  The item's covered bit means "taken": set by an option without a colour for it, or
by the first coloured option (count 0 -> 1), cleared with the last.  An option fits when its uncoloured items are
free (the bitset test, as ever) and each coloured item is free or held with the same colour by other options.

Tables (flat int64) start with a header (``H_*`` offsets below); state layout (``S_*`` are header entries
holding offsets into the state): covered words, group copies left, the option chosen at each depth, the item
branched on at each depth, then scratch words.
"""

WORD_BITS = 63
M63 = 9223372036854775807  # (1 << 63) - 1

# Large rules kept out of line when the rest is inlined into the per-item DFS (see puzzlebatch.jit.unit): inlining
# them at every call site cost most of the compile time and bought no measurable speed.
NOT_INLINED = ("dead_region", "branch_item", "mrv_item", "enclosed_item", "fill_sums")

MODE_FIRST = 0
MODE_MRV = 1
MODE_ENCLOSED = 2  # the empty cell with the fewest empty neighbours (every option through it is a candidate)

# header entries of the tables
H_NW = 0  # words per bitset
H_NI = 1  # items (primary first)
H_NG = 2  # groups (pieces)
H_GOAL = 3  # maximum number of options in a solution (the DFS goal depth)
H_MODE = 4
H_PRUNE = 5  # 1: dead-region test
H_OPTBITS = 6  # offset: option bitsets, n_options x NW
H_OPTGROUP = 7  # offset: group of each option (-1: none)
H_LSTART = 8  # offset: per item, start of its option list (NI + 1 entries)
H_LIST = 9  # offset: option lists
H_PRIM = 10  # offset: NW words, the primary items
H_CELLS = 11  # offset: NW words, the cells taking part in the region test
H_NDIR = 12  # number of neighbour directions
H_DIRS = 13  # offset: per direction, [shift, mask word 0..NW-1]
H_GSIZE = 14  # offset: cells per option of each group
H_SW = 15  # words of the subset-sum bitset
H_NCELL = 16  # largest region size that matters (bits of the subset-sum bitset - 1)
# offsets into the state
S_GRP = 17
S_OPT = 18
S_ITEM = 19
S_SCR = 20  # scratch: REG (NW), UNK (NW), SEED (NW), SUMS (SW)
H_LBITS = 21  # offset: per list entry, its option's NW words then its piece bit (pieces with one copy)
S_USED = 22  # state offset of the word of pieces (with one copy) already placed
H_CAP = 23  # (reserved)
H_GROW1 = 24  # offset: one-word boards: the shift of each of 3 axes, then the +masks, then the -masks
H_XCC = 25  # 1: some option gives a secondary item a colour (Knuth's XCC); 0: the plain path, nothing else read
H_OPTCOL = 26  # offset: per option, where its colour triples start in COLS (n_options + 1 entries)
H_COLS = 27  # offset: colour triples (item, slot, colour >= 1) of the options, option by option
S_COL = 28  # state offset of the coloured items' slots: per slot, its colour and how many chosen options hold it
H_MAXPRIM = 29  # the most primary items of one option
H_PRIMCNT = 30  # offset: per option, how many primary items it has
H_WIDTH = 31

UNLIMITED_COPIES = 1 << 40


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


def fits(state, o, tables):
    nw = tables[H_NW]
    g = tables[tables[H_OPTGROUP] + o]
    if g >= 0 and state[tables[S_GRP] + g] <= 0:
        return False
    base = tables[H_OPTBITS] + o * nw
    for w in range(nw):
        if (state[w] & tables[base + w]) != 0:
            return False
    if tables[H_XCC] != 0:
        return colors_fit(state, o, tables)
    return True


def colors_fit(state, o, tables):
    """Each item that option ``o`` colours is free, or held by chosen options with the same colour."""
    oc = tables[H_OPTCOL]
    cols = tables[H_COLS]
    scol = tables[S_COL]
    for k in range(tables[oc + o], tables[oc + o + 1]):
        t = cols + 3 * k
        i = tables[t]
        w = i // WORD_BITS
        if ((state[w] >> (i - w * WORD_BITS)) & 1) != 0:
            slot = scol + 2 * tables[t + 1]
            if state[slot + 1] == 0 or state[slot] != tables[t + 2]:
                return False  # taken without a colour, or with another one
    return True


def cover_colors(state, o, sign, tables):
    """Take (``sign`` > 0) or give back the items that option ``o`` colours."""
    oc = tables[H_OPTCOL]
    cols = tables[H_COLS]
    scol = tables[S_COL]
    for k in range(tables[oc + o], tables[oc + o + 1]):
        t = cols + 3 * k
        i = tables[t]
        w = i // WORD_BITS
        bit = 1 << (i - w * WORD_BITS)
        slot = scol + 2 * tables[t + 1]
        if sign > 0:
            if state[slot + 1] == 0:
                state[slot] = tables[t + 2]
                state[w] = state[w] | bit
            state[slot + 1] += 1
        else:
            state[slot + 1] -= 1
            if state[slot + 1] == 0:
                state[slot] = 0
                state[w] = state[w] & ~bit


def first_item(state, tables):
    """The first uncovered primary item, or -1."""
    nw = tables[H_NW]
    prim = tables[H_PRIM]
    for w in range(nw):
        x = (~state[w]) & tables[prim + w] & M63
        if x != 0:
            return w * WORD_BITS + bit_index(x & (-x))
    return -1


def mrv_item(state, tables):
    """The uncovered primary item with the fewest fitting options (-1: all covered, -2: one has none)."""
    nw = tables[H_NW]
    prim = tables[H_PRIM]
    lstart = tables[H_LSTART]
    lst = tables[H_LIST]
    best = -1
    best_n = 1 << 62
    for w in range(nw):
        x = (~state[w]) & tables[prim + w] & M63
        while x != 0:
            low = x & (-x)
            x = x ^ low
            i = w * WORD_BITS + bit_index(low)
            n = 0
            for k in range(tables[lstart + i], tables[lstart + i + 1]):
                if fits(state, tables[lst + k], tables):
                    n += 1
                    if n >= best_n:
                        break
            if n == 0:
                return -2
            if n < best_n:
                best_n = n
                best = i
    return best


def shifted_word(arr, src, mask, w, shift, tables):
    """Word ``w`` of ``(arr[src:] & tables[mask:]) << shift`` (``shift`` < 0: right shift), 63-bit words."""
    nw = tables[H_NW]
    if shift >= 0:
        q = shift // WORD_BITS
        r = shift - q * WORD_BITS
        v = 0
        j = w - q
        if 0 <= j < nw:
            v = ((arr[src + j] & tables[mask + j]) << r) & M63
        if r > 0 and 0 <= j - 1 < nw:
            v = v | ((arr[src + j - 1] & tables[mask + j - 1]) >> (WORD_BITS - r))
        return v
    s = -shift
    q = s // WORD_BITS
    r = s - q * WORD_BITS
    v = 0
    j = w + q
    if 0 <= j < nw:
        v = (arr[src + j] & tables[mask + j]) >> r
    if r > 0 and 0 <= j + 1 < nw:
        v = v | (((arr[src + j + 1] & tables[mask + j + 1]) << (WORD_BITS - r)) & M63)
    return v


def fill_sums(state, tables):
    """Scratch SUMS := the region sizes the remaining pieces can make (bit s set: s is a sum of sizes)."""
    ng = tables[H_NG]
    sw = tables[H_SW]
    ncell = tables[H_NCELL]
    sums = tables[S_SCR] + 3 * tables[H_NW]
    for k in range(sw):
        state[sums + k] = 0
    state[sums] = 1
    for g in range(ng):
        size = tables[tables[H_GSIZE] + g]
        left = state[tables[S_GRP] + g]
        if size <= 0 or left <= 0:
            continue
        if left * size > ncell:
            left = ncell // size
        for _ in range(left):
            q = size // WORD_BITS
            r = size - q * WORD_BITS
            for w in range(sw - 1, -1, -1):
                v = 0
                j = w - q
                if j >= 0:
                    v = (state[sums + j] << r) & M63
                if r > 0 and j - 1 >= 0:
                    v = v | (state[sums + j - 1] >> (WORD_BITS - r))
                state[sums + w] = state[sums + w] | v


def region_ok(state, size, tables):
    """The subset-sum test: can the remaining pieces make a region of ``size`` cells?"""
    sums = tables[S_SCR] + 3 * tables[H_NW]
    q = size // WORD_BITS
    return q < tables[H_SW] and ((state[sums + q] >> (size - q * WORD_BITS)) & 1) == 1


def grow1(r, unk, tables):
    """One word: the region ``r`` grown to its connected closure inside ``unk``.

    Up to three axes, each shifted both ways; the masks keep cells from wrapping across a row or layer (an
    axis the board lacks has zero masks).  Branch-free inside the loop.
    """
    g = tables[H_GROW1]
    s0 = tables[g]
    s1 = tables[g + 1]
    s2 = tables[g + 2]
    p0 = tables[g + 3]
    p1 = tables[g + 4]
    p2 = tables[g + 5]
    n0 = tables[g + 6]
    n1 = tables[g + 7]
    n2 = tables[g + 8]
    while True:
        n = r | ((r & p0) << s0) | ((r & p1) << s1) | ((r & p2) << s2)
        n = n | ((r & n0) >> s0) | ((r & n1) >> s1) | ((r & n2) >> s2)
        n = n & unk
        if n == r:
            return r
        r = n


def dead_region(state, o, tables):
    """True when some connected region of uncovered cells cannot be filled by the remaining pieces.

    Every region is grown by bit-parallel flood fill (shifts of the whole bitset along each axis) and its size
    checked with the subset-sum test.  ``o`` (the option just placed) is not needed by this exact version.
    """
    nw = tables[H_NW]
    cells = tables[H_CELLS]
    sums_ready = False
    if nw == 1:
        unk = (~state[0]) & tables[cells] & M63
        while unk != 0:
            r = grow1(unk & (-unk), unk, tables)
            unk = unk ^ r
            if not sums_ready:
                fill_sums(state, tables)
                sums_ready = True
            if not region_ok(state, popcount(r), tables):
                return True
        return False
    reg = tables[S_SCR]
    unk = reg + nw
    ndir = tables[H_NDIR]
    dirs = tables[H_DIRS]
    for w in range(nw):
        state[unk + w] = (~state[w]) & tables[cells + w] & M63
    while True:
        seed_w = -1
        for w in range(nw):
            if state[unk + w] != 0:
                seed_w = w
                break
        if seed_w < 0:
            return False
        for w in range(nw):
            state[reg + w] = 0
        x = state[unk + seed_w]
        state[reg + seed_w] = x & (-x)
        changed = True
        while changed:
            changed = False
            for d in range(ndir):
                base = dirs + d * (nw + 1)
                shift = tables[base]
                for w in range(nw):
                    v = shifted_word(state, reg, base + 1, w, shift, tables) & state[unk + w]
                    if (v & ~state[reg + w]) != 0:
                        state[reg + w] = state[reg + w] | v
                        changed = True
        size = 0
        for w in range(nw):
            size += popcount(state[reg + w])
            state[unk + w] = state[unk + w] & ~state[reg + w]
        if not sums_ready:
            fill_sums(state, tables)
            sums_ready = True
        if not region_ok(state, size, tables):
            return True


def next_choice(state, depth, c, n, tables):
    """X2 filter: the first candidate from ``c`` on that shares no covered cell and no placed piece."""
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        return c
    nw = tables[H_NW]
    stride = nw + 2
    first = tables[H_LBITS] + tables[tables[H_LSTART] + it] * stride
    used = state[tables[S_USED]]
    if nw == 1:
        cov = state[0]
        while c < n:
            base = first + c * stride
            if (used & tables[base + 1]) != 0:
                c = tables[base + 2]  # this piece is placed: skip all its candidates here
            elif (cov & tables[base]) != 0:
                c += 1
            else:
                return c
        return n
    while c < n:
        base = first + c * stride
        if (used & tables[base + nw]) != 0:
            c = tables[base + nw + 1]
            continue
        ok = True
        for w in range(nw):
            if (state[w] & tables[base + w]) != 0:
                ok = False
                break
        if ok:
            return c
        c += 1
    return n


def enclosed_item(state, tables):
    """The uncovered cell with the fewest uncovered neighbours (the most enclosed hole; ties: lowest index).

    Bit-sliced: per word, each direction's shifted empty mask is added into a 3-bit counter (c2 c1 c0) per cell;
    then the cells whose count is 0, 1, ... are looked for in turn.  -1 when every primary item is covered; when
    the board has no geometry, the first uncovered item.
    """
    nw = tables[H_NW]
    ndir = tables[H_NDIR]
    if ndir == 0:
        return first_item(state, tables)
    reg = tables[S_SCR]  # scratch: the empty cells (REG), then the counters c0, c1, c2 (UNK, SEED, spare)
    cells = tables[H_CELLS]
    prim = tables[H_PRIM]
    dirs = tables[H_DIRS]
    any_empty = False
    for w in range(nw):
        state[reg + w] = (~state[w]) & tables[cells + w] & M63
        if state[reg + w] != 0:
            any_empty = True
    if not any_empty:
        return first_item(state, tables)
    best = -1
    best_k = 99
    for w in range(nw):
        e = state[reg + w]
        if e == 0:
            continue
        c0 = 0
        c1 = 0
        c2 = 0
        for d in range(ndir):
            base = dirs + d * (nw + 1)
            # the cells of word w whose neighbour in direction -d is empty, i.e. the empty mask shifted by +d
            x = shifted_word(state, reg, base + 1, w, tables[base], tables) & e
            t0 = c0 & x
            c0 = c0 ^ x
            t1 = c1 & t0
            c1 = c1 ^ t0
            c2 = c2 | t1
        for k in range(best_k if best_k < 8 else 8):
            m = e
            m = m & (c0 if (k & 1) else ~c0)
            m = m & (c1 if (k & 2) else ~c1)
            m = m & (c2 if (k & 4) else ~c2)
            m = m & M63
            if m != 0:
                best_k = k
                best = w * WORD_BITS + bit_index(m & (-m))
                break
        if best_k == 0:
            break
    if best < 0:
        return first_item(state, tables)
    # a primary item that is not a board cell (none for packings) would be missed: fall back to the first one
    if ((tables[prim + best // WORD_BITS] >> (best - (best // WORD_BITS) * WORD_BITS)) & 1) == 0:
        return first_item(state, tables)
    return best


def branch_item(state, tables):
    mode = tables[H_MODE]
    if mode == MODE_MRV:
        return mrv_item(state, tables)
    if mode == MODE_ENCLOSED:
        return enclosed_item(state, tables)
    return first_item(state, tables)


def fix_options(state, fixed, k, tables):
    """Turn the root ``state`` into the node where options ``fixed[0..k-1]`` were chosen at depths 0..k-1 (a
    symmetry-breaking leaf); False when one does not fit, or the node is dead or pruned."""
    for d in range(k):
        o = fixed[d]
        if not fits(state, o, tables):
            return False
        cover(state, o, 1, tables)
        state[tables[S_OPT] + d] = o
    it = branch_item(state, tables)
    if it == -2 or (it >= 0 and k >= tables[H_GOAL]):
        return False
    if it >= 0 and tables[H_PRUNE] != 0 and k > 0 and dead_region(state, fixed[k - 1], tables):
        return False
    state[tables[S_ITEM] + k] = it
    return True


def n_choices(state, depth, tables):
    if depth >= tables[H_GOAL]:
        return 0
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        return 1
    lstart = tables[H_LSTART]
    return tables[lstart + it + 1] - tables[lstart + it]


def cover(state, o, sign, tables):
    nw = tables[H_NW]
    base = tables[H_OPTBITS] + o * nw
    if sign > 0:
        for w in range(nw):
            state[w] = state[w] | tables[base + w]
    else:
        for w in range(nw):
            state[w] = state[w] & ~tables[base + w]
    if tables[H_XCC] != 0:
        cover_colors(state, o, sign, tables)
    g = tables[tables[H_OPTGROUP] + o]
    if g >= 0:
        state[tables[S_GRP] + g] -= sign
        if g < WORD_BITS:
            used = tables[S_USED]
            if sign > 0 and state[tables[S_GRP] + g] == 0:
                state[used] = state[used] | (1 << g)
            elif sign < 0 and state[tables[S_GRP] + g] == 1:
                state[used] = state[used] & ~(1 << g)


def apply(state, depth, choice, tables):
    goal = tables[H_GOAL]
    it = state[tables[S_ITEM] + depth]
    if it < 0:
        # X1 finish move: every primary item is covered.
        state[tables[S_OPT] + depth] = -1
        state[tables[S_ITEM] + depth + 1] = -1
        return True
    o = tables[tables[H_LIST] + tables[tables[H_LSTART] + it] + choice]
    if not fits(state, o, tables):
        return False
    cover(state, o, 1, tables)
    nxt = branch_item(state, tables)
    ok = nxt != -2
    if ok and nxt >= 0 and depth + 1 >= goal:
        ok = False  # out of moves with items still uncovered
    if ok and nxt >= 0 and tables[H_PRUNE] != 0 and dead_region(state, o, tables):
        ok = False
    if not ok:
        cover(state, o, -1, tables)
        return False
    state[tables[S_OPT] + depth] = o
    state[tables[S_ITEM] + depth + 1] = nxt
    return True


def undo(state, depth, choice, tables):
    o = state[tables[S_OPT] + depth]
    if o >= 0:
        cover(state, o, -1, tables)


def leaf_count(state, depth, tables):
    """The solutions below this node when one more option completes it, counted without applying it (-1: search
    on).  A fitting candidate of the branching item shares no covered item, so one with as many primary items as
    are uncovered covers them all; when every fitting candidate does, their number is the count.  When every
    primary item is covered the node is one solution."""
    it = state[tables[S_ITEM] + depth]
    if it == -1:
        return 1
    if it < 0:
        return 0
    nw = tables[H_NW]
    prim = tables[H_PRIM]
    left = 0
    for w in range(nw):
        left += popcount((~state[w]) & tables[prim + w] & M63)
    if left > tables[H_MAXPRIM]:
        return -1
    lst = tables[H_LIST] + tables[tables[H_LSTART] + it]
    n = tables[tables[H_LSTART] + it + 1] - tables[tables[H_LSTART] + it]
    pc = tables[H_PRIMCNT]
    found = 0
    c = next_choice(state, depth, 0, n, tables)
    while c < n:
        o = tables[lst + c]
        if fits(state, o, tables):
            if tables[pc + o] != left:
                return -1
            found += 1
        c = next_choice(state, depth, c + 1, n, tables)
    return found
