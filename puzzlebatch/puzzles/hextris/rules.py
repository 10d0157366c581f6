"""Per-game rules of hex Tetris in the numba subset: compiled for the CPU (njit) and for CUDA (device functions).

Long because it is one game's whole rule set (the table and state layouts, moves, locking, scoring, the
breadth-first search of lockable positions, the distances the phrase weaver uses): kept together since every
function reads the same ``H_*``/``S_*`` layouts and they call each other by name in one compile unit (the board
evaluation is apart already, in ``evaluation.py``).

One game lives in four flat arrays that the caller owns (one row each of the batch arrays):

``state`` (int64[STATE_LEN])
    The ``S_*`` slots: current unit, its pivot (axial ``q, r``) and orientation, the LCG state, counters, the move
    score, the previous lock's line count, the end code (``model.END_NAMES`` order).
``board`` (int64[height * words_per_row])
    The bitboard: row ``y`` is ``words_per_row`` 64-bit words, bit ``x & 63`` of word ``x >> 6``.
``vis`` (int64[vis_words])
    Bitset of the positions visited since the last downward move (the evaluator's repeat rule, RULES.md §10),
    indexed by pivot column and orientation modulo the unit's symmetry (the document's unique position id).
``work`` (int64[2 * n_positions])
    Scratch for the breadth-first search of lockable positions (policy entry points only).

``tab`` (int64[:]) describes one problem, built by ``encode.problem_tables``: the ``H_*`` header followed by the
rotated unit shapes, sizes, spawn pivots, symmetries, row masks, the initial board, the canonical orientations
(``rot`` modulo the unit's symmetry: a table lookup instead of a division on every move), the spawn zone and the
shape classes (orientations with the same cells up to a translation).  The board evaluation of the player is in
``evaluation.py``, compiled in the same unit.

Positions are ``(pq, pr, rot)``: the pivot in axial coordinates and the number of clockwise turns from the spawn
shape (0..5).  Commands are codes 0..5 = W, E, SW, SE, CW, CCW; code 6 is an invalid character.
All arithmetic is on int64; no allocation; results are written into the caller's arrays.
"""

# table header
H_WIDTH = 0
H_HEIGHT = 1
H_NW = 2  # 64-bit words per board row
H_SRCLEN = 3
H_NUNITS = 4
H_MAXSIZE = 5
H_BORDER = 6  # how far a valid position's pivot can lie outside the board
H_NSLOTS = 7  # pivot columns: width + 2 * border + 1
H_NROWS = 8  # pivot rows: height + 2 * border + 1
H_VISWORDS = 9
H_OFFS = 10  # base of the rotated shapes: ((u * 6 + rot) * maxsize + m) * 2 + (0: dq, 1: dr)
H_SIZE = 11  # base of the unit sizes
H_SPAWN = 12  # base of the spawn pivots (pq, pr)
H_PERIOD = 13  # base of the unit symmetries (distinct orientations: 1, 2, 3 or 6)
H_ROWMASK = 14  # base of the full-row masks (words_per_row words)
H_BOARD0 = 15  # base of the initial board
H_NPOS = 16  # number of position ids: n_rows * n_slots * 6
H_CROT = 17  # base of the canonical orientations: u * 6 + rot -> rot modulo the unit's symmetry
H_SPAWN_X0 = 18  # the spawn zone: columns x0..x1 (every unit's spawned members, one column more each side)
H_SPAWN_X1 = 19
H_ZONE = 20  # and rows 0 .. zone - 1 (the tallest unit's rows plus one)
H_SHAPE = 21  # base of the shape classes: u * 6 + rot -> the first orientation with the same cells up to translation
HEADER_LEN = 22

# game state
S_PQ = 0
S_PR = 1
S_ROT = 2
S_UNIT = 3
S_RNG = 4
S_SPAWNED = 5
S_LOCKED = 6
S_SCORE = 7
S_LSOLD = 8
S_END = 9
S_NCMD = 10
S_LINES = 11
S_SEED = 12
STATE_LEN = 13

# commands
C_W = 0
C_E = 1
C_SW = 2
C_SE = 3
C_CW = 4
C_CCW = 5
C_INVALID = 6

# end codes (model.END_NAMES)
END_IN_PROGRESS = 0
END_OUT_OF_UNITS = 1
END_SPAWN_BLOCKED = 2
END_ERROR_REPEAT = 3
END_ERROR_INVALID_CHAR = 4
END_ERROR_AFTER_END = 5
END_ERROR_PLACEMENT = 7

