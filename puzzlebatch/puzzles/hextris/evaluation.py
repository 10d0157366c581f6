"""The hex board evaluation in the numba subset: compiled with ``rules.py`` in one unit (CPU njit and CUDA device
functions), calling its rules by their plain names.

:func:`board_eval` gives a board's features (``B_*``): holes that no unit can reach (a flood fill from the top row
with the moves E, W, SE, SW), covered cells, wells, row and down transitions, mass, the rows that hold a hole, how
far rows are part full, height and danger in the spawn zone.  :func:`evaluate_placements` lists every position
where the current unit can lock, once per distinct set of
cells, each with the move points of the lock, its placement features (``rules.F_*``) and the features of the board
it leaves (``C_*``): the candidate placements of a beam, evaluated in one kernel call.  All arithmetic on int64,
no allocation; results written into the caller's arrays.
"""

from puzzlebatch.puzzles.hextris.rules import (  # constants, and the rules called by name
    END_IN_PROGRESS, H_HEIGHT, H_NPOS, H_NW, H_SHAPE, H_SIZE, H_SPAWN_X0, H_SPAWN_X1, H_WIDTH, H_ZONE,
    N_FEATURES, S_END, S_UNIT, bfs_positions, clear_full_rows, lock_command, lock_points, member_cell,
    placement_features, position_of)

# board evaluation features (hex geometry; ``board_eval``); a cell is "reachable" when a one-cell unit could get
# there from the top row through empty cells with the moves E, W, SE and SW (no command moves up)
B_HOLES = 0  # empty cells that are not reachable
B_COVERED = 1  # reachable empty cells under a full cell (one of their two upper neighbours, NW or NE, is full)
B_WELLS = 2  # reachable empty cells whose two side neighbours (W and E) are full or walls: one cell wide
B_ROW_TRANS = 3  # full/empty changes along each row, walls counted full
B_DOWN_TRANS = 4  # full/empty changes from each cell to its two lower neighbours (SW, SE); the floor counts full
B_MASS = 5  # the full cells' heights above the floor, summed (a row cleared lowers every cell above it by one)
B_HOLE_ROWS = 6  # rows with at least one hole: a row that holds a hole can never be completed while the hole lasts
B_PARTIAL = 7  # rows part full: k * (w - k) summed over the rows (k full cells of w), 0 for an empty or a full row;
#                one cell more in a row of k adds w - 2k - 1, so a cell put in a row more than half full lowers it
B_HEIGHT = 8  # rows from the highest full cell down to the floor (0: empty board)
B_DANGER = 9  # how far full cells reach into the spawn zone: zone rows minus the free rows above them (>= 0)
N_BOARD = 10
N_ROW_FEATURES = 8  # B_HOLES .. B_PARTIAL: sums over the rows
# candidate features (``evaluate_placements``): the lock's move points, the placement features (F_*), then the
# features of the board after the lock and its line clears (B_*)
C_POINTS = 0
C_PLACE = 1  # F_* at C_PLACE + F_*
C_BOARD = C_PLACE + N_FEATURES  # B_* at C_BOARD + B_*
N_CAND = C_BOARD + N_BOARD


def bit_mask(k):
    """The int64 with bit ``k`` (0..63) set; bit 63 is the sign bit, written so that plain Python and the CUDA
    simulator (Python integers stored into int64 arrays) get the same int64 value as compiled code."""
    if k == 63:
        return -(1 << 62) * 2
    return 1 << k


def _bit(words, base, x):
    """Bit ``x`` of the bitset ``words[base:]``."""
    return (words[base + (x >> 6)] >> (x & 63)) & 1


