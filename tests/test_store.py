"""Tests for the HDF5 results store (puzzlebatch.results.store) and its `show` summaries."""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import h5py
import numpy as np
import pytest

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.results.show import describe, format_text
from puzzlebatch.results.store import SCHEMA_VERSION, ResultsStore

REPO = Path(__file__).resolve().parents[1]
WRITER = Path(__file__).with_name("store_writer_proc.py")


def _make_store(path: Path) -> tuple[str, str]:
    """Two runs with every kind of content; returns their ids."""
    with ResultsStore(path) as store:
        a = store.create_run("snake", "dlx", backend="cpu", device="cpu0", seed=7,
                             params={"n": np.int64(3), "sizes": np.arange(3), "name": "x"})
        a.set_instances(chains=np.arange(12).reshape(3, 4), labels=np.array(["a", "bb", "ccc"]))
        for b in range(3):
            a.append_items(index=np.arange(4 * b, 4 * b + 4), solution=np.full((4, 2, 2), b, np.int8),
                           score=np.linspace(0, 1, 4) + b)
        a.append_series("progress", 0, 0.5)
        a.append_series("progress", np.array([1, 2]), np.array([0.75, 1.0]))
        a.save_checkpoint({"frontier": np.arange(5)}, {"depth": 1})
        a.save_checkpoint({"frontier": np.arange(7), "seen": np.ones(3, bool)}, {"depth": np.int32(2)})
        a.set_result({"count": np.int64(12), "best": 2.5})
        a.finish(seconds=1.25)
        b = store.create_run("polyomino", "count", backend="cuda", device="H100", seed=None, params={})
        b.append_items(count=np.array([5]))
        return a.id, b.id


def test_round_trip(tmp_path):
    path = tmp_path / "sub" / "results.h5"
    with pytest.raises(PuzzleInputError, match="directory .*sub does not exist"):
        ResultsStore(path)  # no directory is created that the user did not name
    assert not path.parent.exists()
    path.parent.mkdir()
    id_a, id_b = _make_store(path)
    assert (id_a, id_b) == ("snake-dlx-0000", "polyomino-count-0001")

    with ResultsStore(path, "r") as store:
        assert store.attrs["schema"] == "puzzlebatch-results"
        assert store.attrs["schema_version"] == SCHEMA_VERSION
        assert store.run_ids() == [id_a, id_b]
        a = store.run(id_a)
        attrs = a.attrs
        assert attrs["family"] == "snake" and attrs["algorithm"] == "dlx"
        assert (attrs["backend"], attrs["device"], attrs["seed"]) == ("cpu", "cpu0", 7)
        assert attrs["params"] == {"n": 3, "sizes": [0, 1, 2], "name": "x"}
        assert attrs["result"] == {"count": 12, "best": 2.5}
        assert attrs["status"] == "done" and attrs["seconds"] == 1.25
        assert attrs["n_committed"] == a.n_committed == 12
        assert attrs["started"].endswith("+00:00") and attrs["finished"] >= attrs["started"]
        json.dumps(attrs)  # plain Python values only

        inst = a.instances()
        np.testing.assert_array_equal(inst["chains"], np.arange(12).reshape(3, 4))
        assert list(inst["labels"]) == ["a", "bb", "ccc"]

        items = a.items()
        assert list(items) == ["index", "solution", "score"]  # column creation order
        np.testing.assert_array_equal(items["index"], np.arange(12))
        assert items["solution"].shape == (12, 2, 2) and items["solution"].dtype == np.int8
        np.testing.assert_array_equal(items["solution"][:, 0, 0], np.repeat([0, 1, 2], 4))
        np.testing.assert_allclose(items["score"][4:8], np.linspace(0, 1, 4) + 1)

        step, value = a.series("progress")
        np.testing.assert_array_equal(step, [0, 1, 2])
        np.testing.assert_allclose(value, [0.5, 0.75, 1.0])
        with pytest.raises(KeyError):
            a.series("nope")

        arrays, meta = a.load_checkpoint()
        assert meta == {"depth": 2} and sorted(arrays) == ["frontier", "seen"]
        np.testing.assert_array_equal(arrays["frontier"], np.arange(7))

        b = store.run(id_b)
        assert b.attrs["seed"] is None and b.attrs["result"] is None and b.attrs["status"] == "running"
        assert b.load_checkpoint() is None

        assert store.latest_run().id == id_b
        assert store.latest_run(family="snake").id == id_a
        assert store.latest_run(status="done").id == id_a
        assert store.latest_run(status=("running", "interrupted")).id == id_b
        assert store.latest_run(algorithm="count", status="done") is None
        with pytest.raises(PuzzleInputError, match="no run named"):
            store.run("missing")
        with pytest.raises(ValueError, match="read-only"):
            store.create_run("x", "y", backend="cpu", device="cpu", seed=None, params={})

    with ResultsStore(path) as store:  # reopening for writing keeps everything and continues numbering
        c = store.create_run("snake", "dlx", backend="cpu", device="cpu", seed=2**70, params={})
        assert c.id == "snake-dlx-0002" and c.attrs["seed"] == 2**70
        assert store.run(id_a).n_committed == 12


