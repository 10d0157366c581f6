"""Snake cubes: a chain of unit cubes, each straight (``F``) or a corner (``J``), folded into a box.

Two notations are read:

* the letter string of the source document, one letter a cube: ``FFJJJFJJFJJJFJFJJJJFJFJFJFF``;
* segment lengths as in puzzle books, ``3,2,2,3,...``: the lengths of the straight runs, consecutive runs
  sharing their end cube (which is a corner).

The types of the two end cubes do not matter (nothing turns there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import permutations, product

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.limits import CELLS, CHAIN

#: The chain of the source document (a 3x3x3 wooden snake cube).
SOURCE_CHAIN = "FFJJJFJJFJJJFJFJJJJFJFJFJFF"

#: Unit vectors of the six directions, in the order the rules number them.
DIRECTIONS = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], dtype=np.int64)


@dataclass(frozen=True)
class Chain:
    """A snake chain: ``corners[k]`` is True when cube k turns (``J``)."""

    corners: tuple[bool, ...]

    @property
    def length(self) -> int:
        return len(self.corners)

    @property
    def letters(self) -> str:
        return "".join("J" if c else "F" for c in self.corners)

    def segments(self) -> list[int]:
        """Straight-run lengths (the book notation); the end cubes count as run ends."""
        runs, current = [], 1
        for k in range(1, self.length):
            current += 1
            if k < self.length - 1 and self.corners[k]:
                runs.append(current)
                current = 1
        runs.append(current)
        return runs

    def __str__(self) -> str:
        return self.letters


@dataclass(frozen=True)
class Box:
    """An a x b x c box of cells; cell index ``x + a*(y + b*z)``."""

    a: int
    b: int
    c: int

    @property
    def dims(self) -> tuple[int, int, int]:
        return (self.a, self.b, self.c)

    @property
    def volume(self) -> int:
        return self.a * self.b * self.c

    def __str__(self) -> str:
        return f"{self.a}x{self.b}x{self.c}"

    def coords(self) -> np.ndarray:
        """(volume, 3) array of the (x, y, z) of every cell, by cell index."""
        z, y, x = np.meshgrid(np.arange(self.c), np.arange(self.b), np.arange(self.a), indexing="ij")
        return np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1).astype(np.int64)

    def index(self, x, y, z):
        return x + self.a * (y + self.b * z)

    def symmetries(self) -> np.ndarray:
        """Cell permutations of the box's symmetries (rotations and reflections mapping it onto itself).

        Returns an (|G|, volume) array: row g maps cell i to cell ``perm[g, i]``; row 0 is the identity.
        |G| is 48 for a cube, 16 when two sides are equal, 8 otherwise — fewer for flat boxes, where isometries
        that differ only by flipping a side of length 1 move no cell and count once.
        """
        xyz = self.coords()
        dims = np.array(self.dims)
        perms = []
        for axes in permutations(range(3)):
            if any(dims[axes[i]] != dims[i] for i in range(3)):
                continue
            for flips in product((False, True), repeat=3):
                new = xyz[:, list(axes)].copy()
                for i in range(3):
                    if flips[i]:
                        new[:, i] = dims[i] - 1 - new[:, i]
                perms.append(tuple(self.index(new[:, 0], new[:, 1], new[:, 2])))
        return np.array(list(dict.fromkeys(perms)), dtype=np.int64)  # distinct, identity first


_LETTERS = re.compile(r"^[FJ]+$")
_SEGMENTS = re.compile(r"^\d+(,\d+)*$")


def parse_chain(text: str) -> Chain:
    """Read a chain in letter notation (``FJJF...``) or segment notation (``3,2,2,...``).

    Raises
    ------
    PuzzleInputError
        Characters other than F/J (or digits and commas), a segment shorter than 2, or fewer than 2 cubes.
    """
    s = "".join(text.split()).upper()
    if not s:
        raise PuzzleInputError("chain: empty; give letters F/J (e.g. FFJJ...) or segment lengths (e.g. 3,2,2)")
    if _LETTERS.match(s):
        if len(s) < 2:
            raise PuzzleInputError(f"chain {text!r}: a chain needs at least 2 cubes")
        CHAIN.check(len(s), f"chain {_short(text)}")
        return Chain(tuple(ch == "J" for ch in s))
    if _SEGMENTS.match(s):
        lengths = [int(v) for v in s.split(",")]
        for i, v in enumerate(lengths):
            if v < 2:
                raise PuzzleInputError(
                    f"chain {text!r}: segment {i + 1} has length {v}; every straight run has at least 2 cubes")
        CHAIN.check(1 + sum(v - 1 for v in lengths), f"chain {_short(text)}")  # before building it
        corners = [False]
        for i, v in enumerate(lengths):
            # each run adds v - 1 cubes: its straights, then its end cube (a corner unless it ends the chain)
            corners += [False] * (v - 2) + [i < len(lengths) - 1]
        return Chain(tuple(corners))
    bad = next((i for i, ch in enumerate(s) if ch not in "FJ0123456789,"), None)
    if bad is not None:
        raise PuzzleInputError(
            f"chain {text!r}: unexpected character {s[bad]!r} at position {bad + 1}; "
            "use letters F/J or comma-separated segment lengths")
    raise PuzzleInputError(f"chain {text!r}: mixes letters and digits, or has a misplaced comma; "
                           "use letters F/J or comma-separated segment lengths")


def _short(text: str) -> str:
    return repr(text) if len(text) <= 40 else repr(text[:37] + "...")


def parse_box(text: str) -> Box:
    """Read ``AxBxC`` (``AxB`` means a single layer ``AxBx1``)."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        dims = [int(p) for p in parts]
    except ValueError:
        raise PuzzleInputError(f"box {text!r}: expected AxBxC with positive integers, e.g. 3x3x3") from None
    if len(dims) == 2:
        dims.append(1)
    if len(dims) != 3 or min(dims) < 1:
        raise PuzzleInputError(f"box {text!r}: expected AxBxC with positive integers, e.g. 3x3x3")
    CELLS.check(dims[0] * dims[1] * dims[2], f"box {_short(text)}")
    return Box(*dims)


