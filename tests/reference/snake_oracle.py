"""A slow, plainly correct snake-cube oracle: recursive DFS over coordinates, every embedding listed.

Written independently of the package: no tables, no bitboards, no frontier, its own symmetry group.
"""

from __future__ import annotations

from itertools import permutations, product

UNIT = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]


def embeddings(letters: str, dims: tuple[int, int, int], prefix=None) -> list[tuple[tuple[int, int, int], ...]]:
    """Every placement of cubes 1..N on the cells of the box, in DFS order (start cells by x, then y, then z).

    With ``prefix`` (the cells of cubes 1..k, k >= 2), only the placements that begin with it.
    """
    a, b, c = dims
    n = len(letters)
    assert n == a * b * c
    found = []
    cells = [(x, y, z) for z in range(c) for y in range(b) for x in range(a)]

    def inside(p):
        return 0 <= p[0] < a and 0 <= p[1] < b and 0 <= p[2] < c

    def extend(path, used, direction):
        if len(path) == n:
            found.append(tuple(path))
            return
        k = len(path) - 1  # the last placed cube decides where the next one goes
        if k == 0:
            options = UNIT
        elif letters[k] == "J":
            options = [u for u in UNIT if sum(ui * di for ui, di in zip(u, direction)) == 0]
        else:
            options = [direction]
        last = path[-1]
        for u in options:
            nxt = (last[0] + u[0], last[1] + u[1], last[2] + u[2])
            if inside(nxt) and nxt not in used:
                path.append(nxt)
                used.add(nxt)
                extend(path, used, u)
                used.remove(nxt)
                path.pop()

    if prefix is not None:
        prefix = [tuple(p) for p in prefix]
        last_step = tuple(q - p for p, q in zip(prefix[-2], prefix[-1]))
        extend(list(prefix), set(prefix), last_step)
        return found
    for start in cells:
        extend([start], {start}, None)
    return found


def symmetries(dims):
    """The maps (x, y, z) -> (x', y', z') that send the box onto itself."""
    maps = []
    for perm in permutations(range(3)):
        for signs in product((1, -1), repeat=3):
            size = [dims[perm[i]] for i in range(3)]
            if size != list(dims):
                continue

            def f(p, perm=perm, signs=signs):
                q = [p[perm[i]] for i in range(3)]
                return tuple(q[i] if signs[i] == 1 else dims[i] - 1 - q[i] for i in range(3))

            maps.append(f)
    return maps


def count(letters: str, dims: tuple[int, int, int]) -> dict:
    """``embeddings`` and ``distinct`` (classes under the box's symmetries, canonicalised one by one)."""
    all_paths = embeddings(letters, dims)
    maps = symmetries(dims)
    classes = {min(tuple(f(p) for p in path) for f in maps) for path in all_paths}
    return {"embeddings": len(all_paths), "distinct": len(classes),
            "first": list(all_paths[0]) if all_paths else None}
