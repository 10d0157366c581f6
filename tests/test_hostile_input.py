"""Hostile input over every verb: each case ends with one line on stderr and exit status 2, before any work is
done, with nothing written outside what the user named.  One test per case found by trying the command line as
a hostile user would (tracebacks, endless runs, memory bombs, values accepted silently, paths escaping a job)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from puzzlebatch.cli import main

REPO = Path(__file__).resolve().parents[1]
BAD_UTF8 = b"\xff\xfe not UTF-8\n"


def _one_line_error(capsys, argv, *fragments) -> str:
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, (argv, code, err)
    for f in fragments:
        assert f in err[0], (argv, err[0])
    assert "Traceback" not in err[0]
    return err[0]


@pytest.fixture
def files(tmp_path):
    """Hostile files: not UTF-8, and a few valid ones to combine them with."""
    bad = tmp_path / "bad.txt"
    bad.write_bytes(BAD_UTF8)
    for name in ("bad.json", "bad.toml", "bad.dlx", "bad.h5json"):
        (tmp_path / name).write_bytes(BAD_UTF8)
    (tmp_path / "inst.toml").write_text('family = "snake"\nverb = "count"\n[instances]\nfile = "bad.txt"\n')
    return tmp_path


# -- tracebacks ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, fragments", [
    (["snake", "count", "3,99999999999"], ["chain", "over the limit", "PUZZLEBATCH_MAX_CHAIN"]),
    (["snake", "solve", "F" * 10_000], ["10,000 cubes is over the limit", "PUZZLEBATCH_MAX_CHAIN"]),
    (["cubes", "solve", "--figure", "99999x99999x99999"], ["over the limit", "PUZZLEBATCH_MAX_CELLS"]),
    (["cubes", "ga", "--figure", "2x2x2", "--population", "1000000000"],
     ["--population", "PUZZLEBATCH_MAX_POPULATION"]),
    (["polyomino", "solve", "--board", "100000x100000", "--pieces", "dominoes", "--unlimited"],
     ["--board 100000x100000", "PUZZLEBATCH_MAX_CELLS"]),
    (["polyomino", "count", "--board", "100000x100000", "--pieces", "dominoes", "--unlimited", "--method",
      "transfer"], ["PUZZLEBATCH_MAX_CELLS"]),
    (["snake", "count", "--box", "1000x1000x1000", "F" * 8], ["box", "PUZZLEBATCH_MAX_CELLS"]),
    (["hextris", "show", "1", "--gif", "{tmp}/a.gif", "--fps", "0"], ["--fps", "at least 1"]),
    (["snake", "count", "--scheduler", "tcp://localhost:abc"], ["--scheduler", "port"]),
    (["snake", "count", "--scheduler", "local:1000"], ["1,000 workers is over the limit", "PUZZLEBATCH_MAX_WORKERS"]),
])
def test_no_traceback_no_bomb(argv, fragments, tmp_path, capsys):
    _one_line_error(capsys, [a.format(tmp=tmp_path) for a in argv], *fragments)


def test_scheduler_file_that_is_a_directory(tmp_path, capsys):
    (tmp_path / "sched.json").mkdir()
    _one_line_error(capsys, ["snake", "count", "--scheduler", tmp_path / "sched.json"], "--scheduler",
                    "is a directory")


@pytest.mark.parametrize("argv", [
    ["snake", "generate", "--seed", "-1"],
    ["polyomino", "levels", "generate", "--pieces", "iq-puzzler-pro", "--seed", "-1"],
    ["polyomino", "generate", "--random-cut", "6x6", "--seed", "-1", "--text", "x.txt"],
    ["polyomino", "solve", "--board", "6x10", "--pieces", "pentominoes", "--seed", "-1"],
    ["cubes", "ga", "--figure", "2x2x2", "--seed", "-1"],
    ["hextris", "show", "1", "--seed", "-1"],
    ["hextris", "play", "1", "--seed", "-1"],
    ["hextris", "tune", "--seed", "-1"],
])
def test_every_negative_seed(argv, capsys):
    _one_line_error(capsys, argv, "--seed", "-1", "0 or more")


@pytest.mark.parametrize("argv, shown", [
    (["polyomino", "dlx", "solve", "{d}/bad.dlx"], "bad.dlx"),
    (["sliding", "solve", "--file", "{d}/bad.txt"], "bad.txt"),
    (["cubes", "solve", "--figure", "2x2x2", "--cubes", "{d}/bad.txt"], "bad.txt"),
    (["cubes", "solve", "--figure", "{d}/bad.txt"], "bad.txt"),
    (["hextris", "show", "1", "--solution", "{d}/bad.json"], "bad.json"),
    (["hextris", "show", "{d}/bad.json"], "bad.json"),
    (["hextris", "play", "1", "--weights", "{d}/bad.json"], "bad.json"),
    (["hextris", "score", "1", "{d}/bad.json"], "bad.json"),
    (["run", "{d}/bad.toml", "--dry-run"], "bad.toml"),
    (["run", "{d}/inst.toml", "--dry-run"], "bad.txt"),
    (["polyomino", "solve", "--board", "{d}/bad.txt", "--pieces", "dominoes"], "bad.txt"),
    (["polyomino", "solve", "--board", "4x4", "--pieces", "{d}/bad.txt"], "bad.txt"),
])
def test_non_utf8_files_are_named(argv, shown, files, capsys):
    line = _one_line_error(capsys, [a.format(d=files) for a in argv], shown)
    assert "UTF-8" in line


def test_hex_problems(tmp_path, capsys):
    base = json.loads((REPO / "puzzlebatch/data/icfp2015/problems/problem_1.json").read_text())
    cases = [({"sourceSeeds": []}, "needs at least one seed"),
             ({"sourceLength": 10**12}, "PUZZLEBATCH_MAX_SOURCE_LENGTH"),
             ({"units": [{"members": [{"x": 0, "y": 0}, {"x": base["width"] + 5, "y": 0}],
                          "pivot": {"x": 0, "y": 0}}]}, "outside the"),
             ({"sourceSeeds": [-3]}, "32-bit seed"),
             ({"filled": 7}, "expected a list")]
    for change, fragment in cases:
        p = tmp_path / "p.json"
        p.write_text(json.dumps(base | change))
        _one_line_error(capsys, ["hextris", "show", p], fragment)


def test_damaged_params_json_show_and_resume(tmp_path, capsys):
    """A run whose params_json is damaged is reported in one line; the other runs stay readable."""
    import h5py

    from puzzlebatch.results.store import ResultsStore

    out = tmp_path / "d.h5"
    with ResultsStore(out) as store:
        store.create_run("snake", "count", backend="cpu", device="cpu", seed=None, params={"chain": "x"})
        good = store.create_run("snake", "count", backend="cpu", device="cpu", seed=None, params={"chain": "y"})
    with h5py.File(out, "a") as f:
        f["runs/snake-count-0000"].attrs["params_json"] = "{not json"
    assert main(["show", str(out), "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert runs[0]["status"] == "damaged" and "snake-count-0000 is damaged" in runs[0]["error"]
    assert runs[1]["id"] == good.id and runs[1]["params"] == {"chain": "y"}
    line = _one_line_error(capsys, ["snake", "count", "--out", out, "--resume"], "no unfinished count")
    assert "snake-count-0000 is damaged" in line


# -- values accepted silently -------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, option", [
    (["snake", "generate", "--count", "-1"], "--count"),
    (["polyomino", "levels", "generate", "--pieces", "iq-puzzler-pro", "--count", "-1"], "--count"),
    (["snake", "count", "--checkpoint-every", "-1"], "--checkpoint-every"),
    (["snake", "count", "--checkpoint-every", "nan"], "--checkpoint-every"),
    (["snake", "count", "--max-batches", "-5"], "--max-batches"),
    (["snake", "count", "--budget", "-1"], "--budget"),
    (["snake", "count", "--budget", "-5"], "--budget"),
    (["snake", "count", "--batch-size", "-3"], "--batch-size"),
    (["polyomino", "count", "--board", "4x4", "--pieces", "dominoes", "--copies", "-1"], "--copies"),
    (["sliding", "bfs", "2x2", "--max-layers", "-1"], "--max-layers"),
    (["hextris", "show", "1", "--gif", "a.gif", "--max-frames", "-1"], "--max-frames"),
    (["hextris", "play", "1", "--time-limit", "-1"], "--time-limit"),
    (["snake", "count", "--item-seconds", "inf"], "--item-seconds"),
    (["cubes", "ga", "--figure", "2x2x2", "--mutation", "1.5"], "--mutation"),
])
def test_out_of_range_values(argv, option, capsys):
    _one_line_error(capsys, argv, option)


def test_piece_cell_not_dropped(tmp_path, capsys):
    p = tmp_path / "pieces.txt"
    p.write_text("A: 0,0 1,0 1,x\n")
    _one_line_error(capsys, ["polyomino", "solve", "--board", "3x1", "--pieces", p], "is not a cell")


# -- endless runs and memory bombs -------------------------------------------------------------------------------
def test_dry_run_counts_without_building(tmp_path, capsys):
    job = tmp_path / "big.toml"
    job.write_text('family = "hextris"\nverb = "play"\n[instances]\ngenerate = { problems = "0-99999999" }\n')
    _one_line_error(capsys, ["run", job, "--dry-run"], "100,000,000 instances", "PUZZLEBATCH_MAX_INSTANCES")
    job.write_text('family = "snake"\nverb = "count"\n[instances]\ngenerate = { count = 900000, seed = 1 }\n')
    assert main(["run", str(job), "--dry-run", "--json"]) == 0  # counted; only the first few are made
    doc = json.loads(capsys.readouterr().out)
    assert doc["instances"] == 900000 and len(doc["commands"]) == 20
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.toml"]  # a dry run writes nothing


def test_dlx_with_too_many_items(tmp_path, capsys):
    f = tmp_path / "wide.dlx"
    f.write_text(" ".join(f"i{k}" for k in range(200_000)) + "\ni0 i1\n")
    _one_line_error(capsys, ["polyomino", "dlx", "solve", f], "200,000", "PUZZLEBATCH_MAX_ITEMS")


def test_memory_is_estimated_before_allocating(tmp_path, capsys, monkeypatch):
    f = tmp_path / "m.dlx"
    f.write_text(" ".join(f"i{k}" for k in range(5000)) + "\n" + "\n".join(f"i{k} i{k + 1}" for k in range(4999)))
    monkeypatch.setenv("PUZZLEBATCH_MAX_MEMORY", str(1 << 20))
    _one_line_error(capsys, ["polyomino", "dlx", "solve", f], "needs about", "PUZZLEBATCH_MAX_MEMORY")


# -- job files: paths stay inside the job's folder ---------------------------------------------------------------
@pytest.mark.parametrize("line, fragment", [
    ('name = "../../x"', "not a plain name"),
    ('name = "/tmp/x"', "not a plain name"),
    ('out = "../x.h5"', "leaves the job's folder"),
    ('out = "/no/such/folder/x.h5"', "does not exist"),
])
def test_job_paths(tmp_path, capsys, line, fragment):
    folder = tmp_path / "jobs"
    folder.mkdir()
    job = folder / "j.toml"
    job.write_text(f'family = "snake"\nverb = "count"\n{line}\n')
    for extra in (["--dry-run"], []):
        _one_line_error(capsys, ["run", job, *extra], fragment)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["j.toml", "jobs"]


def test_job_outputs_inside_its_folder(tmp_path, capsys):
    """A relative `out` lands in the job's folder (its missing folders made there, and only there)."""
    folder = tmp_path / "jobs"
    folder.mkdir()
    job = folder / "j.toml"
    job.write_text('family = "snake"\nverb = "generate"\nname = "gen"\n[options]\nbox = "2x2x2"\n')
    assert main(["run", str(job)]) == 0
    assert (folder / "results" / "job-gen.h5").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jobs"]


