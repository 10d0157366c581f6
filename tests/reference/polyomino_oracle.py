"""Slow, independent references for packing counts: Knuth's Algorithm X on dicts of sets, and its own placement
generator (rotations by explicit coordinate formulas, not the package's matrices).

Nothing here imports puzzlebatch: it checks the package from the outside.
"""

from __future__ import annotations

from itertools import product


def _norm(cells):
    lo = [min(c[i] for c in cells) for i in range(len(next(iter(cells))))]
    return frozenset(tuple(v - m for v, m in zip(c, lo)) for c in cells)


def orientations_2d(cells, mirror=True):
    """Rotations by 90 degrees ((x, y) -> (-y, x)), optionally with the mirror (x, y) -> (-x, y)."""
    out = set()
    base = [frozenset(cells)] + ([frozenset((-x, y) for x, y in cells)] if mirror else [])
    for shape in base:
        cur = shape
        for _ in range(4):
            out.add(_norm(cur))
            cur = frozenset((-y, x) for x, y in cur)
    return out


def orientations_3d(cells, mirror=False):
    """The 24 rotations as compositions of quarter turns about x and about z; the mirror (x, y, z) -> (-x, y, z)."""
    def rx(s):
        return frozenset((x, -z, y) for x, y, z in s)

    def rz(s):
        return frozenset((-y, x, z) for x, y, z in s)

    out = set()
    starts = [frozenset(cells)] + ([frozenset((-x, y, z) for x, y, z in cells)] if mirror else [])
    for s0 in starts:
        frontier = [s0]
        seen = {_norm(s0)}
        while frontier:
            s = frontier.pop()
            for t in (rx(s), rz(s)):
                n = _norm(t)
                if n not in seen:
                    seen.add(n)
                    frontier.append(t)
        out |= seen
    return out


def placements(board_cells, shape_orients):
    board = set(board_cells)
    dim = len(next(iter(board)))
    lo = [min(c[i] for c in board) for i in range(dim)]
    hi = [max(c[i] for c in board) for i in range(dim)]
    out = set()
    for o in shape_orients:
        for off in product(*[range(lo[i], hi[i] + 1) for i in range(dim)]):
            cells = frozenset(tuple(v + d for v, d in zip(c, off)) for c in o)
            if cells <= board:
                out.add(cells)
    return sorted(out, key=sorted)


def algorithm_x_count(primary, secondary, options, copies=None, option_piece=None, limit=None):
    """Count exact covers: primary items exactly once, secondary at most once; ``option_piece[o]`` with
    ``copies[piece]`` (None: unlimited) limits how often a piece is used."""
    cols = {i: set() for i in list(primary) + list(secondary)}
    for r, opt in enumerate(options):
        for i in opt:
            cols[i].add(r)
    left = dict(copies or {})
    prim = set(primary)
    count = 0

    def select(r):
        removed = []
        for j in options[r]:
            for i in cols[j]:
                for k in options[i]:
                    if k != j:
                        cols[k].discard(i)
            removed.append((j, cols.pop(j)))
        return removed

    def deselect(r, removed):
        for j, rows in reversed(removed):
            cols[j] = rows
            for i in rows:
                for k in options[i]:
                    if k != j:
                        cols[k].add(i)

    def search():
        nonlocal count
        live = [c for c in cols if c in prim]
        if not live:
            count += 1
            return
        c = min(live, key=lambda c: len(cols[c]))
        for r in list(cols[c]):
            p = option_piece[r] if option_piece else None
            if p is not None and left.get(p) is not None:
                if left[p] == 0:
                    continue
                left[p] -= 1
            removed = select(r)
            search()
            deselect(r, removed)
            if p is not None and left.get(p) is not None:
                left[p] += 1
            if limit is not None and count >= limit:
                return

    search()
    return count


def count_tilings(board_cells, pieces, dim=2, mirror=None, copies=None):
    """Tilings of a board by pieces (list of cell lists).  ``copies``: per piece a count (None: unlimited),
    default one each.  Pieces used once are their own primary items only when all pieces must be used; otherwise
    copies are enforced by counting."""
    mirror = (dim == 2) if mirror is None else mirror
    orient = orientations_2d if dim == 2 else orientations_3d
    options, owner = [], []
    for p, cells in enumerate(pieces):
        for pl in placements(board_cells, orient(cells, mirror)):
            options.append(tuple(pl))
            owner.append(p)
    copies = copies if copies is not None else [1] * len(pieces)
    return algorithm_x_count(list(board_cells), [], options, {p: c for p, c in enumerate(copies)}, owner)