# policy features (weights are int64, one per feature)
F_LINES = 0  # rows cleared by this lock
F_DEPTH = 1  # sum of the members' rows (lower on the board = larger)
F_CONTACT = 2  # member sides touching a full cell, a wall or the floor
F_COVERED = 3  # empty cells right below the unit (SW/SE neighbours) that it would cover
F_HIGH = 4  # the unit's top row (larger = lower)
N_FEATURES = 5



def lcg_next(s):
    """Next state of the source's linear congruential generator (RULES.md §4)."""
    return (s * 1103515245 + 12345) & 0xFFFFFFFF


def lcg_rand(s):
    """The random number drawn from a state: bits 30..16."""
    return (s >> 16) & 0x7FFF


def member_cell(tab, u, rot, m, pq, pr):
    """Offset cell ``(x, y)`` of member ``m`` of unit ``u`` in orientation ``rot`` with the pivot at ``(pq, pr)``."""
    b = tab[H_OFFS] + ((u * 6 + rot) * tab[H_MAXSIZE] + m) * 2
    r = pr + tab[b + 1]
    q = pq + tab[b]
    return q + (r >> 1), r


def cell_full(board, tab, x, y):
    """True when ``(x, y)`` is outside the board or full."""
    if x < 0 or y < 0 or x >= tab[H_WIDTH] or y >= tab[H_HEIGHT]:
        return True
    return ((board[y * tab[H_NW] + (x >> 6)] >> (x & 63)) & 1) != 0


def fits(board, tab, u, pq, pr, rot):
    """True when every member of the unit is on the board and on an empty cell (a valid position)."""
    for m in range(tab[tab[H_SIZE] + u]):
        x, y = member_cell(tab, u, rot, m, pq, pr)
        if cell_full(board, tab, x, y):
            return False
    return True


def moved(pq, pr, rot, cmd):
    """Position after a command (axial directions: E (+1, 0), W (-1, 0), SE (0, +1), SW (-1, +1))."""
    if cmd == C_W:
        return pq - 1, pr, rot
    if cmd == C_E:
        return pq + 1, pr, rot
    if cmd == C_SW:
        return pq - 1, pr + 1, rot
    if cmd == C_SE:
        return pq, pr + 1, rot
    if cmd == C_CW:
        return pq, pr, (rot + 1) % 6
    return pq, pr, (rot + 5) % 6


def position_id(tab, u, pq, pr, rot):
    """Unique id of a valid position: (pivot row, pivot column, orientation modulo the unit's symmetry)."""
    border = tab[H_BORDER]
    px = pq + (pr >> 1)
    return ((pr + border) * tab[H_NSLOTS] + px + border) * 6 + tab[tab[H_CROT] + u * 6 + rot]


def position_of(tab, pid):
    """Inverse of :func:`position_id` (the orientation comes back reduced modulo the symmetry)."""
    border = tab[H_BORDER]
    rot = pid % 6
    t = pid // 6
    px = t % tab[H_NSLOTS] - border
    pr = t // tab[H_NSLOTS] - border
    return px - (pr >> 1), pr, rot


def vis_clear(vis, tab):
    for k in range(tab[H_VISWORDS]):
        vis[k] = 0


def vis_test_and_set(vis, tab, u, pq, pr, rot):
    """Mark the position (same pivot row as the others in ``vis``); True if it was already marked."""
    border = tab[H_BORDER]
    idx = (pq + (pr >> 1) + border) * 6 + tab[tab[H_CROT] + u * 6 + rot]
    word = idx >> 6
    bit = (vis[word] >> (idx & 63)) & 1
    vis[word] |= 1 << (idx & 63)
    return bit != 0


def vis_marked(vis, tab, u, pq, pr, rot):
    """True when the position is in ``vis`` (only meaningful in the pivot row of the positions marked there)."""
    border = tab[H_BORDER]
    idx = (pq + (pr >> 1) + border) * 6 + tab[tab[H_CROT] + u * 6 + rot]
    return ((vis[idx >> 6] >> (idx & 63)) & 1) != 0