# -- outputs that cannot be written -------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["snake", "solve", "--png", "{blocked}/a.png"],
    ["cubes", "solve", "--figure", "2x2x1", "--png", "{blocked}/a.png"],
    ["hextris", "show", "1", "--png", "{blocked}/a.png"],
    ["hextris", "show", "1", "--gif", "{blocked}/a.gif", "--max-frames", "2"],
    ["polyomino", "dlx", "export", "--board", "4x4", "--pieces", "dominoes", "--unlimited", "--text", "{blocked}/x"],
    ["polyomino", "generate", "--random-cut", "6x6", "--text", "{blocked}/p.txt"],
    ["polyomino", "levels", "generate", "--pieces", "iq-puzzler-pro", "--out-dir", "{blocked}/levels"],
    ["sliding", "pdb", "build", "4-4", "--size", "3x3", "--cache-dir", "{blocked}/cache"],
    ["snake", "count", "FJJJJJJF", "--box", "2x2x2", "--out", "{missing}/x.h5"],
])
def test_unwritable_outputs(argv, tmp_path, capsys):
    blocked = tmp_path / "a-file"  # a file where a folder should be: fails for root too
    blocked.write_text("x")
    argv = [a.format(blocked=blocked, missing=tmp_path / "no" / "such") for a in argv]
    _one_line_error(capsys, argv)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]  # nothing half-written, no folder made


