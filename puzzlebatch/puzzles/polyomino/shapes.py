"""Pieces: polyominoes (2D) and polycubes (3D), their orientations, text formats and the named sets.

A cell is an integer tuple ``(x, y)`` or ``(x, y, z)``; x is the column, y the row (growing downwards in text),
z the layer.  A :class:`Shape` is a normalised frozenset of cells (translated so every coordinate's minimum is 0).

Orientation modes (``Piece.turns``):

``free``
    every isometry of the grid: rotations and reflections (up to 8 orientations in 2D, 48 in 3D);
``rotations``
    proper rotations only (one-sided: up to 4 in 2D, 24 in 3D);
``fixed``
    the shape as given.

Defaults follow the physical puzzles: flat pieces can be turned over (``free``), solid ones cannot be mirrored
(``rotations``).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.limits import CELLS, check_copies

Cell = tuple[int, ...]
TURNS = ("free", "rotations", "fixed")
UNLIMITED = -1


# -- transforms ------------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def linear_maps(dim: int) -> tuple[np.ndarray, ...]:
    """Every signed permutation matrix of the grid (the isometries fixing the origin), identity first.

    2D: 8 maps, 3D: 48.  Proper rotations (determinant +1) come before the reflections.
    """
    maps = []
    for perm in itertools.permutations(range(dim)):
        for signs in itertools.product((1, -1), repeat=dim):
            m = np.zeros((dim, dim), dtype=np.int64)
            for i, (p, s) in enumerate(zip(perm, signs)):
                m[i, p] = s
            maps.append(m)
    maps.sort(key=lambda m: (round(np.linalg.det(m)) != 1, not np.array_equal(m, np.eye(dim, dtype=np.int64))))
    return tuple(maps)


_PROPER: dict[bytes, bool] = {}


def proper(m: np.ndarray) -> bool:
    """A rotation (determinant +1), not a reflection (memoised: signed permutation matrices are few)."""
    key = np.asarray(m, np.int64).tobytes() + bytes([len(m)])
    if key not in _PROPER:
        _PROPER[key] = round(float(np.linalg.det(m))) == 1
    return _PROPER[key]


def maps_for(dim: int, turns: str) -> tuple[np.ndarray, ...]:
    maps = linear_maps(dim)
    if turns == "free":
        return maps
    if turns == "rotations":
        return tuple(m for m in maps if proper(m))
    return maps[:1]


def normalize(cells: Iterable[Sequence[int]]) -> frozenset[Cell]:
    cells = [tuple(int(v) for v in c) for c in cells]
    if not cells:
        return frozenset()
    lo = [min(c[i] for c in cells) for i in range(len(cells[0]))]
    return frozenset(tuple(v - low for v, low in zip(c, lo)) for c in cells)


def transform(cells: Iterable[Cell], m: np.ndarray) -> frozenset[Cell]:
    arr = np.asarray(list(cells), np.int64) @ np.asarray(m, np.int64).T
    if not len(arr):
        return frozenset()
    arr -= arr.min(axis=0)
    return frozenset(map(tuple, arr.tolist()))


@lru_cache(maxsize=4096)
def _orientations(cells: frozenset, turns: str) -> tuple[frozenset, ...]:
    dim = len(next(iter(cells)))
    seen: list[frozenset] = []
    for m in maps_for(dim, turns):
        o = transform(cells, m)
        if o not in seen:
            seen.append(o)
    return tuple(seen)


def components(cells) -> list[frozenset[Cell]]:
    """The face-connected components of a set of cells."""
    left = set(cells)
    out = []
    while left:
        start = left.pop()
        comp = {start}
        todo = [start]
        while todo:
            c = todo.pop()
            for i in range(len(c)):
                for d in (-1, 1):
                    n = c[:i] + (c[i] + d,) + c[i + 1:]
                    if n in left:
                        left.remove(n)
                        comp.add(n)
                        todo.append(n)
        out.append(frozenset(comp))
    return out


def is_connected(cells: frozenset[Cell]) -> bool:
    return len(cells) > 0 and len(components(cells)) == 1


def canonical(cells: frozenset[Cell], turns: str = "free") -> tuple[Cell, ...]:
    """A representative of the shape's class under the given turns (the smallest sorted cell tuple)."""
    dim = len(next(iter(cells)))
    return min(tuple(sorted(transform(cells, m))) for m in maps_for(dim, turns))


