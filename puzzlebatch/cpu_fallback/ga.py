"""CPU drivers of the generic GA: numba ``prange`` over children (breed + score) or genomes (score), and the
carrier replacement as one compiled pass.

Children differ in cost (a memetic repair may search thousands of nodes for one and none for the next), so the
threads of ``breed_batch`` take blocks of children from a shared counter (:mod:`puzzlebatch.jit.atomic`) rather than
one fixed block each; every child draws from its own random state, so which thread makes it changes nothing.

Templates compiled together with a family's operators (:func:`puzzlebatch.ga.compile.ga_unit`): ``breed_item``
and ``fitness`` are resolved by name in the compile unit.
"""
# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import sys
from functools import lru_cache
from types import ModuleType

import numpy as np
from numba import prange

from puzzlebatch import jit
from puzzlebatch.jit.atomic import LANES, fetch_add

BLOCK = 32  # children a thread takes from the queue at a time in large batches (neighbouring rows stay together)


@jit.driver(parallel=True)
def breed_batch(pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament, islands,
                params, tables):
    n = children.shape[0]
    block = 1
    if n >= 16 * BLOCK:
        block = BLOCK
    cursor = np.empty(1, np.int64)
    cursor[0] = 0
    for _ in prange(min(LANES, n)):
        b = fetch_add(cursor, 0, block)
        while b < n:
            for i in range(b, min(b + block, n)):
                breed_item(i, pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation,
                           tournament, islands, params, tables)
            b = fetch_add(cursor, 0, block)


@jit.driver(parallel=True)
def replace_carrier_batch(pop, fit, children, child_fit, carriers, best):
    """Carrier elitism in place, as :func:`puzzlebatch.xp.replace_by_carrier` (same result): per carrier its
    fittest child, the lowest index on ties, replaces it when at least as fit.  ``best`` (one int64 per slot) is
    scratch; returns how many slots changed."""
    for j in range(pop.shape[0]):
        best[j] = -1
    for i in range(children.shape[0]):
        c = carriers[i]
        b = best[c]
        if b < 0 or child_fit[i] > child_fit[b]:
            best[c] = i
    changed = 0
    for j in prange(pop.shape[0]):
        b = best[j]
        if b >= 0 and child_fit[b] >= fit[j]:
            for k in range(pop.shape[1]):
                pop[j, k] = children[b, k]
            fit[j] = child_fit[b]
            changed += 1
    return changed


@jit.driver(parallel=True)
def fitness_batch(pop, out, tables):
    for i in prange(pop.shape[0]):
        out[i] = fitness(pop[i], tables)


@lru_cache(maxsize=None)
def drivers(rules: ModuleType) -> jit.Unit:
    """``breed_batch`` and ``fitness_batch`` for a family's operator module (built once per module)."""
    from puzzlebatch.ga.compile import ga_unit

    return ga_unit(rules, "cpu", sys.modules[__name__])
