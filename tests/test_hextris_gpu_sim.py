"""Hex Tetris CUDA kernels (in the simulator on CI) against the CPU drivers, bit for bit, on short games."""

import random

import numpy as np
import pytest

from puzzlebatch.config import launch
from puzzlebatch.puzzles.hextris.model import parse_problem
from puzzlebatch.runners.hextris.playouts import GREEDY_WEIGHTS, Playouts
from tests.hextris_helpers import problems, random_solution
from tests.backends import GPU

pytestmark = pytest.mark.gpu


def _tiny():
    """A 6x6 board with a few full cells and three small units: keeps the simulated BFS short."""
    units = [[(0, 0)], [(0, 0), (1, 0)], [(0, 0), (0, 1), (1, 1)]]
    return parse_problem({
        "id": 500, "width": 6, "height": 6, "sourceLength": 6, "sourceSeeds": [0, 1, 2],
        "filled": [{"x": x, "y": 5} for x in (0, 1, 3, 4)] + [{"x": 5, "y": 4}],
        "units": [{"members": [{"x": x, "y": y} for x, y in u], "pivot": {"x": 0, "y": 0}} for u in units]})


def _same(a, b):
    for name in ("prob", "states", "boards", "vis"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), f"{name} differs between the backends"


def test_command_strings_are_bit_identical(cpu, gpu):
    ps = [problems()[6], problems()[13], _tiny(), problems()[24]]  # 24: 100 columns, two words a row
    rng = random.Random(3)
    n = 2 * launch.threads_per_block + 3  # two blocks and a partial one
    prob = [rng.randrange(4) for _ in range(n)]
    seeds = [rng.choice(ps[k].source_seeds) for k in prob]
    sols = [random_solution(rng, rng.randint(5, 40), down_bias=0.7) for _ in range(n)]
    sols[0] = "ll#"  # an invalid character
    sols[1] = "bp"  # a repeated position
    prob[2], seeds[2], sols[2] = 3, 0, "b" * 30 + "l" * 45  # across bit 63 of problem 24's first word, then down
    out = []
    for backend in (cpu, gpu):
        sim = Playouts(ps, backend)
        games = sim.new_games(seeds, prob)
        sim.run_commands(games, sols)
        out.append(games)
    assert gpu.name == GPU
    _same(*out)
    assert {"error_invalid_char", "error_repeat_position", "in_progress"} <= set(out[0].end_names)


def test_policy_is_bit_identical(cpu, gpu):
    p = _tiny()
    weights = np.array([GREEDY_WEIGHTS, [0, 3, 1, -2, 0], [1, 0, 0, 0, 0]], dtype=np.int64)
    results = []
    for backend in (cpu, gpu):
        sim = Playouts([p], backend)
        games = sim.new_games([0, 1, 2])
        codes = sim.run_policy(games, weights, max_units=2)
        results.append((games, codes))
    _same(results[0][0], results[1][0])
    for a, b in zip(results[0][1], results[1][1]):
        assert np.array_equal(a, b)
    assert (results[0][0].units_locked == 2).all()


def test_placements_are_bit_identical(cpu, gpu):
    p = _tiny()
    targets = np.array([[[2, 4, 0], [0, 4, 0]], [[0, 0, 0], [1, 1, 0]]], dtype=np.int64)
    results = []
    for backend in (cpu, gpu):
        sim = Playouts([p], backend)
        games = sim.new_games([0, 1])
        codes = sim.run_placements(games, targets)
        results.append((games, codes))
    _same(results[0][0], results[1][0])
    for a, b in zip(results[0][1], results[1][1]):
        assert np.array_equal(a, b)
    assert results[0][0].units_locked.sum() >= 1


def test_lockable_positions_are_bit_identical(cpu, gpu):
    p = _tiny()
    results = []
    for backend in (cpu, gpu):
        sim = Playouts([p], backend)
        games = sim.new_games([0, 1, 2])
        sim.run_commands(games, ["l", "", "la"])
        results.append(sim.lockable(games, cap=8))
    for (pa, fa), (pb, fb) in zip(*results):
        assert len(pa) > 0 and np.array_equal(pa, pb) and np.array_equal(fa, fb)
