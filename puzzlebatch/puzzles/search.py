"""Per-item logic of the batch depth-first search, generic over a family's rules.

A family describes its search tree with three plain rules (numba subset; ARCHITECTURE.md, "One rule, two
backends"):

``n_choices(state, depth, tables) -> int``
    how many candidate moves the node at ``depth`` has;
``apply(state, depth, choice, tables) -> bool``
    try move ``choice`` from the node at ``depth``; on success the state becomes the child at ``depth + 1``;
    on failure (an illegal move) the state is left unchanged;
``undo(state, depth, choice, tables)``
    turn the child at ``depth + 1`` back into its parent at ``depth`` (``choice`` is the move that was applied).

``state`` is a family-defined int64 vector, ``tables`` a flat int64 vector of read-only tables.

Optionally a family may also give ``next_choice(state, depth, c, n, tables) -> int``: the smallest choice
``>= c`` that might succeed (``n`` when none can), a cheap filter that lets the DFS step over moves that would
certainly fail without a call to ``apply`` for each (exact cover uses it to scan its candidate list).  It reads the
state and changes nothing (a count may ask it before deciding to skip the node).  Without it every choice is tried
(:func:`no_skip`).

A family with a memo (below) may also give ``child_key(state, depth, c, tables) -> (known, k1, k2)``: the memo's
key words of the child that move ``c`` would make, when it can tell them without applying the move (``known``
False: it cannot, the default :func:`no_child_key`).  On the CPU the DFS then fetches the child's memo bucket
before it applies the move, so the look-up finds it in the cache.

And optionally ``leaf_count(state, depth, tables) -> int``: the number of solutions below a node that the family
can count without applying its moves (exact cover: the chosen item's live options when each one of them completes
the cover), or -1 to search on.  A count (no solutions to copy, none to stop at) asks it once at each node it
enters; without it nothing is counted early (:func:`no_leaf_count`).

A count may also remember subtrees (a *memo*, ``memo_rows`` in :mod:`puzzlebatch.runners.engine.memo`): a
family whose rules module names ``MERGE_KEY`` (the state words that, with the depth, decide everything below a
node) gets a table a thread, keyed on those words and the depth, holding each searched subtree's solutions and
nodes.  A node found there is not searched again: its solutions and nodes are added as if it were, so counts and
node counts are the same with or without a memo, whatever the batch, the budget or the thread that searched it.
Only a node the item entered (not its root, which may own only some of its choices) and searched to the end is
remembered.

A *work item* is a node and the first choice it still owns: ``(state, depth, lo)`` stands for the subtrees of
choices ``lo, lo + 1, ...`` of that node.  The items of a frontier partition the tree, so their counts add up.
:func:`dfs_item` is the explicit-stack DFS that one CPU iteration or one CUDA thread runs on an item, with a node
budget; an item that runs out of budget stops at a node and its stack describes the rest of its work, which
:func:`split_item` turns back into work items.

These are *templates*: they call ``n_choices``, ``apply``, ``undo`` and ``next_choice`` by name, and are compiled
together with a family's rules module as one unit (:mod:`puzzlebatch.jit.unit`), where those names are the family's
compiled rules (``next_choice`` defaults to :func:`no_skip`).  Nothing is passed in a closure, so numba caches them
on disk like any module-level function.
"""
# ruff: noqa: F821  -- the rule names are resolved in the compile unit

from __future__ import annotations

import numpy as np

# Status codes written to out[OUT_STATUS].
DONE = 0  # the item's whole subtree was searched
BUDGET = 1  # the node budget ran out: (state, stack, depth) hold the continuation
STOPPED = 2  # enough solutions were found (first-solution search)

OUT_STATUS, OUT_DEPTH, OUT_COUNT, OUT_NODES, OUT_NSOL = 0, 1, 2, 3, 4
OUT_MOVES = 5  # moves applied (OUT_NODES less the nodes of the subtrees taken from the memo): what the budget counts
OUT_WIDTH = 6

# A memo row (int64): the two key words' indices into the state, then per depth the solutions and the nodes counted
# when the node at that depth was entered (padded to a whole bucket), then the table: a power of two of buckets of
# MEMO_WAYS entries of MEMO_ENTRY words (key words, depth + 1 (0: an empty entry) in the low MEMO_DBITS bits with the
# solutions above them, nodes).  A key may sit in either entry of its bucket; a new one replaces the entry of the
# smaller subtree.  A bucket is one 64-byte cache line of an aligned row: a look-up is a cache miss more often than
# not, and most of a count's time went to them when an entry was five words and a key had one place.
MEMO_KA, MEMO_KB, MEMO_HEAD = 0, 1, 2
MEMO_ENTRY = 4
MEMO_WAYS = 2
MEMO_DBITS = 16  # depths below 2^16 - 1; subtrees of 2^47 solutions or more are not remembered
NO_MEMO = np.zeros((1, 1), np.int64)  # no memo: one row, too short to hold a table