def test_truncation_on_reopen(tmp_path):
    path = tmp_path / "r.h5"
    with ResultsStore(path) as store:
        run = store.create_run("snake", "dlx", backend="cpu", device="cpu", seed=1, params={})
        run.append_items(value=np.arange(5), grid=np.zeros((5, 2, 3)))
        run.append_series("progress", np.arange(3), np.arange(3.0))
        run.save_checkpoint({"a": np.arange(2)}, {"k": 1})
        empty = store.create_run("snake", "dlx", backend="cpu", device="cpu", seed=1, params={})
        empty.append_items(value=np.arange(0))  # columns created, nothing committed

    # A writer killed mid-batch: columns grown and filled with junk, counters not bumped, and a
    # half-written checkpoint next to the complete one.
    with h5py.File(path, "a") as f:
        group = f[f"runs/{run.id}"]
        group["items/value"].resize(9, axis=0)
        group["items/value"][5:] = 999
        group["items/grid"].resize(7, axis=0)
        group["series/progress/step"].resize(6, axis=0)
        group.create_group("checkpoint_new").create_dataset("a", data=np.arange(50))

    with ResultsStore(path, "r") as store:  # readers trust [:n_committed] without changing the file
        run = store.run(run.id)
        np.testing.assert_array_equal(run.items()["value"], np.arange(5))
        assert run.load_checkpoint()[1] == {"k": 1}
        assert len(run.series("progress")[0]) == 3

    with ResultsStore(path, "a") as store:
        run = store.run(run.id)
        assert run.n_committed == 5
        np.testing.assert_array_equal(run.items()["value"], np.arange(5))
        run.append_items(value=np.arange(5, 8), grid=np.ones((3, 2, 3)))
        assert "items" not in store.run(empty.id)._group or not len(store.run(empty.id)._group["items"])
    with h5py.File(path, "r") as f:
        group = f[f"runs/{run.id}"]
        assert group["items/value"].shape == (8,) and group["items/grid"].shape == (8, 2, 3)
        np.testing.assert_array_equal(group["items/value"][:], np.arange(8))
        assert group["series/progress/step"].shape == (3,)
        assert "checkpoint_new" not in group and group["checkpoint/a"].shape == (2,)


