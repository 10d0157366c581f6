"""CPU drivers of the sliding puzzles: numba ``prange`` over a batch, calling the rules compiled by njit.

Templates compiled together with :mod:`puzzlebatch.puzzles.sliding.rules` (:func:`drivers`); the rule names they
call are resolved in the compile unit.

Same names and signatures as :mod:`puzzlebatch.gpu_kernels.sliding`.  The ``*_mark`` steps (dedup of a layer's
children against the visited table) are host steps that every backend runs here, serially, in child order: that
keeps the next frontier's order, and so every later result, identical whichever backend expanded the layer.
"""

# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import sys
from functools import lru_cache

import numpy as np
from numba import prange

from puzzlebatch import jit
from puzzlebatch.jit.atomic import LANES, fetch_add
from puzzlebatch.puzzles.sliding import rules

_CHUNK = 2048  # items per scratch allocation in the expansion drivers


@jit.driver(parallel=True)
def bfs_expand_batch(ranks, rows, cols, cls, fact, out):
    n_items = ranks.shape[0]
    n = rows * cols
    n_chunks = (n_items + _CHUNK - 1) // _CHUNK
    for ch in prange(n_chunks):
        board = np.empty(n, np.int64)
        used = np.empty(n, np.int64)
        for i in range(ch * _CHUNK, min(n_items, (ch + 1) * _CHUNK)):
            bfs_expand_item(ranks[i], rows, cols, cls, fact, out[i], board, used)


@jit.driver(parallel=True)
def pdb_expand_batch(codes, k, rows, cols, out):
    n_items = codes.shape[0]
    n = rows * cols
    n_chunks = (n_items + _CHUNK - 1) // _CHUNK
    for ch in prange(n_chunks):
        pos = np.empty(k, np.int64)
        occ = np.empty(n, np.int64)
        for i in range(ch * _CHUNK, min(n_items, (ch + 1) * _CHUNK)):
            pdb_expand_item(codes[i], k, rows, cols, out[i], pos, occ)


@jit.driver(parallel=True)
def pdb_pack(table, k, n, cols, tiles, out):
    """The 4-bit form of a pattern's table (``rules.pdb_value``'s packed format): byte ``j`` holds entries ``2j``
    (low nibble) and ``2j + 1``; an entry past the table's end is 15."""
    n_bytes = out.shape[0]
    n_chunks = (n_bytes + _CHUNK - 1) // _CHUNK
    for ch in prange(n_chunks):
        pos = np.empty(k, np.int64)
        for j in range(ch * _CHUNK, min(n_bytes, (ch + 1) * _CHUNK)):
            byte = 0
            for h in range(2):
                e = 2 * j + h
                v = 15
                if e < table.shape[0]:
                    v = pattern_excess(np.int64(table[e]), e, k, n, cols, tiles, pos)
                byte |= v << (4 * h)
            out[j] = byte


# Instances differ wildly in cost: each thread takes the next one from a shared counter (puzzlebatch.jit.atomic).
@jit.driver(parallel=True)
def ida_batch(boards, rows, cols, hkind, max_len, pdb, pat_tiles, pat_k, pat_off, tile_pat, mir, use_mirror,
              paths, stats):
    n = rows * cols
    n_pat = pat_k.shape[0]
    kmax = pat_tiles.shape[1]
    n_boards = boards.shape[0]
    cursor = np.empty(1, np.int64)
    cursor[0] = 0
    for _ in prange(min(LANES, n_boards)):
        while True:
            i = fetch_add(cursor, 0, 1)
            if i >= n_boards:
                break
            board = boards[i].copy()
            ida_item(board, rows, cols, hkind, max_len, pdb, pat_tiles, pat_k, pat_off, tile_pat, mir,
                     use_mirror, paths[i], stats[i], np.empty(n, np.int64), np.empty(max_len + 1, np.int64),
                     np.empty(n_pat, np.int64), np.empty(n_pat, np.int64), np.empty(3 * (max_len + 1), np.int64),
                     np.empty(rows + cols, np.int64), np.empty(2 * max(rows, cols), np.int64),
                     np.empty(kmax, np.int64))


