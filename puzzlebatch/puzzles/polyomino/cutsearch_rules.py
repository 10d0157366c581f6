"""Rules of the first-solution search for random-cut puzzles (each piece once), for the generic batch DFS.

Plain functions in the numba subset (ARCHITECTURE.md, "One rule, two backends"): :mod:`puzzlebatch.cpu_fallback.search`
compiles them into the ``prange`` driver, :mod:`puzzlebatch.gpu_kernels.search` into the CUDA kernel, one rule for
both.

The search fills the board in scan order (row by row): the node at depth ``d`` covers its *first empty cell*
``pos[d]``, which must be the first cell (in scan order) of the piece covering it, so a move is a shape class and an
orientation, anchored there.  Nothing is tabulated per cell: a placement is tried by checking the orientation's
cells on the grid, so pieces of hundreds of cells cost memory in proportion to their size only (placements are
generated lazily, at the one cell where they are needed).  Identical pieces form one class with a count; a move
takes one copy, so permutations of identical pieces are never searched.

After a placement, every empty region it closes off (found by a flood fill from its empty neighbours, stopped at
``limit`` cells: bigger regions are "open") must be fillable: at least the smallest piece, a sum of the remaining
piece sizes (bounded subset sum over the remaining counts), and a region that can only be one piece must be the
exact shape of a remaining class.

Choice ``c`` of a node: class slot ``c // omax`` and orientation ``c % omax``.  The slot is turned into a class by
the item's own class order (a permutation in the state, so a portfolio of items searches in different orders)
rotated by a hash of (seed, depth): each item is a randomised restart of the same complete search.

Tables (flat int64, offsets in the header ``T_*``) and the state layout (offsets ``S_*`` stored in the tables)
are built by :func:`puzzlebatch.runners.polyomino.cutsolve.build`.
"""

# -- table header ------------------------------------------------------------------------------------------------
T_W, T_H, T_C, T_OMAX, T_GOAL = 0, 1, 2, 3, 4
T_CLS_O, T_OR_C, T_DX, T_DY, T_CLS_SIZE = 5, 6, 7, 8, 9  # offsets: class -> orientations, orient -> cells, cells
T_MINSIZE, T_MAXSIZE, T_LIMIT = 10, 11, 12
S_GRID, S_COUNT, S_POS, S_REC, S_MARK, S_STACK, S_STAMP, S_SEED, S_ORDER, S_WIDTH = 13, 14, 15, 16, 17, 18, 19, 20, \
    21, 22
T_ROTATE = 23  # 1: rotate each node's class order by a hash of (seed, depth)
T_SMAX = 24  # cells of the largest piece
S_BR, S_ANC = 25, 26  # state offsets: the branching cell of each depth, the anchor of each placement
T_WINDOW = 27  # branching: the most constrained of the first T_WINDOW cells from the first empty one (0: first)
T_ENDGAME = 28  # when at most this many cells lie from the first empty one to the end, the window is all of them
S_ROT = 29  # state offset: the class-order rotation of each depth
T_CLS_W = 30  # offset: per class, the weight of one copy in the draw of a node's first class
T_CLSCHK = 31  # check that every class still fits somewhere when at most this many cells are left
HEADER = 32

MOD31 = 2147483647


def mix(seed, d):
    """A hash of (seed, d) in [0, 2**31 - 1) (Park-Miller steps; no overflow in int64)."""
    x = (seed * 1000003 + d * 7919 + 12345) % MOD31
    x = (x * 48271) % MOD31
    x = (x * 48271) % MOD31
    x = (x ^ (x >> 13)) % MOD31
    return (x * 48271) % MOD31


def n_choices(state, depth, tables):
    return tables[T_C] * tables[T_OMAX] * tables[T_SMAX]


def choice_class(state, depth, c, tables):
    nc = tables[T_C]
    slot = c // (tables[T_OMAX] * tables[T_SMAX])
    if tables[T_ROTATE] != 0:
        slot = (slot + state[tables[S_ROT] + depth]) % nc
    return state[tables[S_ORDER] + slot]


