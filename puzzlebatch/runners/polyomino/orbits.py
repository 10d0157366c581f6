"""The classes of the solutions a symmetry-breaking leaf leaves symmetric: counted by Burnside's lemma, or streamed
and reduced to one representative each.

Symmetry breaking (:func:`puzzlebatch.puzzles.polyomino.packing.break_symmetry`) fixes pieces used once until no
symmetry is left; a leaf with no such piece to fix (every piece unlimited, say) keeps a subgroup H of the board's
group G, and its solutions are closed under H.  Its classes are counted here, with nothing bounded by a buffer:

- **Burnside** (no copy limits, no rows to store): the classes are the mean over H of the solutions each
  symmetry maps onto themselves; each of those is a plain count of a smaller exact cover
  (:func:`puzzlebatch.puzzles.polyomino.cover.invariant_cover`);
- **streaming** (otherwise): every solution passes through the batch DFS's sink, launch by launch; a solution is
  its class's representative when no image under H comes before it (rows of sorted option ids in lexicographic
  order).

Either way each leaf solution stands for ``|G| / |H|`` solutions of the whole board (its images under the cosets
of H).  The counting itself is handed in (``count_leaf``, ``count_cover``): this module knows nothing of
backends or pools.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from puzzlebatch.puzzles.polyomino import cover as C


@dataclass
class OrbitCount:
    """What a leaf holds: its solutions' share of the whole count, their classes and the nodes searched."""

    solutions: int
    distinct: int
    nodes: int


def sorted_rows(rows: np.ndarray) -> np.ndarray:
    """Each row's option ids in increasing order, the -1 padding last."""
    big = np.iinfo(np.int64).max
    out = np.sort(np.where(rows < 0, big, rows), axis=1)
    out[out == big] = -1
    return out


def lex_less(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row by row, whether ``a`` comes before ``b`` in lexicographic order (equal rows: False)."""
    diff = a != b
    first = diff.argmax(axis=1)
    rows = np.arange(len(a))
    return diff.any(axis=1) & (a[rows, first] < b[rows, first])


def image(sols: np.ndarray, images: np.ndarray, h: int) -> np.ndarray:
    """Solutions (sorted rows of option ids, -1 padded) under symmetry ``h``, sorted again."""
    mask = sols < 0
    return sorted_rows(np.where(mask, -1, images[h][np.where(mask, 0, sols)]))


def count_orbits(count_leaf: Callable, count_cover: Callable, ec: C.ExactCover, leaf, images: np.ndarray,
                 n_syms: int, s_opt: int, goal: int,
                 sink: Callable[[np.ndarray], None] | None = None) -> OrbitCount:
    """The leaf's solutions and classes (see the module docstring).

    ``count_leaf(sink)`` counts the leaf's solutions (handing their states to ``sink(states, weights)`` when one
    is given) and returns ``(count, nodes)``; ``count_cover(ec)`` does the same for an exact cover.  ``images[h]``
    maps option ids under symmetry ``h`` of the ``n_syms``; ``leaf.syms`` is H, ``leaf.fixed`` its fixed options;
    a state holds its options at ``s_opt .. s_opt + goal``.  ``sink(rows)``, if given, receives every class's
    distinct images under G (every solution of the board, once).
    """
    H = list(leaf.syms)
    if n_syms % len(H):
        raise AssertionError(f"{len(H)} symmetries left is not a subgroup of the board's {n_syms}")
    index = n_syms // len(H)
    covers = [C.invariant_cover(ec, images[h], leaf.fixed) for h in H[1:]] if sink is None else [None]
    if all(c is not None for c in covers):  # Burnside
        n_leaf, nodes = count_leaf(None)
        fixed_points = n_leaf
        for cov in covers:
            n, k = count_cover(cov)
            fixed_points += n
            nodes += k
        if fixed_points % len(H):
            raise AssertionError(f"Burnside: {fixed_points} fixed points over {len(H)} symmetries is not a whole "
                                 "number of classes")
        return OrbitCount(solutions=n_leaf * index, distinct=fixed_points // len(H), nodes=nodes)

    found = {"distinct": 0, "solutions": 0}

    def orbit_sink(states: np.ndarray, weights: np.ndarray) -> None:
        sols = sorted_rows(states[:, s_opt:s_opt + goal])
        rep = np.ones(len(sols), bool)
        for h in H[1:]:
            rep &= ~lex_less(image(sols, images, h), sols)
        found["solutions"] += int(weights.sum())
        found["distinct"] += int(weights[rep].sum())
        if sink is None or not rep.any():
            return
        sols = sols[rep]
        seen: list[np.ndarray] = []
        for h in range(n_syms):  # each representative's class: its distinct images under G
            im = image(sols, images, h)
            new = np.ones(len(im), bool)
            for other in seen:
                new &= (im != other).any(axis=1)
            seen.append(im)
            if new.any():
                sink(im[new])

    _, nodes = count_leaf(orbit_sink)
    return OrbitCount(solutions=found["solutions"] * index, distinct=found["distinct"], nodes=nodes)
