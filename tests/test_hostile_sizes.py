"""Hostile sizes, values that used to end in a traceback, and values that used to be accepted silently: each is
refused with one line on stderr and exit status 2 before the work starts (or, for the work a search leaves, before
it is allocated), and the memory estimates are checked against the peaks measured (``tracemalloc`` in the
process, ``prlimit --as`` around a subprocess).  Limits are made small through their environment variables, so
that no case depends on this machine's memory or speed."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from puzzlebatch.cli import main

REPO = Path(__file__).resolve().parents[1]
PROBLEM_1 = REPO / "puzzlebatch" / "data" / "icfp2015" / "problems" / "problem_1.json"


def _refused(capsys, argv, *fragments) -> str:
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err.strip().splitlines()
    err = [e for e in err if not e.startswith("compiling ")]  # a cold compile is announced, one line
    assert code == 2 and len(err) == 1, (argv, code, err)
    for f in fragments:
        assert f in err[0], (argv, err[0])
    return err[0]


def _boustrophedon_chain(box: str) -> str:
    """The chain of the path that sweeps ``box`` row by row (it folds into the box by construction)."""
    from puzzlebatch.puzzles.snake.generate import boustrophedon, chain_of_path
    from puzzlebatch.puzzles.snake.model import parse_box

    return chain_of_path(np.array(boustrophedon(parse_box(box)))).letters


# -- sizes without a bound ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, fragments", [
    (["snake", "generate", "--count", "1000000000"], ["--count", "PUZZLEBATCH_MAX_INSTANCES"]),
    (["snake", "generate", "--box", "100x100x100"], ["--box 100x100x100", "PUZZLEBATCH_MAX_GENERATED_CELLS"]),
    (["snake", "generate", "--box", "1000x1000x1"], ["1,000,000 cells", "PUZZLEBATCH_MAX_GENERATED_CELLS"]),
    (["polyomino", "levels", "generate", "--pieces", "iq-puzzler-pro", "--count", "1000000000"],
     ["--count", "PUZZLEBATCH_MAX_INSTANCES"]),
    (["hextris", "tune", "--problems", "5-1"], ["--problems", "5-1", "empty", "1-5"]),
    (["hextris", "tune", "--problems", "0-99999999999999"], ["no qualifier problem 99999999999999"]),
    (["hextris", "play", "1", "--beam", "9223372036854775808"], ["--beam", "between 1 and 65,536"]),
    (["snake", "count", "--budget", "9223372036854775808"], ["--budget", "between 1 and"]),
    (["snake", "count", "--frontier", "99999999999999999999"], ["--frontier", "between 1 and 16,777,216"]),
    (["polyomino", "generate", "--random-cut", "6x6", "--sizes", "1-99999999999", "--text", "p.txt"],
     ["--sizes 1-99999999999", "PUZZLEBATCH_MAX_CELLS"]),
])
def test_sizes_refused_before_work(argv, fragments, capsys):
    _refused(capsys, argv, *fragments)


def test_board_file_bounding_box_is_a_size(tmp_path, capsys):
    """A 9 KB board file whose bounding box is 3,002 x 3,001 cells: the cells limit applies to board files."""
    board = tmp_path / "wide.txt"
    board.write_text("\n".join([".#" + "#" * 2999 + "."] + ["#"] * 2999 + ["."]) + "\n")
    assert board.stat().st_size < 10_000
    _refused(capsys, ["polyomino", "solve", "--board", board, "--pieces", "dominoes", "--unlimited"],
             "bounding box 3002x3001", "PUZZLEBATCH_MAX_CELLS")


def test_cube_set_limit(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PUZZLEBATCH_MAX_CUBES", "30")
    cubes = tmp_path / "many.txt"
    cubes.write_text("".join(f"{i};1,-1,2,-2,3,-3\n" for i in range(1, 32)))
    _refused(capsys, ["cubes", "count", "--figure", "3x3x3", "--cubes", cubes, "--out", tmp_path / "c.h5"],
             "line 31", "31 cubes is over the limit of 30", "PUZZLEBATCH_MAX_CUBES")


def test_hex_problem_seeds_and_phrase(tmp_path, capsys, monkeypatch):
    doc = json.loads(PROBLEM_1.read_text())
    doc["sourceSeeds"] = list(range(100_000))
    many = tmp_path / "seeds.json"
    many.write_text(json.dumps(doc))
    _refused(capsys, ["hextris", "show", many], "sourceSeeds", "100,000 seeds", "PUZZLEBATCH_MAX_SEEDS")
    _refused(capsys, ["hextris", "play", "1", "-p", "ei!" * 33_334, "--out", tmp_path / "h.h5"],
             "100,002 characters", "PUZZLEBATCH_MAX_PHRASE")
    monkeypatch.setenv("PUZZLEBATCH_MAX_PHRASE", "5")
    phrases = tmp_path / "phrases.txt"
    phrases.write_text("ei!\nia! ia!\n")
    _refused(capsys, ["hextris", "play", "1", "--phrases", phrases, "--out", tmp_path / "h.h5"],
             "phrase 'ia! ia!'", "7 characters")
    phrases.write_text("\n\n")
    _refused(capsys, ["hextris", "show", "1", "--phrases", phrases], "no phrase in the file")
    phrases.write_text("ei\x00\n")
    _refused(capsys, ["hextris", "show", "1", "--phrases", phrases], "not a command character")


def test_colour_dlx_estimate_covers_the_measured_peak(tmp_path, capsys, monkeypatch):
    """Options colouring one secondary item: the incremental MRV builds dense option-by-option conflict masks.
    The estimate (it said 607 MiB for 50,000 options, which took over 2 GB) must be at least the peak measured,
    and a problem over the limit is refused before anything is allocated."""
    def colour_dlx(n: int) -> Path:
        path = tmp_path / f"colour{n}.dlx"
        path.write_text("a | s0\n" + "".join(f"a s0:c{i}\n" for i in range(n)))
        return path

    limit = 60_000_000
    monkeypatch.setenv("PUZZLEBATCH_MAX_MEMORY", str(limit))
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["polyomino", "dlx", "solve", str(colour_dlx(50))]) == 0  # compiled (or loaded) outside the peak
    tracemalloc.start()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(["polyomino", "dlx", "solve", str(colour_dlx(2000))])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 0
    assert peak < limit, peak
    capsys.readouterr()
    _refused(capsys, ["polyomino", "dlx", "solve", colour_dlx(3000)], "3,000 options", "needs about",
             "PUZZLEBATCH_MAX_MEMORY")


def test_work_left_by_a_long_chain_is_bounded(tmp_path, capsys, monkeypatch):
    """A 512-cube chain: every budget-stopped item splits into up to one item per level below its root.  The work
    left is checked against the memory limit before it is allocated, and the peak stays under the limit."""
    limit = 30_000_000
    monkeypatch.setenv("PUZZLEBATCH_MAX_MEMORY", str(limit))
    chain = _boustrophedon_chain("8x8x8")
    with contextlib.redirect_stdout(io.StringIO()):  # compiled (or loaded) outside the peak
        assert main(["snake", "count", "3,2,3,2,3", "--box", "3x3x1", "--out", str(tmp_path / "w.h5")]) == 0
    capsys.readouterr()
    tracemalloc.start()
    try:
        line = _refused(capsys, ["snake", "count", chain, "--box", "8x8x8", "--out", tmp_path / "x.h5"],
                        "the work left", "needs about", "PUZZLEBATCH_MAX_MEMORY")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "Traceback" not in line
    assert peak < limit, peak


@pytest.mark.skipif(shutil.which("prlimit") is None, reason="needs prlimit (util-linux)")
def test_4096_cube_chain_under_prlimit(tmp_path):
    """The 4,096-cube chain of a 16x16x16 box (it took over 2 GB in 7 s): under ``prlimit --as`` the process ends
    with the limit's one line, not with an allocation failure."""
    chain = _boustrophedon_chain("16x16x16")
    env = dict(os.environ, PUZZLEBATCH_MAX_MEMORY=str(200_000_000))
    proc = subprocess.run(["prlimit", f"--as={4 << 30}", sys.executable, "-m", "puzzlebatch", "snake", "count",
                           chain, "--box", "16x16x16", "--out", str(tmp_path / "big.h5")],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    err = [e for e in proc.stderr.strip().splitlines() if not e.startswith("compiling ")]
    assert proc.returncode == 2 and len(err) == 1, proc.stderr
    assert "needs about" in err[0] and "out of memory" not in err[0], err


# -- tracebacks -----------------------------------------------------------------------------------------------------
def test_copies_too_many(tmp_path, capsys):
    _refused(capsys, ["polyomino", "solve", "--board", "6x10", "--pieces", "pentominoes", "--copies",
                      "9223372036854775808"], "--copies", "over the limit", "PUZZLEBATCH_MAX_CELLS")
    pieces = tmp_path / "p.txt"
    pieces.write_text("P count=100000000000000000000000:\n##\n")
    _refused(capsys, ["polyomino", "solve", "--board", "6x10", "--pieces", pieces], "p.txt:1",
             "count=100000000000000000000000", "over the limit")


@pytest.mark.parametrize("heights, fragment", [
    ("a,b", "not comma-separated heights"), ("0", "at least 1"), ("-1", "at least 1"),
    ("100", "height 100 does not fit in 60x60"), ("1000000", "height 1000000 does not fit"),
])
def test_band_heights(heights, fragment, capsys):
    _refused(capsys, ["polyomino", "solve", "--board", "60x60", "--pieces", "dominoes", "--unlimited", "--method",
                      "band", f"--band-heights={heights}"], "--band-heights", fragment)


def test_piece_set_without_board(capsys):
    _refused(capsys, ["polyomino", "solve", "--pieces", "iq-puzzler-pro"], "--board")


# -- accepted silently ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, fragments", [
    (["snake", "generate", "--box", ""], ["box ''"]),
    (["polyomino", "solve", "--board", "6x10", "--pieces", "pentominoes", "--png", ""], ["--png ''", "empty"]),
    (["polyomino", "solve", "--board", "6x10", "--pieces", "pentominoes", "--out", ""], ["--out ''", "empty"]),
    (["snake", "count", "3,2,3,2,3", "--box", "3x3x1", "--out", ""], ["--out ''", "empty"]),
    (["snake", "count", "3,2,3,2,3", "--box", "3x3x1", "--out", "{tmp}/dir.h5/"], ["dir.h5/", "names a folder"]),
    (["polyomino", "solve", "--board", "6x10", "--pieces", "pentominoes", "--copies", "2", "--unlimited"],
     ["--copies 2 and --unlimited"]),
])
def test_no_longer_accepted_silently(argv, fragments, tmp_path, capsys):
    _refused(capsys, [a.format(tmp=tmp_path) for a in argv], *fragments)
    assert not (tmp_path / "dir.h5").exists()