def set_rotation(state, depth, tables):
    """The node's class order starts at a class drawn with probability proportional to its remaining copies times
    its weight (a hash of the seed, the depth and the first empty cell), then follows the item's order: the
    remaining pieces stay a fair sample of the cut, and rigid shapes (few orientations, weighted up) are used
    early, so the end game is not left with the most common or the stiffest shapes only."""
    nc = tables[T_C]
    count = tables[S_COUNT]
    order = tables[S_ORDER]
    cw = tables[T_CLS_W]
    total = 0
    for j in range(nc):
        total += state[count + state[order + j]] * tables[cw + state[order + j]]
    if total <= 0:
        state[tables[S_ROT] + depth] = 0
        return
    if tables[T_ROTATE] == 1:  # uniform over the classes
        state[tables[S_ROT] + depth] = mix(state[tables[S_SEED]] * 31 + state[tables[S_POS] + depth], depth) % nc
        return
    x = mix(state[tables[S_SEED]] * 31 + state[tables[S_POS] + depth], depth) % total
    j = 0
    while j < nc - 1:
        x -= state[count + state[order + j]] * tables[cw + state[order + j]]
        if x < 0:
            break
        j += 1
    state[tables[S_ROT] + depth] = j


def next_choice(state, depth, c, n, tables):
    """Skip classes with no copy left, orientations a class does not have and cells a piece does not have."""
    omax = tables[T_OMAX]
    smax = tables[T_SMAX]
    cls_o = tables[T_CLS_O]
    while c < n:
        k = choice_class(state, depth, c, tables)
        if state[tables[S_COUNT] + k] <= 0:
            c = (c // (omax * smax) + 1) * omax * smax
            continue
        o = (c // smax) % omax
        if o >= tables[cls_o + k + 1] - tables[cls_o + k]:
            c = (c // (omax * smax) + 1) * omax * smax
            continue
        if c % smax >= tables[tables[T_CLS_SIZE] + k]:
            c = (c // smax + 1) * smax
            continue
        return c
    return n


def placement_anchor(u, orient, i, tables):
    """The anchor cell (as x, y) of ``orient`` placed with its cell ``i`` on cell ``u``."""
    w = tables[T_W]
    j = tables[tables[T_OR_C] + orient] + i
    return u % w - tables[tables[T_DX] + j], u // w - tables[tables[T_DY] + j]


def count_fits(state, u, cap, tables):
    """Placements of the remaining classes covering the empty cell ``u`` (counting stops at ``cap``)."""
    nc = tables[T_C]
    cls_o = tables[T_CLS_O]
    or_c = tables[T_OR_C]
    n = 0
    for k in range(nc):
        if state[tables[S_COUNT] + k] <= 0:
            continue
        for orient in range(tables[cls_o + k], tables[cls_o + k + 1]):
            for i in range(tables[or_c + orient + 1] - tables[or_c + orient]):
                ax, ay = placement_anchor(u, orient, i, tables)
                if fits(state, ax, ay, orient, tables):
                    n += 1
                    if n >= cap:
                        return n
    return n


def classes_placeable(state, p, tables):
    """End game: has every class with copies left at least one placement on the empty cells from ``p`` on?
    (The piece items of exact cover: a shape that fits nowhere any more is a dead end, found at once.)"""
    w = tables[T_W]
    n = w * tables[T_H]
    grid = tables[S_GRID]
    cls_o = tables[T_CLS_O]
    for k in range(tables[T_C]):
        if state[tables[S_COUNT] + k] <= 0:
            continue
        found = False
        u = p
        while u < n and not found:
            if state[grid + u] == 0:
                for orient in range(tables[cls_o + k], tables[cls_o + k + 1]):
                    if fits(state, u % w, u // w, orient, tables):
                        found = True
                        break
            u += 1
        if not found:
            return False
    return True


def neighbour(x, y, k, w, h):
    """Cell index of neighbour ``k`` (0: +x, 1: -x, 2: +y, 3: -y) of (x, y) on a w x h board; -1 off the board."""
    if k == 0:
        x += 1
    elif k == 1:
        x -= 1
    elif k == 2:
        y += 1
    else:
        y -= 1
    if x < 0 or x >= w or y < 0 or y >= h:
        return -1
    return y * w + x


def on_frontier(state, u, tables):
    """Has the empty cell ``u`` a filled (or blocked) neighbour or the board's edge next to it?  Only such cells
    are candidates for the most constrained one (a cell amid empty cells has many placements)."""
    w = tables[T_W]
    h = tables[T_H]
    grid = tables[S_GRID]
    x = u % w
    y = u // w
    if x == 0 or y == 0 or x == w - 1 or y == h - 1:
        return True
    return state[grid + u - 1] != 0 or state[grid + u + 1] != 0 or state[grid + u - w] != 0 or \
        state[grid + u + w] != 0


def branch_cell(state, depth, tables):
    """The most constrained empty frontier cell among the first ``T_WINDOW`` cells from the first empty one (all
    of the remaining cells once at most ``T_ENDGAME`` are left), written to ``BR[depth]``; returns its number of
    placements (0: a dead end, the node is pruned)."""
    w = tables[T_W]
    n = w * tables[T_H]
    grid = tables[S_GRID]
    p = state[tables[S_POS] + depth]
    best = p
    window = tables[T_WINDOW]
    if window <= 1:
        state[tables[S_BR] + depth] = p
        return 2
    best_n = count_fits(state, p, 1 << 40, tables)
    end = p + window
    if end > n or n - p <= tables[T_ENDGAME]:
        end = n
        if n - p <= tables[T_CLSCHK] and not classes_placeable(state, p, tables):
            state[tables[S_BR] + depth] = p
            return 0
    u = p + 1
    while u < end and best_n > 1:
        if state[grid + u] == 0 and on_frontier(state, u, tables):
            m = count_fits(state, u, best_n, tables)
            if m < best_n:
                best_n = m
                best = u
        u += 1
    state[tables[S_BR] + depth] = best
    return best_n


def fits(state, ax, ay, orient, tables):
    w = tables[T_W]
    h = tables[T_H]
    grid = tables[S_GRID]
    c0 = tables[tables[T_OR_C] + orient]
    c1 = tables[tables[T_OR_C] + orient + 1]
    for i in range(c0, c1):
        x = ax + tables[tables[T_DX] + i]
        y = ay + tables[tables[T_DY] + i]
        if x < 0 or x >= w or y < 0 or y >= h:
            return False
        if state[grid + y * w + x] != 0:
            return False
    return True


def paint(state, ax, ay, orient, value, tables):
    w = tables[T_W]
    grid = tables[S_GRID]
    c0 = tables[tables[T_OR_C] + orient]
    c1 = tables[tables[T_OR_C] + orient + 1]
    for i in range(c0, c1):
        x = ax + tables[tables[T_DX] + i]
        y = ay + tables[tables[T_DY] + i]
        state[grid + y * w + x] = value


def region_ok(state, start, stamp, tables):
    """Flood-fill the empty region of ``start`` (cells marked ``stamp``); False when it is closed and unfillable."""
    w = tables[T_W]
    h = tables[T_H]
    grid = tables[S_GRID]
    mark = tables[S_MARK]
    stack = tables[S_STACK]
    limit = tables[T_LIMIT]
    state[mark + start] = stamp
    state[stack] = start
    top = 1
    size = 1
    first = start
    while top > 0:
        top -= 1
        v = state[stack + top]
        if v < first:
            first = v
        x = v % w
        y = v // w
        for k in range(4):
            u = neighbour(x, y, k, w, h)
            if u < 0:
                continue
            if state[grid + u] != 0 or state[mark + u] == stamp:
                continue
            state[mark + u] = stamp
            size += 1
            if size >= limit:
                return True  # open: too big to judge
            state[stack + top] = u
            top += 1
    return fillable(state, first, size, stamp, tables)


def fillable(state, first, size, stamp, tables):
    """Can the remaining pieces fill a closed region of ``size`` cells whose first cell is ``first``?"""
    if size < tables[T_MINSIZE]:
        return False
    nc = tables[T_C]
    count = tables[S_COUNT]
    size_of = tables[T_CLS_SIZE]
    if size < 2 * tables[T_MINSIZE]:
        # exactly one piece: a remaining class of this very shape, anchored at the region's first cell
        cls_o = tables[T_CLS_O]
        for k in range(nc):
            if state[count + k] == 0 or tables[size_of + k] != size:
                continue
            for o in range(tables[cls_o + k], tables[cls_o + k + 1]):
                if covers_region(state, first, o, stamp, tables):
                    return True
        return False
    if size > 62:
        return True
    # bounded subset sum over the remaining sizes, as a bit set of reachable sums
    reach = 1
    full = (1 << (size + 1)) - 1
    for k in range(nc):
        z = tables[size_of + k]
        n = state[count + k]
        if n == 0 or z > size:
            continue
        reps = size // z
        if n < reps:
            reps = n
        for _ in range(reps):
            reach = (reach | (reach << z)) & full
    return (reach >> size) & 1 == 1


def covers_region(state, a, orient, stamp, tables):
    w = tables[T_W]
    h = tables[T_H]
    ax = a % w
    ay = a // w
    grid = tables[S_GRID]
    mark = tables[S_MARK]
    c0 = tables[tables[T_OR_C] + orient]
    c1 = tables[tables[T_OR_C] + orient + 1]
    for i in range(c0, c1):
        x = ax + tables[tables[T_DX] + i]
        y = ay + tables[tables[T_DY] + i]
        if x < 0 or x >= w or y >= h or y < 0:
            return False
        u = y * w + x
        if state[grid + u] != 0 or state[mark + u] != stamp:
            return False
    return True


def apply(state, depth, choice, tables):
    k = choice_class(state, depth, choice, tables)
    smax = tables[T_SMAX]
    o = (choice // smax) % tables[T_OMAX]
    i = choice % smax
    count = tables[S_COUNT]
    if state[count + k] <= 0 or i >= tables[tables[T_CLS_SIZE] + k]:
        return False
    o0 = tables[tables[T_CLS_O] + k]
    if o >= tables[tables[T_CLS_O] + k + 1] - o0:
        return False
    orient = o0 + o
    u = state[tables[S_BR] + depth]
    ax, ay = placement_anchor(u, orient, i, tables)
    if not fits(state, ax, ay, orient, tables):
        return False
    paint(state, ax, ay, orient, 1, tables)
    state[count + k] -= 1
    w = tables[T_W]
    state[tables[S_REC] + depth] = orient
    state[tables[S_ANC] + depth] = ay * w + ax
    # next empty cell in scan order
    n = w * tables[T_H]
    grid = tables[S_GRID]
    p = state[tables[S_POS] + depth]
    while p < n and state[grid + p] != 0:
        p += 1
    state[tables[S_POS] + depth + 1] = p
    if depth + 1 == tables[T_GOAL]:
        return True
    # dead regions next to the piece
    s = tables[S_STAMP]
    base = state[s] + 1
    ok = True
    h = tables[T_H]
    mark = tables[S_MARK]
    c0 = tables[tables[T_OR_C] + orient]
    c1 = tables[tables[T_OR_C] + orient + 1]
    stamp = base
    for j in range(c0, c1):
        if not ok:
            break
        x = ax + tables[tables[T_DX] + j]
        y = ay + tables[tables[T_DY] + j]
        for q in range(4):
            v = neighbour(x, y, q, w, h)
            if v < 0:
                continue
            if state[grid + v] != 0 or state[mark + v] >= base:
                continue
            if not region_ok(state, v, stamp, tables):
                ok = False
                break
            stamp += 1
    state[s] = stamp
    set_rotation(state, depth + 1, tables)
    if ok and branch_cell(state, depth + 1, tables) == 0:
        ok = False
    if not ok:
        paint(state, ax, ay, orient, 0, tables)
        state[count + k] += 1
        return False
    return True


def undo(state, depth, choice, tables):
    orient = state[tables[S_REC] + depth]
    a = state[tables[S_ANC] + depth]
    w = tables[T_W]
    paint(state, a % w, a // w, orient, 0, tables)
    k = choice_class(state, depth, choice, tables)
    state[tables[S_COUNT] + k] += 1
