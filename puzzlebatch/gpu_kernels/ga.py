"""CUDA kernels of the generic GA: one thread per child (grid-stride), the same per-item code as the CPU.

Same driver names and signatures as :mod:`puzzlebatch.cpu_fallback.ga`, on host numpy arrays or device arrays.
The kernels are templates compiled together with a family's operators (:func:`puzzlebatch.ga.compile.ga_unit`).
"""
# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import sys
from functools import lru_cache
from types import ModuleType

import numpy as np
from numba import cuda  # a module global: the simulator swaps it for its fake inside kernels

from puzzlebatch import jit
from puzzlebatch.gpu_kernels.device import DeviceSession
from puzzlebatch.transfers import Transfers


@jit.kernel
def breed_kernel(pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament, islands,
                 params, tables):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, children.shape[0], stride):
        breed_item(i, pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament,
                   islands, params, tables)


@jit.kernel
def fitness_kernel(pop, out, tables):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, pop.shape[0], stride):
        out[i] = fitness(pop[i], tables)


class GAKernels:
    """A family's compiled GA kernels and their host launchers, with the device memory of one GA run (one
    launcher per run: :func:`launcher`).

    The tables and operator parameters go to the device once.  Arrays that live on the device (the population,
    fitness and random states of a run on a GPU with CuPy) are used where they are, and nothing comes back; numpy
    arrays are copied in, and the outputs copied back.
    """

    def __init__(self, unit: jit.Unit) -> None:
        self.unit = unit
        self.breed_kernel, self.fitness_kernel = unit.breed_kernel, unit.fitness_kernel
        self._session: DeviceSession | None = None

    @property
    def session(self) -> DeviceSession:
        if self._session is None:  # made on first use: compiling to PTX needs no device
            self._session = DeviceSession()
        return self._session

    @property
    def transfers(self) -> Transfers:
        return self.session.transfers

    def breed_batch(self, pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament,
                    islands, params, tables):
        s = self.session
        n = children.shape[0]
        outs = [(children, s.output("children", children)), (child_fit, s.output("child_fit", child_fit)),
                (carriers, s.output("carriers", carriers)), (rngs, s.put("rngs", rngs))]
        s.launch("breed_kernel", self.breed_kernel, n, s.put("pop", pop), s.put("fit", fit), s.put("cum", cum),
                 *(d for _, d in outs), np.int64(n_parents), np.float64(p_mutation), np.int64(tournament),
                 np.int64(islands), s.resident("params", params), s.resident("tables", tables))
        s.get_back(outs)

    def fitness_batch(self, pop, out, tables):
        s = self.session
        d_out = s.output("fitness", out)
        s.launch("fitness_kernel", self.fitness_kernel, pop.shape[0], s.put("genomes", pop), d_out,
                 s.resident("tables", tables))
        s.get_back([(out, d_out)])


@lru_cache(maxsize=None)
def drivers(rules: ModuleType) -> GAKernels:
    from puzzlebatch.ga.compile import ga_unit

    return GAKernels(ga_unit(rules, "cuda", sys.modules[__name__]))


def launcher(rules: ModuleType) -> GAKernels:
    """A launcher of its own (its own device memory, stream and transfer counts) for one GA run."""
    return GAKernels(drivers(rules).unit)
