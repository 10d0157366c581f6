"""Per-item rules of the sliding puzzles, plain functions in the numba subset (compiled for CPU and CUDA).

Long because it holds the three groups of sliding rules below (ranks and BFS, pattern databases, IDA*): kept
together since they call each other by name (``blank_target``; IDA*'s database lookup ranks with
``pattern_rank``) and the sliding drivers compile them as one unit.

Boards are int8/int64 arrays of ``n = rows * cols`` cells in row order, ``0`` the blank.  Every solver here works
towards the blank-first goal (tile ``t`` on cell ``t``); see :mod:`puzzlebatch.puzzles.sliding.model`.

Three groups of rules:

* a perfect rank of the reachable half of the states (``rank_state`` / ``unrank_state``) and the BFS expansion of
  one ranked state (``bfs_expand_item``);
* pattern-database ranks (``pattern_rank``) and the 0-1 BFS expansion of one abstract state
  (``pdb_expand_item``): only the pattern tiles are seen, the blank's moves through empty cells are free;
* IDA* for one instance (``ida_item``), Korf (1985), with Manhattan distance, linear conflicts or additive
  pattern databases with the mirrored lookup (Korf & Felner 2002), the tables in bytes or 4 bits an entry
  (``pdb_value``); and one bounded IDA* iteration below a split point (``dfs_item``), the work item of batch
  IDA* for one board.

No allocation: callers pass scratch arrays (the CPU driver allocates them per chunk, the CUDA kernel in local
memory).
"""

# Heuristic kinds of ida_item.
H_MANHATTAN = 0
H_LINEAR_CONFLICT = 1
H_PDB = 2

# Status codes in ida_item's stats[2].
ST_SOLVED = 1
ST_LIMIT = 2
ST_BUDGET = 3  # stopped by the node budget; resumable (see ida_item)
PACKED = 8  # pdb_value's mode bit: 4-bit entries (see pdb_value)
STATS_WIDTH = 9  # ida_item's stats row

# Blank directions 0..3 = U, D, L, R; the opposite of d is d ^ 1.


def blank_target(blank, d, rows, cols):
    """The cell the blank moves to in direction ``d`` (0 U, 1 D, 2 L, 3 R), or -1 off the board."""
    r = blank // cols
    c = blank - r * cols
    if d == 0:
        if r == 0:
            return -1
        return blank - cols
    if d == 1:
        if r == rows - 1:
            return -1
        return blank + cols
    if d == 2:
        if c == 0:
            return -1
        return blank - 1
    if c == cols - 1:
        return -1
    return blank + 1


# -- perfect rank of the reachable states ------------------------------------------------------------------------

