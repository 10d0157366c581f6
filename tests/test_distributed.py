"""Counts on Dask (a LocalCluster, and a loopback `dask scheduler` with two `dask worker`s, one killed mid-count)
and counts killed with SIGKILL and resumed: every answer equal to the single-process count, rows included."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.snake.model import Box, is_valid_embedding, parse_chain
from puzzlebatch.results.store import ResultsStore
from puzzlebatch.runners.snake import solver as snake
from puzzlebatch.puzzles.snake import encode
from puzzlebatch.runners.engine.distributed import DFSPayload, SchedulerSpec, _worker_dfs, count_on_pool, \
    parse_scheduler
from puzzlebatch.runners.engine.search import SearchSettings
from tests.backends import GPU

# A random 3x3x4 chain (`puzzlebatch snake generate --box 3x3x4 --seed 5`): 992 embeddings, 62 distinct.  Its tree
# (254 k nodes) is cut into many small launches below so that a count lasts long enough to be killed.
CHAIN, BOX = "FJJFJJJJJJJFJFFJFJJJJJJJJJJJJFJJJJJF", Box(3, 3, 4)
# The default frontier size: symmetric items are merged to the same depth as in `single`, so the rows are the same.
SLOW = SearchSettings(budget=1000, batch_size=4, frontier_target=256, first_batch_size=4)


def _cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "puzzlebatch", *args], capture_output=True, text=True, **kw)


def _rows(path: Path, run_id: str = "snake-count-0000"):
    """The stored rows of a count --all, as a sorted list of (cells, weight), and the count they add up to."""
    with ResultsStore(path, "r") as st:
        it = st.run(run_id).items()
    rows = sorted((tuple(c.tolist()), int(w)) for c, w in zip(it["cells"], it["weight"]))
    return rows, sum(w for _, w in rows)


@pytest.fixture(scope="module")
def single():
    """The count and rows of one uninterrupted run in this process (the embedded default)."""
    from puzzlebatch.runners.engine.backend import select_backend

    rows = []
    result, rest, _ = snake.count(parse_chain(CHAIN), BOX, select_backend("cpu"),
                                  sink=lambda cells, w: rows.extend(zip(map(tuple, cells.tolist()), w.tolist())))
    assert result.complete and len(rest) == 0
    chain = parse_chain(CHAIN)
    for cells, _ in rows:  # every row is a folding, checked independently of the search
        assert is_valid_embedding(chain, BOX, np.array(cells))
    assert sum(w for _, w in rows) == result.embeddings
    assert len(set(rows)) == len(rows)
    return result.embeddings, sorted(rows)


# -- the --scheduler option -------------------------------------------------------------------------------------
def test_parse_scheduler(tmp_path):
    assert parse_scheduler(None) == SchedulerSpec("embedded")
    assert parse_scheduler("local:3") == SchedulerSpec("local", workers=3)
    assert parse_scheduler("tcp://10.0.0.1:8786") == SchedulerSpec("address", address="tcp://10.0.0.1:8786")
    f = tmp_path / "sched.json"
    f.write_text(json.dumps({"address": "tcp://127.0.0.1:9999"}))
    assert parse_scheduler(str(f)).address == "tcp://127.0.0.1:9999"
    for bad in ("local:0", "local:x", "nowhere", str(tmp_path / "missing.json")):
        with pytest.raises(PuzzleInputError, match="--scheduler"):
            parse_scheduler(bad)


@pytest.mark.parametrize("value, message", [("local:0", "local:N"), ("banana", "expected local:N"),
                                            ("missing.json", "no such scheduler file")])
def test_cli_bad_scheduler(tmp_path, value, message):
    r = _cli("snake", "count", CHAIN, "--box", "3x3x4", "--out", str(tmp_path / "c.h5"), "--scheduler", value)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr


# -- a LocalCluster ----------------------------------------------------------------------------------------------
def test_local_cluster_count_equals_single(tmp_path, single):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "local.h5"
    r = _cli("snake", "count", CHAIN, "--box", "3x3x4", "--all", "--out", str(out), "--json", "--backend", "cpu",
             "--scheduler", "local:2", "--item-seconds", "0.02", "--budget", "2000", timeout=240)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    count, rows = single
    assert doc["embeddings"] == count
    assert _rows(out) == (rows, count)
    work = doc["work"]
    assert work["scheduler"] == "local:2" and work["dashboard"].startswith("http")
    assert len(work["workers"]) == 2 and sum(w["nodes"] for w in work["workers"].values()) > 0
    assert {w["backend"] for w in work["workers"].values()} == {"cpu"}
    with ResultsStore(out, "r") as st:  # the summary is stored with the result
        assert st.run("snake-count-0000").attrs["result"]["work"]["workers"].keys() == work["workers"].keys()
    assert "dashboard" in r.stderr and "nodes/s" in r.stderr


# -- a loopback cluster started with the dask CLI; one worker killed mid-count ------------------------------------
def _spawn(args, env, log):
    return subprocess.Popen([sys.executable, "-m", *args], env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def test_worker_killed_mid_count(tmp_path, cpu, single):
    pytest.importorskip("dask.distributed")
    from puzzlebatch.runners.engine.distributed import DaskPool

    env = os.environ | {"NUMBA_NUM_THREADS": "1"}
    sched_file = tmp_path / "scheduler.json"
    log = open(tmp_path / "cluster.log", "w")
    procs = [_spawn(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                     "--scheduler-file", str(sched_file)], env, log)]
    try:
        for _ in range(600):
            if sched_file.exists() and sched_file.stat().st_size:
                break
            time.sleep(0.1)
        workers = {name: _spawn(["distributed.cli.dask_worker", "--scheduler-file", str(sched_file),
                                 "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", name], env, log)
                   for name in ("alpha", "beta")}
        procs += workers.values()
        pool = DaskPool(parse_scheduler(str(sched_file)), "cpu", item_seconds=0.1, say=lambda s: None)
        try:
            pool.client.wait_for_workers(2, timeout=120)
            pool.n_workers = 2
            addr = {info["name"]: a for a, info in pool.client.scheduler_info()["workers"].items()}
            dfs = snake.searcher(parse_chain(CHAIN), BOX, cpu, SLOW, pool=pool)
            # Compile on both workers first, so that both hold work while the count runs.
            pool.client.run(_worker_dfs, DFSPayload.of(dfs, "cpu"))
            rows = []
            nw = encode.n_words(BOX.volume)
            killed = {}

            def killer():  # as soon as beta is running an item, SIGKILL it
                while not killed and workers["beta"].poll() is None:
                    running = pool.client.processing(workers=[addr["beta"]]).get(addr["beta"], ())
                    if running:
                        killed["processing"] = len(running)
                        workers["beta"].send_signal(signal.SIGKILL)
                        workers["beta"].wait(30)
                    time.sleep(0.005)

            thread = threading.Thread(target=killer, daemon=True)
            thread.start()

            totals, rest = count_on_pool(dfs, pool, None, None, item_seconds=0.1, summary=pool.work,
                                         sink=lambda s, w: rows.extend(zip(map(tuple, s[:, nw:nw + 36].tolist()),
                                                                           w.tolist())))
            killed.setdefault("processing", 0)  # stops the killer if the count ended first
            thread.join(30)
        finally:
            pool.close()
        count, expected = single
        assert killed["processing"] >= 1, "beta was never caught running an item"
        assert workers["beta"].returncode == -signal.SIGKILL
        assert len(rest) == 0 and totals.count == count
        assert sorted(rows) == expected  # nothing lost, nothing twice
        assert "alpha" in pool.work.workers
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(30)
        log.close()


# -- SIGKILL at random moments, several times, then resume --------------------------------------------------------
def _checkpointed_batches(path: Path) -> int:
    """The batch count of the last checkpoint in a count's store (-1: none yet, or caught mid-write)."""
    try:
        with ResultsStore(path, "r") as st:
            ck = st.run(st.run_ids()[0]).load_checkpoint() if st.run_ids() else None
        return -1 if ck is None else int(ck[1]["batches"])
    except Exception:  # the writer is between flushes: look again
        return -1


