"""CPU driver of the cut-puzzle search: the generic batch DFS (:mod:`puzzlebatch.puzzles.search`) over the rules
of :mod:`puzzlebatch.puzzles.polyomino.cutsearch_rules`, ``prange`` over the portfolio's items.

The rules are compiled as plain ``njit`` functions (``inline=False``): this rule set is large, and numba-IR
inlining of every call makes compiling several times slower for no measured gain in speed."""

from __future__ import annotations

from functools import lru_cache

from numba import njit, prange, set_parallel_chunksize

from puzzlebatch.jit import compile_rules
from puzzlebatch.puzzles import search
from puzzlebatch.puzzles.polyomino import cutsearch_rules as R


@lru_cache(maxsize=None)
def drivers():
    r = compile_rules(R, "cpu", inline=False)
    dfs_item = njit(search.make_dfs_item(r.n_choices, r.apply, r.undo, r.next_choice))

    @njit(parallel=True)
    def dfs_batch(states, stacks, roots, los, goal, budget, max_solutions, stop_after, solutions, out, tables):
        previous = set_parallel_chunksize(1)
        for i in prange(states.shape[0]):
            dfs_item(states[i], stacks[i], roots[i], los[i], goal, budget, max_solutions, stop_after,
                     solutions[i], out[i], tables)
        set_parallel_chunksize(previous)

    class _Drivers:
        pass

    d = _Drivers()
    d.dfs_batch = dfs_batch
    d.dfs_item = dfs_item
    d.rules = r  # the njit twins, for the host-side steps (root branching cell, rotations, rewinds)
    return d
