"""Boards, levels and packing problems: from pieces and a board to an :class:`ExactCover` with geometry.

Board text (``--board FILE``): ``.`` a cell to fill, ``#`` (or a space) a hole, layers of a 3D board separated by
blank lines; any letter is a cell already covered by that piece (a *level*).  ``WxH`` / ``WxHxD`` are rectangles
and boxes.  Coordinates are (x, y[, z]): x the column, y the row (downwards in text), z the layer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.limits import CELLS
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.puzzles.polyomino.cover import UNLIMITED, ExactCover, Geometry

GLYPHS = ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@$%&*+=<>~^"
          "ΓΔΘΛΞΠΣΦΨΩαβγδεζηθλμξπσφψωБДЖЗИЦЧШЩЪЫЭЮЯ")  # then Greek and Cyrillic unlike Latin: 113 (108 heptominoes)


@dataclass
class Board:
    size: tuple[int, ...]  # (W, H) or (W, H, D)
    playable: frozenset[tuple[int, ...]]
    placed: dict[str, list[frozenset[tuple[int, ...]]]] = field(default_factory=dict)  # glyph -> cell sets
    label: str = ""

    @property
    def dim(self) -> int:
        return len(self.size)

    @property
    def n_cells(self) -> int:
        return len(self.playable)


_DIMS = re.compile(r"^(\d+)x(\d+)(?:x(\d+))?$")


def parse_board(spec: str, where: str = "--board") -> Board:
    m = _DIMS.match(spec.strip().lower())
    if m:
        size = tuple(int(v) for v in m.groups() if v is not None)
        if min(size) < 1:
            raise PuzzleInputError(f"{where}: board {spec} must have sides >= 1")
        CELLS.check(int(np.prod(size, dtype=object)), f"{where} {spec}")
        cells = frozenset(tuple(int(v) for v in c) for c in np.ndindex(*size))
        return Board(size, cells, label=spec)
    path = Path(spec)
    if not path.is_file():
        raise PuzzleInputError(f"{where}: {spec!r} is neither WxH, WxHxD nor a board file")
    from puzzlebatch.outputs import read_text

    return parse_board_text(read_text(path, where), str(path))


def parse_board_text(text: str, source: str = "<board>") -> Board:
    layers: list[list[tuple[int, str]]] = [[]]
    for lineno, raw in enumerate(text.splitlines(), 1):
        if raw.lstrip().startswith((";", "//")):
            continue
        if not raw.strip():
            if layers[-1]:
                layers.append([])
            continue
        layers[-1].append((lineno, raw.rstrip("\n")))
    layers = [lay for lay in layers if lay]
    if not layers:
        raise PuzzleInputError(f"{source}: empty board")
    dim = 3 if len(layers) > 1 else 2
    h = max(len(lay) for lay in layers)
    w = max(len(line) for lay in layers for _, line in lay)
    CELLS.check(w * h * len(layers), f"{source}: the board's bounding box {w}x{h}"
                + (f"x{len(layers)}" if dim == 3 else ""))
    playable = set()
    placed_cells: dict[str, set] = {}
    for z, lay in enumerate(layers):
        for y, (lineno, line) in enumerate(lay):
            for x, ch in enumerate(line):
                c = (x, y, z) if dim == 3 else (x, y)
                if ch in "#  ":
                    continue
                playable.add(c)
                if ch == ".":
                    continue
                if ch in GLYPHS:
                    placed_cells.setdefault(ch, set()).add(c)
                else:
                    raise PuzzleInputError(f"{source}:{lineno}: unexpected character {ch!r} at column {x + 1} "
                                           "(use . for a cell, # for a hole, letters for placed pieces)")
    if not playable:
        raise PuzzleInputError(f"{source}: no cell on the board, only holes (use . for a cell, # for a hole)")
    size = (w, h, len(layers)) if dim == 3 else (w, h)
    placed = {g: S.components(cells) for g, cells in placed_cells.items()}
    return Board(size, frozenset(playable), placed, label=source)


def glyphs_for(pieces: Sequence[S.Piece]) -> list[str]:
    """One character per piece for drawings and level files: the names if they are single distinct letters."""
    names = [p.name for p in pieces]
    if all(len(n) == 1 and n in GLYPHS for n in names) and len(set(names)) == len(names):
        return names
    if len(pieces) > len(GLYPHS):
        raise PuzzleInputError(f"--pieces: {len(pieces)} pieces is more than can be drawn ({len(GLYPHS)})")
    return list(GLYPHS[:len(pieces)])


# -- the exact cover --------------------------------------------------------------------------------------------
@dataclass
class Packing:
    """A packing problem: the board, the pieces, and its exact cover (cell items in search order)."""

    board: Board
    pieces: list[S.Piece]
    cover: ExactCover
    option_cells: list[np.ndarray]  # per option, its cells (original coordinates)
    preplaced: list[tuple[int, frozenset]]  # (piece index, cells) of the level
    glyphs: list[str]

    @property
    def exact_area(self) -> bool:
        """Every piece must be used (finite copies whose cells add up to the free cells)."""
        if any(p.count == UNLIMITED for p in self.pieces):
            return False
        left = sum(p.size * (p.count - self.cover.group_used.get(g, 0)) for g, p in enumerate(self.pieces))
        free = self.board.n_cells - sum(len(c) for _, c in self.preplaced)
        return left == free


def build(board: Board, pieces: Sequence[S.Piece], where: str = "--pieces") -> Packing:
    pieces = list(pieces)
    dims = {p.dim for p in pieces}
    if dims != {board.dim}:
        raise PuzzleInputError(f"{where}: {'solid' if 3 in dims else 'flat'} pieces on a {board.dim}D board")
    glyphs = glyphs_for(pieces)
    size = board.size
    axes = tuple(int(a) for a in np.argsort(size, kind="stable"))  # the shortest side varies fastest
    shape = tuple(size[a] for a in axes)
    n = int(np.prod(shape))
    strides = np.zeros(board.dim, np.int64)
    st = 1
    for k, a in enumerate(axes):
        strides[a] = st
        st *= shape[k]
    grid = np.indices(size).reshape(board.dim, -1).T  # every cell, as (x, y[, z])
    flat = grid @ strides
    index = np.empty(size, np.int64)
    index[tuple(grid.T)] = flat
    coords = np.empty((n, board.dim), np.int64)
    coords[flat] = grid
    playable = np.zeros(n, bool)
    if board.playable:
        playable[index[tuple(np.array(sorted(board.playable)).T)]] = True
    # a level's pieces
    preplaced: list[tuple[int, frozenset]] = []
    used: dict[int, int] = {}
    by_glyph = {g: k for k, g in enumerate(glyphs)}
    for g, comps in sorted(board.placed.items()):
        if g not in by_glyph:
            raise PuzzleInputError(f"{board.label}: letter {g} is not a piece of this set "
                                   f"(pieces are drawn as {''.join(glyphs)})")
        k = by_glyph[g]
        piece = pieces[k]
        orients = set(piece.orientations())
        for comp in comps:
            if S.normalize(comp) not in orients:
                raise PuzzleInputError(f"{board.label}: the cells marked {g} do not form piece {piece.name}")
            preplaced.append((k, comp))
            used[k] = used.get(k, 0) + 1
        if piece.count != UNLIMITED and used[k] > piece.count:
            raise PuzzleInputError(f"{board.label}: piece {piece.name} ({g}) is placed {used[k]} times but has "
                                   f"{piece.count} cop{'y' if piece.count == 1 else 'ies'}")
    pre_cells = {c for _, comp in preplaced for c in comp}
    free = playable.copy()
    for c in pre_cells:
        free[index[c]] = False
    precovered = tuple(int(i) for i in np.flatnonzero(~free))

    options: list[tuple[int, ...]] = []
    option_group: list[int] = []
    option_cells: list[np.ndarray] = []
    free_grid = np.zeros(size, bool)
    free_grid[tuple(coords[free].T)] = True
    for k, piece in enumerate(pieces):
        if piece.count != UNLIMITED and used.get(k, 0) >= piece.count:
            continue
        for orient in piece.orientations():
            cells = np.array(sorted(orient), np.int64)
            ext = cells.max(axis=0) + 1
            if np.any(ext > np.array(size)):
                continue
            # every offset at which all cells are free: AND of shifted views
            span = tuple(int(s - e + 1) for s, e in zip(size, ext))
            ok = np.ones(span, bool)
            for c in cells:
                ok &= free_grid[tuple(slice(int(v), int(v) + s) for v, s in zip(c, span))]
            offs = np.argwhere(ok)
            if not len(offs):
                continue
            placed = cells[None, :, :] + offs[:, None, :]  # (placements, cells, dim)
            ids = np.sort(index[tuple(placed[:, :, j] for j in range(board.dim))], axis=1)
            options.extend(map(tuple, ids.tolist()))
            option_group.extend([k] * len(offs))
            option_cells.extend(placed)
    names = [",".join(str(int(v)) for v in coords[i]) for i in range(n)]
    ec = ExactCover(items=names, n_primary=n, options=options, option_group=option_group,
                    groups=[p.name for p in pieces], group_copies=[p.count for p in pieces],
                    geometry=Geometry(shape, axes, coords, playable), precovered=precovered, group_used=used)
    return Packing(board, pieces, ec, option_cells, preplaced, glyphs)


# -- piece-ordering heuristics of the IQ Puzzler Pro study -------------------------------------------------------
HEURISTICS = ("none", "ascender", "descender", "compactness", "compactness_inverse", "perimeter",
              "perimeter_inverse", "holes", "holes_inverse")


def piece_weight(piece: S.Piece, heuristic: str) -> float:
    """Priority of a piece (higher first), as the study defines its eight orderings."""
    cells = piece.cells
    n = len(cells)
    ext = [max(c[i] for c in cells) + 1 for i in range(piece.dim)]
    box = int(np.prod(ext))
    compact = min(ext) / max(ext)
    cellset = set(cells)
    perimeter = sum(1 for c in cells for i in range(piece.dim) for d in (-1, 1)
                    if c[:i] + (c[i] + d,) + c[i + 1:] not in cellset)
    holes = box - n  # empty cells of the bounding box
    return {
        "none": 0.0,
        "ascender": 1.0 / n,
        "descender": float(n),
        "compactness": compact,
        "compactness_inverse": 1.0 / (compact + 1e-6),
        "perimeter": 1.0 / perimeter,
        "perimeter_inverse": float(perimeter),
        "holes": 1.0 / (holes + 1),
        "holes_inverse": float(holes),
    }[heuristic]


def option_order(pk: Packing, heuristic: str) -> list[int]:
    """Options sorted by their piece's weight (highest first), stable otherwise."""
    if heuristic not in HEURISTICS:
        raise PuzzleInputError(f"--heuristic: {heuristic!r} is not one of {', '.join(HEURISTICS)}")
    w = [piece_weight(p, heuristic) for p in pk.pieces]
    return sorted(range(len(pk.cover.options)), key=lambda o: -w[pk.cover.option_group[o]])