def test_complete_leftover_checkpoint_is_kept(tmp_path):
    # Killed after deleting the old checkpoint but before the rename: the new one is complete.
    path = tmp_path / "c.h5"
    with ResultsStore(path) as store:
        run = store.create_run("snake", "dlx", backend="cpu", device="cpu", seed=1, params={})
        run.save_checkpoint({"a": np.arange(3)}, {"k": 1})
    with h5py.File(path, "a") as f:
        f.move(f"runs/{run.id}/checkpoint", f"runs/{run.id}/checkpoint_new")
    with ResultsStore(path, "r") as store:
        assert store.run(run.id).load_checkpoint()[1] == {"k": 1}
    with ResultsStore(path, "a") as store:
        arrays, meta = store.run(run.id).load_checkpoint()
        assert meta == {"k": 1} and "checkpoint" in store.run(run.id)._group


class _Writer:
    """tests/store_writer_proc.py as a child process: stdout lines in a queue, stderr in a file.

    Used as a context manager so the child is always killed and reaped, and the test never hangs.
    """

    def __init__(self, path: Path) -> None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
        self._stderr_path = path.with_name(path.name + ".stderr")
        self._stderr = open(self._stderr_path, "w")  # a file, not a pipe: a full pipe would stall the child
        self.proc = subprocess.Popen([sys.executable, str(WRITER), str(path)], stdout=subprocess.PIPE,
                                     stderr=self._stderr, text=True, env=env)
        self._lines: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)  # EOF

    def next_count(self, deadline: float) -> int:
        """The next printed commit count; fails the test on timeout or early exit."""
        try:
            line = self._lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            pytest.fail("writer process printed no commit in time")
        if line is None:
            pytest.fail(f"writer exited early (rc={self.proc.wait(10)}): {self._stderr_path.read_text()[-2000:]}")
        return int(line.split()[1])

    def kill(self) -> list[int]:
        """SIGKILL the child (if alive), reap it, and return the counts it printed that were not read yet."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self._thread.join(timeout=10)
        self.proc.stdout.close()
        self._stderr.close()
        rest = []
        while not self._lines.empty():
            line = self._lines.get_nowait()
            if line is not None:
                rest.append(int(line.split()[1]))
        return rest

    def __enter__(self) -> _Writer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.kill()


def _write_until_killed(path: Path, min_commits: int, delay: float) -> int:
    """Run the writer, SIGKILL it `delay` s after it reports `min_commits` rows; return its last count."""
    with _Writer(path) as writer:
        last, deadline = 0, time.monotonic() + 60
        while last < min_commits:
            last = writer.next_count(deadline)
        if delay:
            time.sleep(delay)
        rest = writer.kill()
        assert writer.proc.returncode == -signal.SIGKILL
    return max([last, *rest])  # counts printed before the kill but still in the pipe count too


def _check_committed(path: Path, at_least: int) -> int:
    with ResultsStore(path, "a") as store:
        (run_id,) = store.run_ids()
        run = store.run(run_id)
        n = run.n_committed
        assert n >= at_least
        items = run.items()
        np.testing.assert_array_equal(items["value"], np.arange(n))  # nothing lost, nothing repeated
        np.testing.assert_array_equal(items["grid"], np.broadcast_to(np.arange(n)[:, None, None], (n, 3, 4)))
        raw = run._group["items"]
        assert raw["value"].shape == (n,) and raw["grid"].shape == (n, 3, 4)  # uncommitted tail gone
        return n


@pytest.mark.parametrize("case", [0, 1, 2])
def test_sigkill_loses_nothing(tmp_path, case):
    rng = random.Random(1000 + case)
    delay = [0.0, rng.uniform(0.0005, 0.005), rng.uniform(0.005, 0.03)][case]  # 0: kill right after a read
    path = tmp_path / "killed.h5"
    last = _write_until_killed(path, 20 * 10, delay)
    n = _check_committed(path, last)
    # A second writer resumes the same run from its committed count and is killed in turn.
    last = _write_until_killed(path, n + 10 * rng.randint(5, 20), rng.uniform(0, 0.01))
    n = _check_committed(path, last)
    with ResultsStore(path, "a") as store:  # and this process can append after it
        run = store.latest_run()
        run.append_items(value=np.arange(n, n + 3), grid=np.broadcast_to(np.arange(n, n + 3)[:, None, None],
                                                                          (3, 3, 4)))
        run.finish("interrupted")
    assert _check_committed(path, n + 3) == n + 3


def test_file_held_by_a_live_writer(tmp_path):
    path = tmp_path / "live.h5"
    with _Writer(path) as writer:
        writer.next_count(time.monotonic() + 60)
        with pytest.raises(PuzzleInputError, match="another process has it open for writing"):
            ResultsStore(path, "a")
        desc = describe(path)  # readers open without a lock
        assert desc["runs"][0]["status"] == "running" and desc["runs"][0]["n_committed"] >= 10


def test_open_errors(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not hdf5\n")
    for mode in ("r", "a"):
        with pytest.raises(PuzzleInputError, match="notes.txt: not an HDF5 file"):
            ResultsStore(text, mode)
    with pytest.raises(PuzzleInputError, match="missing.h5: no such results file"):
        ResultsStore(tmp_path / "missing.h5", "r")
    with pytest.raises(PuzzleInputError, match="is a directory"):
        ResultsStore(tmp_path, "a")

    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f.attrs["schema"] = "something-else"
        f.create_group("data")
    with pytest.raises(PuzzleInputError, match=r"other\.h5: not a puzzlebatch results file"):
        ResultsStore(other, "a")

    newer = tmp_path / "newer.h5"
    ResultsStore(newer).close()
    with h5py.File(newer, "a") as f:
        f.attrs["schema_version"] = SCHEMA_VERSION + 1
    with pytest.raises(PuzzleInputError, match=r"newer\.h5: schema_version 2 is newer"):
        ResultsStore(newer, "r")
    with pytest.raises(ValueError):
        ResultsStore(newer, "rw")


def test_append_errors(tmp_path):
    with ResultsStore(tmp_path / "e.h5") as store:
        run = store.create_run("snake", "dlx", backend="cpu", device="cpu", seed=None, params={})
        run.append_items(value=np.arange(3), grid=np.zeros((3, 2)))
        with pytest.raises(ValueError, match="differ from the stored columns"):
            run.append_items(value=np.arange(3))
        with pytest.raises(ValueError, match="differ from the stored columns"):
            run.append_items(value=np.arange(3), grid=np.zeros((3, 2)), extra=np.arange(3))
        with pytest.raises(ValueError, match="different lengths"):
            run.append_items(value=np.arange(3), grid=np.zeros((2, 2)))
        with pytest.raises(ValueError, match="rows of shape"):
            run.append_items(value=np.arange(3), grid=np.zeros((3, 5)))
        with pytest.raises(ValueError, match="without loss"):
            run.append_items(value=np.linspace(0, 1, 3), grid=np.zeros((3, 2)))
        with pytest.raises(ValueError, match="scalar"):
            run.append_items(value=1, grid=np.zeros((1, 2)))
        with pytest.raises(ValueError, match="already exists"):
            store.create_run("a", "b", backend="cpu", device="cpu", seed=None, params={}, run_id=run.id)
        with pytest.raises(ValueError, match="without '/'"):
            store.create_run("a", "b", backend="cpu", device="cpu", seed=None, params={}, run_id="a/b")
        run.set_instances(x=np.arange(2))
        with pytest.raises(ValueError, match="already set"):
            run.set_instances(x=np.arange(2))
        with pytest.raises(ValueError, match="status must be"):
            run.finish("finished")
        assert run.n_committed == 3  # failed appends wrote nothing
        np.testing.assert_array_equal(run.items()["value"], np.arange(3))


def test_string_column(tmp_path):
    with ResultsStore(tmp_path / "s.h5") as store:
        run = store.create_run("sliding", "idastar", backend="cpu", device="cpu", seed=None, params={})
        run.append_items(moves=np.array(["LURD", "UU"]), length=np.array([4, 2]))
        run.append_items(moves=["R"], length=[1])
        assert list(run.items()["moves"]) == ["LURD", "UU", "R"]


def test_a_few_rows_make_a_small_file(tmp_path):
    """A chunk is allocated whole: compressed columns keep a run of a few rows (and many such runs) small, and read
    back exactly, strings too."""
    path = tmp_path / "small.h5"
    rng = np.random.default_rng(1)
    cols = {"cell": rng.integers(0, 3, (27, 3)), "cube": np.arange(27), "score": rng.random(27),
            "moves": np.array([" ".join(map(str, rng.integers(1, 9, 30))) for _ in range(27)], dtype=object)}
    with ResultsStore(path) as store:
        for _ in range(5):
            run = store.create_run("cubes", "solve", backend="cpu", device="d", seed=None, params={})
            run.append_items(**cols)
            run.append_series("progress", np.arange(3), np.ones(3))
            run.finish("done")
    assert path.stat().st_size < 150_000  # 7 MB when every chunk took its full 256 KiB
    with ResultsStore(path, "r") as store:
        ids = store.run_ids()
        for run_id in ids:
            items = store.run(run_id).items()
            assert all(np.array_equal(items[k], cols[k]) for k in ("cell", "cube", "score"))
            assert items["moves"].tolist() == cols["moves"].tolist()
    with h5py.File(path, "r") as f:
        ds = f[f"runs/{ids[0]}/items/cell"]
        assert ds.compression == "gzip" and ds.shuffle and ds.fletcher32


def test_show(tmp_path):
    path = tmp_path / "show.h5"
    id_a, id_b = _make_store(path)
    desc = describe(path)
    assert json.loads(json.dumps(desc)) == desc
    assert desc["schema"] == "puzzlebatch-results" and desc["path"] == str(path)
    assert [r["id"] for r in desc["runs"]] == [id_a, id_b]
    a = desc["runs"][0]
    assert (a["family"], a["algorithm"], a["backend"], a["status"]) == ("snake", "dlx", "cpu", "done")
    assert a["n_committed"] == 12 and a["params"]["n"] == 3 and a["result"] == {"count": 12, "best": 2.5}
    assert a["columns"]["solution"] == {"dtype": "int8", "shape": [2, 2]}
    assert a["series"] == {"progress": 3} and a["checkpoint"] is True
    assert desc["runs"][1]["status"] == "running" and desc["runs"][1]["result"] is None

    text = format_text(desc)
    lines = text.splitlines()
    assert lines[1].split() == ["RUN", "FAMILY", "ALGORITHM", "BACKEND", "DEVICE", "STATUS", "ITEMS",
                                "SECONDS", "STARTED"]
    assert lines[2].split()[:7] == [id_a, "snake", "dlx", "cpu", "cpu0", "done", "12"]
    assert id_b in text and '"count": 12' in text and "params:" in text

    empty = tmp_path / "empty.h5"
    ResultsStore(empty).close()
    assert describe(empty)["runs"] == [] and "(no runs)" in format_text(describe(empty))
    with pytest.raises(PuzzleInputError):
        describe(tmp_path / "absent.h5")


def test_tables_and_dropping_the_checkpoint(tmp_path):
    from puzzlebatch.results.store import ResultsStore

    with ResultsStore(tmp_path / "t.h5", "a") as store:
        run = store.create_run("demo", "count", backend="cpu", device="cpu", seed=None, params={})
        run.save_checkpoint({"x": np.arange(3)}, {"k": 1})
        run.set_table("big", np.arange(10, dtype=np.uint8), {"encoding": "one byte a state"})
        run.set_table("big", np.arange(5, dtype=np.uint8))  # replaced as a whole
        run.drop_checkpoint()
        assert not run.has_checkpoint() and run.table("big").tolist() == [0, 1, 2, 3, 4]
        with pytest.raises(KeyError, match="no table 'nope'"):
            run.table("nope")
