"""CPU drivers of the batch DFS: numba ``prange`` over work items, each running the shared per-item DFS.

Also the host-side steps every backend uses (frontier expansion, splitting budget-stopped items); they run on the
CPU whatever backend runs the DFS itself.
"""

from __future__ import annotations

from functools import lru_cache
from types import ModuleType

import numpy as np
from numba import njit, prange, set_parallel_chunksize

from puzzlebatch.jit import compile_rules, next_choice_of
from puzzlebatch.puzzles import search
from puzzlebatch.puzzles.search import OUT_WIDTH


@lru_cache(maxsize=None)
def drivers(rules: ModuleType):
    """Compiled CPU drivers for a family's rules module (built once per module).

    Returns an object with ``dfs_batch``, ``expand`` and ``split_batch``.
    """
    r = compile_rules(rules, "cpu")
    dfs_item = njit(search.make_dfs_item(r.n_choices, r.apply, r.undo, next_choice_of(rules, r, "cpu")))
    h = compile_rules(rules, "cpu", inline=False)  # expansion and splitting run rarely: quicker to compile
    split_item = njit(search.make_split_item(h.n_choices, h.undo))
    n_choices, apply, undo = h.n_choices, h.apply, h.undo

    @njit(parallel=True)
    def dfs_batch(states, stacks, roots, los, goal, budget, max_solutions, stop_after, solutions, out, tables):
        # Items differ wildly in size: hand them out one at a time, not in equal contiguous blocks.
        previous = set_parallel_chunksize(1)
        for i in prange(states.shape[0]):
            dfs_item(states[i], stacks[i], roots[i], los[i], goal, budget, max_solutions, stop_after,
                     solutions[i], out[i], tables)
        set_parallel_chunksize(previous)

    @njit
    def expand(states, depths, los, goal, tables):
        """Children of every item (each of its choices from ``lo`` on that is legal), as fresh items.

        Returns (child_states, child_depths, parent_index, nodes).  Each child has ``lo = 0``.
        """
        n = states.shape[0]
        width = states.shape[1]
        counts = np.zeros(n, np.int64)
        work = np.empty(width, np.int64)
        for i in range(n):
            if depths[i] >= goal:
                continue
            for k in range(width):
                work[k] = states[i, k]
            m = n_choices(work, depths[i], tables)
            for c in range(los[i], m):
                if apply(work, depths[i], c, tables):
                    counts[i] += 1
                    undo(work, depths[i], c, tables)
        total = counts.sum()
        child_states = np.empty((total, width), np.int64)
        child_depths = np.empty(total, np.int32)
        parent = np.empty(total, np.int64)
        j = 0
        for i in range(n):
            if counts[i] == 0:
                continue
            for k in range(width):
                work[k] = states[i, k]
            m = n_choices(work, depths[i], tables)
            for c in range(los[i], m):
                if apply(work, depths[i], c, tables):
                    for k in range(width):
                        child_states[j, k] = work[k]
                    child_depths[j] = depths[i] + 1
                    parent[j] = i
                    j += 1
                    undo(work, depths[i], c, tables)
        return child_states, child_depths, parent, total

    @njit
    def split_batch(states, stacks, roots, depths, weights, tables):
        """Turn budget-stopped items into fresh items; returns (states, depths, los, weights)."""
        n = states.shape[0]
        width = states.shape[1]
        max_out = 0
        for i in range(n):
            max_out += depths[i] - roots[i] + 1
        out_states = np.empty((max_out, width), np.int64)
        out_depths = np.empty(max_out, np.int32)
        out_los = np.empty(max_out, np.int32)
        out_weights = np.empty(max_out, np.int64)
        j = 0
        for i in range(n):
            k = split_item(states[i], stacks[i], roots[i], depths[i], out_states[j:], out_depths[j:],
                           out_los[j:], tables)
            for q in range(j, j + k):
                out_weights[q] = weights[i]
            j += k
        return out_states[:j], out_depths[:j], out_los[:j], out_weights[:j]

    class _Drivers:
        pass

    d = _Drivers()
    d.dfs_batch, d.expand, d.split_batch = dfs_batch, expand, split_batch
    d.dfs_item = dfs_item  # one item on the calling thread (enumerations)
    d.estimate_item = njit(search.make_estimate_item(h.n_choices, h.apply, h.undo))  # Knuth's tree-size estimate
    d.out_width = OUT_WIDTH
    return d
