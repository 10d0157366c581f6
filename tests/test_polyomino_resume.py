"""`polyomino count --all` resumed: the stored solution rows are exactly those of an uninterrupted run.  (In a file
that sorts after the other polyomino tests, so the kernels are compiled once per session.)"""

from __future__ import annotations

import json

from puzzlebatch.results.store import ResultsStore


def test_polyomino_enumeration_resumes_without_duplicates(tmp_path, capsys):
    """`polyomino count --all` stopped early, with rows committed after its last checkpoint (what a kill between
    the two leaves), resumes to exactly the rows of an uninterrupted run."""
    from puzzlebatch.cli import main

    base = ["polyomino", "count", "--board", "4x15", "--pieces", "pentominoes", "--all", "--json", "--backend", "cpu"]
    whole, part = tmp_path / "whole.h5", tmp_path / "part.h5"
    assert main(base + ["--out", str(whole)]) == 0
    doc = json.loads(capsys.readouterr().out)
    small = ["--budget", "200", "--batch-size", "2", "--frontier", "1"]  # many small launches: stop after two
    assert main(base + small + ["--out", str(part), "--max-batches", "2", "--checkpoint-every", "0"]) == 0
    assert not json.loads(capsys.readouterr().out)["complete"]
    with ResultsStore(part, "a") as st:  # rows past the checkpoint, as if killed before the next checkpoint
        run = st.run(st.run_ids()[-1])
        before = run.n_committed
        run.append_items(solution=run.items()["solution"][:1])
        assert run.n_committed == before + 1
    assert main(base + ["--out", str(part), "--resume"]) == 0
    assert json.loads(capsys.readouterr().out)["solutions"] == doc["solutions"]

    def rows(path):
        with ResultsStore(path, "r") as st:
            sol = st.run(st.run_ids()[-1]).items()["solution"]
        return sorted(map(tuple, sol.tolist()))

    assert rows(part) == rows(whole) and len(rows(whole)) == doc["solutions"] == len(set(rows(whole)))
