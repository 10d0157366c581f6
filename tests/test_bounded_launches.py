"""Launches sized from the measured node rate, so that Ctrl-C and checkpoints are timely on every verb.

The tests assert on the mechanism, never on wall-clock time: budgets shrink when the measured rate is low and
grow at most fourfold, a search cut into many tiny launches gives exactly the answer of one launch, and a SIGINT
delivered to a running count produces a checkpoint and exit status 130.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from puzzlebatch.runners.engine.launch import GROWTH, LaunchPlanner

REPO = Path(__file__).resolve().parents[1]


def test_planner_sizes_launches_from_the_measured_rate():
    p = LaunchPlanner(max_budget=1 << 16, max_items=1 << 16, seconds=0.5, first_nodes=1 << 15)
    k, budget = p.plan(100_000)
    assert k * budget <= 1 << 15 and budget >= p.min_budget  # the first launch is small
    p.record(nodes=k * budget, seconds=10.0)  # a slow machine: 3,277 nodes/s
    k, budget = p.plan(100_000)
    assert k * budget <= 0.5 * (1 << 15) / 10.0 + p.min_budget  # planned for about half a second
    assert budget >= p.min_budget and k >= 1
    planned = []
    for _ in range(8):  # a fast machine now: the plan grows, at most fourfold per launch
        p.record(nodes=k * budget, seconds=1e-4)
        k, budget = p.plan(100_000)
        planned.append(k * budget)
    assert all(b <= GROWTH * a for a, b in zip(planned, planned[1:]))
    assert max(planned) <= (1 << 16) * (1 << 16) and budget <= 1 << 16 and k <= 1 << 16


def test_planner_keeps_the_rate_of_idle_launches_as_a_lower_bound():
    p = LaunchPlanner(max_budget=1 << 20, max_items=1024, seconds=0.5)
    p.plan(1024)
    p.record(nodes=1_000_000, seconds=0.1)  # busy: 10 M nodes/s
    p.plan(1024)
    p.record(nodes=10, seconds=0.01)  # items ran out of work: says nothing about the rate
    assert p.rate == pytest.approx(1e7)
    p.plan(1024)
    p.record(nodes=p.planned, seconds=p.planned / 1e5)  # busy and slow: the machine got slower
    assert p.rate == pytest.approx(1e5)


def test_explicit_small_budgets_are_used_as_given():
    p = LaunchPlanner(max_budget=20, max_items=5)
    for _ in range(5):
        assert p.plan(1000) == (5, 20)
        p.record(100, 1e-5)


def test_batch_dfs_launches_follow_the_planner(cpu, monkeypatch):
    """A count whose launches the planner cuts small (as on a slow machine) gives the same answer, in more
    launches, each within the planned nodes."""
    from puzzlebatch.puzzles.snake.model import Box, parse_chain
    from puzzlebatch.runners.engine import launch
    from puzzlebatch.runners.snake import solver as snake
    from puzzlebatch.runners.engine.search import SearchSettings

    chain, box = parse_chain("FJJFJJJJJJJFJFFJFJJJJJJJJJJJJFJJJJJF"), Box(3, 3, 4)  # 254 k nodes, 992 embeddings
    settings = SearchSettings(frontier_target=4)
    ref, _, ref_totals = snake.count(chain, box, cpu, settings)
    monkeypatch.setattr(launch, "launch_seconds", lambda: 1e-9)  # any measured rate plans the minimum
    budgets = []
    dfs = snake.searcher(chain, box, cpu, settings)
    real = dfs.run_batch

    def recording(batch, max_solutions, stop_after, budget=None, planner=None):
        budgets.append((len(batch), budget))
        return real(batch, max_solutions, stop_after, budget, planner)

    dfs.run_batch = recording
    totals, rest = dfs.count()
    assert len(rest) == 0 and totals.count == ref.embeddings == 992
    assert len(budgets) > 2 * ref_totals.batches
    first = launch.LaunchPlanner(1, 1).first_nodes
    assert budgets[0][0] * budgets[0][1] <= first  # before any rate is known
    assert all(k * b <= 64 for k, b in budgets[2:])  # after it: the minimum, one item of 64 nodes


def test_ida_star_cut_into_tiny_launches_is_exact(cpu):
    """IDA* stopped by its budget resumes exactly where it stood: same path, nodes and iterations."""
    from puzzlebatch.puzzles.sliding.model import parse_board
    from puzzlebatch.runners.sliding import solver as sliding

    boards = [parse_board(t) for t in ("8 6 7 2 5 4 3 0 1", "6 4 7 8 5 0 3 2 1", "1 2 3 4 5 6 7 0 8")]
    whole = sliding.solve_batch(boards, "blank-last", "linear-conflict", cpu)
    real = sliding.ida_launches
    launches = []

    def tiny(*args, **kw):
        launches.append(real(*args, planner=LaunchPlanner(64, 2, 1.0, min_budget=64, first_nodes=64)))
        return launches[-1]

    sliding.ida_launches = tiny
    try:
        cut = sliding.solve_batch(boards, "blank-last", "linear-conflict", cpu)
    finally:
        sliding.ida_launches = real
    assert launches[0] > 20
    for a, b in zip(whole, cut):
        assert (a.length, a.directions, a.nodes, a.iterations) == (b.length, b.directions, b.nodes, b.iterations)
    assert [r.length for r in whole] == [31, 31, 1]


def test_ctrl_c_between_ida_launches(cpu, monkeypatch, capsys):
    """Ctrl-C is seen between two launches of a long IDA* search: the command ends with status 130."""
    from puzzlebatch.cli import main
    from puzzlebatch.cpu_fallback import sliding as cpu_sliding

    drivers = cpu_sliding.drivers()
    real = drivers.ida_batch
    calls = {"n": 0}

    def interrupting(*args):
        calls["n"] += 1
        if calls["n"] == 4:  # the compile call, then launches
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(drivers, "ida_batch", interrupting)
    code = main(["sliding", "solve", "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", "--goal", "blank-first",
                 "--heuristic", "manhattan", "--backend", "cpu"])
    assert code == 130 and "interrupted" in capsys.readouterr().err


@pytest.mark.gpu
def test_ida_star_resumes_identically_on_the_simulator(cpu, gpu):
    from puzzlebatch.puzzles.sliding.model import parse_board
    from puzzlebatch.runners.sliding import solver as sliding

    boards = [parse_board(t) for t in ("8 6 7 2 5 4 3 0 1", "1 2 3 4 0 6 7 5 8")]
    real = sliding.ida_launches
    sliding.ida_launches = lambda *a, **k: real(*a, planner=LaunchPlanner(512, 2, 1.0, min_budget=64, first_nodes=64))
    try:
        runs = [sliding.solve_batch(boards, "blank-last", "manhattan", b) for b in (cpu, gpu)]
    finally:
        sliding.ida_launches = real
    for a, b in zip(*runs):
        assert (a.length, a.directions, a.nodes, a.iterations) == (b.length, b.directions, b.nodes, b.iterations)


def test_sigint_checkpoints_a_running_count(tmp_path):
    """SIGINT to a count in progress: a checkpoint, status 130, and --resume continues from it."""
    from puzzlebatch.results.store import ResultsStore

    chain = "FJJFJJJJJJJFJFFJFJJJJJJJJJJJJFJJJJJF"  # 3x3x4: a count of some seconds when cut small
    out = tmp_path / "c.h5"
    args = [sys.executable, "-m", "puzzlebatch", "snake", "count", chain, "--box", "3x3x4", "--backend", "cpu",
            "--out", str(out), "--checkpoint-every", "0", "--budget", "200", "--batch-size", "4", "--json"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    # A shell's background job starts with SIGINT ignored, and its children inherit that (Python then installs no
    # handler): give the count the default disposition, as a terminal would.
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:  # wait for the first checkpoint
            time.sleep(0.2)
            try:
                with ResultsStore(out, "r") as store:
                    if store.run_ids() and store.latest_run().has_checkpoint():
                        break
            except Exception:  # noqa: BLE001 - created, not committed yet
                continue
        assert proc.poll() is None, proc.communicate()[1][-2000:]
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err[-2000:]
    assert "resume with" in err and "Traceback" not in err
    with ResultsStore(out, "r") as store:
        run = store.latest_run()
        assert run.attrs["status"] == "interrupted" and run.has_checkpoint()
        meta = run.load_checkpoint()[1]
        assert meta["batches"] >= 1
    fast = args[:args.index("--checkpoint-every")] + ["--json", "--resume"]  # the rest in big launches
    r = subprocess.run(fast, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout)["embeddings"] == 992
    with ResultsStore(out, "r") as store:
        assert len(store.run_ids()) == 1 and store.latest_run().attrs["status"] == "done"
        steps = store.latest_run().series("embeddings")[0]
        assert np.all(np.diff(steps) > 0)  # no series point stored twice across the interruption
