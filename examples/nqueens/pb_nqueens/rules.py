"""N-queens rules for puzzlebatch's batch DFS: a bitboard, one row per depth (the contract of
:mod:`puzzlebatch.puzzles.search`; plain functions in the numba subset, compiled for the CPU and for CUDA).

The node at ``depth`` d < n has queens on rows 0..d-1; its moves are the columns 0..n-1 of row d.  A move is legal
when no queen attacks its square: not its column, not its diagonal, not its anti-diagonal.

Symmetry (``tables[T_SYM]`` = 1): the mirror image of a solution (column c -> n-1-c) is a solution, and exactly
one of the two has its row-0 queen in the left half, unless that queen is in the middle column of an odd board.
So row 0 only offers the left half (and the middle column: ``tables[T_FIRST]`` choices), and the tree gets one
more level: the node at depth n (a solution of the left half) has one move per solution it stands for, "as is"
(0) or "mirrored" (1; only where the row-0 queen is in the left half).  Every solution of the board is then exactly
one leaf at depth ``n + 1`` (the goal), which a count counts and a ``solve`` reports (:func:`pb_nqueens.solution`
mirrors the second one), whatever the mode: no weights outside the tree.  Without symmetry the last level has one
move.

State (int64): ``state[S_MIRROR]`` is the move taken at depth n (0 or 1), then one word per depth d = 0..n, at
``S_ROWS + d``: row d's board, three masks of n <= 20 bits packed as ``cols | ld << 20 | rd << 40`` -- the columns
taken by rows 0..d-1, and the squares of row d on the diagonals and on the anti-diagonals of their queens.  A move
writes the child's word from the parent's and leaves the parent's untouched, so ``undo`` has nothing to do (except
at the mirror level), and the queen of row d is the one bit of ``cols`` that differs between words d and d + 1.

Tables (int64): ``[n, mask, sym, leaf, first]``: ``mask`` = (1 << n) - 1; ``leaf`` the depth where
:func:`leaf_count` counts instead of searching (n - 3, n - 2, n - 1, or n + 1: never; at least 1, where the row-0
queen is known); ``first`` the choices of row 0.

How the rules are written, for speed: every rule reads what it needs from ``state`` and ``tables`` first, in
straight-line code, and branches only on the scalars it read; ``apply`` writes unconditionally (its old value
where the move changes nothing: :func:`pick`).  Compiled on the CPU, numba keeps a reference count on every
array a rule is given (an atomic increment and decrement, each a call, at each inlined call site), and LLVM's
pruning of those pairs fails as soon as an array is used on both sides of a branch in the rule: written the plain
way (early returns, ``if legal: write``), the same rules searched 6-7x fewer nodes per second (7 million instead
of 45 million on one core of the bench machine).  On CUDA there are no reference counts; the rules are the same.
"""

T_N = 0
T_MASK = 1
T_SYM = 2
T_LEAF = 3
T_FIRST = 4
T_WIDTH = 5

S_MIRROR = 0
S_ROWS = 1
LD = 20  # bit offset of the diagonal mask in a row's word
RD = 40  # bit offset of the anti-diagonal mask
LOW = (1 << 20) - 1


def popcount(x):
    """Set bits of a non-negative int64 (SWAR).  On the CPU, LLVM turns this form into one ``popcnt``, and
    ``popcount((x & -x) - 1)`` into one ``tzcnt``; the 32-bit form of the same sum is not recognized (12% fewer
    nodes per second).  The multiply wraps: numpy warns about it in the CUDA simulator, the result is right."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF


def pick(flag, new, old):
    """``new`` where ``flag`` is 1, ``old`` where it is 0 (an int), without a branch."""
    return old ^ ((old ^ new) & -flag)


def free_of(word, mask):
    """The free squares of a row's word."""
    return ~(word | (word >> LD) | (word >> RD)) & mask


