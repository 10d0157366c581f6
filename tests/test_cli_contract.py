"""The JSON contract of every verb (README, "JSON output"): one object with ``command``, ``schema_version``,
``backend``, ``seconds`` and ``compile_seconds``, and the shared names typed alike in every family.

Each verb runs once on a tiny input (CPU backend); a verb the parser knows but this table does not fails
:func:`test_every_verb_is_in_the_table`."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re

import pytest

from puzzlebatch.cli import build_parser, main
from puzzlebatch.cli.options import SCHEMA_VERSION, print_json

# verbs that print no JSON document, and why
EXEMPT = {
    "serve": "runs the web server until stopped; prints no document",
    "polyomino dlx export": "writes the DLX text of a problem (to --text or stdout), not a result",
    "hextris generate": "writes problems in the contest's own format (files, or one JSON a line), not a result",
}

# (command, argv after `puzzlebatch`); {d} is the folder of the inputs made by the `inputs` fixture
CASES = [
    ("info", ["info", "--json"]),
    ("show", ["show", "{d}/snake.h5", "--json"]),
    ("show", ["show", "{d}/all.h5", "--solution", "1", "--json"]),
    ("snake solve", ["snake", "solve", "--backend", "cpu", "--json"]),
    ("snake solve", ["snake", "solve", "FFJFJFJFJFJF", "--box", "2x2x3", "--backend", "cpu", "--json"]),  # no fold: 1
    ("snake count", ["snake", "count", "FJJJJJJF", "--box", "2x2x2", "--backend", "cpu", "--out", "{d}/c.h5",
                     "--json"]),
    ("snake generate", ["snake", "generate", "--box", "2x2x2", "--json"]),
    ("polyomino solve", ["polyomino", "solve", "--board", "2x4", "--pieces", "dominoes", "--unlimited",
                         "--backend", "cpu", "--json"]),
    ("polyomino solve", ["polyomino", "solve", "--board", "10x6", "--pieces", "pentominoes", "--unlimited",
                         "--method", "band", "--json"]),
    ("polyomino solve", ["polyomino", "solve", "--board", "6x5", "--pieces", "{d}/cut.txt", "--method", "classes",
                         "--backend", "cpu", "--json"]),
    ("polyomino solve", ["polyomino", "solve", "--board", "6x5", "--pieces", "{d}/cut.txt", "--method", "cut",
                         "--backend", "cpu", "--json"]),
    ("polyomino count", ["polyomino", "count", "--board", "2x4", "--pieces", "dominoes", "--unlimited",
                         "--backend", "cpu", "--json"]),
    ("polyomino count", ["polyomino", "count", "--board", "4x6", "--pieces", "tetrominoes", "--unlimited",
                         "--method", "transfer", "--backend", "cpu", "--json"]),
    ("polyomino show", ["polyomino", "show", "{d}/all.h5", "--json"]),
    ("polyomino levels generate", ["polyomino", "levels", "generate", "--pieces", "iq-puzzler-pro", "--count", "1",
                                   "--difficulty", "3", "--seed", "3", "--json"]),
    ("polyomino dlx solve", ["polyomino", "dlx", "solve", "{d}/p.dlx", "--backend", "cpu", "--json"]),
    ("polyomino dlx solve", ["polyomino", "dlx", "solve", "{d}/p.dlx", "--count", "--backend", "cpu", "--json"]),
    ("polyomino generate", ["polyomino", "generate", "--random-cut", "6x5", "--sizes", "4-5", "--text",
                            "{d}/cut2.txt", "--json"]),
    ("hextris score", ["hextris", "score", "0", "{d}/solutions.json", "--backend", "cpu", "--json"]),
    ("hextris show", ["hextris", "show", "3", "--json"]),
    ("hextris play", ["hextris", "play", "21", "--player", "greedy", "--backend", "cpu", "--json"]),
    ("hextris play", ["hextris", "play", "21", "--beam", "1", "--keep", "1", "--no-phrases", "--backend", "cpu",
                      "--json"]),
    ("hextris tune", ["hextris", "tune", "--problems", "21", "--population", "4", "--elite", "2", "--newcomers",
                      "1", "--beam", "1", "--keep", "1", "--generations", "1", "--backend", "cpu"]),  # always JSON
    ("hextris rank", ["hextris", "rank", "{d}/solutions.json", "--backend", "cpu", "--json"]),
    ("sliding bfs", ["sliding", "bfs", "2x3", "--backend", "cpu", "--out", "{d}/bfs.h5", "--json"]),
    ("sliding solve", ["sliding", "solve", "1 2 3 4 0 5", "--size", "2x3", "--backend", "cpu", "--json"]),
    ("sliding solve", ["sliding", "solve", "1 2 3 4 5 6 8 7 0", "--backend", "cpu", "--json"]),  # unsolvable: 1
    ("sliding solve", ["sliding", "solve", "--file", "{d}/boards.txt", "--size", "2x3", "--backend", "cpu", "--out",
                       "{d}/solve.h5", "--json"]),
    ("sliding pdb build", ["sliding", "pdb", "build", "4-4", "--size", "3x3", "--backend", "cpu", "--cache-dir",
                           "{d}/pdb", "--json"]),
    ("sliding replay", ["sliding", "replay", "1 2 3 4 0 5", "R", "--size", "2x3", "--json"]),
    ("cubes solve", ["cubes", "solve", "--figure", "2x2x1", "--backend", "cpu", "--json"]),
    ("cubes count", ["cubes", "count", "--figure", "2x1x1", "--backend", "cpu", "--out", "{d}/cubes.h5", "--json"]),
    ("cubes ga", ["cubes", "ga", "--figure", "2x2x1", "--population", "16", "--generations", "3", "--backend", "cpu",
                  "--out", "{d}/ga.h5", "--json"]),
    ("run", ["run", "{d}/job.toml", "--dry-run", "--json"]),
    ("run", ["run", "{d}/job.toml", "--json"]),
    ("warmup", ["warmup", "snake", "--json"]),
]

SIZE = re.compile(r"^\d+(x\d+)+$")


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The files the verbs read: a solutions file, a job, sliding boards, and stores, pieces and a DLX file made by
    the verbs themselves."""
    from puzzlebatch.puzzles.hextris.model import DATA_DIR

    d = tmp_path_factory.mktemp("contract")
    ref = json.loads((DATA_DIR / "reference_scores.json").read_text())
    (d / "solutions.json").write_text(json.dumps([{"problemId": e["problemId"], "seed": e["seed"], "tag": "ref",
                                                   "solution": e["solution"]} for e in ref if e["problemId"] == 0]))
    (d / "job.toml").write_text(f'family = "snake"\nverb = "count"\nbackend = "cpu"\nout = "{d / "job.h5"}"\n'
                                '[instances]\nlist = ["FJJJJJJF"]\n[options]\nbox = "2x2x2"\n')
    (d / "boards.txt").write_text("1 2 3 4 0 5\n4 1 2 0 5 3\n2 1 3 4 5 0\n")  # the last one unsolvable
    for argv in (["snake", "count", "FJJJJJJF", "--box", "2x2x2", "--backend", "cpu", "--out", f"{d}/snake.h5"],
                 ["polyomino", "count", "--board", "2x4", "--pieces", "dominoes", "--unlimited", "--all",
                  "--backend", "cpu", "--out", f"{d}/all.h5"],
                 ["polyomino", "generate", "--random-cut", "6x5", "--sizes", "4-5", "--text", f"{d}/cut.txt"],
                 ["polyomino", "dlx", "export", "--board", "2x4", "--pieces", "dominoes", "--unlimited", "--text",
                  f"{d}/p.dlx"]):
        code, _, err = _run(argv)
        assert code == 0, (argv, err)
    return d


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_shared_names(obj: dict, where: str) -> None:
    """The names every family uses alike (README, "JSON output")."""
    if "solved" in obj:
        assert isinstance(obj["solved"], bool), f"{where}: solved {obj['solved']!r} is not a bool"
    if "solutions" in obj:
        assert isinstance(obj["solutions"], int) and not isinstance(obj["solutions"], bool), \
            f"{where}: solutions {obj['solutions']!r} is not an integer"
    if "cells" in obj:
        cells = obj["cells"]
        assert isinstance(cells, list) and all(isinstance(c, list) and c and all(
            isinstance(v, int) and not isinstance(v, bool) for v in c) for c in cells), \
            f"{where}: cells {cells!r} are not coordinates"
    if "moves" in obj:
        assert isinstance(obj["moves"], list), f"{where}: moves {obj['moves']!r} is not a list"
        assert obj.get("length") == len(obj["moves"]), f"{where}: length {obj.get('length')!r} != len(moves)"
    for key in ("box", "size"):
        if key in obj:
            assert isinstance(obj[key], str) and SIZE.match(obj[key]), f"{where}: {key} {obj[key]!r} is not AxB[xC]"
    if "board" in obj:
        assert isinstance(obj["board"], str), f"{where}: board {obj['board']!r} is not a string"


