"""Peers for bench/cubes.py, in plain Python (no numba, no numpy in the hot loops).

* ``python_solve`` / ``python_count`` — a tidy recursive DFS: cells filled in a fixed order (z, y, x), every unused
  cube in every one of the 24 rotations (precomputed face tuples), neighbours checked as they are placed.  This is
  the "plain-Python search" of the issue's targets.
* ``document_ga`` — the seed document's genetic algorithm re-implemented from its description (section 4), with the
  compatibility rule applied correctly: the population starts as one figure per cube (each cube in exactly one
  figure, so figures stay disjoint), each iteration picks a carrier with probability proportional to its cube count
  and a donor uniformly, moves the first donor cube that fits into the first free cell and rotation of the carrier,
  mutates the carrier with probability 1/10 (a cube moved to a free cell, turned), keeps the carrier only if it did
  not lose cubes (elitism), drops empty figures, and re-initialises when two or fewer figures remain.  One iteration
  = one crossover, as the document counts them.
"""

from __future__ import annotations

import random
import time

DIRS = [(0, -1, 0), (0, 0, 1), (1, 0, 0), (0, 0, -1), (-1, 0, 0), (0, 1, 0)]
OPP = [5, 3, 4, 1, 2, 0]


def _rotations():
    def mul(a, b):
        return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)) for i in range(3))

    qx = ((1, 0, 0), (0, 0, -1), (0, 1, 0))
    qz = ((0, -1, 0), (1, 0, 0), (0, 0, 1))
    ident = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    found, todo = {ident}, [ident]
    while todo:
        m = todo.pop()
        for q in (qx, qz):
            n = mul(q, m)
            if n not in found:
                found.add(n)
                todo.append(n)
    perms = []
    for m in sorted(found):
        # face now in direction d was in direction m^T d
        perm = []
        for d in DIRS:
            src = tuple(sum(m[k][i] * d[k] for k in range(3)) for i in range(3))
            perm.append(DIRS.index(src))
        perms.append(perm)
    return perms


ROT = _rotations()


def orientations(cubes: dict[int, list[int]]) -> dict[int, list[tuple[int, ...]]]:
    return {n: [tuple(f[p] for p in perm) for perm in ROT] for n, f in cubes.items()}


def _cells_and_neighbours(cells):
    cells = sorted(cells, key=lambda c: (c[2], c[1], c[0]))
    where = {c: i for i, c in enumerate(cells)}
    back = []  # for each cell, (direction, earlier neighbour index)
    for i, (x, y, z) in enumerate(cells):
        back.append([(d, where[(x + dx, y + dy, z + dz)]) for d, (dx, dy, dz) in enumerate(DIRS)
                     if (x + dx, y + dy, z + dz) in where and where[(x + dx, y + dy, z + dz)] < i])
    return cells, back


def _search(cells, cubes, stop_at_first):
    cells, back = _cells_and_neighbours(cells)
    orient = orientations(cubes)
    chosen: list = [None] * len(cells)
    used = set()
    count = 0

    def rec(i):
        nonlocal count
        if i == len(cells):
            count += 1
            return stop_at_first
        for n, rots in orient.items():
            if n in used:
                continue
            for faces in rots:
                if all(faces[d] + chosen[j][1][OPP[d]] == 0 for d, j in back[i]):
                    used.add(n)
                    chosen[i] = (n, faces)
                    if rec(i + 1):
                        return True
                    used.discard(n)
        chosen[i] = None
        return False

    found = rec(0)
    return count, (list(zip(cells, chosen)) if found else None)


def python_solve(cells, cubes):
    """One assembly (list of (cell, (number, faces))) or None."""
    return _search(cells, cubes, True)[1]


def python_count(cells, cubes):
    """Every assembly (each choice of cube and rotation per cell)."""
    return _search(cells, cubes, False)[0]


def document_ga(dims, cubes, seed, max_iterations=10**6, max_seconds=60.0):
    """The document's GA (corrected).  Returns (solved, iterations, seconds)."""
    rnd = random.Random(seed)
    orient = orientations(cubes)
    L, W, H = dims
    cells = [(x, y, z) for x in range(L) for y in range(W) for z in range(H)]
    numbers = list(cubes)

    def fits(fig, cell, faces):
        x, y, z = cell
        for d, (dx, dy, dz) in enumerate(DIRS):
            other = fig.get((x + dx, y + dy, z + dz))
            if other is not None and faces[d] + other[1][OPP[d]] != 0:
                return False
        return True

    def place(fig, n, start_rot=0):
        for cell in cells:
            if cell in fig:
                continue
            for k in range(24):
                faces = orient[n][(start_rot + k) % 24]
                if fits(fig, cell, faces):
                    fig[cell] = (n, faces)
                    return True
        return False

    def fresh():
        pop = []
        for n in numbers:
            fig = {}
            fig[(0, 0, 0)] = (n, orient[n][0])
            pop.append(fig)
        return pop

    pop = fresh()
    t0 = time.perf_counter()
    it = 0
    while it < max_iterations and time.perf_counter() - t0 < max_seconds:
        if any(len(f) == len(cells) for f in pop):
            return True, it, time.perf_counter() - t0
        weights = [len(f) for f in pop]
        ci = rnd.choices(range(len(pop)), weights=weights)[0]
        carrier = pop.pop(ci)
        di = rnd.randrange(len(pop))
        donor = pop.pop(di)
        new_carrier, new_donor = dict(carrier), dict(donor)
        moved = False
        for cell, (n, _) in list(new_donor.items()):
            if place(new_carrier, n):
                del new_donor[cell]
                moved = True
                break
        if rnd.randint(1, 10) == 1 and new_carrier:
            cell = rnd.choice(list(new_carrier))
            n, _ = new_carrier.pop(cell)
            if not place(new_carrier, n, rnd.randrange(24)):
                pop.append({(0, 0, 0): (n, orient[n][0])})
        if moved and len(new_carrier) >= len(carrier):
            pop.append(new_carrier)
            if new_donor:
                pop.append(new_donor)
        else:
            pop.append(carrier)
            pop.append(donor)
        if len(pop) <= 2:
            pop = fresh()
        it += 1
    return False, it, time.perf_counter() - t0