def test_default_results_folder_cannot_be_made(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").write_text("a file, not a folder")
    _one_line_error(capsys, ["snake", "count", "FJJJJJJF", "--box", "2x2x2"], "results", "give --out")


def test_json_into_a_closed_pipe_ends_quietly(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(f"{sys.executable} -m puzzlebatch snake generate --box 2x2x2 --count 400 --json | head -1",
                          shell=True, capture_output=True, text=True, env=env, timeout=300)
    assert proc.stdout.strip() == "{" and proc.stderr == ""


def test_checkpoint_of_another_problem_is_refused(tmp_path, capsys):
    """A checkpoint whose work items cannot belong to the problem never reaches a kernel."""
    from puzzlebatch.results.store import ResultsStore

    out = tmp_path / "c.h5"
    args = ["snake", "count", "FJJJJJJF", "--box", "2x2x2", "--out", out, "--backend", "cpu"]
    assert main([str(a) for a in args + ["--max-batches", "1", "--budget", "1", "--frontier", "1"]]) == 0
    with ResultsStore(out) as store:
        run = store.latest_run()
        arrays, meta = run.load_checkpoint()
        arrays["states"] = np.zeros((3, 99), np.int64)
        run.save_checkpoint(arrays, meta)
    capsys.readouterr()
    _one_line_error(capsys, args + ["--resume"], "do not fit this problem")
