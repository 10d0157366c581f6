"""Large boards: exact strip counts by transfer matrix, one tiling of a huge rectangle band by band, and
random-cut puzzles (generate and solve back).

* :func:`count_strip` — tilings of an ``W x H`` rectangle with unlimited pieces: the periodic profile graph of
  :mod:`puzzlebatch.puzzles.polyomino.strip`, stepped ``W*H`` times on a vector of residues modulo several primes
  below ``2**62`` (one lane per prime, CPU ``prange`` or one CUDA block per lane, the same rule), combined by the
  Chinese remainder theorem.  How many primes: a floating-point run of the same steps gives ``log2`` of the count;
  one extra prime checks the combination.  ``method="bigint"`` runs the steps on Python integers instead.
* :func:`count_kasteleyn` — the same count for the domino alone, by Kasteleyn's product formula (wide boards too).
* :func:`solve_bands` — one tiling of a large rectangle with unlimited pieces: the board is cut into horizontal
  bands whose heights (from a small set, each band's tileability decided exactly by its profile graph) add up to
  the height; each band gets a uniformly random tiling (forward float counts, then a backward random walk through
  the profile graph).  Memory and time grow linearly with the area (the graph is built once per band height).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.puzzles.polyomino import strip as ST
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.twins import twin
from puzzlebatch.transfers import transfers_of, zero
from puzzlebatch.xp import namespace_for, to_host


def _float_drivers():
    from puzzlebatch.cpu_fallback.polyomino_strip import drivers

    return drivers()


@dataclass
class StripCount:
    solutions: int
    board: tuple[int, int]
    method: str
    backend: str
    seconds: float
    graph_seconds: float
    profiles: int  # profiles over all row positions (after pruning)
    edges: int
    window: int
    moduli: list[int] = field(default_factory=list)
    log2_estimate: float | None = None
    transfers: dict = field(default_factory=zero)

    def to_json(self) -> dict:
        return {"solutions": self.solutions, "board": list(self.board), "method": self.method,
                "backend": self.backend, "seconds": self.seconds, "graph_seconds": self.graph_seconds,
                "profiles": self.profiles, "edges": self.edges, "window": self.window, "moduli": len(self.moduli),
                "digits": len(str(self.solutions)), "log2_estimate": self.log2_estimate, **self.transfers}


def strip_orientation(w: int, h: int) -> tuple[int, int, bool]:
    """(m, n, transpose): scan the short side (``m`` cells a column) along the long one (``n`` columns)."""
    return (h, w, False) if h <= w else (w, h, True)


def float_log2(g: ST.ProfileGraph, n_columns: int) -> float | None:
    """log2 of the number of tilings by a float run of the steps (None when there is none)."""
    z = g.zero_index()
    if z < 0:
        return None
    f = g.flat()
    width = int(f["n_sources"].max())
    v = np.zeros(width)
    v[z] = 1.0
    d = _float_drivers()
    out, log2s = d.float_steps(v, f["ptr_all"], f["src_all"], f["ptr_off"], f["src_off"], f["n_targets"], 0,
                               n_columns * g.m, g.m, np.zeros((0, width)))
    return None if out[z] <= 0.0 else float(np.log2(out[z]) + log2s)


def count_strip(pieces: Sequence[S.Piece], w: int, h: int, backend: Backend, method: str = "crt",
                on_progress: Callable[[int, int], None] | None = None, graph: ST.ProfileGraph | None = None,
                chunk_columns: int = 64) -> StripCount:
    """Exact number of tilings of a ``w x h`` rectangle with unlimited copies of ``pieces`` (see module doc)."""
    t0 = work_clock()
    m, n, transpose = strip_orientation(w, h)
    g = graph or ST.profile_graph(pieces, m, transpose)
    t_graph = work_clock() - t0
    z = g.zero_index()
    base = dict(board=(w, h), backend=backend.name if method == "crt" else "cpu", graph_seconds=t_graph,
                profiles=g.n_states, edges=g.n_edges, window=g.window)
    if z < 0:
        return StripCount(0, method=method, seconds=work_clock() - t0, **base)
    steps = n * m
    if method == "bigint":
        cur = np.zeros(len(g.states[0]), dtype=object)
        cur[:] = 0
        cur[z] = 1
        for s in range(steps):
            y = s % m
            ptr, src = g.ptr[y], g.src[y]
            gathered = cur[src]
            nxt = np.add.reduceat(gathered, ptr[:-1]) if len(src) else np.zeros(len(ptr) - 1, dtype=object)
            nxt[ptr[:-1] == ptr[1:]] = 0
            cur = nxt
            if on_progress is not None and (s + 1) % (m * chunk_columns) == 0:
                on_progress(s + 1, steps)
        return StripCount(int(cur[z]), method=method, seconds=work_clock() - t0, **base)
    if method != "crt":
        raise PuzzleInputError(f"--exact: unknown method {method!r} (crt or bigint)")
    log2 = float_log2(g, n)
    bits = ST.log2_bound_bits(log2) if log2 is not None else 8
    k = max(1, math.ceil(bits / 61.5)) + 1  # the last prime checks the combination
    primes = np.array(ST.primes_below(ST.MODULUS_LIMIT, k), np.int64)
    f = g.flat()
    width = int(f["n_sources"].max())
    d = twin(backend, "strip")  # the graph stays on the device for the count
    xp = namespace_for(backend)  # on a GPU with CuPy the count vectors stay on the device between chunks
    a = xp.zeros((k, width), np.int64)
    b = xp.zeros((k, width), np.int64)
    a[:, z] = 1
    done = 0
    chunk = m * chunk_columns  # even when m*chunk_columns is even: keep chunks even so the result is back in a
    if chunk % 2:
        chunk *= 2
    while done < steps:
        todo = min(chunk, steps - done)
        d.run_steps(a, b, f["ptr_all"], f["src_all"], f["ptr_off"], f["src_off"], f["n_targets"], primes,
                    done % m, todo, m)
        if todo % 2:
            a, b = b, a
        done += todo
        if on_progress is not None:
            on_progress(done, steps)
    res = [int(r) for r in to_host(a[:, z])]
    value = ST.crt(res[:-1], [int(p) for p in primes[:-1]])
    if value % int(primes[-1]) != res[-1]:
        raise RuntimeError(f"CRT check failed: {k - 1} primes do not hold the count (float estimate 2^{log2})")
    return StripCount(value, method=method, seconds=work_clock() - t0, moduli=[int(p) for p in primes],
                      log2_estimate=log2, transfers=transfers_of(d), **base)


DOMINO = frozenset({(0, 0), (1, 0)})
DOMINO_UP = frozenset({(0, 0), (0, 1)})


def is_domino_set(pieces: Sequence[S.Piece]) -> bool:
    """Whether ``pieces`` is the domino alone, free to lie either way (one flat piece of two cells)."""
    return len(pieces) == 1 and pieces[0].dim == 2 and {DOMINO, DOMINO_UP} <= set(pieces[0].orientations())


def count_kasteleyn(pieces: Sequence[S.Piece], w: int, h: int,
                    on_progress: Callable[[int, int], None] | None = None) -> StripCount:
    """Domino tilings of a ``w x h`` rectangle by Kasteleyn's product formula (1961), exact (see
    :func:`puzzlebatch.puzzles.polyomino.strip.kasteleyn`); ``pieces`` must be the domino alone, turning freely;
    boards whose work is over :data:`~puzzlebatch.puzzles.polyomino.strip.KASTELEYN_WORK_LIMIT` are refused."""
    if not is_domino_set(pieces):
        names = ", ".join(p.name for p in pieces)
        fixed = len(pieces) == 1 and pieces[0].dim == 2 and len(pieces[0].cells) == 2
        raise PuzzleInputError(f"--method kasteleyn: counts tilings by the domino alone, free to lie either way, "
                               f"not {names}" + (" (kept to one orientation: use --method transfer)" if fixed else ""))
    m, n = min(w, h), max(w, h)
    work = ST.kasteleyn_work(m, n)
    if work > ST.KASTELEYN_WORK_LIMIT:
        raise PuzzleInputError(f"--board: {w}x{h} is beyond --method kasteleyn ({ST.kasteleyn_digits(m, n):,} digits "
                               f"over {((m + 1) // 2) * ((n + 1) // 2):,} products, about "
                               f"{work / ST.KASTELEYN_WORK_LIMIT:.0f}x the limit: squares up to about 400x400); "
                               "--method transfer counts strips up to about 20 wide")
    t0 = work_clock()
    value = ST.kasteleyn(m, n, on_row=on_progress)
    return StripCount(value, (w, h), "kasteleyn", "cpu", work_clock() - t0, 0.0, 0, 0, 0,
                      log2_estimate=math.log2(value) if value else None)


# -- one tiling of a huge rectangle, band by band -----------------------------------------------------------------
@dataclass
class BandSolution:
    solved: bool
    board: tuple[int, int]
    placements: list[tuple[int, list[tuple[int, int]]]]  # (piece index, cells)
    bands: list[int]  # band heights, along the long side
    seconds: float
    graph_seconds: float
    validated: bool = False


def band_graphs(pieces: Sequence[S.Piece], length: int, heights: Sequence[int], transpose: bool,
                max_profiles: int = 60_000) -> dict[int, ST.ProfileGraph]:
    """Profile graphs of the band heights whose ``h x length`` band has at least one tiling."""
    out = {}
    for h in heights:
        try:
            g = ST.profile_graph(pieces, h, transpose, max_profiles=max_profiles)
        except ST.TooManyProfiles:
            continue
        if float_log2(g, length) is not None:
            out[h] = g
    return out


def split_height(total: int, heights: Sequence[int], rng: np.random.Generator) -> list[int] | None:
    """A random sequence of the given heights adding up to ``total`` (None when there is none)."""
    ok = np.zeros(total + 1, bool)
    ok[0] = True
    for v in range(1, total + 1):
        ok[v] = any(h <= v and ok[v - h] for h in heights)
    if not ok[total]:
        return None
    out, v = [], total
    while v:
        choices = [h for h in heights if h <= v and ok[v - h]]
        h = int(rng.choice(choices))
        out.append(h)
        v -= h
    return out


def sample_band(g: ST.ProfileGraph, length: int, rng: np.random.Generator) -> list[tuple[int, int, int]]:
    """A uniformly random tiling of an ``m x length`` band: (anchored placement, column, row) per piece."""
    f = g.flat()
    via_all = np.concatenate(g.via).astype(np.int64)
    width = int(f["n_sources"].max())
    z = g.zero_index()
    steps = length * g.m
    v = np.zeros(width)
    v[z] = 1.0
    keep = np.zeros((steps + 1, width))
    _float_drivers().float_steps(v, f["ptr_all"], f["src_all"], f["ptr_off"], f["src_off"], f["n_targets"], 0,
                                 steps, g.m, keep)
    from puzzlebatch.cpu_fallback.polyomino_strip import sampler

    chosen = sampler()(keep, f["ptr_all"], f["src_all"], via_all, f["ptr_off"], f["src_off"], steps, g.m, z,
                       rng.random(steps))
    return [(int(a), s // g.m, s % g.m) for s, a in enumerate(chosen) if a >= 0]


def solve_bands(pieces: Sequence[S.Piece], w: int, h: int, seed: int = 0, heights: Sequence[int] | None = None,
                on_band: Callable[[int, int], None] | None = None) -> BandSolution:
    """One tiling of a ``w x h`` rectangle with unlimited ``pieces``, band by band (see module doc).

    Bands run along the shorter side and are stacked along the longer one; ``heights`` are the band heights to
    try (default 3..5).  Returns ``solved=False`` when no split of the long side into tileable bands exists —
    which does not prove the rectangle has no tiling (a tiling may need pieces across every band boundary).
    """
    t0 = work_clock()
    rng = np.random.default_rng(seed)
    length, stack = min(w, h), max(w, h)
    transpose = h < w  # band cells are (along, across); boards wider than tall are scanned along y
    # In band coordinates x runs along the band (length), y across it (stack); map back at the end.
    cand = [k for k in (heights or range(3, 6)) if k <= stack]
    graphs = band_graphs(pieces, length, cand, transpose=transpose)
    t_graph = work_clock() - t0
    split = split_height(stack, sorted(graphs), rng) if graphs else None
    if split is None:
        return BandSolution(False, (w, h), [], [], work_clock() - t0, t_graph)
    placements = []
    y0 = 0
    for i, bh in enumerate(split):
        g = graphs[bh]
        for a, x, y in sample_band(g, length, rng):
            an = g.placements[a]
            cells = [(x + dx, y0 + y + dy) for dx, dy in an.cells]
            # band coordinates (along, across) -> board (x, y)
            cells = [(c[1], c[0]) for c in cells] if transpose else cells
            placements.append((an.piece, cells))
        y0 += bh
        if on_band is not None:
            on_band(i + 1, len(split))
    return BandSolution(True, (w, h), placements, split, work_clock() - t0, t_graph)


def validate_tiling(pieces: Sequence[S.Piece], w: int, h: int, placements, mask: np.ndarray | None = None) -> None:
    """Check a tiling from scratch: every board cell covered exactly once, nothing outside the board, every piece
    a true copy of its shape under its allowed turns, copies within the limits.  Raises AssertionError."""
    grid = np.zeros((h, w), np.int64) if mask is None else np.where(mask, 0, -1)
    memo: dict = {}  # pieces of the same cells and turns share their orientation set
    for p in pieces:
        if (p.cells, p.turns) not in memo:
            memo[(p.cells, p.turns)] = set(p.orientations())
    shapes = [memo[(p.cells, p.turns)] for p in pieces]
    used = np.zeros(len(pieces), np.int64)
    for k, cells in placements:
        cells = [tuple(int(v) for v in c) for c in cells]
        assert S.normalize(cells) in shapes[k], f"{pieces[k].name} placed as a wrong shape at {cells[0]}"
        for x, y in cells:
            assert 0 <= x < w and 0 <= y < h, f"{pieces[k].name} covers {(x, y)}, outside the board"
            assert grid[y, x] == 0, f"cell {(x, y)} covered twice or a hole"
            grid[y, x] = 1
        used[k] += 1
        assert pieces[k].count == S.UNLIMITED or used[k] <= pieces[k].count, f"{pieces[k].name} used too often"
    assert (grid != 0).all(), f"{int((grid == 0).sum())} cells left uncovered"


# -- random-cut puzzles: solve back with shape classes ------------------------------------------------------------
def shape_classes(pieces: Sequence[S.Piece]) -> tuple[list[S.Piece], list[list[int]]]:
    """Merge pieces of the same shape (under their turns) into one class piece with a count; returns the class
    pieces and, per class, the indices of its member pieces (so solutions name real pieces)."""
    by_key: dict[tuple, list[int]] = {}
    canon: dict = {}  # S.canonical of each distinct (cells, turns), computed once
    for i, p in enumerate(pieces):
        if p.count != 1:
            raise PuzzleInputError(f"--pieces: {p.name} has count={p.count}; random-cut solving takes single pieces")
        key = (p.cells, p.turns)
        if key not in canon:
            canon[key] = S.canonical(p.cells, p.turns)
        by_key.setdefault((p.turns, canon[key]), []).append(i)
    classes, members = [], []
    width = max(2, len(str(len(by_key))))
    for n, ((turns, _), idx) in enumerate(by_key.items()):
        p = pieces[idx[0]]
        classes.append(S.Piece(f"C{n + 1:0{width}d}", p.cells, turns, len(idx), "shape class"))
        members.append(idx)
    return classes, members


@dataclass
class CutSolution:
    solved: bool
    placements: list[tuple[int, list[tuple[int, int]]]]  # (piece index in the input list, cells)
    classes: int
    nodes: int
    seconds: float
    backend: str


def solve_cut(board, pieces: Sequence[S.Piece], backend: Backend, branch: str = "mrv") -> CutSolution:
    """Place every piece once on the board (a :class:`~puzzlebatch.puzzles.polyomino.packing.Board`), searching
    over shape classes with counts (never over permutations of identical pieces) with the exact-cover engine;
    the solution is validated independently before it is returned."""
    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.runners.polyomino import solver as RP

    t0 = work_clock()
    classes, members = shape_classes(pieces)
    pk = P.build(board, classes)
    res = RP.solve_packing(pk, backend, branch)
    placements = []
    if res.solved:
        nxt = [0] * len(classes)
        for k, cells in res.placements:
            placements.append((members[k][nxt[k]], [tuple(int(v) for v in c) for c in cells]))
            nxt[k] += 1
        w, h = board.size
        mask = np.zeros((h, w), bool)
        for x, y in board.playable:
            mask[y, x] = True
        validate_tiling(pieces, w, h, placements, mask)
    return CutSolution(res.solved, placements, len(classes), res.nodes, work_clock() - t0, res.backend)
