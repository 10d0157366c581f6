"""CUDA kernel of the strip transfer matrix: one block per modulus lane, its threads striding over the target
profiles of each cell step (``syncthreads`` between steps), the same
:func:`~puzzlebatch.puzzles.polyomino.strip_rules.gather_item` rule as the CPU twin.  A launch runs many steps."""

# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import sys
from functools import lru_cache

import numpy as np
from numba import cuda  # a module global: the simulator swaps it for its fake inside kernels

from puzzlebatch import jit
from puzzlebatch.config import launch
from puzzlebatch.puzzles.polyomino import strip_rules


@jit.kernel
def steps_kernel(a, b, ptr_all, src_all, ptr_off, src_off, n_targets, primes, y0, steps, m):
    lane = cuda.blockIdx.x
    if lane >= a.shape[0]:
        return
    p = primes[lane]
    for s in range(steps):
        y = (y0 + s) % m
        po = ptr_off[y]
        so = src_off[y]
        t = cuda.threadIdx.x
        while t < n_targets[y]:
            if s % 2 == 0:
                gather_item(a, b, lane, t, ptr_all, src_all, po, so, p)
            else:
                gather_item(b, a, lane, t, ptr_all, src_all, po, so, p)
            t += cuda.blockDim.x
        cuda.syncthreads()


class StripKernels:
    """The compiled kernel and its launcher (same contract as the CPU ``run_steps``)."""

    def __init__(self, unit: jit.Unit) -> None:
        self.unit = unit
        self.kernel = unit.steps_kernel

    def run_steps(self, a, b, ptr_all, src_all, ptr_off, src_off, n_targets, primes, y0, steps, m):
        """Host arrays in, ``a`` and ``b`` updated in place."""
        d_a, d_b = cuda.to_device(a), cuda.to_device(b)
        self.kernel[a.shape[0], launch.threads_per_block](
            d_a, d_b, cuda.to_device(ptr_all), cuda.to_device(src_all), cuda.to_device(ptr_off),
            cuda.to_device(src_off), cuda.to_device(n_targets), cuda.to_device(primes), np.int64(y0),
            np.int64(steps), np.int64(m))
        d_a.copy_to_host(a)
        d_b.copy_to_host(b)


@lru_cache(maxsize=None)
def drivers() -> StripKernels:
    return StripKernels(jit.unit("polyomino strip", "cuda", rules=[strip_rules], templates=[sys.modules[__name__]]))
