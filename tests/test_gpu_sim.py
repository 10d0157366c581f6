"""CUDA kernels (in the simulator on CI) against the CPU twin, bit for bit."""

import numpy as np
import pytest

from puzzlebatch.config import launch
from puzzlebatch.puzzles.snake.generate import random_chain
from puzzlebatch.puzzles.snake.model import SOURCE_CHAIN, Box, parse_chain
from puzzlebatch.runners.snake import solver as snake
from puzzlebatch.runners.engine.search import BatchDFS, SearchSettings, SearchTotals
from tests.reference import snake_oracle
from tests.backends import GPU

pytestmark = pytest.mark.gpu


def _frontier(chain, box, cpu, size):
    """``size`` work items (a few blocks plus a partial one), taken from a breadth-first expansion."""
    dfs = BatchDFS(snake.problem(chain, box), cpu, SearchSettings(frontier_target=size))
    frontier = dfs.expand(dfs_root(dfs), SearchTotals(), size)
    assert len(frontier) >= size
    return frontier.take(slice(0, size))


def dfs_root(dfs):
    from puzzlebatch.runners.engine.search import Frontier

    return Frontier.root(dfs.problem)


@pytest.mark.parametrize("letters, dims, budget", [
    (SOURCE_CHAIN, (3, 3, 3), 30),  # small budget: most items stop and hand back their stack
    (random_chain(Box(2, 2, 4), 2)[0].letters, (2, 2, 4), 10**6),  # large budget: items finish
    (random_chain(Box(2, 3, 4), 3)[0].letters, (2, 3, 4), 15),
])
def test_one_launch_is_bit_identical(letters, dims, budget, cpu, gpu):
    chain, box = parse_chain(letters), Box(*dims)
    frontier = _frontier(chain, box, cpu, 21)
    n = len(frontier)
    assert n > 2 * launch.threads_per_block and n % launch.threads_per_block != 0, "several blocks + a partial"
    results = []
    for backend in (cpu, gpu):
        dfs = BatchDFS(snake.problem(chain, box), backend, SearchSettings(budget=budget))
        results.append(dfs.run_batch(frontier, max_solutions=2, stop_after=0))
    assert gpu.name == GPU
    for a, b, name in zip(results[0], results[1], ("out", "states", "stacks", "solutions")):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b), f"{name} differs between cpu and {gpu.name}"


def test_first_solution_search_is_bit_identical(cpu, gpu):
    chain, box = random_chain(Box(2, 2, 4), 0)[0], Box(2, 2, 4)
    frontier = _frontier(chain, box, cpu, 21)
    outs = [BatchDFS(snake.problem(chain, box), b, SearchSettings(budget=40)).run_batch(frontier, 1, 1)
            for b in (cpu, gpu)]
    for a, b in zip(*outs):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("letters, dims", [
    (random_chain(Box(2, 2, 4), 1)[0].letters, (2, 2, 4)),
    (random_chain(Box(3, 3, 2), 6)[0].letters, (3, 3, 2)),
    (SOURCE_CHAIN, (3, 3, 3)),
])
def test_whole_counts_agree_with_cpu_and_oracle(letters, dims, cpu, gpu):
    chain, box = parse_chain(letters), Box(*dims)
    settings = SearchSettings(budget=60, batch_size=40, frontier_target=20)
    runs = {b.name: snake.count(chain, box, b, settings) for b in (cpu, gpu)}
    assert runs[GPU][2].batches > 0, "the kernel must actually run, not only the host expansion"
    got = {name: r[0] for name, r in runs.items()}
    expected = snake_oracle.count(letters, dims)
    for r in got.values():
        assert (r.embeddings, r.distinct) == (expected["embeddings"], expected["distinct"])
    assert got[GPU].nodes == got["cpu"].nodes
    first = {b.name: snake.solve(chain, box, b, settings) for b in (cpu, gpu)}
    assert first[GPU].backend == GPU and first[GPU].cells == first["cpu"].cells
    assert tuple(map(tuple, first["cpu"].cells)) in {tuple(p) for p in snake_oracle.embeddings(letters, dims)}
