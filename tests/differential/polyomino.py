"""Differential testing of the polyomino family: random small packing instances, answered by independent oracles
and by every way the package has to answer them, compared key by key.

An *instance* is a JSON-able dict, so that a disagreement can be replayed from its message
(``check(json.loads(...))``):

``board``
    ``"WxH"``, ``"WxHxD"`` or a board drawing (rows of ``.`` cells and ``#`` holes joined by newlines), read by
    :func:`packing.parse_board` / :func:`packing.parse_board_text`.  A drawing's holes never empty a whole border
    row or column, so the board's symmetries are those of its cells.
``pieces`` / ``custom``
    a ``--pieces`` value (named sets joined by ``+``), or random pieces ``[{"name", "cells", "turns", "count"}]``
    (``count`` -1: unlimited) together with ``pieces_text``, the piece file the package reads
    (:func:`shapes.parse_pieces`); the oracles take ``custom``'s cells, not the package's parse of them.
``subset``
    the names of the pieces kept from the set (None: all of them).
``copies``
    the piece option of the command line: ``"unlimited"``, a number of copies of every piece (1: one each) or
    None (the pieces as given).
``mirror``
    ``--mirror`` (True: every piece may be turned over), ``--no-mirror`` (False: rotations only) or None.
``settings``
    tiny :class:`~puzzlebatch.runners.engine.search.SearchSettings` ``[budget, batch_size, frontier_target,
    first_batch_size]`` that cut the search into many work items, launches and splits.
``mode`` / ``sink_distinct``
    the branching rule of the ways with tiny settings; whether the enumeration breaks the board's symmetries
    (``distinct=True``) or searches every solution.
``resume_every`` / ``heuristic``
    how many launches a count runs before it stops and is resumed from the work left (``max_batches``,
    ``frontier``, ``totals``); the option order of the first-solution search with tiny settings.
``threads``
    the number of numba threads of the CPU ways with tiny settings (absent: numba's default).

What is compared (the keys of the answers):

``solutions``
    the number of packings.  Oracle: ``tests/reference/polyomino_oracle.count_tilings`` (Algorithm X on dicts of
    sets), cross-checked with this module's own enumeration (a first-empty-cell recursion on bit masks) and,
    where every piece is unlimited or one each, with the ``xcover`` package (dancing links).
``distinct``
    the classes of packings under the board's symmetries (the isometries of the board's box that keep its cells
    and map the pieces onto pieces with as many copies: a one-sided piece onto its mirror image).  Oracle: the
    orbits of the enumerated packings under that group, computed here from the board and the pieces;
    cross-checked with ``tests/reference/tiling_classes_oracle.py`` on rectangles with unlimited free pieces.
``tilings`` / ``rows`` / ``distinct_rows``
    the enumeration (``count_packing_run(..., sink=rows.append)``): every packing once, as a set of (piece,
    cells) pairs, equal to the oracle's set; as many rows as packings, none twice.
``solvable`` / ``solution``
    :func:`solve_packing` finds a packing iff there is one, and the packing it returns is one of the oracle's.

The package answers (:func:`ways`) on the CPU with its default settings in each branching rule (``first``,
``mrv``, ``enclosed``), without the region test (``prune=False``), without symmetry breaking
(``distinct=False``), with the tiny settings in the instance's rule (in one go, and stopped and resumed), by
enumeration into a sink (tiny settings) and by first-solution searches (default and tiny settings); with
``cuda=True`` also on the ``cuda`` backend (numba's simulator under ``NUMBA_ENABLE_CUDASIM=1``: every simulated
thread is a Python thread, so only on boards of at most :data:`CUDA_MAX_CELLS` cells): a count, an enumeration
and a solve with the tiny settings.

Random draws have at most :data:`MAX_PACKINGS` packings; :func:`boundary_instances` are a few larger ones, past
the 2^14 solutions a buffer used to hold.

Nothing here imports pytest; ``python -m tests.differential.polyomino [N] [SEED] [--cuda]`` checks N random
instances (run it from the repository root).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import random
from math import gcd
from typing import Callable

from tests.reference import polyomino_oracle as reference
from tests.reference import tiling_classes_oracle as classes_reference

Cell = tuple
Tiling = frozenset  # of (piece index, frozenset of cells)

UNLIMITED = -1
CUDA_MAX_CELLS = 12  # the simulator runs every thread in Python: keep its instances tiny
CLASSES_REFERENCE_MAX = 3000  # tiling_classes_oracle canonicalises every tiling in Python: only up to this many
BOUNDARY = 1 << 14  # a count used to keep at most this many solutions of a symmetric subproblem
MAX_PACKINGS = 1000  # the most packings a random draw may have
HEURISTICS = ("none", "ascender", "descender", "compactness", "compactness_inverse", "perimeter",
              "perimeter_inverse", "holes", "holes_inverse")  # the option orders of solve_packing

# -- drawing instances ---------------------------------------------------------------------------------------------
# 2D named sets: (--pieces value, the largest board for each piece option).  The limits keep the slow oracles in
# well under a second (the counts stay in the low thousands).
SETS_2D = [
    ("dominoes", {"unlimited": 24, "copies": 24, "one": 8}),
    ("trominoes", {"unlimited": 18, "copies": 21, "one": 9}),
    ("L-trominoes", {"unlimited": 24, "copies": 24, "one": 9}),
    ("tetrominoes", {"unlimited": 20, "copies": 20, "one": 20}),
    ("pentominoes", {"unlimited": 15, "copies": 20, "one": 20}),
    ("dominoes+trominoes", {"unlimited": 10, "copies": 14, "one": 12}),
    ("trominoes+tetrominoes", {"unlimited": 12, "copies": 14, "one": 16}),
]
BOXES = [(2, 2, 2), (2, 2, 3), (2, 3, 2), (3, 2, 2), (1, 2, 4), (2, 4, 1), (1, 3, 4), (2, 2, 4), (1, 4, 4)]


def draw(rng: random.Random, max_cells: int = 24) -> dict:
    """One random small instance (see the module's docstring), every piece option, board kind and piece kind
    represented; at most ``max_cells`` cells.

    Most draws have packings: a draw whose cells cannot be an area of its pieces (not a multiple of the gcd of
    their sizes, or more than all their copies cover) is drawn again five times in six, one without packings
    (counted by the reference oracle) three times in five.  A draw with more than :data:`MAX_PACKINGS` packings
    is drawn again, which keeps every way of the package, tiny work units included, to a fraction of a second."""
    while True:
        inst = _draw_once(rng, max_cells)
        if not _area_possible(inst) and rng.random() >= 1 / 6:
            continue
        n = _packings_up_to(inst, MAX_PACKINGS + 1)
        if n <= MAX_PACKINGS and (n > 0 or rng.random() < 0.4):
            return inst


def _packings_up_to(inst: dict, limit: int) -> int:
    """The instance's packings, counted up to ``limit`` (Algorithm X of the reference, stopped there)."""
    cells = board_cells(inst["board"])
    pieces, mirror, copies = oracle_pieces(inst)
    orient = _orientations_fn(len(cells[0]))
    options, owner = [], []
    for k, p in enumerate(pieces):
        for pl in reference.placements(cells, orient(p, mirror)):
            options.append(tuple(pl))
            owner.append(k)
    return reference.algorithm_x_count(cells, [], options, dict(enumerate(copies)), owner, limit=limit)


def _area_possible(inst: dict) -> bool:
    """Whether the board's cell count is a multiple of the gcd of the piece sizes and within what they cover."""
    n = len(board_cells(inst["board"]))
    pieces, _, copies = oracle_pieces(inst)
    g = 0
    for p in pieces:
        g = gcd(g, len(p))
    return g > 0 and n % g == 0 and (None in copies or sum(len(p) * c for p, c in zip(pieces, copies)) >= n)


def _draw_once(rng: random.Random, max_cells: int) -> dict:
    kind = rng.choices(["rect", "holes", "box", "custom2", "custom3"], weights=[6, 3, 2, 2, 1.5])[0]
    inst: dict = {}
    if kind in ("rect", "holes"):
        spec, limits = rng.choice(SETS_2D)
        option = rng.choice(list(limits))
        w, h = _rect(rng, min(max_cells, limits[option]))
        inst["board"] = f"{w}x{h}" if kind == "rect" else _drawing(rng, w, h)
        inst["pieces"] = spec
        _piece_option(rng, inst, option)
        if rng.random() < 0.2:
            inst["mirror"] = False  # one-sided pieces: a reflection of the board is a symmetry only sometimes
    elif kind == "box":
        boxes = [b for b in BOXES if b[0] * b[1] * b[2] <= max_cells]
        size = rng.choice(boxes)
        inst["board"] = "x".join(map(str, size))
        inst["pieces"] = "tetracubes"
        n = size[0] * size[1] * size[2]
        option = rng.choice(["unlimited", "copies", "one"] if n <= 12 else ["one"])
        _piece_option(rng, inst, option)
        if rng.random() < 0.25:
            inst["mirror"] = True  # mirror pairs become one free shape twice
    else:
        dim = 2 if kind == "custom2" else 3
        if dim == 2:
            w, h = _rect(rng, min(max_cells, 12))
            inst["board"] = f"{w}x{h}" if rng.random() < 0.6 else _drawing(rng, w, h)
        else:
            size = rng.choice([b for b in BOXES if b[0] * b[1] * b[2] <= min(max_cells, 12)])
            inst["board"] = "x".join(map(str, size))
        _custom_pieces(rng, inst, dim)
    # Budgets of a few nodes on small boards; larger ones where the trees are larger or many (a solid board has up
    # to 48 symmetries, and each of them can be a count of its own).
    cells = board_cells(inst["board"])
    if len(cells) <= 8:
        budget, batch = rng.randint(1, 7), rng.randint(1, 5)
    elif len(cells) <= 12 and len(cells[0]) == 2:
        budget = rng.randint(1, 7)
        batch = rng.randint(-(-4 // budget), 5)  # at least 4 nodes a launch
    elif len(cells[0]) == 2:
        budget, batch = rng.randint(8, 40), rng.randint(1, 5)
    else:
        budget, batch = rng.randint(16, 64), rng.randint(1, 5)
    inst["settings"] = [budget, batch, rng.randint(1, 3), rng.randint(1, 2)]
    # Mostly one thread: a launch of a few nodes on two threads waits for the second thread to wake, which on a
    # busy machine costs milliseconds, and these settings make hundreds of launches.
    inst["threads"] = 1 if rng.random() < 0.8 else 2
    inst["mode"] = rng.choice(["first", "mrv", "enclosed"])
    inst["sink_distinct"] = rng.random() < 0.5
    inst["resume_every"] = rng.choice([1, 4, 16])
    inst["heuristic"] = rng.choice(HEURISTICS)
    return inst


def _rect(rng: random.Random, cells: int) -> tuple[int, int]:
    """A rectangle of 2 to ``cells`` cells, larger ones likelier (most small rectangles have few packings)."""
    while True:
        w, h = rng.randint(1, 8), rng.randint(2, 8)
        if 2 <= w * h <= cells and rng.random() < (w * h / cells) ** 0.5:
            return w, h


def _drawing(rng: random.Random, w: int, h: int) -> str:
    """A w x h board with one to three holes, none emptying a border row or column (else a plain rectangle)."""
    for _ in range(20):
        holes = set(rng.sample([(x, y) for x in range(w) for y in range(h)], min(w * h - 1, rng.randint(1, 3))))
        cells = {(x, y) for x in range(w) for y in range(h)} - holes
        if {x for x, _ in cells} >= {0, w - 1} and {y for _, y in cells} >= {0, h - 1}:
            return "\n".join("".join("#" if (x, y) in holes else "." for x in range(w)) for y in range(h))
    return f"{w}x{h}"


def _named_names(spec: str) -> list[str]:
    from puzzlebatch.puzzles.polyomino import shapes as S

    return [p.name for p in S.load_pieces(spec)]


def _piece_option(rng: random.Random, inst: dict, option: str) -> None:
    """``copies`` for the option ("unlimited", "copies": 2 or 3, "one": --copies 1 or the set's own single copies)
    and, two times in five, a subset of the named set."""
    names = _named_names(inst["pieces"])
    if option == "unlimited":
        inst["copies"] = "unlimited"
    elif option == "copies":
        inst["copies"] = rng.randint(2, 3)
    else:
        inst["copies"] = 1 if rng.random() < 0.8 else None  # --copies 1 or the set's own single copies
    if rng.random() < 0.4 and len(names) > 1:
        inst["subset"] = sorted(rng.sample(names, rng.randint(1, len(names) - 1)))


def _grow(rng: random.Random, size: int, dim: int) -> list[Cell]:
    """A random connected shape of ``size`` cells (grown cell by cell from one), normalised."""
    cells = {(0,) * dim}
    while len(cells) < size:
        c = rng.choice(sorted(cells))
        axis, step = rng.randrange(dim), rng.choice((-1, 1))
        cells.add(c[:axis] + (c[axis] + step,) + c[axis + 1:])
    lo = [min(c[i] for c in cells) for i in range(dim)]
    return sorted(tuple(v - m for v, m in zip(c, lo)) for c in cells)


def _custom_pieces(rng: random.Random, inst: dict, dim: int) -> None:
    """One to three random pieces of one to four cells, each with its own number of copies, as a piece file:
    2D pieces drawn (``#``/``.``) or listed as cells, 3D pieces listed as cells."""
    turns = rng.choice(["free", "rotations"])
    orient = _orientations_fn(dim)
    pieces, seen = [], []
    for k in range(rng.randint(1, 3)):
        size = rng.choice([1, 2, 2, 3, 3, 4])
        cells = _grow(rng, size, dim)
        cls = orient(cells, turns == "free")
        if turns != "free" and cls in seen:
            continue  # two one-sided pieces of one shape: which one a reflection maps to is not defined
        seen.append(cls)
        count = rng.choice([UNLIMITED, 1, 2, 3]) if size > 1 else rng.choice([1, 2])  # few monominoes
        pieces.append({"name": f"P{k}", "cells": [list(c) for c in cells], "turns": turns, "count": count})
    inst["custom"] = pieces
    inst["pieces_text"] = _piece_file(rng, pieces)


def _piece_file(rng: random.Random, pieces: list[dict]) -> str:
    """The piece file of ``pieces`` (header options only where they differ from the defaults)."""
    out = ["; random pieces"]
    for p in pieces:
        cells = [tuple(c) for c in p["cells"]]
        opts = ""
        if p["turns"] != ("free" if len(cells[0]) == 2 else "rotations"):
            opts += f" turns={p['turns']}"
        if p["count"] != 1:
            opts += " count=" + ("unlimited" if p["count"] == UNLIMITED else str(p["count"]))
        if len(cells[0]) == 2 and rng.random() < 0.5:
            w, h = max(x for x, _ in cells) + 1, max(y for _, y in cells) + 1
            rows = ["".join("#" if (x, y) in cells else "." for x in range(w)) for y in range(h)]
            out.append(f"{p['name']}{opts}:\n" + "\n".join(rows) + "\n")
        else:
            out.append(f"{p['name']}{opts}: " + " ".join(",".join(map(str, c)) for c in cells) + "\n")
    return "\n".join(out)


def boundary_instances() -> list[dict]:
    """Instances with more than :data:`BOUNDARY` (2^14) packings, where a count used to enumerate a symmetric
    subproblem into a buffer of 2^14 solutions and lose the rest: dominoes on 4x10 with any number of copies
    (the classes by Burnside's lemma), as exactly 20 copies on 10x4 (copy limits: the classes by streaming
    every solution), and solid dominoes, 16 copies, on a 2x2x8 box (3D, 16 symmetries)."""
    big = [4096, 64, 16, 8]  # work items still stop and split, at a cost these 10^4-10^5-node trees can afford
    every = {"resume_every": 4}
    solid = [{"name": "D", "cells": [[0, 0, 0], [1, 0, 0]], "turns": "rotations", "count": 16}]
    return [
        {"board": "4x10", "pieces": "dominoes", "copies": "unlimited", "settings": big, "mode": "first",
         "sink_distinct": True} | every,
        {"board": "10x4", "pieces": "dominoes", "copies": 20, "settings": big, "mode": "mrv",
         "sink_distinct": True} | every,
        {"board": "2x2x8", "custom": solid, "pieces_text": "D count=16: 0,0,0 1,0,0\n", "settings": big,
         "mode": "enclosed", "sink_distinct": False} | every,
    ]


# -- the instance, for the package and for the oracles -----------------------------------------------------------
def board_cells(board: str) -> list[Cell]:
    """The board's cells, read here (not by the package): a box's every cell, a drawing's ``.``."""
    if "\n" in board:
        return sorted((x, y) for y, row in enumerate(board.split("\n")) for x, ch in enumerate(row) if ch == ".")
    size = [int(v) for v in board.split("x")]
    return sorted(itertools.product(*[range(s) for s in size]))


def package_pieces(inst: dict) -> list:
    """The pieces as the command line would make them (:func:`shapes.load_pieces` or the piece file, the subset,
    then ``--unlimited`` / ``--copies`` / ``--mirror``)."""
    from puzzlebatch.puzzles.polyomino import shapes as S

    pieces = S.parse_pieces(inst["pieces_text"], "<random pieces>") if "custom" in inst else \
        S.load_pieces(inst["pieces"])
    if inst.get("subset") is not None:
        pieces = [p for p in pieces if p.name in inst["subset"]]
    copies = inst.get("copies")
    return S.with_options(pieces, unlimited=copies == "unlimited", mirror=inst.get("mirror"),
                          count=copies if isinstance(copies, int) else None)


def build(inst: dict):
    """The instance as a :class:`packing.Packing`."""
    from puzzlebatch.puzzles.polyomino import packing as P

    board = P.parse_board_text(inst["board"]) if "\n" in inst["board"] else P.parse_board(inst["board"])
    return P.build(board, package_pieces(inst))


def oracle_pieces(inst: dict) -> tuple[list[list[Cell]], bool, list[int | None]]:
    """(cells of each piece, mirror allowed, copies of each piece with None for unlimited), for the oracles.

    Random pieces come from the instance itself; named sets from the package's shipped files (their drawings
    are data, not code under test: the tests of the package read them the same way)."""
    if "custom" in inst:
        cells = [[tuple(c) for c in p["cells"]] for p in inst["custom"]]
        mirror = inst["custom"][0]["turns"] == "free"
        copies = [None if p["count"] == UNLIMITED else p["count"] for p in inst["custom"]]
        return cells, mirror, copies
    from puzzlebatch.puzzles.polyomino import shapes as S

    pieces = S.load_pieces(inst["pieces"])
    if inst.get("subset") is not None:
        pieces = [p for p in pieces if p.name in inst["subset"]]
    dim = pieces[0].dim
    mirror = inst.get("mirror")
    mirror = (dim == 2) if mirror is None else mirror
    c = inst.get("copies")
    copies = [None if c == "unlimited" else (c if isinstance(c, int) else p.count) for p in pieces]
    return [sorted(p.cells) for p in pieces], mirror, copies


# -- the oracles -----------------------------------------------------------------------------------------------------
def _orientations_fn(dim: int) -> Callable:
    """``orient(cells, mirror)``: the reference oracle's orientations of a piece, as a frozenset (its class)."""
    fn = reference.orientations_2d if dim == 2 else reference.orientations_3d
    return lambda cells, mirror: frozenset(fn(cells, mirror))


def _norm(cells) -> frozenset:
    """The cells translated so that every coordinate's minimum is 0."""
    lo = [min(c[i] for c in cells) for i in range(len(cells[0]))]
    return frozenset(tuple(v - m for v, m in zip(c, lo)) for c in cells)


def enumerate_tilings(cells: list[Cell], pieces: list[list[Cell]], mirror: bool,
                      copies: list[int | None]) -> list[Tiling]:
    """Every packing of the board, each a frozenset of (piece index, frozenset of cells) (see
    :func:`enumerate_masks`)."""
    return as_tilings(*enumerate_masks(cells, pieces, mirror, copies))


def as_tilings(order: list[Cell], raw: list[tuple[tuple[int, int], ...]]) -> list[Tiling]:
    """Packings of (piece, placement mask) pairs as frozensets of (piece, frozenset of cells)."""
    cells_of: dict[int, frozenset] = {}
    out = []
    for t in raw:
        for _, m in t:
            if m not in cells_of:
                cells_of[m] = frozenset(c for i, c in enumerate(order) if m >> i & 1)
        out.append(frozenset((k, cells_of[m]) for k, m in t))
    return out


def enumerate_masks(cells: list[Cell], pieces: list[list[Cell]], mirror: bool,
                    copies: list[int | None]) -> tuple[list[Cell], list[tuple[tuple[int, int], ...]]]:
    """Every packing of the board as (piece index, placement) pairs, a placement being a bit mask over the cells
    in lexicographic order (returned first).

    The first empty cell is covered in every way a piece with copies left can cover it: by an orientation
    anchored there at its own first cell.  A branch stops when the empty cells cannot be an area of the pieces
    left (not a multiple of the gcd of their sizes, or more than they cover)."""
    dim = len(cells[0])
    orient = _orientations_fn(dim)
    order = sorted(cells)
    bit = {c: 1 << i for i, c in enumerate(order)}
    anchored: list[list[tuple[int, int]]] = [[] for _ in order]  # per cell: (piece, placement mask) anchored there
    for k, p in enumerate(pieces):
        for o in sorted(orient(p, mirror), key=sorted):
            a = min(o)
            offs = [tuple(v - w for v, w in zip(c, a)) for c in o]
            for i, c in enumerate(order):
                pl = [tuple(v + d for v, d in zip(c, off)) for off in offs]
                if all(q in bit for q in pl):
                    anchored[i].append((k, sum(bit[q] for q in pl)))
    sizes = [len(p) for p in pieces]
    left = list(copies)
    chosen: list[tuple[int, int]] = []
    found: list[tuple[tuple[int, int], ...]] = []

    def area_ok(n_empty: int) -> bool:
        live = [k for k in range(len(pieces)) if left[k] != 0]
        g = 0
        for k in live:
            g = gcd(g, sizes[k])
        if g == 0 or n_empty % g:
            return False
        return any(left[k] is None for k in live) or sum(sizes[k] * left[k] for k in live) >= n_empty

    def rec(empty: int) -> None:
        if not empty:
            found.append(tuple(chosen))
            return
        if not area_ok(bin(empty).count("1")):
            return
        low = empty & -empty
        for k, m in anchored[low.bit_length() - 1]:
            if left[k] != 0 and m & empty == m:
                if left[k] is not None:
                    left[k] -= 1
                chosen.append((k, m))
                rec(empty ^ m)
                chosen.pop()
                if left[k] is not None:
                    left[k] += 1

    rec((1 << len(order)) - 1)
    return order, found


def board_group(cells: list[Cell], pieces: list[list[Cell]], mirror: bool,
                copies: list[int | None]) -> list[tuple[Callable, list[int]]]:
    """The board's symmetries as (cell map, piece relabelling): every axis permutation with flips that maps the
    board's box and cells onto themselves, where each piece's image is a piece with as many copies (itself when
    the piece may be turned that way; its mirror image for a one-sided piece and a reflection)."""
    dim = len(cells[0])
    size = [max(c[i] for c in cells) + 1 for i in range(dim)]
    orient = _orientations_fn(dim)
    classes = [orient(p, mirror) for p in pieces]
    board = set(cells)
    group = []
    for perm in itertools.permutations(range(dim)):
        if any(size[perm[i]] != size[i] for i in range(dim)):
            continue
        for flips in itertools.product((False, True), repeat=dim):
            def f(c, perm=perm, flips=flips):
                return tuple(size[i] - 1 - c[perm[i]] if flips[i] else c[perm[i]] for i in range(dim))

            if {f(c) for c in cells} != board:
                continue
            sigma = []
            for k, p in enumerate(pieces):
                img = _norm([f(c) for c in p])
                match = [k] if img in classes[k] else [j for j, cls in enumerate(classes)
                                                        if img in cls and copies[j] == copies[k]]
                if not match:
                    break
                sigma.append(match[0])
            if len(sigma) == len(pieces) and len(set(sigma)) == len(sigma):
                group.append((f, sigma))
    return group


def count_classes(order: list[Cell], raw: list[tuple[tuple[int, int], ...]], group) -> int:
    """How many orbits the packings ``raw`` (see :func:`enumerate_masks`) fall into under ``group`` (see
    :func:`board_group`): a packing not seen yet starts a new orbit, and its images are marked seen."""
    index = {c: i for i, c in enumerate(order)}
    perms = [([index[f(c)] for c in order], sigma) for f, sigma in group]
    image: list[dict[int, int]] = [{} for _ in perms]

    def moved(g: int, m: int) -> int:
        got = image[g].get(m)
        if got is None:
            perm = perms[g][0]
            got = sum(1 << perm[i] for i in range(len(order)) if m >> i & 1)
            image[g][m] = got
        return got

    seen: set[frozenset] = set()
    orbits = 0
    for t in raw:
        if frozenset(t) in seen:
            continue
        orbits += 1
        for g, (_, sigma) in enumerate(perms):
            seen.add(frozenset((sigma[k], moved(g, m)) for k, m in t))
    return orbits


def _xcover_count(cells, pieces, mirror, copies) -> int | None:
    """The count by the ``xcover`` package's dancing links, where every piece is unlimited or one each (a piece
    used once is an item: primary when every piece must be used, else secondary); None where it does not apply."""
    if any(c not in (None, 1) for c in copies):
        return None
    try:
        import xcover
    except ImportError:
        return None
    orient = _orientations_fn(len(cells[0]))
    name = {c: ",".join(map(str, c)) for c in cells}
    options = []
    for k, p in enumerate(pieces):
        for pl in reference.placements(cells, orient(p, mirror)):
            options.append([name[c] for c in sorted(pl)] + ([f"#piece{k}"] if copies[k] == 1 else []))
    once = [f"#piece{k}" for k, c in enumerate(copies) if c == 1]
    exact = all(c == 1 for c in copies) and sum(len(p) for p in pieces) == len(cells)
    primary = [name[c] for c in cells] + (once if exact else [])
    secondary = [] if exact else once
    used = {i for o in options for i in o}
    if not set(primary) <= used:
        return 0  # an item no option covers (xcover wants every item in some option)
    return sum(1 for _ in xcover.covers(options, primary=primary, secondary=[s for s in secondary if s in used]))


def oracle_views(inst: dict) -> list[tuple[str, dict]]:
    """The oracles' answers, each named: the first is the reference, the others cross-check it."""
    cells = board_cells(inst["board"])
    pieces, mirror, copies = oracle_pieces(inst)
    total = reference.count_tilings(cells, pieces, dim=len(cells[0]), mirror=mirror, copies=copies)
    order, raw = enumerate_masks(cells, pieces, mirror, copies)
    tilings = as_tilings(order, raw)
    distinct = count_classes(order, raw, board_group(cells, pieces, mirror, copies))
    views = [("oracle:count_tilings", {"solutions": total, "solvable": total > 0}),
             ("oracle:enumeration", {"solutions": len(tilings), "distinct": distinct, "tilings": set(tilings),
                                     "rows": len(tilings), "distinct_rows": len(set(tilings))})]
    n = _xcover_count(cells, pieces, mirror, copies)
    if n is not None:
        views.append(("oracle:xcover", {"solutions": n}))
    orients = _orientations_fn(2)
    if ("\n" not in inst["board"] and len(cells[0]) == 2 and mirror and all(c is None for c in copies)
            and len({orients(p, True) for p in pieces}) == len(pieces) and total <= CLASSES_REFERENCE_MAX):
        w, h = (int(v) for v in inst["board"].split("x"))
        found = classes_reference.tilings(w, h, pieces)
        views.append(("oracle:tiling_classes", {"solutions": len(found),
                                                "distinct": classes_reference.classes(w, h, found)}))
    return views


def oracle(inst: dict) -> dict:
    """The oracles' answer: for each key, the reference oracle's value (see :func:`oracle_views`)."""
    out: dict = {}
    for _, view in oracle_views(inst):
        for key, value in view.items():
            out.setdefault(key, value)
    return out


# -- the package's ways --------------------------------------------------------------------------------------------
def _tiling(placements) -> Tiling:
    """The package's (piece index, cells array) placements as a packing comparable with the oracle's."""
    return frozenset((int(k), frozenset(tuple(int(v) for v in c) for c in cells)) for k, cells in placements)


@contextlib.contextmanager
def numba_threads(n: int | None):
    """Run the CPU drivers on ``n`` threads (None: numba's default), restored after."""
    if n is None:
        yield
        return
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(max(1, min(n, numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(before)


def ways(inst: dict, cuda: bool = False) -> list[tuple[str, Callable[[], dict]]]:
    """The ways the package answers the instance, each (name, callable returning a dict of the keys it knows).

    With ``cuda`` and a board of at most :data:`CUDA_MAX_CELLS` cells, also the ``cuda`` backend (the simulator
    under ``NUMBA_ENABLE_CUDASIM=1``) with the tiny settings."""
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.search import SearchSettings
    from puzzlebatch.runners.polyomino import solver as RP

    pk = build(inst)
    cpu = select_backend("cpu")
    mode, sink_distinct, heuristic = inst["mode"], inst["sink_distinct"], inst.get("heuristic", "none")
    tiny = SearchSettings(*inst["settings"])
    tiny_name = "budget={},batch={},frontier={},first={}".format(*inst["settings"])
    threads = inst.get("threads")
    if threads is not None:
        tiny_name += f" threads={threads}"

    def count(backend, **kw) -> Callable[[], dict]:
        def run() -> dict:
            r = RP.count_packing(pk, backend, **kw)
            out = {"solutions": r.solutions}
            if kw.get("distinct", True):
                out["distinct"] = r.distinct
            if not r.complete:
                out["complete"] = False  # the oracle has no such key: a disagreement of its own, below
            return out
        return run

    placement: dict[int, tuple[int, frozenset]] = {}  # option id -> (piece, cells), made once

    def packing(row) -> Tiling:
        for o in row:
            if o >= 0 and o not in placement:
                placement[o] = next(iter(_tiling(RP.solution_cells(pk, [o]))))
        return frozenset(placement[o] for o in row if o >= 0)

    def enumeration(backend, settings, distinct) -> Callable[[], dict]:
        def run() -> dict:
            rows: list = []
            r, _, _ = RP.count_packing_run(pk, backend, mode, settings=settings, distinct=distinct,
                                           sink=rows.append)
            tilings = [packing(row) for block in rows for row in block.tolist()]
            out = {"solutions": r.solutions, "rows": len(tilings), "distinct_rows": len(set(tilings)),
                   "tilings": set(tilings)}
            if distinct:
                out["distinct"] = r.distinct
            return out
        return run

    def resumed(backend, settings, every: int) -> Callable[[], dict]:
        """The count stopped every ``every`` launches and resumed from the work left and the running totals
        (what ``--max-batches`` and ``--resume`` do through a checkpoint)."""
        def run() -> dict:
            r, left, totals = RP.count_packing_run(pk, backend, mode, settings=settings, max_batches=every)
            for _ in range(100_000):
                if r.complete:
                    return {"solutions": r.solutions, "distinct": r.distinct}
                batches = totals.batches
                r, left, totals = RP.count_packing_run(pk, backend, mode, settings=settings, frontier=left,
                                                       totals=totals, max_batches=totals.batches + every)
                if totals.batches == batches and not r.complete:
                    break
            return {"complete": False}  # no launch and no end: reported as a disagreement
        return run

    def solve(backend, **kw) -> Callable[[], dict]:
        def run() -> dict:
            r = RP.solve_packing(pk, backend, **kw)
            return {"solvable": r.solved, "solution": _tiling(r.placements) if r.solved else None}
        return run

    def on_threads(fn: Callable[[], dict]) -> Callable[[], dict]:
        def run() -> dict:
            with numba_threads(threads):
                return fn()
        return run

    out = [("cpu", count(cpu)),
           ("cpu distinct=False", count(cpu, distinct=False)),
           ("cpu prune=False", count(cpu, prune=False)),
           ("cpu mrv", count(cpu, mode="mrv")),
           ("cpu enclosed", count(cpu, mode="enclosed")),
           (f"cpu {mode} {tiny_name}", on_threads(count(cpu, mode=mode, settings=tiny))),
           (f"cpu {mode} resumed every {inst['resume_every']} launches {tiny_name}",
            on_threads(resumed(cpu, tiny, inst["resume_every"]))),
           (f"cpu sink {mode} distinct={sink_distinct} {tiny_name}",
            on_threads(enumeration(cpu, tiny, sink_distinct))),
           ("cpu solve", solve(cpu)),
           (f"cpu solve {mode} heuristic={heuristic} {tiny_name}",
            on_threads(solve(cpu, mode=mode, heuristic=heuristic, settings=tiny)))]
    if cuda and pk.board.n_cells <= CUDA_MAX_CELLS:
        gpu = select_backend("cuda")
        out += [(f"{gpu.name} {mode} {tiny_name}", count(gpu, mode=mode, settings=tiny)),
                (f"{gpu.name} sink {mode} distinct={sink_distinct} {tiny_name}",
                 enumeration(gpu, tiny, sink_distinct)),
                (f"{gpu.name} solve {mode} {tiny_name}", solve(gpu, mode=mode, settings=tiny))]
    return out


# -- the comparison ----------------------------------------------------------------------------------------------
def _show(value) -> str:
    """A value for a message: a set of packings by its size."""
    if isinstance(value, (set, frozenset)) and value and isinstance(next(iter(value)), frozenset):
        return f"{len(value)} packings"
    return repr(value)


def _tiling_text(t: Tiling) -> str:
    """A packing for a message: each piece's index and cells, in order."""
    return "[" + "; ".join(f"piece {k}: {sorted(cs)}" for k, cs in sorted(t, key=lambda kc: (kc[0], min(kc[1])))) \
        + "]"


def _differ(key: str, a_name: str, a, b_name: str, b) -> str:
    """The message for two answers that differ on ``key`` (for packings: one packing only either has)."""
    msg = f"{key}: {a_name} = {_show(a)} but {b_name} = {_show(b)}"
    if key == "tilings":
        only_a, only_b = sorted(a - b, key=_tiling_text), sorted(b - a, key=_tiling_text)
        if only_a:
            msg += f"; only {a_name}: {_tiling_text(only_a[0])} (+{len(only_a) - 1})"
        if only_b:
            msg += f"; only {b_name}: {_tiling_text(only_b[0])} (+{len(only_b) - 1})"
    return msg


def check(inst: dict, cuda: bool = False, views: list[tuple[str, dict]] | None = None) -> list[str]:
    """Every disagreement between the oracles and the package's ways on ``inst``, one message each naming the
    instance (as JSON) and the two answers that differ; empty when all agree.

    For each key the reference is the first oracle (then the first way) that gives it.  ``solution`` is checked
    against the oracle's packings: a solve's packing must be one of them, None only where there is none.
    ``views``: the oracles' answers if already computed (:func:`oracle_views`); ``cuda``: see :func:`ways`."""
    where = json.dumps(inst, sort_keys=True)
    try:
        answers = list(views) if views is not None else oracle_views(inst)
    except Exception as e:  # noqa: BLE001 - reported, not raised: the other instances still run
        return [f"instance {where}: the oracle raised {e!r}"]
    try:
        package_ways = ways(inst, cuda)
    except Exception as e:  # noqa: BLE001
        return [f"instance {where}: building the packing raised {e!r}"]
    msgs = []
    for name, fn in package_ways:
        try:
            answers.append((name, fn()))
        except Exception as e:  # noqa: BLE001
            msgs.append(f"instance {where}: {name} raised {e!r}")
    ref: dict = {}
    for name, ans in answers:
        for key, value in ans.items():
            if key == "solution":
                continue
            if key == "complete":
                msgs.append(f"instance {where}: {name} stopped before the end (complete=False)")
                continue
            if key not in ref:
                ref[key] = (name, value)
            elif ref[key][1] != value:
                msgs.append(f"instance {where}: " + _differ(key, ref[key][0], ref[key][1], name, value))
    tilings = ref.get("tilings", (None, None))[1]
    for name, ans in answers:
        if "solution" not in ans or tilings is None:
            continue
        sol = ans["solution"]
        if sol is not None and sol not in tilings:
            msgs.append(f"instance {where}: solution: {name} returned {_tiling_text(sol)}, not a packing of "
                        f"{ref['tilings'][0]}")
        if sol is None and tilings:
            msgs.append(f"instance {where}: solution: {name} found none but {ref['tilings'][0]} has "
                        f"{len(tilings)}")
    return msgs


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.differential.polyomino [N] [SEED] [--cuda]``: check N random instances (default 100)."""
    import os
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    cuda = "--cuda" in args
    args = [a for a in args if a != "--cuda"]
    if cuda:  # before numba.cuda is imported: the simulator, with small blocks (as tests/conftest.py sets them)
        os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
        os.environ.setdefault("PUZZLEBATCH_THREADS_PER_BLOCK", "8")
    n = int(args[0]) if args else 100
    rng = random.Random(int(args[1]) if len(args) > 1 else 0)
    bad = 0
    for _ in range(n):
        inst = draw(rng, CUDA_MAX_CELLS if cuda else 24)
        for msg in check(inst, cuda):
            bad += 1
            print(msg)
    print(f"{n} instances, {bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
