"""CUDA kernels of the batch DFS: one thread per work item (grid-stride), the same per-item DFS as the CPU.

Same driver name and signature as :mod:`puzzlebatch.cpu_fallback.search` (``dfs_batch``), taking and returning
host numpy arrays; the launcher moves them to and from the device.  ``dfs_kernel`` is a template compiled together
with a family's rules (``dfs_item`` is resolved by name in the compile unit).
"""
# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import sys
from functools import lru_cache
from types import ModuleType

import numpy as np
from numba import cuda  # a module global: the simulator swaps it for its fake inside kernels

from puzzlebatch import jit
from puzzlebatch.config import launch
from puzzlebatch.cpu_fallback.search import family_label
from puzzlebatch.puzzles import search


@jit.kernel
def dfs_kernel(states, stacks, roots, los, goal, budget, max_solutions, stop_after, solutions, out, tables):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, states.shape[0], stride):
        dfs_item(states[i], stacks[i], roots[i], los[i], goal, budget, max_solutions, stop_after,
                 solutions[i], out[i], tables)


class SearchKernels:
    """A family's compiled CUDA kernel and its host launcher."""

    def __init__(self, unit: jit.Unit) -> None:
        self.unit = unit
        self.kernel = unit.dfs_kernel

    def dfs_batch(self, states, stacks, roots, los, goal, budget, max_solutions, stop_after, solutions, out,
                  tables):
        """Run the kernel on host arrays; results are copied back into ``states``, ``stacks``, ``solutions``,
        ``out``."""
        n = states.shape[0]
        if n == 0:
            return
        d_states = cuda.to_device(states)
        d_stacks = cuda.to_device(stacks)
        d_solutions = cuda.to_device(solutions)
        d_out = cuda.to_device(out)
        blocks = launch.blocks_for(n)
        self.kernel[blocks, launch.threads_per_block](
            d_states, d_stacks, cuda.to_device(roots), cuda.to_device(los), np.int64(goal), np.int64(budget),
            np.int64(max_solutions), np.int64(stop_after), d_solutions, d_out, cuda.to_device(tables))
        d_states.copy_to_host(states)
        d_stacks.copy_to_host(stacks)
        d_solutions.copy_to_host(solutions)
        d_out.copy_to_host(out)


def search_unit(rules: ModuleType, label: str | None = None) -> jit.Unit:
    """The family's rules, the shared per-item DFS and the kernel, compiled together for CUDA."""
    return jit.unit(label or family_label(rules), "cuda", rules=[rules], templates=[search, sys.modules[__name__]],
                    aliases={"next_choice": "no_skip"})


@lru_cache(maxsize=None)
def drivers(rules: ModuleType) -> SearchKernels:
    """Compiled CUDA kernel and launcher for a family's rules module (built once per module)."""
    return SearchKernels(search_unit(rules))
