"""Connector cubes: unit cubes whose six faces carry male (1..4) or female (-1..-4) connectors.

Objects a user thinks in:

* :class:`CubeSet` — numbered cubes with their six face values, read from the seed document's file format
  ``NUMBER;F0,F1,F2,F3,F4,F5`` (:func:`parse_cubes`, :func:`load_cubes`; the 27-cube set ships as the default);
* the 24 proper rotations of a cube as tables (:data:`ROTATIONS`, :data:`FACE_FROM`, :data:`COMPOSE`);
* :class:`Figure` — the cells to fill: a box ``LxWxH`` or any voxel set read from a text file of layers
  (:func:`parse_figure`), with its own rotational symmetries;
* an assembly: for every cell of the figure a cube and a rotation; two cubes that share a face must carry
  complementary connectors on it (values summing to 0) — checked by :func:`check_assembly`.

Face order (the data README's): ``F0`` = -Y, ``F1`` = +Z, ``F2`` = +X, ``F3`` = -Z, ``F4`` = -X, ``F5`` = +Y,
in a right-handed frame X (length), Y (width), Z (height).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from itertools import permutations, product
from pathlib import Path

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.limits import CELLS, CUBES

#: Outward unit vector of each face, in the data's face order F0..F5.
FACE_DIRS = np.array([[0, -1, 0], [0, 0, 1], [1, 0, 0], [0, 0, -1], [-1, 0, 0], [0, 1, 0]], dtype=np.int64)
#: The face on the other side of each face.
OPPOSITE = np.array([5, 3, 4, 1, 2, 0], dtype=np.int64)
FACE_NAMES = ("-Y", "+Z", "+X", "-Z", "-X", "+Y")
N_ROT = 24
MAX_VALUE = 4


def _dir_index(v) -> int:
    for d in range(6):
        if (FACE_DIRS[d] == v).all():
            return d
    raise AssertionError(f"not a face direction: {v}")


def _rotation_matrices() -> np.ndarray:
    """The 24 signed permutation matrices of determinant +1, identity first, then in lexicographic order."""
    mats = []
    for perm in permutations(range(3)):
        for signs in product((1, -1), repeat=3):
            m = np.zeros((3, 3), np.int64)
            for i in range(3):
                m[i, perm[i]] = signs[i]
            if round(np.linalg.det(m)) == 1:
                mats.append(m)
    mats.sort(key=lambda m: (not (m == np.eye(3, dtype=np.int64)).all(), tuple(m.ravel())))
    return np.array(mats)


#: (24, 3, 3): the proper rotations; a cube turned by ``ROTATIONS[r]`` has the face that pointed along ``v``
#: now pointing along ``ROTATIONS[r] @ v``.  ``ROTATIONS[0]`` is the identity.
ROTATIONS = _rotation_matrices()
#: (24, 6): ``FACE_FROM[r, d]`` is the original face that lies in direction ``d`` after rotation ``r``, so the
#: face values of a turned cube are ``faces[FACE_FROM[r]]``.
FACE_FROM = np.array([[_dir_index(np.linalg.inv(R).round().astype(np.int64) @ FACE_DIRS[d]) for d in range(6)]
                      for R in ROTATIONS], dtype=np.int64)
#: (24, 24): ``COMPOSE[g, r]`` is the rotation ``ROTATIONS[g] @ ROTATIONS[r]`` (first r, then g).
COMPOSE = np.array([[next(k for k in range(N_ROT) if (ROTATIONS[k] == G @ R).all()) for R in ROTATIONS]
                    for G in ROTATIONS], dtype=np.int64)


def rotated_faces(faces, r: int) -> np.ndarray:
    """Face values of a cube with faces ``faces`` (data order) after rotation ``r``."""
    return np.asarray(faces)[FACE_FROM[r]]


# ----------------------------------------------------------------------------------------------- cube sets
@dataclass(frozen=True)
class CubeSet:
    """Numbered cubes: ``faces[i]`` are the six face values (data order) of the cube numbered ``numbers[i]``."""

    numbers: tuple[int, ...]
    faces: np.ndarray = field(compare=False)
    source: str = "27 cubes of the seed document"

    def __len__(self) -> int:
        return len(self.numbers)

    def index_of(self, number: int) -> int:
        return self.numbers.index(number)

    def subset(self, numbers) -> "CubeSet":
        idx = [self.index_of(n) for n in numbers]
        return CubeSet(tuple(self.numbers[i] for i in idx), self.faces[idx].copy(),
                       f"{self.source}, cubes {','.join(map(str, numbers))}")

    def to_text(self) -> str:
        return "".join(f"{n};{','.join(map(str, f))}\n" for n, f in zip(self.numbers, self.faces.tolist()))


_LINE = re.compile(r"^\s*(-?\d+)\s*;\s*(.*?)\s*$")


def parse_cubes(text: str, source: str = "<cubes>") -> CubeSet:
    """Read a cube set in the document's format: one cube a line, ``NUMBER;F0,F1,F2,F3,F4,F5``.

    Blank lines and lines starting with ``%`` are skipped.  The document's placeholder line ``0;0,0,0,0,0,0``
    is accepted and skipped (it is not a cube).

    Raises
    ------
    PuzzleInputError
        One line naming the file and line: not ``NUMBER;...``, not six faces, a value outside ±1..±4, a number
        used twice, or no cube at all.
    """
    numbers: list[int] = []
    faces: list[list[int]] = []
    seen: dict[int, int] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        where = f"{source}, line {lineno}"
        m = _LINE.match(line)
        if not m:
            raise PuzzleInputError(f"{where}: expected NUMBER;F0,F1,F2,F3,F4,F5, got {line!r}")
        number = int(m.group(1))
        try:
            values = [int(v) for v in m.group(2).split(",")]
        except ValueError:
            raise PuzzleInputError(f"{where}: face values must be integers, got {m.group(2)!r}") from None
        if number == 0 and values == [0] * 6:
            continue  # the document's empty placeholder
        if len(values) != 6:
            raise PuzzleInputError(f"{where}: cube {number} has {len(values)} faces, expected 6")
        bad = [v for v in values if not 1 <= abs(v) <= MAX_VALUE]
        if bad:
            raise PuzzleInputError(f"{where}: cube {number} has face value {bad[0]}, expected ±1..±{MAX_VALUE}")
        if number < 0:
            raise PuzzleInputError(f"{where}: cube number {number} is negative")
        if number in seen:
            raise PuzzleInputError(f"{where}: cube number {number} already used on line {seen[number]}")
        seen[number] = lineno
        CUBES.check(len(numbers) + 1, f"{where}: the cube set")
        numbers.append(number)
        faces.append(values)
    if not numbers:
        raise PuzzleInputError(f"{source}: no cube found (expected lines NUMBER;F0,F1,F2,F3,F4,F5)")
    return CubeSet(tuple(numbers), np.array(faces, dtype=np.int64), source)


def default_cubes_text() -> str:
    return resources.files("puzzlebatch.data").joinpath("connector_cubes", "cubes.txt").read_text()


def load_cubes(path: str | Path | None = None) -> CubeSet:
    """The cube set in ``path``, or the shipped 27-cube set of the seed document."""
    if path is None:
        return parse_cubes(default_cubes_text(), "connector_cubes/cubes.txt")
    from puzzlebatch.outputs import read_text

    return parse_cubes(read_text(path, "--cubes"), str(path))


# ----------------------------------------------------------------------------------------------- figures
@dataclass(frozen=True)
class Figure:
    """A set of cells to fill: ``cells[i]`` is the (x, y, z) of cell i (cells sorted by z, then y, then x)."""

    cells: np.ndarray = field(compare=False)
    name: str = "figure"
    key: tuple = ()

    @staticmethod
    def from_cells(cells, name: str) -> "Figure":
        c = np.asarray(cells, dtype=np.int64).reshape(-1, 3)
        c = c - c.min(axis=0)
        order = np.lexsort((c[:, 0], c[:, 1], c[:, 2]))
        c = c[order]
        return Figure(c, name, tuple(map(tuple, c.tolist())))

    @property
    def n_cells(self) -> int:
        return len(self.cells)

    @property
    def dims(self) -> tuple[int, int, int]:
        return tuple(int(v) + 1 for v in self.cells.max(axis=0))

    def __str__(self) -> str:
        return self.name

    def index(self) -> dict[tuple[int, int, int], int]:
        return {tuple(map(int, c)): i for i, c in enumerate(self.cells)}

    def neighbours(self) -> np.ndarray:
        """(n_cells, 6): the cell beyond face direction d of each cell, -1 outside the figure."""
        idx = self.index()
        nbr = np.full((self.n_cells, 6), -1, np.int64)
        for i, c in enumerate(self.cells):
            for d in range(6):
                nbr[i, d] = idx.get(tuple(map(int, c + FACE_DIRS[d])), -1)
        return nbr

    def symmetries(self) -> list[tuple[int, np.ndarray]]:
        """The proper rotations that map the figure onto itself (up to translation).

        Returns a list of ``(g, perm)``: rotation index ``g`` into :data:`ROTATIONS` and the cell permutation
        (cell i goes to cell ``perm[i]``); the identity first.  Mirror images are left out: a mirrored cube is
        not one of the cubes.
        """
        idx = self.index()
        out = []
        for g, R in enumerate(ROTATIONS):
            img = self.cells @ R.T
            img = img - img.min(axis=0)
            perm = [idx.get(tuple(map(int, p)), -1) for p in img]
            if -1 not in perm:
                out.append((g, np.array(perm, np.int64)))
        return out

    def layers_text(self) -> str:
        a, b, c = self.dims
        grid = np.full((c, b, a), ".", dtype="<U1")
        for x, y, z in self.cells:
            grid[z, y, x] = "#"
        return "\n\n".join("\n".join("".join(row) for row in layer) for layer in grid) + "\n"


_BOX = re.compile(r"^\s*(\d+)\s*[x×]\s*(\d+)\s*(?:[x×]\s*(\d+))?\s*$", re.IGNORECASE)


def box(length: int, width: int, height: int) -> Figure:
    z, y, x = np.meshgrid(np.arange(height), np.arange(width), np.arange(length), indexing="ij")
    return Figure.from_cells(np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1), f"{length}x{width}x{height}")


def parse_voxels(text: str, source: str = "<figure>") -> Figure:
    """Read a voxel figure: layers z = 0, 1, ... separated by blank lines; in a layer, row y = 0 first,
    column x = 0 first; ``#`` is a filled cell, ``.`` (or a space) an empty one.  Lines starting with ``%`` are
    comments."""
    cells = []
    z, y, in_layer = 0, 0, False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if line.startswith("%"):
            continue
        if not line.strip():
            if in_layer:
                z, y, in_layer = z + 1, 0, False
            continue
        in_layer = True
        for x, ch in enumerate(line):
            if ch == "#":
                cells.append((x, y, z))
            elif ch not in ". ":
                raise PuzzleInputError(f"{source}, line {lineno}, column {x + 1}: unexpected {ch!r}; "
                                       "use '#' for a filled cell and '.' for an empty one")
        CELLS.check(len(cells), f"{source}, line {lineno}")
        y += 1
    if not cells:
        raise PuzzleInputError(f"{source}: no filled cell ('#') in the figure")
    return Figure.from_cells(cells, Path(source).name)


def parse_figure(spec: str) -> Figure:
    """A box ``LxWxH`` (``LxW`` is one layer) or the path of a voxel file (see :func:`parse_voxels`)."""
    m = _BOX.match(spec)
    if m:
        dims = [int(v) for v in m.groups(default="1")]
        if min(dims) < 1:
            raise PuzzleInputError(f"--figure {spec!r}: box sides must be positive, e.g. 2x2x2")
        CELLS.check(dims[0] * dims[1] * dims[2], f"--figure {spec}")
        return box(*dims)
    p = Path(spec)
    if not p.exists():
        raise PuzzleInputError(f"--figure {spec!r}: neither a box LxWxH (e.g. 3x3x3) nor an existing voxel file")
    from puzzlebatch.outputs import read_text

    return parse_voxels(read_text(p, "--figure"), spec)


def check_fits(figure: Figure, cubes: CubeSet) -> None:
    if figure.n_cells > len(cubes):
        raise PuzzleInputError(f"figure {figure} has {figure.n_cells} cells but the cube set has only "
                               f"{len(cubes)} cubes (each cube is used at most once)")


# ----------------------------------------------------------------------------------------------- assemblies
def check_assembly(figure: Figure, cubes: CubeSet, placements) -> str | None:
    """Check an assembly independently of the search; returns None when valid, else what is wrong.

    ``placements[i] = (cube_number, rotation)`` for cell i.
    """
    if len(placements) != figure.n_cells:
        return f"{len(placements)} placements for {figure.n_cells} cells"
    numbers = [p[0] for p in placements]
    if len(set(numbers)) != len(numbers):
        return "a cube is used twice"
    faces = [rotated_faces(cubes.faces[cubes.index_of(n)], r) for n, r in placements]
    nbr = figure.neighbours()
    for i in range(figure.n_cells):
        for d in range(6):
            j = nbr[i, d]
            if j >= 0 and faces[i][d] + faces[j][OPPOSITE[d]] != 0:
                return f"cells {figure.cells[i].tolist()} and {figure.cells[j].tolist()} clash ({faces[i][d]}, " \
                       f"{faces[j][OPPOSITE[d]]})"
    return None
