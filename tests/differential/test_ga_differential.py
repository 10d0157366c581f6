"""Differential tests of the genetic algorithm on connector cubes: tiny random runs checked against a plain-Python
fitness oracle and across every way the package runs them (see :mod:`tests.differential.ga` for what is
compared).

Hypothesis draws an integer seed from a derandomized source and the instance from ``random.Random(seed)``, so CI
sees the same instances every run; a failure prints each disagreement with the instance as JSON (replay it with
``check(json.loads(...))``).  The CUDA twin runs in numba's simulator on a few tiny runs only.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.differential import ga as D
from tests.reference import cubes_ga_oracle as reference

RANDOM_EXAMPLES = 200
SIMULATOR_EXAMPLES = 5

_settings = dict(deadline=None, derandomize=True, database=None, print_blob=False,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
seeds = st.integers(min_value=0, max_value=2**64 - 1)


@given(seeds)
@settings(max_examples=RANDOM_EXAMPLES, **_settings)
def test_random_runs_agree(seed: int):
    """The oracle and every CPU way (threads, a second run, a resumed run, the interpreted rules) agree."""
    inst = D.draw(random.Random(seed))
    assert D.check(inst) == []


@pytest.mark.gpu
@given(seeds)
@settings(max_examples=SIMULATOR_EXAMPLES, **_settings)
def test_simulator_agrees(seed: int):
    """The ``cuda`` backend (the simulator in CI) runs tiny GAs bit for bit like the CPU, resumed runs too."""
    inst = D.draw(random.Random(seed), D.CUDA_MAX_POPULATION, D.CUDA_MAX_GENERATIONS)
    names = [name for name, _ in D.ways(inst, cuda=True)]
    assert any(name.startswith("cuda") for name in names), names
    assert D.check(inst, cuda=True) == []


def test_oracle_rotations_follow_the_documented_order():
    """The oracle's rotation indices (built from two quarter turns and the documented order) are the package's."""
    from puzzlebatch.puzzles.cubes.model import ROTATIONS

    assert np.array_equal(np.array(reference.rotation_order()), ROTATIONS)


def test_oracle_rejects_what_the_package_rejects():
    """The oracle's validity agrees with :func:`model.check_assembly` on partial assemblies of a 2x2x2 box: random
    genomes (mostly clashing) and genomes the oracle filled greedily (valid by its own rules)."""
    from puzzlebatch.puzzles.cubes import model

    numbers = list(range(1, 13))
    figure = model.box(2, 2, 2)
    cells = reference.box_cells(2, 2, 2)
    assert cells == [tuple(c) for c in figure.cells.tolist()], "the oracle orders the cells as the package"
    fit = reference.Fitness(cells, reference.cube_faces(model.default_cubes_text(), numbers))
    cubes = model.load_cubes().subset(numbers)
    rng = random.Random(3)
    verdicts = set()
    for trial in range(300):
        genome = [-1] * len(cells)
        chosen = rng.sample(range(len(cells)), rng.randint(1, len(cells)))
        free = rng.sample(range(len(numbers)), len(chosen))
        for cell, cube in zip(chosen, free):
            codes = [cube * reference.N_ROT + r for r in range(reference.N_ROT)]
            rng.shuffle(codes)
            if trial % 2:  # greedy: the first rotation the oracle accepts, else the cell stays empty
                codes = [c for c in codes if fit.problem(genome[:cell] + [c] + genome[cell + 1:]) is None][:1]
            if codes:
                genome[cell] = codes[0]
        filled = [k for k, g in enumerate(genome) if g >= 0]
        part = model.Figure.from_cells(figure.cells[filled], "part")
        origin = figure.cells[filled].min(axis=0)
        index = figure.index()
        genes = [genome[index[tuple(c)]] for c in (part.cells + origin).tolist()]
        placements = [(numbers[g // reference.N_ROT], g % reference.N_ROT) for g in genes]
        ok = fit.problem(genome) is None
        assert ok == (model.check_assembly(part, cubes, placements) is None), genome
        verdicts.add(ok)
    assert verdicts == {True, False}


def test_the_draws_cover_every_kind():
    """The generator reaches every figure kind and every setting (a check of the harness itself)."""
    rng = random.Random(0)
    seen = set()
    for _ in range(300):
        inst = D.draw(rng)
        seen.add("box" if isinstance(inst["figure"], str) else "cells")
        seen.update({inst["selection"], inst["replacement"], f"parents={inst['n_parents']}",
                     f"target={inst['target']}", f"grow={inst['ops'][3]}"})
        if inst["generations"] == 0:
            seen.add("no generation")
        if 0 < inst["stop"] < inst["generations"]:
            seen.add("resumed midway")
        if inst["ops"][2] > 0:
            seen.add("ruin")
        if inst["ops"][0] > 0:
            seen.add("transplant")
        if len(inst["cubes"]) == len(D._figure_cells(inst["figure"])):
            seen.add("as many cubes as cells")
        if inst["repair"][0] > 0:
            seen.add("repair, most constrained cell" if inst["repair"][2] else "repair, scan order")
        if inst["islands"][0] > 1:
            seen.add("islands")
    assert seen >= {"box", "cells", "roulette", "tournament", "carrier", "plus", "parents=1", "parents=3",
                    "target=True", "target=False", "grow=True", "grow=False", "no generation", "resumed midway",
                    "ruin", "transplant", "as many cubes as cells", "repair, most constrained cell",
                    "repair, scan order", "islands"}, seen
