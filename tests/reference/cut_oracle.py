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


def _canonical(cells):
    """The smallest normalised sorted cell tuple over the eight turns and reflections (its own maps)."""
    best = None
    for sx, sy, swap in ((1, 1, 0), (-1, 1, 0), (1, -1, 0), (-1, -1, 0), (1, 1, 1), (-1, 1, 1), (1, -1, 1),
                         (-1, -1, 1)):
        pts = [((y, x) if swap else (x, y)) for x, y in cells]
        pts = [(sx * x, sy * y) for x, y in pts]
        mx = min(p[0] for p in pts)
        my = min(p[1] for p in pts)
        key = tuple(sorted((x - mx, y - my) for x, y in pts))
        if best is None or key < best:
            best = key
    return best


def check_solution(mask, shapes, labels):
    """A solved-back cut puzzle checked from its label grid (``labels[y][x]`` = the input piece on that cell,
    negative = uncovered): every board cell covered once and nothing else, every input piece used exactly once,
    each as a turned or reflected copy of its shape (``shapes[i]``: its cells).  Raises AssertionError."""
    h = len(mask)
    w = len(mask[0]) if h else 0
    got = {}
    for y in range(h):
        for x in range(w):
            v = int(labels[y][x])
            if mask[y][x]:
                assert v >= 0, f"board cell {(x, y)} not covered"
                assert v < len(shapes), f"cell {(x, y)} holds piece {v}, not an input piece"
                got.setdefault(v, []).append((x, y))
            else:
                assert v < 0, f"cell {(x, y)} is not a board cell but holds piece {v}"
    assert len(got) == len(shapes), f"{len(shapes) - len(got)} input pieces not used"
    for i, cells in got.items():
        assert _connected(cells), f"piece {i} is placed in parts"
        assert _canonical(cells) == _canonical(shapes[i]), f"piece {i} placed as another shape"
