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

The rest of a generation is per item too, so that it stays where the population lives (two launches a generation,
three every migration):

* carrier elitism: a scored child *bids* for its carrier's slot (:func:`claim_child`, a compare-and-swap loop
  that leaves the fittest bidder, the lowest index on ties, whatever order the bids land in); then
  :func:`replace_item` puts slot ``j``'s winner in when it is at least as fit and clears the bid;
* ring migration: :func:`migrate_pick_item` copies island ``k``'s fittest out, then :func:`migrate_put_item`
  writes it over the least fit of island ``k + 1`` (the first on ties, both).

The atomic steps are the target's (``cas``, ``read_bid``, ``publish``, ``count_one``: defined by the CPU drivers
and by the CUDA kernels' module); the logic around them is this one.
"""

from __future__ import annotations

# ruff: noqa: F821  -- the operators and random functions are resolved in the compile unit


def breed_item(i, pop, fit, cum, children, child_fit, carriers, claims, rngs, n_parents, p_mutation, tournament,
               islands, params, tables):
    """Make child ``i``; ``cum`` is the cumulative selection weight of the population (roulette), ``tournament``
    0 for roulette or the tournament size, ``islands`` the number of islands (1: one panmictic population).
    ``claims`` (one int64 a slot, -1 when no bid) takes the child's bid for its carrier; an empty ``claims``
    takes none (the (mu + lambda) replacement)."""
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
    if claims.shape[0] > 0:
        publish()  # the score is seen by every thread before the bid that points at it
        claim_child(i, c, child_fit, claims)


def claim_child(i, c, child_fit, claims):
    """Child ``i`` bids for slot ``c``: ``claims[c]`` ends as the fittest of the bidders, the lowest index on ties.

    Every bid either lands (compare-and-swap) or meets a better one; the held bid only ever improves, so the last
    one standing is the same whichever thread bids first."""
    f = child_fit[i]
    old = claims[c]
    while True:
        if old >= 0:
            g = read_bid(child_fit, old)
            if g > f or (g == f and old < i):
                return
        seen = cas(claims, c, old, i)
        if seen == old:
            return
        old = seen


def replace_item(j, pop, fit, children, child_fit, claims, counter):
    """Carrier elitism for slot ``j``: the winning bid replaces it when at least as fit (``counter[0]`` counts
    the replacements); the bid is cleared for the next generation."""
    b = claims[j]
    if b < 0:
        return
    claims[j] = -1
    if child_fit[b] >= fit[j]:
        for k in range(pop.shape[1]):
            pop[j, k] = children[b, k]
        fit[j] = child_fit[b]
        count_one(counter)


def migrate_pick_item(k, pop, fit, islands, moving, moving_fit):
    """Copy island ``k``'s fittest individual (the first on ties) into ``moving[k]``."""
    n = pop.shape[0] // islands
    best = k * n
    for s in range(k * n + 1, k * n + n):
        if fit[s] > fit[best]:
            best = s
    for g in range(pop.shape[1]):
        moving[k, g] = pop[best, g]
    moving_fit[k] = fit[best]


def migrate_put_item(k, pop, fit, islands, moving, moving_fit):
    """Write ``moving[k]`` (island ``k``'s emigrant) over the least fit individual (the first on ties) of the next
    island in the ring.  Only island ``k`` writes into island ``k + 1``."""
    n = pop.shape[0] // islands
    first = ((k + 1) % islands) * n
    worst = first
    for s in range(first + 1, first + n):
        if fit[s] < fit[worst]:
            worst = s
    for g in range(pop.shape[1]):
        pop[worst, g] = moving[k, g]
    fit[worst] = moving_fit[k]