# Compiled without numba's reference counting on the CPU: the per-item DFS and the rules inlined into it never
# allocate, and with reference counting numba pairs an atomic increment and decrement of every array argument at
# each inlined rule call that LLVM often cannot remove (a rule using an array on both sides of a branch): measured,
# 7 million instead of 58 million N-queens nodes a second on one core.  A rule that allocates fails to compile here.
NO_NRT = ("dfs_item",)


# The optional rules and the templates' defaults for a family without them (a unit's aliases).
RULE_DEFAULTS = {"next_choice": "no_skip", "leaf_count": "no_leaf_count", "child_key": "no_child_key"}


def no_skip(state, depth, c, n, tables):
    """The default ``next_choice``: every choice is worth trying."""
    return c


def no_leaf_count(state, depth, tables):
    """The default ``leaf_count``: search every node."""
    return -1


def no_child_key(state, depth, c, tables):
    """The default ``child_key``: not known before the move is applied (nothing is fetched ahead)."""
    return False, 0, 0


def prefetch(array, index):
    """Bring the cache line of ``array[index]`` in ahead of its read; it changes nothing.  A no-op here (CUDA, the
    simulator); the CPU drivers' unit puts ``llvm.prefetch`` in its place (``cpu_fallback.search.cpu_prefetch``)."""
    return None


