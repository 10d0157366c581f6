"""The family registry: the package's families found by scanning, a user's family by an entry point or by
``register_family``, and what a registered search family gets for free (CLI verbs, both backends, the store,
resume, the Python API) without a file of the package changed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import puzzlebatch as pb
from puzzlebatch import registry
from puzzlebatch.errors import PuzzleInputError
from tests.backends import GPU

ROOT = Path(__file__).resolve().parent.parent

# A user's puzzle, outside the package: binary strings of length n with no two 1s side by side (there are
# Fibonacci(n + 2) of them).  The rules follow the contract of puzzlebatch/puzzles/search.py.
PLUGIN = '''
"""No two adjacent ones: a plug-in family for the tests."""
import numpy as np

from puzzlebatch.registry import Family, Param, SearchSpec
from puzzlebatch.runners.engine.search import SearchProblem


def problem(n):
    if not 1 <= n <= 60:
        raise ValueError(f"n = {n}: must be from 1 to 60")
    from fib_family import rules

    return SearchProblem(rules=rules, tables=np.array([n], np.int64), root=np.zeros(n + 1, np.int64), goal=n)


def solution(state, n):
    return "".join(str(int(v)) for v in state[:n])


def check(text, n):
    return len(text) == n and "11" not in text


FAMILY = Family(name="fib", help="binary strings without two adjacent ones",
                search=SearchSpec(params=(Param("n", int, "the length"),), problem=problem, solution=solution,
                                  check=check))
'''

RULES = '''
"""The rules: a choice is the next bit; a 1 after a 1 fails."""


def n_choices(state, depth, tables):
    return 2


def apply(state, depth, choice, tables):
    if choice == 1 and depth > 0 and state[depth - 1] == 1:
        return False
    state[depth] = choice
    return True


def undo(state, depth, choice, tables):
    state[depth] = 0
'''


def fib(n: int) -> int:
    """Binary strings of length n without "11", counted the slow, obvious way (the oracle)."""
    return sum(1 for k in range(2 ** n) if "11" not in format(k, f"0{n}b"))


@pytest.fixture()
def plugin(tmp_path, monkeypatch):
    """The plug-in as an installed distribution: its package and a .dist-info with the entry point."""
    pkg = tmp_path / "fib_family"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(PLUGIN)
    (pkg / "rules.py").write_text(RULES)
    info = tmp_path / "fib_family-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fib-family\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[puzzlebatch.families]\nfib = fib_family:FAMILY\n")
    return tmp_path


def _cli(folder: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), str(ROOT)]))
    return subprocess.run([sys.executable, "-m", "puzzlebatch", *argv], capture_output=True, text=True, env=env,
                          cwd=cwd)


def test_the_package_families_are_found_by_scanning():
    names = registry.names()
    assert {"snake", "polyomino", "cubes", "sliding", "hextris"} <= set(names)
    for fam in registry.families():
        if fam.origin != "built in":
            continue
        assert callable(fam.hook("commands")) and callable(fam.hook("warmup"))
        assert fam.hook("api").__name__ == f"puzzlebatch.api.{fam.name}"
        assert pb.family(fam.name) is fam.hook("api") is getattr(pb, fam.name)


@pytest.mark.parametrize("name, message", [("Snake", "lower-case"), ("", "lower-case"), ("show", "application"),
                                           ("9lives", "starting with a letter")])
def test_bad_family_names_are_refused(name, message):
    with pytest.raises(PuzzleInputError, match=message):
        registry.Family(name=name, help="x", commands="m:f")


def test_register_family_adds_and_refuses_a_taken_name():
    fam = registry.Family(name="dummy", help="a dummy", commands="puzzlebatch.cli.search:register")
    pb.register_family(fam)
    try:
        assert "dummy" in registry.names()
        with pytest.raises(PuzzleInputError, match="already registered"):
            pb.register_family(fam)
        pb.register_family(fam, replace=True)
        with pytest.raises(PuzzleInputError, match="already registered"):
            pb.register_family(registry.Family(name="snake", help="mine", commands="m:f"), replace=True)
    finally:
        pb.unregister_family("dummy")
    assert "dummy" not in registry.names()
    with pytest.raises(PuzzleInputError, match="unknown family 'dummy'"):
        pb.family("dummy")


def test_a_family_needs_commands_or_a_search():
    with pytest.raises(PuzzleInputError, match="commands or its search"):
        registry.Family(name="empty", help="nothing")


def test_a_plugin_family_gets_the_command_line_the_store_and_resume(plugin, tmp_path):
    """Installed with an entry point: ``puzzlebatch fib count|solve`` work, counts match the oracle, runs are
    stored in results/fib.h5 and resume; no file of the package was changed for it."""
    work = tmp_path / "work"
    work.mkdir()
    n = 14
    p = _cli(plugin, "fib", "count", str(n), "--backend", "cpu", "--json", cwd=work)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["solutions"] == fib(n) and doc["family"] == "fib" and doc["out"] == "results/fib.h5"
    # stopped after one launch, then resumed: the same total
    out = str(tmp_path / "fib.h5")
    p = _cli(plugin, "fib", "count", str(n), "--backend", "cpu", "--out", out, "--max-batches", "1", "--budget",
             "16", "--frontier", "4", "--batch-size", "2", "--json", cwd=work)
    first = json.loads(p.stdout)
    assert p.returncode == 0 and not first["complete"], p.stderr
    p = _cli(plugin, "fib", "count", str(n), "--backend", "cpu", "--out", out, "--resume", "--json", cwd=work)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["solutions"] == fib(n)
    p = _cli(plugin, "fib", "solve", "5", "--backend", "cpu", "--json", cwd=work)
    assert p.returncode == 0 and json.loads(p.stdout)["solution"] == "00000", p.stderr
    # bad input: one line, exit 2
    p = _cli(plugin, "fib", "count", "99", "--backend", "cpu", cwd=work)
    assert p.returncode == 2 and p.stderr.strip() == "puzzlebatch: error: fib: n = 99: must be from 1 to 60"
    # the family is listed by --help and shown by show
    assert "fib" in _cli(plugin, "--help", cwd=work).stdout
    p = _cli(plugin, "show", out, cwd=work)
    assert p.returncode == 0 and "fib" in p.stdout, p.stderr


def test_a_registered_family_has_a_python_api_on_both_backends(plugin, monkeypatch):
    monkeypatch.syspath_prepend(str(plugin))
    import importlib

    mod = importlib.import_module("fib_family")
    pb.register_family(mod.FAMILY, replace=True)
    try:
        api = pb.family("fib")
        for n in (1, 2, 7, 12):
            r = api.count(n=n, backend="cpu")
            assert r.solutions == fib(n) and r.out is None
            assert json.loads(json.dumps(r.to_dict()))["solutions"] == fib(n)
        sim = api.count(n=9, backend="cuda", settings=None)  # the simulator (tests/conftest.py sets it)
        cpu = api.count(n=9, backend="cpu")
        assert (sim.solutions, sim.nodes) == (cpu.solutions, cpu.nodes) and sim.backend == GPU
        assert api.solve(n=4, backend="cpu").solution == "0000"
        with pytest.raises(PuzzleInputError, match="unknown parameter"):
            api.count(m=3)
    finally:
        pb.unregister_family("fib")


def test_a_broken_plugin_is_named_in_one_line(tmp_path):
    info = tmp_path / "broken-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[puzzlebatch.families]\nbroken = no_such_module:FAMILY\n")
    p = _cli(tmp_path, "--help", cwd=tmp_path)
    assert p.returncode == 2 and "entry point broken = no_such_module:FAMILY" in p.stderr
    assert "Traceback" not in p.stderr


def test_the_docs_name_a_real_example():
    text = textwrap.dedent(registry.__doc__ or "")
    assert "puzzlebatch.families" in text
