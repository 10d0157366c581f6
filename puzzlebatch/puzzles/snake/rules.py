"""Snake-cube rules for the batch DFS (plain functions in the numba subset; compiled for CPU and CUDA).

The search places cube 0, 1, ..., N-1 of the chain on the cells of a box, in order.  The node at ``depth`` has
``depth`` cubes placed.  Its moves:

* depth 0: the cell of cube 0 (any of the N cells);
* depth 1: the direction from cube 0 to cube 1 (6 directions);
* depth k >= 2: cube k-1 is straight (``F``: 1 move, keep the direction) or a corner (``J``: 4 moves, the four
  directions perpendicular to the one it was entered from).

State (int64 vector, see :mod:`puzzlebatch.puzzles.snake.encode`): occupancy bits, 63 to a word (``n_words``
words), then ``cells[N]`` (the cell of each placed cube), then ``dirs[N]`` (the direction cube k was entered by).

Tables (flat int64): a header ``[n_cells, n_words, off_nbr, off_corner, off_perp]``, the neighbour of each cell
in each direction (-1 outside the box), the corner flag of each cube, and the 4 perpendicular directions of each
direction.
"""

WORD_BITS = 63  # 63, not 64, so that 1 << bit stays a positive int64 in plain Python too

H_CELLS = 0
H_WORDS = 1
H_NBR = 2
H_CORNER = 3
H_PERP = 4


def is_occupied(state, cell):
    w = cell // WORD_BITS
    b = cell - w * WORD_BITS
    return (state[w] >> b) & 1 == 1


def set_occupied(state, cell):
    w = cell // WORD_BITS
    b = cell - w * WORD_BITS
    state[w] = state[w] | (1 << b)


def clear_occupied(state, cell):
    w = cell // WORD_BITS
    b = cell - w * WORD_BITS
    state[w] = state[w] & ~(1 << b)


def free_degree(state, cell, head, tables):
    """Free neighbours of ``cell``, counting the chain's head as free (the path can still enter from it)."""
    nbr = tables[H_NBR] + cell * 6
    k = 0
    for d in range(6):
        m = tables[nbr + d]
        if m >= 0 and (m == head or not is_occupied(state, m)):
            k += 1
    return k


def strands_a_cell(state, prev, head, tables):
    """True when the move that just left ``prev`` makes the box impossible to fill.

    Leaving ``prev`` takes one free neighbour away from each free cell around it.  Such a cell with no free
    neighbour left can never be reached; one with a single free neighbour can only be the chain's last cube,
    so two of them cannot both be served.  (Sound pruning only: no folding is ever cut.)
    """
    nbr = tables[H_NBR] + prev * 6
    ends = 0
    for d in range(6):
        u = tables[nbr + d]
        if u < 0 or u == head or is_occupied(state, u):
            continue
        k = free_degree(state, u, head, tables)
        if k == 0:
            return True
        if k == 1:
            ends += 1
    return ends >= 2


def n_choices(state, depth, tables):
    n = tables[H_CELLS]
    if depth == 0:
        return n
    if depth >= n:
        return 0
    if depth == 1:
        return 6
    if tables[tables[H_CORNER] + depth - 1] != 0:
        return 4
    return 1


def apply(state, depth, choice, tables):
    n = tables[H_CELLS]
    n_words = tables[H_WORDS]
    cells = n_words
    dirs = n_words + n
    if depth == 0:
        set_occupied(state, choice)
        state[cells] = choice
        state[dirs] = -1
        return True
    if depth == 1:
        direction = choice
    elif tables[tables[H_CORNER] + depth - 1] != 0:
        direction = tables[tables[H_PERP] + state[dirs + depth - 1] * 4 + choice]
    else:
        direction = state[dirs + depth - 1]
    nxt = tables[tables[H_NBR] + state[cells + depth - 1] * 6 + direction]
    if nxt < 0 or is_occupied(state, nxt):
        return False
    set_occupied(state, nxt)
    if depth + 1 < n and strands_a_cell(state, state[cells + depth - 1], nxt, tables):
        clear_occupied(state, nxt)
        return False
    state[cells + depth] = nxt
    state[dirs + depth] = direction
    return True


def undo(state, depth, choice, tables):
    cells = tables[H_WORDS]
    clear_occupied(state, state[cells + depth])
