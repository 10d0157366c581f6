"""Host side of the batch DFS: frontier expansion, batches on the chosen backend, re-splitting, checkpoints.

Generic over a family: the family gives its rules module, its tables, the root state and the goal depth
(:class:`SearchProblem`); optionally a ``canonicalize`` hook that merges symmetric frontier items into one
representative with a weight.  The frontier is a set of work items ``(state, depth, lo, weight)``
(see :mod:`puzzlebatch.puzzles.search`); counts are weighted sums over items, so they are exact whatever the
batch size, the budget or the backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Callable

import numpy as np

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.limits import check_memory
from puzzlebatch.puzzles.search import BUDGET, DONE, OUT_COUNT, OUT_DEPTH, OUT_MOVES, OUT_NODES, OUT_NSOL, \
    OUT_STATUS, OUT_WIDTH, STOPPED
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.memo import run_memo
from puzzlebatch.runners.engine.twins import twin
from puzzlebatch.xp import compact


ENUM_BUFFER = 8  # solutions an item copies per launch when enumerating
ENUM_BATCH = 4096  # items per launch when enumerating (the solution buffers are ENUM_BUFFER states each)
LAUNCH_BYTES = 1 << 30  # host arrays of one launch at most (states, stacks, solution buffers): long states, fewer items


@dataclass
class SearchProblem:
    """What a family hands to the batch DFS."""

    rules: ModuleType
    tables: np.ndarray
    root: np.ndarray
    goal: int

    @property
    def merge_key(self) -> tuple[int, ...]:
        """The state words that, with the depth, decide a node's subtree: the rules module's ``MERGE_KEY`` (a
        count may then merge equal nodes, :mod:`puzzlebatch.runners.engine.merge`), or () when it names none."""
        return tuple(int(w) for w in getattr(self.rules, "MERGE_KEY", ()))


@dataclass
class Frontier:
    """Work items still to search: ``states[i]`` at ``depths[i]``, owning choices ``los[i]..``, counted
    ``weights[i]`` times."""

    states: np.ndarray
    depths: np.ndarray
    los: np.ndarray
    weights: np.ndarray

    def __len__(self) -> int:
        return int(self.depths.shape[0])

    @classmethod
    def root(cls, problem: SearchProblem) -> "Frontier":
        return cls(problem.root[None, :].astype(np.int64).copy(), np.zeros(1, np.int32), np.zeros(1, np.int32),
                   np.ones(1, np.int64))

    def take(self, idx) -> "Frontier":
        return Frontier(self.states[idx], self.depths[idx], self.los[idx], self.weights[idx])

    @staticmethod
    def concat(parts: list["Frontier"]) -> "Frontier":
        return Frontier(np.concatenate([p.states for p in parts]), np.concatenate([p.depths for p in parts]),
                        np.concatenate([p.los for p in parts]), np.concatenate([p.weights for p in parts]))

    def arrays(self) -> dict[str, np.ndarray]:
        return {"states": self.states, "depths": self.depths, "los": self.los, "weights": self.weights}


@dataclass
class SearchTotals:
    """Running totals; with the frontier, everything needed to resume."""

    count: int = 0
    nodes: int = 0
    batches: int = 0
    items: int = 0
    solutions: list[np.ndarray] = field(default_factory=list)
    done: float = 0.0  # an estimate of the share of the tree searched, 0 to 1 (see :func:`spread`)
    merged_layers: int = 0  # layers counted by merged states (runners.engine.merge)

    def meta(self) -> dict:
        return {"count": self.count, "nodes": self.nodes, "batches": self.batches, "items": self.items,
                "done": self.done}


def spread(total: float, depths: np.ndarray) -> np.ndarray:
    """``total`` (a share of the whole tree) divided among work items, halving with each level an item lies
    deeper than the shallowest: a deeper item is a smaller subtree.

    The estimate of progress (:attr:`SearchTotals.done`) follows the shares: the frontier shares out what is left
    when a count starts or resumes; an item that finishes adds its share to ``done``; an item stopped by its
    budget hands its share on to the items it is split into (a stopped item split into nothing adds it to
    ``done``).  ``done`` only grows and is 1 when the frontier is empty; how close it is to the share of the
    nodes searched depends on how balanced the tree is (an estimate, not a bound)."""
    if not len(depths):
        return np.zeros(0)
    w = np.exp2(-(depths.astype(np.float64) - float(depths.min())))
    return float(total) * w / w.sum()


def _advance(totals: SearchTotals, finished: float, moving: float, children: np.ndarray, shares: np.ndarray,
             left: int) -> np.ndarray:
    """Progress after one launch: ``finished`` share done, ``moving`` handed on to the first ``children`` items
    of the new frontier (depths), ``shares`` those of the items after them; ``left`` items in all."""
    if not len(children):
        finished += moving
    totals.done = 1.0 if left == 0 else min(1.0, totals.done + max(0.0, finished))
    return np.concatenate([spread(moving, children), shares])


@dataclass
class SearchSettings:
    """How work is cut.  Defaults depend on the backend (see :func:`default_settings`)."""

    # CPU defaults, measured on 4x4x4 snake counts (bench/RESULTS.md): a small frontier keeps host work low and
    # the budget re-splits whatever is unbalanced.
    budget: int = 1 << 16  # applied moves per item per launch (at most: see puzzlebatch.runners.engine.launch)
    batch_size: int = 1 << 16  # items per launch (at most)
    frontier_target: int = 256  # expand the root until the frontier has this many items
    first_batch_size: int = 64  # items per launch when looking for a first solution (in DFS order)
    # Expand with symmetric items merged only until the frontier has this many items (None: frontier_target), then
    # without merging: the merge is array work over every symmetry at every layer, which a large frontier for a
    # GPU (2^18 items) made the longest part of a count.
    merge_target: int | None = None
    # Count by merged states (families that name a MERGE_KEY): expand breadth-first, each set of equal nodes of a
    # layer kept once with the sum of their weights, while a layer holds at most merge_states items; then the batch
    # DFS searches what is left.  "auto": only where Knuth's estimate of the tree is over merge.AUTO_NODES (a
    # merged child costs 2-3 tree nodes: it pays on IQ Puzzler Pro, 16x fewer nodes, not on the pentomino
    # rectangles, 2x fewer); "yes"; "no": a plain tree search.
    merge: str = "auto"
    merge_states: int = 1 << 21
    memo_entries: int = 1 << 16  # of a count's memo a CPU thread (puzzlebatch.runners.engine.memo); 0: none
    cuda_lanes: int = 1  # CUDA: threads sharing an item's candidate tests (32: gpu_kernels.search.dfs_lanes_kernel)


def default_settings(backend: Backend) -> SearchSettings:
    if backend.name == "cuda":
        # A frontier of two batches: the count keeps one batch running while the host splits the other's
        # unfinished items.  2^14 items measured on an H200 (bench/gpu_sweep.py, frontiers 2^12 to 2^20): the
        # 6x10 count 0.13 s against 0.46 s at 2^18, the 2x2x1 cubes count 0.12 s against 1.5 s, four 4x4x4
        # snake counts 0.32 s against 0.50 s (at 2^16 and more the host's expansion did the snake trees whole);
        # 2^12 was within 10-60 % of it, budgets of 2^12 and 2^16 moves alike.
        # Launches of up to 2^17 items (the frontier grows as stopped items are split): on a large tree the
        # GPU then fills up (IQ Puzzler Pro as a 70-million-node tree: 2.3 s against 3.5 s at 2^13 items), on the
        # small trees above no slower (6x10 0.106 s against 0.120 s); 2^19 gave the same as 2^17.
        # Merged only as far as the CPU merges (256 items): on an H200, merging up to 2^18 items made four 4x4x4
        # snake counts take 11.5 s on the host (no kernel ran) against 0.10 s on 16 CPU threads.
        return SearchSettings(budget=1 << 16, batch_size=1 << 17, frontier_target=1 << 14,
                              first_batch_size=1 << 14, merge_target=256)
    if backend.name == "cudasim":  # every simulated thread is a Python thread: keep it small
        # No merged states: a merged count can finish on the host, and the simulator is there to run the kernel.
        return SearchSettings(budget=1 << 12, batch_size=256, frontier_target=64, first_batch_size=64, merge="no")
    return SearchSettings()


def batch_summary(xp, out, weights, roots, states, stacks):
    """One counting launch reduced where its arrays are (numpy on the host, CuPy on the GPU).

    Returns ``(scalars, rows)``: ``scalars`` = [the weighted count, the nodes, how many items ran out of budget]
    and ``rows`` = (states, stacks, roots, depths reached, weights) of those items, compacted in order by a prefix
    sum (:func:`puzzlebatch.xp.compact`: buffers at least that long, the first ``scalars[2]`` rows count).
    Nothing in it waits for the device.
    """
    stopped = out[:, OUT_STATUS] == BUDGET
    scalars = xp.stack([(out[:, OUT_COUNT] * weights).sum(), out[:, OUT_NODES].sum(), stopped.sum().astype(xp.int64)])
    _, *rows = compact(xp, stopped, states, stacks, roots, out[:, OUT_DEPTH], weights)
    return scalars, tuple(rows)


def _host(rules: ModuleType):
    from puzzlebatch.cpu_fallback.search import drivers

    return drivers(rules)


class BatchDFS:
    """Count or find the solutions of a family's search tree, in batches on one backend.

    Parameters
    ----------
    problem
        Rules, tables, root state and goal depth.
    backend
        Where the per-item DFS runs (see :func:`puzzlebatch.runners.engine.backend.select_backend`).
    settings
        Budget, batch size and frontier size; defaults from :func:`default_settings`.
    canonicalize
        Optional ``f(frontier) -> frontier`` that merges symmetric fresh items (``lo == 0``) into their first
        member and adds up their weights.
    pool
        Where :meth:`count` runs its work items (:mod:`puzzlebatch.runners.engine.distributed`): None or the embedded
        pool for this process, a Dask pool for a cluster.  ``pool.item_seconds`` bounds a work item's time on a
        worker; ``pool.work`` (a ``WorkSummary``) collects what each worker did.
    """

    def __init__(self, problem: SearchProblem, backend: Backend, settings: SearchSettings | None = None,
                 canonicalize: Callable[[Frontier], Frontier] | None = None, pool=None):
        self.problem = problem
        self.backend = backend
        self.settings = settings or default_settings(backend)
        self.canonicalize = canonicalize
        self.pool = pool
        self._host = _host(problem.rules)
        self.kernels = twin(backend, "search", problem.rules, lanes=self.settings.cuda_lanes)
        self.overlapped = 0  # CUDA counts: batches queued while the one before was still running
        self._planners: dict[str, object] = {}
        self.memo = run_memo(problem.goal, problem.merge_key, self.settings.memo_entries, backend.kind == "cpu")

    def planner(self, kind: str, max_items: int):
        """The launch planner of ``count`` or ``first`` launches (kept across calls: the measured rate); at most
        as many items per launch as fit in :data:`LAUNCH_BYTES`."""
        from puzzlebatch.limits import MEMORY
        from puzzlebatch.runners.engine.launch import planner_for

        width, goal = self.problem.root.shape[0], self.problem.goal
        slots = ENUM_BUFFER if max_items <= ENUM_BATCH else 1  # solution states an item may copy
        item_bytes = 8 * width * (2 + slots) + 4 * (goal + 2) + 8 * OUT_WIDTH
        max_items = max(1, min(max_items, min(LAUNCH_BYTES, MEMORY.value // 4) // item_bytes))
        p = self._planners.get(kind)
        if p is None or p.max_items != max(1, max_items) or p.max_budget != max(1, self.settings.budget):
            p = self._planners[kind] = planner_for(self.settings.budget, max_items)
        return p

    @property
    def transfers(self) -> dict:
        """Bytes moved to and from the device and launches so far in this run (``h2d_bytes``, ``d2h_bytes``,
        ``launches``; no bytes on the CPU)."""
        return self.kernels.transfers.to_json()

    # -- frontier -------------------------------------------------------------------------------------------
    def frontier_target(self) -> int:
        """How many work items to expand the root into: the settings', or enough for every worker of a cluster."""
        if self.pool is not None and self.pool.distributed:
            return max(self.settings.frontier_target, self.pool.items_per_worker * self.pool.n_workers)
        return self.settings.frontier_target

    def check_frontier(self, frontier: Frontier) -> None:
        """Refuse work items that cannot belong to this problem (a checkpoint of another one, or damaged) before
        a kernel reads them."""
        p = self.problem
        if frontier.states.ndim != 2 or frontier.states.shape[1] != p.root.shape[0] or len(frontier) and (
                int(frontier.depths.min()) < 0 or int(frontier.depths.max()) > p.goal
                or int(frontier.los.min()) < 0 or int(frontier.weights.min()) < 1):
            from puzzlebatch.errors import PuzzleInputError

            raise PuzzleInputError("the checkpoint's work items do not fit this problem (damaged, or another "
                                   "problem's)")

    def initial_frontier(self, totals: SearchTotals, keep_solutions: int = 0, sink: Callable | None = None) -> Frontier:
        """The root expanded into work items: symmetric items merged up to the settings' ``frontier_target`` (or
        ``merge_target`` when smaller), then expanded further without merging (to ``frontier_target``, or more for
        a cluster).

        Merging is kept to the same layers whatever the number of workers, so every item, every stored solution
        row and its weight are those of a single process: a cluster only cuts the same items finer.
        """
        root = Frontier.root(self.problem)
        merged = self.settings.frontier_target
        if self.settings.merge_target is not None:
            merged = min(merged, self.settings.merge_target)
        frontier = self.expand(root, totals, merged, keep_solutions=keep_solutions, symmetric=True, sink=sink)
        target = self.frontier_target()
        if target > merged and not (keep_solutions and totals.solutions):
            frontier = self.expand(frontier, totals, target, keep_solutions=keep_solutions, sink=sink)
        return frontier

    def expand(self, frontier: Frontier, totals: SearchTotals, target: int, keep_solutions: int = 0,
               symmetric: bool = False, sink: Callable | None = None) -> Frontier:
        """Expand breadth-first until the frontier has ``target`` items (or cannot grow).

        Items that reach the goal on the way are counted (and kept as solutions, or handed to
        ``sink(states, weights)``) and leave the frontier.
        """
        p = self.problem
        if 0 < len(frontier) < target:
            frontier = self.take_goal(frontier, totals, keep_solutions, sink)
        while 0 < len(frontier) < target:
            states, depths, parent, nodes = self._host.expand(frontier.states, frontier.depths, frontier.los,
                                                              p.goal, p.tables)
            totals.nodes += int(nodes)
            frontier = self.take_goal(Frontier(states, depths, np.zeros(len(depths), np.int32),
                                               frontier.weights[parent]), totals, keep_solutions, sink)
            if symmetric and self.canonicalize is not None and len(frontier):
                frontier = self.canonicalize(frontier)
        return frontier

    def take_goal(self, frontier: Frontier, totals: SearchTotals, keep_solutions: int = 0,
                  sink: Callable | None = None) -> Frontier:
        """Count the items at the goal (kept as solutions, or handed to ``sink(states, weights)``) and return the
        others: the host steps expand only items above the goal (an item at the goal has no children, so left
        in a frontier being expanded it would be lost, not counted)."""
        at_goal = frontier.depths >= self.problem.goal
        if not at_goal.any():
            return frontier
        totals.count += int(frontier.weights[at_goal].sum())
        if sink is not None:
            sink(frontier.states[at_goal], frontier.weights[at_goal])
        for s in frontier.states[at_goal][: max(0, keep_solutions - len(totals.solutions))]:
            totals.solutions.append(s.copy())
        return frontier.take(~at_goal)

    # -- one launch -----------------------------------------------------------------------------------------
    def run_batch(self, batch: Frontier, max_solutions: int, stop_after: int, budget: int | None = None,
                  planner=None):
        """Run the per-item DFS on ``batch`` with ``budget`` nodes per item (default: the settings'); returns
        (out, states, stacks, solutions) as host arrays.  ``planner`` records the launch's node rate."""
        p = self.problem
        n, width = batch.states.shape
        check_memory(n * (8 * width * (1 + max(max_solutions, 1)) + 4 * (p.goal + 1) + 8 * OUT_WIDTH),
                     f"a launch of {n:,} work items of {width:,} words")
        states = batch.states.copy()
        stacks = np.zeros((n, p.goal + 1), np.int32)
        out = np.zeros((n, OUT_WIDTH), np.int64)
        solutions = np.zeros((n, max(max_solutions, 1), width), np.int64)
        t0 = work_clock()  # compiling excluded: the rate is the search's
        self.kernels.dfs_batch(states, stacks, batch.depths.astype(np.int32), batch.los.astype(np.int32), p.goal,
                               self.settings.budget if budget is None else budget, max_solutions, stop_after,
                               solutions, out, p.tables, self.memo)
        if planner is not None:
            planner.record(int(out[:, OUT_MOVES].sum()), work_clock() - t0)  # its budgets are moves
        return out, states, stacks, solutions

    # -- whole searches -------------------------------------------------------------------------------------
    def count(self, frontier: Frontier | None = None, totals: SearchTotals | None = None,
              on_batch: Callable[[Frontier, SearchTotals], None] | None = None,
              max_batches: int | None = None,
              sink: Callable[[np.ndarray, np.ndarray], None] | None = None) -> tuple[SearchTotals, Frontier]:
        """Count every solution (weighted by item weights).

        ``frontier``/``totals`` resume an earlier run; ``on_batch(frontier, totals)`` is called after every
        launch (progress, checkpoints); ``max_batches`` stops early (the returned frontier is what remains).
        ``sink(states, weights)``, if given, receives every solution's state with its item's weight, before the
        ``on_batch`` call of the launch that found it: a checkpoint taken in ``on_batch`` has seen every solution
        of the work already done, and none of the work left.
        """
        if frontier is not None:
            self.check_frontier(frontier)
        if self.pool is not None and self.pool.distributed:  # the pool runs the items (a strategy: no import back)
            return self.pool.count(self, frontier, totals, on_batch, max_batches, sink=sink)
        t0 = work_clock()
        totals = totals or SearchTotals()
        nodes0, items0 = totals.nodes, totals.items
        if frontier is None:
            frontier = self.initial_frontier(totals, sink=sink)
        try:
            return self._count_here(frontier, totals, on_batch, max_batches, sink)
        finally:
            if self.pool is not None:
                self.pool.work.add("local", totals.items - items0, totals.nodes - nodes0, work_clock() - t0,
                                   self.backend.name)

    def _count_here(self, frontier: Frontier, totals: SearchTotals, on_batch, max_batches, sink):
        if sink is None and self.backend.kind == "cuda":
            return self._count_pipelined(frontier, totals, on_batch, max_batches)
        # Enumerating: each item copies up to ENUM_BUFFER solutions per launch, then stops to be split.
        size = self.settings.batch_size if sink is None else min(self.settings.batch_size, ENUM_BATCH)
        planner = self.planner("count", size)
        shares = spread(1.0 - totals.done, frontier.depths)
        while len(frontier) and (max_batches is None or totals.batches < max_batches):
            k, budget = planner.plan(len(frontier))
            batch, rest = frontier.take(slice(0, k)), frontier.take(slice(k, None))
            out, states, stacks, sols = self.run_batch(batch, 0 if sink is None else ENUM_BUFFER, 0, budget,
                                                       planner)
            if sink is not None:
                nsol = out[:, OUT_NSOL]
                keep = np.arange(sols.shape[1])[None, :] < nsol[:, None]
                sink(sols[keep], np.repeat(batch.weights, nsol))
            scalars, rows = batch_summary(np, out, batch.weights, batch.depths, states, stacks)
            frontier = self._account(totals, k, scalars, rows, rest)
            moving = float(shares[:k][out[:, OUT_STATUS] == BUDGET].sum())
            shares = _advance(totals, float(shares[:k].sum()) - moving, moving,
                              frontier.depths[:len(frontier) - len(rest)], shares[k:], len(frontier))
            if on_batch is not None:
                on_batch(frontier, totals)
        if not len(frontier):
            totals.done = 1.0
        return totals, frontier

    def _account(self, totals: SearchTotals, k: int, scalars, rows, rest: Frontier) -> Frontier:
        """Add one launch's results to the totals; the frontier is its budget-stopped items, split, then ``rest``."""
        count, nodes, stopped = (int(v) for v in scalars)
        totals.count += count
        totals.nodes += nodes
        totals.batches += 1
        totals.items += k - stopped
        if not stopped:
            return rest
        states, stacks, roots, depths, weights = (r[:stopped] for r in rows)
        # Splitting makes up to one item per level searched below each root: check before allocating them.
        n_out = int(np.sum(depths.astype(np.int64) - roots + 1)) + len(rest)
        check_memory(n_out * (8 * states.shape[1] + 16), f"the work left: {n_out:,} work items of "
                     f"{states.shape[1]:,} words each")
        cont = self._host.split_batch(states, stacks, roots.astype(np.int32), depths.astype(np.int32), weights,
                                      self.problem.tables)
        return Frontier.concat([Frontier(*cont), rest])

    def _count_pipelined(self, frontier: Frontier, totals: SearchTotals, on_batch, max_batches):
        """The count loop on CUDA: batch k+1 is queued before the host splits batch k's stopped items, so the
        host's work overlaps the kernel's.  The same totals as the serial loop (counts are sums over items); the
        batches are cut in a different order."""
        planner = self.planner("count", self.settings.batch_size)
        p = self.problem
        inflight: tuple[Frontier, object, float, np.ndarray] | None = None
        shares = spread(1.0 - totals.done, frontier.depths)  # of the items not submitted yet
        slot = 0
        while True:
            can_submit = len(frontier) > 0 and (max_batches is None or
                                                totals.batches + (inflight is not None) < max_batches)
            if not can_submit and inflight is None:
                break
            submitted = None
            if can_submit:
                k, budget = planner.plan(len(frontier))
                batch, frontier = frontier.take(slice(0, k)), frontier.take(slice(k, None))
                pending = self.kernels.submit(slot, batch.states, batch.depths.astype(np.int32),
                                              batch.los.astype(np.int32), batch.weights, p.goal,
                                              budget, p.tables, batch_summary)
                submitted, slot = (batch, pending, work_clock(), shares[:k]), slot ^ 1
                shares = shares[k:]
                self.overlapped += inflight is not None
            if inflight is not None:
                batch_k, pending_k, t0, shares_k = inflight
                scalars, rows = self.kernels.collect(pending_k)
                planner.record(int(scalars[1]), work_clock() - t0)  # queued to collected: an upper bound
                n_rest = len(frontier)
                frontier = self._account(totals, len(batch_k), scalars, rows, frontier)
                # which items stopped stays on the device: their share is taken as the batch's mean
                moving = float(shares_k.sum()) * int(scalars[2]) / max(1, len(batch_k))
                shares = _advance(totals, float(shares_k.sum()) - moving, moving,
                                  frontier.depths[:len(frontier) - n_rest], shares,
                                  len(frontier) + (len(submitted[0]) if submitted else 0))
                if on_batch is not None:  # the work left includes the batch still running
                    on_batch(Frontier.concat([submitted[0], frontier]) if submitted else frontier, totals)
            inflight = submitted
        return totals, frontier

    def first(self, frontier: Frontier | None = None, totals: SearchTotals | None = None,
              on_batch: Callable[[Frontier, SearchTotals], None] | None = None,
              max_batches: int | None = None) -> tuple[SearchTotals, Frontier]:
        """Find the first solution in depth-first order, or prove there is none.

        The order is that of a sequential DFS over the frontier (with ``canonicalize``, over one representative
        of each symmetry class, so a symmetric copy of an earlier folding is never searched).  The answer does not
        depend on the backend, batch size or budget, nor on a cluster (``pool``): a solution is taken from an item
        only when every item before it has been searched to the end.  ``max_batches`` stops early: then no
        solution and a non-empty returned frontier (the work left, in order).
        """
        if self.pool is not None and self.pool.distributed:
            return self.pool.first(self, frontier, totals)
        totals = totals or SearchTotals()
        if frontier is None:
            frontier = self.initial_frontier(totals, keep_solutions=1)
            if totals.solutions:  # solutions met during expansion come first in DFS order
                totals.solutions = totals.solutions[:1]
                return totals, frontier
        launches = 0
        planner = self.planner("first", self.settings.first_batch_size)
        while len(frontier) and (max_batches is None or launches < max_batches):
            launches += 1
            k, budget = planner.plan(len(frontier))
            batch, rest = frontier.take(slice(0, k)), frontier.take(slice(k, None))
            out, states, stacks, solutions = self.run_batch(batch, 1, 1, budget, planner)
            totals.nodes += int(out[:, OUT_NODES].sum())
            totals.batches += 1
            status = out[:, OUT_STATUS]
            not_done = np.flatnonzero(status != DONE)
            if len(not_done) and status[not_done[0]] == STOPPED:
                i = int(not_done[0])
                totals.count = 1
                totals.items += i + 1
                totals.solutions = [solutions[i, 0].copy()]
                return totals, frontier.take(slice(i + 1, None))
            # Everything from the first unfinished item on goes back, in order, to keep DFS order.
            first_open = int(not_done[0]) if len(not_done) else k
            totals.items += first_open
            parts = []
            for i in range(first_open, k):
                if status[i] == BUDGET:
                    cont = self._host.split_batch(states[i:i + 1], stacks[i:i + 1],
                                                  batch.depths[i:i + 1].astype(np.int32),
                                                  out[i:i + 1, OUT_DEPTH].astype(np.int32),
                                                  batch.weights[i:i + 1], self.problem.tables)
                    parts.append(Frontier(*cont))
                elif status[i] == STOPPED:
                    parts.append(batch.take(slice(i, i + 1)))  # search it again, after the ones before it
            parts.append(rest)
            frontier = Frontier.concat(parts)
            if on_batch is not None:
                on_batch(frontier, totals)
        return totals, frontier
