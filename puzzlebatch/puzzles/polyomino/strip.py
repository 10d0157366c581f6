"""Strips and bands: the profile (broken-line) view of a rectangle for transfer matrices and band-wise tiling.

The cells of an ``m x n`` rectangle (``m`` the short side) are scanned column by column, ``m`` cells a column.
At each step the first empty cell is the current one; a *profile* is the bit mask of the next ``L`` cells in scan
order that are already covered (bit 0: the current cell).  Every tiling with unlimited pieces is one path of
steps: the current cell is either covered already (shift the profile by one) or covered now by a placement whose
first cell in scan order is the current cell (an *anchored* placement: OR its mask in, then shift).  The graph of
profiles depends only on the row ``y`` of the current cell, so it is periodic: ``m`` sparse step matrices whose
product is the column transfer matrix.  Counting tilings is ``n`` column products of a vector; finding one is a
path through the same graph (see :mod:`puzzlebatch.runners.polyomino.large`).

This module is plain Python (no numba): anchored placements, the profile graph (forward-reachable and
co-reachable profiles only, gather CSR per row), primes and Chinese remaindering, Kasteleyn's formula.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, localcontext
from typing import Callable, Sequence

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.xp import sorted_unique

MAX_PROFILES = 2_000_000  # per row position; beyond this the profile space is too large for a transfer matrix


@dataclass(frozen=True)
class Anchored:
    """One orientation of one piece, relative to its first cell in column-major scan order (x, then y)."""

    piece: int
    cells: tuple[tuple[int, int], ...]  # (dx, dy), the anchor (0, 0) first

    def mask(self, m: int) -> int:
        return sum(1 << (dx * m + dy) for dx, dy in self.cells)

    def fits_row(self, y: int, m: int) -> bool:
        return all(0 <= y + dy < m for _, dy in self.cells)


def anchored(pieces: Sequence[S.Piece], transpose: bool = False) -> list[Anchored]:
    """Every orientation of every piece, anchored at its first cell (x-major order); ``transpose`` swaps x and y
    of every cell first (for boards scanned along their other side)."""
    out = []
    for k, p in enumerate(pieces):
        if p.dim != 2:
            raise PuzzleInputError(f"--pieces: {p.name} is a solid piece; strips take flat pieces")
        for o in p.orientations():
            cells = sorted(((c[1], c[0]) if transpose else (c[0], c[1])) for c in o)
            ax, ay = cells[0]
            out.append(Anchored(k, tuple((x - ax, y - ay) for x, y in cells)))
    return out


@dataclass
class ProfileGraph:
    """The periodic profile graph of strips of height ``m``.

    ``states[y]``: sorted profiles (ints) whose current cell is in row ``y``.  The step from row ``y`` to row
    ``(y + 1) % m`` is stored as a gather CSR over target indices: the sources of target ``t`` are
    ``src[y][ptr[y][t]:ptr[y][t + 1]]`` (indices into ``states[y]``) with ``via[y][...]`` the anchored placement
    used (-1: the cell was already covered).  Only profiles reachable from the empty profile at row 0 *and* able
    to reach it again are kept.
    """

    m: int
    window: int
    placements: list[Anchored]
    states: list[np.ndarray]
    ptr: list[np.ndarray]
    src: list[np.ndarray]
    via: list[np.ndarray]

    @property
    def n_states(self) -> int:
        return int(sum(len(s) for s in self.states))

    @property
    def n_edges(self) -> int:
        return int(sum(len(s) for s in self.src))

    def flat(self) -> dict[str, np.ndarray]:
        """The graph as flat int64 arrays for the kernels: ``ptr_all``, ``src_all``, offsets per row, sizes."""
        ptr_off = np.zeros(self.m, np.int64)
        src_off = np.zeros(self.m, np.int64)
        n_targets = np.zeros(self.m, np.int64)
        pa, sa = [], []
        po = so = 0
        for y in range(self.m):
            ptr_off[y], src_off[y] = po, so
            n_targets[y] = len(self.ptr[y]) - 1
            pa.append(self.ptr[y])
            sa.append(self.src[y])
            po += len(self.ptr[y])
            so += len(self.src[y])
        return {"ptr_all": np.concatenate(pa).astype(np.int64), "src_all": np.concatenate(sa).astype(np.int64),
                "ptr_off": ptr_off, "src_off": src_off, "n_targets": n_targets,
                "n_sources": np.array([len(s) for s in self.states], np.int64)}

    def zero_index(self) -> int:
        """Index of the empty profile among ``states[0]`` (-1 when the strip has no tiling at all)."""
        s = self.states[0]
        i = int(np.searchsorted(s, 0))
        return i if i < len(s) and s[i] == 0 else -1


def _successors(s: int, y: int, m: int, masks_by_row: list[list[tuple[int, int]]]):
    if s & 1:
        yield s >> 1, -1
        return
    for mask, a in masks_by_row[y]:
        if s & mask == 0:
            yield (s | mask) >> 1, a


class TooManyProfiles(PuzzleInputError):
    """A strip whose profile graph would be too large for a transfer matrix."""


def _too_many(max_profiles: int, m: int, window: int) -> PuzzleInputError:
    return TooManyProfiles(f"--board: more than {max_profiles:,} profiles per row for strips of height {m} with "
                            f"these pieces (window {window} cells); use a narrower strip")


def profile_graph(pieces: Sequence[S.Piece], m: int, transpose: bool = False,
                  max_profiles: int = MAX_PROFILES) -> ProfileGraph:
    """Build the periodic profile graph for strips of height ``m`` (see :class:`ProfileGraph`).

    Profiles of up to 62 cells are built as NumPy arrays, a step of every profile at once (about ten times the
    plain-Python walk, which wider windows still take); both give the same graph.
    """
    if m < 1:
        raise PuzzleInputError("--board: the strip height must be at least 1")
    pl = anchored(pieces, transpose)
    window = max((dx * m + dy for a in pl for dx, dy in a.cells), default=0) + 1
    if window <= 62:
        return _profile_graph_arrays(pl, m, window, max_profiles)
    return _profile_graph_sets(pl, m, window, max_profiles)


def _profile_graph_sets(pl: list[Anchored], m: int, window: int, max_profiles: int) -> ProfileGraph:
    """The profile graph by a walk over Python sets of Python ints (any window)."""
    masks_by_row = [[(a.mask(m), i) for i, a in enumerate(pl) if a.fits_row(y, m)] for y in range(m)]
    # forward reachability from (row 0, empty profile)
    seen: list[set[int]] = [set() for _ in range(m)]
    seen[0].add(0)
    todo = [(0, 0)]
    while todo:
        y, s = todo.pop()
        ny = (y + 1) % m
        for t, _ in _successors(s, y, m, masks_by_row):
            if t not in seen[ny]:
                seen[ny].add(t)
                if len(seen[ny]) > max_profiles:
                    raise _too_many(max_profiles, m, window)
                todo.append((ny, t))
    # edges and co-reachability (backwards from (row 0, empty profile))
    edges: list[list[tuple[int, int, int]]] = [[] for _ in range(m)]  # per y: (s, t, via)
    preds: list[dict[int, list[int]]] = [dict() for _ in range(m)]  # per target row: t -> sources
    for y in range(m):
        ny = (y + 1) % m
        for s in seen[y]:
            for t, a in _successors(s, y, m, masks_by_row):
                edges[y].append((s, t, a))
                preds[ny].setdefault(t, []).append(s)
    alive: list[set[int]] = [set() for _ in range(m)]
    if 0 in seen[0]:
        alive[0].add(0)
        todo = [(0, 0)]
        while todo:
            y, t = todo.pop()
            py = (y - 1) % m
            for s in preds[y].get(t, ()):
                if s not in alive[py]:
                    alive[py].add(s)
                    todo.append((py, s))
    states = [np.array(sorted(a), dtype=np.int64) if window <= 62 else np.array(sorted(a), dtype=object)
              for a in alive]
    index = [{int(s): i for i, s in enumerate(st)} for st in states]
    ptr, src, via = [], [], []
    for y in range(m):
        ny = (y + 1) % m
        rows = sorted((index[ny][t], index[y][s], a) for s, t, a in edges[y] if s in alive[y] and t in alive[ny])
        counts = np.zeros(len(states[ny]) + 1, np.int64)
        for t, _, _ in rows:
            counts[t + 1] += 1
        ptr.append(np.cumsum(counts))
        src.append(np.array([s for _, s, _ in rows], np.int64))
        via.append(np.array([a for _, _, a in rows], np.int64))
    return ProfileGraph(m, window, pl, states, ptr, src, via)


def _steps(states: np.ndarray, masks: np.ndarray, ids: np.ndarray, targets_only: bool = False):
    """Every step out of ``states`` (int64 profiles of one row): (sources, targets, placements), -1 where the
    current cell was covered already; ``targets_only`` leaves the sources and placements out."""
    full = (states & 1) == 1
    covered, open_ = states[full], states[~full]
    src, tgt, via = [covered], [covered >> 1], [np.full(len(covered), -1, np.int64)]
    for mask, a in zip(masks.tolist(), ids.tolist()):
        sel = open_[(open_ & mask) == 0]
        tgt.append((sel | mask) >> 1)
        if not targets_only:
            src.append(sel)
            via.append(np.full(len(sel), a, np.int64))
    if targets_only:
        return np.concatenate(tgt)
    return np.concatenate(src), np.concatenate(tgt), np.concatenate(via)


def _merge_new(known: np.ndarray, found: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(``known`` with the values of ``found`` it lacks, those values): both sorted, unique."""
    found = sorted_unique(np, found)
    hit, at = _members(known, found)
    return np.insert(known, at[~hit], found[~hit]), found[~hit]


