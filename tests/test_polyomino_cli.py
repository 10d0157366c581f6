"""``puzzlebatch polyomino``: JSON contracts, stores, resume, enumeration and show, levels, DLX, errors."""

import json
import subprocess
import sys

import h5py
import pytest

from puzzlebatch.cli import main


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _cells_cover(doc, n_cells):
    cells = [tuple(c) for p in doc["placements"] for c in p["cells"]]
    assert len(cells) == len(set(cells)) == n_cells


def test_solve_json_contract(capsys, tmp_path):
    png = tmp_path / "iq.png"
    code, out, _ = run_cli(capsys, "polyomino", "solve", "--board", "11x5", "--pieces", "iq-puzzler-pro",
                           "--json", "--backend", "cpu", "--png", str(png))
    doc = json.loads(out)
    assert code == 0 and doc["solved"] is True and doc["backend"] == "cpu"
    assert sorted(p["piece"] for p in doc["placements"]) == sorted(
        ["blue", "pink", "cyan", "orange", "purple", "yellow", "crimson", "green", "red", "olive", "darkblue",
         "skyblue"])
    assert all(len(c) == 2 and 0 <= c[0] < 11 and 0 <= c[1] < 5 for p in doc["placements"] for c in p["cells"])
    _cells_cover(doc, 55)
    assert png.stat().st_size > 1000 and doc["picture"] == str(png)


def test_solve_3d_and_text(capsys):
    code, out, _ = run_cli(capsys, "polyomino", "solve", "--board", "3x3x3", "--pieces", "soma", "--json")
    doc = json.loads(out)
    assert doc["solved"] and all(len(c) == 3 for p in doc["placements"] for c in p["cells"])
    _cells_cover(doc, 27)
    code, out, _ = run_cli(capsys, "polyomino", "solve", "--board", "10x6", "--pieces", "pentominoes")
    grid = out.splitlines()[:6]
    assert code == 0 and all(len(row) == 10 for row in grid)
    assert sorted(set("".join(grid))) == sorted("FILNPTUVWXYZ")


def test_unsolvable_exits_one(capsys):
    """5x4 cannot be tiled by the five tetrominoes (a checkerboard argument): searched to the end, exit 1."""
    code, out, _ = run_cli(capsys, "polyomino", "solve", "--board", "5x4", "--pieces", "tetrominoes", "--json")
    assert code == 1 and json.loads(out)["solved"] is False and json.loads(out)["placements"] == []


def test_every_exhaustive_method_exits_one_without_a_solution(capsys, tmp_path):
    """The classes search and a DLX solve also search to the end: no solution is exit 1; a count that finds none
    is done (exit 0), as ``polyomino count``."""
    code, out, _ = run_cli(capsys, "polyomino", "solve", "--board", "5x4", "--pieces", "tetrominoes", "--method",
                           "classes", "--backend", "cpu", "--json")
    assert code == 1 and json.loads(out)["solved"] is False
    f = tmp_path / "none.dlx"
    code, _, _ = run_cli(capsys, "polyomino", "dlx", "export", "--board", "5x4", "--pieces", "tetrominoes",
                         "--text", str(f))
    assert code == 0
    code, out, _ = run_cli(capsys, "polyomino", "dlx", "solve", str(f), "--backend", "cpu", "--json")
    assert code == 1 and json.loads(out)["solved"] is False
    code, out, _ = run_cli(capsys, "polyomino", "dlx", "solve", str(f), "--count", "--backend", "cpu", "--json")
    assert code == 0 and json.loads(out)["solutions"] == 0


def test_count_json_contract_store_and_show(capsys, tmp_path):
    h5 = tmp_path / "c.h5"
    code, out, _ = run_cli(capsys, "polyomino", "count", "--board", "15x4", "--pieces", "pentominoes", "--json",
                           "--backend", "cpu", "--out", str(h5))
    doc = json.loads(out)
    assert code == 0 and (doc["solutions"], doc["distinct"]) == (1472, 368)
    assert doc["backend"] == "cpu" and doc["nodes"] > 0 and doc["seconds"] >= 0 and doc["complete"]
    code, out, _ = run_cli(capsys, "show", str(h5), "--json")
    run = json.loads(out)["runs"][0]
    assert run["family"] == "polyomino" and run["status"] == "done" and run["result"]["distinct"] == 368


def test_count_resume_gives_the_uninterrupted_answer(capsys, tmp_path):
    h5 = tmp_path / "r.h5"
    common = ["polyomino", "count", "--board", "12x5", "--pieces", "pentominoes", "--backend", "cpu", "--out",
              str(h5), "--budget", "500", "--batch-size", "40", "--json"]
    code, out, _ = run_cli(capsys, *common, "--max-batches", "2")
    partial = json.loads(out)
    assert code == 0 and not partial["complete"]
    code, out, _ = run_cli(capsys, *common, "--resume")
    final = json.loads(out)
    assert final["complete"] and (final["solutions"], final["distinct"]) == (4040, 1010)
    assert final["run_id"] == partial["run_id"]
    with h5py.File(h5, "r") as f:
        assert list(f["runs"]) == [partial["run_id"]]


