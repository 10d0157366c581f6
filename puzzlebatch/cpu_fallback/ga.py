"""CPU drivers of the generic GA: numba ``prange`` over children (breed + score) or genomes (score).

Templates compiled together with a family's operators (:func:`puzzlebatch.ga.compile.ga_unit`): ``breed_item``
and ``fitness`` are resolved by name in the compile unit.
"""
# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import sys
from functools import lru_cache
from types import ModuleType

from numba import prange

from puzzlebatch import jit


@jit.driver(parallel=True)
def breed_batch(pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament, params,
                tables):
    for i in prange(children.shape[0]):
        breed_item(i, pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament,
                   params, tables)


@jit.driver(parallel=True)
def fitness_batch(pop, out, tables):
    for i in prange(pop.shape[0]):
        out[i] = fitness(pop[i], tables)


@lru_cache(maxsize=None)
def drivers(rules: ModuleType) -> jit.Unit:
    """``breed_batch`` and ``fitness_batch`` for a family's operator module (built once per module)."""
    from puzzlebatch.ga.compile import ga_unit

    return ga_unit(rules, "cpu", sys.modules[__name__])