def _profile_graph_arrays(pl: list[Anchored], m: int, window: int, max_profiles: int) -> ProfileGraph:
    """The profile graph by steps of whole arrays of int64 profiles (windows of up to 62 cells)."""
    rows = []
    for y in range(m):
        ids = [i for i, a in enumerate(pl) if a.fits_row(y, m)]
        rows.append((np.array([pl[i].mask(m) for i in ids], np.int64), np.array(ids, np.int64)))
    # forward reachability from (row 0, empty profile), one step of the scan at a time
    seen = [np.zeros(0, np.int64) for _ in range(m)]
    seen[0] = np.zeros(1, np.int64)
    frontier, y = seen[0], 0
    while len(frontier):
        ny = (y + 1) % m
        seen[ny], frontier = _merge_new(seen[ny], _steps(frontier, *rows[y], targets_only=True))
        if len(seen[ny]) > max_profiles:
            raise _too_many(max_profiles, m, window)
        y = ny
    # every edge, grouped by target; co-reachability backwards from (row 0, empty profile)
    edges = []
    for y in range(m):
        src, tgt, via = _steps(seen[y], *rows[y])
        order = np.argsort(tgt, kind="stable")
        edges.append((src[order], tgt[order], via[order]))
    alive = [np.zeros(0, np.int64) for _ in range(m)]
    alive[0] = np.zeros(1, np.int64)
    frontier, y = alive[0], 0
    while len(frontier):
        py = (y - 1) % m
        src, tgt, _ = edges[py]
        lo, hi = np.searchsorted(tgt, frontier, "left"), np.searchsorted(tgt, frontier, "right")
        n = hi - lo
        at = np.repeat(lo - np.concatenate(([0], np.cumsum(n)[:-1])), n) + np.arange(int(n.sum()))
        alive[py], frontier = _merge_new(alive[py], src[at])
        y = py
    ptr, srcs, vias = [], [], []
    for y in range(m):
        ny = (y + 1) % m
        src, tgt, via = edges[y]
        (s_hit, s_at), (t_hit, t_at) = _members(alive[y], src), _members(alive[ny], tgt)
        keep = s_hit & t_hit
        s_at, t_at, via = s_at[keep], t_at[keep], via[keep]
        order = np.lexsort((via, s_at, t_at))
        ptr.append(np.concatenate(([0], np.cumsum(np.bincount(t_at, minlength=len(alive[ny]))))).astype(np.int64))
        srcs.append(s_at[order].astype(np.int64))
        vias.append(via[order])
    return ProfileGraph(m, window, pl, alive, ptr, srcs, vias)


