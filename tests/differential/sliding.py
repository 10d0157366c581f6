"""Differential testing of the sliding-puzzle family: random small boards, whole state spaces and pattern databases,
answered by the plain-Python oracles (``tests/reference/sliding_oracle.py``) and by every way the package has to
answer them, compared key by key.

An *instance* is a JSON-able dict, so that a disagreement can be replayed from its message
(``check(json.loads(...))``).  Three kinds, on boards of 2x2, 2x3, 3x2, 3x3, 2x4 and 4x2:

``{"kind": "ida", "rows", "cols", "goal", "heuristic", "boards", "budget", "items", "sim"}``
    one batch of boards (tile lists in row order, 0 the blank): random arrangements (half of them unsolvable),
    short random walks from the goal (the goal itself among them) for the goal ``blank-last`` or ``blank-first``.
    The package answers with :func:`solve_batch` under every heuristic (``manhattan``, ``linear-conflict``, and
    ``pdb`` on 3x3 with the ``4-4`` databases, built once per process in a temporary folder), with :func:`solve`
    board by board (the batch's answers bit for bit: boards are searched independently), and with
    :func:`ida_launches` cut into launches of at most ``items`` boards and ``budget`` nodes (raised for boards
    whose search needs more than :data:`MAX_LAUNCHES` launches): boards stopped by the budget resume where they
    stood, so the paths and node counts are those of one unbounded launch.  The batch under ``heuristic`` runs on
    numba's default threads, every other way on one thread (a launch of two threads costs milliseconds on a busy
    two-core machine).
``{"kind": "bfs", "rows", "cols", "goal", "chunk", "layers", "probes", "threads", "sim"}``
    the whole state space: :func:`bfs` at once, and :func:`bfs_run` in chunks of ``chunk`` ranks, stopped after
    ``layers`` layers and resumed; the layer sizes, the 4-bit table (equal bytes), the hardest states, the
    table's entries of sampled states and :func:`table_distance` of the ``probes`` (unsolvable ones refused).
``{"kind": "pdb", "rows", "cols", "tiles", "chunk", "layers", "threads", "sim"}``
    one pattern database built by :func:`build_pattern` (in a fresh folder, at once, and in chunks of ``chunk``
    codes, stopped after ``layers`` layers and resumed), every entry against the oracle's 0-1 BFS.  On 2x2 one
    tile only: the blank turns the tiles round the square, so two tiles keep their cyclic order and half of their
    placements do not exist.

``threads`` is ``"default"`` (numba's threads, in about a third of the draws) or 1 for the whole BFS and the
whole build (a launch per layer); the chunked ones always run on one thread.

``sim`` also runs the ``cuda`` backend (numba's simulator under ``NUMBA_ENABLE_CUDASIM=1``: every simulated thread
is a Python thread, so :func:`draw` with ``sim=True`` keeps the searches tiny) and asks for the CPU's answer bit for
bit: the same moves and node counts, the same tables.

What is compared against the oracles: ``length`` (the optimal number of moves: the distance from Dijkstra's
algorithm on the explicit graph of all ``n!`` arrangements, ``math.inf`` for an unsolvable board: from 8 cells
with the adjacency lists computed as Dijkstra asks for them, from the oracle's ``neighbours``), ``solvable`` (the
distance is finite), the moves (replayed here, tile by tile and as blank directions, ending on the goal, as many as
the length), ``initial_h`` (every heuristic admissible; Manhattan <= linear conflict), ``depth_counts`` (the
oracle's ``depth_histogram``) and the pattern databases (``pattern_database``).

Nothing here imports pytest; ``python -m tests.differential.sliding [N] [SEED]`` checks N random instances.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import json
import math
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from tests.reference import sliding_oracle
from tests.differential.common import cuda_backend

GOALS = ("blank-last", "blank-first")
HEURISTICS = ("manhattan", "linear-conflict", "pdb")
PDB_PARTITION = {(3, 3): "4-4"}  # the only partition on the boards drawn here
MAX_LAUNCHES = 60  # a tiny-budget IDA* gets a larger budget when its boards need more launches (~0.2 ms each)
LAZY_GRAPH_CELLS = 8  # from this many cells the oracle's graph is built as Dijkstra asks (3x3: 362,880 vertices)
IDA_SIZES = [((2, 2), 2), ((2, 3), 3), ((3, 2), 3), ((3, 3), 5), ((2, 4), 1), ((4, 2), 1)]
BFS_SIZES = [((2, 2), 3), ((2, 3), 3), ((3, 2), 3), ((2, 4), 1), ((4, 2), 1), ((3, 3), 0.3)]
PDB_SIZES = [((2, 2), 1), ((2, 3), 2), ((3, 2), 2), ((2, 4), 1), ((4, 2), 1), ((3, 3), 2)]
SIM_IDA_SIZES = [(2, 2), (2, 3), (3, 2), (3, 3)]
SIM_WALK_MAX = 8  # simulator boards on 3x3: at most this many moves from the goal
DELTAS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


# -- drawing instances ---------------------------------------------------------------------------------------------

def _pick(rng: random.Random, table):
    return rng.choices([v for v, _ in table], weights=[w for _, w in table])[0]


def random_walk(rng: random.Random, tiles: tuple[int, ...], rows: int, cols: int, steps: int) -> tuple[int, ...]:
    """``tiles`` after ``steps`` random blank moves (the oracle's ``neighbours``)."""
    for _ in range(steps):
        tiles = rng.choice(list(sliding_oracle.neighbours(tiles, rows, cols)))
    return tiles


def _board(rng: random.Random, rows: int, cols: int, goal: str, max_walk: int | None = None) -> list[int]:
    n = rows * cols
    if max_walk is None and rng.random() < 0.6:
        return rng.sample(range(n), n)  # solvable or not, half and half
    walk = rng.randint(0, max_walk if max_walk is not None else 16)
    return list(random_walk(rng, sliding_oracle.goal(rows, cols, goal), rows, cols, walk))


def draw(rng: random.Random, *, sim: bool = False) -> dict:
    """One random instance (JSON-able).  ``sim=True``: small searches, also run on the ``cuda`` backend."""
    kind = rng.choices(["ida", "bfs", "pdb"], weights=[6, 2, 1] if not sim else [3, 1, 1])[0]
    goal = rng.choice(GOALS)
    if kind == "ida":
        rows, cols = rng.choice(SIM_IDA_SIZES) if sim else _pick(rng, IDA_SIZES)
        walk = SIM_WALK_MAX if sim and rows * cols == 9 else None
        boards = [_board(rng, rows, cols, goal, walk) for _ in range(rng.randint(1, 4))]
        heuristics = [h for h in HEURISTICS if h != "pdb" or (rows, cols) in PDB_PARTITION]
        return {"kind": "ida", "rows": rows, "cols": cols, "goal": goal, "heuristic": rng.choice(heuristics),
                "boards": boards, "budget": rng.randint(1, 50), "items": rng.randint(1, 3), "sim": sim}
    if kind == "bfs":
        rows, cols = rng.choice([(2, 2), (2, 3), (3, 2)]) if sim else _pick(rng, BFS_SIZES)
        n = rows * cols
        chunk = rng.randint(1, 7) if n <= 6 else rng.randint(1 << 9, 1 << 12) if n == 8 else rng.randint(1 << 13,
                                                                                                           1 << 16)
        probes = [rng.sample(range(n), n) for _ in range(3)]
        return {"kind": "bfs", "rows": rows, "cols": cols, "goal": goal, "chunk": chunk,
                "layers": rng.randint(1, 12), "probes": probes, "threads": _threads(rng), "sim": sim}
    rows, cols = rng.choice([(2, 2), (2, 3), (3, 2)]) if sim else _pick(rng, PDB_SIZES)
    n = rows * cols
    # On 2x2 the blank only turns the tiles round the square: two pattern tiles keep their cyclic order, so only
    # half of their placements exist (the oracle asserts every placement is reached).
    k = 1 if n == 4 else rng.randint(1, 2 if sim else 4 if n == 9 else 3)
    tiles = sorted(rng.sample(range(1, n), k)) if rng.random() < 0.5 else rng.sample(range(1, n), k)
    return {"kind": "pdb", "rows": rows, "cols": cols, "tiles": tiles, "chunk": rng.randint(1, 64),
            "layers": rng.randint(1, 6), "threads": _threads(rng), "sim": sim}


def _threads(rng: random.Random) -> str | int:
    return "default" if rng.random() < 0.3 else 1


def draw_sim(rng: random.Random) -> dict:
    return draw(rng, sim=True)


# -- the oracles ---------------------------------------------------------------------------------------------------

class LazyGraph:
    """The oracle's explicit graph (every arrangement a vertex, the same vertices as
    ``sliding_oracle.explicit_graph``) with each adjacency list computed when Dijkstra asks for it: 3x3 takes
    half the time and none of the memory of the lists built up front."""

    def __init__(self, rows: int, cols: int):
        self.rows, self.cols = rows, cols

    def __iter__(self):
        n = self.rows * self.cols
        for blank in range(n):
            for perm in itertools.permutations(range(1, n)):
                s = list(perm)
                s.insert(blank, 0)
                yield tuple(s)

    def __getitem__(self, v):
        return list(sliding_oracle.neighbours(v, self.rows, self.cols))


@functools.lru_cache(maxsize=None)
def distances(rows: int, cols: int, goal: str) -> dict[tuple[int, ...], float]:
    """Every arrangement's distance to the goal (``math.inf``: unreachable): ``sliding_oracle.distances``, or
    ``sliding_oracle.dijkstra`` on :class:`LazyGraph` from :data:`LAZY_GRAPH_CELLS` cells.  Cached per process."""
    if rows * cols < LAZY_GRAPH_CELLS:
        return sliding_oracle.distances(rows, cols, goal)
    return sliding_oracle.dijkstra(LazyGraph(rows, cols), sliding_oracle.goal(rows, cols, goal))


@functools.lru_cache(maxsize=None)
def histogram(rows: int, cols: int, goal: str) -> tuple[int, ...]:
    return tuple(sliding_oracle.depth_histogram(distances(rows, cols, goal)))


def oracle(inst: dict) -> dict:
    """The oracles' answer: ``ida``: per board ``length`` (``math.inf``: unsolvable); ``bfs``: ``depth_counts``
    and the distance function ``dist``; ``pdb``: ``table`` (placement -> value)."""
    rows, cols = inst["rows"], inst["cols"]
    if inst["kind"] == "ida":
        dist = distances(rows, cols, inst["goal"])
        return {"length": [dist[tuple(b)] for b in inst["boards"]]}
    if inst["kind"] == "bfs":
        return {"depth_counts": list(histogram(rows, cols, inst["goal"])),
                "dist": distances(rows, cols, inst["goal"])}
    return {"table": _pattern(rows, cols, tuple(inst["tiles"]))}


@functools.lru_cache(maxsize=64)
def _pattern(rows: int, cols: int, tiles: tuple[int, ...]) -> dict:
    return sliding_oracle.pattern_database(rows, cols, tiles)


# -- the package's ways --------------------------------------------------------------------------------------------

@contextlib.contextmanager
def one_thread():
    """numba's parallel drivers on one thread (a launch of two threads costs milliseconds on a busy machine)."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def _attempt(fn) -> dict:
    """``fn()``'s answer, or ``{"error": ...}`` when it raised."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 -- any exception is a finding, reported with the instance
        return {"error": f"{type(exc).__name__}: {exc}"}


def threads(inst: dict):
    """The threads of a whole BFS or pattern build: numba's default (``inst["threads"]`` is ``"default"``) or one.
    Every layer is a launch, and a launch of two threads costs milliseconds on a busy two-core machine, so only
    some instances pay for it."""
    return contextlib.nullcontext() if inst.get("threads") == "default" else one_thread()


@functools.lru_cache(maxsize=1)
def _scratch() -> Path:
    """This process's temporary folder (pattern databases), removed at exit."""
    path = Path(tempfile.mkdtemp(prefix="puzzlebatch-differential-sliding-"))
    atexit.register(shutil.rmtree, path, True)
    return path


@functools.lru_cache(maxsize=None)
def pattern_databases(rows: int, cols: int):
    """The board's partition, built once per process on the CPU (3x3 ``4-4``: about half a second)."""
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    return sliding_pdb.ensure(rows, cols, PDB_PARTITION[(rows, cols)], select_backend("cpu"),
                              _scratch() / f"pdb-{rows}x{cols}")


def ways(inst: dict) -> dict[str, dict]:
    """Every way the package answers ``inst``: way name -> answer (see :func:`check`); ``{"error": ...}`` for an
    exception."""
    return {"ida": _ida_ways, "bfs": _bfs_ways, "pdb": _pdb_ways}[inst["kind"]](inst)


def _result(r) -> dict:
    return {"solvable": r.solvable, "length": r.length if r.solvable else math.inf, "moves": r.moves,
            "directions": r.directions, "nodes": r.nodes, "iterations": r.iterations, "initial_h": r.initial_h,
            "explanation": r.explanation}


def _ida_ways(inst: dict) -> dict[str, dict]:
    import numpy as np

    from puzzlebatch.puzzles.sliding import rules
    from puzzlebatch.puzzles.sliding.model import Board, goal_board, solvability, to_blank_first
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.launch import LaunchPlanner
    from puzzlebatch.runners.sliding import solver as sliding

    cpu = select_backend("cpu")
    rows, cols, goal, h = inst["rows"], inst["cols"], inst["goal"], inst["heuristic"]
    boards = [Board(rows, cols, tuple(b)) for b in inst["boards"]]
    pdbs = pattern_databases(rows, cols) if (rows, cols) in PDB_PARTITION else None
    out: dict[str, dict] = {}

    def batch(heuristic, backend):
        results = sliding.solve_batch(boards, goal, heuristic, backend, pdbs=pdbs if heuristic == "pdb" else None)
        return {"boards": [_result(r) for r in results]}

    def one_by_one():
        return {"boards": [_result(sliding.solve(b, goal, h, cpu, pdbs=pdbs if h == "pdb" else None))
                           for b in boards]}

    def launches(budget: int | None, items: int | None):
        """ida_launches on the boards the package finds solvable (turned to blank-first as solve_batch does):
        paths and stats, with solve_batch's planner or a tiny one."""
        todo = [i for i, b in enumerate(boards) if solvability(b, goal_board(rows, cols, goal))[0]]
        if not todo:
            return {"skip": True}
        arr = np.array([to_blank_first(boards[i], goal).tiles for i in todo], np.int64)
        max_len = 250
        paths = np.zeros((len(todo), max_len), np.int64)
        stats = np.zeros((len(todo), rules.STATS_WIDTH), np.int64)
        planner = None if budget is None else LaunchPlanner(budget, items, 1.0, min_budget=1)
        n = sliding.ida_launches(sliding.drivers(cpu).ida_batch, arr, rows, cols, sliding.HEURISTICS[h], max_len,
                                 sliding._tables(h, rows, cols, pdbs if h == "pdb" else None), paths, stats,
                                 planner)
        return {"paths": [paths[j, :stats[j, 0]].tolist() for j in range(len(todo))],
                "stats": stats[:, :5].tolist(), "launches": n}

    out[f"solve_batch[cpu,{h}]"] = _attempt(lambda: batch(h, cpu))  # numba's default threads
    with one_thread():  # the other heuristics, and launches of one board or a few
        for heuristic in HEURISTICS:
            if heuristic != h and (heuristic != "pdb" or pdbs is not None):
                out[f"solve_batch[cpu,{heuristic}]"] = _attempt(lambda: batch(heuristic, cpu))  # noqa: B023 (called here)
        whole = out[f"ida_launches[cpu,{h}]"] = _attempt(lambda: launches(None, None))
        single = out[f"solve[cpu,{h},one by one,1 thread]"] = _attempt(one_by_one)
        single["same_as"] = (f"solve_batch[cpu,{h}]", out[f"solve_batch[cpu,{h}]"])  # boards are independent
        if "stats" in whole:
            nodes = sum(row[1] for row in whole["stats"])
            items = inst["items"]
            budget = max(inst["budget"], -(-nodes // (MAX_LAUNCHES * items)))
            tiny = out[f"ida_launches[cpu,{h},budget={budget},items={items},1 thread]"] = _attempt(
                lambda: launches(budget, items))
            tiny["same_as"] = (f"ida_launches[cpu,{h}]", whole)
    if inst.get("sim"):
        gpu = cuda_backend()
        if gpu is None:
            out["cuda"] = {"error": "the instance asks for the cuda backend and none is available"}
        else:
            sim = out[f"solve_batch[{gpu.name},{h}]"] = _attempt(lambda: batch(h, gpu))
            sim["same_as"] = (f"solve_batch[cpu,{h}]", out[f"solve_batch[cpu,{h}]"])
    return out


def _bfs_ways(inst: dict) -> dict[str, dict]:
    import numpy as np

    from puzzlebatch.errors import PuzzleInputError
    from puzzlebatch.puzzles.sliding.model import Board
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.sliding import solver as sliding

    cpu = select_backend("cpu")
    rows, cols, goal = inst["rows"], inst["cols"], inst["goal"]
    out: dict[str, dict] = {}
    tables: dict[str, np.ndarray] = {}

    def answer(name, state, backend):
        tables[name] = np.asarray(state.packed)
        r = sliding.bfs_result(state, backend)
        return {"depth_counts": list(r.depth_counts), "done": sliding.bfs_done(state), "states": r.states,
                "hardest": [tuple(int(v) for v in t.split()) for t in r.hardest], "hardest_count": r.hardest_count,
                "max_depth": r.max_depth}

    def whole(backend):
        _, state = sliding.bfs(rows, cols, goal, backend)
        return answer(f"bfs[{backend.name}]", state, backend)

    def pieces():
        state = sliding.bfs_run(sliding.bfs_start(rows, cols, goal), cpu, chunk=inst["chunk"],
                                max_layers=inst["layers"])
        state = sliding.bfs_run(state, cpu, chunk=max(1, inst["chunk"] // 2 + 1))
        return answer("pieces", state, cpu)

    def lookups():
        """Entries of sampled states and table_distance of the probes, read from the whole run's table."""
        packed = tables[f"bfs[{cpu.name}]"]
        dist = distances(rows, cols, goal)
        rng = random.Random(json.dumps(inst, sort_keys=True))
        reachable = [s for s, d in dist.items() if d != math.inf]
        entries = {s: sliding.entry(packed, sliding.rank(Board(rows, cols, s)))
                   for s in rng.sample(reachable, min(200, len(reachable)))}
        walks = {}
        for p in inst["probes"]:
            try:
                walks[tuple(p)] = sliding.table_distance(packed, Board(rows, cols, tuple(p)), goal)
            except PuzzleInputError:
                walks[tuple(p)] = math.inf
        return {"entries": entries, "table_distance": walks}

    with threads(inst):  # a launch per layer
        out[f"bfs[{cpu.name}]"] = _attempt(lambda: whole(cpu))
    name = f"bfs_run[cpu,chunk={inst['chunk']},stopped after {inst['layers']} layers,resumed,1 thread]"
    with one_thread():  # many small launches
        out[name] = _attempt(pieces)
    if "pieces" in tables and f"bfs[{cpu.name}]" in tables:
        out[name]["same_table"] = bool(np.array_equal(tables["pieces"], tables[f"bfs[{cpu.name}]"]))
    if f"bfs[{cpu.name}]" in tables:
        out["entry/table_distance[cpu]"] = _attempt(lookups)
    if inst.get("sim"):
        gpu = cuda_backend()
        if gpu is None:
            out["cuda"] = {"error": "the instance asks for the cuda backend and none is available"}
        else:
            sim = out[f"bfs[{gpu.name}]"] = _attempt(lambda: whole(gpu))
            if f"bfs[{gpu.name}]" in tables and f"bfs[{cpu.name}]" in tables:
                sim["same_table"] = bool(np.array_equal(tables[f"bfs[{gpu.name}]"], tables[f"bfs[{cpu.name}]"]))
    return out


def _pdb_ways(inst: dict) -> dict[str, dict]:
    import numpy as np

    from puzzlebatch.puzzles.sliding import rules
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    rows, cols, tiles = inst["rows"], inst["cols"], tuple(inst["tiles"])
    n, k = rows * cols, len(tiles)
    out: dict[str, dict] = {}

    def read(path) -> dict:
        table = np.asarray(sliding_pdb.load_table(path))
        return {cells: int(table[rules.pattern_rank(np.array(cells, np.int64), k, n)]) for cells in
                itertools.permutations(range(n), k)}

    def build(backend, chunk=1 << 17, layers=None):
        folder = Path(tempfile.mkdtemp(prefix="pdb-", dir=_scratch()))
        try:
            path = sliding_pdb.build_pattern(rows, cols, tiles, backend, folder, chunk=chunk, max_layers=layers)
            if layers is not None:  # resumed from the partial file (when the build was not done already)
                path = sliding_pdb.build_pattern(rows, cols, tiles, backend, folder, chunk=max(1, chunk // 2 + 1))
            return {"table": read(path)}
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    cpu = select_backend("cpu")
    with threads(inst):  # a launch per layer
        out["build_pattern[cpu]"] = _attempt(lambda: build(cpu))
    with one_thread():  # many small launches
        out[f"build_pattern[cpu,chunk={inst['chunk']},stopped after {inst['layers']} layers,resumed,1 thread]"] = \
            _attempt(lambda: build(cpu, inst["chunk"], inst["layers"]))
    if inst.get("sim"):
        gpu = cuda_backend()
        if gpu is None:
            out["cuda"] = {"error": "the instance asks for the cuda backend and none is available"}
        else:
            out[f"build_pattern[{gpu.name}]"] = _attempt(lambda: build(gpu))
    return out


# -- comparing -------------------------------------------------------------------------------------------------------

def _replay(tiles: tuple[int, ...], rows: int, cols: int, moves) -> tuple[int, ...] | None:
    """The board after sliding ``moves`` (tile numbers) into the blank one by one; None at an illegal move."""
    t = list(tiles)
    for m in moves:
        if not isinstance(m, int) or not 0 < m < len(t):
            return None
        a, b = t.index(m), t.index(0)
        if abs(a // cols - b // cols) + abs(a % cols - b % cols) != 1:
            return None
        t[a], t[b] = 0, m
    return tuple(t)


def _blank_moves(tiles: tuple[int, ...], rows: int, cols: int, directions: str) -> list[int] | None:
    """The tiles moved when the blank goes U/D/L/R as ``directions`` says; None when it would leave the board."""
    t = list(tiles)
    moved = []
    for d in directions:
        b = t.index(0)
        r, c = b // cols + DELTAS[d][0], b % cols + DELTAS[d][1]
        if not (0 <= r < rows and 0 <= c < cols):
            return None
        k = r * cols + c
        moved.append(t[k])
        t[b], t[k] = t[k], 0
    return moved


def check(inst: dict, answers: dict[str, dict] | None = None) -> list[str]:
    """Run the oracles and every way; one message per disagreement, naming the instance (JSON) and the two ways."""
    exp = oracle(inst)
    got = ways(inst) if answers is None else answers
    tag = json.dumps(inst, sort_keys=True)
    msgs: list[str] = []

    def differ(what: str, a_name: str, a, b_name: str, b) -> None:
        msgs.append(f"sliding {tag}: {what}: {a_name} = {a!r} but {b_name} = {b!r}")

    for name, ans in got.items():
        if "error" in ans:
            differ("an exception", "oracle", "an answer", name, ans["error"])
        elif inst["kind"] == "ida":
            _check_ida(inst, exp, name, ans, differ)
        elif inst["kind"] == "bfs":
            _check_bfs(inst, exp, name, ans, differ)
        else:
            if ans["table"] != exp["table"]:
                bad = next(c for c in exp["table"] if ans["table"].get(c) != exp["table"][c])
                differ(f"pattern database entry of placement {bad}", "oracle", exp["table"][bad], name,
                       ans["table"].get(bad))
    if inst["kind"] == "ida":
        _check_heuristics(inst, exp, got, differ)
    return msgs


def _check_ida(inst: dict, exp: dict, name: str, ans: dict, differ) -> None:
    rows, cols = inst["rows"], inst["cols"]
    goal = sliding_oracle.goal(rows, cols, inst["goal"])
    if "same_as" in ans:
        other, ref = ans["same_as"]
        if "error" not in ref:
            keys = ("paths", "stats") if "stats" in ans else ("boards",)
            for key in keys:
                if ans.get(key) != ref.get(key):
                    differ(f"{key} (bit for bit)", other, ref.get(key), name, ans.get(key))
    if "boards" not in ans:
        return
    for i, (board, r) in enumerate(zip(inst["boards"], ans["boards"])):
        what = f"board {i} ({' '.join(map(str, board))})"
        if r["length"] != exp["length"][i]:
            differ(f"{what}: optimal length", "oracle", exp["length"][i], name, r["length"])
        if r["solvable"] != (exp["length"][i] != math.inf):
            differ(f"{what}: solvable", "oracle distance", exp["length"][i], name, r["solvable"])
        if not r["solvable"]:
            if not r["explanation"].startswith("unsolvable"):
                differ(f"{what}: explanation", "an unsolvable board", "unsolvable: ...", name, r["explanation"])
            continue
        end = _replay(tuple(board), rows, cols, r["moves"])
        if end != goal or len(r["moves"]) != r["length"]:
            differ(f"{what}: the moves replayed", "oracle goal", goal, name, f"{end} after {len(r['moves'])} moves")
        if _blank_moves(tuple(board), rows, cols, r["directions"]) != r["moves"]:
            differ(f"{what}: blank directions against tiles moved", "directions", r["directions"], name, r["moves"])
        if r["nodes"] < r["length"]:
            differ(f"{what}: nodes >= length", "length", r["length"], name, r["nodes"])


def _check_heuristics(inst: dict, exp: dict, got: dict, differ) -> None:
    """Every heuristic admissible (initial h <= the oracle's distance), Manhattan <= linear conflict."""
    h0: dict[str, list] = {}
    for name, ans in got.items():
        if name.startswith("solve_batch[cpu,") and "boards" in ans:
            h0[name] = [r["initial_h"] for r in ans["boards"]]
    for name, hs in h0.items():
        for i, h in enumerate(hs):
            if h is not None and h > exp["length"][i]:
                differ(f"board {i}: an admissible heuristic", "oracle distance", exp["length"][i], name, h)
    man, lc = h0.get("solve_batch[cpu,manhattan]"), h0.get("solve_batch[cpu,linear-conflict]")
    if man and lc:
        for i, (a, b) in enumerate(zip(man, lc)):
            if a is not None and b is not None and a > b:
                differ(f"board {i}: Manhattan <= linear conflict", "solve_batch[cpu,manhattan]", a,
                       "solve_batch[cpu,linear-conflict]", b)


def _check_bfs(inst: dict, exp: dict, name: str, ans: dict, differ) -> None:
    dist = exp["dist"]
    if "depth_counts" in ans:
        if ans["depth_counts"] != exp["depth_counts"]:
            differ("depth_counts", "oracle", exp["depth_counts"], name, ans["depth_counts"])
        half = math.factorial(inst["rows"] * inst["cols"]) // 2
        if not ans["done"] or ans["states"] != half:
            differ("every state of the goal's class reached", "n!/2", half, name, ans["states"])
        top = len(exp["depth_counts"]) - 1
        far = [h for h in ans["hardest"] if dist.get(h) != top]
        if far or ans["hardest_count"] != exp["depth_counts"][-1] or ans["max_depth"] != top:
            differ("the hardest states", "oracle", f"{exp['depth_counts'][-1]} at depth {top}", name,
                   f"{ans['hardest_count']} at depth {ans['max_depth']}, listed {ans['hardest']}")
    if ans.get("same_table") is False:
        differ("the 4-bit table (bit for bit)", "bfs[cpu]", "its table", name, "another table")
    for s, e in ans.get("entries", {}).items():
        if e != dist[s] % 15:
            differ(f"table entry of {s}", "oracle distance % 15", dist[s] % 15, name, e)
            break
    for s, d in ans.get("table_distance", {}).items():
        if d != dist[s]:
            differ(f"table_distance of {s}", "oracle", dist[s], name, d)


def main(argv: list[str]) -> int:
    """``python -m tests.differential.sliding [N] [SEED]``: check N random instances, print the disagreements."""
    n = int(argv[0]) if argv else 50
    seed = int(argv[1]) if len(argv) > 1 else 0
    bad = 0
    t0 = time.perf_counter()
    for i in range(n):
        msgs = check(draw(random.Random(seed + i)))
        bad += bool(msgs)
        for m in msgs:
            print(m)
    print(f"{n} instances, {bad} with disagreements, {time.perf_counter() - t0:.1f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
