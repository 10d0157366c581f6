"""The GPU data path: data uploaded once per run, transfers counted, the array steps' numpy path, launch geometry.

The ``gpu`` tests run the CUDA launchers in numba's simulator (CI) and check that a run's second batch uploads no
table again; the array steps (``puzzlebatch.xp``) are checked on numpy against the serial host steps they stand
in for, and, where CuPy and a GPU exist, on CuPy against numpy.
"""

import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from puzzlebatch import xp as X
from puzzlebatch.gpu_kernels import geometry
from puzzlebatch.puzzles.snake.generate import random_chain
from puzzlebatch.puzzles.snake.model import Box
from puzzlebatch.runners.snake import solver as snake
from puzzlebatch.runners.sliding import solver as sliding
from puzzlebatch.runners.engine.search import BatchDFS, SearchSettings
from tests.reference import snake_oracle
from tests.backends import GPU


# -- the array steps on numpy, against the serial host steps ------------------------------------------------------

def _layers(rows, cols, goal, n_layers):
    """The children of the first BFS layers of a sliding puzzle, with the table as it was before each layer."""
    from puzzlebatch.cpu_fallback.sliding import drivers

    d = drivers()
    state = sliding.bfs_start(rows, cols, goal)
    n = rows * cols
    fact = sliding.factorials(n)
    cls = int(sliding.rules.state_class(np.array(sliding.goal_board(rows, cols, goal).tiles, np.int64), n, cols))
    out = []
    for _ in range(n_layers):
        children = np.empty((len(state.frontier), 4), np.int64)
        d.bfs_expand_batch(state.frontier, rows, cols, cls, fact, children)
        out.append((children, state.packed.copy(), (state.depth + 1) % 15))
        buf = np.empty(children.size, np.int64)
        m = d.bfs_mark(children, state.packed, (state.depth + 1) % 15, buf)
        state.frontier = buf[:m].copy()
        state.depth_counts.append(m)
    return out


@pytest.mark.parametrize("rows, cols, goal", [(2, 3, "blank-last"), (3, 3, "blank-first")])
def test_bfs_dedup_by_sorting_leaves_the_serial_steps_table(rows, cols, goal):
    from puzzlebatch.cpu_fallback.sliding import drivers

    for children, packed, value in _layers(rows, cols, goal, 14):
        serial, by_sort = packed.copy(), packed.copy()
        buf = np.empty(children.size, np.int64)
        m = drivers().bfs_mark(children, serial, value, buf)
        new = X.mark_new_nibbles(np, children, by_sort, value)
        assert np.array_equal(serial, by_sort)
        assert np.array_equal(np.sort(buf[:m]), new) and len(np.unique(new)) == len(new)


def test_pdb_dedup_by_sorting_leaves_the_serial_steps_tables():
    from puzzlebatch.cpu_fallback.sliding import drivers
    from puzzlebatch.runners.sliding.pdb import _goal_code, n_entries

    d = drivers()
    rows, cols, tiles = 3, 3, (1, 2, 3)
    n, k = rows * cols, len(tiles)
    dist = np.full(n_entries(n, k), 255, np.uint8)
    visited = np.zeros((dist.size * n + 7) // 8, np.uint8)
    code = _goal_code(tiles, rows, cols)
    visited[code >> 3] |= np.uint8(1 << (code & 7))
    dist[code // n] = 0
    frontier = np.array([code], np.int64)
    depth = 0
    while len(frontier):
        out = np.empty((len(frontier), 4 * k), np.int64)
        d.pdb_expand_batch(frontier, k, rows, cols, out)
        v2, d2 = visited.copy(), dist.copy()
        buf = np.empty(out.size, np.int64)
        m = d.pdb_mark(out, visited, dist, n, depth + 1, buf)
        new = X.mark_new_bits(np, out, v2, d2, n, depth + 1)
        assert np.array_equal(visited, v2) and np.array_equal(dist, d2)
        assert np.array_equal(np.sort(buf[:m]), new)
        frontier, depth = new, depth + 1
    assert (dist != 255).all() and depth > 10


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), max_size=40), st.integers(1, 4))
def test_compaction_by_prefix_sum_keeps_the_rows_in_order(mask, width):
    mask = np.array(mask, bool)
    rows = np.arange(len(mask) * width, dtype=np.int64).reshape(len(mask), width)
    tags = np.arange(len(mask), dtype=np.int32) * 7
    count, a, b = X.compacted(np, mask, rows, tags)
    assert count == mask.sum() and np.array_equal(a, rows[mask]) and np.array_equal(b, tags[mask])
    # the formulation CuPy runs (no wait for the device), on numpy
    k, a2, b2 = X.compact_by_scatter(np, mask, rows, tags)
    assert int(k) == count and np.array_equal(a2[:count], a) and np.array_equal(b2[:count], b)
    assert a2.shape[0] == len(mask) + 1


