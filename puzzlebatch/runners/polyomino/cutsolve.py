"""Random-cut puzzles solved back fast: a scan-order first-solution search over shape classes with counts, run as a
portfolio of randomised restarts with a growing node budget on the batch DFS (CPU ``prange`` or CUDA, the same
rules: :mod:`puzzlebatch.puzzles.polyomino.cutsearch_rules`).

* :func:`build` turns a board mask and the class pieces into the rules' tables and a root state;
* :func:`solve` runs rounds of ``portfolio`` items (each its own class order and per-node rotation seed) with a
  node budget that grows by ``growth`` each round, until one item finds a tiling (or the time limit); the search
  of each item is complete, so with an unlimited budget "no tiling" is a proof;
* the winning state is decoded into placements, mapped to the input pieces, and validated independently
  (:func:`puzzlebatch.runners.polyomino.large.validate_tiling`) before it is returned.

The board is transposed when it is wider than tall, so rows (the frontier of the scan) are the short side.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.polyomino import cutsearch_rules as R
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.puzzles.search import BUDGET, DONE, NO_MEMO, OUT_DEPTH, OUT_NODES, OUT_STATUS, OUT_WIDTH, STOPPED
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.twins import twin


@dataclass
class Problem:
    tables: np.ndarray
    root: np.ndarray  # root state without its seed and class order
    goal: int  # pieces to place
    w: int
    h: int
    transposed: bool
    orient_cells: list[np.ndarray]  # per orientation: (n, 2) offsets from the anchor, in search coordinates
    orient_class: np.ndarray
    n_classes: int


def _anchor_sorted(cells) -> np.ndarray:
    """Cells sorted in scan order (y, then x), as offsets from the first one."""
    arr = np.array(sorted(cells, key=lambda c: (c[1], c[0])), np.int64)
    return arr - arr[0]


def build(mask: np.ndarray, classes: Sequence[S.Piece], limit: int | None = None, rotate: int = 2,
          window: int | None = None, endgame: int | None = None, weights: str = "stiff",
          classcheck: int | None = None, goal: int | None = None) -> Problem:
    """Tables and root state for a board ``mask`` (``[h, w]`` bool, True = to cover) and class pieces.

    ``goal`` (the depth of a solution) is the number of pieces by default, and the pieces must cover the board
    exactly; given, the tables serve several boxes of the same size at once (the regions of
    :mod:`puzzlebatch.runners.polyomino.regions`, each its own counts and a root at ``goal`` minus its pieces)."""
    h0, w0 = mask.shape
    transposed = w0 > h0
    m = mask.T if transposed else mask
    h, w = m.shape
    area = int(m.sum())
    sizes = [p.size for p in classes]
    if goal is None and sum(p.size * p.count for p in classes) != area:
        raise PuzzleInputError(f"--pieces: the pieces cover {sum(p.size * p.count for p in classes)} cells, "
                               f"the board has {area}; a cut puzzle uses every piece once")
    orients, ocls = [], []
    cls_o = [0]
    for k, p in enumerate(classes):
        cells = p.cells if not transposed else frozenset((y, x) for x, y in p.cells)
        for o in orientations2d(cells, p.turns):
            orients.append(_anchor_sorted(o))
            ocls.append(k)
        cls_o.append(len(orients))
    or_c = np.concatenate([[0], np.cumsum([len(o) for o in orients])]).astype(np.int64)
    dx = np.concatenate([o[:, 0] for o in orients]).astype(np.int64)
    dy = np.concatenate([o[:, 1] for o in orients]).astype(np.int64)
    nc = len(classes)
    omax = max(cls_o[k + 1] - cls_o[k] for k in range(nc))
    minsize, maxsize = min(sizes), max(sizes)
    if limit is None:
        limit = min(62, 2 * maxsize + 2)
    goal = sum(p.count for p in classes) if goal is None else int(goal)
    n_or = np.diff(np.array(cls_o, np.int64))
    cls_w = {"count": np.ones(nc, np.int64), "stiff": 9 - n_or, "stiff2": (9 - n_or) ** 2}[weights]
    parts = {"cls_o": np.array(cls_o, np.int64), "or_c": or_c, "dx": dx, "dy": dy,
             "size": np.array(sizes, np.int64), "w": cls_w.astype(np.int64)}
    header = np.zeros(R.HEADER, np.int64)
    header[[R.T_W, R.T_H, R.T_C, R.T_OMAX, R.T_GOAL]] = [w, h, nc, omax, goal]
    header[[R.T_MINSIZE, R.T_MAXSIZE, R.T_LIMIT, R.T_ROTATE]] = [minsize, maxsize, limit, rotate]
    header[R.T_SMAX] = maxsize
    header[R.T_WINDOW] = w if window is None else window
    header[R.T_ENDGAME] = min(16, max(1, h // 2)) * w if endgame is None else endgame  # rows: 16, half a small board
    header[R.T_CLSCHK] = (4 * w if classcheck is None else classcheck)
    off = R.HEADER
    for key, slot in [("cls_o", R.T_CLS_O), ("or_c", R.T_OR_C), ("dx", R.T_DX), ("dy", R.T_DY),
                      ("size", R.T_CLS_SIZE), ("w", R.T_CLS_W)]:
        header[slot] = off
        off += len(parts[key])
    # state layout
    n = w * h
    layout = [(R.S_GRID, n), (R.S_COUNT, nc), (R.S_POS, goal + 1), (R.S_REC, goal + 1), (R.S_MARK, n),
              (R.S_BR, goal + 1), (R.S_ANC, goal + 1), (R.S_ROT, goal + 1),
              (R.S_STACK, limit + 4), (R.S_STAMP, 1), (R.S_SEED, 1), (R.S_ORDER, nc)]
    so = 0
    for slot, size in layout:
        header[slot] = so
        so += size
    header[R.S_WIDTH] = so
    tables = np.concatenate([header] + [parts[k] for k in ["cls_o", "or_c", "dx", "dy", "size", "w"]]).astype(np.int64)
    root = np.zeros(so, np.int64)
    root[header[R.S_GRID]:header[R.S_GRID] + n] = np.where(m.reshape(-1), 0, 1)
    root[header[R.S_COUNT]:header[R.S_COUNT] + nc] = [p.count for p in classes]
    free = np.flatnonzero(m.reshape(-1))
    root[header[R.S_POS]] = free[0] if len(free) else n
    root[header[R.S_MARK]:header[R.S_MARK] + n] = -1
    if goal:
        _host_rules().branch_cell(root, 0, tables)
    return Problem(tables, root, goal, w, h, transposed, orients, np.array(ocls, np.int64), nc)


def _host_rules():
    """The rules compiled for the CPU (host-side steps of every backend)."""
    from puzzlebatch.cpu_fallback.polyomino_cut import rules

    return rules()


def seeded(pb: Problem, seed: int, order: str = "random") -> np.ndarray:
    """The root state of one portfolio item: its seed and its class order."""
    t = pb.tables
    s = pb.root.copy()
    s[t[R.S_SEED]] = seed
    rng = np.random.default_rng(seed)
    nc = pb.n_classes
    counts = pb.root[t[R.S_COUNT]:t[R.S_COUNT] + nc]
    sizes = t[t[R.T_CLS_SIZE]:t[R.T_CLS_SIZE] + nc]
    if order == "random":
        perm = rng.permutation(nc)
    elif order == "weighted":  # more copies first (a random order weighted by the counts)
        key = rng.random(nc) ** (1.0 / np.maximum(counts, 1))
        perm = np.argsort(-key, kind="stable")
    elif order == "big":  # larger pieces first (small ones stay for the end), random among equal sizes
        perm = np.lexsort((rng.random(nc), -sizes))
    elif order == "bigweighted":  # larger pieces first, more copies first among equal sizes (randomised)
        key = rng.random(nc) ** (1.0 / np.maximum(counts, 1))
        perm = np.lexsort((-key, -sizes))
    elif order == "rare":  # fewest copies first, larger pieces first among equals
        perm = np.lexsort((rng.random(nc), -sizes, counts))
    else:
        raise ValueError(order)
    s[t[R.S_ORDER]:t[R.S_ORDER] + nc] = perm
    _host_rules().set_rotation(s, 0, t)
    return s


def decode(pb: Problem, state: np.ndarray) -> list[tuple[int, list[tuple[int, int]]]]:
    """(class, cells in board coordinates) of every placement of a solved state."""
    t = pb.tables
    out = []
    for d in range(pb.goal):
        a = int(state[t[R.S_ANC] + d])
        o = int(state[t[R.S_REC] + d])
        ax, ay = a % pb.w, a // pb.w
        cells = [(ax + int(dx), ay + int(dy)) for dx, dy in pb.orient_cells[o]]
        if pb.transposed:
            cells = [(y, x) for x, y in cells]
        out.append((int(pb.orient_class[o]), cells))
    return out


@dataclass
class CutSearch:
    solved: bool
    placements: list[tuple[int, list[tuple[int, int]]]]  # (class, cells)
    nodes: int
    rounds: int
    items: int
    seconds: float
    backend: str
    proved_none: bool = False
    winner_seed: int | None = None
    budgets: list[int] = field(default_factory=list)


def luby(i: int) -> int:
    """The i-th term (from 1) of Luby's sequence 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ... (Luby, Sinclair, Zuckerman
    1993: the universal restart schedule)."""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while True:
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1


def round_budget(budget: int, nodes: int, seconds: float, left: float, items: int, floor: int = 2_000) -> int:
    """A round's node budget under a time limit: ``budget``, cut to the nodes that fit in ``left`` seconds at
    the rate of the rounds so far (``nodes`` in ``seconds``, ``items`` searching side by side); before any rate
    is known, ``floor`` nodes an item."""
    if nodes <= 0 or seconds <= 0:
        return min(budget, floor)
    per_item = nodes / seconds / max(1, items)
    return int(max(1, min(budget, per_item * left)))


def _rewind(pb: Problem, state: np.ndarray, stack: np.ndarray, depth: int, to: int) -> None:
    """Undo the moves of an item from ``depth`` back to ``to`` (the plain rules, on the host)."""
    undo = _host_rules().undo
    for d in range(depth - 1, to - 1, -1):
        undo(state, d, int(stack[d]) - 1, pb.tables)


def solve(mask: np.ndarray, classes: Sequence[S.Piece], backend: Backend, seed: int = 0, portfolio: int | None = None,
          budget: int | None = None, growth: float = 2.0, time_limit: float | None = None,
          order: str = "random", rotate: int = 2, endgame: int | None = None, window: int | None = None,
          back: int = 16, weights: str = "stiff", classcheck: int | None = None, rewind: str = "luby",
          on_round: Callable[[int, int, int], None] | None = None,
          clock: Callable[[], float] | None = None) -> CutSearch:
    """First tiling of ``mask`` by the class pieces (each copy once).

    A portfolio of items (each its own seed: class order and per-node rotations) runs on the batch DFS with a node
    budget.  An item that runs out of budget at depth ``d`` is rewound ``back * luby(j)`` pieces after its j-th
    consecutive failure (``rewind="double"``: ``back * 2**(j-1)``; the ``undo`` twin on the host), given a fresh
    seed and restarted from there with ``lo = 0``: a randomised restart of the end of its search only, now and then
    from further back, so the restarts climb back when a prefix leaves an unsolvable remainder; an item restarted
    from the root for the r-th time gets ``luby(r)`` times the base budget (Luby's universal schedule: mostly
    short, and unbounded, so on a board
    without tiling an item eventually exhausts the whole tree, which proves there is none).

    ``time_limit`` is honoured between rounds and within them: no round starts after it, and a round's node
    budget is cut to what the nodes-per-second rate measured so far (by ``clock``, wall seconds by default)
    fits in the time left, so a round never runs long past the limit."""
    clock = clock or time.perf_counter
    t0 = clock()  # the time limit is wall time
    w0 = work_clock()  # reported seconds leave compiling out
    pb = build(mask, classes, rotate=rotate, endgame=endgame, window=window, weights=weights,
               classcheck=classcheck)
    d = twin(backend, "search", R, inline=False)  # rules called from many places: not inlined on the CPU
    if portfolio is None:  # CPU: one item per core; a GPU wants many threads (untested on a real device)
        portfolio = 2 if backend.kind == "cpu" else 64
    t = pb.tables
    width = pb.root.shape[0]
    seeds = [seed * 1_000_003 + i for i in range(portfolio)]
    next_seed = seed * 1_000_003 + portfolio
    states = np.stack([seeded(pb, s, order) for s in seeds])
    stacks = np.zeros((portfolio, pb.goal + 2), np.int32)
    roots = np.zeros(portfolio, np.int32)
    los = np.zeros(portfolio, np.int32)
    fails = np.zeros(portfolio, np.int64)
    budgets = np.full(portfolio, int(budget or max(200, 2 * pb.goal)), np.int64)
    root_budget = budgets.copy()  # restarts from the root get root_budget * luby(r): unbounded, so a proof comes
    root_restarts = np.zeros(portfolio, np.int64)
    nodes = 0
    rounds = 0
    t_search = clock()
    while True:
        b = int(budgets.max())
        if time_limit is not None:
            left = time_limit - (clock() - t0)
            if left <= 0:
                return CutSearch(False, [], nodes, rounds, portfolio, work_clock() - w0, backend.name)
            b = round_budget(b, nodes, clock() - t_search, left, portfolio)
        rounds += 1
        sols = np.zeros((portfolio, 1, width), np.int64)
        out = np.zeros((portfolio, OUT_WIDTH), np.int64)
        d.dfs_batch(states, stacks, roots, los, pb.goal, b, 1, 1, sols, out, t, NO_MEMO)
        nodes += int(out[:, OUT_NODES].sum())
        if on_round is not None:
            on_round(rounds, b, nodes)
        won = np.flatnonzero(out[:, OUT_STATUS] == STOPPED)
        if len(won):
            i = int(won[0])
            return CutSearch(True, decode(pb, sols[i, 0]), nodes, rounds, portfolio, work_clock() - w0,
                             backend.name, winner_seed=int(states[i, t[R.S_SEED]]), budgets=[b])
        for i in range(portfolio):
            depth = int(out[i, OUT_DEPTH])
            if out[i, OUT_STATUS] == BUDGET and b < budgets[i]:
                # stopped by the time limit's cut of the budget, not its own: go on from where it is next round
                budgets[i] = max(1, int(budgets[i]) - int(out[i, OUT_NODES]))
                roots[i] = depth
                los[i] = int(stacks[i, depth])
                continue
            if out[i, OUT_STATUS] == DONE:
                if roots[i] == 0:  # the whole tree, searched: no tiling
                    return CutSearch(False, [], nodes, rounds, portfolio, work_clock() - w0, backend.name,
                                     proved_none=True)
                depth = int(roots[i])  # exhausted below its restart point: climb further back
            fails[i] += 1
            steps = (1 << min(int(fails[i]) - 1, 30)) if rewind == "double" else luby(int(fails[i]))
            to = max(0, depth - back * steps)
            if out[i, OUT_STATUS] == DONE:
                to = min(to, depth - 1)
            _rewind(pb, states[i], stacks[i], depth, to)
            states[i, t[R.S_SEED]] = next_seed
            next_seed += 1
            _host_rules().set_rotation(states[i], to, t)
            roots[i] = to
            los[i] = 0
            budgets[i] = max(200, 4 * (depth - to) + 100)
            if to == 0:
                fails[i] = 0
                root_restarts[i] += 1
                budgets[i] = max(budgets[i], int(root_budget[i]) * luby(int(root_restarts[i])))


@dataclass
class CutSolved:
    solved: bool
    placements: list[tuple[int, list[tuple[int, int]]]]  # (piece index in the input list, cells)
    classes: int
    nodes: int
    rounds: int
    seconds: float
    backend: str
    proved_none: bool
    validated: bool


_GROUP = {"free": [(1, 0, 0, 1), (-1, 0, 0, 1), (1, 0, 0, -1), (-1, 0, 0, -1),
                   (0, 1, 1, 0), (0, -1, 1, 0), (0, 1, -1, 0), (0, -1, -1, 0)],
          "rotations": [(1, 0, 0, 1), (0, -1, 1, 0), (-1, 0, 0, -1), (0, 1, -1, 0)]}


def canonical2d(cells, turns: str) -> tuple:
    """The smallest sorted, normalised cell tuple over the turns (the same classes as
    :func:`puzzlebatch.puzzles.polyomino.shapes.canonical`, by explicit 2x2 maps: fast on thousands of pieces)."""
    best = None
    for a, b, c, d in _GROUP.get(turns, [(1, 0, 0, 1)]):
        pts = [(a * x + b * y, c * x + d * y) for x, y in cells]
        mx = min(p[0] for p in pts)
        my = min(p[1] for p in pts)
        key = tuple(sorted((p[0] - mx, p[1] - my) for p in pts))
        if best is None or key < best:
            best = key
    return best


def orientations2d(cells, turns: str) -> list[frozenset]:
    """The distinct orientations of a flat shape under its turns, normalised (the same set as
    :meth:`puzzlebatch.puzzles.polyomino.shapes.Piece.orientations`, by explicit 2x2 maps), in sorted order."""
    seen = set()
    for a, b, c, d in _GROUP.get(turns, [(1, 0, 0, 1)]):
        pts = [(a * x + b * y, c * x + d * y) for x, y in cells]
        mx = min(p[0] for p in pts)
        my = min(p[1] for p in pts)
        seen.add(tuple(sorted((p[0] - mx, p[1] - my) for p in pts)))
    return [frozenset(o) for o in sorted(seen)]


def shape_classes(pieces: Sequence[S.Piece]) -> tuple[list[S.Piece], list[list[int]]]:
    """Like :func:`puzzlebatch.runners.polyomino.large.shape_classes` (class pieces with counts, members per
    class), with :func:`canonical2d` for flat pieces."""
    from puzzlebatch.runners.polyomino import large as L

    if any(p.dim != 2 for p in pieces):
        return L.shape_classes(pieces)
    by_key: dict[tuple, list[int]] = {}
    canon: dict = {}  # pieces of the same cells and turns (most of a large cut) share their canonical form
    for i, p in enumerate(pieces):
        if p.count != 1:
            raise PuzzleInputError(f"--pieces: {p.name} has count={p.count}; a cut puzzle takes single pieces")
        key = (p.cells, p.turns)
        if key not in canon:
            canon[key] = canonical2d(p.cells, p.turns)
        by_key.setdefault((p.turns, canon[key]), []).append(i)
    classes, members = [], []
    width = max(2, len(str(len(by_key))))
    for n, ((turns, _), idx) in enumerate(by_key.items()):
        p = pieces[idx[0]]
        classes.append(S.Piece(f"C{n + 1:0{width}d}", p.cells, turns, len(idx), "shape class"))
        members.append(idx)
    return classes, members


def solve_pieces(board, pieces: Sequence[S.Piece], backend: Backend, seed: int = 0, time_limit: float | None = None,
                 portfolio: int | None = None, **kw) -> CutSolved:
    """Solve a cut puzzle given as a :class:`~puzzlebatch.puzzles.polyomino.packing.Board` and its pieces (each
    once): shape classes, :func:`solve`, placements mapped back to the input pieces, validated independently."""
    from puzzlebatch.runners.polyomino import large as L

    w0 = work_clock()
    t0 = time.perf_counter()  # the time limit covers the classes and the tables too
    if board.dim != 2:
        raise PuzzleInputError("--method cut: flat boards only")
    classes, members = shape_classes(pieces)
    w, h = board.size
    mask = np.zeros((h, w), bool)
    for x, y in board.playable:
        mask[y, x] = True
    res = solve(mask, classes, backend, seed=seed, portfolio=portfolio,
                time_limit=None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - t0)),
                **kw)
    placements = []
    if res.solved:
        nxt = [0] * len(classes)
        for k, cells in res.placements:
            placements.append((members[k][nxt[k]], cells))
            nxt[k] += 1
        L.validate_tiling(pieces, w, h, placements, mask)
    return CutSolved(res.solved, placements, len(classes), res.nodes, res.rounds, work_clock() - w0,
                     res.backend, res.proved_none, res.solved)


def is_cut_puzzle(board, pieces: Sequence[S.Piece]) -> bool:
    """Every piece once, flat, covering the board exactly, nothing pre-placed: what :func:`solve_pieces` takes."""
    return (board.dim == 2 and not board.placed and all(p.count == 1 and p.dim == 2 for p in pieces)
            and sum(p.size for p in pieces) == board.n_cells)
