"""CPU drivers of a count by merged states: a layer's children expanded in parallel, equal ones merged in a hash table.

A family whose rules module names ``MERGE_KEY`` (the state words that, with the depth, decide everything below a
node: the exact-cover bitboard's covered cells and placed pieces) can be counted breadth-first with every set of
equal nodes of a layer kept once, weighted by how many paths reach it: a dynamic programme over the states
instead of a tree search (:func:`puzzlebatch.runners.engine.merge.merge_expand`).  On IQ Puzzler Pro
2.3 million children are expanded where the tree search visits 70 million nodes.

Templates compiled in the family's search unit (:func:`puzzlebatch.cpu_fallback.search.search_unit`): they call
the family's ``n_choices``, ``next_choice``, ``apply``, ``undo`` and ``leaf_count`` by name, as the per-item DFS
does, so a child here is exactly a child there.
"""
# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import numpy as np
from numba import prange

from puzzlebatch import jit
from puzzlebatch.jit.atomic import LANES

# Compiled without reference counting, as the per-item DFS is (puzzlebatch.puzzles.search.NO_NRT): the rules
# inlined into it would otherwise pay an atomic increment and decrement of every array at each call (measured:
# 900 ns of CPU a child with them, on two threads sharing the tables).
NO_NRT = ("merge_item", "rebuild_row", "insert_one", "key_hash")
HASH_MUL = -7046029254386353131  # 0x9E3779B97F4A7C15 as an int64 (Fibonacci hashing)


@jit.driver(parallel=True)
def merge_bounds(states, depths, los, goal, tables):
    """Per item, how many children it can have at most (its choices from ``lo`` on; 0 at the goal)."""
    n = states.shape[0]
    out = np.zeros(n, np.int64)
    for i in prange(n):
        if depths[i] < goal:
            out[i] = max(0, n_choices(states[i], depths[i], tables) - los[i])
    return out


def merge_item(state, work, d, lo, goal, key, keys, parents, choices, i, j, tables):
    """The children of one item (``state`` at depth ``d``, choices from ``lo``) into slots ``j..``, on the scratch
    row ``work``; returns (solutions counted, moves applied, the next free slot)."""
    for k in range(state.shape[0]):
        work[k] = state[k]
    nk = key.shape[0]
    total = 0
    moves = 0
    m = n_choices(work, d, tables)
    c = next_choice(work, d, lo, m, tables)
    while c < m:
        if apply(work, d, c, tables):
            moves += 1
            lc = 1 if d + 1 >= goal else leaf_count(work, d + 1, tables)
            if lc >= 0:
                total += lc
            else:
                keys[j, 0] = d + 1
                for q in range(nk):
                    keys[j, q + 1] = work[key[q]]
                parents[j] = i
                choices[j] = c
                j += 1
            undo(work, d, c, tables)
        c = next_choice(work, d, c + 1, m, tables)
    return total, moves, j


@jit.driver(parallel=True)
def merge_children(states, depths, los, offsets, goal, key, keys, parents, choices, found, made, ends, tables):
    """The children of items ``0..n-1``, in :data:`LANES` runs of consecutive items, one a thread at a time.

    Run ``t`` writes its children one after the other from its first item's slot (``offsets[i]``: the slots
    before item ``i``, at least its children) to ``ends[t]``.  A child that is a solution, or whose solutions the
    family's ``leaf_count`` counts, adds them to ``found[i]`` (unweighted); any other child fills a slot: ``keys``
    (its depth, then its ``key`` words), its parent and the choice that made it.  ``made[i]``: moves applied."""
    n = states.shape[0]
    chunk = (n + LANES - 1) // LANES
    for t in prange(LANES):
        work = np.empty(states.shape[1], np.int64)  # one scratch row a thread (see dfs_batch)
        lo = min(n, t * chunk)
        j = offsets[lo]
        for i in range(lo, min(n, (t + 1) * chunk)):
            total, moves, j = merge_item(states[i], work, depths[i], los[i], goal, key, keys, parents, choices, i,
                                         j, tables)
            found[i] = total
            made[i] = moves
        ends[t] = j


def key_hash(keys, r):
    h = 0
    for q in range(keys.shape[1]):
        h = (h ^ keys[r, q]) * HASH_MUL
    return h ^ (h >> 31)


@jit.driver
def merge_insert(keys, parents, choices, weights, starts, ends, slot, rep_keys, rep_parent, rep_choice, rep_weight,
                 m, base):
    """Merge the filled slots (``starts[t]..ends[t]`` for each run ``t``) into the table: a new key gets the next
    row of the ``rep_*`` arrays (its parent as ``base + parent``), a known one adds its parent's weight.  Returns
    the rows in use.

    ``slot`` is the open-addressing index (a power of two long, -1 where empty, at most half full: the caller
    grows it first)."""
    for t in range(starts.shape[0]):
        for r in range(starts[t], ends[t]):
            m = insert_one(keys, r, weights[parents[r]], parents[r] + base, choices[r], slot, rep_keys, rep_parent,
                           rep_choice, rep_weight, m)
    return m


def insert_one(keys, r, w, parent, choice, slot, rep_keys, rep_parent, rep_choice, rep_weight, m):
    """Row ``r`` of ``keys`` into the table (see :func:`merge_insert`); returns the rows in use."""
    mask = slot.shape[0] - 1
    nk = keys.shape[1]
    j = key_hash(keys, r) & mask
    while True:
        s = slot[j]
        if s < 0:
            slot[j] = m
            for q in range(nk):
                rep_keys[m, q] = keys[r, q]
            rep_parent[m] = parent
            rep_choice[m] = choice
            rep_weight[m] = w
            return m + 1
        same = True
        for q in range(nk):
            if rep_keys[s, q] != keys[r, q]:
                same = False
                break
        if same:
            rep_weight[s] += w
            return m
        j = (j + 1) & mask


@jit.driver
def merge_rehash(rep_keys, m, slot):
    """Index rows ``0..m-1`` of ``rep_keys`` in the empty table ``slot``."""
    mask = slot.shape[0] - 1
    for r in range(m):
        j = key_hash(rep_keys, r) & mask
        while slot[j] >= 0:
            j = (j + 1) & mask
        slot[j] = r


def rebuild_row(state, d, c, out, tables):
    """``out`` = ``state`` (at depth ``d``) with choice ``c`` applied (it applied before)."""
    for k in range(state.shape[0]):
        out[k] = state[k]
    apply(out, d, c, tables)


@jit.driver(parallel=True)
def merge_rebuild(states, depths, rep_parent, rep_choice, out, tables):
    """The merged children as states: each row's parent state with its choice applied."""
    for r in prange(rep_parent.shape[0]):
        p = rep_parent[r]
        rebuild_row(states[p], depths[p], rep_choice[r], out[r], tables)
