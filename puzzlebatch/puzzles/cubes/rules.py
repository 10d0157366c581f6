"""Connector-cube rules for the batch DFS (plain functions in the numba subset; compiled for CPU and CUDA).

The node at ``depth`` has ``depth`` cells filled.  Before a node is searched its branching cell is chosen (see
:func:`select`: by default the most constrained cell, judged by the length of its candidate list).  Its moves are
the entries of a candidate list read from a table keyed by the connector values its filled neighbours require:
the list of placements showing the required values on two of its constrained faces (or one, or every placement),
so a cell's candidates come from a lookup, not a scan; ``apply`` checks the remaining faces and that the cube is
still unused.  With ``ORDER_EXACT`` a move that leaves some empty cell with no fitting placement is refused
(forward checking).

A placement is ``cube * 24 + rotation`` (cube = index in the cube set).

State (int64 vector, :mod:`puzzlebatch.puzzles.cubes.encode`): ``used[n_cubes]`` (0/1), ``pl[n_cells]``
(placement per cell, -1 empty), ``req[n_cells * 6]`` (the value each face of each cell must show, 0 where no
filled neighbour, kept up to date by :func:`place` / :func:`unplace`), then per depth ``0..n_cells``:
``sel_cell``, ``sel_off`` (absolute start of the candidate list in ``tables``) and ``sel_len``.

Tables (flat int64): a header (see ``H_*``), the neighbour of each cell in each face direction (-1 outside), the
face values of every placement (``n_cubes * 24 * 6``), the list of all placements, and two CSR lists: placements
by (direction, value) and by (direction pair, value pair).
"""

N_ROT = 24
BIG = 1 << 40

# The branching-cell choice stays out of line when the rest is inlined into the per-item DFS (see
# puzzlebatch.jit.unit): inlining it cost most of the compile time and bought no measurable speed.
NOT_INLINED = ("select",)

H_CELLS = 0
H_CUBES = 1
H_NBR = 2
H_FACES = 3
H_ALL = 4
H_SINGLE_START = 5
H_SINGLE = 6
H_PAIR_START = 7
H_PAIR = 8
H_ORDER = 9  # branching cell: ORDER_LOOKUP, ORDER_EXACT or ORDER_FIXED
ORDER_LOOKUP = 0
ORDER_EXACT = 1
ORDER_FIXED = 2
HEADER = 16


def value_index(v):
    """Connector value -4..-1, 1..4 -> 0..7."""
    if v < 0:
        return v + 4
    return v + 3


def opposite(d):
    """The face direction opposite ``d`` (face order -Y, +Z, +X, -Z, -X, +Y)."""
    if d == 0:
        return 5
    if d == 5:
        return 0
    return (d + 1) % 4 + 1


def face_value(pl, d, tables):
    return tables[tables[H_FACES] + pl * 6 + d]


def required(state, cell, d, tables):
    """The value cell ``cell`` must show in direction ``d`` (0: no filled neighbour there)."""
    return state[tables[H_CUBES] + tables[H_CELLS] + cell * 6 + d]