def clear_full_rows(board, tab):
    """Delete the full rows, drop the rows above them, and return how many were cleared (RULES.md §7)."""
    h = tab[H_HEIGHT]
    nw = tab[H_NW]
    mask0 = tab[H_ROWMASK]
    dst = h - 1
    lines = 0
    for y in range(h - 1, -1, -1):
        full = True
        for k in range(nw):
            if board[y * nw + k] != tab[mask0 + k]:
                full = False
                break
        if full:
            lines += 1
        else:
            if dst != y:
                for k in range(nw):
                    board[dst * nw + k] = board[y * nw + k]
            dst -= 1
    for y in range(dst, -1, -1):
        for k in range(nw):
            board[y * nw + k] = 0
    return lines


def spawn(state, board, vis, tab):
    """Draw and place the next unit (RULES.md §3, §4); ends the game when the source is empty or the spawn is full."""
    if state[S_SPAWNED] >= tab[H_SRCLEN]:
        state[S_END] = END_OUT_OF_UNITS
        return
    s = state[S_RNG]
    u = lcg_rand(s) % tab[H_NUNITS]
    state[S_RNG] = lcg_next(s)
    state[S_SPAWNED] += 1
    b = tab[H_SPAWN] + u * 2
    pq = tab[b]
    pr = tab[b + 1]
    state[S_UNIT] = u
    state[S_PQ] = pq
    state[S_PR] = pr
    state[S_ROT] = 0
    if not fits(board, tab, u, pq, pr, 0):
        state[S_END] = END_SPAWN_BLOCKED
        return
    vis_clear(vis, tab)
    vis_test_and_set(vis, tab, u, pq, pr, 0)


def lock(state, board, vis, tab):
    """Lock the current unit where it is, clear rows, add the move score (RULES.md §6, §7, §9), spawn the next."""
    u = state[S_UNIT]
    pq = state[S_PQ]
    pr = state[S_PR]
    rot = state[S_ROT]
    nw = tab[H_NW]
    size = tab[tab[H_SIZE] + u]
    for m in range(size):
        x, y = member_cell(tab, u, rot, m, pq, pr)
        board[y * nw + (x >> 6)] |= 1 << (x & 63)
    lines = clear_full_rows(board, tab)
    state[S_SCORE] += lock_points(tab, state, u, lines)
    state[S_LSOLD] = lines
    state[S_LINES] += lines
    state[S_LOCKED] += 1
    spawn(state, board, vis, tab)


def init_game(state, board, vis, tab, seed):
    """Start a game: the problem's initial board, the LCG seeded with ``seed``, the first unit spawned."""
    for k in range(STATE_LEN):
        state[k] = 0
    state[S_SEED] = seed
    state[S_RNG] = seed & 0xFFFFFFFF
    n = tab[H_HEIGHT] * tab[H_NW]
    b0 = tab[H_BOARD0]
    for k in range(n):
        board[k] = tab[b0 + k]
    spawn(state, board, vis, tab)


def step(state, board, vis, tab, cmd):
    """Execute one command (RULES.md §6, §8, §10).  A command after the end of the game is an error."""
    end = state[S_END]
    if end != END_IN_PROGRESS:
        if end == END_OUT_OF_UNITS or end == END_SPAWN_BLOCKED:
            state[S_END] = END_ERROR_AFTER_END
        return
    state[S_NCMD] += 1
    u = state[S_UNIT]
    pq, pr, rot = moved(state[S_PQ], state[S_PR], state[S_ROT], cmd)
    if not fits(board, tab, u, pq, pr, rot):
        lock(state, board, vis, tab)
        return
    if cmd == C_SW or cmd == C_SE:
        vis_clear(vis, tab)
        vis_test_and_set(vis, tab, u, pq, pr, rot)
    elif vis_test_and_set(vis, tab, u, pq, pr, rot):
        state[S_END] = END_ERROR_REPEAT
        return
    state[S_PQ] = pq
    state[S_PR] = pr
    state[S_ROT] = rot


def play_commands(state, board, vis, tab, cmds, lo, hi):
    """Execute ``cmds[lo:hi]`` (codes 0..6).  An invalid character anywhere is an error before anything runs,
    as in the evaluator, which decodes the whole string first.  Stops at the first error."""
    for i in range(lo, hi):
        if cmds[i] == C_INVALID:
            state[S_END] = END_ERROR_INVALID_CHAR
            return
    for i in range(lo, hi):
        step(state, board, vis, tab, cmds[i])
        if state[S_END] >= END_ERROR_REPEAT:
            return


