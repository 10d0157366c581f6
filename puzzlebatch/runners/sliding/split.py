"""Batch IDA* for one board (the 24-puzzle's search): the root split into work items, one bounded iteration of
all of them a launch (:func:`solve_split`), on the CPU threads or one CUDA thread an item, from the same rule
(:func:`puzzlebatch.puzzles.sliding.rules.dfs_item`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.jit.clock import work_clock
from puzzlebatch.puzzles.sliding import rules
from puzzlebatch.puzzles.sliding.model import DIRECTIONS, Board, direction_from_blank_first, goal_board, replay, \
    solvability, to_blank_first
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.sliding.solver import HEURISTICS, NodeLimit, SolveResult, drivers, tables_for


@dataclass
class SplitPoints:
    """The nodes at a fixed depth below a root (every blank path of that length that never undoes its last
    move), the work items of :func:`solve_split`: blank-first boards, their depth, last move and moves."""

    boards: np.ndarray  # (items, n) int64
    depth: int
    prev: np.ndarray  # (items,) the last blank direction of each path
    moves: np.ndarray  # (items, depth) blank directions from the root
    prefix_nodes: int  # nodes generated above and at the split depth (every iteration generates them again)


def split_points(tiles: np.ndarray, rows: int, cols: int, depth: int) -> SplitPoints:
    """Every node ``depth`` moves below ``tiles`` (a blank-first board), in move order (U, D, L, R first)."""
    level = [(np.asarray(tiles, np.int64).copy(), [])]
    generated = 0
    for _ in range(depth):
        nxt = []
        for board, moves in level:
            blank = int(np.flatnonzero(board == 0)[0])
            for d in range(4):
                if moves and d == (moves[-1] ^ 1):
                    continue
                t = rules.blank_target(blank, d, rows, cols)
                if t < 0:
                    continue
                child = board.copy()
                child[blank], child[t] = child[t], 0
                nxt.append((child, moves + [d]))
        generated += len(nxt)
        level = nxt
    n = rows * cols
    boards = np.array([b for b, _ in level], np.int64).reshape(len(level), n)
    moves = np.array([m for _, m in level], np.int64).reshape(len(level), depth)
    prev = moves[:, -1].copy() if depth else np.full(len(level), -1, np.int64)
    return SplitPoints(boards, depth, prev, moves, generated)


@dataclass
class SplitIteration:
    """Progress of :func:`solve_split` after one iteration: its bound, the nodes so far, the work items."""

    iteration: int
    bound: int
    nodes: int
    items: int
    seconds: float
    solved: bool
    next_bound: int | None = None  # the bound the next iteration searches (None: solved)


def split_depth(rows: int, cols: int, tiles: np.ndarray, items: int, h0: int) -> int:
    """The least depth with at least ``items`` nodes below the root, kept below ``h0`` (no solution is shorter
    than ``h0``, so none ends above the split).  Counts the paths by the blank's cell and last move alone."""
    blank = int(np.flatnonzero(np.asarray(tiles) == 0)[0])
    level = {(blank, -1): 1}  # (blank cell, last move) -> paths
    depth, total = 0, 1
    while total < items and depth + 1 < h0:
        nxt: dict[tuple[int, int], int] = {}
        for (c, last), k in level.items():
            for d in range(4):
                t = rules.blank_target(c, d, rows, cols)
                if t >= 0 and not (last >= 0 and d == (last ^ 1)):
                    nxt[(t, d)] = nxt.get((t, d), 0) + k
        level = nxt
        depth += 1
        total = sum(level.values())
    return depth