def place(state, cell, pl, tables):
    """Put placement ``pl`` in ``cell``: mark its cube used and tell each neighbour what it must show."""
    n_cubes = tables[H_CUBES]
    n_cells = tables[H_CELLS]
    req = n_cubes + n_cells
    state[pl // N_ROT] = 1
    state[n_cubes + cell] = pl
    for d in range(6):
        nb = tables[tables[H_NBR] + cell * 6 + d]
        if nb >= 0:
            state[req + nb * 6 + opposite(d)] = -face_value(pl, d, tables)


def unplace(state, cell, tables):
    """Undo :func:`place` for ``cell``."""
    n_cubes = tables[H_CUBES]
    n_cells = tables[H_CELLS]
    req = n_cubes + n_cells
    pl = state[n_cubes + cell]
    state[pl // N_ROT] = 0
    state[n_cubes + cell] = -1
    for d in range(6):
        nb = tables[tables[H_NBR] + cell * 6 + d]
        if nb >= 0:
            state[req + nb * 6 + opposite(d)] = 0


def fits(state, cell, pl, tables):
    """True when placement ``pl`` in ``cell`` uses a free cube and matches every filled neighbour."""
    if state[pl // N_ROT] != 0:
        return False
    for d in range(6):
        r = required(state, cell, d, tables)
        if r != 0 and face_value(pl, d, tables) != r:
            return False
    return True


def single_key(d, v):
    return d * 8 + value_index(v)


def pair_key(da, va, db, vb):
    return (da * 6 + db) * 64 + value_index(va) * 8 + value_index(vb)


def candidates(state, cell, tables):
    """(start, length) in ``tables`` of the shortest candidate list for ``cell``."""
    best_off = tables[H_ALL]
    best_len = tables[H_CUBES] * N_ROT
    for da in range(6):
        va = required(state, cell, da, tables)
        if va == 0:
            continue
        k = single_key(da, va)
        s = tables[H_SINGLE_START]
        lo = tables[s + k]
        ln = tables[s + k + 1] - lo
        if ln < best_len:
            best_off = tables[H_SINGLE] + lo
            best_len = ln
        for db in range(da + 1, 6):
            vb = required(state, cell, db, tables)
            if vb == 0:
                continue
            k = pair_key(da, va, db, vb)
            s = tables[H_PAIR_START]
            lo = tables[s + k]
            ln = tables[s + k + 1] - lo
            if ln < best_len:
                best_off = tables[H_PAIR] + lo
                best_len = ln
    return best_off, best_len


def touches_filled(state, cell, tables):
    req = tables[H_CUBES] + tables[H_CELLS] + cell * 6
    for d in range(6):
        if state[req + d] != 0:
            return True
    return False


def select(state, depth, tables):
    """Choose the branching cell of the node at ``depth``; False when the node is a dead end.

    ``tables[H_ORDER]`` picks the rule:

    * ``ORDER_LOOKUP`` (default): among the empty cells touching a filled one, the cell whose candidate list (a
      table lookup keyed by the values its neighbours require) is shortest; the first empty cell when none
      touches a filled one.
    * ``ORDER_EXACT``: the empty cell with the fewest *fitting* placements (the list scanned, used cubes and every
      face checked), and forward checking: False as soon as some empty cell has none.  Fewer nodes, dearer nodes.
    * ``ORDER_FIXED``: the first empty cell in index order (z, then y, then x), no look-ahead.
    """
    n_cells = tables[H_CELLS]
    n_cubes = tables[H_CUBES]
    sel = n_cubes + 7 * n_cells
    stride = n_cells + 1
    if tables[H_ORDER] == ORDER_FIXED:
        for cell in range(n_cells):
            if state[n_cubes + cell] < 0:
                off, ln = candidates(state, cell, tables)
                state[sel + depth] = cell
                state[sel + stride + depth] = off
                state[sel + 2 * stride + depth] = ln
                return True
        return False
    if tables[H_ORDER] == ORDER_LOOKUP:
        best_cell = -1
        best_len = BIG
        best_off = 0
        for cell in range(n_cells):
            if state[n_cubes + cell] < 0 and (best_cell < 0 or touches_filled(state, cell, tables)):
                off, ln = candidates(state, cell, tables)
                if ln < best_len:
                    best_cell = cell
                    best_len = ln
                    best_off = off
        state[sel + depth] = best_cell
        state[sel + stride + depth] = best_off
        state[sel + 2 * stride + depth] = best_len
        return best_cell >= 0
    # Pass 1: the shortest candidate list bounds the best count, so pass 2 can stop scanning a cell early.
    bound = BIG
    first_empty = -1
    for cell in range(n_cells):
        if state[n_cubes + cell] >= 0:
            continue
        if first_empty < 0:
            first_empty = cell
        if touches_filled(state, cell, tables):
            off, ln = candidates(state, cell, tables)
            if ln < bound:
                bound = ln
    best_cell = -1
    best_count = bound + 1
    best_off = 0
    best_len = 0
    if bound < BIG:
        for cell in range(first_empty, n_cells):
            if state[n_cubes + cell] >= 0 or not touches_filled(state, cell, tables):
                continue
            off, ln = candidates(state, cell, tables)
            count = 0
            for i in range(ln):
                if fits(state, cell, tables[off + i], tables):
                    count += 1
                    if count >= best_count:
                        break
            if count == 0:
                return False
            if count < best_count:
                best_cell = cell
                best_count = count
                best_off = off
                best_len = ln
    if best_cell < 0:
        best_cell = first_empty
        best_off = tables[H_ALL]
        best_len = n_cubes * N_ROT
    state[sel + depth] = best_cell
    state[sel + stride + depth] = best_off
    state[sel + 2 * stride + depth] = best_len
    return True


def n_choices(state, depth, tables):
    n_cells = tables[H_CELLS]
    if depth >= n_cells:
        return 0
    return state[tables[H_CUBES] + 7 * n_cells + 2 * (n_cells + 1) + depth]


def apply(state, depth, choice, tables):
    n_cells = tables[H_CELLS]
    sel = tables[H_CUBES] + 7 * n_cells
    stride = n_cells + 1
    cell = state[sel + depth]
    pl = tables[state[sel + stride + depth] + choice]
    if not fits(state, cell, pl, tables):
        return False
    if depth + 1 == n_cells:
        # The last cell: nothing is selected after it, so its neighbours' requirements need no update (a leaf
        # costs a check and two writes; counts are mostly leaves).
        state[pl // N_ROT] = 1
        state[tables[H_CUBES] + cell] = pl
        return True
    place(state, cell, pl, tables)
    if not select(state, depth + 1, tables):
        unplace(state, cell, tables)
        return False
    return True


def undo(state, depth, choice, tables):
    n_cells = tables[H_CELLS]
    n_cubes = tables[H_CUBES]
    cell = state[n_cubes + 7 * n_cells + depth]
    if depth + 1 == n_cells:
        pl = state[n_cubes + cell]
        state[pl // N_ROT] = 0
        state[n_cubes + cell] = -1
        return
    unplace(state, cell, tables)
