"""CUDA kernels of the generic GA: one thread per child (grid-stride), the same per-item code as the CPU.

Same driver names and signatures as :mod:`puzzlebatch.cpu_fallback.ga`, on host numpy arrays.  The kernels are
templates compiled together with a family's operators (:func:`puzzlebatch.ga.compile.ga_unit`).
"""
# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import sys
from functools import lru_cache
from types import ModuleType

import numpy as np
from numba import cuda  # a module global: the simulator swaps it for its fake inside kernels

from puzzlebatch import jit
from puzzlebatch.config import launch


@jit.kernel
def breed_kernel(pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament, params,
                 tables):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, children.shape[0], stride):
        breed_item(i, pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament,
                   params, tables)


@jit.kernel
def fitness_kernel(pop, out, tables):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, pop.shape[0], stride):
        out[i] = fitness(pop[i], tables)


class GAKernels:
    """A family's compiled GA kernels and their host launchers."""

    def __init__(self, unit: jit.Unit) -> None:
        self.unit = unit
        self.breed_kernel, self.fitness_kernel = unit.breed_kernel, unit.fitness_kernel

    def breed_batch(self, pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament,
                    params, tables):
        n = children.shape[0]
        d_children, d_child_fit = cuda.to_device(children), cuda.to_device(child_fit)
        d_carriers, d_rngs = cuda.to_device(carriers), cuda.to_device(rngs)
        self.breed_kernel[launch.blocks_for(n), launch.threads_per_block](
            cuda.to_device(pop), cuda.to_device(fit), cuda.to_device(cum), d_children, d_child_fit, d_carriers,
            d_rngs, np.int64(n_parents), np.float64(p_mutation), np.int64(tournament), cuda.to_device(params),
            cuda.to_device(tables))
        d_children.copy_to_host(children)
        d_child_fit.copy_to_host(child_fit)
        d_carriers.copy_to_host(carriers)
        d_rngs.copy_to_host(rngs)

    def fitness_batch(self, pop, out, tables):
        d_out = cuda.to_device(out)
        self.fitness_kernel[launch.blocks_for(pop.shape[0]), launch.threads_per_block](
            cuda.to_device(pop), d_out, cuda.to_device(tables))
        d_out.copy_to_host(out)


@lru_cache(maxsize=None)
def drivers(rules: ModuleType) -> GAKernels:
    from puzzlebatch.ga.compile import ga_unit

    return GAKernels(ga_unit(rules, "cuda", sys.modules[__name__]))