def eval_row(board, tab, y, reach, rprev, rcur, acc):
    """Row ``y`` of the evaluation: its reachable cells into ``reach[rcur:rcur + words_per_row]`` from those of row
    ``y - 1`` at ``reach[rprev:]`` (``rprev < 0``: every empty cell of the row is reached from above), and its
    contributions to the first ``N_ROW_FEATURES`` board features (the sums over rows) added to ``acc``.

    A cell of row ``y`` is reached from row ``y - 1`` through the moves SE and SW (from an even row, cells ``x`` and
    ``x + 1`` lead to ``x``; from an odd row, ``x - 1`` and ``x``), then along the empty runs of its own row (E, W)
    in both directions.
    """
    w = tab[H_WIDTH]
    h = tab[H_HEIGHT]
    nw = tab[H_NW]
    rb = y * nw
    odd = y & 1
    for k in range(nw):
        reach[rcur + k] = 0
    run = False
    prev = 1  # the west wall
    full = 0
    for x in range(w):  # reached from above, or from the west along the row; row transitions
        f = _bit(board, rb, x)
        if f != prev:
            acc[B_ROW_TRANS] += 1
        prev = f
        if f != 0:
            run = False
            acc[B_MASS] += h - y
            full += 1
            continue
        seed = rprev < 0
        if not seed:
            if odd == 1:  # the row above is even
                seed = _bit(reach, rprev, x) != 0 or (x + 1 < w and _bit(reach, rprev, x + 1) != 0)
            else:
                seed = _bit(reach, rprev, x) != 0 or (x > 0 and _bit(reach, rprev, x - 1) != 0)
        if seed or run:
            run = True
            reach[rcur + (x >> 6)] |= bit_mask(x & 63)
    if prev != 1:  # the east wall
        acc[B_ROW_TRANS] += 1
    run = False
    for x in range(w - 1, -1, -1):  # from the east
        if _bit(board, rb, x) != 0:
            run = False
        elif _bit(reach, rcur, x) != 0:
            run = True
        elif run:
            reach[rcur + (x >> 6)] |= bit_mask(x & 63)
    hole_row = 0
    for x in range(w):
        f = _bit(board, rb, x)
        for d in range(2):  # the lower neighbours SW, SE (the floor is full; no wall below the board)
            nx = x - 1 + odd + d
            if nx >= 0 and nx < w:
                g = 1
                if y + 1 < h:
                    g = _bit(board, rb + nw, nx)
                if g != f:
                    acc[B_DOWN_TRANS] += 1
        if f != 0:
            continue
        if _bit(reach, rcur, x) == 0:
            acc[B_HOLES] += 1
            hole_row = 1
            continue
        if y > 0:
            for d in range(2):  # the upper neighbours NW, NE (inside the board)
                nx = x - 1 + odd + d
                if nx >= 0 and nx < w and _bit(board, rb - nw, nx) != 0:
                    acc[B_COVERED] += 1
                    break
        if (x == 0 or _bit(board, rb, x - 1) != 0) and (x + 1 == w or _bit(board, rb, x + 1) != 0):
            acc[B_WELLS] += 1
    acc[B_HOLE_ROWS] += hole_row
    acc[B_PARTIAL] += full * (w - full)


def board_top(board, tab):
    """The first row with a full cell (the height if none)."""
    nw = tab[H_NW]
    for y in range(tab[H_HEIGHT]):
        for k in range(nw):
            if board[y * nw + k] != 0:
                return y
    return tab[H_HEIGHT]


def spawn_clear(board, tab):
    """The first row of the spawn zone with a full cell in the zone's columns (the zone's rows if none)."""
    zone = tab[H_ZONE]
    if zone > tab[H_HEIGHT]:
        zone = tab[H_HEIGHT]
    for y in range(zone):
        for x in range(tab[H_SPAWN_X0], tab[H_SPAWN_X1] + 1):
            if _bit(board, y * tab[H_NW], x) != 0:
                return y
    return tab[H_ZONE]


def board_eval(board, tab, feats, reach):
    """Fill ``feats[:N_BOARD]`` with the board's features (``B_*``); ``reach`` is scratch, ``2 * words_per_row``.

    Rows are evaluated by :func:`eval_row`, top down; the rows above the highest full cell but one are empty and
    every cell of them is reached: they add only their two row transitions (the walls) each.
    """
    h = tab[H_HEIGHT]
    nw = tab[H_NW]
    for k in range(N_BOARD):
        feats[k] = 0
    top = board_top(board, tab)
    start = top - 1
    if top == 0:
        start = 0
    if top == h:
        start = h - 1
    feats[B_ROW_TRANS] = 2 * start
    for y in range(start, h):
        cur = (y & 1) * nw
        rprev = nw - cur
        if y == start:
            rprev = -1
        eval_row(board, tab, y, reach, rprev, cur, feats)
    feats[B_HEIGHT] = h - top
    feats[B_DANGER] = tab[H_ZONE] - spawn_clear(board, tab)


def eval_scratch_len(tab):
    """Scratch words :func:`evaluate_placements` needs: a board, two rows of the flood fill, one bit per lock key,
    the reachable cells of every row of the board before the lock and its row features' prefix sums."""
    h = tab[H_HEIGHT]
    return (2 * h + 2) * tab[H_NW] + (h * tab[H_WIDTH] * 6 + 63) // 64 + (h + 1) * N_ROW_FEATURES


