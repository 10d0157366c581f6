"""Per-item logic of one GA generation, generic over a family's operators (numba subset, both backends).

A family supplies three plain rules (compiled together with :mod:`puzzlebatch.ga.rng` and this template by
:func:`puzzlebatch.ga.compile.ga_unit`):

``fitness(genome, tables) -> float``
    the score of one genome (higher is better);
``crossover(child, donor, rng, params, tables)``
    change ``child`` (a copy of the carrier) using genes of ``donor``; ``rng`` is the item's random state;
``mutate(genome, rng, params, tables)``
    change one genome at random.

:func:`breed_item` is the function one CPU iteration or one CUDA thread runs to make child ``i``: pick a
carrier (fitness-proportional roulette, the seed document's scheme, or a tournament), copy it, cross it with
``n_parents - 1`` donors drawn uniformly, mutate it with probability ``p_mutation`` and score it.

With ``islands`` > 1 the population is that many equal contiguous islands: child ``i`` belongs to island
``i // (P / islands)`` and its carrier and donors come from the same island (the roulette over the island's own
stretch of ``cum``).  With one island every draw is what it was before islands existed.
"""

from __future__ import annotations

# ruff: noqa: F821  -- the operators and random functions are resolved in the compile unit


def breed_item(i, pop, fit, cum, children, child_fit, carriers, rngs, n_parents, p_mutation, tournament,
               islands, params, tables):
    """Make child ``i``; ``cum`` is the cumulative selection weight of the population (roulette), ``tournament``
    0 for roulette or the tournament size, ``islands`` the number of islands (1: one panmictic population)."""
    rng = rngs[i:i + 1]
    n = pop.shape[0] // islands  # the island's size
    first = (i // n) * n  # its first slot
    if tournament > 0:
        c = first + rand_below(rng, n)
        for _ in range(tournament - 1):
            k = first + rand_below(rng, n)
            if fit[k] > fit[c]:
                c = k
    else:
        base = 0.0
        if first > 0:
            base = cum[first - 1]
        r = base + rand_unit(rng) * (cum[first + n - 1] - base)
        lo = first
        hi = first + n - 1
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
        d = first + rand_below(rng, n)
        if d == c and n > 1:
            d = first + (d - first + 1) % n
        crossover(child, pop[d], rng, params, tables)
    if rand_unit(rng) < p_mutation:
        mutate(child, rng, params, tables)
    child_fit[i] = fitness(child, tables)
    carriers[i] = c