# -- pieces ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Piece:
    """A named piece: its cells (normalised), how it may be turned, and how many copies there are."""

    name: str
    cells: frozenset[Cell]
    turns: str = "free"
    count: int = 1  # copies; UNLIMITED (-1) for any number
    origin: str = ""

    @property
    def dim(self) -> int:
        return len(next(iter(self.cells)))

    @property
    def size(self) -> int:
        return len(self.cells)

    def orientations(self) -> list[frozenset[Cell]]:
        """Distinct orientations, in a fixed order (the shape as given first)."""
        return list(_orientations(self.cells, self.turns))

    def with_(self, **kw) -> "Piece":
        d = dict(name=self.name, cells=self.cells, turns=self.turns, count=self.count, origin=self.origin)
        d.update(kw)
        return Piece(**d)

    def text(self) -> str:
        return shape_text(self.cells)


def shape_text(cells: frozenset[Cell]) -> str:
    """Rows of ``#``/``.``; 3D shapes as layers (z = 0 first) separated by blank lines."""
    dim = len(next(iter(cells)))
    xs = max(c[0] for c in cells) + 1
    ys = max(c[1] for c in cells) + 1
    zs = max(c[2] for c in cells) + 1 if dim == 3 else 1
    layers = []
    for z in range(zs):
        rows = []
        for y in range(ys):
            rows.append("".join("#" if ((x, y, z) if dim == 3 else (x, y)) in cells else "." for x in range(xs)))
        layers.append("\n".join(rows))
    return "\n\n".join(layers)


def fill_gap(pieces: Sequence[tuple[int, int]], cells: int) -> str | None:
    """Why no choice of these pieces covers exactly ``cells`` cells; None when one does.

    ``pieces``: (size, copies) pairs, ``UNLIMITED`` copies allowed.  A bounded subset sum with a Python integer as
    the bit set of the totals reachable, each size's copies taken in groups of 1, 2, 4, ... (every number of
    copies is a sum of such groups), so a board of a million cells costs a few dozen shifts.
    """
    copies: dict[int, int] = {}
    for size, n in pieces:
        have = copies.get(size, 0)
        copies[size] = UNLIMITED if UNLIMITED in (n, have) else have + n
    reach, full = 1, (1 << (cells + 1)) - 1
    for size, n in copies.items():
        n = cells // size if n == UNLIMITED else min(n, cells // size)
        group = 1
        while n > 0:
            take = min(group, n)
            reach |= (reach << (size * take)) & full
            n, group = n - take, 2 * group
    if reach >> cells & 1:
        return None
    area = None if UNLIMITED in copies.values() else sum(s * n for s, n in copies.items())
    if area is not None and area < cells:
        return f"the pieces cover {area} cells, fewer than the {cells} to fill: no packing fills the board"
    sizes = ", ".join(map(str, sorted(copies)))
    return (f"no choice of the pieces (sizes {sizes}) covers exactly the {cells} cells to fill (the nearest below: "
            f"{reach.bit_length() - 1}): no packing fills the board")


# -- text formats ------------------------------------------------------------------------------------------------
_HEADER = re.compile(r"^(?P<name>[^\s:#]+)\s*(?P<opts>(?:\s+[a-z]+=\S+)*)\s*:\s*(?P<rest>.*)$")


def parse_grid_cells(lines: Sequence[str], where: str) -> frozenset[Cell]:
    """Cells of a drawing: rows of ``#`` (or any letter) and ``.``; blank lines separate z layers."""
    layers: list[list[str]] = [[]]
    for line in lines:
        if not line.strip():
            if layers[-1]:
                layers.append([])
            continue
        layers[-1].append(line.rstrip())
    layers = [layer for layer in layers if layer]
    if not layers:
        raise PuzzleInputError(f"{where}: empty piece drawing")
    dim = 3 if len(layers) > 1 else 2
    cells = []
    for z, layer in enumerate(layers):
        for y, row in enumerate(layer):
            for x, ch in enumerate(row.strip() if dim == 2 and False else row):
                if ch in ".- ":
                    continue
                if ch == "#" or ch.isalnum():
                    cells.append((x, y, z) if dim == 3 else (x, y))
                else:
                    raise PuzzleInputError(f"{where}: unexpected character {ch!r} in a piece drawing (use # and .)")
    return normalize(cells)


def parse_cell_list(text: str, where: str) -> frozenset[Cell]:
    """``(0,0) (1,0) (1,1)`` or ``0,0 1,0 1,1`` or ``0 0; 1 0`` — cells as integer tuples."""
    pattern = r"-?\d+(?:\s*,\s*-?\d+)+"
    groups = re.findall(pattern, text)
    if not groups:
        raise PuzzleInputError(f"{where}: no cells found in {text.strip()!r} (write cells as x,y or x,y,z)")
    rest = re.sub(pattern, " ", text)
    junk = re.search(r"[^\s;(),]+", rest)
    if junk:  # never drop a malformed cell silently
        raise PuzzleInputError(f"{where}: {junk.group(0)!r} is not a cell (write cells as x,y or x,y,z)")
    cells = [tuple(int(v) for v in g.split(",")) for g in groups]
    dims = {len(c) for c in cells}
    if len(dims) != 1 or dims.pop() not in (2, 3):
        raise PuzzleInputError(f"{where}: cells must all be x,y or all x,y,z")
    span = 1
    for axis in zip(*cells):
        span *= max(axis) - min(axis) + 1
    CELLS.check(span, f"{where}: the piece's bounding box")
    return normalize(cells)


