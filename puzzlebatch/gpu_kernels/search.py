"""CUDA kernels of the batch DFS: one thread per work item (grid-stride), the same per-item DFS as the CPU.

Same driver name and signature as :mod:`puzzlebatch.cpu_fallback.search` (``dfs_batch``), taking and returning
host numpy arrays; the launcher moves them to and from the device, keeping the tables there for the whole run.
``dfs_kernel`` is a template compiled together with a family's rules (``dfs_item`` is resolved by name in the
compile unit).

``dfs_lanes_kernel`` gives each work item a warp instead (rules that name ``candidate_fits``, the bitboards): the
32 lanes run the same per-item DFS on copies of the item's state, so they make the same moves and reach the same
barriers, and share each node's candidate scan (``lanes_next_choice``, compiled in the place of the rule's
``next_choice``): lane ``j`` tests candidate ``c + j``, and every lane takes the first that fits.  The threads of a
warp then never wait on each other's different trees; a node's scan is one step for up to 32 candidates.
"""
# ruff: noqa: F821  -- names resolved in the compile unit

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType

import numpy as np
from numba import cuda  # a module global: the simulator swaps it for its fake inside kernels

from puzzlebatch import jit
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.cpu_fallback.search import family_label
from puzzlebatch.gpu_kernels.device import DeviceSession
from puzzlebatch.transfers import Transfers
from puzzlebatch.puzzles import search
from puzzlebatch.puzzles.search import OUT_WIDTH
from puzzlebatch.xp import cupy_module

LANES = 32  # the threads of dfs_lanes_kernel that share an item: one warp
LANE_STATE = 320  # state words a lane copies (the two-word bitboard: 2 words and 2 x goal + 1, goal at most 128)
LANE_DEPTH = 160  # stack entries a lane copies (goal + 1)


@jit.kernel
def dfs_kernel(states, stacks, roots, los, goal, budget, max_solutions, stop_after, solutions, out, tables):
    """Each thread searches without a memo (a one-word row, too short for a table: a table a thread would cost
    device memory a thread, and has not been measured on a GPU)."""
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    memo = cuda.local.array(1, np.int64)
    for i in range(start, states.shape[0], stride):
        dfs_item(states[i], stacks[i], roots[i], los[i], goal, budget, max_solutions, stop_after,
                 solutions[i], out[i], tables, memo)


def lanes_next_choice(state, depth, c, n, tables):
    """X2 of ``dfs_lanes_kernel``: the rule's ``next_choice`` (the first candidate from ``c`` that fits, ``n``
    when none), :data:`LANES` candidates a step.  Lane ``j`` tests candidate ``c + j`` with the rule's
    ``candidate_fits``; the verdicts meet in shared memory between two barriers, which every lane reaches: the
    lanes hold the same state."""
    fits = cuda.shared.array(LANES, np.int32)
    lane = cuda.threadIdx.x
    while c < n:
        j = c + lane
        fits[lane] = 1 if j < n and candidate_fits(state, depth, j, tables) else 0
        cuda.syncthreads()
        first = n
        for k in range(LANES):
            if fits[k] != 0:
                first = c + k
                break
        cuda.syncthreads()  # every lane has read the verdicts before the next step writes them
        if first < n:
            return first
        c += LANES
    return n


@jit.kernel
def dfs_lanes_kernel(states, stacks, roots, los, goal, budget, max_solutions, stop_after, solutions, out, tables):
    """One work item a block of :data:`LANES` threads (grid-stride over blocks): each lane searches the item on its
    own copy of the state and stack, the lanes sharing every candidate scan (``lanes_next_choice``); lane 0 writes
    the item back.  Every lane writes the same solutions into ``solutions[i]`` (the same values).

    Every lane must take the same path through ``dfs_item``, or the barriers of the shared scan deadlock: nothing a
    lane reads may differ between lanes (no memo row a lane, no per-lane limits such as ``max_solutions`` 0 for
    lanes other than 0)."""
    lane = cuda.threadIdx.x
    memo = cuda.local.array(1, np.int64)
    state = cuda.local.array(LANE_STATE, np.int64)
    stack = cuda.local.array(LANE_DEPTH, np.int32)
    res = cuda.local.array(OUT_WIDTH, np.int64)
    width = states.shape[1]
    # numba's simulator makes a block's shared array at its first call without a lock, so two threads can get two
    # arrays: one call that scans nothing, a barrier, and every later call finds the array that was kept (on a GPU,
    # a no-op and a barrier)
    lanes_next_choice(state, 0, 0, 0, tables)
    cuda.syncthreads()
    for i in range(cuda.blockIdx.x, states.shape[0], cuda.gridDim.x):
        for k in range(width):
            state[k] = states[i, k]
        for k in range(goal + 1):
            stack[k] = stacks[i, k]
        cuda.syncthreads()  # every lane has its copy before lane 0 may write the item back (an item with no scan)
        dfs_item(state[:width], stack[:goal + 1], roots[i], los[i], goal, budget, max_solutions, stop_after,
                 solutions[i], res, tables, memo)
        if lane == 0:
            for k in range(width):
                states[i, k] = state[k]
            for k in range(goal + 1):
                stacks[i, k] = stack[k]
            for k in range(OUT_WIDTH):
                out[i, k] = res[k]


