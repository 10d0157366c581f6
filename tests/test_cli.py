"""The command line: JSON contracts, one-line errors with exit status 2, stores, resume, pictures."""

import json
import os
import subprocess
import sys

import h5py
import pytest

from puzzlebatch.cli import main
from puzzlebatch.puzzles.snake.model import SOURCE_CHAIN
from tests.backends import GPU


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_count_json_contract_and_store(tmp_path, capsys):
    out_file = tmp_path / "c.h5"
    code, out, err = run_cli(capsys, "snake", "count", "--json", "--backend", "cpu", "--out", str(out_file))
    assert code == 0
    doc = json.loads(out)
    assert (doc["embeddings"], doc["distinct"], doc["backend"]) == (48, 1, "cpu")
    assert doc["chain"] == SOURCE_CHAIN and doc["box"] == "3x3x3" and doc["nodes"] > 0 and doc["seconds"] >= 0
    code, out, _ = run_cli(capsys, "show", str(out_file), "--json")
    desc = json.loads(out)
    run = desc["runs"][0]
    assert run["family"] == "snake" and run["status"] == "done" and run["result"]["embeddings"] == 48
    assert run["backend"] == "cpu"
    code, out, _ = run_cli(capsys, "show", str(out_file))
    assert code == 0 and run["id"] in out


def test_count_default_output_is_one_file_a_family(tmp_path, monkeypatch, capsys):
    """Without --out, every count of a family goes to results/<family>.h5, one run a group: no clutter."""
    from puzzlebatch.results.store import ResultsStore

    monkeypatch.chdir(tmp_path)
    for box in ("2x2x2", "2x2x2", "2x4x1"):
        code, out, _ = run_cli(capsys, "snake", "count", "FJJJJJJF", "--box", box)
        assert code == 0 and "results/snake.h5" in out
    assert "144 embeddings, 3 distinct" in out or "embeddings" in out
    assert [p.name for p in (tmp_path / "results").iterdir()] == ["snake.h5"]
    with ResultsStore(tmp_path / "results" / "snake.h5", "r") as store:
        assert [store.run(i).attrs["status"] for i in store.run_ids()] == ["done"] * 3


def test_a_busy_default_file_is_not_waited_for(tmp_path, monkeypatch, capsys):
    """A second process writing results/snake.h5: the run goes to results/snake-2.h5, and says so."""
    from puzzlebatch.results.store import ResultsStore

    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").mkdir()
    with ResultsStore(tmp_path / "results" / "snake.h5", "a"):
        code, out, err = run_cli(capsys, "snake", "count", "FJJJJJJF", "--box", "2x2x2")
    assert code == 0 and "results/snake-2.h5" in out and "another process" in err


def test_count_resume_gives_the_uninterrupted_answer(tmp_path, capsys):
    out_file = tmp_path / "r.h5"
    common = ["snake", "count", "--backend", "cpu", "--out", str(out_file), "--budget", "20", "--batch-size", "5",
              "--frontier", "4", "--json"]
    code, out, _ = run_cli(capsys, *common, "--max-batches", "3")
    partial = json.loads(out)
    assert code == 0 and not partial["complete"]
    code, out, _ = run_cli(capsys, *common, "--resume")
    final = json.loads(out)
    assert final["complete"] and (final["embeddings"], final["distinct"]) == (48, 1)
    assert final["run_id"] == partial["run_id"]
    with h5py.File(out_file, "r") as f:
        assert list(f["runs"]) == [partial["run_id"]]


def test_resume_errors(tmp_path, capsys):
    code, _, err = run_cli(capsys, "snake", "count", "--out", str(tmp_path / "none.h5"), "--resume")
    assert code == 2 and "does not exist" in err
    done = tmp_path / "done.h5"
    run_cli(capsys, "snake", "count", "--out", str(done))
    code, out, _ = run_cli(capsys, "snake", "count", "--out", str(done), "--resume")
    assert code == 0 and out.startswith("nothing to do:") and "no unfinished count" in out  # finished: not an error


def test_solve_json_and_picture(tmp_path, capsys):
    png = tmp_path / "fold.png"
    code, out, _ = run_cli(capsys, "snake", "solve", "3,2,2,3,2,3,2,2,3,3,2,2,2,3,3,3,3", "--json", "--png",
                           str(png))
    doc = json.loads(out)
    assert code == 0 and doc["solved"] and len(doc["cells"]) == 27 and doc["backend"] == "cpu"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, _ = run_cli(capsys, "snake", "solve")
    assert code == 0 and "folds into 3x3x3" in out and "z=2" in out


def test_solve_unsolvable_is_an_answer_with_status_1(capsys):
    """Searched to the end, no folding: the answer is printed, and the exit status says "no solution" (1)."""
    code, out, _ = run_cli(capsys, "snake", "solve", "FFJFJFJFJFJF", "--box", "2x2x3", "--json")
    assert code == 1 and json.loads(out)["solved"] is False


