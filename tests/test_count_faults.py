"""A real count killed at every write of its results file, then resumed: always the exact answer, every row once.

``snake count --all`` of the source document's chain in four small launches, a checkpoint after each: the run
is stopped at write 1, 2, ... of its store (the disk frozen as a kill would leave it), then finished with
``--resume`` (or started again when the kill came before its run was committed), and compared with an
uninterrupted run: the count, and every stored row with its weight, in the same order.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from puzzlebatch.cli import main
from puzzlebatch.results import journal
from puzzlebatch.results.store import ResultsStore

REPO = Path(__file__).resolve().parents[1]


def _args(out: Path) -> list[str]:
    return ["snake", "count", "--backend", "cpu", "--all", "--budget", "1000", "--batch-size", "8", "--frontier",
            "4", "--checkpoint-every", "0", "--out", str(out), "--json"]


def _quiet(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _stored(out: Path) -> tuple[dict, dict]:
    with ResultsStore(out, "r") as store:
        (run_id,) = store.run_ids()  # one run, never a second one
        run = store.run(run_id)
        assert run.attrs["status"] == "done"
        return run.attrs["result"], run.items()


def _state(out: Path) -> str:
    """What a kill left: ``none`` (no run committed yet), ``unfinished`` or ``done``."""
    if not out.exists() or out.stat().st_size == 0 and not journal.journal_path(out).exists():
        return "none"
    with ResultsStore(out, "a") as store:  # a writer's open: rolls back an unfinished commit
        statuses = [store.run(r).attrs["status"] for r in store.run_ids()]
    return "none" if not statuses else "done" if statuses == ["done"] else "unfinished"


@pytest.fixture(autouse=True)
def _disarm(monkeypatch):
    monkeypatch.setattr(journal, "SYNC", False)  # fsync guards against power cuts, not kills: faster here
    yield
    journal.inject(None)


def _reference(tmp_path) -> tuple[int, dict, dict]:
    out = tmp_path / "reference.h5"
    journal.inject(None)
    assert _quiet(_args(out))[0] == 0
    writes = journal.writes_so_far()
    result, items = _stored(out)
    assert result["embeddings"] == 48 and result["distinct"] == 1
    return writes, result, items


def _same(result: dict, items: dict, ref_result: dict, ref_items: dict) -> None:
    assert (result["embeddings"], result["distinct"]) == (ref_result["embeddings"], ref_result["distinct"])
    np.testing.assert_array_equal(items["cells"], ref_items["cells"])
    np.testing.assert_array_equal(items["weight"], ref_items["weight"])


def test_count_killed_at_every_write_resumes_exactly(tmp_path):
    total, ref_result, ref_items = _reference(tmp_path)
    assert total > 60
    out = tmp_path / "killed.h5"
    for n in range(1, total + 1):
        journal.inject("crash", n)
        with pytest.raises(journal.SimulatedCrash):
            _quiet(_args(out))
        gc.collect()  # the crashed session's store: closed (its writes are dropped), its lock released
        journal.inject(None)
        state = _state(out)
        if state == "unfinished":
            code, _, err = _quiet(_args(out) + ["--resume"])
        elif state == "none":  # killed before its run was committed: start again
            code, _, err = _quiet(_args(out))
        else:  # killed while closing a finished run
            code, err = 0, ""
        assert code == 0, (n, err)
        _same(*_stored(out), ref_result, ref_items)
        out.unlink()


def test_count_process_exits_mid_checkpoint_and_resumes(tmp_path):
    """A real child process ended (``os._exit``) in the middle of its second checkpoint, resumed by another."""
    total, ref_result, ref_items = _reference(tmp_path)
    out = tmp_path / "exited.h5"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-m", "puzzlebatch", *_args(out)]
    proc = subprocess.run(cmd, env=env | {"PUZZLEBATCH_STORE_FAULT": f"exit:{total // 2}"}, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 137, proc.stderr[-2000:]
    proc = subprocess.run(cmd + ["--resume"], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["embeddings"] == 48
    _same(*_stored(out), ref_result, ref_items)
