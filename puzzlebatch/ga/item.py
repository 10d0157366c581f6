"""Per-item logic of one GA generation, generic over a family's operators (numba subset, both backends).

A family supplies three plain rules (compiled with :func:`puzzlebatch.ga.compile.compile_ga_rules`):

``fitness(genome, tables) -> float``
    the score of one genome (higher is better);
``crossover(child, donor, rng, params, tables)``
    change ``child`` (a copy of the carrier) using genes of ``donor``; ``rng`` is the item's random state;
``mutate(genome, rng, params, tables)``
    change one genome at random.

:func:`make_breed_item` builds the function one CPU iteration or one CUDA thread runs to make child ``i``: pick a
carrier (fitness-proportional roulette, the seed document's scheme, or a tournament), copy it, cross it with
``n_parents - 1`` donors drawn uniformly, mutate it with probability ``p_mutation`` and score it.
"""

from __future__ import annotations

from typing import Callable


def make_breed_item(fitness: Callable, crossover: Callable, mutate: Callable, rand_below: Callable,
                    rand_unit: Callable) -> Callable:
    """``breed_item(i, pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament,
    params, tables)``; ``cum`` is the cumulative selection weight of the population (roulette), ``tournament``
    0 for roulette or the tournament size."""

    def breed_item(i, pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament,
                   params, tables):
        rng = rngs[i:i + 1]
        n = pop.shape[0]
        if tournament > 0:
            c = rand_below(rng, n)
            for _ in range(tournament - 1):
                k = rand_below(rng, n)
                if fit[k] > fit[c]:
                    c = k
        else:
            r = rand_unit(rng) * cum[n - 1]
            lo = 0
            hi = n - 1
            while lo < hi:  # the first index whose cumulative weight exceeds r
                mid = (lo + hi) // 2
                if cum[mid] > r:
                    hi = mid
                else:
                    lo = mid + 1
            c = lo
        child = children[i]
        for k in range(child.shape[0]):
            child[k] = pop[c, k]
        for _ in range(n_parents - 1):
            d = rand_below(rng, n)
            if d == c and n > 1:
                d = (d + 1) % n
            crossover(child, pop[d], rng, params, tables)
        if rand_unit(rng) < p_mutation:
            mutate(child, rng, params, tables)
        child_fit[i] = fitness(child, tables)
        carriers[i] = c

    return breed_item
