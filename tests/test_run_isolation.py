"""Runs of different families one after another in one long-lived process -- a web-app worker, a Dask worker --
give the answers of fresh processes: nothing a run compiles, caches or allocates changes the next run's answer.

(``tests/test_family_sequence.py`` checks the same in a plain process, on the CPU and the simulator.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.isolation_proc import FAMILIES, every_ordered_pair

ROOT = Path(__file__).resolve().parent.parent
CHILD = str(Path(__file__).resolve().parent / "isolation_proc.py")


def _fresh(*families: str) -> dict:
    """Each family's answer, each in a fresh process."""
    out = {}
    for family in families:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        proc = subprocess.run([sys.executable, CHILD, "--backends", "cpu", family], capture_output=True, text=True,
                              env=env, cwd=ROOT)
        assert proc.returncode == 0, proc.stderr[-3000:]
        out |= json.loads(proc.stdout)
    return out


def run_sequence(names: list[str]) -> list:
    """Run the families' jobs in this order in the calling process (a Dask worker): ``[[key, answer], ...]``."""
    from puzzlebatch.runners.engine.backend import select_backend

    from tests.isolation_proc import FAMILIES as JOBS

    backend = select_backend("cpu")
    return [[f"{name}/cpu", JOBS[name](backend)] for name in names]


def test_a_dask_worker_runs_every_ordered_pair_of_families_like_fresh_processes():
    pytest.importorskip("dask.distributed")
    from dask.distributed import Client, LocalCluster

    names = sorted(FAMILIES)
    seq = every_ordered_pair(names)
    fresh = _fresh(*names)
    env = {"NUMBA_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None, env=env) as cluster, \
            Client(cluster) as client:
        runs = client.submit(run_sequence, seq, pure=False).result()
        workers = client.run(os.getpid)
    assert len(workers) == 1  # one worker process ran them all
    assert len(runs) == len(seq)
    previous = None
    for key, answer in runs:
        assert answer == fresh[key], f"{key} after {previous} on one Dask worker: {answer}; fresh: {fresh[key]}"
        previous = key


# -- one web-app worker --------------------------------------------------------------------------------------------
WEB_JOBS = {
    "polyomino.count": {"board": "4x3", "pieces": "dominoes", "unlimited": True},
    "sliding.solve": {"rows": 3, "cols": 3, "tiles": [8, 6, 7, 2, 5, 4, 3, 0, 1]},
    "hextris.replay": {"problem": 1, "seed": 0, "source": "reference"},
}


def _answer(kind: str, result: dict):
    """What a job computed (its answer, without times or where it ran)."""
    if kind == "polyomino.count":
        return [result["solutions"], result["distinct"]]
    if kind == "sliding.solve":
        return [result["length"], result["moves"], result["nodes"]]
    return [result["final"]["total"], result["final"]["move_score"], result["n_commands"]]


FRESH_TASK = """
import json, sys
from pathlib import Path
from puzzlebatch.web.jobs import run_task
from puzzlebatch.web.tasks import Context
kind, params, folder = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
print(json.dumps(run_task(kind, params, Context(results_dir=Path(folder)))))
"""


def test_one_web_worker_runs_every_ordered_pair_of_job_kinds_like_fresh_processes(tmp_path):
    pytest.importorskip("fastapi", reason="the web extra is not installed")
    from puzzlebatch.web.jobs import JobManager

    fresh = {}
    for kind, params in WEB_JOBS.items():
        proc = subprocess.run([sys.executable, "-c", FRESH_TASK, kind, json.dumps(params), str(tmp_path)],
                              capture_output=True, text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert proc.returncode == 0, proc.stderr[-3000:]
        fresh[kind] = _answer(kind, json.loads(proc.stdout.strip().splitlines()[-1]))
    seq = every_ordered_pair(sorted(WEB_JOBS))
    manager = JobManager(1, (), tmp_path).start()
    try:
        previous = None
        for kind in seq:
            job = manager.submit(kind, WEB_JOBS[kind], "isolation-test")
            while (doc := manager.get(job["id"]))["status"] not in ("done", "failed", "cancelled"):
                time.sleep(0.05)  # polls a state; no deadline: a busy machine only makes it slower
            assert doc["status"] == "done", doc
            got = _answer(kind, doc["result"])
            assert got == fresh[kind], f"{kind} after {previous} in one web worker: {got}; fresh: {fresh[kind]}"
            previous = kind
        assert len(manager.workers()) == 1
    finally:
        manager.close()