# -- placements: breadth-first search of the lockable positions ------------------------------------------------------
def lock_command(board, tab, u, pq, pr, rot):
    """A command that locks the unit at this position (SW, SE, W, E, CW, CCW tried in order), or -1 if none."""
    for k in range(6):
        cmd = k
        if k < 2:
            cmd = k + 2
        elif k < 4:
            cmd = k - 2
        nq, nr, nrot = moved(pq, pr, rot, cmd)
        if not fits(board, tab, u, nq, nr, nrot):
            return cmd
    return -1


def bfs_positions(state, board, vis, tab, work):
    """Breadth-first search of every position the current unit can reach from where it is without an error.

    ``work[:npos]`` gets, for each reached position id, ``stamp << 32 | parent_id << 3 | command`` (the move
    that reached it; ``command = 7`` at the root); ``work[npos:]`` gets the queue (ids in BFS order).  The
    stamp is the number of units spawned so far plus one, so ``work`` never needs clearing.  Returns the number
    of positions reached.  Paths in the BFS tree never revisit a position, and positions of the current row
    already visited by the unit (``vis``: it may have moved since it spawned) are left out, so replaying a path
    never repeats a position.
    """
    npos = tab[H_NPOS]
    stamp = (state[S_SPAWNED] + 1) << 32
    u = state[S_UNIT]
    root_pr = state[S_PR]
    root = position_id(tab, u, state[S_PQ], root_pr, state[S_ROT])
    work[root] = stamp | (root << 3) | 7
    work[npos] = root
    head = 0
    tail = 1
    while head < tail:
        pid = work[npos + head]
        head += 1
        pq, pr, rot = position_of(tab, pid)
        for cmd in range(6):
            nq, nr, nrot = moved(pq, pr, rot, cmd)
            if not fits(board, tab, u, nq, nr, nrot):
                continue
            nid = position_id(tab, u, nq, nr, nrot)
            if (work[nid] >> 32) == (stamp >> 32):
                continue
            if nr == root_pr and vis_marked(vis, tab, u, nq, nr, nrot):
                continue
            work[nid] = stamp | (pid << 3) | cmd
            work[npos + tail] = nid
            tail += 1
    return tail


def path_length(tab, work, pid):
    """Number of moves from the BFS root to ``pid``."""
    n = 0
    while (work[pid] & 7) != 7:
        pid = (work[pid] & 0xFFFFFFFF) >> 3
        n += 1
    return n


def walk_to(state, board, vis, tab, work, pid, out, n_out, cap):
    """Replay the BFS path to ``pid`` then its lock command through :func:`step`; append the commands to
    ``out[n_out:cap]`` (those past ``cap`` are executed but not recorded).  Returns the new ``n_out``.

    The path is written backwards into the free part of ``work`` (the BFS queue, no longer needed) first.
    """
    npos = tab[H_NPOS]
    u = state[S_UNIT]
    length = path_length(tab, work, pid)
    lpq, lpr, lrot = position_of(tab, pid)
    last = lock_command(board, tab, u, lpq, lpr, lrot)
    k = length
    p = pid
    while k > 0:
        k -= 1
        work[npos + k] = work[p] & 7
        p = (work[p] & 0xFFFFFFFF) >> 3
    work[npos + length] = last
    for i in range(length + 1):
        cmd = work[npos + i]
        if n_out < cap:
            out[n_out] = cmd
        n_out += 1
        step(state, board, vis, tab, cmd)
    return n_out


def placement_features(board, tab, u, pq, pr, rot, feats):
    """Fill ``feats[:N_FEATURES]`` for locking unit ``u`` at ``(pq, pr, rot)`` (the board is not changed)."""
    w = tab[H_WIDTH]
    nw = tab[H_NW]
    size = tab[tab[H_SIZE] + u]
    for k in range(N_FEATURES):
        feats[k] = 0
    top = tab[H_HEIGHT]
    for m in range(size):
        x, y = member_cell(tab, u, rot, m, pq, pr)
        feats[F_DEPTH] += y
        if y < top:
            top = y
        # rows this lock fills: count each row once, at its first member
        first = True
        for j in range(m):
            xj, yj = member_cell(tab, u, rot, j, pq, pr)
            if yj == y:
                first = False
                break
        if first:
            filled = 0
            for k in range(nw):
                v = board[y * nw + k]
                while v != 0:  # popcount
                    v &= v - 1
                    filled += 1
            for j in range(size):
                xj, yj = member_cell(tab, u, rot, j, pq, pr)
                if yj == y:
                    filled += 1
            if filled == w:
                feats[F_LINES] += 1
        # the six neighbours
        odd = y & 1
        for d in range(6):
            nx = x
            ny = y
            if d == 0:
                nx = x - 1
            elif d == 1:
                nx = x + 1
            elif d == 2:
                nx = x - 1 + odd
                ny = y + 1
            elif d == 3:
                nx = x + odd
                ny = y + 1
            elif d == 4:
                nx = x - 1 + odd
                ny = y - 1
            else:
                nx = x + odd
                ny = y - 1
            own = False
            for j in range(size):
                xj, yj = member_cell(tab, u, rot, j, pq, pr)
                if xj == nx and yj == ny:
                    own = True
                    break
            if own:
                continue
            if ny < 0:
                continue  # open sky above the board is no contact
            if cell_full(board, tab, nx, ny):
                feats[F_CONTACT] += 1
            elif d == 2 or d == 3:
                feats[F_COVERED] += 1
    feats[F_HIGH] = top


