"""The peers of bench/snake.py: straightforward recursive Python DFS counters, as a person would write them.

``document_style`` follows the source document's program: a recursive DFS that appends the next cube, then checks
the whole structure (every cube inside the box, no two on one cell) before going deeper; here it is run from every
start cell and first direction so that it counts every embedding.  ``incremental`` is the tidier version a careful
Python programmer writes: an occupied set and a bounds test on the new cube only.
"""

from __future__ import annotations

UNIT = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]


def _turns(direction):
    return [u for u in UNIT if sum(a * b for a, b in zip(u, direction)) == 0]


def document_style(letters: str, dims: tuple[int, int, int]) -> int:
    a, b, c = dims

    def valid(positions):
        inside = all(0 <= x < a and 0 <= y < b and 0 <= z < c for x, y, z in positions)
        return inside and len(set(positions)) == len(positions)

    def place(rest, direction, positions):
        if not rest:
            return 1
        last = positions[-1]
        positions.append((last[0] + direction[0], last[1] + direction[1], last[2] + direction[2]))
        found = 0
        if valid(positions):
            if rest[0] == "F" or len(rest) == 1:
                found = place(rest[1:], direction, positions)
            else:
                for d in _turns(direction):
                    found += place(rest[1:], d, positions)
        positions.pop()
        return found

    total = 0
    for z in range(c):
        for y in range(b):
            for x in range(a):
                for d in UNIT:
                    total += place(letters[1:], d, [(x, y, z)])
    return total


def incremental(letters: str, dims: tuple[int, int, int]) -> int:
    a, b, c = dims
    n = len(letters)

    def extend(k, last, direction, used):
        if k == n:
            return 1
        options = UNIT if k == 1 else (_turns(direction) if letters[k - 1] == "J" else [direction])
        found = 0
        for u in options:
            p = (last[0] + u[0], last[1] + u[1], last[2] + u[2])
            if 0 <= p[0] < a and 0 <= p[1] < b and 0 <= p[2] < c and p not in used:
                used.add(p)
                found += extend(k + 1, p, u, used)
                used.remove(p)
        return found

    return sum(extend(1, (x, y, z), None, {(x, y, z)}) for z in range(c) for y in range(b) for x in range(a))
