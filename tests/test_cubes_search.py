"""Connector cubes on the batch DFS: exact counts against the plain-Python oracle, solve, symmetry, budgets."""

import numpy as np
import pytest

from puzzlebatch.puzzles.cubes import model
from puzzlebatch.runners import cubes as rc
from puzzlebatch.runners.search import SearchSettings
from tests.reference import cubes_oracle

CUBES = model.load_cubes()
ORACLE_CUBES = cubes_oracle.parse(model.default_cubes_text())

FIGURES = {
    "1x1x1": model.box(1, 1, 1),
    "2x1x1": model.box(2, 1, 1),
    "L": model.Figure.from_cells([(0, 0, 0), (1, 0, 0), (0, 1, 0)], "L"),
    "2x2x1": model.box(2, 2, 1),
    "corner3d": model.Figure.from_cells([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)], "corner3d"),
    "skew": model.Figure.from_cells([(0, 0, 0), (1, 0, 0), (1, 1, 0), (1, 1, 1)], "skew"),
    "S": model.Figure.from_cells([(0, 0, 0), (1, 0, 0), (1, 1, 0), (1, 1, 1), (2, 1, 1)], "S"),
}


def oracle_counts(figure, numbers):
    cells = [tuple(map(int, c)) for c in figure.cells]
    sub = {n: ORACLE_CUBES[n] for n in numbers}
    found = cubes_oracle.assemblies(cells, sub)
    distinct, n_sym = cubes_oracle.count_distinct(cells, found)
    return len(found), distinct, n_sym


@pytest.mark.parametrize("name, numbers", [
    ("1x1x1", (1, 2, 3)),
    ("2x1x1", tuple(range(1, 11))),
    ("L", (20, 7, 24, 2, 5)),
    ("2x2x1", (3, 9, 11, 17, 19)),
    ("corner3d", (1, 4, 6, 8, 10)),
    ("skew", (12, 13, 14, 15, 16)),
    pytest.param("S", (12, 13, 14, 15, 16, 18), marks=pytest.mark.slow),  # the oracle takes minutes
])
def test_count_equals_the_oracle(name, numbers, cpu):
    figure, cubes = FIGURES[name], CUBES.subset(numbers)
    assemblies, distinct, n_sym = oracle_counts(figure, numbers)
    assert assemblies > 0
    for symmetry in (False, True):
        r, rest, _ = rc.count(figure, cubes, cpu, symmetry=symmetry)
        assert r.complete and len(rest) == 0
        assert (r.assemblies, r.distinct, r.symmetries) == (assemblies, distinct, n_sym), (name, symmetry)


def test_count_of_the_27_cube_2x1x1_equals_the_oracle(cpu):
    figure = FIGURES["2x1x1"]
    found = cubes_oracle.assemblies([tuple(map(int, c)) for c in figure.cells], ORACLE_CUBES)
    r, _, _ = rc.count(figure, CUBES, cpu)
    assert r.assemblies == len(found)
    assert r.distinct * r.symmetries == r.assemblies


def test_budget_and_batch_size_do_not_change_counts(cpu):
    figure, cubes = FIGURES["2x2x1"], CUBES.subset(range(1, 9))
    ref, _, _ = rc.count(figure, cubes, cpu)
    tiny, _, totals = rc.count(figure, cubes, cpu, SearchSettings(budget=7, batch_size=13, frontier_target=5))
    assert totals.batches > 10  # items really were cut and re-split
    assert (tiny.assemblies, tiny.distinct) == (ref.assemblies, ref.distinct)


@pytest.mark.parametrize("dims", [(3, 3, 3), (2, 2, 2), (2, 2, 1), (3, 2, 1), (3, 3, 1)])
def test_solve_builds_figures_and_the_assembly_is_valid(dims, cpu):
    figure = model.box(*dims)
    r = rc.solve(figure, CUBES, cpu)
    assert r.solved and len(r.assembly) == figure.n_cells
    # Independent check with the oracle's own rotations: each cube's faces as printed are a rotation of its line,
    # no cube twice, and every contact sums to 0.
    at = {tuple(a["cell"]): a for a in r.assembly}
    assert len({a["cube"] for a in r.assembly}) == figure.n_cells
    rots = cubes_oracle.rotations()
    for (x, y, z), a in at.items():
        own = ORACLE_CUBES[a["cube"]]
        assert any([cubes_oracle.turned(own, m)[d] for d in cubes_oracle.DIRS] == a["faces"] for m in rots)
        for k, d in enumerate(cubes_oracle.DIRS):
            other = at.get((x + d[0], y + d[1], z + d[2]))
            if other is not None:
                back = cubes_oracle.DIRS.index((-d[0], -d[1], -d[2]))
                assert a["faces"][k] + other["faces"][back] == 0


def test_solve_proves_an_impossible_figure(cpu):
    # Only male connectors: no two cubes can touch.  One cube alone is fine.
    cubes = model.parse_cubes("1;1,2,3,4,1,2\n2;2,2,2,2,2,2\n3;4,3,2,1,1,1\n")
    assert rc.solve(model.box(1, 1, 1), cubes, cpu).solved
    r = rc.solve(model.box(2, 1, 1), cubes, cpu)
    assert not r.solved and r.assembly is None
    c, _, _ = rc.count(model.box(2, 1, 1), cubes, cpu)
    assert c.assemblies == 0


def test_solve_is_independent_of_the_settings(cpu):
    figure = model.box(2, 2, 2)
    a = rc.solve(figure, CUBES, cpu)
    b = rc.solve(figure, CUBES, cpu, SearchSettings(budget=50, frontier_target=40, first_batch_size=7))
    assert a.assembly == b.assembly
