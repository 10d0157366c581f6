"""The example user family of ``examples/nqueens`` (``pb_nqueens``): counts against OEIS A000170 and an oracle,
solutions against the oracle's, the CUDA kernel (simulator) against the CPU twin bit for bit, and the rules and
kernel compiled to PTX."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.runners.engine.backend import select_backend
from puzzlebatch.runners.engine.search import BatchDFS, Frontier, SearchSettings, SearchTotals, default_settings
from tests.reference import nqueens_oracle
from tests.backends import GPU

# The rules' popcount wraps in its multiply (the form LLVM compiles to one instruction); in the CUDA simulator numpy
# warns about it, and the result is right.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in scalar multiply:RuntimeWarning")

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "nqueens"

# OEIS A000170: Q(1), Q(2), ...
A000170 = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596]


@pytest.fixture
def nq(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    import pb_nqueens

    return pb_nqueens


def test_oracle_matches_oeis():
    assert [nqueens_oracle.count(n) for n in range(1, 10)] == A000170[:9]
    assert all(nqueens_oracle.valid(s) for s in nqueens_oracle.solutions(6))
    assert len(nqueens_oracle.solutions(8)) == 92


def test_counts_match_oeis_up_to_14(nq):
    cpu = select_backend("cpu")
    got = [BatchDFS(nq.problem(n), cpu, default_settings(cpu)).count()[0].count for n in range(1, 15)]
    assert got == A000170


@pytest.mark.parametrize("symmetry", [True, False])
@pytest.mark.parametrize("leaf", ["n-3", "n-2", "n-1", "none"])
def test_every_variant_counts_the_same(nq, symmetry, leaf):
    """Symmetry on and off, the leaf count at n-3, n-2, n-1 or never, and small budgets, batches and frontiers
    that cut the tree into many items: the same counts."""
    cpu = select_backend("cpu")
    tiny = SearchSettings(budget=7, batch_size=5, frontier_target=3)
    for n in range(1, 11):
        for settings in (default_settings(cpu), tiny) if n <= 8 else (default_settings(cpu),):
            totals, rest = BatchDFS(nq.problem(n, symmetry, leaf), cpu, settings).count()
            assert len(rest) == 0
            assert totals.count == A000170[n - 1], (n, settings)


@pytest.mark.parametrize("n", [1, 4, 5, 6, 8])
def test_enumerated_solutions_are_the_oracles(nq, n):
    """Every solution is one leaf of the tree (the mirror move): enumerating gives each solution of the board once."""
    cpu = select_backend("cpu")
    found = []

    def sink(states, weights):
        assert (weights == 1).all()
        found.extend(tuple(nq.solution(s, n)) for s in states)

    BatchDFS(nq.problem(n), cpu, SearchSettings(budget=11, batch_size=6, frontier_target=4)).count(sink=sink)
    assert sorted(found) == nqueens_oracle.solutions(n)
    assert all(nq.check(s, n) for s in found)


@pytest.mark.parametrize("n", [1, 5, 8, 12])
def test_first_solution_checks(nq, n):
    totals, _ = BatchDFS(nq.problem(n), select_backend("cpu")).first()
    assert len(totals.solutions) == 1
    cols = nq.solution(totals.solutions[0], n)
    assert nq.check(cols, n) and nqueens_oracle.valid(cols) and len(cols) == n


@pytest.mark.parametrize("n", [2, 3])
def test_no_solution(nq, n):
    totals, rest = BatchDFS(nq.problem(n), select_backend("cpu")).first()
    assert totals.count == 0 and not totals.solutions and len(rest) == 0


def test_check_is_independent(nq):
    assert nq.check([1, 3, 0, 2], 4)
    assert not nq.check([0, 1, 2, 3], 4)  # diagonal
    assert not nq.check([1, 1, 0, 2], 4)  # column
    assert not nq.check([1, 3, 0], 4)  # too few
    assert not nq.check([1, 3, 0, 4], 4)  # off the board
    assert not nq.check("abcd", 4)


@pytest.mark.parametrize("bad", [0, -3, 21, 2.5, "8", True, None])
def test_bad_sizes_are_one_line_errors(nq, bad):
    with pytest.raises(PuzzleInputError) as err:
        nq.problem(bad)
    assert "\n" not in str(err.value) and "board size" in str(err.value)


def test_family_descriptor(nq):
    from puzzlebatch.registry import Family, SearchSpec

    fam = nq.FAMILY
    assert isinstance(fam, Family) and fam.name == "nqueens" and isinstance(fam.search, SearchSpec)
    assert [p.name for p in fam.search.params] == ["n"]
    problem = fam.search.problem(n=6)
    assert problem.goal == 7 and problem.root.dtype == np.int64 and problem.tables.dtype == np.int64
    totals, _ = BatchDFS(problem, select_backend("cpu")).first()
    assert fam.search.check(fam.search.solution(totals.solutions[0], n=6), n=6)
    ep = (EXAMPLE / "pyproject.toml").read_text()
    assert '[project.entry-points."puzzlebatch.families"]' in ep and 'nqueens = "pb_nqueens:FAMILY"' in ep


# -- CUDA: the simulator against the CPU twin, bit for bit ----------------------------------------------------------
def _frontier(nq, n, cpu, size):
    dfs = BatchDFS(nq.problem(n), cpu)
    frontier = dfs.expand(Frontier.root(dfs.problem), SearchTotals(), size)
    return frontier.take(slice(0, size))


@pytest.mark.gpu
@pytest.mark.parametrize("n, budget", [(6, 5), (7, 9), (7, 10**6)])
def test_one_launch_is_bit_identical(nq, n, budget, cpu, gpu):
    frontier = _frontier(nq, n, cpu, 20)
    assert len(frontier) >= 12
    assert gpu.name == GPU
    for max_solutions, stop_after in ((0, 0), (2, 0), (1, 1)):
        results = [BatchDFS(nq.problem(n), b, SearchSettings(budget=budget)).run_batch(
            frontier, max_solutions=max_solutions, stop_after=stop_after) for b in (cpu, gpu)]
        for a, b, name in zip(*results, ("out", "states", "stacks", "solutions")):
            assert a.dtype == b.dtype and a.shape == b.shape
            assert np.array_equal(a, b), f"{name} differs between cpu and {gpu.name}"


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 4, 6, 7])
def test_whole_counts_agree_with_cpu(nq, n, cpu, gpu):
    settings = SearchSettings(budget=12, batch_size=16, frontier_target=8)
    runs = {b.name: BatchDFS(nq.problem(n), b, settings).count()[0] for b in (cpu, gpu)}
    assert runs[GPU].count == runs["cpu"].count == A000170[n - 1]
    assert runs[GPU].nodes == runs["cpu"].nodes
    if n >= 6:
        assert runs[GPU].batches > 0, "the kernel must actually run, not only the host expansion"
    first = {b.name: BatchDFS(nq.problem(n), b, settings).first()[0] for b in (cpu, gpu)}
    if n == 1 or n >= 4:
        a, b = first["cpu"].solutions[0], first[GPU].solutions[0]
        assert np.array_equal(a, b) and nq.check(nq.solution(a, n), n)


PTX = textwrap.dedent("""
    import inspect, json, sys
    sys.path.insert(0, sys.argv[2])
    from numba import cuda, types
    import numba.cuda.dispatcher as dispatcher
    from puzzlebatch.gpu_kernels.search import drivers
    from pb_nqueens import rules

    cc = tuple(int(v) for v in sys.argv[1].split("."))
    dispatcher.get_current_device = lambda: type("Target", (), {"compute_capability": cc})()
    i64, i32 = types.int64, types.int32
    sig = (i64[:, ::1], i32[:, ::1], i32[::1], i32[::1], i64, i64, i64, i64, i64[:, :, ::1], i64[:, ::1], i64[::1])
    ptx, _ = cuda.compile_ptx(drivers(rules).kernel.py_func, sig, cc=cc)
    print(json.dumps({"entry": ".entry" in ptx, "target": ".target sm_%d%d" % cc in ptx}))
""")


@pytest.mark.gpu
def test_rules_and_kernel_compile_to_ptx():
    """The simulator accepts Python the real CUDA target rejects: the kernel with these rules, compiled to PTX."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    proc = subprocess.run([sys.executable, "-c", PTX, "8.0", str(EXAMPLE)], capture_output=True, text=True, env=env,
                          timeout=600)
    if proc.returncode != 0:
        missing_nvvm = "NVVM" in proc.stderr or "libnvvm" in proc.stderr.lower()
        if missing_nvvm and os.environ.get("PUZZLEBATCH_REQUIRE_PTX", "0") in ("", "0"):
            pytest.skip("CUDA compiler (NVVM) not installed: pip install -e .[cu12]")
        pytest.fail(f"PTX compilation failed:\n{proc.stderr[-4000:]}")
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {"entry": True, "target": True}