# -- symmetries ------------------------------------------------------------------------------------------------
@dataclass
class Symmetry:
    """A symmetry of the problem: a cell permutation (on items) and the piece relabelling it implies."""

    cells: np.ndarray  # item -> item
    pieces: np.ndarray  # group -> group
    matrix: np.ndarray


def symmetries(pk: Packing) -> list[Symmetry]:
    """Isometries of the board that map free cells to free cells and the remaining pieces onto themselves.

    A piece may map onto another piece (the Soma cube's two screws are mirror images): the symmetry then
    relabels them.  The identity comes first.
    """
    ec = pk.cover
    geo = ec.geometry
    size = np.array(pk.board.size)
    free = np.ones(ec.n_items, bool)
    free[list(ec.precovered)] = False
    index_grid = np.zeros(tuple(size), np.int64)
    index_grid[tuple(geo.coords.T)] = np.arange(ec.n_items)
    classes = [frozenset(p.orientations()) for p in pk.pieces]
    left = [(UNLIMITED if p.count == UNLIMITED else p.count - ec.group_used.get(g, 0))
            for g, p in enumerate(pk.pieces)]
    coords = geo.coords
    out = []
    for m in S.linear_maps(pk.board.dim):
        img = coords @ m.T
        img = img - img.min(axis=0)
        if np.any(img.max(axis=0) + 1 != size):
            continue
        perm = index_grid[tuple(img.T)]
        if not np.array_equal(free[perm], free):
            continue
        # The class of a piece's image is the class of its base shape's image (rotation groups are normal), so
        # one transform per piece finds the relabelling.
        gperm = np.full(len(pk.pieces), -1, np.int64)
        ok = True
        for g, p in enumerate(pk.pieces):
            if left[g] == 0:
                gperm[g] = g
                continue
            if p.turns == "free" or (p.turns == "rotations" and S.proper(m)):
                gperm[g] = g  # the class is closed under m
                continue
            image = S.transform(p.cells, m)
            if image in classes[g]:
                gperm[g] = g
                continue
            match = [h for h in range(len(pk.pieces)) if image in classes[h] and left[h] == left[g]
                     and pk.pieces[h].turns == p.turns and h != g]
            if not match:
                ok = False
                break
            gperm[g] = match[0]
        if ok and len(set(gperm.tolist())) == len(gperm):
            out.append(Symmetry(perm, gperm, m))
    return out


