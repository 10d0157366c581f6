"""Counting by merged states: the batch DFS's count as a dynamic programme over states, where the family allows it.

A family whose rules module names ``MERGE_KEY`` (state words that, with the depth, decide everything below a
node: the exact-cover bitboard's covered cells and placed pieces) can be counted breadth-first with each set of
equal nodes of a layer kept once, weighted by the number of paths that reach it.  The children are made on the CPU
by the family's own rules (:mod:`puzzlebatch.cpu_fallback.merge`), whatever backend then searches what is left;
counts stay exact for any cap on a layer's size, since merged nodes have the same subtree.  Measured on IQ Puzzler
Pro: 4.4 million children instead of 70.5 million tree nodes, 8.4x faster; on the pentomino rectangles a merged
child costs about two tree nodes for half the nodes, so ``auto`` leaves them to the tree search (bench/RESULTS.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from puzzlebatch.jit.atomic import LANES
from puzzlebatch.limits import check_memory
from puzzlebatch.runners.engine.search import Frontier, SearchTotals

if TYPE_CHECKING:
    from puzzlebatch.runners.engine.search import BatchDFS

AUTO_NODES = 2e7  # merge="auto": merge where Knuth's estimate of the trees below the work items is larger
# Work items the estimate probes (AUTO_PROBES probes each), spread evenly over the frontier.  The shipped boards sit
# far from AUTO_NODES (the pentomino rectangles 10^4-10^6, IQ Puzzler Pro 10^8), where 32 items estimate within a
# factor of 2-5 of 256 items' estimate; 256 items made the estimate a tenth of a 5x12 count (8 ms of 80).
AUTO_SAMPLE = 32
# A first pass of AUTO_QUICK probes an item decides alone when its estimate is under AUTO_NODES / AUTO_MARGIN: over
# 20 seeds, 4 probes put the pentomino rectangles at 1.1-3.6 x 10^6 at most and IQ Puzzler Pro at 2.0 x 10^7 at
# least, 16 probes at 1.5 x 10^6 and 4.0 x 10^7 (bench/log/polyomino.md).  A small tree is then decided in a
# quarter of the time (0.6 ms instead of 2.1 on 5x12); a large one is estimated again, as before.
AUTO_QUICK = 4
AUTO_PROBES = 16
AUTO_MARGIN = 8.0
CHUNK = 1 << 20  # child slots filled per step of a merged layer (memory: about 40 bytes a slot)
# A layer is not built when the last one's states per child slot, times this layer's child slots, predict more than
# PREDICT_OVER x the cap: building it to the cap and dropping it cost 2.7 s of a 14 s count (10x8 with the twelve
# pentominoes and five tetrominoes, a 5x8 part free: 8.5 million predicted, 2 million allowed).  The fraction falls
# with depth, so the prediction runs high (IQ Puzzler Pro: 1.1 million predicted for a layer of 0.6 million, the
# largest it builds): no layer a count keeps comes near twice the cap.
PREDICT_OVER = 2.0


def wants_merge(dfs: BatchDFS, frontier: Frontier) -> bool:
    """Whether a count below ``frontier`` goes by merged states (the settings' ``merge``; "auto": Knuth's
    estimate of the items' trees, from :data:`AUTO_SAMPLE` items of :data:`AUTO_PROBES` probes each, over
    :data:`AUTO_NODES`; a quick estimate far below it decides alone)."""
    mode = dfs.settings.merge
    if mode not in ("auto", "yes", "no"):
        from puzzlebatch.errors import PuzzleInputError

        raise PuzzleInputError(f"--merge: {mode!r} is not one of auto, yes, no")
    if mode == "no" or not dfs.problem.merge_key or dfs.settings.merge_states <= 0 or not len(frontier):
        return False
    if mode == "yes":
        return True
    p = dfs.problem
    sample = np.unique(np.linspace(0, len(frontier) - 1, min(len(frontier), AUTO_SAMPLE)).astype(np.int64))

    def estimate(probes: int) -> float:
        est = 0.0
        for i in sample:
            est += float(dfs._host.estimate_item(frontier.states[i], frontier.states[i].copy(),
                                                  np.int32(frontier.depths[i]), np.int64(p.goal), np.int64(probes),
                                                  np.int64(i + 1), p.tables))
        return est * len(frontier) / len(sample)

    if estimate(AUTO_QUICK) < AUTO_NODES / AUTO_MARGIN:
        return False
    return estimate(AUTO_PROBES) > AUTO_NODES


def merge_expand(dfs: BatchDFS, frontier: Frontier, totals: SearchTotals, max_items: int) -> Frontier:
    """Count by merged states: expand layer by layer, keeping each set of equal children (same depth and
    :attr:`~puzzlebatch.runners.engine.search.SearchProblem.merge_key` words) once, with the sum of their
    weights; the solutions reached are counted.  Stops when the frontier is empty, or before a layer would hold
    more than ``max_items`` items (the work left is then that frontier, for the batch DFS): found while building
    it, or predicted from the last layer's states per child slot at over :data:`PREDICT_OVER` times that (then the
    layer is not built).  Exact for any
    ``max_items``: the nodes merged have the same subtree, so the same count.  Not for enumerating: a merged
    item keeps one path's moves.

    The children are made by the family's own rules, in parallel on the CPU
    (:mod:`puzzlebatch.cpu_fallback.merge`), whatever backend then searches the rest."""
    key = np.asarray(dfs.problem.merge_key, np.int64)
    if not len(key) or max_items <= 0:
        return frontier
    u = dfs._host.merge
    per_slot = None  # the last layer's states per child slot
    while len(frontier):
        frontier = dfs.take_goal(frontier, totals)  # solutions already: counted here, or lost by the layer
        if not len(frontier):
            break
        bounds = child_slots(dfs, u, frontier)
        slots = int(bounds.sum())
        if per_slot is not None and slots * per_slot > PREDICT_OVER * max_items:
            break  # the layer would be dropped: not built (see PREDICT_OVER)
        nxt = merge_layer(dfs, u, frontier, totals, key, max_items, bounds)
        if nxt is None:
            break
        totals.merged_layers += 1
        per_slot = len(nxt) / max(1, slots)
        frontier = nxt
    return frontier


def child_slots(dfs: BatchDFS, u, frontier: Frontier) -> np.ndarray:
    """The most children each item of ``frontier`` can have (its rule's choices left)."""
    p = dfs.problem
    return u.merge_bounds(frontier.states, frontier.depths.astype(np.int32), frontier.los.astype(np.int32), p.goal,
                          p.tables)


def merge_layer(dfs: BatchDFS, u, frontier: Frontier, totals: SearchTotals, key: np.ndarray,
                 max_items: int, bounds: np.ndarray | None = None) -> Frontier | None:
    """One merged layer below ``frontier`` (its solutions counted in ``totals``), or None (nothing counted)
    when it would hold more than ``max_items`` items; ``bounds``: :func:`child_slots`, when known."""
    p = dfs.problem
    depths = frontier.depths.astype(np.int32)
    los = frontier.los.astype(np.int32)
    if bounds is None:
        bounds = child_slots(dfs, u, frontier)
    nk = len(key) + 1
    cap = 1 << max(4, int(min(max_items, len(frontier) + int(bounds.sum()) // 8)).bit_length())
    slot = np.full(cap, -1, np.int64)
    rep_keys = np.empty((cap // 2, nk), np.int64)
    rep_parent = np.empty(cap // 2, np.int64)
    rep_choice = np.empty(cap // 2, np.int32)
    rep_weight = np.empty(cap // 2, np.int64)
    m = found = nodes = 0
    start = 0
    ends = np.cumsum(bounds)
    while start < len(frontier):
        # a chunk of items with at most CHUNK child slots (one item at least)
        stop = max(start + 1, int(np.searchsorted(ends, (ends[start - 1] if start else 0) + CHUNK,
                                                  side="right")))
        offsets = np.zeros(stop - start + 1, np.int64)
        np.cumsum(bounds[start:stop], out=offsets[1:])
        slots = int(offsets[-1])
        keys = np.empty((slots, nk), np.int64)  # pages touched only where children are written
        parents = np.empty(slots, np.int64)
        choices = np.empty(slots, np.int32)
        got = np.zeros(stop - start, np.int64)
        made = np.zeros(stop - start, np.int64)
        lanes = np.zeros(LANES, np.int64)
        u.merge_children(frontier.states[start:stop], depths[start:stop], los[start:stop], offsets, p.goal, key,
                         keys, parents, choices, got, made, lanes, p.tables)
        chunk = -(-(stop - start) // LANES)
        firsts = offsets[np.minimum(np.arange(LANES) * chunk, stop - start)]
        found += int(np.dot(got, frontier.weights[start:stop]))
        nodes += int(made.sum())
        filled = int((lanes - firsts).sum())
        if m + filled > max_items:
            return None
        if 2 * (m + filled) > cap:  # grow the index to keep it at most half full
            cap = 1 << (2 * (m + filled)).bit_length()
            slot = np.full(cap, -1, np.int64)
            u.merge_rehash(rep_keys, m, slot)
            rep_keys = np.concatenate([rep_keys[:m], np.empty((cap // 2 - m, nk), np.int64)])
            rep_parent, rep_choice, rep_weight = (np.concatenate([a[:m], np.empty(cap // 2 - m, a.dtype)])
                                                  for a in (rep_parent, rep_choice, rep_weight))
        m = u.merge_insert(keys, parents, choices, frontier.weights[start:stop], firsts, lanes, slot, rep_keys,
                           rep_parent, rep_choice, rep_weight, m, start)
        start = stop
    check_memory(8 * m * frontier.states.shape[1], f"a merged layer of {m:,} states")
    states = np.empty((m, frontier.states.shape[1]), np.int64)
    u.merge_rebuild(frontier.states, depths, rep_parent[:m], rep_choice[:m], states, p.tables)
    totals.count += found
    totals.nodes += nodes
    return Frontier(states, rep_keys[:m, 0].astype(np.int32), np.zeros(m, np.int32), rep_weight[:m].copy())