class SearchKernels:
    """A family's compiled CUDA kernel and its host launcher, with the device memory of one run.

    The tables go to the device once per run (one launcher per run: :func:`launcher`); per-batch arrays are copied
    into reused buffers.  :meth:`dfs_batch` has the CPU driver's contract (host arrays in and back);
    :meth:`submit`/:meth:`collect` let a count prepare batch k+1 while batch k runs and bring back only what the
    host needs (the weighted count, the nodes, the budget-stopped items), reduced on the device with CuPy when it
    is there.
    """

    def __init__(self, unit: jit.Unit, lanes: int = 1) -> None:
        self.unit = unit
        self.lanes = lanes
        self.kernel = unit.dfs_lanes_kernel if lanes > 1 else unit.dfs_kernel
        self._session: DeviceSession | None = None

    @property
    def session(self) -> DeviceSession:
        if self._session is None:  # made on first use: compiling to PTX needs no device
            self._session = DeviceSession()
        return self._session

    @property
    def transfers(self) -> Transfers:
        return self.session.transfers

    def _launch(self, d_states, d_stacks, d_roots, d_los, goal, budget, max_solutions, stop_after, d_solutions,
                d_out, tables):
        s = self.session
        if self.lanes > 1 and (d_states.shape[1] > LANE_STATE or goal + 1 > LANE_DEPTH):
            raise ValueError(f"the kernel whose lanes share an item copies at most {LANE_STATE} state words and "
                             f"{LANE_DEPTH} depths, this problem has {d_states.shape[1]} and {goal + 1}")
        name = "dfs_lanes_kernel" if self.lanes > 1 else "dfs_kernel"
        s.launch(name, self.kernel, d_states.shape[0], d_states, d_stacks, d_roots, d_los, np.int64(goal),
                 np.int64(budget), np.int64(max_solutions), np.int64(stop_after), d_solutions, d_out,
                 s.resident("tables", tables), lanes=self.lanes)

    def dfs_batch(self, states, stacks, roots, los, goal, budget, max_solutions, stop_after, solutions, out,
                  tables, memo=None):
        """Run the kernel on host arrays; results are copied back into ``states``, ``stacks``, ``solutions``,
        ``out``.  ``memo`` is the CPU driver's: the kernel searches without one."""
        n = states.shape[0]
        if n == 0:
            return
        s = self.session
        d_states, d_stacks = s.put("states", states), s.put("stacks", stacks)
        d_solutions, d_out = s.put("solutions", solutions), s.put("out", out)
        self._launch(d_states, d_stacks, s.put("roots", roots), s.put("los", los), goal, budget, max_solutions,
                     stop_after, d_solutions, d_out, tables)
        for dev, host in ((d_states, states), (d_stacks, stacks), (d_solutions, solutions), (d_out, out)):
            s.get(dev, host)

    def submit(self, slot: int, states, roots, los, weights, goal, budget, tables, summary) -> "PendingBatch":
        """Queue one counting launch of a batch (no solutions kept) and its reduction; returns at once.

        ``slot`` (0 or 1) picks the buffers, so that batch k's results stay intact while batch k+1 is queued.
        ``summary(xp, out, weights, roots, states, stacks) -> (scalars, rows)`` reduces the launch (see
        :func:`puzzlebatch.runners.engine.search.batch_summary`): on the device with CuPy, else on the host with numpy.
        """
        s = self.session
        n, width = states.shape
        d_states = s.put(f"states{slot}", states)
        d_roots, d_los = s.put(f"roots{slot}", roots), s.put(f"los{slot}", los)
        d_stacks = s.empty(f"stacks{slot}", (n, goal + 1), np.int32)
        d_out = s.empty(f"out{slot}", (n, OUT_WIDTH), np.int64)
        d_solutions = s.empty(f"solutions{slot}", (n, 1, width), np.int64)
        self._launch(d_states, d_stacks, d_roots, d_los, goal, budget, 0, 0, d_solutions, d_out, tables)
        cp = cupy_module()
        if cp is not None:
            d_weights = s.put(f"weights{slot}", weights)
            with s.cupy_stream():
                scalars, rows = summary(cp, cp.asarray(d_out), cp.asarray(d_weights), cp.asarray(d_roots),
                                        cp.asarray(d_states), cp.asarray(d_stacks))
            host_scalars = s.get_async(cuda.as_cuda_array(scalars), f"scalars{slot}")
            return PendingBatch(s.record(), scalars=host_scalars, device_rows=rows)
        host = tuple(s.get_async(d, f"{name}{slot}") for d, name in ((d_out, "out"), (d_states, "states"),
                                                                     (d_stacks, "stacks")))
        return PendingBatch(s.record(), host=host, weights=weights, roots=roots, summary=summary)

    def collect(self, pending: "PendingBatch") -> tuple[np.ndarray, tuple]:
        """Wait for a submitted batch; ``(scalars, rows)`` on the host (rows: the budget-stopped items)."""
        pending.event.synchronize()
        if pending.host is not None:
            out, states, stacks = pending.host
            scalars, rows = pending.summary(np, out, pending.weights, pending.roots, states, stacks)
            k = int(scalars[2])
            return np.asarray(scalars), tuple(r[:k] for r in rows)
        scalars = np.array(pending.scalars)
        k = int(scalars[2])
        s = self.session
        if k == 0:
            return scalars, tuple(np.empty((0,) + tuple(r.shape[1:]), r.dtype) for r in pending.device_rows)
        # Only the budget-stopped items come back, on the copy stream: the next batch's kernel is not waited for.
        rows = tuple(s.get(cuda.as_cuda_array(r[:k]), stream=s.copy_stream) for r in pending.device_rows)
        return scalars, rows


