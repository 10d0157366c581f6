"""Plain-Python oracle for connector cubes: enumerate every assembly of a figure by brute force.

Independent of the package's tables: the 24 rotations are generated here as the closure of two quarter turns,
a cube is a dict {outward direction: connector value}, cells are filled in a fixed order, and every unused cube
is tried in every rotation.  Slow; for small figures and cube subsets only.
"""

from __future__ import annotations

# Face order of the data README: F0 = -Y, F1 = +Z, F2 = +X, F3 = -Z, F4 = -X, F5 = +Y.
DIRS = [(0, -1, 0), (0, 0, 1), (1, 0, 0), (0, 0, -1), (-1, 0, 0), (0, 1, 0)]


def _mul(a, b):
    return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)) for i in range(3))


def _apply(m, v):
    return tuple(sum(m[i][k] * v[k] for k in range(3)) for i in range(3))


def _transpose(m):
    return tuple(tuple(m[j][i] for j in range(3)) for i in range(3))


QUARTER_X = ((1, 0, 0), (0, 0, -1), (0, 1, 0))
QUARTER_Z = ((0, -1, 0), (1, 0, 0), (0, 0, 1))
IDENTITY = ((1, 0, 0), (0, 1, 0), (0, 0, 1))


def rotations():
    """All proper rotations of the cube, as 3x3 integer matrices (closure of two quarter turns)."""
    found = {IDENTITY}
    todo = [IDENTITY]
    while todo:
        m = todo.pop()
        for q in (QUARTER_X, QUARTER_Z):
            n = _mul(q, m)
            if n not in found:
                found.add(n)
                todo.append(n)
    return sorted(found)


def parse(text):
    """{number: {direction: value}} from the document's ``NUMBER;F0,...,F5`` lines."""
    cubes = {}
    for line in text.splitlines():
        if line.strip():
            num, faces = line.split(";")
            values = [int(v) for v in faces.split(",")]
            if int(num) != 0:
                cubes[int(num)] = dict(zip(DIRS, values))
    return cubes


def turned(cube, m):
    """The cube turned by ``m``: the face now facing ``d`` is the one that faced ``m^T d``."""
    mt = _transpose(m)
    return {d: cube[_apply(mt, d)] for d in DIRS}


def assemblies(cells, cubes):
    """Every assembly of ``cells`` (list of (x, y, z)): a list of tuples ((number, matrix) per cell)."""
    rots = rotations()
    assert len(rots) == 24
    turned_cubes = {(n, m): turned(c, m) for n, c in cubes.items() for m in rots}
    where = {c: i for i, c in enumerate(cells)}
    out = []
    chosen = []
    used = set()

    def rec(i):
        if i == len(cells):
            out.append(tuple(chosen))
            return
        x, y, z = cells[i]
        for n in cubes:
            if n in used:
                continue
            for m in rots:
                faces = turned_cubes[(n, m)]
                ok = True
                for d in DIRS:
                    j = where.get((x + d[0], y + d[1], z + d[2]))
                    if j is not None and j < i:
                        other = turned_cubes[chosen[j]]
                        if faces[d] + other[(-d[0], -d[1], -d[2])] != 0:
                            ok = False
                            break
                if ok:
                    used.add(n)
                    chosen.append((n, m))
                    rec(i + 1)
                    chosen.pop()
                    used.discard(n)

    rec(0)
    return out


def count_distinct(cells, found):
    """How many assemblies in ``found`` remain when those equal up to a rotation of the figure are merged."""
    rots = rotations()
    cellset = set(cells)
    syms = []
    for g in rots:
        img = [_apply(g, c) for c in cells]
        lo = [min(p[k] for p in img) for k in range(3)]
        img = [tuple(p[k] - lo[k] for k in range(3)) for p in img]
        lo0 = [min(p[k] for p in cells) for k in range(3)]
        img = [tuple(p[k] + lo0[k] for k in range(3)) for p in img]
        if set(img) == cellset:
            syms.append((g, [cells.index(p) for p in img]))
    canon = set()
    for a in found:
        images = []
        for g, perm in syms:
            img = [None] * len(cells)
            for i, (n, m) in enumerate(a):
                img[perm[i]] = (n, _mul(g, m))
            images.append(tuple(img))
        canon.add(min(images))
    return len(canon), len(syms)