class OptionImages:
    """``img[s, o]``: the option that symmetry ``s`` maps option ``o`` to, computed lazily by columns.

    Each option is a sorted row ``[piece, cells...]``; an image is looked up among the sorted rows.  Indexing
    works like a ``(symmetries, options)`` integer array (``img[h, o]``, ``img[np.ix_(H, cols)]``, ``img[h]``);
    only the columns asked for are computed (symmetry breaking needs one piece's placements).  A row is looked up
    as one integer where it fits an int64 (``int_keys``; every shipped board), as its bytes otherwise.
    """

    def __init__(self, pk: Packing, syms: Sequence[Symmetry], int_keys: bool = True):
        ec = pk.cover
        self.syms = list(syms)
        self.items = ec.option_array()
        self.groups = np.asarray(ec.option_group, np.int64)
        self.n = len(ec.options)
        radix = len(ec.items) + 1  # integer keys: the piece, then the sorted items in base n_items + 1 (pads last)
        big = max([abs(int(g)) + 1 for g in (self.groups.min(), self.groups.max())] if self.n else [1])
        self.radix = radix if int_keys and big * radix ** self.items.shape[1] < 1 << 62 else 0
        base = self._keys(self.groups, self.items.copy())
        self.order = np.argsort(base)
        self.sorted_keys = base[self.order]
        self.img = np.full((len(self.syms), self.n), -1, np.int64)
        self.done = np.zeros(self.n, bool)
        self.shape = self.img.shape

    def _keys(self, g, it):
        it = np.where(it < 0, self.radix - 1 if self.radix else np.iinfo(np.int64).max, it)
        it.sort(axis=1)
        if self.radix:
            k = np.asarray(g, np.int64).copy()
            for j in range(it.shape[1]):
                k = k * self.radix + it[:, j]
            return k
        rows = np.ascontiguousarray(np.column_stack([g, it]))
        return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()

    def ensure(self, cols) -> None:
        cols = np.unique(np.asarray(cols, np.int64).ravel())
        cols = cols[~self.done[cols]]
        if len(cols):
            self.img[:, cols], self.done[cols] = self._images(self.syms, cols), True

    def _images(self, syms: Sequence[Symmetry], cols: np.ndarray) -> np.ndarray:
        """``(len(syms), len(cols))``: the options that ``syms`` map options ``cols`` to."""
        items = self.items[cols]
        pad = items < 0
        cells, pieces = np.stack([sym.cells for sym in syms]), np.stack([sym.pieces for sym in syms])
        mapped = np.where(pad[None], -1, cells[:, np.where(pad, 0, items)])  # (symmetries, columns, width)
        k = self._keys(pieces[:, self.groups[cols]].reshape(-1), mapped.reshape(-1, items.shape[1]))
        pos = np.searchsorted(self.sorted_keys, k)
        if np.any(pos >= self.n) or np.any(self.sorted_keys[np.minimum(pos, self.n - 1)] != k):
            raise AssertionError("a symmetry maps an option outside the problem")
        return self.order[pos].reshape(len(syms), len(cols))

    def __getitem__(self, idx):
        if isinstance(idx, (int, np.integer)) and not self.done.all():  # one symmetry's row: that one alone
            return self._images([self.syms[idx]], np.arange(self.n))[0]
        if isinstance(idx, tuple) and len(idx) == 2:
            self.ensure(np.arange(self.n)[idx[1]] if not isinstance(idx[1], (int, np.integer)) else [idx[1]])
        else:
            self.ensure(np.arange(self.n))
        return self.img[idx]


