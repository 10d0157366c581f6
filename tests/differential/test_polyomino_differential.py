"""Differential tests of the polyomino family: random small packings answered by the slow oracles and by every
way the package answers them (see :mod:`tests.differential.polyomino` for what is compared).

Hypothesis draws seeds, derandomized, so CI sees the same instances every run; each seed drives
:func:`~tests.differential.polyomino.draw` through its own ``random.Random``.  (Hypothesis's own random source,
``st.randoms()``, skews the choices towards the first ones: when this was written, its 200 draws gave 146
distinct instances and 77 draws without packing; 200 seeds gave 200 distinct instances and 49 without packing.)
A failure prints each disagreement with the instance as
JSON; replay it with ``check(json.loads(...))``.

The CUDA twin runs in numba's simulator on a few tiny instances only: every simulated thread is a Python thread.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.differential import polyomino as D

RANDOM_EXAMPLES = 200
SIMULATOR_EXAMPLES = 10

seeds = st.integers(0, 2**32 - 1)
_settings = dict(deadline=None, derandomize=True, database=None, print_blob=False,
                 suppress_health_check=[HealthCheck.too_slow])


@given(seeds)
@settings(max_examples=RANDOM_EXAMPLES, **_settings)
def test_random_instances_agree(seed: int):
    """The oracles and every CPU way agree on counts, classes, the enumerated packings and first solutions."""
    inst = D.draw(random.Random(seed))
    assert D.check(inst) == []


@pytest.mark.parametrize("inst", D.boundary_instances(), ids=lambda inst: inst["board"])
def test_counts_beyond_two_to_the_fourteen(inst):
    """More packings than a symmetric subproblem's old 2^14-solution buffer held: none lost, none twice."""
    views = D.oracle_views(inst)
    assert views[0][1]["solutions"] > D.BOUNDARY, "the instance must cross the boundary it is here for"
    assert D.check(inst, views=views) == []


@pytest.mark.gpu
@given(seeds)
@settings(max_examples=SIMULATOR_EXAMPLES, **_settings)
def test_simulator_agrees(seed: int):
    """The ``cuda`` backend (the simulator in CI) counts, enumerates and solves tiny instances like the oracles."""
    inst = D.draw(random.Random(seed), max_cells=D.CUDA_MAX_CELLS)
    assert D.check(inst, cuda=True) == []


def test_the_draws_cover_every_kind():
    """The generator reaches every board kind, piece kind and piece option (a check of the harness itself)."""
    rng = random.Random(0)
    seen = set()
    for _ in range(100):
        inst = D.draw(rng)
        board = inst["board"]
        seen.add("drawing" if "\n" in board else "box" if board.count("x") == 2 else "rect")
        seen.add("custom" if "custom" in inst else "named")
        copies = inst.get("copies", "file")
        seen.add(f"copies={'k' if isinstance(copies, int) and copies > 1 else copies}")
        if inst.get("subset"):
            seen.add("subset")
        if "mirror" in inst:
            seen.add(f"mirror={inst['mirror']}")
        seen.add(f"mode={inst['mode']}")
    assert seen >= {"drawing", "box", "rect", "custom", "named", "copies=unlimited", "copies=k", "copies=1",
                    "copies=None", "copies=file", "subset", "mirror=True", "mirror=False", "mode=first",
                    "mode=mrv", "mode=enclosed"}, seen
