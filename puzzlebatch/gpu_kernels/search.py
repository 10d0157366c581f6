"""CUDA kernels of the batch DFS: one thread per work item (grid-stride), the same per-item DFS as the CPU.

Same driver name and signature as :mod:`puzzlebatch.cpu_fallback.search` (``dfs_batch``), taking and returning
host numpy arrays; the launcher moves them to and from the device.
"""

from __future__ import annotations

from functools import lru_cache
from types import ModuleType

import numpy as np
from numba import cuda  # a module global: the simulator swaps it for its fake inside kernels

from puzzlebatch.config import launch
from puzzlebatch.jit import compile_rules, next_choice_of
from puzzlebatch.puzzles import search


@lru_cache(maxsize=None)
def drivers(rules: ModuleType):
    """Compiled CUDA kernel and launcher for a family's rules module (built once per module)."""
    r = compile_rules(rules, "cuda")
    dfs_item = cuda.jit(device=True)(search.make_dfs_item(r.n_choices, r.apply, r.undo,
                                                          next_choice_of(rules, r, "cuda")))

    @cuda.jit
    def dfs_kernel(states, stacks, roots, los, goal, budget, max_solutions, stop_after, solutions, out, tables):
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        for i in range(start, states.shape[0], stride):
            dfs_item(states[i], stacks[i], roots[i], los[i], goal, budget, max_solutions, stop_after,
                     solutions[i], out[i], tables)

    def dfs_batch(states, stacks, roots, los, goal, budget, max_solutions, stop_after, solutions, out, tables):
        """Run the kernel on host arrays; results are copied back into ``states``, ``stacks``, ``solutions``, ``out``."""
        n = states.shape[0]
        if n == 0:
            return
        d_states = cuda.to_device(states)
        d_stacks = cuda.to_device(stacks)
        d_solutions = cuda.to_device(solutions)
        d_out = cuda.to_device(out)
        blocks = launch.blocks_for(n)
        dfs_kernel[blocks, launch.threads_per_block](
            d_states, d_stacks, cuda.to_device(roots), cuda.to_device(los), np.int64(goal), np.int64(budget),
            np.int64(max_solutions), np.int64(stop_after), d_solutions, d_out, cuda.to_device(tables))
        d_states.copy_to_host(states)
        d_stacks.copy_to_host(stacks)
        d_solutions.copy_to_host(solutions)
        d_out.copy_to_host(out)

    class _Drivers:
        pass

    d = _Drivers()
    d.dfs_batch = dfs_batch
    d.kernel = dfs_kernel
    return d