def memo_head(goal):
    """Words of a memo row before its table, for searches down to depth ``goal`` (whole buckets)."""
    bucket = MEMO_ENTRY * MEMO_WAYS
    return -(-(MEMO_HEAD + 2 * (goal + 1)) // bucket) * bucket


def memo_slot(k1, k2, d, head, mask):
    """The bucket of key ``(k1, k2)`` at depth ``d`` (a multiplicative hash, its high bits folded in)."""
    h = k1 * 0x9E3779B97F4A7C1 + k2 * 0x3C6EF372FE94F82B + d
    h = h ^ (h >> 29) ^ (h >> 43)
    return head + MEMO_ENTRY * MEMO_WAYS * (h & mask)


def dfs_item(state, stack, root, lo, goal, budget, max_solutions, stop_after, solutions, out, tables, memo):
    """Search the subtrees of choices ``lo..`` of the node ``state`` at depth ``root`` down to depth ``goal``.

    Counts nodes at depth ``goal`` (solutions), copies the first ``max_solutions`` of them into ``solutions``, and
    stops after ``stop_after`` solutions (0: never) or ``budget`` applied moves.  When enumerating (``stop_after``
    0, ``max_solutions`` > 0), a full ``solutions`` buffer stops the item like the budget does, just after the last
    solution, so its continuation holds exactly the solutions not copied yet.  ``stack[d]`` is the next choice to
    try at depth ``d``.  Results go to ``out`` (see ``OUT_*``).

    ``memo`` is this thread's memo row (``runners.engine.memo.memo_rows``; too short for a table: none).
    ``budget`` counts the moves applied here; the nodes reported also count those of the subtrees taken from it.
    """
    count = 0
    nodes = 0
    moves = 0
    nsol = 0
    status = DONE
    counting = max_solutions == 0 and stop_after == 0
    head = memo_head(goal)
    mask = (memo.shape[0] - head) // (MEMO_ENTRY * MEMO_WAYS) - 1
    dmask = (1 << MEMO_DBITS) - 1
    remember = counting and memo.shape[0] > head and goal < dmask
    most = (1 << (63 - MEMO_DBITS)) - 1  # the most solutions an entry holds
    ka = 0
    kb = 0
    if remember:
        ka = memo[MEMO_KA]
        kb = memo[MEMO_KB]
    d = root
    stack[d] = lo
    while True:
        if d == goal:
            # A solution: record it, then backtrack (or stop, for a first-solution search).
            if nsol < max_solutions:
                for k in range(state.shape[0]):
                    solutions[nsol, k] = state[k]
                nsol += 1
            count += 1
            if stop_after > 0 and count >= stop_after:
                status = STOPPED
                break
            if d == root:
                break
            d -= 1
            undo(state, d, stack[d] - 1, tables)
            if stop_after == 0 and max_solutions > 0 and nsol >= max_solutions:
                status = BUDGET  # the buffer is full: hand back the rest like a budget stop
                break
            continue
        look = False
        tag = 0
        tag2 = 0
        e = 0
        if counting and stack[d] == 0:
            k = leaf_count(state, d, tables)
            if k >= 0:
                # The node's solutions are counted without applying its moves: back to the parent.
                count += k
                if d == root:
                    break
                d -= 1
                undo(state, d, stack[d] - 1, tables)
                continue
            if remember and d > root:
                # The entry is read here and looked at once the node's first choice is found: the scan runs while
                # it comes from memory (a look-up is a cache miss more often than not).
                e = memo_slot(state[ka], state[kb], d, head, mask)
                tag = memo[e + 2]
                tag2 = memo[e + MEMO_ENTRY + 2]
                look = True
        m = n_choices(state, d, tables)
        c = next_choice(state, d, stack[d], m, tables)
        if look:
            f = e + MEMO_ENTRY
            if (tag2 & dmask) == d + 1 and memo[f] == state[ka] and memo[f + 1] == state[kb]:
                tag = tag2
                e = f
            if (tag & dmask) == d + 1 and memo[e] == state[ka] and memo[e + 1] == state[kb]:
                # Searched before: its solutions and nodes as if searched again.
                count += tag >> MEMO_DBITS
                nodes += memo[e + 3]
                d -= 1
                undo(state, d, stack[d] - 1, tables)
                continue
            memo[MEMO_HEAD + d] = count
            memo[MEMO_HEAD + goal + 1 + d] = nodes
        if c >= m:
            # Every move of this node is done: back to the parent (or the item is finished).
            if d == root:
                break
            if remember:
                below = count - memo[MEMO_HEAD + d]
                if below <= most:
                    e = memo_slot(state[ka], state[kb], d, head, mask)
                    if memo[e + MEMO_ENTRY + 3] < memo[e + 3]:
                        e += MEMO_ENTRY  # the entry of the smaller subtree (an empty one has none) makes room
                    memo[e] = state[ka]
                    memo[e + 1] = state[kb]
                    memo[e + 2] = (below << MEMO_DBITS) | (d + 1)
                    memo[e + 3] = nodes - memo[MEMO_HEAD + goal + 1 + d]
            d -= 1
            undo(state, d, stack[d] - 1, tables)
            continue
        if moves >= budget:
            status = BUDGET
            break
        stack[d] = c + 1
        if remember:
            # the child's memo bucket is fetched while the move is tested (its region test, on exact cover)
            known, k1, k2 = child_key(state, d, c, tables)
            if known:
                prefetch(memo, memo_slot(k1, k2, d + 1, head, mask))
        if apply(state, d, c, tables):
            nodes += 1
            moves += 1
            d += 1
            stack[d] = 0
    out[OUT_STATUS] = status
    out[OUT_DEPTH] = d
    out[OUT_COUNT] = count
    out[OUT_NODES] = nodes
    out[OUT_NSOL] = nsol
    out[OUT_MOVES] = moves


def split_item(state, stack, root, depth, out_states, out_depths, out_los, tables):
    """Turn a budget-stopped item back into fresh work items.

    Writes, from the deepest node up to the item's root, every node that still has untried choices as an item
    ``(state, d, lo)`` and returns how many it wrote (at most ``depth - root + 1``).  ``state`` is consumed (undone
    to the root).
    """
    n = 0
    d = depth
    while True:
        lo = stack[d]
        if lo < n_choices(state, d, tables):
            for k in range(state.shape[0]):
                out_states[n, k] = state[k]
            out_depths[n] = d
            out_los[n] = lo
            n += 1
        if d == root:
            break
        d -= 1
        undo(state, d, stack[d] - 1, tables)
    return n


def estimate_item(root_state, work, root, goal, probes, seed, tables):
    """Knuth's estimator of the size of a search tree ("Estimating the efficiency of backtrack programs", 1975).

    Walks ``probes`` random root-to-leaf paths, choosing uniformly among the legal moves at each node; the sum over
    a path of the products of the branching degrees is an unbiased estimate of the number of nodes.  Returns the
    mean (``work`` is a scratch copy of the state, ``seed`` seeds numba's generator).  CPU only.
    """
    np.random.seed(seed)
    legal = np.empty(1024, np.int64)
    total = 0.0
    for _ in range(probes):
        for k in range(root_state.shape[0]):
            work[k] = root_state[k]
        d = root
        prod = 1.0
        while d < goal:
            m = n_choices(work, d, tables)
            k = 0
            for c in range(m):
                if apply(work, d, c, tables):
                    undo(work, d, c, tables)
                    if k < legal.shape[0]:
                        legal[k] = c
                    k += 1
            if k == 0:
                break
            prod *= k
            total += prod
            pick = legal[np.random.randint(0, min(k, legal.shape[0]))]
            apply(work, d, pick, tables)
            d += 1
    return total / probes
