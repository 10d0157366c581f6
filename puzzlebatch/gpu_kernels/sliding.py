"""CUDA kernels of the sliding puzzles: the same rules as :mod:`puzzlebatch.cpu_fallback.sliding`, one thread per
item (grid-stride), scratch in local memory.  Launchers take and fill host numpy arrays; tables stay on the
device for the run.

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
from puzzlebatch.gpu_kernels.device import DeviceSession
from puzzlebatch.transfers import Transfers
from puzzlebatch.puzzles.sliding import rules
from puzzlebatch.xp import to_host

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


@jit.kernel
def dfs_kernel(boards, rows, cols, hkind, max_len, pdb, pat_tiles, pat_k, pat_off, tile_pat, mir, use_mirror, g0,
               prev, bound, paths, stats):
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
        dfs_item(board, rows, cols, hkind, max_len, pdb, pat_tiles, pat_k, pat_off, tile_pat, mir, use_mirror,
                 g0[i], prev[i], bound, paths[i], stats[i], tpos, dirs, hv, hm, saved, lcv, tmp, cells)


class SlidingKernels:
    """The compiled CUDA kernels (``*_kernel``) and their host launchers, same signatures as the CPU drivers, with
    the device memory of one run (one launcher per run: :func:`launcher`): the factorials, the pattern database
    and its index arrays go to the device once.

    :meth:`bfs_children` and :meth:`pdb_children` leave a layer's children on the device and hand them to the array
    work as ``(xp, children)``: CuPy on the same memory when it is there, else numpy on a host copy.
    """

    def __init__(self, unit: jit.Unit) -> None:
        self.unit = unit
        self.bfs_expand_kernel = unit.bfs_expand_kernel
        self.pdb_expand_kernel = unit.pdb_expand_kernel
        self.ida_kernel = unit.ida_kernel
        self.dfs_kernel = unit.dfs_kernel
        self._session: DeviceSession | None = None

    @property
    def session(self) -> DeviceSession:
        if self._session is None:  # made on first use: compiling to PTX needs no device
            self._session = DeviceSession()
        return self._session

    @property
    def transfers(self) -> Transfers:
        return self.session.transfers

    def bfs_children(self, ranks, rows, cols, cls, fact):
        """``(xp, children)``: the ranks of the neighbours of every state of ``ranks`` (-1: no move)."""
        s = self.session
        d_out = s.empty("bfs_out", (ranks.shape[0], 4), np.int64)
        if ranks.shape[0]:
            s.launch("bfs_expand_kernel", self.bfs_expand_kernel, ranks.shape[0], s.put("ranks", ranks),
                     np.int64(rows), np.int64(cols), np.int64(cls), s.resident("fact", fact), d_out)
        return s.namespace_view(d_out, "bfs_out")

    def bfs_expand_batch(self, ranks, rows, cols, cls, fact, out):
        if ranks.shape[0] == 0:
            return
        _, children = self.bfs_children(ranks, rows, cols, cls, fact)
        out[...] = to_host(children)

    def pdb_children(self, codes, k, rows, cols):
        """``(xp, children)``: the abstract states one pattern move away from every state of ``codes``."""
        s = self.session
        d_out = s.empty("pdb_out", (codes.shape[0], 4 * k), np.int64)
        if codes.shape[0]:
            s.launch("pdb_expand_kernel", self.pdb_expand_kernel, codes.shape[0], s.put("codes", codes),
                     np.int64(k), np.int64(rows), np.int64(cols), d_out)
        return s.namespace_view(d_out, "pdb_out")

    def pdb_expand_batch(self, codes, k, rows, cols, out):
        if codes.shape[0] == 0:
            return
        _, children = self.pdb_children(codes, k, rows, cols)
        out[...] = to_host(children)

    def ida_batch(self, boards, rows, cols, hkind, max_len, pdb, pat_tiles, pat_k, pat_off, tile_pat, mir,
                  use_mirror, paths, stats):
        if boards.shape[0] == 0:
            return
        if max_len > MAX_LEN or pat_k.shape[0] > MAX_PATTERNS or pat_tiles.shape[1] > MAX_PATTERN_TILES:
            raise ValueError("IDA* on CUDA: depth limit or pattern sizes exceed the kernel's local arrays")
        s = self.session
        d_paths, d_stats = s.put("paths", paths), s.put("stats", stats)
        # The pattern database (576 MB for 7-8 on 4x4) and its index arrays stay on the device for the run.
        s.launch("ida_kernel", self.ida_kernel, boards.shape[0], s.put("boards", boards), np.int64(rows),
                 np.int64(cols), np.int64(hkind), np.int64(max_len), s.resident("pdb", pdb),
                 s.resident("pat_tiles", pat_tiles), s.resident("pat_k", pat_k), s.resident("pat_off", pat_off),
                 s.resident("tile_pat", tile_pat), s.resident("mir", mir), np.int64(use_mirror), d_paths, d_stats)
        s.get(d_paths, paths)
        s.get(d_stats, stats)


    def dfs_batch(self, boards, rows, cols, hkind, max_len, pdb, pat_tiles, pat_k, pat_off, tile_pat, mir,
                  use_mirror, g0, prev, bound, paths, stats):
        """One bounded IDA* iteration of every work item (one thread an item); as the CPU driver."""
        if boards.shape[0] == 0:
            return
        if max_len > MAX_LEN or pat_k.shape[0] > MAX_PATTERNS or pat_tiles.shape[1] > MAX_PATTERN_TILES:
            raise ValueError("IDA* on CUDA: depth limit or pattern sizes exceed the kernel's local arrays")
        s = self.session
        d_paths, d_stats = s.put("dfs_paths", paths), s.put("dfs_stats", stats)
        s.launch("dfs_kernel", self.dfs_kernel, boards.shape[0], s.put("dfs_boards", boards), np.int64(rows),
                 np.int64(cols), np.int64(hkind), np.int64(max_len), s.resident("pdb", pdb),
                 s.resident("pat_tiles", pat_tiles), s.resident("pat_k", pat_k), s.resident("pat_off", pat_off),
                 s.resident("tile_pat", tile_pat), s.resident("mir", mir), np.int64(use_mirror),
                 s.put("dfs_g0", g0), s.put("dfs_prev", prev), np.int64(bound), d_paths, d_stats)
        s.get(d_paths, paths)
        s.get(d_stats, stats)

@lru_cache(maxsize=None)
def drivers() -> SlidingKernels:
    """The kernels compiled together with the sliding rules (built once per process, cached on disk)."""
    return SlidingKernels(jit.unit("sliding", "cuda", rules=[rules], templates=[sys.modules[__name__]]))


def launcher() -> SlidingKernels:
    """A launcher of its own (its own device memory, stream and transfer counts) for one run."""
    return SlidingKernels(drivers().unit)