def _status(path: Path) -> str | None:
    """The status of the count's run in its store (None: no run yet)."""
    with ResultsStore(path, "r") as st:
        return st.run(st.run_ids()[0]).attrs.get("status") if st.run_ids() else None


def test_sigkill_resume_exact(tmp_path, single):
    out = tmp_path / "killed.h5"
    base = ["snake", "count", CHAIN, "--box", "3x3x4", "--all", "--out", str(out), "--json", "--backend", "cpu",
            "--budget", str(SLOW.budget), "--batch-size", str(SLOW.batch_size), "--checkpoint-every", "0.05"]
    rng = random.Random(int.from_bytes(os.urandom(4), "little"))
    kills, seen = 0, -1
    for _attempt in range(3):
        resume = ["--resume"] if out.exists() and _checkpointed_batches(out) >= 0 else []
        if out.exists() and not resume:
            out.unlink()  # killed before its first checkpoint: nothing to resume
        proc = subprocess.Popen([sys.executable, "-m", "puzzlebatch", *base, *resume], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:  # this run is counting: it checkpointed
            now = _checkpointed_batches(out) if out.exists() else -1
            if now > seen:
                seen = now
                break
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 0.4))  # then a random moment
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        stdout, err = proc.communicate(timeout=60)
        assert proc.returncode in (0, -signal.SIGKILL), err
        if proc.returncode == 0:  # it finished before the kill came
            break
    assert kills >= 2, "the count finished before it could be killed: make it longer"
    count, rows = single
    if proc.returncode != 0 and _status(out) == "done":
        stdout = None  # the kill came after the run was marked done, before the process exited: nothing to resume
    elif proc.returncode != 0:
        r = _cli(*base, *(["--resume"] if _checkpointed_batches(out) >= 0 else []), timeout=300)
        assert r.returncode == 0, r.stderr
        stdout = r.stdout
    if stdout is not None:
        assert json.loads(stdout)["embeddings"] == count
    assert _rows(out) == (rows, count)  # every row once: none duplicated, none missing


