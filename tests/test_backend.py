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