def _parse_opts(opts: str, where: str, default_turns: str | None) -> tuple[str | None, int]:
    turns, count = default_turns, 1
    for kv in opts.split():
        key, _, value = kv.partition("=")
        if key == "turns":
            if value not in TURNS:
                raise PuzzleInputError(f"{where}: turns={value} is not one of {', '.join(TURNS)}")
            turns = value
        elif key == "count":
            if value in ("inf", "unlimited", "*"):
                count = UNLIMITED
            elif value.isdigit() and int(value) > 0:
                count = check_copies(int(value), f"{where}: count={value}")
            else:
                raise PuzzleInputError(f"{where}: count={value} must be a positive integer or 'unlimited'")
        else:
            raise PuzzleInputError(f"{where}: unknown piece option {key!r} (expected turns= or count=)")
    return turns, count


def parse_pieces(text: str, source: str = "<pieces>", origin: str = "") -> list[Piece]:
    """Read a piece file.

    Format: a header line ``NAME [turns=free|rotations|fixed] [count=K|unlimited]:`` followed by the drawing
    (rows of ``#``/``.``, layers separated by one blank line), or ``NAME: x,y x,y ...`` with the cells on the
    header line.  Pieces are separated by a line that is empty after a complete drawing *and* followed by a
    header; lines starting with ``;`` or ``//`` are comments.  Flat pieces default to ``free``, solid ones to
    ``rotations``.
    """
    pieces: list[Piece] = []
    names: set[str] = set()  # a set, not a scan of the pieces read: files of 200,000 pieces are read in seconds
    current: tuple[str, str, int, list[str], int] | None = None  # name, opts, line, drawing lines, inline?

    def finish():
        if current is None:
            return
        name, opts, lineno, lines, _ = current
        where = f"{source}:{lineno}"
        cells = parse_cell_list(" ".join(lines), where) if current[4] else parse_grid_cells(lines, where)
        if not is_connected(cells):
            raise PuzzleInputError(f"{where}: piece {name} is not connected")
        turns, count = _parse_opts(opts, where, None)
        dim = len(next(iter(cells)))
        piece = Piece(name, cells, turns or ("free" if dim == 2 else "rotations"), count, origin)
        if name in names:
            raise PuzzleInputError(f"{where}: piece name {name} is used twice")
        names.add(name)
        pieces.append(piece)

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if line.lstrip().startswith((";", "//")):
            continue
        m = _HEADER.match(line.strip()) if ":" in line else None
        if m:
            finish()
            rest = m.group("rest").strip()
            current = (m.group("name"), m.group("opts"), lineno, [rest] if rest else [], 1 if rest else 0)
            continue
        if current is None:
            if line.strip():
                raise PuzzleInputError(f"{source}:{lineno}: a drawing line before any piece header 'NAME:'")
            continue
        current[3].append(line)
    finish()
    if not pieces:
        raise PuzzleInputError(f"{source}: no pieces found (expected 'NAME:' headers followed by drawings)")
    dims = {p.dim for p in pieces}
    if len(dims) > 1:
        raise PuzzleInputError(f"{source}: flat and solid pieces are mixed")
    return pieces


def write_pieces(pieces: Sequence[Piece]) -> str:
    out = []
    for p in pieces:
        opts = ""
        default = "free" if p.dim == 2 else "rotations"
        if p.turns != default:
            opts += f" turns={p.turns}"
        if p.count != 1:
            opts += " count=" + ("unlimited" if p.count == UNLIMITED else str(p.count))
        out.append(f"{p.name}{opts}:\n{p.text()}\n")
    return "\n".join(out)


# -- enumeration of all shapes of a size -----------------------------------------------------------------------
def enumerate_shapes(n: int, dim: int = 2, turns: str = "free") -> list[frozenset[Cell]]:
    """Every connected shape of ``n`` cells up to the given turns (Redelmeier-free, by growing n-1 shapes).

    2D free: 1, 1, 2, 5, 12, 35, 108 for n = 1..7; 3D rotations: 1, 1, 2, 8, 29, 166.
    """
    level = {canonical(frozenset({(0,) * dim}), turns)}
    for _ in range(n - 1):
        nxt = set()
        for shape in level:
            cells = set(shape)
            for c in shape:
                for i in range(dim):
                    for d in (-1, 1):
                        nb = c[:i] + (c[i] + d,) + c[i + 1:]
                        if nb not in cells:
                            nxt.add(canonical(normalize(cells | {nb}), turns))
        level = nxt
    return [frozenset(s) for s in sorted(level, key=lambda s: (max(max(c) for c in s), s))]


