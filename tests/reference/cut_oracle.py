"""Independent check of a cut of a board into pieces (plain Python, no project code).

``check_partition(mask, pieces, a, b)``: ``mask[y][x]`` true for the cells to cut, ``pieces`` a list of cell lists
``(x, y)``.  Every board cell in exactly one piece, nothing outside the board, each piece of ``a..b`` cells and
4-connected (its own breadth-first search).  Raises AssertionError naming the first fault.
"""

from collections import deque


def _connected(cells):
    cells = set(cells)
    start = next(iter(cells))
    seen = {start}
    todo = deque([start])
    while todo:
        x, y = todo.popleft()
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cells)


def check_partition(mask, pieces, a, b):
    h = len(mask)
    w = len(mask[0]) if h else 0
    board = {(x, y) for y in range(h) for x in range(w) if mask[y][x]}
    seen = set()
    for i, cells in enumerate(pieces):
        cells = [(int(c[0]), int(c[1])) for c in cells]
        assert a <= len(cells) <= b, f"piece {i} has {len(cells)} cells, not {a}..{b}"
        assert len(set(cells)) == len(cells), f"piece {i} repeats a cell"
        assert _connected(cells), f"piece {i} is not connected"
        for c in cells:
            assert c in board, f"piece {i} covers {c}, not a board cell"
            assert c not in seen, f"cell {c} in two pieces"
            seen.add(c)
    assert seen == board, f"{len(board - seen)} board cells in no piece"


def pieces_from_labels(labels):
    """Cell lists from a label grid (``labels[y][x]`` = piece number, negative = a hole)."""
    out = {}
    for y, row in enumerate(labels):
        for x, v in enumerate(row):
            if v >= 0:
                out.setdefault(int(v), []).append((x, y))
    return [out[k] for k in sorted(out)]
