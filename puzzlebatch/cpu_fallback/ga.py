"""CPU drivers of the generic GA: numba ``prange`` over children (breed, score, bid), slots (carrier replacement),
islands (migration) or genomes (score); and the atomic steps the per-item rules of :mod:`puzzlebatch.ga.item` call
on this target (``cas``, ``read_bid``, ``publish``, ``count_one``).

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
from puzzlebatch.jit.atomic import LANES, compare_swap, fetch_add

BLOCK = 32  # children a thread takes from the queue at a time in large batches (neighbouring rows stay together)


def cas(claims, c, old, new):
    return compare_swap(claims, c, old, new)


def read_bid(child_fit, k):
    return child_fit[k]  # the compare-and-swap that published ``k`` is sequentially consistent


def publish():
    return


def count_one(counter):
    fetch_add(counter, 0, 1)


@jit.driver(parallel=True)
def breed_batch(pop, fit, cum, children, child_fit, carriers, claims, rngs, n_parents, p_mutation, tournament,
                islands, params, tables):
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
                breed_item(i, pop, fit, cum, children, child_fit, carriers, claims, rngs, n_parents, p_mutation,
                           tournament, islands, params, tables)
            b = fetch_add(cursor, 0, block)


@jit.driver(parallel=True)
def bid_batch(child_fit, carriers, claims):
    """The bids of children scored elsewhere (tests: the replacement against its array version)."""
    for i in prange(child_fit.shape[0]):
        claim_child(i, carriers[i], child_fit, claims)


@jit.driver(parallel=True)
def replace_batch(pop, fit, children, child_fit, claims, counter):
    """Carrier elitism in place from the children's bids (:func:`puzzlebatch.ga.item.replace_item`)."""
    for j in prange(pop.shape[0]):
        replace_item(j, pop, fit, children, child_fit, claims, counter)


@jit.driver(parallel=True)
def migrate_pick_batch(pop, fit, islands, moving, moving_fit):
    for k in prange(islands):
        migrate_pick_item(k, pop, fit, islands, moving, moving_fit)


@jit.driver(parallel=True)
def migrate_put_batch(pop, fit, islands, moving, moving_fit):
    for k in prange(islands):
        migrate_put_item(k, pop, fit, islands, moving, moving_fit)


@jit.driver(parallel=True)
def fitness_batch(pop, out, tables):
    for i in prange(pop.shape[0]):
        out[i] = fitness(pop[i], tables)


@lru_cache(maxsize=None)
def drivers(rules: ModuleType) -> jit.Unit:
    """``breed_batch`` and ``fitness_batch`` for a family's operator module (built once per module)."""
    from puzzlebatch.ga.compile import ga_unit

    return ga_unit(rules, "cpu", sys.modules[__name__])
