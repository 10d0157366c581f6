"""``puzzlebatch cubes``: JSON contracts, one-line errors with exit status 2, store, resume, pictures."""

import json
import subprocess
import sys

import h5py
import numpy as np
import pytest

from puzzlebatch.cli import main
from puzzlebatch.puzzles.cubes import model
from puzzlebatch.runners.cubes import solver as rc
from puzzlebatch.runners.engine.backend import select_backend


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_json_contract_and_picture(tmp_path, capsys):
    png = tmp_path / "a.png"
    code, out, _ = run_cli(capsys, "cubes", "solve", "--figure", "2x2x2", "--json", "--backend", "cpu",
                           "--png", str(png), "--out", str(tmp_path / "s.h5"))
    assert code == 0
    doc = json.loads(out)
    assert doc["solved"] and doc["backend"] == "cpu" and png.stat().st_size > 1000
    cells = sorted(tuple(a["cell"]) for a in doc["assembly"])
    assert cells == sorted(tuple(c) for c in model.box(2, 2, 2).cells.tolist())
    for a in doc["assembly"]:
        assert set(a) >= {"cell", "cube", "faces"} and len(a["faces"]) == 6
    placements = {tuple(a["cell"]): (a["cube"], a["rotation"]) for a in doc["assembly"]}
    fig = model.box(2, 2, 2)
    assert model.check_assembly(fig, model.load_cubes(),
                                [placements[tuple(c)] for c in fig.cells.tolist()]) is None
    with h5py.File(tmp_path / "s.h5", "r") as f:
        run = f["runs"][doc["run_id"]]
        assert run.attrs["n_committed"] == 8 and run.attrs["backend"] == "cpu"