@pytest.mark.parametrize("args, words", [
    (["snake", "solve", "FFJQ"], "unexpected character 'Q'"),
    (["snake", "count", "FFJJ", "--box", "2x2x2"], "does not fill box 2x2x2"),
    (["snake", "count", "FFJJ"], "not a cube number"),
    (["snake", "solve", "--box", "3x3"], "does not fill box 3x3x1"),
    (["snake", "solve", "4,2,2,2,2", "--box", "2x2x2"], "straight run of 4"),
    (["snake", "solve", "--box", "3xq"], "box '3xq'"),
    (["show", "/nonexistent/x.h5"], "no such file"),
    (["polyomino", "dlx", "solve", "/nonexistent/x.dlx"], "dlx: no such file"),
    (["polyomino", "dlx", "solve", "/dev/null"], "/dev/null: empty DLX file"),  # a device is read, not "missing"
    (["polyomino", "dlx", "solve", "/"], "/: cannot read dlx (is a directory, not a file)"),
    (["polyomino", "show", "/"], "/: is a directory, not a results file"),
    (["polyomino", "show", "/dev/null"], "/dev/null: not a results file (a device or a pipe"),
    (["snake", "generate", "--box", "1x1x1"], "at least 2 cells"),
])
def test_bad_input_is_one_line_and_exit_2(args, words, capsys):
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and words in err and err.count("\n") == 1 and out == ""


@pytest.mark.parametrize("flag, needs", [("--png", "--solution"), ("--rows", "--run")])
def test_show_refuses_what_only_a_stored_solution_uses(flag, needs, tmp_path, capsys):
    """``show --png`` without ``--solution K``, ``--rows`` without ``--run ID``: one line, exit 2, never silently
    ignored."""
    h5 = tmp_path / "r.h5"
    h5.touch()  # checked before the file is read
    code, out, err = run_cli(capsys, "show", str(h5), flag, str(tmp_path / "x.png") if flag == "--png" else "1:2")
    assert code == 2 and f"{flag}: only with {needs}" in err and err.count("\n") == 1 and out == ""
    assert not (tmp_path / "x.png").exists()


def test_argparse_errors_are_one_line_too():
    proc = subprocess.run([sys.executable, "-m", "puzzlebatch", "snake", "count", "--bogus"], capture_output=True,
                          text=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--bogus" in proc.stderr


def test_cuda_without_gpu_is_a_clear_error():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    proc = subprocess.run([sys.executable, "-m", "puzzlebatch", "snake", "count", "--backend", "cuda"],
                          capture_output=True, text=True, env=env)
    if proc.returncode == 0:
        pytest.skip("this machine has a CUDA GPU")
    assert proc.returncode == 2 and "no CUDA GPU" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.gpu
def test_cuda_reports_the_backend_that_ran(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "snake", "count", "FJJJJJJF", "--box", "2x2x2", "--backend", "cuda", "--json",
                           "--out", str(tmp_path / "sim.h5"))
    doc = json.loads(out)
    assert doc["backend"] == GPU and doc["embeddings"] == 144  # cudasim in the simulator, cuda on a GPU


def test_info_json(capsys):
    code, out, _ = run_cli(capsys, "info", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["backends"]["cpu"] is True and doc["backends"]["auto"] == "cpu"
    assert doc["dependencies"]["numba"] and doc["dependencies"]["h5py"]
    code, out, _ = run_cli(capsys, "info")
    assert "backends:" in out


def test_generate_json(capsys):
    code, out, _ = run_cli(capsys, "snake", "generate", "--box", "2x3x4", "--seed", "5", "--count", "2", "--json")
    doc = json.loads(out)
    assert len(doc["chains"]) == 2 and all(len(c["chain"]) == 24 for c in doc["chains"])
    code, out, _ = run_cli(capsys, "snake", "count", doc["chains"][0]["segments"], "--box", "2x3x4", "--json",
                           "--out", os.path.join(os.environ.get("TMPDIR", "/tmp"), "gen-test.h5"))
    assert json.loads(out)["embeddings"] >= 1


def test_every_warmup_command_parses(tmp_path):
    """``warmup`` runs real command lines: each one is valid for its verb's parser (a renamed flag breaks it)."""
    from puzzlebatch.cli import build_parser
    from puzzlebatch import registry
    from puzzlebatch.cli.warmup import _tasks

    parser = build_parser()
    for family in registry.names():
        for backend in ("cpu", "cuda"):  # CUDA adds the kernels whose warps share an item
            for what, argv in _tasks(family, backend, tmp_path):
                try:
                    parser.parse_args(argv)
                except SystemExit:
                    pytest.fail(f"warmup {family} --backend {backend} ({what}): {argv}")
    assert any("--cuda-lanes" in argv for _, argv in _tasks("polyomino", "cuda", tmp_path))
