"""CPU drivers of the batch DFS: numba ``prange`` over work items, each running the shared per-item DFS.

Also the host-side steps every backend uses (frontier expansion, splitting budget-stopped items); they run on the
CPU whatever backend runs the DFS itself.

The drivers are templates compiled together with a family's rules (:func:`drivers`): ``dfs_item``, ``n_choices``,
``apply``, ``undo`` and ``split_item`` below are the family's compiled rules and the shared per-item DFS of
:mod:`puzzlebatch.puzzles.search`, resolved by name in the compile unit.
"""
# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Callable

import numpy as np
from numba import get_thread_id, prange

from puzzlebatch import jit
from puzzlebatch.jit import hints
from puzzlebatch.jit.atomic import LANES, fetch_add
from puzzlebatch.puzzles import search
from puzzlebatch.puzzles.search import OUT_WIDTH


@jit.driver(parallel=True)
def dfs_batch(states, stacks, roots, los, goal, budget, max_solutions, stop_after, solutions, out, tables, memo):
    """The per-item DFS over every item of a batch (see :func:`puzzlebatch.puzzles.search.dfs_item`).

    ``memo`` holds a row for each thread (``numba.get_thread_id()``), or one empty row: no memo.

    Items differ in cost by orders of magnitude, so each thread takes the next item from a shared counter
    (:func:`puzzlebatch.jit.atomic.fetch_add`) instead of a fixed block of them.
    """
    n = states.shape[0]
    cursor = np.empty(1, np.int64)
    cursor[0] = 0
    for _ in prange(min(LANES, n)):
        i = fetch_add(cursor, 0, 1)
        if i < n:
            # The item runs on this thread's own copies of its state, stack and results: neighbouring rows of
            # the shared arrays, taken by the other threads, may share a cache line with them (narrow states:
            # IQ Puzzler Pro's count took 36 % more CPU time on two threads than on one without the copies).
            state = np.empty(states.shape[1], np.int64)
            stack = np.empty(stacks.shape[1], np.int32)
            res = np.empty(out.shape[1], np.int64)
            row = memo[min(get_thread_id(), memo.shape[0] - 1)]
            while i < n:
                state[:] = states[i]
                stack[:] = stacks[i]
                dfs_item(state, stack, roots[i], los[i], goal, budget, max_solutions, stop_after, solutions[i],
                         res, tables, row)
                states[i] = state
                stacks[i] = stack
                out[i] = res
                i = fetch_add(cursor, 0, 1)


def cpu_prefetch(array, index):
    """The per-item DFS's ``prefetch`` on the CPU (its plain one does nothing): ``llvm.prefetch``
    (:mod:`puzzlebatch.jit.hints`; an intrinsic has no CUDA twin, so the template calls it by this name)."""
    hints.prefetch(array, index)


@jit.driver
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


@jit.driver
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


@jit.driver
def fix_batch(root, fixed, counts, tables):
    """Nodes below the root reached by the family's moves ``fixed[i, :counts[i]]`` (the optional rule
    ``fix_options``; exact cover: option ids, e.g. symmetry-breaking leaves).  Returns (states, ok): ``ok[i]``
    False where those moves do not fit."""
    n = fixed.shape[0]
    states = np.empty((n, root.shape[0]), np.int64)
    ok = np.zeros(n, np.bool_)
    for i in range(n):
        for k in range(root.shape[0]):
            states[i, k] = root[k]
        ok[i] = fix_options(states[i], fixed[i], counts[i], tables)
    return states, ok


@dataclass(frozen=True)
class SearchDrivers:
    """A family's compiled CPU drivers of the batch DFS."""

    dfs_batch: Callable  # the batch of items, in parallel
    dfs_item: Callable  # one item on the calling thread (enumerations)
    expand: Callable  # host step: children of items
    split_batch: Callable  # host step: budget-stopped items back into items
    estimate_item: Callable  # Knuth's tree-size estimate (branching-rule choice)
    merge: object = None  # the unit: its merge_* drivers count by merged states (puzzlebatch.cpu_fallback.merge)
    out_width: int = OUT_WIDTH


def family_label(rules: ModuleType) -> str:
    """``puzzlebatch.puzzles.snake.rules`` -> ``snake`` (what the user is told is compiling)."""
    parts = rules.__name__.split(".")
    return parts[-2] if len(parts) >= 2 and parts[-1].endswith("rules") else parts[-1]


def search_unit(rules: ModuleType, *, inline: bool = True, label: str | None = None) -> jit.Unit:
    """The family's rules, the shared per-item DFS and these drivers, compiled together for the CPU.

    ``inline`` force-inlines the rules into the per-item DFS (faster nodes, slower compiles).
    """
    import sys

    from puzzlebatch.cpu_fallback import merge

    return jit.unit(label or family_label(rules), "cpu", rules=[rules],
                    templates=[search, sys.modules[__name__], merge],
                    inline=inline, aliases=search.RULE_DEFAULTS, replace={"prefetch": "cpu_prefetch"})


@lru_cache(maxsize=None)
def drivers(rules: ModuleType, inline: bool = True) -> SearchDrivers:
    """Compiled CPU drivers for a family's rules module (built once per module; compiled on first call, from the
    disk cache when it has them).

    One unit serves the per-item DFS and the host steps, so a rule that is not inlined (the module's
    ``NOT_INLINED``) is compiled once for all of them.
    """
    u = search_unit(rules, inline=inline)
    return SearchDrivers(dfs_batch=u.dfs_batch, dfs_item=u.dfs_item, expand=u.expand, split_batch=u.split_batch,
                         estimate_item=u.estimate_item, merge=u)
