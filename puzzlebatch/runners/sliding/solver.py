"""Sliding puzzles: whole state spaces by batched BFS, optimal solving with IDA*, batches of instances.

Pattern databases live in :mod:`puzzlebatch.runners.sliding.pdb`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.sliding import rules
from puzzlebatch.puzzles.sliding.model import DIRECTIONS, Board, direction_from_blank_first, goal_board, replay, \
    solvability, to_blank_first
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.twins import twin
from puzzlebatch.transfers import transfers_of
from puzzlebatch.xp import mark_new_nibbles, namespace_for, to_host

HEURISTICS = {"manhattan": rules.H_MANHATTAN, "linear-conflict": rules.H_LINEAR_CONFLICT, "pdb": rules.H_PDB}
BFS_MAX_CELLS = 12  # 3x4 / 2x6: 12!/2 = 239,500,800 states, 120 MB of 4-bit entries
UNSEEN = 0xF  # 4-bit entry of a state not reached yet; reached states hold depth % 15


def drivers(backend: Backend):
    """The sliding-puzzle twin for ``backend`` (:func:`~puzzlebatch.runners.engine.twins.twin`)."""
    return twin(backend, "sliding")



def factorials(n: int) -> np.ndarray:
    return np.array([math.factorial(k) for k in range(n + 1)], dtype=np.int64)


# -- breadth-first search of a whole state space -----------------------------------------------------------------

@dataclass
class BFSState:
    """Where a BFS stands between layers: enough to resume it."""

    rows: int
    cols: int
    goal: str
    packed: np.ndarray  # uint8, two 4-bit entries a byte (rank r: low nibble of byte r>>1 if r even, else high)
    frontier: np.ndarray  # int64 ranks of the last layer, in discovery order
    depth_counts: list[int] = field(default_factory=list)
    seconds: float = 0.0
    transfers: dict = field(default_factory=dict)  # this process's device traffic (h2d_bytes, d2h_bytes, launches)

    def checkpoint_arrays(self) -> dict[str, np.ndarray]:
        """The arrays a checkpoint stores, on the host (during a GPU run they live on the device)."""
        return {"packed": to_host(self.packed), "frontier": to_host(self.frontier),
                "depth_counts": np.array(self.depth_counts, np.int64)}

    @property
    def n(self) -> int:
        return self.rows * self.cols

    @property
    def depth(self) -> int:
        return len(self.depth_counts) - 1


@dataclass
class BFSResult:
    size: str
    goal: str
    states: int
    max_depth: int
    depth_counts: list[int]
    mean_depth: float
    hardest_count: int
    hardest: list[str]
    seconds: float
    backend: str
    table_bytes: int
    h2d_bytes: int = 0
    d2h_bytes: int = 0
    launches: int = 0

    def to_json(self) -> dict:
        return dict(self.__dict__)


def bfs_start(rows: int, cols: int, goal: str) -> BFSState:
    n = rows * cols
    if n > BFS_MAX_CELLS:
        raise PuzzleInputError(f"bfs {rows}x{cols}: {n} cells is too many for a whole-space search "
                               f"(at most {BFS_MAX_CELLS} cells: {math.factorial(BFS_MAX_CELLS) // 2:,} states)")
    fact = factorials(n)
    total = int(fact[n] // 2)
    g = np.array(goal_board(rows, cols, goal).tiles, dtype=np.int64)
    packed = np.full((total + 1) // 2, 0xFF, dtype=np.uint8)
    root = int(rules.rank_state(g, n, fact))
    packed[root >> 1] &= np.uint8(0xF0 if root % 2 == 0 else 0x0F)  # depth 0
    return BFSState(rows, cols, goal, packed, np.array([root], dtype=np.int64), [1])


def bfs_run(state: BFSState, backend: Backend, *, chunk: int = 1 << 19, on_layer=None,
            max_layers: int | None = None) -> BFSState:
    """Expand layer after layer until no new state appears (or ``max_layers`` layers were added).

    Each layer is cut into chunks: the backend expands a chunk (unrank, move the blank, rank the children), then
    the children not seen yet are marked ``(depth + 1) % 15`` and form the next layer.  On the CPU the serial host
    step ``bfs_mark`` marks them in discovery order; on CUDA the table and the layers stay on the device and
    :func:`puzzlebatch.xp.mark_new_nibbles` deduplicates them there (sort/unique; numpy where CuPy is missing).
    The table and the layer sizes are the same either way (the layer's order differs: it is a set).
    """
    d = drivers(backend)
    rows, cols, n = state.rows, state.cols, state.n
    fact = factorials(n)
    cls = int(rules.state_class(np.array(goal_board(rows, cols, state.goal).tiles, np.int64), n, cols))
    xp = namespace_for(backend)
    if xp is not np:  # the table and the frontier move to the device once, for the whole run
        state.packed, state.frontier = xp.asarray(state.packed), xp.asarray(state.frontier)
        d.transfers.h2d(state.packed.nbytes + state.frontier.nbytes)
    added = 0
    try:
        while len(state.frontier) and (max_layers is None or added < max_layers):
            t0 = work_clock()
            value = (state.depth + 1) % 15
            parts = []
            for lo in range(0, len(state.frontier), chunk):
                ranks = state.frontier[lo:lo + chunk]
                if backend.kind == "cpu":
                    out = np.empty((len(ranks), 4), dtype=np.int64)
                    d.bfs_expand_batch(ranks, rows, cols, cls, fact, out)
                    buf = np.empty(out.size, dtype=np.int64)
                    m = d.bfs_mark(out, state.packed, value, buf)
                    parts.append(buf[:m].copy())
                else:
                    cxp, children = d.bfs_children(ranks, rows, cols, cls, fact)
                    parts.append(mark_new_nibbles(cxp, children, state.packed, value))
            nxt = xp.concatenate(parts) if parts else xp.empty(0, np.int64)
            state.seconds += work_clock() - t0
            if len(nxt) == 0:
                break
            state.frontier = nxt
            state.depth_counts.append(int(len(nxt)))
            added += 1
            if on_layer is not None:
                on_layer(state)
    finally:
        if xp is not np:
            state.packed, state.frontier = to_host(state.packed), to_host(state.frontier)
            d.transfers.d2h(state.packed.nbytes + state.frontier.nbytes)
        state.transfers = transfers_of(d)
    return state


def bfs_done(state: BFSState) -> bool:
    """True once every state of the parity class (n!/2) has been reached."""
    return sum(state.depth_counts) == math.factorial(state.n) // 2


def unrank(rank: int, rows: int, cols: int, goal: str) -> Board:
    n = rows * cols
    fact = factorials(n)
    cls = int(rules.state_class(np.array(goal_board(rows, cols, goal).tiles, np.int64), n, cols))
    board = np.zeros(n, np.int64)
    rules.unrank_state(int(rank), n, cols, cls, fact, board, np.zeros(n, np.int64))
    return Board(rows, cols, tuple(int(v) for v in board))


def rank(board: Board) -> int:
    return int(rules.rank_state(np.array(board.tiles, np.int64), board.n, factorials(board.n)))


def bfs_result(state: BFSState, backend: Backend, n_hardest: int = 10) -> BFSResult:
    counts = state.depth_counts
    total = sum(counts)
    hardest = [unrank(int(r), state.rows, state.cols, state.goal).text() for r in np.sort(state.frontier)[:n_hardest]]
    return BFSResult(size=f"{state.rows}x{state.cols}", goal=state.goal, states=total, max_depth=len(counts) - 1,
                     depth_counts=list(counts), mean_depth=sum(d * c for d, c in enumerate(counts)) / total,
                     hardest_count=int(counts[-1]), hardest=hardest, seconds=state.seconds, backend=backend.name,
                     table_bytes=int(state.packed.nbytes), **state.transfers)


def bfs(rows: int, cols: int, goal: str, backend: Backend, **kw) -> tuple[BFSResult, BFSState]:
    state = bfs_run(bfs_start(rows, cols, goal), backend, **kw)
    return bfs_result(state, backend), state


def entry(packed: np.ndarray, r: int) -> int:
    b = int(packed[r >> 1])
    return (b >> 4) if r & 1 else (b & 0x0F)


def table_distance(packed: np.ndarray, board: Board, goal: str) -> int:
    """A board's exact distance from a BFS table of ``depth % 15`` entries.

    Walk downhill: a neighbour of a state at depth d is at d-1, d or d+1, and only d-1 has entry (e-1) % 15, so
    following such neighbours reaches the goal in exactly d steps.
    """
    target = goal_board(board.rows, board.cols, goal)
    ok, why = solvability(board, target)
    if not ok:
        raise PuzzleInputError(f"board {board.text()}: {why}")
    steps = 0
    while board != target:
        e = entry(packed, rank(board))
        for dname in DIRECTIONS:
            try:
                nb = replay(board, [dname])[1]
            except PuzzleInputError:
                continue
            if entry(packed, rank(nb)) == (e - 1) % 15:
                board = nb
                break
        else:
            raise AssertionError("no downhill neighbour: the table is inconsistent")
        steps += 1
    return steps


# -- IDA* --------------------------------------------------------------------------------------------------------

@dataclass
class SolveResult:
    board: str
    size: str
    goal: str
    solvable: bool
    explanation: str
    length: int | None
    moves: list[int] | None  # tile numbers moved, in order
    directions: str | None  # the blank's moves, U/D/L/R
    nodes: int
    iterations: int
    initial_h: int | None
    seconds: float
    heuristic: str
    backend: str

    def to_json(self) -> dict:
        return dict(self.__dict__)


_STAND_INS: dict[int, tuple] = {}


def _tables(heuristic: str, rows: int, cols: int, pdbs=None):
    """The heuristic's arrays for ida_batch (empty stand-ins unless pattern databases are used); the same objects
    at every call, so a CUDA launcher uploads them once."""
    n = rows * cols
    if heuristic != "pdb":
        if n not in _STAND_INS:
            _STAND_INS[n] = (np.zeros(1, np.uint8), np.zeros((0, 1), np.int64), np.zeros(0, np.int64),
                             np.zeros(0, np.int64), np.zeros(n, np.int64), np.arange(n, dtype=np.int64), 0)
        return _STAND_INS[n]
    if pdbs is None:
        raise ValueError("heuristic 'pdb' needs pattern databases")
    return pdbs.kernel_arrays()


tables_for = _tables  # public name: batch IDA* (split.py) takes the same arrays

_warm: set = set()  # (backend kind, table types) already compiled


class NodeLimit(PuzzleInputError):
    """A board not solved within its node limit (``max_nodes``)."""


#: boards of this many cells or more get a node limit by default when no pattern database guides them (IDA* with
#: linear conflicts may run for days on a 5x5 or a 6x6)
LARGE_CELLS = 25
DEFAULT_LARGE_MAX_NODES = 100_000_000  # about half a minute on one core


def default_max_nodes(rows: int, cols: int, heuristic: str) -> int | None:
    """The node limit a board gets when none is given: none up to 4x4 or with pattern databases, else
    :data:`DEFAULT_LARGE_MAX_NODES`."""
    return DEFAULT_LARGE_MAX_NODES if rows * cols >= LARGE_CELLS and heuristic != "pdb" else None


def solve_batch(boards: list[Board], goal: str, heuristic: str, backend: Backend, *, pdbs=None,
                max_len: int = 250, on_done=None, kernels=None, max_nodes: int | None = None) -> list[SolveResult]:
    """Optimal solutions of every board (IDA*); one batch on the backend, unsolvable boards answered at once.

    ``max_nodes``: give up (:class:`NodeLimit`) on a board that expanded this many nodes without a solution
    (default :func:`default_max_nodes`: a limit only for large boards without pattern databases).
    A board's ``seconds`` is its measured time alone, in a batch its share of the batch's time in proportion to
    its nodes (the boards of a batch run together).

    ``kernels``: the run's launcher (:func:`drivers`), so that the batches of one run share its device memory (the
    pattern database goes to the device once per run) and its transfer counts; a new one when not given.
    """
    if heuristic not in HEURISTICS:
        raise PuzzleInputError(f"--heuristic: {heuristic!r} is not one of {', '.join(HEURISTICS)}")
    results: list[SolveResult | None] = [None] * len(boards)
    todo = []
    for i, b in enumerate(boards):
        ok, why = solvability(b, goal_board(b.rows, b.cols, goal))
        if not ok:
            results[i] = SolveResult(b.text(), f"{b.rows}x{b.cols}", goal, False, why, None, None, None, 0, 0, None,
                                     0.0, heuristic, backend.name)
        else:
            todo.append((i, b, why))
    if todo:
        rows, cols = todo[0][1].rows, todo[0][1].cols
        if any((b.rows, b.cols) != (rows, cols) for _, b, _ in todo):
            raise PuzzleInputError("a batch must hold boards of one size")
        if max_nodes is None:
            max_nodes = default_max_nodes(rows, cols, heuristic)
        arr = np.array([to_blank_first(b, goal).tiles for _, b, _ in todo], dtype=np.int64)
        paths = np.zeros((len(todo), max_len), np.int64)
        stats = np.zeros((len(todo), rules.STATS_WIDTH), np.int64)
        tables = _tables(heuristic, rows, cols, pdbs)
        ida_batch = (kernels or drivers(backend)).ida_batch
        key = (backend.kind, tables[0].dtype.str, isinstance(tables[0], np.memmap))
        if key not in _warm:  # compile on a solved board first, so that `seconds` is search time, not numba's
            ida_batch(arr[:1] * 0 + np.arange(rows * cols), rows, cols, HEURISTICS[heuristic], max_len, *tables,
                      paths[:1].copy(), stats[:1].copy())
            _warm.add(key)
        t0 = work_clock()
        ida_launches(ida_batch, arr, rows, cols, HEURISTICS[heuristic], max_len, tables, paths, stats,
                     max_nodes=max_nodes)
        seconds = work_clock() - t0
        total_nodes = max(int(stats[:, 1].sum()), 1)
        for j, (i, b, why) in enumerate(todo):
            length, nodes, status, iters, h0 = (int(v) for v in stats[j, :5])
            if status == rules.ST_BUDGET:
                raise NodeLimit(f"board {b.text()}: no solution found within {max_nodes:,} nodes of IDA* with "
                                f"{heuristic} (raise --max-nodes, or use pattern databases)")
            if status != rules.ST_SOLVED:
                raise PuzzleInputError(f"board {b.text()}: no solution within {max_len} moves (raise --max-len)")
            dirs_bf = "".join(DIRECTIONS[int(d)] for d in paths[j, :length])
            dirs = "".join(direction_from_blank_first(c, goal) for c in dirs_bf)
            walk = replay(b, list(dirs))  # independent check: the moves are legal and end on the goal
            if walk[-1] != goal_board(rows, cols, goal):
                raise AssertionError(f"IDA* path for {b.text()} does not reach the goal")
            moves = []
            for a, c in zip(walk, walk[1:]):
                moves.append(a.tiles[c.blank])
            results[i] = SolveResult(b.text(), f"{rows}x{cols}", goal, True, why, length, moves, dirs, nodes, iters,
                                     h0, seconds * nodes / total_nodes if len(todo) > 1 else seconds, heuristic,
                                     backend.name)
    out = [r for r in results if r is not None]
    if on_done is not None:
        on_done(out)
    return out


def ida_launches(ida_batch, boards: np.ndarray, rows: int, cols: int, hkind: int, max_len: int, tables,
                 paths: np.ndarray, stats: np.ndarray, planner=None, max_nodes: int | None = None) -> int:
    """Run IDA* on every board in launches that each last about a second (:mod:`puzzlebatch.runners.engine.launch`):
    every launch gives its boards a node budget, and a board stopped by it resumes exactly where it stood in the
    next one, so the solutions and node counts are those of one unbounded launch.  Ctrl-C is seen between
    launches.  A board that expanded ``max_nodes`` nodes unsolved is left stopped (status ``ST_BUDGET``).
    Fills ``paths`` and ``stats``; returns the number of launches."""
    from puzzlebatch.runners.engine.launch import LaunchPlanner, launch_seconds

    # A resumed board first replays its path (up to max_len moves): budgets below a few thousand nodes would
    # spend more time replaying than searching.
    planner = planner or LaunchPlanner(1 << 40, len(boards), launch_seconds(), min_budget=4096)
    stats[:, 2] = 0
    active = np.arange(len(boards))
    launches = 0
    while len(active):
        k, budget = planner.plan(len(active))
        idx = active[:k]
        if max_nodes is not None:  # no launch runs far past the limit
            budget = max(4096, min(budget, max_nodes - int(stats[idx, 1].min())))
        sub_paths, sub_stats = paths[idx], stats[idx]
        sub_stats[:, 5] = budget
        before = int(sub_stats[:, 1].sum())
        t0 = work_clock()
        ida_batch(boards[idx], rows, cols, hkind, max_len, *tables, sub_paths, sub_stats)
        planner.record(int(sub_stats[:, 1].sum()) - before, work_clock() - t0)
        paths[idx], stats[idx] = sub_paths, sub_stats
        launches += 1
        stopped = stats[active, 2] == rules.ST_BUDGET
        if max_nodes is not None:
            stopped &= stats[active, 1] < max_nodes
        active = np.concatenate([active[:k][stopped[:k]], active[k:]])
    return launches


def solve(board: Board, goal: str, heuristic: str, backend: Backend, **kw) -> SolveResult:
    return solve_batch([board], goal, heuristic, backend, **kw)[0]