def check_document(doc, command: str) -> None:
    assert isinstance(doc, dict), f"{command}: a {type(doc).__name__}, not one object"
    assert list(doc)[:2] == ["command", "schema_version"]
    assert doc["command"] == command
    assert doc["schema_version"] == SCHEMA_VERSION and isinstance(doc["schema_version"], int)
    assert doc["backend"] is None or isinstance(doc["backend"], str), doc["backend"]
    for key in ("seconds", "compile_seconds"):
        assert _is_number(doc[key]) and doc[key] >= 0, f"{command}: {key} {doc.get(key)!r}"
    _check_shared_names(doc, command)
    for key, value in doc.items():  # objects in lists: placements, pieces, results, scores, ...
        if isinstance(value, list):
            for k, item in enumerate(value):
                if isinstance(item, dict):
                    _check_shared_names(item, f"{command}: {key}[{k}]")


EXHAUSTIVE = {"snake solve", "polyomino solve", "cubes solve", "sliding solve", "polyomino dlx solve"}


@pytest.mark.parametrize("command, argv", CASES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CASES)])
def test_json_document(inputs, command, argv):
    code, out, err = _run([a.replace("{d}", str(inputs)) for a in argv])
    doc = json.loads(out)  # exactly one JSON value on stdout
    # exit status 1: an exhaustive search found no solution (the answer is still printed); otherwise 0
    assert code == (1 if command in EXHAUSTIVE and doc.get("solved") is False else 0), err
    check_document(doc, command)
    if command == "run" and "results" in doc:  # each instance's own document, inside the job's
        for inner in doc["results"]:
            check_document(inner, "snake count")


def _verbs(parser: argparse.ArgumentParser, words=()) -> list[tuple[str, argparse.ArgumentParser]]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return [(" ".join(words), parser)]
    return [v for name, p in subs[0].choices.items() for v in _verbs(p, (*words, name))]


def test_every_verb_is_in_the_table():
    verbs = dict(_verbs(build_parser()))
    tested = {c for c, _ in CASES}
    assert set(EXEMPT) <= set(verbs), "an exempt verb that no longer exists"
    missing = sorted(set(verbs) - tested - set(EXEMPT))
    assert missing == [], f"verbs without a JSON contract case (add one, or exempt them with a reason): {missing}"
    for name in EXEMPT:
        assert not any("--json" in a.option_strings for a in verbs[name]._actions), f"{name} takes --json"


def test_print_json_refuses_anything_but_one_object(capsys):
    for doc in ([{"total": 1}], "text", 3, None):
        with pytest.raises(TypeError):
            print_json(doc)
    with pytest.raises(ValueError):
        print_json({"command": "mine"})
    assert capsys.readouterr().out == ""