@dataclass
class PendingBatch:
    """A queued launch: wait on ``event``; then either ``host`` arrays to reduce, or ``scalars`` and
    ``device_rows`` already reduced on the device."""

    event: object
    host: tuple | None = None
    weights: np.ndarray | None = None
    roots: np.ndarray | None = None
    summary: object = None
    scalars: np.ndarray | None = None
    device_rows: tuple | None = None


def search_unit(rules: ModuleType, label: str | None = None, lanes: int = 1) -> jit.Unit:
    """The family's rules, the shared per-item DFS and the kernel, compiled together for CUDA; with ``lanes`` > 1
    the rule's ``next_choice`` is the lanes' shared scan (``dfs_lanes_kernel``)."""
    if lanes not in (1, LANES):
        raise PuzzleInputError(f"cuda lanes: 1 or {LANES} (a warp) threads an item, not {lanes}")
    if lanes > 1 and not hasattr(rules, "candidate_fits"):
        raise PuzzleInputError(f"cuda lanes: {lanes} threads an item need rules that test one candidate at a time "
                               f"(candidate_fits: the bitboard branch); {rules.__name__} has none")
    return jit.unit(label or family_label(rules), "cuda", rules=[rules], templates=[search, sys.modules[__name__]],
                    aliases=search.RULE_DEFAULTS,
                    replace={"next_choice": "lanes_next_choice"} if lanes > 1 else None)


@lru_cache(maxsize=None)
def drivers(rules: ModuleType, lanes: int = 1) -> SearchKernels:
    """Compiled CUDA kernel and a launcher for a family's rules module, shared by this process (built once per
    module).  A run that keeps its own data on the device takes :func:`launcher` instead."""
    return SearchKernels(search_unit(rules, lanes=lanes), lanes)


def launcher(rules: ModuleType, lanes: int = 1) -> SearchKernels:
    """A launcher of its own (its own device memory, stream and transfer counts) for one run; ``lanes``: the
    threads that share each work item (1, or :data:`LANES` for rules with ``candidate_fits``)."""
    return SearchKernels(search_unit(rules, lanes=lanes), lanes)
