"""What every family's runs store, read back: a tiny run of each family made by its own command (``--out``), then
``show --run`` (its rows decoded), ``show --solution K`` (text, JSON and ``--png``) and the web app's results API
for the same run agree with each other and with the command's own ``--json`` document.  Also: runs no records
module reads (a job's ledger, a user's family) are listed generically, and small runs make small files."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest

from puzzlebatch.cli import main
from tests.test_cli_contract import check_document

PNG = b"\x89PNG\r\n\x1a\n"
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "nqueens"


def _run(argv: list) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _json(argv: list, code: int = 0) -> dict:
    got, out, err = _run([*argv, "--json"])
    assert got == code, (argv, err)
    return json.loads(out)


# (name, file, command, the run's drawing kind): one stored run each, made by the family's own command
CASES = [
    ("snake-solve", "snake.h5", ["snake", "solve", "FJJJJJJF", "--box", "2x2x2"], "snake"),
    ("snake-all", "snake.h5", ["snake", "count", "FJJJJJJF", "--box", "2x2x2", "--all"], "snake"),
    ("polyomino-all", "poly.h5", ["polyomino", "count", "--board", "2x4", "--pieces", "dominoes", "--unlimited",
                                  "--all"], "polyomino"),
    ("polyomino-solve", "poly.h5", ["polyomino", "solve", "--board", "3x4", "--pieces", "trominoes", "--unlimited"],
     "polyomino"),
    ("cubes-solve", "cubes.h5", ["cubes", "solve", "--figure", "2x2x1"], "cubes"),
    ("sliding-solve", "sliding.h5", ["sliding", "solve", "4 1 2 0 5 3", "--size", "2x3"], "sliding"),
    ("sliding-file", "sliding.h5", ["sliding", "solve", "--file", "{d}/boards.txt", "--size", "2x3"], "sliding"),
    ("hextris-play", "hextris.h5", ["hextris", "play", "21", "--player", "greedy"], "hextris"),
]


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """name -> (file, run id, the command's JSON document)."""
    d = tmp_path_factory.mktemp("records")
    (d / "boards.txt").write_text("1 2 3 4 0 5\n4 1 2 0 5 3\n2 1 3 4 5 0\n")  # the last one unsolvable
    out = {}
    for name, file, argv, _ in CASES:
        argv = [a.replace("{d}", str(d)) for a in argv]
        doc = _json([*argv, "--backend", "cpu", "--out", d / file])
        out[name] = (d / file, doc["run_id"], doc)
    return out


@pytest.fixture(scope="module")
def web(stored):
    pytest.importorskip("fastapi", reason="the web extra is not installed")
    from fastapi.testclient import TestClient

    from puzzlebatch.web.app import create_app

    root = next(iter(stored.values()))[0].parent
    return TestClient(create_app(root, allowed_hosts=None))  # no `with`: no job workers start


def _listing(file, run_id) -> dict:
    doc = _json(["show", file, "--run", run_id, "--rows", "1:1000"])
    check_document(doc, "show")
    return doc


def _solution(file, run_id, k: int) -> dict:
    doc = _json(["show", file, "--run", run_id, "--solution", k])
    check_document(doc, "show")
    return doc


def _same_cells(a: list, b: list) -> bool:
    return sorted(map(tuple, a)) == sorted(map(tuple, b))


def test_snake_folding_agrees_with_solve(stored):
    file, run_id, doc = stored["snake-solve"]
    items = _listing(file, run_id)["items"]
    assert items == [{"row": 1, "cells": doc["cells"], "weight": 1}]
    sol = _solution(file, run_id, 1)
    assert sol["cells"] == doc["cells"] and sol["box"] == "2x2x2" and sol["chain"] == "FJJJJJJF"


def test_snake_all_rows_add_up_to_the_count(stored):
    file, run_id, doc = stored["snake-all"]
    items = _listing(file, run_id)["items"]
    assert sum(i["weight"] for i in items) == doc["embeddings"] and len(items) == doc["distinct"]
    for item in items:  # each a Hamiltonian path of the box: every cell once, neighbours one step apart
        cells = item["cells"]
        assert len({tuple(c) for c in cells}) == 8
        assert all(sum(abs(a - b) for a, b in zip(p, q)) == 1 for p, q in zip(cells, cells[1:]))
    assert [_solution(file, run_id, k)["cells"] for k in (1, 2, 3)] == [i["cells"] for i in items]


def test_polyomino_rows_are_the_solutions(stored):
    file, run_id, doc = stored["polyomino-all"]
    items = _listing(file, run_id)["items"]
    assert len(items) == doc["solutions"] == 5  # domino tilings of 2x4
    tilings = {frozenset(tuple(map(tuple, p["cells"])) for p in i["placements"]) for i in items}
    assert len(tilings) == 5 and all("/".join(i["letters"]) == "DD/DD/DD/DD" for i in items)
    for k, item in enumerate(items, 1):
        sol = _solution(file, run_id, k)
        assert [{"piece": p["piece"], "cells": p["cells"]} for p in sol["placements"]] == item["placements"]
        assert sol["letters"] == item["letters"] and sol["size"] == doc["board"] == "2x4"
        assert _same_cells([c for p in sol["placements"] for c in p["cells"]], [[x, y] for x in range(2)
                                                                                  for y in range(4)])


def test_polyomino_kept_solve_is_the_solution_printed(stored):
    file, run_id, doc = stored["polyomino-solve"]
    sol = _solution(file, run_id, 1)
    assert [{"piece": p["piece"], "cells": p["cells"]} for p in sol["placements"]] == doc["placements"]


def test_cubes_assembly_agrees_with_solve(stored):
    file, run_id, doc = stored["cubes-solve"]
    items = _listing(file, run_id)["items"]
    assert [{k: v for k, v in i.items() if k != "row"} for i in items] == doc["assembly"]
    sol = _solution(file, run_id, 1)
    assert sol["assembly"] == doc["assembly"] and sol["figure"] == "2x2x1" and sol["of"] == 1


def test_sliding_paths_agree_with_solve(stored):
    file, run_id, doc = stored["sliding-solve"]
    sol = _solution(file, run_id, 1)
    for key in ("board", "size", "goal", "solvable", "length", "moves", "directions", "nodes"):
        assert sol[key] == doc[key], key
    file, run_id, doc = stored["sliding-file"]
    items = _listing(file, run_id)["items"]
    assert len(items) == len(doc["results"]) == 3
    for k, (item, result) in enumerate(zip(items, doc["results"]), 1):
        for key in ("board", "solvable", "length", "moves", "nodes"):
            assert item[key] == result[key], (k, key)
        sol = _solution(file, run_id, k)
        assert (sol["moves"], sol["directions"]) == (result["moves"], result["directions"])


def test_hextris_game_agrees_with_play_and_its_replay(stored):
    file, run_id, doc = stored["hextris-play"]
    [item] = _listing(file, run_id)["items"]
    [entry] = doc["entries"]
    assert (item["problemId"], item["seed"], item["solution"]) == (entry["problemId"], entry["seed"],
                                                                   entry["solution"])
    assert item["move_score"] == doc["move_scores"][0] and item["end"] == doc["ends"][0]
    sol = _solution(file, run_id, 1)
    assert sol["solution"] == entry["solution"] and sol["move_score"] == doc["move_scores"][0]
    shown = _json(["hextris", "show", "21", "--seed", entry["seed"], "--solution", _commands(file, entry)])
    for key in ("size", "units_locked", "commands", "move_score", "power_score", "total", "end"):
        assert sol[key] == shown[key], key


def _commands(file: Path, entry: dict) -> Path:
    path = file.parent / "game.txt"
    path.write_text(entry["solution"])
    return path


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_text_json_picture_and_web_agree(stored, web, name, tmp_path):
    file, run_id, _ = stored[name]
    kind = next(c[3] for c in CASES if c[0] == name)
    listing = _listing(file, run_id)
    sol = _solution(file, run_id, 1)
    # the file's description names what the run stored
    desc = _json(["show", file])
    [entry] = [r for r in desc["runs"] if r["id"] == run_id]
    assert entry["drawing"] == kind and entry["stored_solutions"] == sol["of"] >= 1 and entry["summary"]
    # text
    code, text, _ = _run(["show", file])
    assert code == 0 and f"stored: {entry['summary']}"[:60] in text
    code, text, _ = _run(["show", file, "--run", run_id])
    assert code == 0 and text.startswith(f"run {run_id} (") and f"rows 1-{min(20, listing['rows'])} of" in text
    code, text, _ = _run(["show", file, "--run", run_id, "--solution", "1"])
    from puzzlebatch.results.show import run_solution

    assert code == 0 and text.startswith(f"solution 1 of {sol['of']} (run {run_id}")
    assert run_solution(file, run_id, 1)["text"] in text
    # the picture
    png = tmp_path / "s.png"
    doc = _json(["show", file, "--run", run_id, "--solution", "1", "--png", png])
    assert doc["picture"] == str(png) and png.read_bytes()[:8] == PNG and png.stat().st_size > 2000
    assert {k: v for k, v in doc.items() if k not in ("picture", "seconds", "compile_seconds")} == \
        {k: v for k, v in sol.items() if k not in ("seconds", "compile_seconds")}
    # the web API: the same description, rows and solution
    rel = file.name
    got = web.get("/api/results/file", params={"path": rel}).json()
    [w] = [r for r in got["runs"] if r["id"] == run_id]
    assert w["drawable"] == kind and w["summary"] == entry["summary"]
    page = web.get("/api/results/items", params={"path": rel, "run": run_id, "limit": 500}).json()
    assert page["total"] == listing["rows"] and _uncut(page["items"], listing["items"])
    drawn = web.get("/api/results/solution", params={"path": rel, "run": run_id, "row": 0}).json()
    assert drawn["kind"] == kind and drawn["run"] == run_id
    for key, value in sol.items():
        if key in ("command", "schema_version", "run_id", "family", "algorithm", "status", "number", "of", "text",
                   "backend", "seconds", "compile_seconds"):
            continue
        if key in ("size", "box"):  # the page draws from numbers
            assert drawn[key] == [int(v) for v in value.split("x")], key
        else:
            assert drawn[key] == value, key


def _uncut(web_items: list, cli_items: list) -> bool:
    """The web page's decoded rows are the command line's, long strings cut."""
    def same(a, b):
        if isinstance(a, str) and isinstance(b, str) and a != b:
            return a.endswith("characters)") and b.startswith(a.split("…")[0])
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        return a == b

    return same(web_items, cli_items)


def test_rows_are_paged(stored):
    file, run_id, _ = stored["polyomino-all"]
    doc = _json(["show", file, "--run", run_id, "--rows", "2:3"])
    assert [i["row"] for i in doc["items"]] == [2, 3] and (doc["first"], doc["last"], doc["rows"]) == (2, 3, 5)
    assert [i["row"] for i in _json(["show", file, "--run", run_id, "--rows", "4:"])["items"]] == [4, 5]
    code, text, _ = _run(["show", file, "--run", run_id, "--rows", "1:2"])
    assert code == 0 and "(more: --rows 3:5)" in text


@pytest.mark.parametrize("argv, message", [
    (["--run", "nope"], "--run: {file} has no run 'nope'"),
    (["--run", "{run}", "--rows", "x"], "--rows 'x': expected A:B"),
    (["--run", "{run}", "--rows", "5:2"], "--rows '5:2': expected A:B with 1 <= A <= B"),
    (["--run", "{run}", "--solution", "6"], "--solution: 6 is not between 1 and 5"),
    (["--run", "{run}", "--solution", "1", "--rows", "1:2"], "--rows: only with --run ID and without --solution"),
    (["--run", "{run}", "--solution", "1", "--png", "{file}.jpg"], ".png or .svg"),
])
def test_bad_requests_are_one_line(stored, argv, message):
    file, run_id, _ = stored["polyomino-all"]
    argv = [a.replace("{run}", run_id).replace("{file}", str(file)) for a in argv]
    code, out, err = _run(["show", file, *argv])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert message.replace("{file}", str(file)) in err, err


def test_a_run_without_solutions_says_so(tmp_path):
    out = tmp_path / "c.h5"
    doc = _json(["snake", "count", "FJJJJJJF", "--box", "2x2x2", "--backend", "cpu", "--out", out])
    code, _, err = _run(["show", out, "--run", doc["run_id"], "--solution", "1"])
    assert code == 2 and "stores no solution to show" in err and err.count("\n") == 1
    code, _, err = _run(["show", out, "--solution", "1"])  # no run given: the latest run that stores some
    assert code == 2 and "holds no stored solution" in err
    listing = _json(["show", out, "--run", doc["run_id"]])
    assert listing["rows"] == 0 and listing["items"] == []


def test_the_latest_run_with_solutions_is_the_default(stored):
    file, run_id, _ = stored["snake-all"]
    assert _json(["show", file, "--solution", "2"])["run_id"] == run_id


def test_a_job_ledger_lists_its_instances(tmp_path):
    out = tmp_path / "job.h5"
    job = tmp_path / "job.toml"
    job.write_text(f'family = "snake"\nverb = "count"\nbackend = "cpu"\nout = "{out}"\n'
                   '[instances]\nlist = ["FJJJJJJF", "JJJJJJJJ"]\n[options]\nbox = "2x2x2"\n')
    summary = _json(["run", job])
    listing = _json(["show", out, "--run", summary["run_id"]])
    assert [i["instance"] for i in listing["items"]] == [0, 1] and {i["status"] for i in listing["items"]} == {0}
    assert [i["result"]["embeddings"] for i in listing["items"]] == [r["embeddings"] for r in summary["results"]]
    code, text, _ = _run(["show", out, "--run", summary["run_id"]])
    assert code == 0 and "instance 0" in text and '"embeddings":144' in text


def test_a_user_family_is_listed_and_its_solution_shown(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    import pb_nqueens

    import puzzlebatch as pb

    pb.register_family(pb_nqueens.FAMILY, replace=True)
    try:
        out = tmp_path / "q.h5"
        doc = _json(["nqueens", "solve", "6", "--backend", "cpu", "--out", out])
        listing = _json(["show", out, "--run", doc["run_id"]])
        assert len(listing["items"]) == 1 and isinstance(listing["items"][0]["state"], list)
        sol = _json(["show", out, "--solution", "1"])
        assert sol["solution"] == doc["solution"] and pb_nqueens.check(sol["solution"], n=6)
        code, _, err = _run(["show", out, "--solution", "1", "--png", tmp_path / "q.png"])
        assert code == 2 and "nqueens runs have no picture" in err
    finally:
        pb.unregister_family("nqueens")
        sys.modules.pop("pb_nqueens", None)


def test_small_runs_make_small_files(stored):
    """A chunk is allocated whole: the item columns are compressed, so a few rows take a few kilobytes."""
    assert stored["cubes-solve"][0].stat().st_size < 64_000
    assert stored["sliding-solve"][0].stat().st_size < 64_000
