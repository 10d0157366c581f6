"""``pb.snake``: the Python API as a notebook user calls it, against the command line's documents."""

from __future__ import annotations

import json

import pytest

import puzzlebatch as pb
from puzzlebatch.cli import main
from puzzlebatch.results.store import ResultsStore

VOLATILE = {"command", "schema_version", "compile_seconds", "seconds", "h2d_bytes", "d2h_bytes", "launches", "work",
            "out", "run_id"}


def _cli(capsys, *argv) -> dict:
    assert main(["snake", *argv, "--backend", "cpu", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _same(result, doc: dict) -> None:
    mine = json.loads(json.dumps(result.to_dict()))  # plain JSON values
    assert {k: v for k, v in mine.items() if k not in VOLATILE and v is not None} == \
        {k: v for k, v in doc.items() if k not in VOLATILE and v is not None}


def test_count_and_solve_are_the_command_lines_documents(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    r = pb.snake.count("FJJJJJJF", box="2x2x2", backend="cpu")
    assert (r.embeddings, r.distinct, r.symmetries, r.complete, r.out) == (144, 3, 48, True, None)
    assert list(tmp_path.iterdir()) == []  # the API writes nothing without out=
    _same(r, _cli(capsys, "count", "FJJJJJJF", "--box", "2x2x2"))
    s = pb.snake.solve("3,2,3,2,3", box="3x3x1", backend="cpu")
    assert s.solved and len(s.cells) == 9
    _same(s, _cli(capsys, "solve", "3,2,3,2,3", "--box", "3x3x1"))
    none = pb.snake.solve("FFJFJFJFJFJF", box="2x2x3", backend="cpu")
    assert not none.solved and none.cells is None


def test_bad_input_raises_the_command_lines_one_line_error(capsys):
    with pytest.raises(pb.PuzzleInputError) as exc:
        pb.snake.count("FFJJ", box="2x2x2")
    assert main(["snake", "count", "FFJJ", "--box", "2x2x2"]) == 2
    assert capsys.readouterr().err.strip() == f"puzzlebatch: error: {exc.value}"


CHAIN = "FJJJJJJJJJJJJJJF"  # 16 cubes


def test_stopped_and_resumed_gives_the_whole_count_in_one_run(tmp_path):
    out = tmp_path / "runs.h5"
    from puzzlebatch.runners.engine.search import SearchSettings

    tiny = SearchSettings(budget=8, batch_size=2, frontier_target=2)
    stopped = pb.snake.count(CHAIN, box="2x2x4", backend="cpu", out=out, max_batches=1, settings=tiny)
    assert not stopped.complete
    done = pb.snake.count(CHAIN, box="2x2x4", backend="cpu", out=out, resume=True, settings=tiny)
    whole = pb.snake.count(CHAIN, box="2x2x4", backend="cpu")
    assert done.complete and (done.embeddings, done.distinct) == (whole.embeddings, whole.distinct)
    assert done.run_id == stopped.run_id
    with ResultsStore(out, "r") as store:
        assert store.run(done.run_id).attrs["status"] == "done"


def test_a_stored_solve_keeps_its_folding(tmp_path):
    out = tmp_path / "s.h5"
    s = pb.snake.solve("3,2,3,2,3", box="3x3x1", backend="cpu", out=out)
    with ResultsStore(out, "r") as store:
        run = store.run(s.run_id)
        assert run.n_committed == 1 and run.attrs["family"] == "snake"
