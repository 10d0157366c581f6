"""Differential tests of the sliding-puzzle family: random small boards (IDA* under every heuristic), whole state
spaces (BFS) and pattern databases, answered by the plain-Python oracles and by every way the package answers them
(see :mod:`tests.differential.sliding` for what is compared).

Hypothesis draws a seed from a derandomized source, so CI sees the same instances every run; a failure prints each
disagreement with the instance as JSON (replay it with ``check(json.loads(...))``).  The CUDA twins run in numba's
simulator on a few small searches only (every simulated thread is a Python thread).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.differential import sliding as D

RANDOM_EXAMPLES = 200
SIMULATOR_EXAMPLES = 8

_settings = dict(deadline=None, derandomize=True, database=None, print_blob=False,
                 suppress_health_check=[HealthCheck.too_slow])


@settings(max_examples=RANDOM_EXAMPLES, **_settings)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_instances_agree(seed):
    """The oracles and every CPU way agree on optimal lengths, solvability, moves, layer sizes and tables."""
    inst = D.draw(random.Random(seed))
    assert D.check(inst) == []


@pytest.mark.gpu
@settings(max_examples=SIMULATOR_EXAMPLES, **_settings)
@given(seed=st.integers(0, 2**32 - 1))
def test_simulator_agrees(seed):
    """Small searches also run by the CUDA kernels (the simulator on CI): the oracles' answers, and the CPU's
    moves, node counts and tables bit for bit."""
    if D.cuda_backend() is None:
        pytest.skip("no cuda backend (set NUMBA_ENABLE_CUDASIM=1)")
    inst = D.draw(random.Random(seed), sim=True)
    assert D.check(inst) == []