# -- other batch commands on a running cluster (tests/conftest.py: ``cluster``, reached by its address) --------------

def _late_square(job):
    """A job that finishes in reverse order of submission."""
    i, n = job
    time.sleep(0.05 * (n - i))
    return i * i


def test_map_ordered_yields_in_job_order(cluster):
    from puzzlebatch.runners.engine.distributed import DaskPool, map_ordered

    jobs = [(i, 6) for i in range(6)]
    with DaskPool(parse_scheduler(cluster), "cpu", say=lambda s: None) as pool:
        assert list(map_ordered(pool, _late_square, jobs)) == [i * i for i in range(6)]


@pytest.mark.slow  # three processes compile the IDA* kernels (about a minute on 2 cores)
def test_sliding_file_on_cluster_equals_single(tmp_path, cluster):
    boards = tmp_path / "eight.txt"  # three 8-puzzles (one unsolvable) and the source document's example
    boards.write_text("1 2 3 4 5 6 0 7 8\n8 6 7 2 5 4 3 0 1\n1 2 3 4 5 6 8 7 0\n6 4 7 8 5 0 3 2 1\n")
    rows = {}
    for name, extra in (("single", []), ("cluster", ["--scheduler", cluster, "--batch", "1"])):
        out = tmp_path / f"{name}.h5"
        r = _cli("sliding", "solve", "--file", str(boards), "--backend", "cpu", "--out", str(out), "--json", *extra,
                 timeout=240)
        assert r.returncode == 0, r.stderr
        with ResultsStore(out, "r") as st:
            it = st.run("sliding-solve-0000").items()
            rows[name] = (it["length"].tolist(), list(it["moves"]))
            work = st.run("sliding-solve-0000").attrs["result"]["work"]
        if name == "cluster":
            assert work["scheduler"] == cluster and sum(w["items"] for w in work["workers"].values()) == 4
    assert rows["single"] == rows["cluster"]
    assert rows["single"][0] == [2, 31, -1, 31]  # the two 31-move boards are the 8-puzzle's hardest (Reinefeld 1993)


def test_gpu_workers_in_the_simulator(tmp_path, cluster):
    """`--backend cuda` on a cluster: each worker runs the CUDA kernels (here numba's simulator, as CI has no GPU;
    tests/conftest.py sets NUMBA_ENABLE_CUDASIM=1, which the worker processes inherit) and reports its backend."""
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.distributed import DaskPool
    from puzzlebatch.runners.engine.search import Frontier, SearchTotals

    assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
    from puzzlebatch.puzzles.snake.generate import random_chain

    box = Box(2, 2, 3)
    chain = random_chain(box, 0)[0]
    cpu = select_backend("cpu")
    tiny = SearchSettings(budget=64, batch_size=8, frontier_target=4, first_batch_size=4)
    expected, _, _ = snake.count(chain, box, cpu, tiny)
    with DaskPool(parse_scheduler(cluster), "cuda", item_seconds=60, say=lambda s: None) as pool:
        dfs = snake.searcher(chain, box, cpu, tiny, pool=pool)
        totals = SearchTotals()
        frontier = dfs.expand(Frontier.root(dfs.problem), totals, 4, symmetric=True)
        assert len(frontier) >= 2
        totals, rest = count_on_pool(dfs, pool, frontier, totals, item_seconds=60, summary=pool.work)
    assert len(rest) == 0 and totals.count == expected.embeddings > 0
    assert {w.backend for w in pool.work.workers.values()} == {GPU}



