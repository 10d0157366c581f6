"""Plain-Python oracle for N-queens: the number of ways to put n queens on an n x n board, none attacking another.

A backtracking search over rows with sets of the columns and diagonals taken, written from the definition (no
package code, no bit tricks, no symmetry), and a brute-force check of a placement.
"""

from __future__ import annotations


def count(n: int) -> int:
    """Q(n), by backtracking row by row."""
    cols: set[int] = set()
    diag: set[int] = set()  # row - col
    anti: set[int] = set()  # row + col

    def place(row: int) -> int:
        if row == n:
            return 1
        found = 0
        for col in range(n):
            if col in cols or row - col in diag or row + col in anti:
                continue
            cols.add(col)
            diag.add(row - col)
            anti.add(row + col)
            found += place(row + 1)
            cols.remove(col)
            diag.remove(row - col)
            anti.remove(row + col)
        return found

    return place(0)


def solutions(n: int) -> list[tuple[int, ...]]:
    """Every solution, as the column of the queen on each row (row 0 first), in lexicographic order."""
    out: list[tuple[int, ...]] = []

    def place(prefix: list[int]) -> None:
        row = len(prefix)
        if row == n:
            out.append(tuple(prefix))
            return
        for col in range(n):
            if valid(prefix + [col]):
                place(prefix + [col])

    place([])
    return out


def valid(cols) -> bool:
    """No two queens of ``cols`` (a column per row) on one column or one diagonal."""
    return all(cols[i] != cols[j] and abs(cols[i] - cols[j]) != j - i
               for i in range(len(cols)) for j in range(i + 1, len(cols)))
