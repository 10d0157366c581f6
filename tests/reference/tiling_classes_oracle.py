"""Slow, independent reference for the classes of tilings of a rectangle under its symmetries: every tiling by a
plain first-empty-cell recursion on sets of cells, then one canonical form per class under the rectangle's
explicit symmetries (4, or 8 for a square).

Nothing here imports puzzlebatch.
"""

from __future__ import annotations


def _orientations(cells):
    out = set()
    for mirror in (False, True):
        cur = [(-x, y) if mirror else (x, y) for x, y in cells]
        for _ in range(4):
            lx, ly = min(x for x, _ in cur), min(y for _, y in cur)
            out.add(frozenset((x - lx, y - ly) for x, y in cur))
            cur = [(-y, x) for x, y in cur]
    return out


def tilings(w: int, h: int, shapes) -> list[frozenset]:
    """Every tiling of the w x h rectangle by any number of copies of ``shapes`` (lists of (x, y) cells, turned
    and mirrored freely), each tiling a frozenset of pieces (frozensets of cells)."""
    orients = set()
    for s in shapes:
        orients |= _orientations(s)
    # each orientation anchored at its first cell in (y, x) order, so it can cover the first empty cell
    anchored = []
    for o in orients:
        ax, ay = min(o, key=lambda c: (c[1], c[0]))
        anchored.append([(x - ax, y - ay) for x, y in o])
    found: list[frozenset] = []
    board = [[False] * w for _ in range(h)]
    chosen: list[frozenset] = []

    def first_empty():
        for y in range(h):
            for x in range(w):
                if not board[y][x]:
                    return x, y
        return None

    def rec():
        cell = first_empty()
        if cell is None:
            found.append(frozenset(chosen))
            return
        x0, y0 = cell
        for o in anchored:
            piece = [(x0 + dx, y0 + dy) for dx, dy in o]
            if all(0 <= x < w and 0 <= y < h and not board[y][x] for x, y in piece):
                for x, y in piece:
                    board[y][x] = True
                chosen.append(frozenset(piece))
                rec()
                chosen.pop()
                for x, y in piece:
                    board[y][x] = False

    rec()
    return found


def symmetries(w: int, h: int):
    maps = [lambda x, y: (x, y), lambda x, y: (w - 1 - x, y), lambda x, y: (x, h - 1 - y),
            lambda x, y: (w - 1 - x, h - 1 - y)]
    if w == h:
        maps += [lambda x, y: (y, x), lambda x, y: (h - 1 - y, x), lambda x, y: (y, w - 1 - x),
                 lambda x, y: (h - 1 - y, w - 1 - x)]
    return maps


def classes(w: int, h: int, found) -> int:
    """How many classes the tilings ``found`` fall into under the rectangle's symmetries."""
    def key(t):
        return tuple(sorted(tuple(sorted(p)) for p in t))

    canon = set()
    for t in found:
        canon.add(min(key(frozenset(frozenset(f(x, y) for x, y in p) for p in t)) for f in symmetries(w, h)))
    return len(canon)


def domino_tilings(m: int, n: int) -> int:
    """Domino tilings of an m x n rectangle by a plain broken-profile dynamic program over the columns (exact
    Python integers, any size): a profile bit says the cell of the next column is already taken by a horizontal
    domino sticking out of this one."""
    if m > n:
        m, n = n, m
    ways = {0: 1}
    for _ in range(n):
        nxt: dict[int, int] = {}

        def fill(row: int, profile: int, out: int, count: int, nxt=nxt) -> None:
            if row == m:
                nxt[out] = nxt.get(out, 0) + count
                return
            if profile >> row & 1:  # taken from the left
                fill(row + 1, profile, out, count)
                return
            fill(row + 1, profile, out | 1 << row, count)  # a horizontal domino into the next column
            if row + 1 < m and not profile >> (row + 1) & 1:  # a vertical domino
                fill(row + 2, profile, out, count)

        for profile, count in ways.items():
            fill(0, profile, 0, count)
        ways = nxt
    return ways.get(0, 0)


def tilings_once(w: int, h: int, pieces: dict) -> list[frozenset]:
    """Every tiling of the w x h rectangle using each piece of ``pieces`` (name -> list of (x, y) cells, turned
    and mirrored freely, distinct free shapes) exactly once; each tiling a frozenset of (name, frozenset of
    cells)."""
    anchored = []
    for name, cells in pieces.items():
        for o in _orientations(cells):
            ax, ay = min(o, key=lambda c: (c[1], c[0]))
            anchored.append((name, [(x - ax, y - ay) for x, y in o]))
    found: list[frozenset] = []
    board = [[False] * w for _ in range(h)]
    chosen: list = []
    used: set = set()

    def rec():
        cell = next(((x, y) for y in range(h) for x in range(w) if not board[y][x]), None)
        if cell is None:
            if len(used) == len(pieces):
                found.append(frozenset(chosen))
            return
        x0, y0 = cell
        for name, o in anchored:
            if name in used:
                continue
            piece = [(x0 + dx, y0 + dy) for dx, dy in o]
            if all(0 <= x < w and 0 <= y < h and not board[y][x] for x, y in piece):
                for x, y in piece:
                    board[y][x] = True
                chosen.append((name, frozenset(piece)))
                used.add(name)
                rec()
                used.discard(name)
                chosen.pop()
                for x, y in piece:
                    board[y][x] = False

    rec()
    return found


def classes_once(w: int, h: int, found) -> tuple[int, int]:
    """(classes, tilings mapped onto themselves by some symmetry other than the identity) of the labelled
    tilings ``found`` under the rectangle's symmetries (a piece keeps its name: its shapes are free)."""
    def key(t):
        return tuple(sorted((name, tuple(sorted(p))) for name, p in t))

    canon = set()
    symmetric = 0
    for t in found:
        images = [key(frozenset((name, frozenset(f(x, y) for x, y in p)) for name, p in t))
                  for f in symmetries(w, h)]
        canon.add(min(images))
        symmetric += any(im == images[0] for im in images[1:])
    return len(canon), symmetric
