"""Connector cubes: the CUDA kernel (simulator on CI) against the CPU twin, bit for bit, and exact counts."""

import numpy as np
import pytest

from puzzlebatch.config import launch
from puzzlebatch.puzzles.cubes import model
from puzzlebatch.runners.cubes import solver as rc
from puzzlebatch.runners.engine.search import BatchDFS, Frontier, SearchSettings, SearchTotals
from tests.reference import cubes_oracle
from tests.backends import GPU

pytestmark = pytest.mark.gpu

CUBES = model.load_cubes()


def _frontier(figure, cubes, cpu, size, order="lookup"):
    dfs = BatchDFS(rc.problem(figure, cubes, order), cpu, SearchSettings(frontier_target=size))
    frontier = dfs.expand(Frontier.root(dfs.problem), SearchTotals(), size)
    assert len(frontier) >= size
    return frontier.take(slice(0, size))


@pytest.mark.parametrize("figure, numbers, budget, order", [
    (model.box(2, 2, 1), (1, 2, 3, 4, 5, 6), 6, "lookup"),  # small budget: items stop and hand back their stack
    (model.box(2, 2, 1), (1, 2, 3, 4, 5, 6), 6, "exact"),
    (model.Figure.from_cells([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)], "corner3d"), (7, 8, 9, 10, 11), 10**6,
     "lookup"),
])
def test_one_launch_is_bit_identical(figure, numbers, budget, order, cpu, gpu):
    cubes = CUBES.subset(numbers)
    frontier = _frontier(figure, cubes, cpu, 19, order)
    assert len(frontier) > 2 * launch.threads_per_block and len(frontier) % launch.threads_per_block
    results = [BatchDFS(rc.problem(figure, cubes, order), b, SearchSettings(budget=budget)).run_batch(frontier, 2, 0)
               for b in (cpu, gpu)]
    assert gpu.name == GPU
    for a, b, name in zip(results[0], results[1], ("out", "states", "stacks", "solutions")):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b), f"{name} differs between cpu and {gpu.name}"
    assert results[0][0][:, 2].sum() > 0  # some assemblies were counted


def test_whole_count_on_the_simulator_equals_cpu_and_oracle(cpu, gpu):
    figure, numbers = model.box(2, 1, 1), (20, 7, 24, 2)
    cubes = CUBES.subset(numbers)
    oracle = cubes_oracle.assemblies([tuple(map(int, c)) for c in figure.cells],
                                     {n: cubes_oracle.parse(model.default_cubes_text())[n] for n in numbers})
    small = SearchSettings(budget=40, batch_size=16, frontier_target=8)
    counts = [rc.count(figure, cubes, b, small)[0] for b in (cpu, gpu)]
    assert counts[1].backend == GPU
    assert counts[0].assemblies == counts[1].assemblies == len(oracle)
    assert counts[0].distinct == counts[1].distinct


def test_solve_on_the_simulator_equals_cpu(cpu, gpu):
    figure, cubes = model.box(2, 1, 1), CUBES.subset((20, 7, 24, 2, 5))
    s = SearchSettings(budget=30, frontier_target=1, first_batch_size=5)  # the DFS itself finds it
    a, b = (rc.solve(figure, cubes, x, s) for x in (cpu, gpu))
    assert a.solved and a.assembly == b.assembly