def test_enumerate_all_then_show(capsys, tmp_path):
    h5 = tmp_path / "all.h5"
    code, out, _ = run_cli(capsys, "polyomino", "count", "--board", "3x3x3", "--pieces", "soma", "--all",
                           "--out", str(h5), "--json")
    doc = json.loads(out)
    assert code == 0 and (doc["solutions"], doc["distinct"]) == (11520, 240)
    with h5py.File(h5, "r") as f:
        rows = f["runs"][doc["run_id"]]["items"]["solution"][:]
    assert rows.shape[0] == 11520 and len({tuple(r) for r in rows}) == 11520 and rows.dtype == "int16"
    png = tmp_path / "s.png"
    code, out, _ = run_cli(capsys, "show", str(h5), "--solution", "11520", "--json", "--png", str(png))
    shown = json.loads(out)
    assert code == 0 and shown["of"] == 11520 and len(shown["placements"]) == 7 and png.exists()
    _cells_cover(shown, 27)


def test_levels_generate_and_solve(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "polyomino", "levels", "generate", "--pieces", "iq-puzzler-pro", "--count",
                           "2", "--difficulty", "5", "--seed", "3", "--out-dir", str(tmp_path), "--json")
    doc = json.loads(out)
    assert code == 0 and len(doc["levels"]) == 2
    level = doc["levels"][1]["file"]
    code, out, _ = run_cli(capsys, "polyomino", "solve", "--pieces", "iq-puzzler-pro", "--level", level, "--json")
    sol = json.loads(out)
    assert sol["solved"] and len(sol["placements"]) == 12
    _cells_cover(sol, 55)


def test_dlx_export_and_solve(capsys, tmp_path):
    f = tmp_path / "p.dlx"
    code, _, _ = run_cli(capsys, "polyomino", "dlx", "export", "--board", "15x4", "--pieces", "pentominoes",
                         "--text", str(f))
    assert code == 0 and f.read_text().splitlines()[1].split("|")[0].count("#") == 12
    code, out, _ = run_cli(capsys, "polyomino", "dlx", "solve", str(f), "--count", "--json")
    assert code == 0 and json.loads(out)["solutions"] == 1472
    code, out, _ = run_cli(capsys, "polyomino", "dlx", "solve", str(f), "--json")
    chosen = json.loads(out)["options_chosen"]
    assert len(chosen) == 12 and sorted(o[-1] for o in chosen) == sorted("#" + c for c in "FILNPTUVWXYZ")


@pytest.mark.parametrize("args, message", [
    (["solve", "--board", "axb", "--pieces", "pentominoes"], "--board: 'axb' is neither WxH"),
    (["solve", "--board", "10x6", "--pieces", "heptacubes"], "unknown piece set 'heptacubes'"),
    (["count", "--board", "4x4", "--pieces", "soma"], "solid pieces on a 2D board"),
    (["count", "--board", "4x4", "--pieces", "dominoes", "--resume", "--out", "/nonexistent/x.h5"],
     "--resume: /nonexistent/x.h5 does not exist"),
    # --out is a results file: a folder takes --out-dir, and a flag is never a prefix of a longer one
    (["levels", "generate", "--pieces", "iq-puzzler-pro", "--out", "levels"], "unrecognized arguments: --out"),
])
def test_errors_are_one_line_exit_2(args, message, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "puzzlebatch", "polyomino", *args], capture_output=True,
                          text=True, cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr


def test_show_of_an_enumeration_without_solutions_is_one_line(tmp_path, capsys):
    """3x3 cannot be tiled by tetrominoes: the stored enumeration has no rows, and show says so (exit 2)."""
    out = tmp_path / "none.h5"
    assert main(["polyomino", "count", "--board", "3x3", "--pieces", "tetrominoes", "--all", "--out", str(out),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["solutions"] == 0
    assert main(["polyomino", "show", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "stored no solution" in err[0]


@pytest.mark.parametrize("method", ["band", "classes"])
def test_png_is_refused_not_ignored_by_the_methods_that_do_not_draw(capsys, tmp_path, method):
    png = tmp_path / "x.png"
    board = ["--board", "60x60", "--pieces", "dominoes", "--unlimited"] if method == "band" else \
        ["--board", "6x10", "--pieces", "pentominoes"]
    code, _, err = run_cli(capsys, "polyomino", "solve", *board, "--method", method, "--png", str(png))
    assert code == 2 and f"--png: --method {method}" in err and len(err.strip().splitlines()) == 1
    assert not png.exists()


def test_png_of_a_cut_solve_is_drawn(capsys, tmp_path):
    png = tmp_path / "cut.png"
    code, _, err = run_cli(capsys, "polyomino", "solve", "--board", "6x10", "--pieces", "pentominoes", "--method",
                           "cut", "--png", str(png))
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("option, method", [
    (["--text", "{t}"], "search"), (["--band-heights", "3"], "search"), (["--time-limit", "5"], "search"),
    (["--text", "{t}"], "cut"), (["--time-limit", "5"], "band"), (["--scheduler", "local:1"], "classes"),
])
def test_an_option_of_another_method_is_refused_not_ignored(capsys, tmp_path, option, method):
    board = ["--board", "60x60", "--pieces", "dominoes", "--unlimited"] if method == "band" else \
        ["--board", "6x10", "--pieces", "pentominoes"]
    option = [o.replace("{t}", str(tmp_path / "t.txt")) for o in option]
    code, _, err = run_cli(capsys, "polyomino", "solve", *board, "--method", method, *option)
    assert code == 2 and err.startswith(f"puzzlebatch: error: {option[0]}: ") and f"--method {method}" in err, err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "t.txt").exists()