def test_board_of_holes_only(tmp_path, capsys):
    board = tmp_path / "holes.txt"
    board.write_text("###\n# #\n###\n")
    _refused(capsys, ["polyomino", "solve", "--board", board, "--pieces", "dominoes", "--unlimited"],
             "holes.txt", "no cell on the board")


def test_board_smaller_than_the_pieces_is_said(capsys):
    """5x5 with the 12 pentominoes: a solution packs 5 of them; stderr says so (one line), stdout has the board."""
    assert main(["polyomino", "solve", "--board", "5x5", "--pieces", "pentominoes"]) == 0
    captured = capsys.readouterr()
    err = [e for e in captured.err.strip().splitlines() if not e.startswith("compiling ")]
    assert len(err) == 1 and "60 cells, more than the board's 25" in err[0], err
    assert len(captured.out.splitlines()[0]) == 5
    assert main(["polyomino", "solve", "--board", "6x10", "--pieces", "pentominoes"]) == 0
    assert "more than the board" not in capsys.readouterr().err


# -- long steps said ------------------------------------------------------------------------------------------------
def test_compile_is_announced_off_a_terminal_once(capsys, monkeypatch):
    """From the command line a first compile is said on stderr into a pipe too, once per family, one line."""
    from puzzlebatch.jit import clock

    monkeypatch.setattr(clock, "_announced", set())
    monkeypatch.setattr(clock, "_always", [False])
    clock.announce("demo")
    assert capsys.readouterr().err == ""  # a library caller off a terminal: nothing
    monkeypatch.setattr(clock, "_announced", set())
    clock.announce_always()
    clock.announce("demo")
    clock.announce("demo")
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("compiling demo kernels ("), err