def solve_split(board: Board, goal: str, heuristic: str, backend: Backend, *, pdbs=None, max_len: int = 250,
                items: int = 1024, depth: int | None = None, kernels=None, start_bound: int | None = None,
                on_iteration=None, max_nodes: int | None = None, pool=None) -> SolveResult:
    """Batch IDA* for one board: the nodes ``depth`` moves below the root are the work items, and each iteration
    searches all of them with its bound in one launch (CPU threads or CUDA threads, ``dfs_batch``), stopping
    each at its first goal.  The next bound is the least ``f`` any item cut off.  The solution is the first
    solved item's (in move order); the last iteration counts the nodes of the items up to that one (a backend
    may skip the later ones), so the path and the node count do not depend on the backend.

    ``nodes`` counts the items' nodes plus the nodes above the split (generated again every iteration, none cut
    off there): close to :func:`solve_batch`'s count, not equal.
    ``depth`` defaults to the least depth with ``items`` work items; it is kept below the root's ``h`` (no
    solution ends above it).  ``start_bound`` resumes from an iteration's bound (:class:`SplitIteration`, passed
    to ``on_iteration`` after each).  ``max_nodes``: :class:`NodeLimit` once an iteration ends past it.
    ``pool``: a Dask pool (:func:`puzzlebatch.runners.engine.distributed.open_pool`): every iteration's items go
    to its workers in slices, which read the pattern databases from ``pdbs``' folder; the same solution and nodes.
    """
    if heuristic not in HEURISTICS:
        raise PuzzleInputError(f"--heuristic: {heuristic!r} is not one of {', '.join(HEURISTICS)}")
    target = goal_board(board.rows, board.cols, goal)
    ok, why = solvability(board, target)
    if not ok:
        return SolveResult(board.text(), f"{board.rows}x{board.cols}", goal, False, why, None, None, None, 0, 0,
                           None, 0.0, heuristic, backend.name)
    rows, cols = board.rows, board.cols
    hk = HEURISTICS[heuristic]
    tables = tables_for(heuristic, rows, cols, pdbs)
    dfs_batch = (kernels or drivers(backend)).dfs_batch
    root = np.array([to_blank_first(board, goal).tiles], np.int64)

    def launch(boards, g0, prev, bound):
        if pool is not None and pool.distributed and len(boards) > 1:
            return _launch_on_pool(pool, board, heuristic, pdbs, max_len, boards, g0, prev, bound)
        paths = np.zeros((len(boards), max_len), np.int64)
        stats = np.zeros((len(boards), rules.DFS_STATS_WIDTH), np.int64)
        dfs_batch(boards, rows, cols, hk, max_len, *tables, g0, prev, bound, paths, stats)
        return paths, stats

    _, st = launch(root, np.zeros(1, np.int64), np.full(1, -1, np.int64), -1)  # the root's h (nothing searched)
    h0 = int(st[0, 3])
    if depth is None:
        depth = split_depth(rows, cols, root[0], items, h0)
    elif depth >= max(h0, 1):
        raise PuzzleInputError(f"split depth {depth}: must be below the board's heuristic value {h0}")
    sp = split_points(root[0], rows, cols, depth)
    g0 = np.full(len(sp.boards), depth, np.int64)
    bound = h0 if start_bound is None else max(int(start_bound), h0)
    nodes, iteration, found = 0, 0, None
    t0 = work_clock()
    while found is None:
        if bound > max_len:
            raise PuzzleInputError(f"board {board.text()}: no solution within {max_len} moves (raise --max-len)")
        paths, st = launch(sp.boards, g0, sp.prev, bound)
        iteration += 1
        solved = np.flatnonzero(st[:, 2] == rules.ST_SOLVED)
        if len(solved):  # the items after the first solved one are not counted (a backend may skip them)
            j = int(solved[0])
            found = list(sp.moves[j]) + list(paths[j, :int(st[j, 0]) - depth])
            nodes += sp.prefix_nodes + int(st[:j + 1, 1].sum())
        else:
            nodes += sp.prefix_nodes + int(st[:, 1].sum())
        nxt = None if found is not None else int(st[:, 3].min())
        if nxt == rules.NO_BOUND:
            raise AssertionError(f"board {board.text()}: the search space ran out (a solvable board)")
        if on_iteration is not None:
            on_iteration(SplitIteration(iteration, bound, nodes, len(sp.boards), work_clock() - t0, bool(len(solved)),
                                        nxt))
        if found is not None:
            break
        if max_nodes is not None and nodes >= max_nodes:
            raise NodeLimit(f"board {board.text()}: no solution found within {max_nodes:,} nodes of batch IDA* "
                            f"with {heuristic} (bound {bound}; resume from {nxt} with a larger limit)")
        bound = nxt
    seconds = work_clock() - t0
    dirs_bf = "".join(DIRECTIONS[int(d)] for d in found)
    dirs = "".join(direction_from_blank_first(c, goal) for c in dirs_bf)
    walk = replay(board, list(dirs))  # independent check: the moves are legal and end on the goal
    if walk[-1] != target:
        raise AssertionError(f"batch IDA* path for {board.text()} does not reach the goal")
    moves = [a.tiles[c.blank] for a, c in zip(walk, walk[1:])]
    return SolveResult(board.text(), f"{rows}x{cols}", goal, True, why, len(found), moves, dirs, nodes, iteration,
                       h0, seconds, heuristic, backend.name)


def _launch_on_pool(pool, board: Board, heuristic: str, pdbs, max_len: int, boards, g0, prev, bound):
    """One iteration's items in slices on a Dask pool (about four a worker); their rows back in item order."""
    from puzzlebatch.runners.engine.distributed import map_ordered
    from puzzlebatch.runners.sliding.dist import SplitTask

    if pdbs is not None and pdbs.compress:
        raise PuzzleInputError("batch IDA* on a cluster: the workers read the tables uncompressed")
    task = SplitTask(board.rows, board.cols, heuristic, pool.backend_request, pdbs.name if pdbs else None,
                     str(pdbs.files[0].parent) if pdbs else None, bool(pdbs.packed) if pdbs else False, max_len,
                     int(bound))
    step = max(1, -(-len(boards) // (4 * pool.n_workers)))
    jobs = [(boards[i:i + step], g0[i:i + step], prev[i:i + step]) for i in range(0, len(boards), step)]
    parts = list(map_ordered(pool, task, jobs))
    return np.concatenate([r["paths"] for r in parts]), np.concatenate([r["stats"] for r in parts])
