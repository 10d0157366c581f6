"""CPU drivers of the strip transfer matrix: numba ``prange`` over modulus lanes, each lane running its cell steps
with the shared :func:`~puzzlebatch.puzzles.polyomino.strip_rules.gather_item` rule."""

# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import sys
from functools import lru_cache

import numpy as np
from numba import prange

from puzzlebatch import jit
from puzzlebatch.puzzles.polyomino import strip_rules


@jit.driver(parallel=True)
def run_steps(a, b, ptr_all, src_all, ptr_off, src_off, n_targets, primes, y0, steps, m):
    """Advance every lane ``steps`` cell steps from row ``y0``, ping-ponging between ``a`` and ``b``.
    The result is in ``a`` when ``steps`` is even, else in ``b``."""
    for lane in prange(a.shape[0]):
        p = primes[lane]
        for s in range(steps):
            y = (y0 + s) % m
            po = ptr_off[y]
            so = src_off[y]
            if s % 2 == 0:
                for t in range(n_targets[y]):
                    gather_item(a, b, lane, t, ptr_all, src_all, po, so, p)
            else:
                for t in range(n_targets[y]):
                    gather_item(b, a, lane, t, ptr_all, src_all, po, so, p)

@jit.driver
def float_steps(v, ptr_all, src_all, ptr_off, src_off, n_targets, y0, steps, m, keep):
    """Advance one float vector; rescale by its maximum after each step.  Returns (vector, log2 of the total
    scale).  With ``keep`` (rows = steps + 1) every intermediate vector is stored (scaled) for sampling."""
    cur = v.copy()
    nxt = np.zeros_like(v)
    log2s = 0.0
    if keep.shape[0] > 0:
        keep[0, :] = cur
    for s in range(steps):
        y = (y0 + s) % m
        for t in range(n_targets[y]):
            gather_float(cur, nxt, t, ptr_all, src_all, ptr_off[y], src_off[y])
        top = 0.0
        for t in range(n_targets[y]):
            if nxt[t] > top:
                top = nxt[t]
        if top > 0.0:
            e = np.floor(np.log2(top))
            sc = 2.0 ** (-e)
            for t in range(n_targets[y]):
                nxt[t] *= sc
            log2s += e
        for t in range(n_targets[y]):
            cur[t] = nxt[t]
        for t in range(n_targets[y], cur.shape[0]):
            cur[t] = 0.0
        if keep.shape[0] > 0:
            keep[s + 1, :] = cur
    return cur, log2s


@jit.driver
def sample(keep, ptr_all, src_all, via_all, ptr_off, src_off, steps, m, z, uniforms):
    """``keep[s]``: the forward vector before step ``s``.  Returns the placement used at every step (-1: the cell
    was covered already), walking back from the empty profile after the last step."""
    chosen = np.full(steps, -1, np.int64)
    t = z
    for s in range(steps - 1, -1, -1):
        y = s % m
        lo = ptr_all[ptr_off[y] + t]
        hi = ptr_all[ptr_off[y] + t + 1]
        total = 0.0
        for k in range(lo, hi):
            total += keep[s, src_all[src_off[y] + k]]
        r = uniforms[s] * total
        pick = hi - 1
        acc = 0.0
        for k in range(lo, hi):
            w = keep[s, src_all[src_off[y] + k]]
            if w > 0.0:
                pick = k
                acc += w
                if acc > r:
                    break
        chosen[s] = via_all[src_off[y] + pick]
        t = src_all[src_off[y] + pick]
    return chosen


@lru_cache(maxsize=None)
def drivers() -> jit.Unit:
    """The strip rules compiled together with these drivers (``run_steps``, ``float_steps``, ``sample``)."""
    return jit.unit("polyomino strip", "cpu", rules=[strip_rules], templates=[sys.modules[__name__]])


def sampler():
    """Backward random walk through a profile graph, weighted by stored forward float counts (``sample``)."""
    return drivers().sample
