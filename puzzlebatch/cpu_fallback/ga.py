"""CPU drivers of the generic GA: numba ``prange`` over children (breed + score) or genomes (score)."""

from __future__ import annotations

from functools import lru_cache
from types import ModuleType

from numba import njit, prange

from puzzlebatch.ga.compile import compile_ga_rules
from puzzlebatch.ga.item import make_breed_item


@lru_cache(maxsize=None)
def drivers(rules: ModuleType):
    """``breed_batch`` and ``fitness_batch`` for a family's operator module (built once per module)."""
    r = compile_ga_rules(rules, "cpu")
    breed_item = njit(make_breed_item(r.fitness, r.crossover, r.mutate, r.rand_below, r.rand_unit))
    fitness = r.fitness

    @njit(parallel=True)
    def breed_batch(pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament, params,
                    tables):
        for i in prange(children.shape[0]):
            breed_item(i, pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament,
                       params, tables)

    @njit(parallel=True)
    def fitness_batch(pop, out, tables):
        for i in prange(pop.shape[0]):
            out[i] = fitness(pop[i], tables)

    class _Drivers:
        pass

    d = _Drivers()
    d.breed_batch, d.fitness_batch = breed_batch, fitness_batch
    return d
