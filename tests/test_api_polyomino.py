"""``pb.polyomino``: the Python API as a notebook calls it, against the command line's ``--json`` documents."""

from __future__ import annotations

import json

import pytest

import puzzlebatch as pb
from puzzlebatch.api.common import backend_of, settings_of
from puzzlebatch.cli import main
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.results.store import ResultsStore

# keys that differ from one run to the next (times, the worker summary) or that the command line adds
VOLATILE = {"seconds", "graph_seconds", "work", "out", "run_id", "command", "schema_version", "compile_seconds",
            "h2d_bytes", "d2h_bytes", "launches"}


def cli_json(capsys, *argv) -> tuple[int, dict]:
    code = main(["polyomino", *argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def cli_error(capsys, *argv) -> str:
    assert main(["polyomino", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("puzzlebatch: error: "), err
    return err[0].removeprefix("puzzlebatch: error: ")


def same_document(result, doc: dict) -> None:
    """The API's ``to_dict()`` is the command line's document (less what changes between runs)."""
    mine = result.to_dict()
    json.dumps(mine)  # plain JSON values
    assert {k: v for k, v in mine.items() if k not in VOLATILE} == \
        {k: v for k, v in doc.items() if k not in VOLATILE}


def test_count_is_the_command_lines_document(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = pb.polyomino.count("4x3", "dominoes", unlimited=True, backend="cpu")
    assert (r.solutions, r.complete, r.out, r.run_id) == (11, True, None, None)
    code, doc = cli_json(capsys, "count", "--board", "4x3", "--pieces", "dominoes", "--unlimited", "--backend", "cpu")
    assert code == 0
    same_document(r, doc)
    # the API stores nothing without out=; the command line keeps every count in results/polyomino.h5
    assert [p.name for p in tmp_path.iterdir()] == ["results"] and doc["out"] == "results/polyomino.h5"


def test_count_takes_piece_objects_and_distinct_false(capsys):
    pieces = pb.polyomino.pieces_of("pentominoes")
    r = pb.polyomino.count("15x4", pieces, backend="cpu")
    assert (r.solutions, r.distinct, r.symmetries) == (1472, 368, 4)
    plain = pb.polyomino.count("15x4", "pentominoes", distinct=False, backend="cpu")
    assert (plain.solutions, plain.distinct, plain.symmetries) == (1472, None, 1)
    json.dumps(plain.to_dict())


def test_solve_is_the_command_lines_document(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = pb.polyomino.solve("3x3x3", "soma", backend="cpu")
    assert r.solved and r.method == "search" and len(r.placements) == 7 and "z=2" in r.letters
    code, doc = cli_json(capsys, "solve", "--board", "3x3x3", "--pieces", "soma", "--backend", "cpu")
    assert code == 0
    same_document(r, doc)
    none = pb.polyomino.solve("5x4", "tetrominoes", backend="cpu")
    assert not none.solved and none.placements == [] and none.letters is None
    assert list(tmp_path.iterdir()) == []


def test_solve_with_out_stores_the_run_and_its_solution(tmp_path):
    h5 = tmp_path / "s.h5"
    r = pb.polyomino.solve("11x5", "iq-puzzler-pro", backend="cpu", out=h5)
    assert r.solved and r.out == str(h5) and r.run_id
    with ResultsStore(h5, "r") as st:
        run = st.run(r.run_id)
        assert run.attrs["family"] == "polyomino" and run.attrs["algorithm"] == "solve"
        assert run.attrs["status"] == "done"
        rows = run.items()["solution"]
        assert rows.shape == (1, 12) and (rows >= 0).all()


def test_bad_input_is_the_command_lines_one_line(capsys):
    cases = [
        (dict(board="axb", pieces="pentominoes"), ["count", "--board", "axb", "--pieces", "pentominoes"]),
        (dict(board="10x6", pieces="heptacubes"), ["count", "--board", "10x6", "--pieces", "heptacubes"]),
        (dict(board="4x4", pieces="soma"), ["count", "--board", "4x4", "--pieces", "soma"]),
    ]
    for kw, argv in cases:
        with pytest.raises(PuzzleInputError) as exc:
            pb.polyomino.count(**kw, backend="cpu")
        assert str(exc.value) == cli_error(capsys, *argv)
    # an option the method would ignore is refused, never ignored
    with pytest.raises(PuzzleInputError) as exc:
        pb.polyomino.solve("60x60", "dominoes", unlimited=True, method="band", png="x.png")
    assert str(exc.value) == cli_error(capsys, "solve", "--board", "60x60", "--pieces", "dominoes", "--unlimited",
                                       "--method", "band", "--png", "x.png")
    with pytest.raises(PuzzleInputError, match="--mirror"):
        pb.polyomino.count("4x2", "dominoes", mirror="maybe")
    with pytest.raises(PuzzleInputError, match="--resume: give the --out file"):
        pb.polyomino.count("4x2", "dominoes", unlimited=True, resume=True, backend="cpu")


def test_out_max_batches_and_resume_give_the_whole_count(tmp_path):
    h5 = tmp_path / "r.h5"
    settings = settings_of(backend_of("cpu"), budget=200, batch_size=8, frontier=4)
    part = pb.polyomino.count("15x4", "pentominoes", backend="cpu", out=h5, max_batches=2, settings=settings)
    assert not part.complete and part.out == str(h5) and part.items_left > 0
    whole = pb.polyomino.count("15x4", "pentominoes", backend="cpu", out=h5, resume=True, settings=settings)
    assert whole.complete and (whole.solutions, whole.distinct) == (1472, 368) and whole.run_id == part.run_id
    with ResultsStore(h5, "r") as st:
        assert st.run_ids() == [part.run_id] and st.run(part.run_id).attrs["status"] == "done"


def test_ctrl_c_checkpoints_and_resumes(tmp_path, monkeypatch, capsys):
    """Ctrl-C after the first batch: the API raises ``pb.Interrupted`` naming the file and run, the command line
    exits 130 with the command that resumes; resuming gives the whole count."""
    from puzzlebatch.runners.polyomino import solver

    real = solver.count_packing_run

    def interrupted(*a, on_batch=None, **kw):
        def hook(front, totals):
            on_batch(front, totals)
            raise KeyboardInterrupt

        return real(*a, on_batch=hook, **kw)

    monkeypatch.setattr(solver, "count_packing_run", interrupted)
    settings = settings_of(backend_of("cpu"), budget=200, batch_size=8, frontier=4)
    h5 = tmp_path / "c.h5"
    with pytest.raises(pb.Interrupted) as exc:
        pb.polyomino.count("15x4", "pentominoes", backend="cpu", out=h5, settings=settings)
    assert exc.value.out == h5 and exc.value.run_id
    argv = ["polyomino", "count", "--board", "15x4", "--pieces", "pentominoes", "--backend", "cpu", "--budget",
            "200", "--batch-size", "8", "--frontier", "4", "--out", str(tmp_path / "cli.h5")]
    assert main(argv) == 130
    assert "resume with: puzzlebatch polyomino count" in capsys.readouterr().err
    monkeypatch.setattr(solver, "count_packing_run", real)
    r = pb.polyomino.count("15x4", "pentominoes", backend="cpu", out=h5, resume=True, settings=settings)
    assert r.complete and r.solutions == 1472 and r.run_id == exc.value.run_id
    assert main(argv + ["--resume", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["solutions"] == 1472


def test_enumeration_without_out_stores_nothing_in_the_api(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = pb.polyomino.count("4x2", "dominoes", unlimited=True, all=True, backend="cpu")
    assert r.solutions == 5 and r.out is None
    assert list(tmp_path.iterdir()) == []
    h5 = tmp_path / "all.h5"
    r = pb.polyomino.count("4x2", "dominoes", unlimited=True, all=True, backend="cpu", out=h5)
    with ResultsStore(h5, "r") as st:
        run = st.run(r.run_id)
        assert run.attrs["algorithm"] == "enumerate" and len(run.items()["solution"]) == 5


def test_transfer_count_is_the_command_lines_document(capsys):
    r = pb.polyomino.count("4x6", "tetrominoes", unlimited=True, method="transfer", backend="cpu")
    assert isinstance(r, pb.polyomino.PolyominoStripCount) and r.digits == len(str(r.solutions))
    code, doc = cli_json(capsys, "count", "--board", "4x6", "--pieces", "tetrominoes", "--unlimited", "--method",
                         "transfer", "--backend", "cpu")
    assert code == 0
    same_document(r, doc)


def test_generate_then_solve_back(capsys, tmp_path):
    cut = pb.polyomino.generate("6x5", "4-5", seed=1)
    assert cut.out is None and sum(len(p["cells"]) for p in cut.pieces) == 30
    assert list(tmp_path.iterdir()) == []
    text = tmp_path / "cut.txt"
    code, doc = cli_json(capsys, "generate", "--random-cut", "6x5", "--sizes", "4-5", "--seed", "1", "--text",
                         str(text))
    assert code == 0 and doc["pieces"] == cut.pieces and doc["board"] == cut.board == "6x5"
    r = pb.polyomino.solve("6x5", cut.piece_list, method="classes", backend="cpu")
    assert r.solved and r.validated and r.method == "classes"
    code, doc = cli_json(capsys, "solve", "--board", "6x5", "--pieces", str(text), "--method", "classes",
                         "--backend", "cpu")
    assert code == 0 and doc["solved"] and doc["classes"] == r.classes
    json.dumps(cut.to_dict())


def test_band_solve_and_levels_and_dlx(capsys, tmp_path):
    band = pb.polyomino.solve("60x60", "dominoes", unlimited=True)
    assert band.method == "band" and band.solved and band.validated and len(band.letters.splitlines()) == 60
    json.dumps(band.to_dict())
    lv = pb.polyomino.levels("11x5", "iq-puzzler-pro", count=1, difficulty=3, seed=3)
    code, doc = cli_json(capsys, "levels", "generate", "--pieces", "iq-puzzler-pro", "--count", "1", "--difficulty",
                         "3", "--seed", "3")
    assert code == 0
    same_document(lv, doc)
    dlx = pb.polyomino.dlx_export("4x2", "dominoes", unlimited=True, text=tmp_path / "p.dlx")
    assert (tmp_path / "p.dlx").read_text() == dlx
    counted = pb.polyomino.dlx_solve(tmp_path / "p.dlx", count=True, backend="cpu")
    assert counted.solutions == 5 and "solved" not in counted.to_dict()
    code, doc = cli_json(capsys, "dlx", "solve", str(tmp_path / "p.dlx"), "--count", "--backend", "cpu")
    assert code == 0
    same_document(counted, doc)
    with pytest.raises(PuzzleInputError) as exc:
        pb.polyomino.dlx_solve(tmp_path / "none.dlx")
    assert str(exc.value) == cli_error(capsys, "dlx", "solve", str(tmp_path / "none.dlx"))
