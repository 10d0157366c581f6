"""Results files that are not as the store writes them: links out of the file, virtual datasets, damaged
structure, and a reader polling a file while its writer commits (an injected interleaving, not a race)."""

import h5py
import numpy as np
import pytest

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.results.store import ResultsStore


def _made(path, rows=3):
    with ResultsStore(path, "w") as store:
        run = store.create_run("test", "scenario", backend="cpu", device="cpu", seed=None, params={})
        run.append_items(value=np.arange(rows))
    return path


def _refused(path, *words):
    with pytest.raises(PuzzleInputError) as info:
        with ResultsStore(path, "r") as store:
            store.run(store.run_ids()[0]).items()
    line = str(info.value)
    assert "\n" not in line and str(path) in line
    for w in words:
        assert w in line, line
    return line


def test_external_link_to_items_is_refused(tmp_path):
    outside = tmp_path / "outside.h5"
    with h5py.File(outside, "w") as f:
        f.create_dataset("secret", data=np.arange(5))
    path = _made(tmp_path / "linked.h5")
    with h5py.File(path, "r+") as f:
        items = f["runs/test-scenario-0000/items"]
        del items["value"]
        items["value"] = h5py.ExternalLink(str(outside), "/secret")
    _refused(path, "external link", "/runs/test-scenario-0000/items/value")


def test_external_link_as_a_run_and_soft_link_are_refused(tmp_path):
    path = _made(tmp_path / "linked.h5")
    with h5py.File(path, "r+") as f:
        f["runs"]["other"] = h5py.ExternalLink(str(tmp_path / "elsewhere.h5"), "/runs/x")
    _refused(path, "external link", "/runs/other")
    path = _made(tmp_path / "soft.h5")
    with h5py.File(path, "r+") as f:
        f["runs"]["alias"] = h5py.SoftLink("/runs/test-scenario-0000")
    _refused(path, "soft link")


def test_virtual_dataset_is_refused(tmp_path):
    outside = tmp_path / "outside.h5"
    with h5py.File(outside, "w") as f:
        f.create_dataset("secret", data=np.arange(3))
    path = _made(tmp_path / "virtual.h5")
    with h5py.File(path, "r+") as f:
        layout = h5py.VirtualLayout(shape=(3,), dtype=np.int64)
        layout[:] = h5py.VirtualSource(str(outside), "/secret", shape=(3,))
        items = f["runs/test-scenario-0000/items"]
        del items["value"]
        items.create_virtual_dataset("value", layout)
    _refused(path, "virtual dataset")


def test_runs_a_dataset_and_negative_counter(tmp_path):
    path = _made(tmp_path / "runs-dataset.h5")
    with h5py.File(path, "r+") as f:
        del f["runs"]
        f["runs"] = np.arange(4)
    with pytest.raises(PuzzleInputError, match="/runs: a dataset, not a group"):
        ResultsStore(path, "r")
    path = _made(tmp_path / "negative.h5")
    with h5py.File(path, "r+") as f:
        f["runs/test-scenario-0000"].attrs.modify("n_committed", np.int64(-5))
    _refused(path, "n_committed is negative (-5)")


def test_counter_past_the_rows_reads_only_the_rows(tmp_path):
    path = _made(tmp_path / "ahead.h5", rows=3)
    with h5py.File(path, "r+") as f:
        f["runs/test-scenario-0000"].attrs.modify("n_committed", np.int64(10))
    with ResultsStore(path, "r") as store:
        run = store.run("test-scenario-0000")
        assert run.items()["value"].tolist() == [0, 1, 2]
        assert run.item_rows(0, 10)["value"].tolist() == [0, 1, 2]


def test_reader_between_rows_and_counter_sees_the_last_commit(tmp_path, monkeypatch):
    """The writer's commits are intercepted: after every commit a reader opens the file (as a server polling it
    would) and reads every run's rows.  Each view must be a prefix of the final rows, never zeros inside the
    counter, and the rows must reach the disk in a commit of their own before the counter that exposes them."""
    path = tmp_path / "polled.h5"
    views = []
    real_commit = ResultsStore._commit

    def commit_then_read(self):
        real_commit(self)
        with ResultsStore(path, "r") as reader:
            for run_id in reader.run_ids():
                run = reader.run(run_id)
                with h5py.File(path, "r", locking=False) as raw:
                    stored = raw[f"runs/{run_id}/items/value"].shape[0] if "items" in raw[f"runs/{run_id}"] \
                        and "value" in raw[f"runs/{run_id}/items"] else 0
                views.append((run.n_committed, stored, run.items().get("value", np.zeros(0)).tolist()))

    monkeypatch.setattr(ResultsStore, "_commit", commit_then_read)
    with ResultsStore(path, "w") as store:
        run = store.create_run("test", "poll", backend="cpu", device="cpu", seed=None, params={})
        for b in range(4):
            run.append_items(value=np.arange(10 * b + 1, 10 * b + 11))
    final = list(range(1, 41))
    assert views, "the reader never ran"
    for n, _, rows in views:
        assert rows == final[:n], (n, rows)
    # a commit where the rows are stored but not yet counted: the protocol's first step, seen by a reader
    assert any(stored > n for n, stored, _ in views), views