def test_pdb_build_one_pattern_per_task(tmp_path, cluster, capsys):
    """`sliding pdb build --scheduler`: each pattern database built by a worker equals the one built here."""
    from puzzlebatch.cli import main
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    for name, extra in (("here", []), ("cluster", ["--scheduler", cluster])):
        assert main(["sliding", "pdb", "build", "4-4", "--size", "3x3", "--backend", "cpu", "--cache-dir",
                     str(tmp_path / name), "--json", *extra]) == 0
        assert json.loads(capsys.readouterr().out)["complete"]
    here, there = (sliding_pdb.load(3, 3, "4-4", tmp_path / n) for n in ("here", "cluster"))
    assert len(here.tables) == 2 and all(np.array_equal(a, b) for a, b in zip(here.tables, there.tables))


def test_first_solution_on_cluster_is_the_dfs_first(cluster, cpu):
    """`solve --scheduler`: the cluster returns the same first folding (DFS order) as one process, and proves
    none where there is none."""
    from puzzlebatch.puzzles.snake.generate import random_chain
    from puzzlebatch.runners.engine.distributed import DaskPool

    box = Box(3, 3, 4)
    tiny = SearchSettings(budget=2000, batch_size=4, frontier_target=64, first_batch_size=2)
    with DaskPool(parse_scheduler(cluster), "cpu", item_seconds=0.05, say=lambda s: None) as pool:
        for seed in (5, 9):
            chain = random_chain(box, seed)[0]
            here = snake.solve(chain, box, cpu, tiny)
            there = snake.solve(chain, box, cpu, tiny, pool=pool)
            assert here.solved and there.cells == here.cells
        unfoldable = parse_chain("FJJFFJJJJJJFJFFJFJJJJJJJJJJJJFJJJJJF")  # seed 5's chain with its 5th cube turned
        assert not snake.solve(unfoldable, box, cpu, tiny).solved
        assert not snake.solve(unfoldable, box, cpu, tiny, pool=pool).solved


# -- the same stored rows whatever the number of workers (symmetric items merged to the same depth) --------------
def _source_rows(settings, pool=None):
    """Count and sorted rows of the source chain's count, with the root expanded as for ``pool``; the items are
    counted here either way (the rows depend only on the items)."""
    from puzzlebatch.puzzles.snake.model import SOURCE_CHAIN
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.search import SearchTotals

    rows = []
    dfs = snake.searcher(parse_chain(SOURCE_CHAIN), Box(3, 3, 3), select_backend("cpu"), settings, pool)
    w = encode.n_words(27)

    def sink(states, weights):
        rows.extend(zip(map(tuple, states[:, w:w + 27].tolist()), weights.tolist()))

    totals = SearchTotals()
    front = dfs.initial_frontier(totals, sink=sink)
    if pool is not None:
        assert len(front) > 64  # cut finer than the single process's 4 items
    dfs.pool = None
    totals, _ = dfs.count(front, totals, sink=sink)
    return totals.count, sorted(rows)


def test_cluster_frontier_stores_the_rows_of_one_process(monkeypatch):
    """A cluster expands the root further (enough items for every worker); symmetric items are still merged only
    to the single process's depth, so the rows and their weights are the same (here: 6 rows of weight 8 for the
    source chain's 48 embeddings, not 1 row of weight 48)."""
    from types import SimpleNamespace

    settings = SearchSettings(frontier_target=4)
    count, rows = _source_rows(settings)
    assert count == 48 and len(rows) == 6 and {w for _, w in rows} == {8}
    fake_cluster = SimpleNamespace(distributed=True, n_workers=2, items_per_worker=64)
    assert _source_rows(settings, fake_cluster) == (count, rows)


def test_local_cluster_rows_equal_single_with_symmetric_prefixes(tmp_path):
    pytest.importorskip("dask.distributed")
    args = ["snake", "count", "--all", "--json", "--backend", "cpu", "--frontier", "4"]
    r = _cli(*args, "--out", str(tmp_path / "one.h5"), timeout=240)
    assert r.returncode == 0, r.stderr
    r = _cli(*args, "--out", str(tmp_path / "two.h5"), "--scheduler", "local:2", timeout=240)
    assert r.returncode == 0, r.stderr
    one, two = _rows(tmp_path / "one.h5"), _rows(tmp_path / "two.h5")
    assert one == two and one[1] == 48 and len(one[0]) == 6