def conjugates(syms: Sequence[Symmetry], H: Sequence[int]) -> list[int]:
    """The symmetries conjugate to one of ``H`` (indices into ``syms``, a group): ``k h k^-1`` for every ``k``.
    Symmetries are compared by what they do to the cells, so every one acting as a conjugate does is listed (on a
    board one cell thick, a reflection across its thickness acts as the identity)."""
    cells = np.stack([s.cells for s in syms])
    index: dict[bytes, list[int]] = {}
    for i in range(len(syms)):
        index.setdefault(cells[i].tobytes(), []).append(i)
    inv = np.argsort(cells, axis=1)
    out: set[int] = set()
    for h in H:
        for k in range(len(syms)):
            same = index.get(cells[k][cells[h][inv[k]]].tobytes())
            if same is None:
                raise ValueError("conjugates: the symmetries are not a group")
            out.update(same)
    return sorted(out)


def option_images(pk: Packing, syms: Sequence[Symmetry]) -> OptionImages:
    """The images of every option under every symmetry (lazy; see :class:`OptionImages`)."""
    return OptionImages(pk, syms)


@dataclass
class Leaf:
    """A subproblem of the symmetry breaking: options fixed in advance, and the symmetries still left."""

    fixed: list[int]
    syms: list[int]  # indices into the symmetry list (always with the identity, 0)