def state_class(board, n, cols):
    """The parity invariant: inversions of the tiles (blank left out) + (cols-1) * blank row, mod 2."""
    inv = 0
    blank = 0
    for i in range(n):
        a = board[i]
        if a == 0:
            blank = i
            continue
        for j in range(i + 1, n):
            b = board[j]
            if b != 0 and b < a:
                inv += 1
    return (inv + (cols - 1) * (blank // cols)) & 1


def rank_state(board, n, fact):
    """Rank of a board among the ``n!/2`` states of its parity class, in ``[0, n!/2)``.

    rank = blank * (n-1)!/2 + lex(tiles without the blank) // 2.  For a fixed blank cell, exactly one of two
    tile orders that differ by swapping the last two tiles is reachable (their inversion parities differ), and
    their lexicographic ranks are ``2q`` and ``2q + 1``: halving is a bijection onto the class.
    ``fact[k] = k!``.
    """
    blank = 0
    lex = 0
    pos = 0  # index among the n-1 tiles
    for i in range(n):
        a = board[i]
        if a == 0:
            blank = i
            continue
        smaller = 0
        for j in range(i + 1, n):
            b = board[j]
            if b != 0 and b < a:
                smaller += 1
        lex += smaller * fact[n - 2 - pos]
        pos += 1
    return blank * (fact[n - 1] // 2) + lex // 2


def unrank_state(rank, n, cols, cls, fact, board, used):
    """Inverse of :func:`rank_state` for parity class ``cls``; writes the board, ``used`` is scratch (n)."""
    half = fact[n - 1] // 2
    blank = rank // half
    lex = (rank - blank * half) * 2
    need = (cls + (cols - 1) * (blank // cols)) & 1  # inversion parity this blank cell requires
    # Factorial digits of lex; their sum is the inversion count of the tile order.
    par = 0
    rem = lex
    for k in range(n - 1):
        w = fact[n - 2 - k]
        used[k] = rem // w  # digit k, kept in used[] for now (decoded below)
        rem -= used[k] * w
        par += used[k]
    if (par & 1) != need:
        used[n - 3] += 1  # lex + 1: the other order of the last two tiles
    # Decode digits into tiles 1..n-1: digit k = how many unused tiles are smaller than tile k.
    # board[] serves as the "taken" marks for tile values while decoding.
    for t in range(n):
        board[t] = 0
    cell = 0
    for k in range(n - 1):
        d = used[k]
        t = 1
        while True:
            if board[t] == 0:
                if d == 0:
                    break
                d -= 1
            t += 1
        board[t] = 1
        used[k] = t
    # Lay the tiles out around the blank.
    for t in range(n):
        board[t] = 0
    cell = 0
    for k in range(n - 1):
        if cell == blank:
            cell += 1
        board[cell] = used[k]
        cell += 1
    return blank


def bfs_expand_item(rank, rows, cols, cls, fact, out, board, used):
    """Ranks of the (up to four) neighbours of state ``rank``; ``out[d] = -1`` where the blank cannot go."""
    n = rows * cols
    blank = unrank_state(rank, n, cols, cls, fact, board, used)
    for d in range(4):
        t = blank_target(blank, d, rows, cols)
        if t < 0:
            out[d] = -1
            continue
        board[blank] = board[t]
        board[t] = 0
        out[d] = rank_state(board, n, fact)
        board[t] = board[blank]
        board[blank] = 0


# -- pattern databases -------------------------------------------------------------------------------------------

def popcount(x):
    """Set bits of a non-negative int64 (SWAR; the byte sums are added by one wrapping multiply, the form LLVM
    turns into a popcount instruction on the CPU)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF


def pattern_rank(pos, k, n):
    """Rank of ``k`` distinct cells ``pos[0..k-1]`` among the ``n!/(n-k)!`` arrangements (falling factorial base).

    Digit ``i`` is ``pos[i]`` less the earlier cells below it: a popcount of a mask of the cells taken (k steps,
    not k**2 comparisons; IDA*'s database lookups rank at every node)."""
    r = 0
    taken = 0
    for i in range(k):
        p = int(pos[i])  # a Python int when called from Python: no numpy overflow warning in popcount
        r = r * (n - i) + p - popcount(taken & ((1 << p) - 1))
        taken |= 1 << p
    return r


def pattern_unrank(r, k, n, pos):
    """Inverse of :func:`pattern_rank`: writes ``pos[0..k-1]``."""
    for i in range(k - 1, -1, -1):
        base = n - i
        pos[i] = r % base  # digit i, decoded below
        r //= base
    taken = 0
    for i in range(k):
        d = pos[i]
        c = 0
        while True:
            if (taken >> c) & 1 == 0:
                if d == 0:
                    break
                d -= 1
            c += 1
        pos[i] = c
        taken |= 1 << c


def column_masks(rows, cols):
    """Bit masks of the cells not in the first column and not in the last column (cell k is bit k)."""
    not_first = 0
    not_last = 0
    for k in range(rows * cols):
        c = k % cols
        if c != 0:
            not_first |= 1 << k
        if c != cols - 1:
            not_last |= 1 << k
    return not_first, not_last


def region_of(seed, empty, cols, not_first, not_last):
    """The cells of ``empty`` (a bit mask) connected to the ``seed`` cells: repeated one-step dilation."""
    reg = seed
    while True:
        g = reg | (reg << cols) | (reg >> cols) | ((reg << 1) & not_first) | ((reg >> 1) & not_last)
        g &= empty
        if g == reg:
            return reg
        reg = g


def lowest_cell(mask):
    """Index of the lowest set bit of a non-zero mask."""
    i = 0
    while (mask >> i) & 1 == 0:
        i += 1
    return i


def pdb_expand_item(code, k, rows, cols, out, pos, occ):
    """Children of the abstract state ``code = pattern_rank * n + region_min`` for a 0-1 cost BFS.

    ``region_min`` is the smallest cell of the blank's region: the empty cells (no pattern tile) connected to
    the blank.  A child is a pattern tile sliding into a cell of that region (cost 1); moves of the blank through
    empty cells cost nothing and are folded into the region.  Regions are bit masks (cell k = bit k, n <= 36).
    ``out`` (4k) gets the children's codes, -1 after the last; ``occ`` (n) is scratch.  Returns the count.
    """
    n = rows * cols
    r = code // n
    start = code - r * n
    pattern_unrank(r, k, n, pos)
    full = (1 << n) - 1
    tiles = 0
    for c in range(n):
        occ[c] = 0
    for i in range(k):
        occ[pos[i]] = i + 1
        tiles |= 1 << pos[i]
    not_first, not_last = column_masks(rows, cols)
    region = region_of(1 << start, full & ~tiles, cols, not_first, not_last)
    m = 0
    for c in range(n):
        if (region >> c) & 1 == 0:
            continue
        for d in range(4):
            t = blank_target(c, d, rows, cols)
            if t < 0 or occ[t] == 0:
                continue
            i = occ[t] - 1
            # tile i slides from t into c; the blank is now at t
            pos[i] = c
            moved = (tiles & ~(1 << t)) | (1 << c)
            rep = lowest_cell(region_of(1 << t, full & ~moved, cols, not_first, not_last))
            out[m] = pattern_rank(pos, k, n) * n + rep
            m += 1
            pos[i] = t
    for j in range(m, out.shape[0]):
        out[j] = -1
    return m



def pattern_excess(value, r, k, n, cols, tiles, pos):
    """The 4-bit entry of :func:`pdb_value`'s packed format for rank ``r`` of a pattern (``tiles``) whose value
    is ``value``: (value - the tiles' Manhattan distance) / 2, at most 15 (a smaller value stays admissible)."""
    pattern_unrank(r, k, n, pos)
    md = 0
    for i in range(k):
        t = tiles[i]
        c = pos[i]
        dr = c // cols - t // cols
        dc = c % cols - t % cols
        md += (dr if dr > 0 else -dr) + (dc if dc > 0 else -dc)
    x = (value - md) >> 1
    if x > 15:
        return 15
    return x

# -- heuristics --------------------------------------------------------------------------------------------------

def manhattan(board, rows, cols):
    """Sum over the tiles of their row and column distances to their blank-first goal cells."""
    n = rows * cols
    h = 0
    for c in range(n):
        t = board[c]
        if t != 0:
            dr = c // cols - t // cols
            dc = c % cols - t % cols
            h += (dr if dr > 0 else -dr) + (dc if dc > 0 else -dc)
    return h


def line_conflict(board, line, rows, cols, tmp):
    """Linear-conflict penalty of one line: 2 * (tiles in their goal line - longest increasing run of goal order).

    ``line < rows`` is a row, else column ``line - rows``.  Tiles in their goal line that cannot all stay in order
    must step out of it and back: two extra moves each for the fewest such tiles (Hansson, Mayer & Yung 1992).
    ``tmp`` (2 * max(rows, cols)) is scratch.
    """
    m = 0
    if line < rows:
        for c in range(cols):
            t = board[line * cols + c]
            if t != 0 and t // cols == line:
                tmp[m] = t % cols
                m += 1
    else:
        col = line - rows
        for r in range(rows):
            t = board[r * cols + col]
            if t != 0 and t % cols == col:
                tmp[m] = t // cols
                m += 1
    if m < 2:
        return 0
    # longest increasing subsequence of tmp[0..m-1], O(m^2) with lengths in tmp[m..2m-1]
    best = 0
    for i in range(m):
        li = 1
        for j in range(i):
            if tmp[j] < tmp[i] and tmp[m + j] + 1 > li:
                li = tmp[m + j] + 1
        tmp[m + i] = li
        if li > best:
            best = li
    return 2 * (m - best)


def pattern_md(p, tpos, pat_tiles, pat_k, cols, mirror, mir):
    """The Manhattan distance of pattern ``p``'s tiles (with ``mirror``, on the board reflected about its main
    diagonal: :func:`pdb_value`).  A move of tile ``t`` changes it by ``t``'s own change, in ``t``'s pattern and
    in ``mir[t]``'s mirrored one (a reflection keeps every tile's distance), so IDA* computes it once per board
    and then adds the moves' changes."""
    md = 0
    inv = (65536 + cols - 1) // cols  # x // cols == (x * inv) >> 16 for every cell x: no division per tile
    for i in range(pat_k[p]):
        t = pat_tiles[p, i]
        if mirror:
            c = mir[tpos[mir[t]]]
        else:
            c = tpos[t]
        rc = (c * inv) >> 16
        rt = (t * inv) >> 16
        dr = rc - rt
        dc = (c - rc * cols) - (t - rt * cols)
        md += (dr if dr > 0 else -dr) + (dc if dc > 0 else -dc)
    return md


def pdb_value(p, tpos, pat_tiles, pat_k, pat_off, pdb, n, cols, mirror, mir, cells, mode, md):
    """Database value of pattern ``p`` for the tile positions ``tpos`` (tile -> cell).

    With ``mirror`` set, the value for the board reflected about its main diagonal: tile ``t``'s cell there is
    ``mir[tpos[mir[t]]]``.  ``cells`` (pattern size) is scratch.

    ``mode``: bits 0-2 a compression ``shift`` (entry ``rank >> shift`` holds the least of the ``2**shift``
    entries it replaces, still admissible); bit 3 the 4-bit format (:data:`PACKED`): two entries a byte (entry
    ``e`` in the low nibble of byte ``e >> 1`` when ``e`` is even), each the value less the pattern tiles'
    Manhattan distance ``md`` (:func:`pattern_md`, given by the caller, unused in the byte format), halved (the
    two have the same parity: each pattern move changes that distance by one), at most 15.  The kernels'
    ``use_mirror`` argument holds the mirrored lookup in bit 0 and ``mode`` above it.
    """
    k = pat_k[p]
    for i in range(k):
        t = pat_tiles[p, i]
        if mirror:
            cells[i] = mir[tpos[mir[t]]]
        else:
            cells[i] = tpos[t]
    e = pat_off[p] + (pattern_rank(cells, k, n) >> (mode & 7))
    if mode & PACKED:
        b = pdb[e >> 1]
        if e & 1:
            b = b >> 4
        return md + 2 * (b & 15)
    return pdb[e]


# IDA* keeps each pattern's state in one word of ``hv`` (``hm`` for the mirrored lookups): its database value in
# the low 16 bits (HV_MASK), its tiles' Manhattan distance above them (HV_SHIFT), so that the 4-bit tables' decode
# needs no pass over the tiles and a move's undo restores both at once.
HV_SHIFT = 16
HV_MASK = 0xFFFF


def slide_tile(board, tpos, blank, nb, d, g, hcur, rows, cols, hkind, max_len, pdb, pat_tiles, pat_k, pat_off,
               tile_pat, mir, use_mirror, saved, lcv, tmp, cells, hv, hm):
    """IDA*'s move at depth ``g``: slide the tile on cell ``nb`` into the blank's cell (blank direction ``d``).

    :func:`ida_item` replays a saved path with it; its search loop has the same steps written out (speed).

    Updates the board, ``tpos`` and the heuristic's parts, saves what the undo needs (``saved``), and returns
    ``h`` after the move: Manhattan by the moved tile's change, linear conflicts by recomputing the two lines the
    tile leaves and enters, pattern databases by re-ranking the one pattern holding the tile (and its mirror).
    """
    n = rows * cols
    n_pat = pat_k.shape[0]
    t = board[nb]
    board[blank] = t
    board[nb] = 0
    tpos[t] = blank
    tpos[0] = nb
    gr = t // cols
    gc = t - gr * cols
    if d < 2:
        old = nb // cols - gr
        new = blank // cols - gr
    else:
        old = nb % cols - gc
        new = blank % cols - gc
    dm = (new if new > 0 else -new) - (old if old > 0 else -old)
    saved[2 * (max_len + 1) + g] = hcur
    if hkind == H_MANHATTAN:
        return hcur + dm
    if hkind == H_LINEAR_CONFLICT:
        # hcur = manhattan + sum(lcv); recompute the two lines the tile moved between
        if d < 2:
            l1 = nb // cols
            l2 = blank // cols
        else:
            l1 = rows + nb % cols
            l2 = rows + blank % cols
        before = lcv[l1] + lcv[l2]
        lcv[l1] = line_conflict(board, l1, rows, cols, tmp)
        lcv[l2] = line_conflict(board, l2, rows, cols, tmp)
        return hcur + dm + lcv[l1] + lcv[l2] - before
    p = tile_pat[t]
    saved[2 * g] = hv[p]
    md = (hv[p] >> HV_SHIFT) + dm
    hv[p] = (md << HV_SHIFT) | pdb_value(p, tpos, pat_tiles, pat_k, pat_off, pdb, n, cols, False, mir, cells,
                                         use_mirror >> 1, md)
    s = 0
    for q in range(n_pat):
        s += hv[q] & HV_MASK
    hnew = s
    if use_mirror & 1:
        pm = tile_pat[mir[t]]
        saved[2 * g + 1] = hm[pm]
        md = (hm[pm] >> HV_SHIFT) + dm
        hm[pm] = (md << HV_SHIFT) | pdb_value(pm, tpos, pat_tiles, pat_k, pat_off, pdb, n, cols, True, mir, cells,
                                              use_mirror >> 1, md)
        sm = 0
        for q in range(n_pat):
            sm += hm[q] & HV_MASK
        if sm > hnew:
            hnew = sm
    return hnew


def start_h(board, rows, cols, hkind, pdb, pat_tiles, pat_k, pat_off, mir, use_mirror, tpos, hv, hm, lcv, tmp,
            cells):
    """A board's heuristic value, with the parts the search keeps up to date move by move: ``tpos`` (tile ->
    cell, the blank's cell in ``tpos[0]``), the lines' conflicts ``lcv``, the patterns' values ``hv`` and mirrored
    values ``hm``."""
    n = rows * cols
    for c in range(n):
        tpos[board[c]] = c
    n_pat = pat_k.shape[0]
    h = manhattan(board, rows, cols)
    if hkind == H_LINEAR_CONFLICT:
        for ln in range(rows + cols):
            lcv[ln] = line_conflict(board, ln, rows, cols, tmp)
            h += lcv[ln]
    if hkind == H_PDB:
        s = 0
        sm = 0
        for p in range(n_pat):
            md = pattern_md(p, tpos, pat_tiles, pat_k, cols, False, mir)
            v = pdb_value(p, tpos, pat_tiles, pat_k, pat_off, pdb, n, cols, False, mir, cells, use_mirror >> 1, md)
            hv[p] = (md << HV_SHIFT) | v
            s += v
            if use_mirror & 1:
                md = pattern_md(p, tpos, pat_tiles, pat_k, cols, True, mir)
                v = pdb_value(p, tpos, pat_tiles, pat_k, pat_off, pdb, n, cols, True, mir, cells, use_mirror >> 1,
                              md)
                hm[p] = (md << HV_SHIFT) | v
                sm += v
        h = s if s > sm else sm
    return h


def ida_item(board, rows, cols, hkind, max_len, pdb, pat_tiles, pat_k, pat_off, tile_pat, mir, use_mirror,
             path, stats, tpos, dirs, hv, hm, saved, lcv, tmp, cells):
    """IDA* (Korf 1985) on one board towards the blank-first goal; the path of blank directions into ``path``.

    Depth-first search bounded by ``f = g + h``, the bound raised to the least ``f`` that exceeded it, until a
    goal is generated.  The move that undoes the previous one is never tried.  ``h`` is kept up to date per move
    (:func:`slide_tile`).

    stats: [0] length, [1] nodes generated, [2] status (1 solved, 2 the bound passed ``max_len``, 3 stopped by
    the budget), [3] iterations, [4] initial h; [5] the budget: nodes this call may generate (0: no limit).
    A call stopped by its budget saves where the search stands ([0] depth, [6] bound, [7] next bound, [8] the
    next direction to try at that depth; ``path`` holds the moves to it); calling again with the same initial
    board and these rows resumes exactly there, so the solution and the node count do not depend on the budget.
    Scratch: tpos (n), dirs (max_len + 1), hv/hm (patterns), saved (3 * (max_len + 1)), lcv (rows + cols),
    tmp (2 * max(rows, cols)), cells (pattern size).
    """
    n = rows * cols
    n_pat = pat_k.shape[0]
    h = start_h(board, rows, cols, hkind, pdb, pat_tiles, pat_k, pat_off, mir, use_mirror, tpos, hv, hm, lcv, tmp,
                cells)
    blank = tpos[0]
    budget = stats[5]
    resume = stats[2] == ST_BUDGET
    stats[4] = h
    nodes = 0
    iterations = 0
    if h == 0:
        stats[0] = 0
        stats[1] = 0
        stats[2] = ST_SOLVED
        stats[3] = 0
        return
    bound = h
    found = False
    g = 0
    hcur = h
    if resume:  # walk the saved path again from the initial board (the same moves, so the same h's)
        nodes = stats[1]
        iterations = stats[3] - 1  # counted again below
        bound = stats[6]
        depth = stats[0]
        for j in range(depth):
            d = path[j]
            nb = blank_target(blank, d, rows, cols)
            hcur = slide_tile(board, tpos, blank, nb, d, j, hcur, rows, cols, hkind, max_len, pdb, pat_tiles,
                              pat_k, pat_off, tile_pat, mir, use_mirror, saved, lcv, tmp, cells, hv, hm)
            blank = nb
            dirs[j] = d + 1
        g = depth
        dirs[g] = stats[8]
    limit = nodes + budget if budget > 0 else 1 << 62
    while not found:
        iterations += 1
        if bound > max_len:
            stats[2] = ST_LIMIT
            break
        if resume:
            next_bound = stats[7]
            resume = False
        else:
            next_bound = 1 << 30
            g = 0
            dirs[0] = 0
            hcur = h
        while True:
            if nodes >= limit:  # out of budget: save where the search stands
                stats[0] = g
                stats[1] = nodes
                stats[2] = ST_BUDGET
                stats[3] = iterations
                stats[6] = bound
                stats[7] = next_bound
                stats[8] = dirs[g]
                return
            d = dirs[g]
            if d == 4:
                if g == 0:
                    break
                # undo the move made at depth g-1
                g -= 1
                d0 = path[g]
                back = blank_target(blank, d0 ^ 1, rows, cols)
                t = board[back]
                board[blank] = t
                board[back] = 0
                tpos[t] = blank
                tpos[0] = back
                if hkind == H_PDB:
                    p = tile_pat[t]
                    hv[p] = saved[2 * g]
                    if use_mirror & 1:
                        pm = tile_pat[mir[t]]
                        hm[pm] = saved[2 * g + 1]
                elif hkind == H_LINEAR_CONFLICT:
                    if d0 < 2:
                        lcv[blank // cols] = line_conflict(board, blank // cols, rows, cols, tmp)
                        lcv[back // cols] = line_conflict(board, back // cols, rows, cols, tmp)
                    else:
                        lcv[rows + blank % cols] = line_conflict(board, rows + blank % cols, rows, cols, tmp)
                        lcv[rows + back % cols] = line_conflict(board, rows + back % cols, rows, cols, tmp)
                blank = back
                hcur = saved[2 * (max_len + 1) + g]
                continue
            dirs[g] = d + 1
            if g > 0 and d == (path[g - 1] ^ 1):
                continue
            nb = blank_target(blank, d, rows, cols)
            if nb < 0:
                continue
            # slide tile t from nb into the blank's cell: slide_tile(), written out here because a call per node
            # costs this loop about 40 % of its speed on the CPU (the drivers do not force-inline ida_item's callees)
            t = board[nb]
            board[blank] = t
            board[nb] = 0
            tpos[t] = blank
            tpos[0] = nb
            nodes += 1
            gr = t // cols
            gc = t - gr * cols
            if d < 2:
                old = nb // cols - gr
                new = blank // cols - gr
            else:
                old = nb % cols - gc
                new = blank % cols - gc
            dm = (new if new > 0 else -new) - (old if old > 0 else -old)
            saved[2 * (max_len + 1) + g] = hcur
            if hkind == H_MANHATTAN:
                hnew = hcur + dm
            elif hkind == H_LINEAR_CONFLICT:
                if d < 2:
                    l1 = nb // cols
                    l2 = blank // cols
                else:
                    l1 = rows + nb % cols
                    l2 = rows + blank % cols
                before = lcv[l1] + lcv[l2]
                lcv[l1] = line_conflict(board, l1, rows, cols, tmp)
                lcv[l2] = line_conflict(board, l2, rows, cols, tmp)
                hnew = hcur + dm + lcv[l1] + lcv[l2] - before
            else:
                p = tile_pat[t]
                saved[2 * g] = hv[p]
                md = (hv[p] >> HV_SHIFT) + dm
                hv[p] = (md << HV_SHIFT) | pdb_value(p, tpos, pat_tiles, pat_k, pat_off, pdb, n, cols, False, mir,
                                                     cells, use_mirror >> 1, md)
                s = 0
                for q in range(n_pat):
                    s += hv[q] & HV_MASK
                hnew = s
                if use_mirror & 1:
                    pm = tile_pat[mir[t]]
                    saved[2 * g + 1] = hm[pm]
                    # the mirrored lookup only where the plain one does not prune already (Korf & Felner): a
                    # second cache miss saved on most nodes; hm[pm] left as it was is restored as it was
                    if g + 1 + s <= bound:
                        md = (hm[pm] >> HV_SHIFT) + dm
                        hm[pm] = (md << HV_SHIFT) | pdb_value(pm, tpos, pat_tiles, pat_k, pat_off, pdb, n, cols,
                                                              True, mir, cells, use_mirror >> 1, md)
                        sm = 0
                        for q in range(n_pat):
                            sm += hm[q] & HV_MASK
                        if sm > hnew:
                            hnew = sm
            path[g] = d
            old_blank = blank
            blank = nb
            f = g + 1 + hnew
            if f > bound:
                if f < next_bound:
                    next_bound = f
                # undo at once
                t2 = board[old_blank]
                board[nb] = t2
                board[old_blank] = 0
                tpos[t2] = nb
                tpos[0] = old_blank
                blank = old_blank
                if hkind == H_PDB:
                    hv[tile_pat[t2]] = saved[2 * g]
                    if use_mirror & 1:
                        hm[tile_pat[mir[t2]]] = saved[2 * g + 1]
                elif hkind == H_LINEAR_CONFLICT:
                    lcv[l1] = line_conflict(board, l1, rows, cols, tmp)
                    lcv[l2] = line_conflict(board, l2, rows, cols, tmp)
                continue
            g += 1
            if hnew == 0:
                found = True
                break
            dirs[g] = 0
            hcur = hnew
        if found:
            stats[0] = g
            stats[2] = ST_SOLVED
            break
        if next_bound == (1 << 30):
            break
        bound = next_bound
    stats[1] = nodes
    stats[3] = iterations


# -- one bounded iteration from a split point (batch IDA*) -------------------------------------------------------

DFS_STATS_WIDTH = 4  # dfs_item's stats row
NO_BOUND = 1 << 30  # dfs_item's next bound when nothing was cut off


def dfs_item(board, rows, cols, hkind, max_len, pdb, pat_tiles, pat_k, pat_off, tile_pat, mir, use_mirror, g0,
             prev, bound, path, stats, tpos, dirs, hv, hm, saved, lcv, tmp, cells):
    """One IDA* iteration below a split point: depth-first search from ``board`` (reached at depth ``g0`` by a
    last blank move ``prev``, -1 for none) of the nodes with ``f = g + h <= bound``, stopped at the first goal.

    The work item of batch IDA* (:func:`puzzlebatch.runners.sliding.solver.solve_split`): the root's subtrees at
    a fixed depth are searched independently, every one with the iteration's bound, so the node counts depend on
    neither the order nor the backend.  Same moves, pruning and heuristic updates as :func:`ida_item`.

    stats: [0] the goal's depth (``g0`` + moves in ``path``), [1] nodes generated, [2] status (1 solved, else 0),
    [3] the least ``f`` above ``bound`` (:data:`NO_BOUND` when none).  A ``bound`` below the board's own ``f``
    searches nothing and gives that ``f`` in [3].  Scratch as for :func:`ida_item`; ``bound - g0 <= max_len``.
    """
    n = rows * cols
    n_pat = pat_k.shape[0]
    h = start_h(board, rows, cols, hkind, pdb, pat_tiles, pat_k, pat_off, mir, use_mirror, tpos, hv, hm, lcv, tmp,
                cells)
    blank = tpos[0]
    stats[0] = 0
    stats[1] = 0
    stats[2] = 0
    stats[3] = NO_BOUND
    if g0 + h > bound:
        stats[3] = g0 + h
        return
    if h == 0:
        stats[0] = g0
        stats[2] = ST_SOLVED
        return
    nodes = 0
    next_bound = NO_BOUND
    g = 0  # moves below the split point
    dirs[0] = 0
    hcur = h
    found = False
    while True:
        d = dirs[g]
        if d == 4:
            if g == 0:
                break
            g -= 1
            d0 = path[g]
            back = blank_target(blank, d0 ^ 1, rows, cols)
            t = board[back]
            board[blank] = t
            board[back] = 0
            tpos[t] = blank
            tpos[0] = back
            if hkind == H_PDB:
                hv[tile_pat[t]] = saved[2 * g]
                if use_mirror & 1:
                    hm[tile_pat[mir[t]]] = saved[2 * g + 1]
            elif hkind == H_LINEAR_CONFLICT:
                if d0 < 2:
                    lcv[blank // cols] = line_conflict(board, blank // cols, rows, cols, tmp)
                    lcv[back // cols] = line_conflict(board, back // cols, rows, cols, tmp)
                else:
                    lcv[rows + blank % cols] = line_conflict(board, rows + blank % cols, rows, cols, tmp)
                    lcv[rows + back % cols] = line_conflict(board, rows + back % cols, rows, cols, tmp)
            blank = back
            hcur = saved[2 * (max_len + 1) + g]
            continue
        dirs[g] = d + 1
        last = prev if g == 0 else path[g - 1]
        if last >= 0 and d == (last ^ 1):
            continue
        nb = blank_target(blank, d, rows, cols)
        if nb < 0:
            continue
        t = board[nb]
        board[blank] = t
        board[nb] = 0
        tpos[t] = blank
        tpos[0] = nb
        nodes += 1
        gr = t // cols
        gc = t - gr * cols
        if d < 2:
            old = nb // cols - gr
            new = blank // cols - gr
        else:
            old = nb % cols - gc
            new = blank % cols - gc
        dm = (new if new > 0 else -new) - (old if old > 0 else -old)
        saved[2 * (max_len + 1) + g] = hcur
        l1 = 0
        l2 = 0
        if hkind == H_MANHATTAN:
            hnew = hcur + dm
        elif hkind == H_LINEAR_CONFLICT:
            if d < 2:
                l1 = nb // cols
                l2 = blank // cols
            else:
                l1 = rows + nb % cols
                l2 = rows + blank % cols
            before = lcv[l1] + lcv[l2]
            lcv[l1] = line_conflict(board, l1, rows, cols, tmp)
            lcv[l2] = line_conflict(board, l2, rows, cols, tmp)
            hnew = hcur + dm + lcv[l1] + lcv[l2] - before
        else:
            p = tile_pat[t]
            saved[2 * g] = hv[p]
            md = (hv[p] >> HV_SHIFT) + dm
            hv[p] = (md << HV_SHIFT) | pdb_value(p, tpos, pat_tiles, pat_k, pat_off, pdb, n, cols, False, mir, cells,
                                                 use_mirror >> 1, md)
            s = 0
            for q in range(n_pat):
                s += hv[q] & HV_MASK
            hnew = s
            if use_mirror & 1:
                pm = tile_pat[mir[t]]
                saved[2 * g + 1] = hm[pm]
                if g0 + g + 1 + s <= bound:  # as in ida_item: the mirror only where the plain value does not prune
                    md = (hm[pm] >> HV_SHIFT) + dm
                    hm[pm] = (md << HV_SHIFT) | pdb_value(pm, tpos, pat_tiles, pat_k, pat_off, pdb, n, cols, True,
                                                          mir, cells, use_mirror >> 1, md)
                    sm = 0
                    for q in range(n_pat):
                        sm += hm[q] & HV_MASK
                    if sm > hnew:
                        hnew = sm
        path[g] = d
        old_blank = blank
        blank = nb
        f = g0 + g + 1 + hnew
        if f > bound:
            if f < next_bound:
                next_bound = f
            t2 = board[old_blank]
            board[nb] = t2
            board[old_blank] = 0
            tpos[t2] = nb
            tpos[0] = old_blank
            blank = old_blank
            if hkind == H_PDB:
                hv[tile_pat[t2]] = saved[2 * g]
                if use_mirror & 1:
                    hm[tile_pat[mir[t2]]] = saved[2 * g + 1]
            elif hkind == H_LINEAR_CONFLICT:
                lcv[l1] = line_conflict(board, l1, rows, cols, tmp)
                lcv[l2] = line_conflict(board, l2, rows, cols, tmp)
            continue
        g += 1
        if hnew == 0:
            found = True
            break
        dirs[g] = 0
        hcur = hnew
    stats[1] = nodes
    stats[3] = next_bound
    if found:
        stats[0] = g0 + g
        stats[2] = ST_SOLVED