def lock_points(tab, state, u, lines):
    """Move points of locking unit ``u`` with ``lines`` rows cleared (RULES.md §9), after the game's last lock."""
    points = tab[tab[H_SIZE] + u] + 50 * lines * (lines + 1)
    old = state[S_LSOLD]
    if old > 1:
        points += (old - 1) * points // 10
    return points


def lockable_positions(state, board, vis, tab, work, out, feats, cap):
    """Every position where the current unit can lock, in BFS order: ``out[k] = (pivot x, pivot y, rot)``
    (rot reduced modulo the unit's symmetry) and ``feats[k]`` its features, for the first ``cap`` of them.
    Returns how many there are (0 once the game has ended); the game itself is not changed."""
    if state[S_END] != END_IN_PROGRESS:
        return 0
    n = bfs_positions(state, board, vis, tab, work)
    npos = tab[H_NPOS]
    u = state[S_UNIT]
    k = 0
    for i in range(n):
        pid = work[npos + i]
        pq, pr, rot = position_of(tab, pid)
        if lock_command(board, tab, u, pq, pr, rot) < 0:
            continue
        if k < cap:
            out[k, 0] = pq + (pr >> 1)
            out[k, 1] = pr
            out[k, 2] = rot
            placement_features(board, tab, u, pq, pr, rot, feats[k])
        k += 1
    return k


def best_placement(state, board, vis, tab, work, weights, feats):
    """The lockable position with the largest weighted feature sum (first in BFS order on ties), or -1."""
    n = bfs_positions(state, board, vis, tab, work)
    npos = tab[H_NPOS]
    u = state[S_UNIT]
    best = -1
    best_value = 0
    for i in range(n):
        pid = work[npos + i]
        pq, pr, rot = position_of(tab, pid)
        if lock_command(board, tab, u, pq, pr, rot) < 0:
            continue
        placement_features(board, tab, u, pq, pr, rot, feats)
        value = 0
        for k in range(N_FEATURES):
            value += weights[k] * feats[k]
        if best < 0 or value > best_value:
            best = pid
            best_value = value
    return best


def play_policy(state, board, vis, tab, work, weights, feats, max_units, out, cap):
    """Play up to ``max_units`` units (all if negative) with the greedy weighted policy; append the commands to
    ``out`` (at most ``cap`` recorded).  Returns the number of commands executed."""
    n_out = 0
    placed = 0
    while state[S_END] == END_IN_PROGRESS and (max_units < 0 or placed < max_units):
        pid = best_placement(state, board, vis, tab, work, weights, feats)
        if pid < 0:  # cannot happen on a finite board (moving down always ends), kept as a guard
            state[S_END] = END_ERROR_PLACEMENT
            break
        n_out = walk_to(state, board, vis, tab, work, pid, out, n_out, cap)
        placed += 1
    return n_out


def play_placements(state, board, vis, tab, work, targets, n_targets, out, cap):
    """Lock the next ``n_targets`` units at ``targets[k] = (pivot x, pivot y, rot)`` (offset pivot, clockwise
    turns from the spawn shape), each by a shortest command path.  A target that is not a reachable, lockable
    position ends the game with ``END_ERROR_PLACEMENT``.  Returns the number of commands executed."""
    n_out = 0
    for k in range(n_targets):
        if state[S_END] != END_IN_PROGRESS:
            break
        u = state[S_UNIT]
        px = targets[k, 0]
        py = targets[k, 1]
        pq = px - (py >> 1)
        rot = targets[k, 2] % 6
        if not fits(board, tab, u, pq, py, rot) or lock_command(board, tab, u, pq, py, rot) < 0:
            state[S_END] = END_ERROR_PLACEMENT
            break
        bfs_positions(state, board, vis, tab, work)
        pid = position_id(tab, u, pq, py, rot)
        if (work[pid] >> 32) != state[S_SPAWNED] + 1:
            state[S_END] = END_ERROR_PLACEMENT
            break
        n_out = walk_to(state, board, vis, tab, work, pid, out, n_out, cap)
    return n_out


