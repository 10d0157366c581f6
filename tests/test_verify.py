"""``--verify``: every count computed a second time along another split of the work, and a mismatch never reported
as complete (exit 3, one line, the stored run left unfinished)."""

from __future__ import annotations

import json

import h5py
import pytest

from puzzlebatch.cli import main
from puzzlebatch.errors import EXIT_MISMATCH
from puzzlebatch.runners.engine import verify
from puzzlebatch.runners.engine.search import SearchSettings

COUNTS = {
    "snake": (["snake", "count", "FJJJJJJF", "--box", "2x2x2"], ("embeddings", "distinct")),
    "cubes": (["cubes", "count", "--figure", "2x1x1"], ("assemblies", "distinct")),
    "polyomino": (["polyomino", "count", "--board", "10x4", "--pieces", "dominoes", "--unlimited"], ("solutions",)),
}


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("family", sorted(COUNTS))
def test_verify_agrees_and_says_how(family, tmp_path, capsys):
    argv, keys = COUNTS[family]
    code, out, err = run_cli(capsys, *argv, "--backend", "cpu", "--json", "--verify", "--out", str(tmp_path / "v.h5"))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["verified"]["keys"] == list(keys)
    assert "symmetry merging off" in doc["verified"]["second_split"]
    code, out, _ = run_cli(capsys, *argv, "--backend", "cpu", "--json")
    plain = json.loads(out)
    assert "verified" not in plain and all(plain[k] == doc[k] for k in keys)


def test_the_second_split_cuts_the_work_otherwise():
    s = SearchSettings(budget=1 << 16, batch_size=1 << 16, frontier_target=256, first_batch_size=64)
    t = verify.second_split(s)
    assert (t.budget, t.batch_size, t.frontier_target) != (s.budget, s.batch_size, s.frontier_target)
    assert all(v >= 1 for v in (t.budget, t.batch_size, t.frontier_target, t.first_batch_size))
    one = verify.second_split(SearchSettings(1, 1, 1, 1))
    assert (one.budget, one.batch_size, one.first_batch_size) == (1, 1, 1)


@pytest.mark.parametrize("family", sorted(COUNTS))
def test_a_mismatch_is_refused(family, tmp_path, capsys, monkeypatch):
    """An injected fault in the second count (one solution more) must end the command with status 3 and one line,
    and leave the stored run unfinished."""
    import importlib

    argv, keys = COUNTS[family]
    solver = importlib.import_module(f"puzzlebatch.runners.{family}.solver")
    name = "count_packing_run" if family == "polyomino" else "count"
    real = getattr(solver, name)
    calls = []

    def faulty(*a, **kw):
        result, rest, totals = real(*a, **kw)
        calls.append(1)
        if len(calls) == 2:  # the verifying count
            setattr(result, keys[0], getattr(result, keys[0]) + 1)
        return result, rest, totals

    monkeypatch.setattr(solver, name, faulty)
    out_file = tmp_path / "v.h5"
    code, out, err = run_cli(capsys, *argv, "--backend", "cpu", "--json", "--verify", "--out", str(out_file))
    assert code == EXIT_MISMATCH
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("puzzlebatch: error: --verify:") and keys[0] in lines[0]
    with h5py.File(out_file, "r") as f:
        statuses = [f["runs"][r].attrs["status"] for r in f["runs"]]
    assert statuses and "done" not in statuses
