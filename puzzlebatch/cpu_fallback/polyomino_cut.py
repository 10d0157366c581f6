"""CPU driver of the cut-puzzle search: the generic batch DFS (:mod:`puzzlebatch.puzzles.search`) over the rules
of :mod:`puzzlebatch.puzzles.polyomino.cutsearch_rules`, ``prange`` over the portfolio's items.

The rules are compiled as plain ``njit`` functions (``inline=False``): this rule set is large, and numba-IR
inlining of every call makes compiling several times slower for no measured gain in speed."""

from __future__ import annotations

from functools import lru_cache

from puzzlebatch.cpu_fallback.search import SearchDrivers, drivers as search_drivers, search_unit
from puzzlebatch.puzzles.polyomino import cutsearch_rules as R


@lru_cache(maxsize=None)
def drivers() -> SearchDrivers:
    """The batch DFS over the cut-search rules (``dfs_batch``, ``dfs_item``...)."""
    return search_drivers(R, inline=False)


def rules():
    """The njit twins of the cut-search rules, for the host-side steps (root branching cell, rotations,
    rewinds)."""
    return search_unit(R, inline=False)