def break_symmetry(pk: Packing, syms: Sequence[Symmetry], img: OptionImages,
                   levels: int | None = None) -> list[Leaf]:
    """Split the solutions into subproblems with one representative per symmetry class.

    Pick a piece used exactly once in every solution and fixed by all remaining symmetries H; its placements
    fall into H-orbits; keep one placement per orbit (the smallest option id) and recurse with the placement's
    stabiliser.  Classes of solutions with that placement correspond one to one to the H-orbits of placements,
    so each leaf with only the identity left counts every class once; a leaf that keeps symmetries (no piece to
    break them with, or ``levels`` pieces fixed already) is resolved by Burnside's lemma or enumeration.
    """
    ec = pk.cover
    if not pk.exact_area or len(syms) == 1:
        return [Leaf([], list(range(len(syms))))]
    from puzzlebatch.puzzles.polyomino.cover import bitset_rows

    groups = np.asarray(ec.option_group, np.int64)
    by_group = {int(g): np.flatnonzero(groups == g) for g in np.unique(groups)}
    nw = max(1, -(-ec.n_items // 63))
    words = bitset_rows(ec.option_array(), nw)
    once = [g for g, p in enumerate(pk.pieces) if p.count - ec.group_used.get(g, 0) == 1]
    leaves: list[Leaf] = []
    # the options of the pieces used once, and where each option sits among them
    fixed_opts = np.concatenate([by_group.get(g, np.zeros(0, np.int64)) for g in once] + [np.zeros(0, np.int64)])
    fixed_group = groups[fixed_opts]
    once_words = words[fixed_opts]
    n_groups = max(len(pk.pieces), int(groups.max()) + 1 if len(groups) else 0)
    idx_pos = np.full(len(groups), -1, np.int64)
    idx_pos[fixed_opts] = np.arange(len(fixed_opts))

    # which symmetries keep each piece used once; a piece's images are computed the first time it is chosen
    images = img.img
    ensured: set[int] = set()
    once_arr = np.asarray(once, np.int64)
    keeps = np.stack([sym.pieces for sym in syms])[:, once_arr] == once_arr[None, :]  # (symmetries, once)

    def recurse(fixed: list[int], H: list[int], occ: np.ndarray):
        if len(H) == 1 or (levels is not None and len(fixed) >= levels):
            leaves.append(Leaf(fixed, H))
            return
        used_groups = {ec.option_group[o] for o in fixed}
        kept = keeps[H].all(axis=0).tolist()
        allowed = [g for g, k in zip(once, kept) if k and g not in used_groups]
        if not allowed:
            leaves.append(Leaf(fixed, H))
            return
        # the candidates of every allowed piece at once: its options that miss the cells already taken
        free = ~(once_words & occ).any(axis=1)
        counts = np.bincount(fixed_group[free], minlength=n_groups)
        g = min(allowed, key=lambda a: counts[a])  # the fewest candidates (the first of them on ties)
        idx = by_group.get(g, np.zeros(0, np.int64))
        cand = idx[free[idx_pos[idx]]] if len(idx) else idx
        if not len(cand):
            return
        if g not in ensured:
            img.ensure(idx)
            ensured.add(g)
        orbits = images[H][:, cand]  # (|H|, candidates)
        is_rep = orbits.min(axis=0) == cand
        fixes = orbits == cand[None, :]
        reps = np.flatnonzero(is_rep)
        n_fix = fixes[:, reps].sum(axis=0).tolist()
        for k, c, n in zip(reps.tolist(), cand[reps].tolist(), n_fix):
            if n == 1:  # only the identity (always first in H) keeps this placement
                leaves.append(Leaf(fixed + [c], [H[0]]))
            else:
                recurse(fixed + [c], [h for h, f in zip(H, fixes[:, k].tolist()) if f], occ | words[c])

    recurse([], list(range(len(syms))), np.zeros(nw, words.dtype))
    return leaves


# -- validation ------------------------------------------------------------------------------------------------
def validate(pk: Packing, placements: Sequence[tuple[int, np.ndarray]]) -> None:
    """Check a solution from scratch: every free cell covered once, only board cells, each piece a true copy of
    its shape (under its allowed turns), copies within the limits.  Raises AssertionError otherwise."""
    board = pk.board
    covered: dict[tuple, int] = {}
    copies: dict[int, int] = {}
    for k, cells in list(pk.preplaced) + [(k, frozenset(map(tuple, c))) for k, c in placements]:
        cells = frozenset(tuple(int(v) for v in c) for c in cells)
        piece = pk.pieces[k]
        assert S.normalize(cells) in set(piece.orientations()), f"{piece.name} placed as a wrong shape"
        for c in cells:
            assert c in board.playable, f"{piece.name} covers {c}, not a board cell"
            assert c not in covered, f"cell {c} covered twice"
            covered[c] = k
        copies[k] = copies.get(k, 0) + 1
        assert piece.count == UNLIMITED or copies[k] <= piece.count, f"{piece.name} used {copies[k]} times"
    assert len(covered) == board.n_cells, f"{board.n_cells - len(covered)} cells left uncovered"