def weight(n, sym, row1):
    """How many solutions of the board a solution of the searched tree stands for (1 or 2): 2 with symmetry when
    the row-0 queen (the one column of ``row1``, the word of depth 1) is in the left half."""
    if sym != 0 and 2 * popcount((row1 & LOW) - 1) < n - 1:
        return 2
    return 1


def n_choices(state, depth, tables):
    n = tables[T_N]
    sym = tables[T_SYM]
    first = tables[T_FIRST]
    row1 = state[S_ROWS + 1]
    if depth == 0:
        return first
    if depth < n:
        return n
    if depth == n:
        return weight(n, sym, row1)
    return 0


def next_choice(state, depth, c, n, tables):
    """The lowest free column >= c of the row (``n`` when none is); every choice at the mirror level."""
    rows = tables[T_N]
    mask = tables[T_MASK]
    word = state[S_ROWS + min(depth, rows)]
    if depth >= rows:
        return c
    free = free_of(word, mask) >> c
    if free == 0:
        return n
    return min(c + popcount((free & -free) - 1), n)


def apply(state, depth, choice, tables):
    """A queen on column ``choice`` of row ``depth`` (the child's word written), or at depth n the mirror move.
    Both words are written whatever happens, with their old values where the move changes nothing."""
    n = tables[T_N]
    mask = tables[T_MASK]
    board = int(depth < n)
    r = S_ROWS + min(depth, n - 1)  # at the mirror level: row n-1's word, its child written back unchanged
    word = state[r]
    child = state[r + 1]
    mirror = state[S_MIRROR]
    legal = (free_of(word, mask) >> choice) & 1
    bit = 1 << choice
    cols = (word | bit) & mask
    ld = (((word >> LD) | bit) << 1) & mask
    rd = (((word >> RD) & mask) | bit) >> 1
    state[r + 1] = pick(legal & board, cols | (ld << LD) | (rd << RD), child)
    state[S_MIRROR] = pick(1 - board, choice, mirror)
    return (legal | (1 - board)) != 0


def undo(state, depth, choice, tables):
    """Nothing to do on the board (the parent's word is intact); the mirror flag back to 0 at depth n."""
    n = tables[T_N]
    mirror = state[S_MIRROR]
    state[S_MIRROR] = pick(int(depth < n), mirror, 0)


def last_two(cols, ld, rd, mask):
    """Ways to fill the last two rows of the board from the masks of the first of them: each of its (at most
    two) free squares, and then the one column left on the last row."""
    free = ~(cols | ld | rd) & mask
    k = 0
    while free != 0:
        bit = free & -free
        free = free ^ bit
        if ~((cols | bit) | (((ld | bit) << 1) & mask) | ((rd | bit) >> 1)) & mask != 0:
            k += 1
    return k


def leaf_count(state, depth, tables):
    """At depth ``tables[T_LEAF]`` (n - 3, n - 2 or n - 1; at least 1): the solutions below, counted from the
    masks; -1 elsewhere.

    One row left: one solution when its square is free.  Two rows: :func:`last_two`.  Three rows: each free square
    of the first, then :func:`last_two` (at most 3 x 2 mask tests).  Every completion counts ``weight`` times.
    """
    n = tables[T_N]
    mask = tables[T_MASK]
    leaf = tables[T_LEAF]
    sym = tables[T_SYM]
    row1 = state[S_ROWS + 1]
    word = state[S_ROWS + min(depth, n)]
    if depth != leaf:
        return -1
    w = weight(n, sym, row1)
    cols = word & mask
    ld = (word >> LD) & mask
    rd = (word >> RD) & mask
    left = n - depth
    if left == 1:
        if ~(cols | ld | rd) & mask == 0:
            return 0
        return w
    if left == 2:
        return last_two(cols, ld, rd, mask) * w
    free = ~(cols | ld | rd) & mask
    k = 0
    while free != 0:
        bit = free & -free
        free = free ^ bit
        k += last_two(cols | bit, ((ld | bit) << 1) & mask, (rd | bit) >> 1, mask)
    return k * w