def default_box(chain: Chain) -> Box:
    """The n x n x n cube whose volume is the chain length."""
    n = round(chain.length ** (1 / 3))
    for m in (n - 1, n, n + 1):
        if m > 0 and m ** 3 == chain.length:
            return Box(m, m, m)
    raise PuzzleInputError(
        f"chain of {chain.length} cubes: not a cube number, so no default n x n x n box; give --box AxBxC")


def check_fits(chain: Chain, box: Box) -> None:
    """Raise a one-line error when the chain cannot fill the box for a reason visible before searching."""
    if chain.length != box.volume:
        raise PuzzleInputError(
            f"chain of {chain.length} cubes does not fill box {box} of volume {box.volume}")
    longest = max(chain.segments())
    if longest > max(box.dims):
        raise PuzzleInputError(
            f"box {box} is impossible for this chain: it has a straight run of {longest} cubes, "
            f"longer than the box's longest side {max(box.dims)}")


def is_valid_embedding(chain: Chain, box: Box, cells: np.ndarray) -> bool:
    """Check a folding independently of the search: every cell once, unit steps, turns exactly at corners."""
    xyz = box.coords()[np.asarray(cells)]
    if len(set(int(c) for c in cells)) != box.volume or len(cells) != chain.length:
        return False
    steps = np.diff(xyz, axis=0)
    if not np.all(np.abs(steps).sum(axis=1) == 1):
        return False
    for k in range(1, chain.length - 1):
        straight = bool(np.all(steps[k - 1] == steps[k]))
        if straight == chain.corners[k]:
            return False
    return True
