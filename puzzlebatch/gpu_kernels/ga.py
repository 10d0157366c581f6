"""CUDA kernels of the generic GA: one thread per child (grid-stride), the same per-item code as the CPU.

Same driver names and signatures as :mod:`puzzlebatch.cpu_fallback.ga`, on host numpy arrays.
"""

from __future__ import annotations

from functools import lru_cache
from types import ModuleType

import numpy as np
from numba import cuda  # a module global: the simulator swaps it for its fake inside kernels

from puzzlebatch.config import launch
from puzzlebatch.ga.compile import compile_ga_rules
from puzzlebatch.ga.item import make_breed_item


@lru_cache(maxsize=None)
def drivers(rules: ModuleType):
    r = compile_ga_rules(rules, "cuda")
    breed_item = cuda.jit(device=True)(make_breed_item(r.fitness, r.crossover, r.mutate, r.rand_below,
                                                       r.rand_unit))
    fitness = r.fitness

    @cuda.jit
    def breed_kernel(pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament,
                     params, tables):
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        for i in range(start, children.shape[0], stride):
            breed_item(i, pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament,
                       params, tables)

    @cuda.jit
    def fitness_kernel(pop, out, tables):
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        for i in range(start, pop.shape[0], stride):
            out[i] = fitness(pop[i], tables)

    def breed_batch(pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament, params,
                    tables):
        n = children.shape[0]
        d_children, d_child_fit = cuda.to_device(children), cuda.to_device(child_fit)
        d_carriers, d_rngs = cuda.to_device(carriers), cuda.to_device(rngs)
        breed_kernel[launch.blocks_for(n), launch.threads_per_block](
            cuda.to_device(pop), cuda.to_device(fit), cuda.to_device(cum), d_children, d_child_fit, d_carriers,
            d_rngs, np.int64(n_parents), np.float64(p_mutation), np.int64(tournament), cuda.to_device(params),
            cuda.to_device(tables))
        d_children.copy_to_host(children)
        d_child_fit.copy_to_host(child_fit)
        d_carriers.copy_to_host(carriers)
        d_rngs.copy_to_host(rngs)

    def fitness_batch(pop, out, tables):
        d_out = cuda.to_device(out)
        fitness_kernel[launch.blocks_for(pop.shape[0]), launch.threads_per_block](cuda.to_device(pop), d_out,
                                                                                   cuda.to_device(tables))
        d_out.copy_to_host(out)

    class _Drivers:
        pass

    d = _Drivers()
    d.breed_batch, d.fitness_batch = breed_batch, fitness_batch
    d.breed_kernel, d.fitness_kernel = breed_kernel, fitness_kernel
    return d