# -- phrases of power: distances to a lock position ------------------------------------------------------------------
def reverse_distances(board, tab, u, tq, tr, trot, top_row, work):
    """Breadth-first search backwards from position ``(tq, tr, trot)``: ``work[pid] = 1 + distance`` (number of
    moves to reach the target, ignoring the repeat rule) for every valid position of unit ``u`` in rows
    ``top_row`` .. ``tr`` that can reach it; ``work[:npos]`` must be zero on entry, ``work[npos:]`` is the queue.
    Returns how many positions were reached.  Used by the phrase weaver (``phrases.py``)."""
    npos = tab[H_NPOS]
    crot = tab[H_CROT] + u * 6
    root = position_id(tab, u, tq, tr, trot)
    work[root] = 1
    work[npos] = root
    head = 0
    tail = 1
    while head < tail:
        pid = work[npos + head]
        head += 1
        d = work[pid] + 1
        pq, pr, rot = position_of(tab, pid)
        for cmd in range(6):
            q = pq
            r = pr
            o = rot
            if cmd == C_W:
                q = pq + 1
            elif cmd == C_E:
                q = pq - 1
            elif cmd == C_SW:
                q = pq + 1
                r = pr - 1
            elif cmd == C_SE:
                r = pr - 1
            elif cmd == C_CW:
                o = tab[crot + (rot + 5) % 6]
            else:
                o = tab[crot + (rot + 1) % 6]
            if r < top_row or not fits(board, tab, u, q, r, o):
                continue
            nid = position_id(tab, u, q, r, o)
            if work[nid] != 0:
                continue
            work[nid] = d
            work[npos + tail] = nid
            tail += 1
    return tail


def row_reachable(board, tab, u, pq, pr, rot, visited, n_visited, tq, tr, trot, dist, marks, queue):
    """True when unit ``u`` can go legally from ``(pq, pr, rot)`` to the target ``(tq, tr, trot)``: a walk along its
    row (E, W, CW, CCW) avoiding the positions ``visited[:n_visited]`` (ids: the row's positions visited so far)
    and those it passes, then (unless the target is in the row) a downward move onto a position from which the
    target is reachable at all (``dist[id] > 0``, from :func:`reverse_distances`).  A fresh row is never a repeat,
    and the reverse search's shortest paths never repeat a position, so this test is exact.

    ``marks`` (``n_positions + 1`` words, the last a call counter) and ``queue`` (``n_positions``) are scratch.
    Used by the phrase weaver (``phrases.py``) before it commits to a phrase."""
    npos = tab[H_NPOS]
    border = tab[H_BORDER]
    crot = tab[H_CROT] + u * 6
    target = position_id(tab, u, tq, tr, trot)
    start = position_id(tab, u, pq, pr, rot)
    if start == target:
        return True
    stamp = marks[npos] + 1
    marks[npos] = stamp
    marks[start] = stamp
    queue[0] = start
    head = 0
    tail = 1
    while head < tail:
        pid = queue[head]
        head += 1
        q, r, o = position_of(tab, pid)
        for cmd in range(6):
            nq, nr, no = moved(q, r, o, cmd)
            px = nq + (nr >> 1) + border
            if px < 0 or px >= tab[H_NSLOTS] or nr + border < 0 or nr + border >= tab[H_NROWS]:
                continue  # no valid position lies there
            nid = position_id(tab, u, nq, nr, tab[crot + no])
            if cmd == C_SW or cmd == C_SE:
                if dist[nid] > 0:
                    return True
                continue
            seen = False
            for k in range(n_visited):
                if visited[k] == nid:
                    seen = True
                    break
            if seen:
                continue
            if nid == target:
                return True
            if marks[nid] == stamp or dist[nid] <= 0 or not fits(board, tab, u, nq, nr, tab[crot + no]):
                continue
            marks[nid] = stamp
            queue[tail] = nid
            tail += 1
    return False