def test_solve_a_voxel_figure(tmp_path, capsys):
    fig = tmp_path / "tee.txt"
    fig.write_text("###\n.#.\n\n.#.\n")
    code, out, _ = run_cli(capsys, "cubes", "solve", "--figure", str(fig), "--backend", "cpu", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["solved"] and doc["figure"] == "tee.txt"
    assert sorted(tuple(a["cell"]) for a in doc["assembly"]) == [(0, 0, 0), (1, 0, 0), (1, 0, 1), (1, 1, 0), (2, 0, 0)]


def test_solve_text_and_impossible_figure(tmp_path, capsys):
    cubes = tmp_path / "males.txt"
    cubes.write_text("1;1,2,3,4,1,2\n2;2,2,2,2,2,2\n")
    code, out, _ = run_cli(capsys, "cubes", "solve", "--figure", "2x1x1", "--cubes", str(cubes), "--backend", "cpu")
    assert code == 1 and "cannot be built" in out  # the whole tree searched: exit status 1
    code, out, _ = run_cli(capsys, "cubes", "solve", "--figure", "2x1x1", "--backend", "cpu")
    assert code == 0 and "one assembly" in out and "(1,0,0)" in out


def test_count_json_contract_store_and_resume(tmp_path, capsys):
    cubes = tmp_path / "eight.txt"
    cubes.write_text(model.load_cubes().subset(range(1, 9)).to_text())
    expected, _, _ = rc.count(model.box(2, 2, 1), model.load_cubes().subset(range(1, 9)), select_backend("cpu"))
    out_file = tmp_path / "c.h5"
    common = ["cubes", "count", "--figure", "2x2x1", "--cubes", str(cubes), "--backend", "cpu", "--out",
              str(out_file), "--json", "--budget", "50", "--batch-size", "7", "--frontier", "4"]
    code, out, _ = run_cli(capsys, *common, "--max-batches", "2")
    partial = json.loads(out)
    assert code == 0 and not partial["complete"]
    code, out, _ = run_cli(capsys, *common, "--resume")
    final = json.loads(out)
    assert final["complete"] and final["run_id"] == partial["run_id"]
    assert (final["assemblies"], final["distinct"]) == (expected.assemblies, expected.distinct)
    assert final["backend"] == "cpu"
    with h5py.File(out_file, "r") as f:
        assert list(f["runs"]) == [partial["run_id"]]
        assert f["runs"][partial["run_id"]].attrs["status"] == "done"


@pytest.mark.parametrize("args, fragment", [
    (["solve", "--figure", "3x3x3x3"], "neither a box"),
    (["count", "--figure", "7x4x1"], "28 cells but the cube set has only 27"),
    (["solve", "--figure", "2x2", "--cubes", "/nonexistent/cubes.txt"], "cannot read"),
    (["count", "--figure", "2x2", "--out", "/nonexistent-dir-xyz/r.h5", "--resume"], "does not exist"),
])
def test_bad_input_is_one_line_exit_2(args, fragment, capsys):
    code, out, err = run_cli(capsys, "cubes", *args)
    assert code == 2 and fragment in err and err.count("\n") == 1


def test_bad_cube_file_names_the_line_in_a_subprocess(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1;1,2,3,4,-1,-2\n2;1,2,3,4,9,-2\n")
    proc = subprocess.run([sys.executable, "-m", "puzzlebatch", "cubes", "solve", "--figure", "2x1x1", "--cubes",
                           str(bad)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith("line 2: cube 2 has face value 9, expected ±1..±4")
    assert proc.stderr.count("\n") == 1


def test_ga_json_contract_and_history(tmp_path, capsys):
    out_file = tmp_path / "g.h5"
    common = ["cubes", "ga", "--figure", "3x3x2", "--seed", "1", "--population", "32", "--backend", "cpu",
              "--out", str(out_file), "--json", "--block", "0.3", "--checkpoint-every", "0"]
    code, out, _ = run_cli(capsys, *common, "--generations", "4")
    first = json.loads(out)
    assert code == 0 and first["generation"] == 4 and first["backend"] == "cpu"
    assert {"solved", "generation", "evaluations_per_second", "best_cubes"} <= set(first)
    from puzzlebatch.results.store import ResultsStore

    with ResultsStore(out_file, "r") as store:
        items = store.run(first["run_id"]).items()
        assert list(items["generation"]) == [1, 2, 3, 4]
        assert items["fitness"].shape == (4, 32)
        assert list(items["best"]) == [float(v.max()) for v in items["fitness"]]
    assert first["solved"] is False and first["assembly"] is None  # 18 cubes cannot be placed in 4 generations
    assert first["best_cubes"] <= 5


def test_ga_resume_continues_the_same_run(tmp_path, capsys, monkeypatch):
    """Ctrl-C during generation 4 keeps the population of generation 3 (and its history); --resume runs
    generations 4 to 6 again with the same random states: the same run, the same history as an uninterrupted one."""
    from puzzlebatch.errors import EXIT_INTERRUPTED
    from puzzlebatch.runners.engine.ga import GeneticAlgorithm

    out_file = tmp_path / "g.h5"
    common = ["cubes", "ga", "--figure", "3x3x3", "--seed", "2", "--population", "24", "--backend", "cpu",
              "--generations", "6", "--json", "--checkpoint-every", "0"]
    code, out, _ = run_cli(capsys, *common, "--out", str(tmp_path / "whole.h5"))
    whole = json.loads(out)
    real = GeneticAlgorithm.step

    def interrupting(self, state):
        if state.generation == 3:
            raise KeyboardInterrupt
        return real(self, state)

    monkeypatch.setattr(GeneticAlgorithm, "step", interrupting)
    code, out, err = run_cli(capsys, *common, "--out", str(out_file))
    assert code == EXIT_INTERRUPTED and out == ""
    assert "--resume" in err and str(out_file) in err
    from puzzlebatch.results.store import ResultsStore

    with ResultsStore(out_file, "r") as s:
        (run_id,) = s.run_ids()
        run = s.run(run_id)
        assert run.attrs["status"] == "interrupted" and list(run.items()["generation"]) == [1, 2, 3]
    monkeypatch.setattr(GeneticAlgorithm, "step", real)
    code, out, _ = run_cli(capsys, *common, "--out", str(out_file), "--resume")
    resumed = json.loads(out)
    assert code == 0 and resumed["run_id"] == run_id and resumed["generation"] == whole["generation"] == 6
    assert resumed["best_cubes"] == whole["best_cubes"] and resumed["evaluations"] == whole["evaluations"]
    with ResultsStore(out_file, "r") as s, ResultsStore(tmp_path / "whole.h5", "r") as w:
        a, b = s.run(resumed["run_id"]).items(), w.run(whole["run_id"]).items()
        assert list(a["generation"]) == list(range(1, 7))
        assert np.array_equal(a["fitness"], b["fitness"]) and np.array_equal(a["best_genome"], b["best_genome"])
        assert s.run(run_id).attrs["status"] == "done"


@pytest.mark.parametrize("args, fragment", [
    (["--population", "1"], "--population 1"),
    (["--block", "2"], "--block: 2: must be between 0 and 1"),
    (["--figure", "3x3x4"], "36 cells"),
    (["--repair", "-1"], "--repair: -1: must be between 0 and"),
    (["--radius", "0"], "--radius 0: must be at least 1"),
    (["--repair-order", "random"], "--repair-order"),
    (["--png", "best.txt"], "--png: cannot draw"),
])
def test_ga_bad_input(args, fragment, tmp_path, capsys):
    argv = ["cubes", "ga", "--backend", "cpu", "--out", str(tmp_path / "x.h5")]
    if "--figure" not in args:
        argv += ["--figure", "2x2x2"]
    code, _, err = run_cli(capsys, *argv, *args)
    assert code == 2 and fragment in err and err.count("\n") == 1


def test_ga_seed_layers_from_the_command_line(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "cubes", "ga", "--figure", "2x2x2", "--seed", "5", "--population", "32",
                           "--backend", "cpu", "--seed-layers", "--out", str(tmp_path / "l.h5"), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["solved"]
    assert doc["seeding"]["layer"] == "2x2x2 layer z=0" and doc["seeding"]["seeds"] >= 2


def test_ga_memetic_repair_builds_3x3x3_from_the_command_line(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "cubes", "ga", "--figure", "3x3x3", "--seed", "0", "--population", "32",
                           "--generations", "60", "--grow", "--ruin", "1", "--mutation", "0.5", "--repair", "300",
                           "--backend", "cpu", "--out", str(tmp_path / "m.h5"), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["solved"] and doc["best_cubes"] == 27
    from puzzlebatch.puzzles.cubes import model

    figure, cubes = model.box(3, 3, 3), model.load_cubes()
    placements = {tuple(a["cell"]): (a["cube"], a["rotation"]) for a in doc["assembly"]}
    assert model.check_assembly(figure, cubes, [placements[tuple(c)] for c in figure.cells.tolist()]) is None


def test_ga_draws_its_best_individual_built_or_not(tmp_path, capsys):
    from puzzlebatch.api import cubes as api_cubes
    from puzzlebatch.puzzles.cubes import model

    built = api_cubes.ga("2x2x1", backend="cpu", seed=1, population=32, png=tmp_path / "built.png")
    assert built.solved and built.picture and (tmp_path / "built.png").stat().st_size > 1000
    code, out, _ = run_cli(capsys, "cubes", "ga", "--figure", "3x3x3", "--seed", "3", "--population", "16",
                           "--generations", "2", "--backend", "cpu", "--out", str(tmp_path / "p.h5"),
                           "--svg", str(tmp_path / "part.svg"))
    assert code == 0 and "did not build" in out and "picture of the best" in out
    svg = (tmp_path / "part.svg").read_text()
    assert "best:" in svg and " of 27 cubes" in svg
    # What is drawn is the best genome's cubes, in their own cells, every touching pair of faces summing to 0.
    from puzzlebatch.runners.cubes import ga as cubes_ga
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.ga import GAConfig

    figure, cube_set = model.box(3, 3, 3), model.load_cubes()
    result, _ = cubes_ga.run_ga(figure, cube_set, select_backend("cpu"), GAConfig(population=16, generations=2),
                                cubes_ga.Operators(grow=True), 3)
    assert not result.success and len(result.best) == result.best_cubes >= 2
    cells = {tuple(d["cell"]): d["faces"] for d in result.best}
    assert set(cells) <= set(map(tuple, figure.cells.tolist()))
    assert len({d["cube"] for d in result.best}) == len(result.best)
    steps = [((0, -1, 0), 0, 5), ((0, 0, 1), 1, 3), ((1, 0, 0), 2, 4)]  # data face order -Y, +Z, +X, -Z, -X, +Y
    touching = 0
    for (x, y, z), faces in cells.items():
        for (dx, dy, dz), face, opposite in steps:
            other = cells.get((x + dx, y + dy, z + dz))
            if other is not None:
                touching += 1
                assert faces[face] + other[opposite] == 0
    assert touching >= 1