def _reference_carrier(pop, fit, children, child_fit, carriers):
    """The carrier replacement as the engine wrote it with numpy alone."""
    idx = np.arange(len(children))
    order = np.lexsort((idx, -child_fit, carriers))
    _, first = np.unique(carriers[order], return_index=True)
    best = order[first]
    win = best[child_fit[best] >= fit[carriers[best]]]
    pop[carriers[win]] = children[win]
    fit[carriers[win]] = child_fit[win]
    return len(win)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 30), st.integers(0, 10**6))
def test_ga_replacement_steps_equal_the_numpy_formulation(p, seed):
    rng = np.random.default_rng(seed)
    pop = rng.integers(0, 9, (p, 5))
    fit = rng.integers(0, 4, p).astype(np.float64)  # few values: many ties
    children = rng.integers(0, 9, (p, 5))
    child_fit = rng.integers(0, 4, p).astype(np.float64)
    carriers = rng.integers(0, max(1, p // 3), p)
    ref_pop, ref_fit = pop.copy(), fit.copy()
    assert X.replace_by_carrier(np, pop, fit, children, child_fit, carriers) == \
        _reference_carrier(ref_pop, ref_fit, children, child_fit, carriers)
    assert np.array_equal(pop, ref_pop) and np.array_equal(fit, ref_fit)
    allfit = np.concatenate([child_fit, fit])
    order = np.argsort(-allfit, kind="stable")[:p]
    new_pop, new_fit, changed = X.replace_plus(np, pop, fit, children, child_fit)
    assert np.array_equal(new_pop, np.concatenate([children, pop])[order]) and np.array_equal(new_fit, allfit[order])
    assert changed == int((order < p).sum())


# -- launch geometry ----------------------------------------------------------------------------------------------

H100 = geometry.DeviceLimits("H100 (attributes)", sm_count=132, max_threads_per_sm=2048, max_registers_per_sm=65536,
                             max_blocks_per_sm=32, max_shared_memory_per_sm=233472)


@pytest.mark.parametrize("regs, threads, blocks", [
    (32, 128, 16),  # limited by threads: 2048 / 128
    (64, 128, 8),  # 64 regs x 128 threads = 8192 registers a block: 65536 / 8192
    (255, 128, 2),  # 255 regs round up to 8160 -> 8192 a warp: 8 warps an SM, 4 a block
    (40, 256, 6),  # 40 x 32 = 1280 registers a warp: 51 warps an SM, 8 a block
    (16, 32, 32),  # limited by blocks per SM
])
def test_resident_blocks_follow_the_occupancy_rules(regs, threads, blocks):
    assert geometry.resident_blocks(H100, threads, regs) == blocks


def test_geometry_from_the_device_and_from_the_config(monkeypatch):
    from puzzlebatch.config import launch

    monkeypatch.setattr(launch, "threads_per_block", 128)
    g = geometry.from_device(H100, 64, 1024, waves=4)
    assert (g.threads, g.max_blocks, g.blocks_per_sm, g.source) == (128, 132 * 8 * 4, 8, "device")
    assert g.blocks_for(10) == 1 and g.blocks_for(10**9) == 132 * 8 * 4
    assert geometry.from_device(H100, 64, 96).threads == 96  # the kernel allows no more
    assert geometry.kernel_geometry(object(), (), None) == geometry.from_config()
    # a kernel whose 32 lanes share an item: blocks of a warp, one item a block
    w = geometry.from_device(H100, 64, 1024, waves=4, lanes=32)
    assert (w.threads, w.lanes) == (32, 32) and w.blocks_for(10) == 10 and w.blocks_for(10**9) == w.max_blocks
    assert geometry.kernel_geometry(object(), (), None, lanes=32) == geometry.from_config(32)
    assert geometry.from_config(32).threads == 32 and geometry.from_config(32).blocks_for(5) == 5
    doc = geometry.describe(None)
    assert doc["source"] == "config" and doc["why"] == "simulator"



def test_loading_a_kernel_onto_the_device_is_not_counted_as_work(monkeypatch):
    """The first look at a kernel's registers loads its module (the driver's PTX compile: seconds for a large
    kernel on a fresh machine). That time is loading, like a CPU cache load, and is left out of a result's seconds;
    a compile the cache class already counted is not counted twice. A fake clock, no GPU."""
    from puzzlebatch.jit import clock

    now = [100.0]
    monkeypatch.setattr(geometry.time, "perf_counter", lambda: now[0])

    class Compiled:
        max_threads_per_block = 1024

        @property
        def regs_per_thread(self):
            now[0] += 5.0  # the driver loads the module
            return 64

    class Kernel:
        def typeof_pyval(self, value):
            return type(value).__name__

        def compile(self, argtypes):
            now[0] += 2.0  # numba compiles to PTX, 1 s of it timed by the cache class
            clock.add(1.0)
            return Compiled()

    kernel, load0, compile0 = Kernel(), clock.load_seconds(), clock.compile_seconds()
    g = geometry.kernel_geometry(kernel, (1, 2.0), H100)
    assert g.source == "device"
    assert clock.compile_seconds() - compile0 == pytest.approx(1.0)
    assert clock.load_seconds() - load0 == pytest.approx(6.0)  # 2 + 5 seconds, less the 1 counted as compiling
    geometry.kernel_geometry(kernel, (1, 2.0), H100)  # loaded already: nothing more is left out of the work
    assert clock.load_seconds() - load0 == pytest.approx(6.0)
    geometry.kernel_geometry(kernel, (1, 2), H100)  # other argument types: another specialisation, loaded once
    assert clock.load_seconds() - load0 == pytest.approx(12.0)


# -- the simulator: tables uploaded once per run, transfers counted -------------------------------------------------

@pytest.mark.gpu
def test_the_batch_summary_is_the_count_and_the_stopped_items(cpu):
    from puzzlebatch.runners.engine import search as RS
    from puzzlebatch.runners.engine.search import Frontier, SearchTotals

    chain, box = random_chain(Box(2, 3, 4), 3)[0], Box(2, 3, 4)
    probe = BatchDFS(snake.problem(chain, box), cpu, SearchSettings(budget=10**9))
    batch = probe.expand(Frontier.root(probe.problem), SearchTotals(), 40)
    batch.weights[:] = np.arange(1, len(batch) + 1)
    budget = int(np.median(probe.run_batch(batch, 0, 0)[0][:, RS.OUT_NODES]))  # about half the items stop
    dfs = BatchDFS(snake.problem(chain, box), cpu, SearchSettings(budget=budget))
    out, states, stacks, _ = dfs.run_batch(batch, 0, 0)
    stopped = out[:, RS.OUT_STATUS] == RS.BUDGET
    assert 0 < stopped.sum() < len(batch)
    scalars, rows = RS.batch_summary(np, out, batch.weights, batch.depths, states, stacks)
    assert list(scalars) == [(out[:, RS.OUT_COUNT] * batch.weights).sum(), out[:, RS.OUT_NODES].sum(), stopped.sum()]
    k = int(scalars[2])
    for got, want in zip(rows, (states[stopped], stacks[stopped], batch.depths[stopped], out[stopped, RS.OUT_DEPTH],
                                batch.weights[stopped])):
        assert np.array_equal(got[:k], want)


@pytest.mark.gpu
def test_a_count_uploads_its_tables_once_and_pipelines_its_batches(cpu, gpu):
    chain, box = random_chain(Box(2, 2, 3), 1)[0], Box(2, 2, 3)  # 644 nodes: the simulator runs them in Python
    small = SearchSettings(budget=20, batch_size=16, frontier_target=8)
    dfs = BatchDFS(snake.problem(chain, box), gpu, small)
    totals, rest = dfs.count()
    session = dfs.kernels.session
    assert totals.batches >= 3 and len(rest) == 0
    assert session.uploads == {"tables": 1}, "a later batch uploaded a table again"
    assert dfs.overlapped > 0, "no batch was queued while another ran"
    t = dfs.transfers
    assert t["launches"] == totals.batches
    per_item = dfs.problem.root.shape[0] * 8 + 8  # a state, its root and lo: what a batch uploads besides tables
    assert dfs.problem.tables.nbytes < t["h2d_bytes"] <= dfs.problem.tables.nbytes + per_item * totals.items * 4
    ref, _ = BatchDFS(snake.problem(chain, box), cpu, small).count()
    assert (totals.count, totals.nodes) == (ref.count, ref.nodes)
    assert totals.count == snake_oracle.count(chain.letters, (2, 2, 3))["embeddings"]


@pytest.mark.gpu
def test_a_pipelined_count_stops_after_max_batches_and_resumes(cpu, gpu):
    chain, box = random_chain(Box(2, 2, 3), 1)[0], Box(2, 2, 3)  # 644 nodes: the simulator runs them in Python
    small = SearchSettings(budget=20, batch_size=16, frontier_target=8)
    dfs = BatchDFS(snake.problem(chain, box), gpu, small)
    seen = []
    totals, rest = dfs.count(max_batches=2, on_batch=lambda f, t: seen.append((len(f), t.batches)))
    assert totals.batches == 2 and len(rest) > 0 and [b for _, b in seen] == [1, 2]
    totals, rest = dfs.count(rest, totals)
    ref, _ = BatchDFS(snake.problem(chain, box), cpu, small).count()
    assert (totals.count, totals.nodes) == (ref.count, ref.nodes) and len(rest) == 0
    assert dfs.kernels.session.uploads == {"tables": 1}


@pytest.mark.gpu
def test_ida_batches_of_one_run_share_one_upload_of_the_pattern_database(cpu, gpu, tmp_path):
    from puzzlebatch.puzzles.sliding.model import Board
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    sliding_pdb.build_pattern(2, 3, (1, 2), cpu, tmp_path)
    sliding_pdb.build_pattern(2, 3, (3, 4, 5), cpu, tmp_path)
    sliding_pdb.PARTITIONS[(2, 3)] = {"2-3": [(1, 2), (3, 4, 5)]}
    try:
        pdbs = sliding_pdb.load(2, 3, "2-3", tmp_path)
    finally:
        del sliding_pdb.PARTITIONS[(2, 3)]
    boards = [Board(2, 3, t) for t in ((4, 1, 2, 5, 0, 3), (0, 5, 4, 3, 2, 1), (1, 0, 2, 3, 4, 5))]
    kernels = sliding.drivers(gpu)
    runs = [sliding.solve_batch(boards[i:i + 1], "blank-first", "pdb", gpu, pdbs=pdbs, kernels=kernels)[0]
            for i in range(3)]
    assert all(n == 1 for n in kernels.session.uploads.values()) and "pdb" in kernels.session.uploads
    ref = sliding.solve_batch(boards, "blank-first", "pdb", cpu, pdbs=pdbs)
    assert [r.length for r in runs] == [r.length for r in ref]


@pytest.mark.gpu
def test_bfs_layers_upload_the_factorials_once(cpu, gpu):
    result, state = sliding.bfs(2, 3, "blank-last", gpu, chunk=16)
    ref, _ = sliding.bfs(2, 3, "blank-last", cpu, chunk=16)
    assert result.depth_counts == ref.depth_counts and result.launches > result.max_depth
    assert result.launches == ref.launches  # one launch per chunk, on either backend
    assert ref.h2d_bytes == ref.d2h_bytes == 0 and result.h2d_bytes > 0


@pytest.mark.gpu
def test_playouts_keep_their_tables_on_the_device(gpu):
    from puzzlebatch.runners.hextris.playouts import GREEDY_WEIGHTS, Playouts
    from tests.test_hextris_gpu_sim import _tiny

    sim = Playouts([_tiny()], gpu)
    games = sim.new_games([0, 1, 2])
    sim.run_commands(games, ["ll", "dd", "pp"])
    sim.lockable(games)
    sim.run_policy(games, GREEDY_WEIGHTS, max_units=1, record=False)
    assert sim._d.session.uploads == {"tables": 1} and sim.transfers["launches"] >= 4


@pytest.mark.gpu
def test_ga_generations_upload_tables_and_parameters_once(gpu):
    from puzzlebatch.runners.engine.ga import GAConfig, GeneticAlgorithm
    from puzzlebatch.puzzles.cubes import model
    from puzzlebatch.runners.cubes import ga as cubes_ga

    figure, cubes = model.box(2, 2, 1), model.load_cubes().subset(range(1, 13))
    ga = GeneticAlgorithm(cubes_ga.ga_problem(figure, cubes, cubes_ga.Operators()), gpu,
                          GAConfig(population=9, generations=3), seed=1)
    _, state = ga.run()
    assert state.generation == 3
    assert ga._d.session.uploads == {"tables": 1, "params": 1}
    # the first fitness, the warm-up's breeding, and two launches (breed, replace) in each of three generations
    assert ga.transfers["launches"] == 1 + 1 + 3 * 2


@pytest.mark.gpu
def test_strip_count_keeps_the_profile_graph_on_the_device(cpu, gpu):
    from puzzlebatch.puzzles.polyomino import shapes as S
    from puzzlebatch.runners.polyomino import large as L

    pieces = S.load_pieces("trominoes", unlimited=True)
    res = L.count_strip(pieces, 3, 8, gpu, chunk_columns=1)
    assert res.solutions == L.count_strip(pieces, 3, 8, cpu).solutions
    assert res.transfers["launches"] >= 4
    graph = res.transfers["h2d_bytes"]
    assert graph > 0


@pytest.mark.gpu
def test_count_command_reports_transfers_in_json_and_in_the_run(tmp_path, capsys):
    from puzzlebatch.cli import main
    from puzzlebatch.results.store import ResultsStore

    chain = random_chain(Box(2, 3, 3), 1)[0]  # five launches of small batches
    out = tmp_path / "c.h5"
    # a small frontier: with a GPU's default (2^14 items) the host would expand this whole tree and launch nothing
    assert main(["snake", "count", chain.letters, "--box", "2x3x3", "--backend", "cuda", "--out", str(out),
                 "--budget", "20", "--batch-size", "16", "--frontier", "16", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["backend"] == GPU and doc["launches"] >= 1 and doc["h2d_bytes"] > 0 and doc["d2h_bytes"] > 0
    with ResultsStore(out, "r") as store:
        attrs = store.run(store.run_ids()[-1]).attrs
    assert (attrs["h2d_bytes"], attrs["d2h_bytes"], attrs["launches"]) == \
        (doc["h2d_bytes"], doc["d2h_bytes"], doc["launches"])


# -- CuPy, where a GPU and CuPy exist -------------------------------------------------------------------------------

needs_cupy = pytest.mark.skipif(X.cupy_module() is None,
                                reason="CuPy and a CUDA GPU are needed (pip install -e '.[gpu]' on a GPU machine)")


@pytest.mark.gpu
@needs_cupy
def test_array_steps_on_cupy_equal_numpy():
    cp = X.cupy_module()
    for children, packed, value in _layers(3, 3, "blank-first", 12):
        host = packed.copy()
        dev = cp.asarray(packed)
        a = X.mark_new_nibbles(np, children, host, value)
        b = X.mark_new_nibbles(cp, cp.asarray(children), dev, value)
        assert np.array_equal(a, b.get()) and np.array_equal(host, dev.get())
    mask = np.arange(100) % 3 == 1
    rows = np.arange(300).reshape(100, 3)
    k, r = X.compacted(np, mask, rows)
    k2, r2 = X.compacted(cp, cp.asarray(mask), cp.asarray(rows))
    assert k == k2 and np.array_equal(r, r2.get())
    rng = np.random.default_rng(0)
    pop, fit = rng.integers(0, 9, (40, 5)), rng.integers(0, 4, 40).astype(np.float64)
    children, child_fit = rng.integers(0, 9, (40, 5)), rng.integers(0, 4, 40).astype(np.float64)
    carriers = rng.integers(0, 12, 40)
    d_pop, d_fit = cp.asarray(pop), cp.asarray(fit)
    n1 = X.replace_by_carrier(np, pop, fit, children, child_fit, carriers)
    n2 = X.replace_by_carrier(cp, d_pop, d_fit, cp.asarray(children), cp.asarray(child_fit), cp.asarray(carriers))
    assert n1 == n2 and np.array_equal(pop, d_pop.get()) and np.array_equal(fit, d_fit.get())


def test_counted_cpu_drivers_survive_pickling():
    """Dask ships objects holding the drivers to its workers (with cloudpickle)."""
    pickle = pytest.importorskip("cloudpickle", reason="cloudpickle comes with the dist extra")

    from puzzlebatch.cpu_fallback.search import drivers
    from puzzlebatch.puzzles.snake import rules
    from puzzlebatch.transfers import CountingDrivers

    d = CountingDrivers(drivers(rules), ("dfs_batch",))
    back = pickle.loads(pickle.dumps(d))
    assert back.transfers.launches == 0 and back.split_batch is not None
