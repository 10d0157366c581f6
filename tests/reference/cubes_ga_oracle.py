"""Plain-Python oracle for the connector-cube genetic algorithm: the fitness of a genome, recomputed from scratch.

A genome (``puzzlebatch/puzzles/cubes/ga_rules.py``) is a partial assembly of a figure: ``genome[cell]`` is the
placement ``cube * 24 + rotation`` in that cell, or -1 for an empty cell.  ``cube`` indexes the cube set the GA was
given (in the order of its numbers) and ``rotation`` indexes the 24 proper rotations in the package's documented
order (``puzzles/cubes/model.py``: identity first, then the others in lexicographic order of their matrices, a cube
turned by rotation ``R`` has the face that pointed along ``v`` pointing along ``R v``).  The operators keep every
genome valid (each cube at most once, every contact complementary), so the fitness is the number of cubes placed.

This module does not use the package's tables: the rotations are the closure of two quarter turns
(:func:`tests.reference.cubes_oracle.rotations`), a turned cube is a dict {outward direction: connector value}
(:func:`tests.reference.cubes_oracle.turned`), the cells of a figure are ordered here (by z, then y, then x, after
moving the figure's corner to the origin, as the package's ``Figure`` documents) and the contacts are found from
the coordinates.
"""

from __future__ import annotations

from functools import lru_cache

from tests.reference.cubes_oracle import DIRS, IDENTITY, parse, rotations, turned

N_ROT = 24


@lru_cache(maxsize=None)
def rotation_order() -> tuple:
    """The 24 rotation matrices in the package's documented index order: identity first, then lexicographic."""
    rots = rotations()
    assert len(rots) == N_ROT
    return (IDENTITY,) + tuple(m for m in sorted(rots) if m != IDENTITY)


def figure_cells(cells) -> list[tuple[int, int, int]]:
    """A figure's cells as the GA indexes them: moved to the origin, sorted by z, then y, then x."""
    cells = [tuple(int(v) for v in c) for c in cells]
    lo = [min(c[k] for c in cells) for k in range(3)]
    moved = {tuple(c[k] - lo[k] for k in range(3)) for c in cells}
    return sorted(moved, key=lambda c: (c[2], c[1], c[0]))


def box_cells(length: int, width: int, height: int) -> list[tuple[int, int, int]]:
    return figure_cells([(x, y, z) for x in range(length) for y in range(width) for z in range(height)])


def cube_faces(text: str, numbers) -> list[dict]:
    """The cubes ``numbers`` (in that order: the GA's cube indices) of a cube file, each {direction: value}."""
    cubes = parse(text)
    return [cubes[n] for n in numbers]


class Fitness:
    """The oracle for one figure and cube subset: ``fitness(genome)`` and ``problem(genome)``."""

    def __init__(self, cells, faces: list[dict]):
        self.cells = figure_cells(cells)
        self.faces = faces
        where = {c: i for i, c in enumerate(self.cells)}
        # every contact once: (cell a, cell b, direction from a to b)
        self.contacts = []
        for i, (x, y, z) in enumerate(self.cells):
            for d in DIRS:
                j = where.get((x + d[0], y + d[1], z + d[2]))
                if j is not None and i < j:
                    self.contacts.append((i, j, d))
        self._turned: dict[int, dict] = {}

    def placed(self, code: int) -> dict:
        """Face values {direction: value} of placement ``code`` (cube * 24 + rotation)."""
        got = self._turned.get(code)
        if got is None:
            got = turned(self.faces[code // N_ROT], rotation_order()[code % N_ROT])
            self._turned[code] = got
        return got

    def problem(self, genome) -> str | None:
        """What makes ``genome`` an invalid partial assembly (None when it is valid)."""
        genome = [int(v) for v in genome]
        if len(genome) != len(self.cells):
            return f"{len(genome)} genes for {len(self.cells)} cells"
        for k, code in enumerate(genome):
            if code < -1 or code >= N_ROT * len(self.faces):
                return f"cell {k}: placement {code} is not -1 or a cube * 24 + rotation of {len(self.faces)} cubes"
        cubes = [code // N_ROT for code in genome if code >= 0]
        if len(set(cubes)) != len(cubes):
            return "a cube is placed twice"
        for i, j, d in self.contacts:
            a, b = genome[i], genome[j]
            if a >= 0 and b >= 0:
                va, vb = self.placed(a)[d], self.placed(b)[(-d[0], -d[1], -d[2])]
                if va + vb != 0:
                    return f"cells {list(self.cells[i])} and {list(self.cells[j])} clash ({va}, {vb})"
        return None

    def fitness(self, genome) -> float:
        """The number of cubes placed (the seed document's fitness), as the GA's float."""
        return float(sum(1 for v in genome if int(v) >= 0))
