"""Requests meant to take the web server down: sizes read from a results file, a replay too large for a worker,
links out of the served folder, damaged files, and a worker process that dies."""

import os
import signal
import time

import h5py
import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed")

from fastapi.testclient import TestClient  # noqa: E402

from puzzlebatch.results.store import ResultsStore  # noqa: E402
from puzzlebatch.web.app import create_app  # noqa: E402
from puzzlebatch.web.jobs import JobManager  # noqa: E402


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("served")
    jobs = JobManager(1, (), root)  # never started: nothing here may reach a worker
    app = create_app(root, jobs=jobs, allowed_hosts=None)
    with TestClient(app) as c:
        yield c, root


def err(r, status):
    assert r.status_code == status, r.text
    doc = r.json()
    assert set(doc) == {"error"} and "\n" not in doc["error"] and doc["error"]
    return doc["error"]


def _snake_file(path, box, cells=(0, 1, 2)):
    with ResultsStore(path, "w") as store:
        run = store.create_run("snake", "count", backend="cpu", device="cpu", seed=None,
                               params={"chain": "FFF", "box": "x".join(map(str, box)), "all": True},
                               instances={"chain": np.zeros(len(cells), np.int8), "box": np.array(box, np.int64)})
        run.append_items(cells=np.array([cells], np.int64), weight=np.array([1], np.int64))
    return path


def test_a_huge_box_in_a_file_is_refused_like_a_typed_one(served):
    client, root = served
    _snake_file(root / "bigbox.h5", (1000, 1000, 400))
    q = {"path": "bigbox.h5", "run": "snake-count-0000", "row": 0}
    line = err(client.get("/api/results/solution", params=q), 400)
    assert "1000x1000x400" in line and "over the limit" in line and "PUZZLEBATCH_MAX_CELLS" in line
    assert client.get("/api/health").status_code == 200
    _snake_file(root / "smallbox.h5", (3, 1, 1))  # the same file with a sensible box is drawn
    doc = client.get("/api/results/solution", params=q | {"path": "smallbox.h5"}).json()
    assert doc["kind"] == "snake" and doc["cells"] == [[0, 0, 0], [1, 0, 0], [2, 0, 0]]


def test_a_replay_that_would_not_fit_is_refused_before_the_job(served, monkeypatch):
    client, _ = served
    monkeypatch.setenv("PUZZLEBATCH_MAX_MEMORY", str(1 << 30))
    side = 1000
    problem = {"id": 99, "width": side, "height": side, "sourceLength": 1, "sourceSeeds": [0], "filled": [],
               "units": [{"members": [{"x": x, "y": 0} for x in range(side)], "pivot": {"x": 0, "y": 0}}]}
    body = {"problem": problem, "seed": 0, "source": "text", "solution": "a" * 999_000}
    line = err(client.post("/api/hextris/replay", json=body), 400)
    assert "replay of problem 99" in line and "over the limit" in line, line
    assert client.get("/api/jobs/mine").status_code in (200, 404)  # the server still answers
    assert client.get("/api/health").json()["status"] == "ok"


def test_body_over_the_limit_is_refused(served):
    from puzzlebatch.web import limits

    client, _ = served
    r = client.post("/api/hextris/replay", content=b"x" * (limits.MAX_BODY_BYTES + 1),
                    headers={"content-type": "application/json"})
    assert "limit" in err(r, 413)


def test_links_and_damaged_files_are_one_line_errors(served):
    client, root = served
    outside = root.parent / "outside-secret.h5"
    with h5py.File(outside, "w") as f:
        f.create_dataset("secret", data=np.arange(3))
    path = _snake_file(root / "linked.h5", (3, 1, 1))
    with h5py.File(path, "r+") as f:
        items = f["runs/snake-count-0000/items"]
        del items["cells"]
        items["cells"] = h5py.ExternalLink(str(outside), "/secret")
    path = _snake_file(root / "negative.h5", (3, 1, 1))
    with h5py.File(path, "r+") as f:
        f["runs/snake-count-0000"].attrs.modify("n_committed", np.int64(-1))
    path = _snake_file(root / "runsdataset.h5", (3, 1, 1))
    with h5py.File(path, "r+") as f:
        del f["runs"]
        f["runs"] = np.arange(3)
    for name, words in (("linked.h5", "external link"), ("negative.h5", "negative"),
                        ("runsdataset.h5", "not a group")):
        for url, extra in (("/api/results/file", {}), ("/api/results/items", {"run": "snake-count-0000"}),
                           ("/api/results/solution", {"run": "snake-count-0000", "row": 0})):
            line = err(client.get(url, params={"path": name} | extra), 400)
            assert words in line and name in line, (url, line)


def test_a_worker_that_dies_is_replaced(tmp_path):
    jobs = JobManager(1, (), tmp_path).start()
    try:
        app = create_app(tmp_path, jobs=jobs, allowed_hosts=None)
        with TestClient(app) as client:
            first = _wait_worker(client, lambda w: w["state"] == "idle")
            os.kill(first["pid"], signal.SIGKILL)
            assert client.get("/api/health").json()["status"] == "ok"
            again = _wait_worker(client, lambda w: w["state"] == "idle" and w["pid"] != first["pid"])
            assert again["started"] == 2
    finally:
        jobs.close()


def _wait_worker(client, ok):
    for _ in range(6000):  # a bound on polls, not on time: a spawned worker imports the package first
        w = client.get("/api/workers").json()["workers"][0]
        if ok(w):
            return w
        time.sleep(0.05)
    raise AssertionError(f"worker never became ready: {w}")
