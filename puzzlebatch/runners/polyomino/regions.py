"""Random-cut puzzles of large boards solved back region by region: independent work items, a repair step where
regions meet, every core.  (One search, :mod:`~puzzlebatch.runners.polyomino.cutsolve`, thrashes in the end game of
a board of a few hundred cells a side, on one core.)  The board is split into a grid of boxes of at most
``region x region`` cells:

* **allocation** — the pieces are shuffled (the seed) and dealt so that each box gets exactly its area (a piece is
  taken when the area left stays a sum of the sizes present): a random sample, tileable almost always;
* **independent work items** — the boxes share one padded size, so one set of tables, and are the items of one
  batch DFS (CPU ``prange``, or CUDA threads; the rules of :mod:`puzzlebatch.puzzles.polyomino.cutsearch_rules`);
  a box of ``k`` pieces starts at depth ``G - k`` (``G``: the most pieces of a box), so one solution depth serves
  all.  Each item has its own randomised restarts (as :func:`~puzzlebatch.runners.polyomino.cutsolve.solve`) and
  leaves the batch when solved; on a Dask cluster (``--scheduler``) groups of boxes are tasks;
* **repair at the seams** — a box proved without a tiling by its pieces, or past its node allowance, is merged
  with a neighbouring box (its tiling lifted) and the union solved with the pieces of both, growing if needed;
* the tiling (``labels[y, x]`` = the input piece on each cell) is validated from scratch by the caller.

Work, memory and time grow linearly with the area; a run is checkpointed and resumed as the labels, the boxes
done and the components repaired together (the allocation is reproduced from the seed).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from puzzlebatch.puzzles.polyomino import cutsearch_rules as R
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.puzzles.search import BUDGET, DONE, NO_MEMO, OUT_DEPTH, OUT_NODES, OUT_STATUS, OUT_WIDTH, STOPPED

#: default side of a region in cells (measured: a 100x100 box of random-cut pieces is solved in about a second)
REGION = 100
#: boards of at least this many cells are solved region by region by ``--method cut`` (smaller: one search)
REGION_AUTO_CELLS = 40_000


@dataclass
class Plan:
    """How the board is split: boxes ``(x0, y0, x1, y1)`` of the same padded size ``bw x bh``, the input pieces
    dealt to each box, and the shape class of every input piece."""

    w: int
    h: int
    boxes: list[tuple[int, int, int, int]]
    alloc: list[np.ndarray]
    piece_class: np.ndarray
    classes: list[S.Piece]
    bw: int
    bh: int
    grid: tuple[int, int]  # boxes along x, along y

    def neighbours(self, r: int) -> list[int]:
        nx, ny = self.grid
        x, y = r % nx, r // nx
        return [(y + dy) * nx + x + dx for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1))
                if 0 <= x + dx < nx and 0 <= y + dy < ny]


def memory_bytes(w: int, h: int, n_pieces: int, region: int = REGION) -> int:
    """Bytes a region solve allocates: labels and mask, four copies of each box's state (two cell arrays and five
    depth arrays of about a quarter of its cells, int64), pieces and placements as Python objects (1 KiB a piece)."""
    side = max(1, region)
    boxes = max(1, math.ceil(w / side)) * max(1, math.ceil(h / side))
    return int(w * h * (4 + 1 + 8) + 4 * boxes * 8 * (2 + 5 / 4) * side * side + 1024 * n_pieces)


def split_axis(n: int, side: int) -> list[int]:
    """Cut points ``0 = c0 < c1 < ... = n`` into parts of at most ``side`` cells (equal within one)."""
    k = max(1, -(-n // max(1, side)))
    return [round(i * n / k) for i in range(k + 1)]


def allocate(areas: Sequence[int], sizes: np.ndarray, seed: int) -> list[np.ndarray] | None:
    """Deal the pieces (their ``sizes``) to parts of the given ``areas`` (which add up to the pieces' cells):
    shuffled, then taken in order, each part closed exactly (a piece is taken when the area left stays a sum of
    the sizes present).  None when a part cannot be closed."""
    n = len(sizes)
    order = np.random.default_rng(seed).permutation(n)
    present = sorted({int(v) for v in sizes})
    top = max(areas) + 1
    reach = np.zeros(top, bool)
    reach[0] = True
    for v in range(1, top):
        reach[v] = any(z <= v and reach[v - z] for z in present)
    out = []
    p = 0
    big = 3 * max(present)
    for need in areas[:-1]:
        need = int(need)
        if not reach[need]:
            return None
        start = p
        while need > 0:
            if need > big:  # far from the end: take the next piece as it comes
                need -= int(sizes[order[p]])
                p += 1
                continue
            q = p
            while q < n and not (sizes[order[q]] <= need and reach[need - sizes[order[q]]]):
                q += 1
            if q >= n:
                return None
            order[p], order[q] = order[q], order[p]
            need -= int(sizes[order[p]])
            p += 1
        out.append(order[start:p].copy())
    rest = order[p:].copy()
    if int(sizes[rest].sum()) != int(areas[-1]):
        return None
    out.append(rest)
    return out


def make_plan(mask: np.ndarray, pieces: Sequence[S.Piece], region: int, seed: int) -> Plan:
    """Split the board ``mask`` into boxes and deal the pieces (see :func:`allocate`); tries a few seeds."""
    from puzzlebatch.runners.polyomino import cutsolve as CS

    h, w = mask.shape
    classes, members = CS.shape_classes(pieces)
    piece_class = np.empty(len(pieces), np.int64)
    for k, idx in enumerate(members):
        piece_class[idx] = k
    xs, ys = split_axis(w, region), split_axis(h, region)
    boxes = [(xs[i], ys[j], xs[i + 1], ys[j + 1]) for j in range(len(ys) - 1) for i in range(len(xs) - 1)]
    areas = [int(mask[y0:y1, x0:x1].sum()) for x0, y0, x1, y1 in boxes]
    sizes = np.array([p.size for p in pieces], np.int64)
    alloc = None
    if min(areas) > 0:
        for k in range(8):
            alloc = allocate(areas, sizes, seed * 7919 + k)
            if alloc is not None:
                break
    if alloc is None:  # a box without cells, or areas no sum of sizes can close: one box, the whole board
        boxes, alloc, xs, ys = [(0, 0, w, h)], [np.arange(len(pieces))], [0, w], [0, h]
    bw = max(x1 - x0 for x0, _, x1, _ in boxes)
    bh = max(y1 - y0 for _, y0, _, y1 in boxes)
    return Plan(w, h, boxes, alloc, piece_class, classes, bw, bh, (len(xs) - 1, len(ys) - 1))


# -- the boxes as items of one batch DFS ---------------------------------------------------------------------------
@dataclass
class Items:
    """The shared tables and the root state of every box (:func:`build_items`)."""

    pb: object  # cutsolve.Problem of the padded box
    roots: np.ndarray  # [boxes, width]
    bases: np.ndarray  # root depth of each box
    goal: int


def build_items(plan: Plan, mask: np.ndarray, todo: Sequence[int], seed: int, order: str = "random",
                window: int | None = None) -> Items:
    """Tables for a ``bw x bh`` box with every class, and the seeded root state of each box in ``todo``."""
    from puzzlebatch.runners.polyomino import cutsolve as CS

    nc = len(plan.classes)
    counts = np.zeros((len(todo), nc), np.int64)
    for j, r in enumerate(todo):
        counts[j] = np.bincount(plan.piece_class[plan.alloc[r]], minlength=nc)
    goal = int(counts.sum(1).max()) if len(todo) else 1
    pb = CS.build(np.ones((plan.bh, plan.bw), bool), plan.classes, goal=goal, window=window)
    t = pb.tables
    host = CS._host_rules()
    n = pb.w * pb.h
    roots = np.repeat(pb.root[None], len(todo), 0)
    bases = goal - counts.sum(1)
    for j, r in enumerate(todo):
        s = roots[j]
        x0, y0, x1, y1 = plan.boxes[r]
        m = np.zeros((plan.bh, plan.bw), bool)
        m[:y1 - y0, :x1 - x0] = mask[y0:y1, x0:x1]
        m = m.T if pb.transposed else m
        s[t[R.S_GRID]:t[R.S_GRID] + n] = np.where(m.reshape(-1), 0, 1)
        s[t[R.S_COUNT]:t[R.S_COUNT] + nc] = counts[j]
        base = int(bases[j])
        free = np.flatnonzero(m.reshape(-1))
        s[t[R.S_POS] + base] = free[0] if len(free) else n
        s[t[R.S_SEED]] = seed * 1_000_003 + r
        rng = np.random.default_rng(seed * 1_000_003 + r)
        perm = rng.permutation(nc) if order == "random" else np.arange(nc)
        s[t[R.S_ORDER]:t[R.S_ORDER] + nc] = perm
        host.set_rotation(s, base, t)
        host.branch_cell(s, base, t)
    return Items(pb, roots, bases.astype(np.int64), goal)


@dataclass
class ItemsResult:
    """Per box: 1 solved (its state in ``states``), 0 not solved (proved, or out of its allowance), -1 stopped
    (time limit or interrupted)."""

    status: np.ndarray
    states: np.ndarray
    nodes: int
    rounds: int
    proved: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))  # per box: no tiling, its whole tree


def search_items(tables: np.ndarray, roots: np.ndarray, bases: np.ndarray, goal: int, drivers,
                 max_nodes: np.ndarray | None = None, back: int = 16, deadline: float | None = None,
                 clock: Callable[[], float] = time.perf_counter,
                 on_solved: Callable[[int, np.ndarray], None] | None = None) -> ItemsResult:
    """Solve independent items (boxes) sharing ``tables``: rounds of the batch DFS over the unsolved ones, each
    with its own randomised restarts (as :func:`~puzzlebatch.runners.polyomino.cutsolve.solve`: a rewind of
    ``back * luby(j)`` pieces after its j-th failure, a fresh rotation seed, Luby budgets from its root), until
    every item is solved, proved without a tiling from its root, past ``max_nodes`` (its allowance), or the
    ``deadline`` (a ``clock()`` value; rounds are cut to the time left at the measured rate)."""
    from puzzlebatch.runners.polyomino import cutsolve as CS

    host = CS._host_rules()
    t = tables
    n_items, width = roots.shape
    states = roots.copy()
    stacks = np.zeros((n_items, goal + 2), np.int32)
    root = bases.astype(np.int32).copy()
    los = np.zeros(n_items, np.int32)
    fails = np.zeros(n_items, np.int64)
    budgets = np.maximum(200, 2 * (goal - bases)).astype(np.int64)
    root_budget = budgets.copy()
    root_restarts = np.zeros(n_items, np.int64)
    used = np.zeros(n_items, np.int64)
    status = np.full(n_items, -1, np.int64)
    proved = np.zeros(n_items, bool)
    seeds = states[:, t[R.S_SEED]].copy()
    nodes = rounds = 0
    t_start = clock()
    while True:
        active = np.flatnonzero(status < 0)
        if not len(active):
            break
        b = int(budgets[active].max())
        if deadline is not None:
            left = deadline - clock()
            if left <= 0:
                break
            b = CS.round_budget(b, nodes, clock() - t_start, left, min(len(active), 2))
        rounds += 1
        sub = states[active]
        sst = stacks[active]
        sols = np.zeros((len(active), 1, width), np.int64)
        out = np.zeros((len(active), OUT_WIDTH), np.int64)
        drivers.dfs_batch(sub, sst, root[active].copy(), los[active].copy(), goal, b, 1, 1, sols, out, t,
                          NO_MEMO)
        nodes += int(out[:, OUT_NODES].sum())
        for j, i in enumerate(active):
            used[i] += int(out[j, OUT_NODES])
            st = int(out[j, OUT_STATUS])
            depth = int(out[j, OUT_DEPTH])
            if st == STOPPED:
                status[i] = 1
                states[i] = sols[j, 0]
                if on_solved is not None:
                    on_solved(int(i), sols[j, 0])
                continue
            if st == BUDGET and b < budgets[i]:  # cut by the time left: go on from here next round
                states[i], stacks[i] = sub[j], sst[j]
                budgets[i] = max(1, int(budgets[i]) - int(out[j, OUT_NODES]))
                root[i] = depth
                los[i] = int(sst[j, depth])
                continue
            base = int(bases[i])
            if st == DONE:
                if root[i] == base:  # its whole tree: no tiling of this box with these pieces
                    status[i] = 0
                    proved[i] = True
                    continue
                depth = int(root[i])
            if max_nodes is not None and used[i] > max_nodes[i]:
                status[i] = 0
                continue
            fails[i] += 1
            to = max(base, depth - back * CS.luby(int(fails[i])))
            if st == DONE:
                to = min(to, depth - 1)
            s, stk = sub[j], sst[j]
            for dd in range(depth - 1, to - 1, -1):
                host.undo(s, dd, int(stk[dd]) - 1, t)
            seeds[i] += 1_000_000_007
            s[t[R.S_SEED]] = seeds[i]
            host.set_rotation(s, to, t)
            states[i], stacks[i] = s, stk
            root[i] = to
            los[i] = 0
            budgets[i] = max(200, 4 * (depth - to) + 100)
            if to == base:
                fails[i] = 0
                root_restarts[i] += 1
                budgets[i] = max(budgets[i], int(root_budget[i]) * CS.luby(int(root_restarts[i])))
    return ItemsResult(status, states, nodes, rounds, proved)


def decode_box(items: Items, plan: Plan, r: int, base: int, state: np.ndarray
               ) -> list[tuple[int, list[tuple[int, int]]]]:
    """(class, board cells) of every piece of box ``r``'s solved state."""
    pb = items.pb
    t = pb.tables
    x0, y0 = plan.boxes[r][:2]
    out = []
    for d in range(base, items.goal):
        a = int(state[t[R.S_ANC] + d])
        o = int(state[t[R.S_REC] + d])
        ax, ay = a % pb.w, a // pb.w
        cells = [(ax + int(dx), ay + int(dy)) for dx, dy in pb.orient_cells[o]]
        if pb.transposed:
            cells = [(y, x) for x, y in cells]
        out.append((int(pb.orient_class[o]), [(x + x0, y + y0) for x, y in cells]))
    return out


def place(labels: np.ndarray, plan: Plan, pieces_of_box: np.ndarray, placed) -> None:
    """Write a box's placements (by class) to ``labels`` as input pieces of the box (each class's copies in
    turn)."""
    free: dict[int, list[int]] = {}
    for p in pieces_of_box.tolist():
        free.setdefault(int(plan.piece_class[p]), []).append(p)
    for k, cells in placed:
        p = free[k].pop()
        for x, y in cells:
            labels[y, x] = p


# -- the whole solve -----------------------------------------------------------------------------------------------
@dataclass
class RegionSolve:
    solved: bool
    labels: np.ndarray  # input piece of each cell (-1: not covered yet)
    boxes: int
    done: np.ndarray  # per box
    comp: np.ndarray  # per box: the component it was tiled with (its own number unless repaired with others)
    repairs: int
    nodes: int
    rounds: int
    seconds: float
    backend: str
    workers: int = 1
    box_size: tuple[int, int] = (0, 0)


def _group_job(payload: dict) -> dict:
    """A Dask task: solve a group of boxes in the worker (its own backend and compiled rules)."""
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.twins import twin

    be = select_backend(payload["backend"])
    d = twin(be, "search", R, inline=False)
    t0 = time.perf_counter()
    res = search_items(payload["tables"], payload["roots"], payload["bases"], payload["goal"], d,
                       max_nodes=payload["max_nodes"], deadline=None if payload["seconds"] is None
                       else time.perf_counter() + payload["seconds"])
    keep = res.status == 1
    from puzzlebatch.runners.engine.distributed import worker_name

    return {"status": res.status, "states": res.states[keep], "nodes": res.nodes, "rounds": res.rounds,
            "seconds": time.perf_counter() - t0, "backend": be.name, "ids": payload["ids"], "worker": worker_name()}


def solve_regions(mask: np.ndarray, pieces: Sequence[S.Piece], backend, seed: int = 0, region: int = REGION,
                  time_limit: float | None = None, pool=None, labels: np.ndarray | None = None,
                  done: np.ndarray | None = None, comp: np.ndarray | None = None,
                  on_progress: Callable[[int, int], None] | None = None,
                  on_checkpoint: Callable[[np.ndarray, np.ndarray, np.ndarray], None] | None = None,
                  clock: Callable[[], float] = time.perf_counter, allowance: int = 400, min_nodes: int = 20_000,
                  window: int | None = 16) -> RegionSolve:
    """Tile ``mask`` (``[h, w]`` bool) with every piece once, region by region (see the module doc).

    ``labels``/``done``/``comp`` continue an interrupted solve (its checkpoint: the boxes already tiled are kept,
    with the components repairs tiled together); ``on_progress(boxes done, boxes)`` and
    ``on_checkpoint(labels, done, comp)`` are called as boxes finish; ``pool``
    (a Dask pool) runs groups of boxes as tasks, else the batch runs here on every core.  A box gets
    ``allowance`` nodes a piece plus ``min_nodes`` before it is repaired with a neighbour; ``window``: its
    branching cell is the most constrained of this many cells from the first empty one."""
    from puzzlebatch.jit.clock import work_clock
    from puzzlebatch.runners.engine.twins import twin
    from puzzlebatch.runners.polyomino import cutsolve as CS

    w0 = work_clock()
    t0 = clock()
    deadline = None if time_limit is None else t0 + time_limit
    h, w = mask.shape
    plan = make_plan(mask, pieces, region, seed)
    nb = len(plan.boxes)
    if labels is None or done is None or len(done) != nb or labels.shape != (h, w):
        labels = np.full((h, w), -1, np.int32)
        done = np.zeros(nb, bool)
    labels = labels.copy()
    done = done.astype(bool).copy()
    # boxes tiled together (after a repair) share a component; the boxes not done are singletons again
    comp = np.arange(nb, dtype=np.int64) if comp is None or len(comp) != nb else comp.astype(np.int64).copy()
    comp[~done] = np.flatnonzero(~done)
    if on_progress is not None:
        on_progress(int(done.sum()), nb)
    todo = [r for r in range(nb) if not done[r]]
    nodes = rounds = repairs = 0
    failed: list[int] = []
    name = backend.name
    workers = 1
    if todo:
        items = build_items(plan, mask, todo, seed, window=window)
        max_nodes = allowance * (items.goal - items.bases) + min_nodes

        def solved(j: int, state: np.ndarray) -> None:
            r = todo[j]
            place(labels, plan, plan.alloc[r], decode_box(items, plan, r, int(items.bases[j]), state))
            done[r] = True
            if on_progress is not None:
                on_progress(int(done.sum()), nb)
            if on_checkpoint is not None:
                on_checkpoint(labels, done, comp)

        if pool is not None and pool.distributed:
            from puzzlebatch.runners.engine.distributed import map_jobs

            workers = pool.n_workers
            groups = np.array_split(np.arange(len(todo)), min(len(todo), 4 * workers))
            jobs = [{"tables": items.pb.tables, "roots": items.roots[g], "bases": items.bases[g], "goal": items.goal,
                     "max_nodes": max_nodes[g], "backend": pool.backend_request, "ids": g,
                     "seconds": None if deadline is None else max(0.0, deadline - clock())} for g in groups]
            for _, res in map_jobs(pool, _group_job, jobs):
                nodes += res["nodes"]
                rounds = max(rounds, res["rounds"])
                name = res["backend"]
                k = 0
                for j, st in zip(res["ids"], res["status"]):
                    if st == 1:
                        solved(int(j), res["states"][k])
                        k += 1
                    elif st == 0:
                        failed.append(todo[int(j)])
                pool.work.add(str(res.get("worker", "worker")), len(res["ids"]), res["nodes"], res["seconds"],
                              res["backend"])
        else:
            d = twin(backend, "search", R, inline=False)
            res = search_items(items.pb.tables, items.roots, items.bases, items.goal, d, max_nodes=max_nodes,
                               deadline=deadline, clock=clock, on_solved=solved)
            nodes, rounds = res.nodes, res.rounds
            failed = [todo[j] for j in np.flatnonzero(res.status == 0)]
    # repair: a box without a tiling of its own is solved again with a neighbouring box (the neighbour's whole
    # component when it was itself repaired), its tiling lifted, with the pieces of both
    for r in failed:
        if done[r]:
            continue
        comp[r] = nb + r  # a fresh component of its own
        while not done[r]:
            if deadline is not None and clock() >= deadline:
                break
            group = np.flatnonzero(comp == comp[r])
            nbrs = sorted({q for g in group for q in plan.neighbours(int(g))} - set(group.tolist()))
            if not nbrs:
                break
            q = nbrs[int(np.random.default_rng(seed * 31 + repairs).integers(len(nbrs)))]
            comp[comp == comp[q]] = comp[r]
            group = np.flatnonzero(comp == comp[r])
            repairs += 1
            sel = np.zeros((h, w), bool)
            for g in group:
                x0, y0, x1, y1 = plan.boxes[g]
                sel[y0:y1, x0:x1] = mask[y0:y1, x0:x1]
            ys, xs = np.nonzero(sel)
            bx0, by0, bx1, by1 = xs.min(), ys.min(), xs.max() + 1, ys.max() + 1
            own = np.concatenate([plan.alloc[g] for g in group])
            classes, members = CS.shape_classes([pieces[int(p)] for p in own])
            left = None if deadline is None else max(0.0, deadline - clock())
            res1 = CS.solve(sel[by0:by1, bx0:bx1], classes, backend, seed=seed + repairs, time_limit=left)
            nodes += res1.nodes
            if not res1.solved:
                continue
            nxt = [0] * len(classes)
            for k, cells in res1.placements:
                p = int(own[members[k][nxt[k]]])
                nxt[k] += 1
                for x, y in cells:
                    labels[by0 + y, bx0 + x] = p
            done[group] = True
            if on_progress is not None:
                on_progress(int(done.sum()), nb)
            if on_checkpoint is not None:
                on_checkpoint(labels, done, comp)
    return RegionSolve(bool(done.all()), labels, nb, done, comp, repairs, nodes, rounds, work_clock() - w0, name,
                       workers, (plan.bw, plan.bh))


def placements_of(labels: np.ndarray) -> list[tuple[int, list[tuple[int, int]]]]:
    """(input piece, cells) of every piece on a label grid (``-1`` cells skipped), in piece order."""
    h, w = labels.shape
    flat = labels.ravel()
    cells = np.flatnonzero(flat >= 0)
    order = np.argsort(flat[cells], kind="stable")
    cells = cells[order]
    lab = flat[cells]
    cuts = np.flatnonzero(np.diff(lab)) + 1
    out = []
    for part in np.split(cells, cuts):
        if len(part):
            out.append((int(flat[part[0]]), [(int(c % w), int(c // w)) for c in part]))
    return out