def evaluate_placements(state, board, vis, tab, work, scratch, out, feats, cap):
    """Every position where the current unit can lock, in BFS order (as :func:`lockable_positions`), each with its
    candidate features ``feats[k, :N_CAND]``: the move points of the lock (``C_POINTS``), the placement features
    (``C_PLACE + F_*``) and the features of the board after the lock and its line clears (``C_BOARD + B_*``).

    Positions that lock the same cells (a pivot outside the unit turned about, a symmetric shape) are listed once,
    at the first of them in BFS order: the key of a lock is its top-left member and its shape class.

    The board before the lock is evaluated once, row by row (:func:`eval_row`); a lock that clears no row changes
    rows ``top - 1`` .. ``bottom + 1`` of it and, below them, only the rows whose reachable cells change: those are
    evaluated again and the others' features taken from the first evaluation (the same sums as
    :func:`board_eval`).  A lock that clears rows is evaluated whole.

    ``scratch`` holds ``eval_scratch_len(tab)`` words (the board copy, the flood fill, the keys seen, the first
    evaluation).  Returns how many positions there are (0 once the game has ended); the game is not changed."""
    if state[S_END] != END_IN_PROGRESS:
        return 0
    n = bfs_positions(state, board, vis, tab, work)
    npos = tab[H_NPOS]
    w = tab[H_WIDTH]
    h = tab[H_HEIGHT]
    nw = tab[H_NW]
    nr = N_ROW_FEATURES
    nb = h * nw
    o_reach = nb  # two rows of the flood fill
    o_seen = nb + 2 * nw  # one bit per lock key
    o_rows = o_seen + (h * w * 6 + 63) // 64  # the board's reachable cells, row by row
    o_pre = o_rows + h * nw  # prefix sums of its row features: rows 0 .. y - 1 at o_pre + y * nr
    for j in range(o_seen, o_rows):
        scratch[j] = 0
    for j in range(nr):
        scratch[o_pre + j] = 0
    for y in range(h):
        a = o_pre + (y + 1) * nr
        for j in range(nr):
            scratch[a + j] = scratch[a - nr + j]
        rprev = o_rows + (y - 1) * nw
        if y == 0:
            rprev = -1
        eval_row(board, tab, y, scratch, rprev, o_rows + y * nw, scratch[a:a + nr])
    top0 = board_top(board, tab)
    clear0 = spawn_clear(board, tab)
    x0 = tab[H_SPAWN_X0]
    x1 = tab[H_SPAWN_X1]
    u = state[S_UNIT]
    size = tab[tab[H_SIZE] + u]
    k = 0
    for i in range(n):
        pid = work[npos + i]
        pq, pr, rot = position_of(tab, pid)
        if lock_command(board, tab, u, pq, pr, rot) < 0:
            continue
        first = h * w
        for m in range(size):
            x, y = member_cell(tab, u, rot, m, pq, pr)
            if y * w + x < first:
                first = y * w + x
        key = first * 6 + tab[tab[H_SHAPE] + u * 6 + rot]
        if _bit(scratch, o_seen, key) != 0:
            continue
        scratch[o_seen + (key >> 6)] |= bit_mask(key & 63)
        if k < cap:
            out[k, 0] = pq + (pr >> 1)
            out[k, 1] = pr
            out[k, 2] = rot
            f = feats[k]
            placement_features(board, tab, u, pq, pr, rot, f[C_PLACE:])
            for j in range(nb):
                scratch[j] = board[j]
            lt = h
            lb = 0
            clear = clear0
            for m in range(size):
                x, y = member_cell(tab, u, rot, m, pq, pr)
                scratch[y * nw + (x >> 6)] |= bit_mask(x & 63)
                if y < lt:
                    lt = y
                if y > lb:
                    lb = y
                if y < clear and x0 <= x and x <= x1:
                    clear = y
            lines = clear_full_rows(scratch, tab)
            f[C_POINTS] = lock_points(tab, state, u, lines)
            fb = f[C_BOARD:]
            if lines > 0:
                board_eval(scratch, tab, fb, scratch[o_reach:o_reach + 2 * nw])
            else:
                s = lt - 1
                if s < 0:
                    s = 0
                for j in range(nr):
                    fb[j] = scratch[o_pre + s * nr + j]
                for y in range(s, h):
                    cur = o_reach + (y & 1) * nw
                    rprev = o_reach + nw - (y & 1) * nw
                    if y == s:
                        rprev = o_rows + (s - 1) * nw
                        if s == 0:
                            rprev = -1
                    elif y >= lb + 2:
                        # rows y - 1 .. y + 1 are those of the board before the lock: if row y - 1's reachable
                        # cells are too, every row from y on adds what it added there
                        same = True
                        for j in range(nw):
                            if scratch[rprev + j] != scratch[o_rows + (y - 1) * nw + j]:
                                same = False
                                break
                        if same:
                            for j in range(nr):
                                fb[j] += scratch[o_pre + h * nr + j] - scratch[o_pre + y * nr + j]
                            break
                    eval_row(scratch, tab, y, scratch, rprev, cur, fb)
                top = top0
                if lt < top:
                    top = lt
                fb[B_HEIGHT] = h - top
                fb[B_DANGER] = tab[H_ZONE] - clear
        k += 1
    return k