# -- named sets --------------------------------------------------------------------------------------------------
GENERATED = {
    # name: (size, dim, turns of the class, default turns of the pieces, prefix, origin)
    "hexominoes": (6, 2, "free", "free", "H", "all 35 free hexominoes, enumerated by puzzlebatch"),
    "heptominoes": (7, 2, "free", "free", "S", "all 108 free heptominoes (with the one holed), enumerated"),
    "pentacubes": (5, 3, "rotations", "rotations", "P",
                   "all 29 pentacubes distinct under rotation (mirror pairs both kept), enumerated"),
    "tetracubes": (4, 3, "rotations", "rotations", "Q", "all 8 tetracubes distinct under rotation, enumerated"),
}


def set_names() -> list[str]:
    files = [p.name[:-4] for p in resources.files("puzzlebatch.data.polyomino").iterdir()
             if p.name.endswith(".txt")]
    return sorted(set(files) | set(GENERATED))


def named_set(name: str) -> list[Piece]:
    """A shipped piece set by name (see ``puzzlebatch/data/polyomino/README.md`` for each origin)."""
    if name in GENERATED:
        size, dim, cls_turns, turns, prefix, origin = GENERATED[name]
        shapes = enumerate_shapes(size, dim, cls_turns)
        width = max(2, len(str(len(shapes))))
        return [Piece(f"{prefix}{i + 1:0{width}d}", s, turns, 1, origin) for i, s in enumerate(shapes)]
    path = resources.files("puzzlebatch.data.polyomino") / f"{name}.txt"
    if not path.is_file():
        raise PuzzleInputError(f"--pieces: unknown piece set {name!r} (known: {', '.join(set_names())}; or a file)")
    text = path.read_text()
    origin = ""
    m = re.search(r"^;\s*origin:\s*(.*)$", text, re.M)
    if m:
        origin = m.group(1).strip()
    return parse_pieces(text, f"{name}.txt", origin)


def load_pieces(spec: str, unlimited: bool = False, mirror: bool | None = None,
                count: int | None = None) -> list[Piece]:
    """``--pieces`` value: a set name, a file path, or several joined by ``+`` (``pentominoes+tetrominoes``).

    ``unlimited`` gives every piece any number of copies; ``count`` gives every piece that many copies;
    ``mirror`` True/False overrides free/rotations for every piece.
    """
    pieces: list[Piece] = []
    for part in spec.split("+"):
        part = part.strip()
        path = Path(part)
        if path.suffix and path.is_file():
            from puzzlebatch.outputs import read_text

            add_set(pieces, parse_pieces(read_text(path, "--pieces"), str(path)), shipped=False)
        elif path.suffix and not path.exists() and part not in set_names():
            raise PuzzleInputError(f"--pieces: no such file {part}")
        else:
            add_set(pieces, named_set(part), shipped=True)
    return with_options(pieces, unlimited, mirror, count)


def add_set(pieces: list[Piece], got: Sequence[Piece], shipped: bool) -> None:
    """Append the set ``got`` to ``pieces``.  A shipped set's piece whose name is taken is named after its size
    too (``pentominoes+tetrominoes``: the tetrominoes I, T and L are I4, T4 and L4); a file's pieces keep their
    names, and a name already taken is an error."""
    names = {p.name for p in pieces}
    for p in got:
        if p.name in names and shipped and f"{p.name}{len(p.cells)}" not in names:
            p = replace(p, name=f"{p.name}{len(p.cells)}")
        if p.name in names:
            raise PuzzleInputError(f"--pieces: piece name {p.name} appears in two sets")
        names.add(p.name)
        pieces.append(p)


def with_options(pieces: Sequence[Piece], unlimited: bool = False, mirror: bool | None = None,
                 count: int | None = None) -> list[Piece]:
    """The pieces with the command line's piece options applied (``--unlimited``, ``--mirror``, ``--copies``)."""
    pieces = list(pieces)
    if unlimited:
        pieces = [p.with_(count=UNLIMITED) for p in pieces]
    elif count is not None:
        pieces = [p.with_(count=count) for p in pieces]
    if mirror is not None:
        pieces = [p.with_(turns="free" if mirror else "rotations") if p.turns != "fixed" else p for p in pieces]
    return pieces
