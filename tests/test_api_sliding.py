"""``pb.sliding``: the Python API as a notebook calls it, against the command line's ``--json`` documents; one-line
errors; nothing written without ``out=``; stops, Ctrl-C and resumes that end on the same answers."""

import json

import numpy as np
import pytest

import puzzlebatch as pb
from puzzlebatch.cli import main
from puzzlebatch.results.store import ResultsStore
from tests.reference import sliding_oracle

HARD = "8 6 7 2 5 4 3 0 1"  # 31 moves, the 8-puzzle's hardest (blank last)
# what differs from one call to the next, and what the command line adds
VOLATILE = {"command", "schema_version", "compile_seconds", "seconds", "h2d_bytes", "d2h_bytes", "launches"}


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    """Pattern databases in a folder of the test's own (the compiled code stays in the usual cache)."""
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    real = sliding_pdb.cache_dir
    monkeypatch.setattr(sliding_pdb, "cache_dir", lambda override=None: real(override or tmp_path / "cache"))


def cli_json(capsys, *argv) -> tuple[int, dict]:
    code = main(["sliding", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def cli_error(capsys, *argv) -> str:
    assert main(["sliding", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("puzzlebatch: error: "), err
    return err[0][len("puzzlebatch: error: "):]


def same(api: dict, cli: dict) -> None:
    assert set(cli) - VOLATILE == set(api) - VOLATILE
    assert {k: v for k, v in api.items() if k not in VOLATILE} == {k: v for k, v in cli.items() if k not in VOLATILE}
    json.dumps(api)  # plain JSON values


def boards_file(tmp_path):
    """Four 3x3 boards, blank-first: three with their optimal length, and one unsolvable."""
    dist = sliding_oracle.distances(3, 3, "blank-first")
    picked = [s for s, d in sorted(dist.items()) if d in (8, 14, 20)][:3] + [(1, 0, 2, 3, 4, 5, 6, 8, 7)]
    f = tmp_path / "boards.txt"
    f.write_text("".join(" ".join(map(str, s)) + ("" if dist[s] == float("inf") else f" {dist[s]}") + "\n"
                         for s in picked))
    return f, [dist[s] for s in picked[:3]]


# -- solve ---------------------------------------------------------------------------------------------------------
def test_solve_is_the_command_lines_document(capsys):
    r = pb.sliding.solve(HARD, backend="cpu")
    assert r.length == 31 == len(r.moves) and r.solved and r.solvable and r.directions
    assert r.boards()[-1] == pb.sliding.board_of("1 2 3 4 5 6 7 8 0")  # the moves reach the goal
    code, doc = cli_json(capsys, "solve", HARD, "--backend", "cpu")
    assert code == 0
    same(r.to_dict(), doc)
    for tiles in ([8, 6, 7, 2, 5, 4, 3, 0, 1], [[8, 6, 7], [2, 5, 4], [3, 0, 1]], r.boards()[0]):
        assert pb.sliding.solve(tiles, backend="cpu").moves == r.moves  # lists, grids and boards alike


def test_unsolvable_and_other_goals(capsys):
    r = pb.sliding.solve("1 2 3 4 5 6 8 7 0", backend="cpu")
    assert not r.solvable and not r.solved and (r.moves, r.length) == ([], 0) and "odd permutation" in r.explanation
    code, doc = cli_json(capsys, "solve", "1 2 3 4 5 6 8 7 0", "--backend", "cpu")
    assert code == 1
    same(r.to_dict(), doc)
    r = pb.sliding.solve("1 0 2 3 4 5", size=(2, 3), goal="blank-first", heuristic="manhattan", backend="cpu")
    code, doc = cli_json(capsys, "solve", "1 0 2 3 4 5", "--size", "2x3", "--goal", "blank-first", "--heuristic",
                         "manhattan", "--backend", "cpu")
    assert r.length == 1 and r.heuristic == "manhattan"
    same(r.to_dict(), doc)


def test_solve_with_pattern_databases_and_a_picture(tmp_path, capsys):
    png = tmp_path / "path.svg"
    said = []
    r = pb.sliding.solve(HARD, heuristic="pdb", partition="4-4", backend="cpu", png=png, say=said.append)
    assert r.length == 31 and r.partition == "4-4" and r.picture == str(png) and png.stat().st_size > 1000
    assert any("building pattern database 3x3" in m for m in said)
    code, doc = cli_json(capsys, "solve", HARD, "--heuristic", "pdb", "--partition", "4-4", "--backend", "cpu")
    same({k: v for k, v in r.to_dict().items() if k != "picture"}, doc)


@pytest.mark.parametrize("call, argv", [
    (lambda: pb.sliding.solve("1 2 3 4 5 6 7 7 0"), ["solve", "1 2 3 4 5 6 7 7 0"]),
    (lambda: pb.sliding.solve("1 2 3 4 5 6 7 8"), ["solve", "1 2 3 4 5 6 7 8"]),
    (lambda: pb.sliding.solve("1 2 3 4 0 5", size="2y3"), ["solve", "1 2 3 4 0 5", "--size", "2y3"]),
    (lambda: pb.sliding.solve("1 2 3 4 5 6 7 8 0", heuristic="pdb", partition="9-9"),
     ["solve", "1 2 3 4 5 6 7 8 0", "--heuristic", "pdb", "--partition", "9-9"]),
    (lambda: pb.sliding.solve("1 2 3 4 5 6 7 8 0", png="x.gif"), ["solve", "1 2 3 4 5 6 7 8 0", "--png", "x.gif"]),
    (lambda: pb.sliding.bfs("4x4"), ["bfs", "4x4"]),
    (lambda: pb.sliding.bfs("3y3"), ["bfs", "3y3"]),
    (lambda: pb.sliding.solve_file("missing.txt"), ["solve", "--file", "missing.txt"]),
    (lambda: pb.sliding.build_pdb("9-9", size="3x3"), ["pdb", "build", "9-9", "--size", "3x3"]),
])
def test_bad_input_is_the_command_lines_one_line_error(call, argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(pb.PuzzleInputError) as exc:
        call()
    assert str(exc.value) == cli_error(capsys, *argv)
    assert not (tmp_path / "results").exists()


def test_bad_values_the_command_line_refuses_first():
    for call, message in ((lambda: pb.sliding.solve(HARD, goal="blank-middle"), "--goal: 'blank-middle'"),
                          (lambda: pb.sliding.solve(HARD, heuristic="nope"), "--heuristic: 'nope'"),
                          (lambda: pb.sliding.solve(HARD, max_len=0, backend="cpu"), "--max-len 0"),
                          (lambda: pb.sliding.solve([[1, 2], [3]]), "TILES"),
                          (lambda: pb.sliding.solve_file("x.txt", batch=0), "--batch 0")):
        with pytest.raises(pb.PuzzleInputError, match=message):
            call()


# -- files of boards ------------------------------------------------------------------------------------------------
def test_solve_file_is_the_command_lines_document_and_writes_nothing_without_out(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f, lengths = boards_file(tmp_path)
    r = pb.sliding.solve_file(f, goal="blank-first", backend="cpu", batch=2)
    assert (r.instances, r.solved_count, r.complete) == (4, 3, True) and (r.out, r.run_id) == (None, None)
    assert [d["length"] for d in r.results[:3]] == lengths and r.results[3]["solved"] is False
    assert sorted(p.name for p in tmp_path.iterdir()) == ["boards.txt"]  # no results/ folder, no file
    out = tmp_path / "s.h5"
    code, doc = cli_json(capsys, "solve", "--file", str(f), "--goal", "blank-first", "--backend", "cpu", "--batch",
                         "2", "--out", str(out))
    assert code == 0
    api = r.to_dict() | {"out": str(out), "run_id": doc["run_id"]}
    same(api | {"results": [{k: v for k, v in d.items() if k != "seconds"} for d in api["results"]]},
         doc | {"results": [{k: v for k, v in d.items() if k != "seconds"} for d in doc["results"]]})


def test_solve_file_stops_and_resumes_to_the_same_answers(tmp_path):
    f, _ = boards_file(tmp_path)
    whole = pb.sliding.solve_file(f, goal="blank-first", backend="cpu")
    out = tmp_path / "r.h5"
    part = pb.sliding.solve_file(f, goal="blank-first", backend="cpu", batch=1, max_batches=2, out=out)
    assert not part.complete and part.instances == 2 and part.out == str(out)
    with ResultsStore(out, "r") as st:
        assert st.run(part.run_id).attrs["status"] == "interrupted"
    done = pb.sliding.solve_file(f, goal="blank-first", backend="cpu", batch=1, out=out, resume=True)
    assert done.complete and done.run_id == part.run_id and done.instances == 4
    assert [d["moves"] for d in done.results] == [d["moves"] for d in whole.results]
    with ResultsStore(out, "r") as st:
        run = st.run(done.run_id)
        assert run.attrs["status"] == "done" and run.n_committed == 4
        assert run.items()["length"].tolist() == [d["length"] if d["solved"] else -1 for d in whole.results]
    with pytest.raises(pb.PuzzleInputError, match="no unfinished solve"):
        pb.sliding.solve_file(f, goal="blank-first", backend="cpu", out=out, resume=True)


def test_ctrl_c_during_a_file_keeps_the_solved_boards(tmp_path, capsys, monkeypatch):
    """Ctrl-C after the first batch: the run is interrupted with its first board stored, the command line says
    how to resume (exit 130), and the resumed run solves the rest only."""
    from puzzlebatch.runners.sliding import dist

    f, _ = boards_file(tmp_path)
    out = tmp_path / "c.h5"
    real, calls = dist.SolveTask.__call__, []

    def interrupted(self, tiles):
        calls.append(len(tiles))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, tiles)

    monkeypatch.setattr(dist.SolveTask, "__call__", interrupted)
    argv = ["sliding", "solve", "--file", str(f), "--goal", "blank-first", "--backend", "cpu", "--batch", "1",
            "--out", str(out)]
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert "interrupted; resume with: puzzlebatch sliding solve" in err and f"--out {out} --resume" in err
    with ResultsStore(out, "r") as st:
        run = st.run(st.run_ids()[0])
        assert run.attrs["status"] == "interrupted" and run.n_committed == 1
    monkeypatch.setattr(dist.SolveTask, "__call__", real)
    with pytest.raises(pb.Interrupted) as exc:  # the API raises it, naming the run
        monkeypatch.setattr(dist.SolveTask, "__call__", lambda self, tiles: (_ for _ in ()).throw(KeyboardInterrupt))
        pb.sliding.solve_file(f, goal="blank-first", backend="cpu", batch=1, out=out, resume=True)
    assert exc.value.out == out and exc.value.run_id == run.id
    monkeypatch.setattr(dist.SolveTask, "__call__", real)
    done = pb.sliding.solve_file(f, goal="blank-first", backend="cpu", batch=1, out=out, resume=True)
    assert done.complete and done.solved_count == 3
    assert done.results[0]["explanation"] == "solvable (from the store)"  # not solved again


# -- bfs -----------------------------------------------------------------------------------------------------------
def test_bfs_is_the_command_lines_document(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = pb.sliding.bfs("2x3", backend="cpu")
    assert r.complete and r.states == 360 and (r.out, r.run_id) == (None, None)
    assert r.depth_counts == sliding_oracle.depth_histogram(sliding_oracle.distances(2, 3, "blank-last"))
    assert r.distance("1 2 3 4 0 5") == 1 and r.distance(r.hardest[0]) == r.max_depth
    assert list(tmp_path.iterdir()) == []
    out = tmp_path / "b.h5"
    code, doc = cli_json(capsys, "bfs", "2x3", "--backend", "cpu", "--out", str(out))
    assert code == 0
    same(r.to_dict() | {"out": str(out), "run_id": doc["run_id"]}, doc)


def test_bfs_stops_and_resumes_with_each_layer_stored_once(tmp_path):
    whole = pb.sliding.bfs("2x4", backend="cpu")
    out = tmp_path / "r.h5"
    every_layer = pb.RunOptions(out=out, checkpoint_every=0, progress=False, keep=False)
    part = pb.sliding.bfs("2x4", backend="cpu", max_layers=7, options=every_layer)
    assert not part.complete and part.max_depth == 7
    done = pb.sliding.bfs("2x4", backend="cpu", out=out, resume=True)
    assert done.complete and done.depth_counts == whole.depth_counts and done.run_id == part.run_id
    with ResultsStore(out, "r") as st:
        run = st.run(done.run_id)
        steps, values = run.series("layer_states")
        assert steps.tolist() == list(range(1, whole.max_depth + 1)) and values.tolist() == whole.depth_counts[1:]
        assert run.table("distances").tolist() == whole.table.tolist() and not run.has_checkpoint()


def test_ctrl_c_during_a_bfs_saves_the_last_whole_layer(tmp_path, capsys, monkeypatch):
    """Ctrl-C in the middle of a layer (the table half marked): the checkpoint is the last whole layer, and the
    resumed search ends on the true distances."""
    from puzzlebatch.runners.sliding import solver

    whole = pb.sliding.bfs("2x4", backend="cpu")
    real = solver.bfs_run

    def stopped(state, backend, *, on_layer=None, **kw):
        def layer(st):
            on_layer(st)
            if st.depth == 9:  # a layer under way: some entries marked, then Ctrl-C
                st.packed[: len(st.packed) // 2] = 0
                raise KeyboardInterrupt
        return real(state, backend, on_layer=layer, **kw)

    monkeypatch.setattr(solver, "bfs_run", stopped)
    out = tmp_path / "c.h5"
    argv = ["sliding", "bfs", "2x4", "--backend", "cpu", "--out", str(out), "--checkpoint-every", "0"]
    assert main(argv) == 130
    assert "resume with: puzzlebatch sliding bfs 2x4" in capsys.readouterr().err
    monkeypatch.setattr(solver, "bfs_run", real)
    code, doc = cli_json(capsys, *argv[1:], "--resume")
    assert code == 0 and doc["complete"] and doc["depth_counts"] == whole.depth_counts
    with ResultsStore(out, "r") as st:
        assert st.run(doc["run_id"]).series("layer_states")[1].tolist() == whole.depth_counts[1:]


# -- pattern databases ----------------------------------------------------------------------------------------------
def test_build_pdb_is_the_command_lines_document_and_resumes(tmp_path, capsys, monkeypatch):
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    folder = tmp_path / "pdb"
    part = pb.sliding.build_pdb("4-4", size="3x3", backend="cpu", cache_dir=folder, max_layers=3, say=lambda m: None)
    assert not part.complete and len(part.partial) == 1 and part.patterns is None
    real = sliding_pdb.build_pattern
    monkeypatch.setattr(sliding_pdb, "build_pattern", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C goes through; the partial table stays
        pb.sliding.build_pdb("4-4", size="3x3", backend="cpu", cache_dir=folder, say=lambda m: None)
    assert main(["sliding", "pdb", "build", "4-4", "--size", "3x3", "--backend", "cpu", "--cache-dir",
                 str(folder)]) == 130
    assert "interrupted" in capsys.readouterr().err
    monkeypatch.setattr(sliding_pdb, "build_pattern", real)
    said = []
    r = pb.sliding.build_pdb("4-4", size="3x3", backend="cpu", cache_dir=folder, say=said.append)
    assert r.complete and len(r.built) == 2 and r.partial == [] and said[1].startswith("resuming 3x3 pattern")
    assert said[0].startswith("partition 4-4 for 3x3: 2 tables, 6,048 entries") and "(estimated)" in said[0]
    assert all(p["entries"] == 3024 for p in r.patterns)
    fresh = pb.sliding.build_pdb("4-4", size="3x3", backend="cpu", cache_dir=tmp_path / "fresh", say=lambda m: None)
    tables = [sliding_pdb.load(3, 3, "4-4", d).tables for d in (folder, tmp_path / "fresh")]
    assert all(np.array_equal(a, b) for a, b in zip(*tables))  # the resumed build made the same tables
    again = pb.sliding.build_pdb("4-4", size="3x3", backend="cpu", cache_dir=folder)
    code, doc = cli_json(capsys, "pdb", "build", "4-4", "--size", "3x3", "--backend", "cpu", "--cache-dir", str(folder))
    assert code == 0 and again.built == [] and fresh.built
    same(again.to_dict(), doc)
