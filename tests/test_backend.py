import pytest

from puzzlebatch.jit import compile_rules
from puzzlebatch.puzzles.snake import rules
from puzzlebatch.runners.engine.backend import select_backend, simulator_enabled


def test_cpu_and_auto():
    assert select_backend("cpu").name == "cpu"
    assert select_backend("cpu").kind == "cpu"
    assert select_backend("auto").name == "cpu"  # no real GPU here (the simulator is not a GPU)


def test_cuda_under_the_simulator_says_so():
    assert simulator_enabled()
    backend = select_backend("cuda")
    assert backend.name == "cudasim" and backend.kind == "cuda" and "simulator" in backend.device


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown backend 'tpu'"):
        select_backend("tpu")


def test_compile_rules_builds_twins_that_call_each_other():
    import numpy as np

    from puzzlebatch.puzzles.snake import encode
    from puzzlebatch.puzzles.snake.model import SOURCE_CHAIN, Box, parse_chain

    cpu = compile_rules(rules, "cpu")
    assert compile_rules(rules, "cpu") is cpu  # cached
    tables = encode.tables(parse_chain(SOURCE_CHAIN), Box(3, 3, 3))
    plain, jitted = encode.root_state(Box(3, 3, 3)), encode.root_state(Box(3, 3, 3))
    for depth, choice in enumerate([0, 0, 0, 1]):  # start at cell 0, go +x, +x, then turn
        assert rules.apply(plain, depth, choice, tables) == cpu.apply(jitted, depth, choice, tables)
    assert np.array_equal(plain, jitted)
    assert rules.apply.__module__ == rules.__name__  # the plain module is left untouched


@pytest.fixture
def broken_cuda_compiler(monkeypatch):
    """A machine with a GPU whose numba-cuda cannot compile (as numba-cuda 0.30.4 under numpy 2.5)."""
    from puzzlebatch.runners.engine import backend

    monkeypatch.setattr(backend, "simulator_enabled", lambda: False)
    monkeypatch.setattr(backend, "gpu_info", lambda: {"name": "NVIDIA Test GPU"})
    problem = "AttributeError: module 'numpy' has no attribute 'row_stack' (numba-cuda 0.30.4, numpy 2.5.2: ...)"
    monkeypatch.setattr(backend, "cuda_compiler_problem", lambda: problem)
    from puzzlebatch.jit import cache

    monkeypatch.setattr(cache, "_warned", set())
    return problem


def test_a_gpu_whose_compiler_is_broken_is_an_error_for_cuda(broken_cuda_compiler):
    from puzzlebatch.errors import BackendUnavailableError

    with pytest.raises(BackendUnavailableError, match="NVIDIA Test GPU is present but numba-cuda cannot compile") as e:
        select_backend("cuda")
    assert "row_stack" in str(e.value) and "--backend cpu" in str(e.value)


def test_auto_runs_on_the_cpu_and_says_why_when_the_cuda_compiler_is_broken(broken_cuda_compiler, capsys):
    assert select_backend("auto").name == "cpu"
    err = capsys.readouterr().err
    assert "warning: NVIDIA Test GPU is present" in err and "--backend auto runs on the cpu" in err
    assert "row_stack" in err and err.count("\n") == 1
    assert select_backend("auto").name == "cpu" and capsys.readouterr().err == ""  # said once a process


def test_the_cli_gives_one_line_and_status_2_when_the_cuda_compiler_is_broken(broken_cuda_compiler, capsys):
    from puzzlebatch.cli.app import main

    assert main(["polyomino", "count", "--board", "4x4", "--pieces", "tetrominoes", "--backend", "cuda"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("puzzlebatch: error: --backend cuda: NVIDIA Test GPU is present")


def test_the_compiler_probe_names_the_failure_in_one_line(monkeypatch):
    """The probe itself, outside the simulator (which has no CUDA target): passes here, and turns a registry that
    fails to load into one line with the versions."""
    import subprocess
    import sys

    code = """
import numba.cuda.descriptor as d
from puzzlebatch.runners.engine.backend import cuda_compiler_problem
assert cuda_compiler_problem() is None, cuda_compiler_problem()
cuda_compiler_problem.cache_clear()
def broken():
    raise AttributeError("module 'numpy' has no attribute 'row_stack'")
d.cuda_target.typing_context.refresh = broken
print(cuda_compiler_problem())
"""
    env = {k: v for k, v in __import__("os").environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.startswith("AttributeError: module 'numpy' has no attribute 'row_stack' (numba-cuda ")
    assert "numpy " in out and out.count("\n") == 1
