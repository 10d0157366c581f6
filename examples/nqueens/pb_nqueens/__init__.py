"""N-queens as a puzzlebatch family: count (or find) the ways to put n queens on an n x n board, none attacking
another, with the framework's batch DFS on the CPU or on CUDA.

The per-item rules are in :mod:`pb_nqueens.rules` (a bitboard, one row per depth); this module turns a board size
into a :class:`~puzzlebatch.runners.engine.search.SearchProblem` and back, and declares the family (``FAMILY``,
found through the entry point of ``pyproject.toml``)::

    pip install -e examples/nqueens
    puzzlebatch nqueens count 8

or, from Python::

    from pb_nqueens import problem
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.search import BatchDFS

    totals, _ = BatchDFS(problem(8), select_backend("cpu")).count()
    totals.count  # 92
"""

from __future__ import annotations

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.runners.engine.search import SearchProblem

from pb_nqueens import rules

MAX_N = 20  # a row's three masks of n bits share one int64 word (rules.py); Q(20) = 39,029,188,884 takes hours

__all__ = ["MAX_N", "problem", "solution", "check", "tables", "root_state", "state_width"]


def _size(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise PuzzleInputError(f"n = {n!r}: the board size must be an integer from 1 to {MAX_N}")
    if not 1 <= int(n) <= MAX_N:
        raise PuzzleInputError(f"n = {n}: the board size must be from 1 to {MAX_N}")
    return int(n)


def state_width(n: int) -> int:
    """Words of a state: the mirror flag, then one word per depth 0..n."""
    return rules.S_ROWS + n + 1


LEAVES = ("n-3", "n-2", "n-1", "none")


def tables(n: int, symmetry: bool = True, leaf: str = "n-3") -> np.ndarray:
    """The rules' tables ``[n, mask, sym, leaf depth, row-0 choices]``.

    ``leaf``: where :func:`pb_nqueens.rules.leaf_count` counts the last rows from the masks instead of searching
    them: ``"n-3"`` (default; the fastest, ``bench/nqueens.py``), ``"n-2"``, ``"n-1"`` or ``"none"`` (search to the
    goal).  A depth below 1 means none (the row-0 queen is not known yet).
    With symmetry, row 0 offers only the left half of the columns (and the middle one).
    """
    n = _size(n)
    if leaf not in LEAVES:
        raise PuzzleInputError(f"leaf = {leaf!r}: expected one of {', '.join(LEAVES)}")
    depth = {"n-3": n - 3, "n-2": n - 2, "n-1": n - 1, "none": n + 1}[leaf]
    t = np.zeros(rules.T_WIDTH, np.int64)
    t[rules.T_N] = n
    t[rules.T_MASK] = (1 << n) - 1
    t[rules.T_SYM] = int(bool(symmetry))
    t[rules.T_LEAF] = depth if depth >= 1 else n + 1
    t[rules.T_FIRST] = (n + 1) // 2 if symmetry else n
    return t


def root_state(n: int) -> np.ndarray:
    """The empty board."""
    return np.zeros(state_width(_size(n)), np.int64)


def problem(n: int, symmetry: bool = True, leaf: str = "n-3") -> SearchProblem:
    """The search problem of the n x n board: every solution is one leaf at the goal depth ``n + 1`` (the last
    level says whether the left-half solution is taken as is or mirrored: see :mod:`pb_nqueens.rules`).

    Raises
    ------
    PuzzleInputError
        ``n`` is not an integer from 1 to :data:`MAX_N`.
    """
    n = _size(n)
    return SearchProblem(rules=rules, tables=tables(n, symmetry, leaf), root=root_state(n), goal=n + 1)


def solution(state, n: int) -> list[int]:
    """The column of the queen on each row (row 0 first) of a solution's state (mirrored when its last move was)."""
    n = _size(n)
    state = np.asarray(state, np.int64)
    cols = [int(state[rules.S_ROWS + row]) & rules.LOW for row in range(n + 1)]
    queens = [(cols[row + 1] ^ cols[row]).bit_length() - 1 for row in range(n)]
    if state[rules.S_MIRROR]:
        queens = [n - 1 - c for c in queens]
    return queens


def check(solution, n: int) -> bool:
    """True when ``solution`` (a column per row) puts n queens on the n x n board, no two attacking."""
    n = _size(n)
    try:
        cols = [int(c) for c in solution]
    except (TypeError, ValueError):
        return False
    if len(cols) != n or any(not 0 <= c < n for c in cols):
        return False
    return all(cols[i] != cols[j] and abs(cols[i] - cols[j]) != j - i
               for i in range(n) for j in range(i + 1, n))


# -- the family descriptor (puzzlebatch.registry) ---------------------------------------------------------------
from puzzlebatch.registry import Family, Param, SearchSpec  # noqa: E402

FAMILY = Family(
    name="nqueens",
    help="N-queens: place n queens on an n x n board, none attacking another (an example user family)",
    search=SearchSpec(params=(Param("n", int, "board size"),), problem=problem, solution=solution, check=check),
)