def test_gif_is_announced(tmp_path, capsys):
    gif = tmp_path / "g.gif"
    assert main(["hextris", "show", "1", "--gif", str(gif), "--max-frames", "3"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert any(f"drawing the animation {gif}" in e for e in err), err
    assert gif.stat().st_size > 0


# -- input files that never end, and empty sizes --------------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["cubes", "solve", "--figure", "2x2x1", "--cubes", "/dev/zero"],
    ["sliding", "solve", "--file", "/dev/zero"],
])
def test_an_input_that_never_ends_is_read_up_to_its_limit(argv, capsys, monkeypatch):
    """``/dev/zero`` as an input file: read one byte past the input limit, then refused in one line."""
    monkeypatch.setenv("PUZZLEBATCH_MAX_INPUT_BYTES", "4096")
    _refused(capsys, argv, "/dev/zero", "4,096 bytes", "PUZZLEBATCH_MAX_INPUT_BYTES")


def test_an_input_within_the_limit_is_read_whole(tmp_path, monkeypatch):
    from puzzlebatch.outputs import read_bytes

    f = tmp_path / "f"
    f.write_bytes(b"x" * 4096)
    monkeypatch.setenv("PUZZLEBATCH_MAX_INPUT_BYTES", "4096")
    assert read_bytes(f) == b"x" * 4096


def test_an_empty_bfs_size_is_one_line(capsys):
    _refused(capsys, ["sliding", "bfs", ""], "bfs size", "empty")
