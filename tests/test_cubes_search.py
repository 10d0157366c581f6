"""Connector cubes on the batch DFS: exact counts against the plain-Python oracle, solve, symmetry, budgets."""

import functools

import pytest

from puzzlebatch.puzzles.cubes import model
from puzzlebatch.runners.cubes import solver as rc
from puzzlebatch.runners.engine.search import SearchSettings
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


@functools.lru_cache(maxsize=None)
def oracle_counts(figure, numbers):
    cells = [tuple(map(int, c)) for c in figure.cells]
    sub = {n: ORACLE_CUBES[n] for n in numbers}
    found = cubes_oracle.assemblies(cells, sub)
    distinct, n_sym = cubes_oracle.count_distinct(cells, found)
    return len(found), distinct, n_sym


@pytest.mark.parametrize("name, numbers", [
    ("1x1x1", (1, 2, 3)),
    ("2x1x1", tuple(range(1, 11))),
    ("L", (20, 7, 24, 2)),
    ("2x2x1", (3, 9, 11, 17)),
    ("corner3d", (1, 4, 6, 8)),
    ("skew", (12, 13, 14, 15)),
    pytest.param("S", (12, 13, 14, 15, 16, 18), marks=pytest.mark.slow),  # the oracle takes minutes
])
def test_count_equals_the_oracle(name, numbers, cpu):
    figure, cubes = FIGURES[name], CUBES.subset(numbers)
    assemblies, distinct, n_sym = oracle_counts(figure, numbers)
    assert assemblies > 0
    for order in ("lookup", "exact", "fixed"):
        for symmetry in (False, True):
            r, rest, _ = rc.count(figure, cubes, cpu, symmetry=symmetry, order=order)
            assert r.complete and len(rest) == 0
            assert (r.assemblies, r.distinct, r.symmetries) == (assemblies, distinct, n_sym), (name, order, symmetry)


def test_count_of_the_27_cube_2x1x1_equals_the_oracle(cpu):
    figure = FIGURES["2x1x1"]
    found = cubes_oracle.assemblies([tuple(map(int, c)) for c in figure.cells], ORACLE_CUBES)
    r, _, _ = rc.count(figure, CUBES, cpu)
    assert r.assemblies == len(found)
    assert r.distinct * r.symmetries == r.assemblies


@pytest.mark.parametrize("order", ["lookup", "exact"])
def test_budget_and_batch_size_do_not_change_counts(order, cpu):
    figure, cubes = FIGURES["2x2x1"], CUBES.subset(range(1, 7))
    ref, _, _ = rc.count(figure, cubes, cpu, order=order)
    tiny, _, totals = rc.count(figure, cubes, cpu, SearchSettings(budget=40, batch_size=13, frontier_target=5),
                               order=order)
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


def test_orders_agree_on_a_3d_count(cpu):
    figure, cubes = model.box(2, 2, 2), CUBES.subset(range(1, 9))
    counts = {o: rc.count(figure, cubes, cpu, order=o)[0] for o in ("lookup", "exact", "fixed")}
    assert len({(c.assemblies, c.distinct) for c in counts.values()}) == 1
    assert counts["lookup"].assemblies > 0
    assert counts["exact"].nodes < counts["lookup"].nodes < counts["fixed"].nodes  # more look-ahead, fewer nodes


@pytest.mark.parametrize("order", ["lookup", "exact", "fixed"])
def test_solve_proves_an_impossible_figure(order, cpu):
    # Only male connectors: no two cubes can touch.  One cube alone is fine.
    cubes = model.parse_cubes("1;1,2,3,4,1,2\n2;2,2,2,2,2,2\n3;4,3,2,1,1,1\n")
    assert rc.solve(model.box(1, 1, 1), cubes, cpu).solved
    r = rc.solve(model.box(2, 1, 1), cubes, cpu, order=order)
    assert not r.solved and r.assembly is None
    c, _, _ = rc.count(model.box(2, 1, 1), cubes, cpu, order=order)
    assert c.assemblies == 0


def test_solve_is_independent_of_the_settings(cpu):
    figure = model.box(2, 2, 2)
    a = rc.solve(figure, CUBES, cpu)
    b = rc.solve(figure, CUBES, cpu, SearchSettings(budget=50, frontier_target=40, first_batch_size=7))
    assert a.assembly == b.assembly
