"""Fuzzing every parser with random and mutated inputs (hypothesis): an input is accepted or refused with one
:class:`PuzzleInputError` line, never another exception, a hang or unbounded memory.

Parsers run in this process (fast); damaged results files are read by one child process (HDF5 is C code: a crash
there must not take the test runner with it).  The number of examples per test is ``PUZZLEBATCH_FUZZ_EXAMPLES``
(default 40, what CI runs; raise it to fuzz longer).  No deadline depends on the machine's speed; a single input
taking more than :data:`SECONDS` is a failure (a hang), enforced with an alarm.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzlebatch.errors import PuzzleInputError

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "puzzlebatch" / "data"
SECONDS = 60  # generous: a parser that takes this long on a small input is hanging
FUZZ = settings(max_examples=int(os.environ.get("PUZZLEBATCH_FUZZ_EXAMPLES", "40")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture], derandomize=True)


class Hang(Exception):
    pass


def _bounded(fn, *args):
    """``fn(*args)``; None when it refuses the input with a PuzzleInputError (which the command line prints as
    one line); any other exception, or taking longer than SECONDS, fails the test."""
    def alarm(signum, frame):
        raise Hang(f"no answer in {SECONDS} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(SECONDS)
    try:
        return fn(*args)
    except PuzzleInputError:
        return None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _mutate(text: str, rnd: random.Random, n: int) -> str:
    """``n`` random edits of ``text``: delete, duplicate, or insert a character or a number."""
    chars = list(text)
    for _ in range(n):
        op = rnd.randrange(4)
        pos = rnd.randrange(len(chars) + 1)
        if op == 0 and chars:
            del chars[min(pos, len(chars) - 1)]
        elif op == 1 and chars:
            chars.insert(pos, chars[min(pos, len(chars) - 1)])
        elif op == 2:
            chars.insert(pos, rnd.choice("0123456789-,.#x:; \n\t[]{}\"=\u00e9\x00"))
        else:
            chars[pos:pos] = list(str(rnd.choice([0, -1, 7, 10**6, 10**12, 2**63])))
    return "".join(chars)


texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=300)
mutations = st.tuples(st.integers(0, 2**32), st.integers(1, 12))


# -- chains, boxes, boards, pieces ------------------------------------------------------------------------------
@FUZZ
@given(text=st.one_of(texts, st.text(alphabet="FJfj0123456789, x", max_size=80)))
def test_chains_and_boxes(text):
    from puzzlebatch.puzzles.snake.model import parse_box, parse_chain

    _bounded(parse_chain, text)
    _bounded(parse_box, text)


@FUZZ
@given(mut=mutations)
def test_pieces(mut):
    from puzzlebatch.puzzles.polyomino.shapes import parse_pieces

    base = (DATA / "polyomino" / "pentominoes.txt").read_text() + "\nQ count=2: 0,0 1,0 1,1\n"
    _bounded(parse_pieces, _mutate(base, random.Random(mut[0]), mut[1]), "fuzz.txt")


@FUZZ
@given(spec=st.one_of(texts, st.text(alphabet="0123456789x", max_size=20)), mut=mutations)
def test_boards(spec, mut):
    from puzzlebatch.puzzles.polyomino.packing import parse_board, parse_board_text

    _bounded(parse_board, spec)
    _bounded(parse_board_text, _mutate("..........\n..##......\n....A.....\n\n..........\n", random.Random(mut[0]),
                                       mut[1]), "fuzz")


# -- connector cubes ----------------------------------------------------------------------------------------------
@FUZZ
@given(mut=mutations, spec=st.one_of(texts, st.text(alphabet="0123456789x", max_size=20)))
def test_cubes_and_figures(mut, spec):
    from puzzlebatch.puzzles.cubes.model import default_cubes_text, parse_cubes, parse_figure, parse_voxels

    rnd = random.Random(mut[0])
    _bounded(parse_cubes, _mutate(default_cubes_text(), rnd, mut[1]), "fuzz")
    _bounded(parse_voxels, _mutate("###\n#.#\n\n###\n", rnd, mut[1]), "fuzz")
    if not Path(spec).exists():
        _bounded(parse_figure, spec)


# -- exact cover (DLX) --------------------------------------------------------------------------------------------
@FUZZ
@given(mut=mutations)
def test_dlx(mut):
    from puzzlebatch.puzzles.polyomino.cover import encode, read_dlx

    text = "| queens-like\nA B C D | x y\nA x\nB y\nC D\nA B\nD x y\n"
    ec = _bounded(read_dlx, _mutate(text, random.Random(mut[0]), mut[1]), "fuzz.dlx")
    if ec is not None:
        _bounded(encode, ec, "mrv", False)


@FUZZ
@given(mut=mutations)
def test_dlx_colors(mut):
    from puzzlebatch.puzzles.polyomino.cover import encode, read_dlx, write_dlx

    text = "p q r | x y\np q x y:A\np r x:A y\np x:B\nq x:A\nr y:B\n"
    ec = _bounded(read_dlx, _mutate(text, random.Random(mut[0]), mut[1]), "fuzz.dlx")
    if ec is not None:
        _bounded(encode, ec, "mrv", False)
        assert read_dlx(write_dlx(ec)).options == ec.options


# -- sliding boards ----------------------------------------------------------------------------------------------
@FUZZ
@given(text=st.one_of(texts, st.text(alphabet="0123456789 ,x-", max_size=60)), mut=mutations)
def test_sliding_boards(text, mut, tmp_path):
    from puzzlebatch.puzzles.sliding.model import parse_board, parse_size, read_instances

    _bounded(parse_board, text)
    _bounded(parse_size, text)
    f = tmp_path / "instances.txt"
    f.write_text(_mutate("# boards\n1 2 3 4 5 6 7 8 0\n8 6 7 2 5 4 3 0 1 31\n", random.Random(mut[0]), mut[1]))
    _bounded(read_instances, f)


# -- hex Tetris problems and solutions ------------------------------------------------------------------------------
json_values = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=10),
                           lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner,
                                                                                       max_size=5), max_leaves=30)


@FUZZ
@given(n=st.integers(0, 24), key=st.sampled_from(["width", "height", "filled", "sourceLength", "sourceSeeds",
                                                 "units", "id"]), value=json_values, mut=mutations)
def test_hex_problems(n, key, value, mut):
    from puzzlebatch.puzzles.hextris.model import parse_problem

    doc = json.loads((DATA / "icfp2015" / "problems" / f"problem_{n}.json").read_text())
    _bounded(parse_problem, doc | {key: value}, "fuzz")
    text = _mutate(json.dumps(doc), random.Random(mut[0]), mut[1])
    try:
        mutated = json.loads(text)
    except ValueError:
        return
    _bounded(parse_problem, mutated, "fuzz")


@FUZZ
@given(doc=json_values)
def test_hex_solutions(doc):
    from puzzlebatch.runners.hextris.playouts import parse_solutions

    _bounded(parse_solutions, doc, "fuzz.json")
    _bounded(parse_solutions, [{"problemId": 1, "seed": 0, "solution": "lapb"} | (doc if isinstance(doc, dict)
                                                                                     else {})], "fuzz.json")


# -- job files ---------------------------------------------------------------------------------------------------
JOB = '''family = "snake"
verb = "count"
backend = "cpu"
out = "results/x.h5"
[options]
box = "2x2x2"
checkpoint-every = 30
budget = 1000
[instances]
generate = { count = 3, seed = 2, box = "2x2x2" }
'''


@FUZZ
@given(job_text=st.one_of(texts, mutations))
def test_toml_jobs(job_text, tmp_path):
    from puzzlebatch.cli import build_parser, main
    from puzzlebatch.cli import jobfile as J

    text = job_text if isinstance(job_text, str) else _mutate(JOB, random.Random(job_text[0]), job_text[1])
    f = tmp_path / "fuzz.toml"
    f.write_text(text)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    _bounded(J.load, f, J.Application(build_parser, main), True)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # a dry run writes nothing


# -- option values ----------------------------------------------------------------------------------------------
@FUZZ
@given(text=st.one_of(texts, st.from_regex(r"-?[0-9]{1,30}(\.[0-9]*)?(e-?[0-9]+)?", fullmatch=True),
                 st.sampled_from(["nan", "inf", "-inf", "1e999", "0x10", "local:0", "local:99999", "tcp://h:x"])))
def test_option_values(text):
    import argparse

    from puzzlebatch import limits
    from puzzlebatch.runners.engine.distributed import parse_scheduler

    for convert in (limits.positive_int, limits.seed, limits.non_negative_seconds, limits.probability,
                    limits.population):
        try:
            convert(text)
        except (argparse.ArgumentTypeError, limits.LimitError) as exc:
            assert "\n" not in str(exc)
    if not Path(text).exists():
        _bounded(parse_scheduler, text)


# -- results files with flipped bytes -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def results_file(tmp_path_factory) -> Path:
    from puzzlebatch.results.store import ResultsStore

    path = tmp_path_factory.mktemp("fuzz") / "base.h5"
    with ResultsStore(path) as store:
        run = store.create_run("snake", "count", backend="cpu", device="cpu", seed=3, params={"chain": "FJJF"},
                               instances={"chain": np.arange(8, dtype=np.int8)})
        for b in range(3):
            run.append_items(cells=np.full((5, 8), b, np.int16), weight=np.arange(5), note=["a", "b", "c", "d", "e"])
            run.append_series("embeddings", b, 5 * b)
        run.save_checkpoint({"states": np.arange(40).reshape(10, 4), "depths": np.zeros(10, np.int32)},
                            {"count": 15, "rows": 15})
        run.finish("interrupted", seconds=1.5)
        store.create_run("snake", "count", backend="cpu", device="cpu", seed=None, params={}).finish("done",
                                                                                                  result={"n": 1})
    return path


@settings(max_examples=1, deadline=None)
@given(flips=st.lists(st.tuples(st.integers(0, 2**31), st.integers(1, 16)), min_size=int(os.environ.get(
    "PUZZLEBATCH_FUZZ_EXAMPLES", "40")), max_size=int(os.environ.get("PUZZLEBATCH_FUZZ_EXAMPLES", "40"))))
def test_results_files_with_flipped_bytes(results_file, tmp_path_factory, flips):
    """Each damaged copy: `show` ends with status 0 or 2 and at most one stderr line per check, never a
    traceback, and the child process survives them all."""
    data = results_file.read_bytes()
    folder = tmp_path_factory.mktemp("flipped")
    files = []
    for k, (seed, n) in enumerate(flips):
        rnd = random.Random(seed)
        buf = bytearray(data)
        for _ in range(n):
            buf[rnd.randrange(len(buf))] ^= 1 << rnd.randrange(8)
        f = folder / f"f{k:03d}.h5"
        f.write_bytes(bytes(buf))
        files.append(str(f))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, str(Path(__file__).with_name("fuzz_results_proc.py")), *files],
                          capture_output=True, text=True, env=env, timeout=60 * len(files))
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert proc.returncode == 0 and len(lines) == len(files), (proc.returncode, proc.stderr[-3000:],
                                                               files[len(lines)] if len(lines) < len(files) else "")
    for doc in lines:
        err = doc["stderr"].strip().splitlines()
        assert doc["code"] in (0, 2), doc
        assert "Traceback" not in doc["stderr"] and len(err) <= 3, doc
        assert all(line.startswith("puzzlebatch: ") for line in err), doc