def _members(sorted_values: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(whether each value of ``x`` is in ``sorted_values``, where it is or would be inserted)."""
    at = np.searchsorted(sorted_values, x)
    hit = at < len(sorted_values)
    hit[hit] = sorted_values[at[hit]] == x[hit]
    return hit, at


# -- exact arithmetic -----------------------------------------------------------------------------------------
def _is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for n < 3.3e24 (bases 2..41)."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for p in small:
        if n % p == 0:
            return n == p
    d, r = n - 1, 0
    while d % 2 == 0:
        d //= 2
        r += 1
    for a in small:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def primes_below(limit: int, k: int) -> list[int]:
    """The ``k`` largest primes below ``limit`` (descending)."""
    out = []
    n = limit - 1
    while len(out) < k:
        if _is_prime(n):
            out.append(n)
        n -= 1
    return out


MODULUS_LIMIT = 1 << 62  # residues < 2^62: a sum of two fits a signed 64-bit word


def crt(residues: Sequence[int], moduli: Sequence[int]) -> int:
    """The integer in [0, prod(moduli)) with the given residues (Garner's mixed-radix algorithm)."""
    x, mod = 0, 1
    for r, p in zip(residues, moduli):
        r, p = int(r), int(p)
        t = (r - x) * pow(mod, -1, p) % p
        x += mod * t
        mod *= p
    return x


# -- Kasteleyn's formula ----------------------------------------------------------------------------------------
def _pi(prec: int) -> Decimal:
    with localcontext() as ctx:  # the decimal module documentation's recipe
        ctx.prec = prec + 5
        three = Decimal(3)
        lasts, t, s, n, na, d, da = 0, three, 3, 1, 0, 0, 24
        while s != lasts:
            lasts = s
            n, na = n + na, na + 8
            d, da = d + da, da + 32
            t = (t * n) / d
            s += t
        return +s


def _cos(x: Decimal) -> Decimal:
    with localcontext() as ctx:
        ctx.prec += 5
        i, lasts, s, fact, num, sign = 0, 0, 1, 1, 1, 1
        while s != lasts:
            lasts = s
            i += 2
            fact *= i * (i - 1)
            num *= x * x
            sign *= -1
            s += num / fact * sign
        return +s


def _four_cos2(count: int, n: int, pi: Decimal) -> list[Decimal]:
    """``4 cos^2(pi k / (n + 1))`` for ``k = 1..count``: one cosine by its series, the others by the recurrence
    ``cos(k t) = 2 cos(t) cos((k - 1) t) - cos((k - 2) t)`` (the caller's precision holds guard digits for the
    error it grows, at most about ``k^2`` units of the last place)."""
    c1 = _cos(pi / (n + 1))
    prev, cur, out = Decimal(1), c1, []
    for _ in range(count):
        out.append(4 * cur * cur)
        prev, cur = cur, 2 * c1 * cur - prev
    return out


def kasteleyn_digits(m: int, n: int) -> int:
    """Decimal digits :func:`kasteleyn` works with for an ``m x n`` rectangle (the count's, and guard digits)."""
    return int(0.30103 * 0.43 * m * n) + 40 + 4 * len(str(m + n + 2))  # about 0.42 bits a cell at most


def kasteleyn_work(m: int, n: int) -> float:
    """The work of :func:`kasteleyn` on an ``m x n`` rectangle, in products of about a thousand digits (a
    product of ``d`` digits counted as ``(d / 1000) ** 1.5`` of them; about 20 microseconds each on a 2-core
    Xeon): 200 x 200 about 1.3e5, 400 x 400 about 3.9e6."""
    if (m * n) % 2:
        return 0.0
    products = ((m + 1) // 2) * ((n + 1) // 2) + 2 * (m + n)
    return products * (kasteleyn_digits(m, n) / 1000) ** 1.5


KASTELEYN_WORK_LIMIT = 4e6  # about a minute and a half on a 2-core Xeon (400 x 400: 65 s)


def kasteleyn(m: int, n: int, on_row: Callable[[int, int], None] | None = None) -> int:
    """Domino tilings of an m x n rectangle by Kasteleyn's product (1961), evaluated in high-precision decimals:
    ``prod_{j<=ceil(m/2)} prod_{k<=ceil(n/2)} (4 cos^2(pi j/(m+1)) + 4 cos^2(pi k/(n+1)))``, rounded.
    ``on_row(done, total)`` is called after each ``j``."""
    if (m * n) % 2:
        return 0
    digits = kasteleyn_digits(m, n)
    with localcontext() as ctx:
        ctx.prec = digits
        pi = _pi(digits)
        a = _four_cos2((m + 1) // 2, m, pi)
        b = _four_cos2((n + 1) // 2, n, pi)
        prod = Decimal(1)
        for j, x in enumerate(a):
            for y in b:
                prod *= x + y
            if on_row is not None:
                on_row(j + 1, len(a))
        return int(prod.to_integral_value())


def log2_bound_bits(log2_value: float) -> int:
    """Bits enough to hold an integer whose base-2 logarithm was computed as ``log2_value`` in floating point."""
    return int(math.floor(log2_value * (1 + 1e-9) + 4))


__all__ = ["Anchored", "anchored", "ProfileGraph", "profile_graph", "TooManyProfiles", "primes_below", "crt",
           "kasteleyn", "kasteleyn_digits", "kasteleyn_work", "KASTELEYN_WORK_LIMIT", "MODULUS_LIMIT",
           "log2_bound_bits"]