# Batch IDA*: one bounded iteration of every split point (work item), threads taking the next from a counter.
@jit.driver(parallel=True)
def dfs_batch(boards, rows, cols, hkind, max_len, pdb, pat_tiles, pat_k, pat_off, tile_pat, mir, use_mirror, g0,
              prev, bound, paths, stats):
    n = rows * cols
    n_pat = pat_k.shape[0]
    kmax = pat_tiles.shape[1]
    n_items = boards.shape[0]
    cursor = np.empty(2, np.int64)
    cursor[0] = 0
    cursor[1] = n_items  # the first item solved so far: the items after it need not run (their counts are unused)
    for _ in prange(min(LANES, n_items)):
        while True:
            i = fetch_add(cursor, 0, 1)
            if i >= n_items:
                break
            if i > cursor[1]:
                for c in range(stats.shape[1]):
                    stats[i, c] = 0
                continue
            board = boards[i].copy()
            dfs_item(board, rows, cols, hkind, max_len, pdb, pat_tiles, pat_k, pat_off, tile_pat, mir, use_mirror,
                     g0[i], prev[i], bound, paths[i], stats[i], np.empty(n, np.int64),
                     np.empty(max_len + 1, np.int64), np.empty(n_pat, np.int64), np.empty(n_pat, np.int64),
                     np.empty(3 * (max_len + 1), np.int64), np.empty(rows + cols, np.int64),
                     np.empty(2 * max(rows, cols), np.int64), np.empty(kmax, np.int64))
            if stats[i, 2] == 1 and i < cursor[1]:  # rules.ST_SOLVED
                cursor[1] = i  # not atomic: a lost update only leaves more items to run


@lru_cache(maxsize=None)
def drivers() -> jit.Unit:
    """The compiled CPU drivers (built once), with the host steps ``bfs_mark`` and ``pdb_mark``.

    The rules are plain (not force-inlined) njit twins: for ``ida_item``, which calls the heuristics from a dozen
    places, numba-level inlining took ~40 s to compile against ~4 s this way (LLVM still inlines the small ones).
    """
    return jit.unit("sliding", "cpu", rules=[rules], templates=[sys.modules[__name__]], inline=False)


# -- host steps shared by both backends --------------------------------------------------------------------------

@jit.driver
def bfs_mark(children, packed, value, nxt):
    """Mark unseen children (nibble 0xF) with ``value`` and append them to ``nxt``; returns how many.

    ``packed`` holds two 4-bit entries a byte: rank ``r`` in the low nibble of byte ``r >> 1`` when ``r`` is even,
    the high nibble when odd.
    """
    m = 0
    flat = children.ravel()
    for j in range(flat.shape[0]):
        c = flat[j]
        if c < 0:
            continue
        byte = c >> 1
        if c & 1:
            if (packed[byte] >> 4) == 0xF:
                packed[byte] = (packed[byte] & 0x0F) | (value << 4)
                nxt[m] = c
                m += 1
        else:
            if (packed[byte] & 0x0F) == 0xF:
                packed[byte] = (packed[byte] & 0xF0) | value
                nxt[m] = c
                m += 1
    return m


@jit.driver
def pdb_mark(children, visited, dist, n, depth, nxt):
    """Mark unvisited abstract states (bitset ``visited``), append them to ``nxt``, set ``dist`` of new patterns."""
    m = 0
    flat = children.ravel()
    for j in range(flat.shape[0]):
        c = flat[j]
        if c < 0:
            continue
        byte = c >> 3
        bit = np.uint8(1 << (c & 7))
        if visited[byte] & bit:
            continue
        visited[byte] |= bit
        nxt[m] = c
        m += 1
        r = c // n
        if dist[r] == 255:
            dist[r] = depth
    return m
