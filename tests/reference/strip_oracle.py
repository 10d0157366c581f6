"""Slow plain-Python oracle: count tilings of a W x H rectangle with unlimited pieces by direct recursion
(fill the first empty cell in row-major order with every orientation of every piece).  Independent of the
profile graph (no scan order by columns, no transposition, no pruning)."""


def _orientations(cells, turns):
    maps = [(1, 0, 0, 1), (0, -1, 1, 0), (-1, 0, 0, -1), (0, 1, -1, 0)]
    if turns == "free":
        maps += [(-1, 0, 0, 1), (0, 1, 1, 0), (1, 0, 0, -1), (0, -1, -1, 0)]
    if turns == "fixed":
        maps = maps[:1]
    out = set()
    for a, b, c, d in maps:
        pts = [(a * x + b * y, c * x + d * y) for x, y in cells]
        mx = min(p[0] for p in pts)
        my = min(p[1] for p in pts)
        out.add(tuple(sorted((x - mx, y - my) for x, y in pts)))
    return sorted(out)


def count_tilings(w, h, pieces):
    """``pieces``: list of (cells, turns).  Labelled count: two pieces of the same shape count as different."""
    placements = []  # relative to the first cell in row-major order (y, then x)
    for cells, turns in pieces:
        for o in _orientations(cells, turns):
            first = min(o, key=lambda c: (c[1], c[0]))
            placements.append([(x - first[0], y - first[1]) for x, y in o])
    grid = [[False] * w for _ in range(h)]

    def rec(pos):
        while pos < w * h and grid[pos // w][pos % w]:
            pos += 1
        if pos == w * h:
            return 1
        y0, x0 = divmod(pos, w)
        total = 0
        for pl in placements:
            cells = [(x0 + dx, y0 + dy) for dx, dy in pl]
            if all(0 <= x < w and 0 <= y < h and not grid[y][x] for x, y in cells):
                for x, y in cells:
                    grid[y][x] = True
                total += rec(pos + 1)
                for x, y in cells:
                    grid[y][x] = False
        return total

    return rec(0)
