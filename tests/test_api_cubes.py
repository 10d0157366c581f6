"""``pb.cubes``: the Python API of connector cubes, as a notebook calls it, against the command line's documents."""

import json

import pytest

import puzzlebatch as pb
from puzzlebatch.cli import main
from puzzlebatch.puzzles.cubes import model

# what the API's result and the CLI's --json document must agree on (the rest is timing and the run's place)
SAME = {
    "count": ("figure", "n_cells", "cubes", "assemblies", "distinct", "symmetries", "nodes", "backend", "device",
              "complete"),
    "solve": ("figure", "n_cells", "cubes", "solved", "assembly", "nodes", "backend", "device"),
    "ga": ("figure", "n_cells", "cubes", "seed", "solved", "generation", "best_cubes", "evaluations", "backend",
           "device", "assembly", "seeding"),
}


def cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def eight(tmp_path):
    """A cube-set file of cubes 1..8 of the document's set (a 2x2x1 figure has a few hundred assemblies)."""
    path = tmp_path / "eight.txt"
    path.write_text(model.load_cubes().subset(range(1, 9)).to_text())
    return path


def test_count_matches_the_command_line_and_writes_no_file(tmp_path, eight, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = pb.cubes.count("2x2x1", cubes=eight, backend="cpu")
    assert r.complete and r.assemblies > 0 and r.distinct * r.symmetries == r.assemblies
    assert r.out is None and r.run_id is None
    assert not (tmp_path / "results").exists() and not list(tmp_path.rglob("*.h5"))  # nothing stored without out=
    doc = r.to_dict()
    json.dumps(doc)
    assert "batches" not in doc and "items_left" not in doc
    code, out, _ = cli(capsys, "cubes", "count", "--figure", "2x2x1", "--cubes", str(eight), "--backend", "cpu",
                       "--json", "--out", str(tmp_path / "c.h5"))
    assert code == 0
    printed = json.loads(out)
    assert {k: doc[k] for k in SAME["count"]} == {k: printed[k] for k in SAME["count"]}
    assert set(doc) - {"verified"} <= set(printed)
    # model objects work as well as the command line's text
    fig, cubes = pb.cubes.problem_of("2x2x1", eight)
    again = pb.cubes.count(fig, cubes=cubes, backend="cpu")
    assert (again.assemblies, again.distinct) == (r.assemblies, r.distinct)


def test_count_resumes_to_the_same_total(tmp_path, eight):
    whole = pb.cubes.count("2x2x1", cubes=eight, backend="cpu")
    out = tmp_path / "r.h5"
    knobs = {"budget": 50, "batch_size": 7, "frontier": 4}
    part = pb.cubes.count("2x2x1", cubes=eight, backend="cpu", out=out, max_batches=2, **knobs)
    assert not part.complete and part.out == str(out) and part.run_id and part.items_left > 0
    assert part.batches == 2
    rest = pb.cubes.count("2x2x1", cubes=eight, backend="cpu", out=out, resume=True, **knobs)
    assert rest.complete and rest.run_id == part.run_id
    assert (rest.assemblies, rest.distinct) == (whole.assemblies, whole.distinct)
    with pytest.raises(pb.PuzzleInputError, match="no unfinished count"):
        pb.cubes.count("2x2x1", cubes=eight, backend="cpu", out=out, resume=True, **knobs)


def test_solve_matches_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = pb.cubes.solve("2x2x1", backend="cpu")
    assert r.solved and len(r.assembly) == 4 and r.out is None and r.picture is None
    assert not list(tmp_path.rglob("*.h5"))
    fig = model.box(2, 2, 1)
    placements = {tuple(a["cell"]): (a["cube"], a["rotation"]) for a in r.assembly}
    assert model.check_assembly(fig, model.load_cubes(), [placements[tuple(c)] for c in fig.cells.tolist()]) is None
    doc = r.to_dict()
    json.dumps(doc)
    code, out, _ = cli(capsys, "cubes", "solve", "--figure", "2x2x1", "--backend", "cpu", "--json")
    assert code == 0
    printed = json.loads(out)
    assert {k: doc[k] for k in SAME["solve"]} == {k: printed[k] for k in SAME["solve"]}
    stored = pb.cubes.solve("2x2x1", backend="cpu", out=tmp_path / "s.h5")
    assert stored.out == str(tmp_path / "s.h5") and stored.run_id and stored.assembly == r.assembly


def test_an_impossible_figure_is_an_answer(tmp_path):
    males = tmp_path / "males.txt"
    males.write_text("1;1,2,3,4,1,2\n2;2,2,2,2,2,2\n")
    r = pb.cubes.solve("2x1x1", cubes=males, backend="cpu")
    assert not r.solved and r.assembly is None and r.nodes >= 1


def test_ga_matches_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = {"seed": 1, "population": 16, "generations": 3}
    r = pb.cubes.ga("3x3x2", backend="cpu", **settings)
    assert r.generation == 3 and not r.solved and r.out is None
    assert not list(tmp_path.rglob("*.h5"))
    doc = r.to_dict()
    json.dumps(doc)
    code, out, _ = cli(capsys, "cubes", "ga", "--figure", "3x3x2", "--seed", "1", "--population", "16",
                       "--generations", "3", "--backend", "cpu", "--json", "--out", str(tmp_path / "g.h5"))
    assert code == 0
    printed = json.loads(out)
    assert {k: doc[k] for k in SAME["ga"]} == {k: printed[k] for k in SAME["ga"]}
    assert set(doc) <= set(printed)


def test_ga_ctrl_c_keeps_the_population_and_resumes(tmp_path, monkeypatch):
    from puzzlebatch.runners.engine.ga import GeneticAlgorithm
    from puzzlebatch.results.store import ResultsStore

    settings = {"seed": 3, "population": 16, "generations": 5, "checkpoint_every": 0, "backend": "cpu"}
    whole = pb.cubes.ga("3x3x2", **settings)
    real = GeneticAlgorithm.step

    def interrupting(self, state):
        if state.generation == 2:
            raise KeyboardInterrupt
        return real(self, state)

    monkeypatch.setattr(GeneticAlgorithm, "step", interrupting)
    out = tmp_path / "g.h5"
    with pytest.raises(pb.Interrupted) as exc:
        pb.cubes.ga("3x3x2", out=out, **settings)
    assert exc.value.out == out and exc.value.run_id
    with ResultsStore(out, "r") as store:
        run = store.run(exc.value.run_id)
        assert run.attrs["status"] == "interrupted" and list(run.items()["generation"]) == [1, 2]
    monkeypatch.setattr(GeneticAlgorithm, "step", real)
    resumed = pb.cubes.ga("3x3x2", out=out, resume=True, **settings)
    assert resumed.run_id == exc.value.run_id
    assert (resumed.generation, resumed.best_cubes, resumed.evaluations) == (whole.generation, whole.best_cubes,
                                                                             whole.evaluations)
    with ResultsStore(out, "r") as store:
        assert list(store.run(resumed.run_id).items()["generation"]) == [1, 2, 3, 4, 5]
    with pytest.raises(pb.PuzzleInputError, match="no unfinished ga of figure 3x3x2 with seed 4"):
        pb.cubes.ga("3x3x2", out=out, resume=True, **(settings | {"seed": 4}))


@pytest.mark.parametrize("call, argv", [
    (lambda: pb.cubes.solve("3x3x3x3"), ["solve", "--figure", "3x3x3x3"]),
    (lambda: pb.cubes.count("7x4x1"), ["count", "--figure", "7x4x1"]),
    (lambda: pb.cubes.solve("2x2", cubes="/nonexistent/cubes.txt"),
     ["solve", "--figure", "2x2", "--cubes", "/nonexistent/cubes.txt"]),
    (lambda: pb.cubes.solve("2x1x1", png="a.gif", backend="cpu"),
     ["solve", "--figure", "2x1x1", "--png", "a.gif", "--backend", "cpu"]),
    (lambda: pb.cubes.ga("2x2x2", population=1), ["ga", "--figure", "2x2x2", "--population", "1"]),
    (lambda: pb.cubes.ga("3x3x4"), ["ga", "--figure", "3x3x4"]),
    (lambda: pb.cubes.ga("2x2x1", selection="tournament", tournament=9, population=4),
     ["ga", "--figure", "2x2x1", "--selection", "tournament", "--tournament", "9", "--population", "4"]),
])
def test_bad_input_raises_the_command_lines_message(call, argv, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(pb.PuzzleInputError) as exc:
        call()
    code, _, err = cli(capsys, "cubes", *argv)
    assert code == 2 and err == f"puzzlebatch: error: {exc.value}\n"
    assert not list(tmp_path.rglob("*.h5"))


@pytest.mark.parametrize("kwargs, fragment", [
    ({"block": 2}, "--block 2: must be between 0 and 1"),
    ({"population": 0}, "--population 0: must be at least 1"),
    ({"seed": -1}, "--seed -1"),
])
def test_ga_settings_are_checked(kwargs, fragment):
    with pytest.raises(pb.PuzzleInputError, match=fragment):
        pb.cubes.ga("2x2x1", backend="cpu", **kwargs)


def test_count_order_and_knobs_are_checked():
    with pytest.raises(pb.PuzzleInputError, match="--order 'best'"):
        pb.cubes.count("2x1x1", order="best")
    with pytest.raises(pb.PuzzleInputError, match="--budget 0"):
        pb.cubes.count("2x1x1", budget=0)
