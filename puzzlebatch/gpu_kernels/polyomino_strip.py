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
from puzzlebatch.gpu_kernels.device import DeviceSession
from puzzlebatch.transfers import Transfers
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
    """The compiled kernel and its launcher (same contract as the CPU ``run_steps``), with the device memory of one
    count (one launcher per count: :func:`launcher`): the profile graph goes to the device once; the count
    vectors stay there when they are device arrays, else are copied in and back."""

    def __init__(self, unit: jit.Unit) -> None:
        self.unit = unit
        self.kernel = unit.steps_kernel
        self._session: DeviceSession | None = None

    @property
    def session(self) -> DeviceSession:
        if self._session is None:  # made on first use: compiling to PTX needs no device
            self._session = DeviceSession()
        return self._session

    @property
    def transfers(self) -> Transfers:
        return self.session.transfers

    def run_steps(self, a, b, ptr_all, src_all, ptr_off, src_off, n_targets, primes, y0, steps, m):
        """``a`` and ``b`` updated in place (host arrays, or device arrays left on the device)."""
        s = self.session
        d_a, d_b = s.put("a", a), s.put("b", b)
        s.launch("steps_kernel", self.kernel, 0, d_a, d_b, s.resident("ptr_all", ptr_all),
                 s.resident("src_all", src_all), s.resident("ptr_off", ptr_off), s.resident("src_off", src_off),
                 s.resident("n_targets", n_targets), s.resident("primes", primes), np.int64(y0), np.int64(steps),
                 np.int64(m), blocks=a.shape[0])  # one block per modulus lane
        s.get_back([(a, d_a), (b, d_b)])


@lru_cache(maxsize=None)
def drivers() -> StripKernels:
    return StripKernels(jit.unit("polyomino strip", "cuda", rules=[strip_rules], templates=[sys.modules[__name__]]))


def launcher() -> StripKernels:
    """A launcher of its own (its own device memory, stream and transfer counts) for one count."""
    return StripKernels(drivers().unit)
