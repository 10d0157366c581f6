"""Large boards: exact strip counts by transfer matrix, one tiling of a huge rectangle band by band, and
random-cut puzzles (generate and solve back).

* :func:`count_strip` — tilings of an ``W x H`` rectangle with unlimited pieces: the periodic profile graph of
  :mod:`puzzlebatch.puzzles.polyomino.strip`, stepped ``W*H`` times on a vector of residues modulo several primes
  below ``2**62`` (one lane per prime, CPU ``prange`` or one CUDA block per lane, the same rule), combined by the
  Chinese remainder theorem.  How many primes: a floating-point run of the same steps gives ``log2`` of the count;
  one extra prime checks the combination.  ``method="bigint"`` runs the steps on Python integers instead.
* :func:`solve_bands` — one tiling of a large rectangle with unlimited pieces: the board is cut into horizontal
  bands whose heights (from a small set, each band's tileability decided exactly by its profile graph) add up to
  the height; each band gets a uniformly random tiling (forward float counts, then a backward random walk through
  the profile graph).  Memory and time grow linearly with the area (the graph is built once per band height).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.puzzles.polyomino import strip as ST
from puzzlebatch.runners.backend import Backend


def _strip_drivers(backend: Backend):
    if backend.kind == "cpu":
        from puzzlebatch.cpu_fallback.polyomino_strip import drivers
    else:
        from puzzlebatch.gpu_kernels.polyomino_strip import drivers
    return drivers()


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

    def to_json(self) -> dict:
        return {"solutions": self.solutions, "board": list(self.board), "method": self.method,
                "backend": self.backend, "seconds": self.seconds, "graph_seconds": self.graph_seconds,
                "profiles": self.profiles, "edges": self.edges, "window": self.window, "moduli": len(self.moduli),
                "digits": len(str(self.solutions)), "log2_estimate": self.log2_estimate}


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
    t0 = time.perf_counter()
    m, n, transpose = strip_orientation(w, h)
    g = graph or ST.profile_graph(pieces, m, transpose)
    t_graph = time.perf_counter() - t0
    z = g.zero_index()
    base = dict(board=(w, h), backend=backend.name if method == "crt" else "cpu", graph_seconds=t_graph,
                profiles=g.n_states, edges=g.n_edges, window=g.window)
    if z < 0:
        return StripCount(0, method=method, seconds=time.perf_counter() - t0, **base)
    steps = n * m
    if method == "bigint":
        cur = np.zeros(len(g.states[0]), dtype=object)
        cur[:] = 0
        cur[z] = 1
        for s in range(steps):
            y = s % m
            ptr, src = g.ptr[y], g.src[y]
            gathered = cur[src]
            nxt = np.add.reduceat(gathered, ptr[:-1]) if len(src) else np.zeros(0, dtype=object)
            nxt[ptr[:-1] == ptr[1:]] = 0
            cur = nxt
            if on_progress is not None and (s + 1) % (m * chunk_columns) == 0:
                on_progress(s + 1, steps)
        return StripCount(int(cur[z]), method=method, seconds=time.perf_counter() - t0, **base)
    if method != "crt":
        raise PuzzleInputError(f"--exact: unknown method {method!r} (crt or bigint)")
    log2 = float_log2(g, n)
    bits = ST.log2_bound_bits(log2) if log2 is not None else 8
    k = max(1, math.ceil(bits / 61.5)) + 1  # the last prime checks the combination
    primes = np.array(ST.primes_below(ST.MODULUS_LIMIT, k), np.int64)
    f = g.flat()
    width = int(f["n_sources"].max())
    a = np.zeros((k, width), np.int64)
    b = np.zeros((k, width), np.int64)
    a[:, z] = 1
    d = _strip_drivers(backend)
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
    res = [int(r) for r in a[:, z]]
    value = ST.crt(res[:-1], [int(p) for p in primes[:-1]])
    if value % int(primes[-1]) != res[-1]:
        raise RuntimeError(f"CRT check failed: {k - 1} primes do not hold the count (float estimate 2^{log2})")
    return StripCount(value, method=method, seconds=time.perf_counter() - t0, moduli=[int(p) for p in primes],
                      log2_estimate=log2, **base)
