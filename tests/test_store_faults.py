"""Killed writers and full disks: the results store is stopped at every one of its writes and resumed.

``crash`` injection freezes the disk at write N exactly as a kill would leave it (every later write of the process
is dropped) and lets the test go on in this process; ``exit`` injection really ends a child process there
(``os._exit``); ``enospc`` fails write N with "no space left on device".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.results import journal, store as store_module
from puzzlebatch.results.store import ResultsStore
from tests import store_scenario

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _disarm(monkeypatch):
    monkeypatch.setattr(journal, "SYNC", False)  # fsync guards against power cuts, not kills: faster here
    yield
    journal.inject(None)


def _writes_of_whole_run(path: Path) -> int:
    journal.inject(None)
    store_scenario.resume(path)
    n = journal.writes_so_far()
    path.unlink()
    return n


def _check_after_kill(path: Path) -> None:
    """What a reader sees after the kill: the file as of some commit (or still empty)."""
    if not path.exists() or path.stat().st_size == 0 and not journal.journal_path(path).exists():
        return
    try:
        store = ResultsStore(path, "r")
    except PuzzleInputError as exc:
        assert "empty results file" in str(exc)
        return
    with store:
        for run_id in store.run_ids():
            run = store.run(run_id)
            rows = run.items().get("value", np.zeros(0, np.int64))
            np.testing.assert_array_equal(rows, np.arange(len(rows)))  # a prefix of the rows, none twice
            ck = run.load_checkpoint()
            if ck is not None:
                assert ck[1]["rows"] <= run.n_committed
            if run.attrs["status"] == "done":
                assert run.attrs["result"] == {"rows": len(store_scenario.expected_rows())}


def _check_finished(path: Path) -> None:
    with ResultsStore(path, "r") as store:
        assert len(store.run_ids()) == 1
        run = store.latest_run()
        np.testing.assert_array_equal(run.items()["value"], store_scenario.expected_rows())
        assert run.items()["grid"].shape == (len(store_scenario.expected_rows()), 2, 3)
        assert run.attrs["result"] == {"rows": 40} and run.attrs["status"] == "done"
        np.testing.assert_array_equal(run.series("progress")[1], [10, 20, 30, 40])
        np.testing.assert_array_equal(run.instances()["sizes"], np.arange(4))
    assert not journal.journal_path(path).exists()


@pytest.mark.parametrize("spill", ["memory", "spill"])
def test_a_kill_at_every_write_resumes_to_the_same_run(tmp_path, monkeypatch, spill):
    if spill == "spill":  # pending pages written early (journal first) at every write: the other code path
        monkeypatch.setattr(journal, "SPILL_BYTES", 0)
    messages = []
    monkeypatch.setattr(store_module, "say", messages.append)
    path = tmp_path / "run.h5"
    total = _writes_of_whole_run(path)
    assert total > 50
    for n in range(1, total + 1):
        journal.inject("crash", n)
        with pytest.raises(journal.SimulatedCrash):
            store_scenario.resume(path)
        journal.inject(None)
        _check_after_kill(path)
        store_scenario.resume(path)
        _check_finished(path)
        path.unlink()
    # Every kill inside a commit was reported and rolled back on the next open (one line each).
    assert messages and all("rolled back a write interrupted by a crash" in m for m in messages)


def test_a_second_kill_during_recovery(tmp_path):
    """Killed, then killed again while the next writer resumes: still one run, exact rows."""
    path = tmp_path / "run.h5"
    total = _writes_of_whole_run(path)
    for first in range(total // 3, total, max(1, total // 6)):
        journal.inject("crash", first)
        with pytest.raises(journal.SimulatedCrash):
            store_scenario.resume(path)
        journal.inject("crash", 3)
        with pytest.raises(journal.SimulatedCrash):
            store_scenario.resume(path)
        journal.inject(None)
        store_scenario.resume(path)
        _check_finished(path)
        path.unlink()


def test_real_process_exit_at_writes(tmp_path):
    """The same with real child processes ending at write N (``os._exit``, no cleanup), at a spread of N."""
    path = tmp_path / "run.h5"
    total = _writes_of_whole_run(path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    script = Path(store_scenario.__file__)
    for n in sorted({1, 2, total // 4, total // 2, 3 * total // 4, total - 1, total}):
        proc = subprocess.run([sys.executable, str(script), str(path)], env=env | {"PUZZLEBATCH_STORE_FAULT":
                              f"exit:{n}"}, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 137, proc.stderr[-2000:]
        proc = subprocess.run([sys.executable, str(script), str(path)], env=env, capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert len(proc.stderr.strip().splitlines()) <= 1  # at most the one-line rollback notice
        _check_finished(path)
        path.unlink()


def test_disk_full_is_one_line_and_keeps_the_last_commit(tmp_path):
    path = tmp_path / "run.h5"
    total = _writes_of_whole_run(path)
    for n in range(2, total + 1, 7):
        journal.inject("enospc", n)
        try:
            store_scenario.resume(path)
        except PuzzleInputError as exc:
            message = str(exc)
            assert "No space left on device" in message and "keeps its last commit" in message
            assert "\n" not in message
        else:  # only HDF5's bookkeeping at close failed: everything was committed before
            assert n > total - 8
        journal.inject(None)
        assert not journal.journal_path(path).exists()  # rolled back at once, nothing half-written left
        _check_after_kill(path)
        store_scenario.resume(path)
        _check_finished(path)
        path.unlink()


def test_reader_sees_the_last_commit_through_a_hot_journal(tmp_path, monkeypatch):
    path = tmp_path / "run.h5"
    with ResultsStore(path) as store:
        run = store.create_run("t", "r", backend="cpu", device="cpu", seed=None, params={})
        run.append_items(value=np.arange(5))
    monkeypatch.setattr(journal, "SPILL_BYTES", 0)  # committed pages reach the file before the commit
    journal.inject("crash", 4)
    with pytest.raises(journal.SimulatedCrash):
        with ResultsStore(path) as store:
            store.run(run.id).append_items(value=np.arange(5, 900))
    journal.inject(None)
    assert journal.journal_path(path).exists()
    before = path.read_bytes()
    with ResultsStore(path, "r") as store:  # reads through the journal, changes nothing
        np.testing.assert_array_equal(store.run(run.id).items()["value"], np.arange(5))
    assert path.read_bytes() == before and journal.journal_path(path).exists()
    with ResultsStore(path, "a") as store:
        np.testing.assert_array_equal(store.run(run.id).items()["value"], np.arange(5))
    assert not journal.journal_path(path).exists()
