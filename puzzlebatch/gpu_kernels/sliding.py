"""CUDA kernels of the sliding puzzles: the same rules as :mod:`puzzlebatch.cpu_fallback.sliding`, one thread per
item (grid-stride), scratch in local memory.  Launchers take and fill host numpy arrays.

IDA* here is one thread per instance: a batch of instances fills the GPU (Horie & Fukunaga's block-parallel
IDA* for one instance is not implemented).
"""

# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import sys
from functools import lru_cache

import numpy as np
from numba import cuda, int64  # `cuda` a module global: the simulator swaps it for its fake inside kernels

from puzzlebatch import jit
from puzzlebatch.config import launch
from puzzlebatch.puzzles.sliding import rules

MAX_CELLS = 36  # local scratch sizes: boards up to 6x6
MAX_PATTERNS = 8
MAX_PATTERN_TILES = 8
MAX_LEN = 256  # IDA* depth limit the local stacks allow
_DIRS_LEN = MAX_LEN + 1  # local array sizes must be plain constants
_SAVED_LEN = 3 * (MAX_LEN + 1)


@jit.kernel
def bfs_expand_kernel(ranks, rows, cols, cls, fact, out):
    board = cuda.local.array(MAX_CELLS, int64)
    used = cuda.local.array(MAX_CELLS, int64)
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, ranks.shape[0], stride):
        bfs_expand_item(ranks[i], rows, cols, cls, fact, out[i], board, used)


@jit.kernel
def pdb_expand_kernel(codes, k, rows, cols, out):
    pos = cuda.local.array(MAX_PATTERN_TILES, int64)
    occ = cuda.local.array(MAX_CELLS, int64)
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, codes.shape[0], stride):
        pdb_expand_item(codes[i], k, rows, cols, out[i], pos, occ)


@jit.kernel
def ida_kernel(boards, rows, cols, hkind, max_len, pdb, pat_tiles, pat_k, pat_off, tile_pat, mir, use_mirror,
               paths, stats):
    board = cuda.local.array(MAX_CELLS, int64)
    tpos = cuda.local.array(MAX_CELLS, int64)
    dirs = cuda.local.array(_DIRS_LEN, int64)
    hv = cuda.local.array(MAX_PATTERNS, int64)
    hm = cuda.local.array(MAX_PATTERNS, int64)
    saved = cuda.local.array(_SAVED_LEN, int64)
    lcv = cuda.local.array(12, int64)
    tmp = cuda.local.array(12, int64)
    cells = cuda.local.array(MAX_PATTERN_TILES, int64)
    start, stride = cuda.grid(1), cuda.gridsize(1)
    n = rows * cols
    for i in range(start, boards.shape[0], stride):
        for c in range(n):
            board[c] = boards[i, c]
        ida_item(board, rows, cols, hkind, max_len, pdb, pat_tiles, pat_k, pat_off, tile_pat, mir, use_mirror,
                 paths[i], stats[i], tpos, dirs, hv, hm, saved, lcv, tmp, cells)


class SlidingKernels:
    """The compiled CUDA kernels (``*_kernel``) and their host launchers, same signatures as the CPU drivers."""

    def __init__(self, unit: jit.Unit) -> None:
        self.unit = unit
        self.bfs_expand_kernel = unit.bfs_expand_kernel
        self.pdb_expand_kernel = unit.pdb_expand_kernel
        self.ida_kernel = unit.ida_kernel

    def bfs_expand_batch(self, ranks, rows, cols, cls, fact, out):
        if ranks.shape[0] == 0:
            return
        d_out = cuda.to_device(out)
        self.bfs_expand_kernel[launch.blocks_for(ranks.shape[0]), launch.threads_per_block](
            cuda.to_device(ranks), np.int64(rows), np.int64(cols), np.int64(cls), cuda.to_device(fact), d_out)
        d_out.copy_to_host(out)

    def pdb_expand_batch(self, codes, k, rows, cols, out):
        if codes.shape[0] == 0:
            return
        d_out = cuda.to_device(out)
        self.pdb_expand_kernel[launch.blocks_for(codes.shape[0]), launch.threads_per_block](
            cuda.to_device(codes), np.int64(k), np.int64(rows), np.int64(cols), d_out)
        d_out.copy_to_host(out)

    def ida_batch(self, boards, rows, cols, hkind, max_len, pdb, pat_tiles, pat_k, pat_off, tile_pat, mir,
                  use_mirror, paths, stats):
        if boards.shape[0] == 0:
            return
        if max_len > MAX_LEN or pat_k.shape[0] > MAX_PATTERNS or pat_tiles.shape[1] > MAX_PATTERN_TILES:
            raise ValueError("IDA* on CUDA: depth limit or pattern sizes exceed the kernel's local arrays")
        d_paths, d_stats = cuda.to_device(paths), cuda.to_device(stats)
        self.ida_kernel[launch.blocks_for(boards.shape[0]), launch.threads_per_block](
            cuda.to_device(boards), np.int64(rows), np.int64(cols), np.int64(hkind), np.int64(max_len),
            cuda.to_device(pdb), cuda.to_device(pat_tiles), cuda.to_device(pat_k), cuda.to_device(pat_off),
            cuda.to_device(tile_pat), cuda.to_device(mir), np.int64(use_mirror), d_paths, d_stats)
        d_paths.copy_to_host(paths)
        d_stats.copy_to_host(stats)


@lru_cache(maxsize=None)
def drivers() -> SlidingKernels:
    """The kernels compiled together with the sliding rules (built once per process, cached on disk)."""
    return SlidingKernels(jit.unit("sliding", "cuda", rules=[rules], templates=[sys.modules[__name__]]))
