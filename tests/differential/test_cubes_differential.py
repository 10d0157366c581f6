"""Differential tests of the connector-cubes family: random small figures and cube sets answered by the
brute-force oracle and by every way the package answers them (see :mod:`tests.differential.cubes` for what is
compared), and figures whose counts pass 2^14, 2^15 and 2^16 assemblies.

Hypothesis draws a seed from a derandomized source, so CI sees the same instances every run; a failure prints each
disagreement with the instance as JSON (replay it with ``check(json.loads(...))``).  The CUDA twin runs in numba's
simulator on a few tiny figures only (every simulated thread is a Python thread).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.differential import cubes as D

RANDOM_EXAMPLES = 200
SIMULATOR_EXAMPLES = 8

_settings = dict(deadline=None, derandomize=True, database=None, print_blob=False,
                 suppress_health_check=[HealthCheck.too_slow])


@settings(max_examples=RANDOM_EXAMPLES, **_settings)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_instances_agree(seed):
    """The oracle and every CPU way agree on counts, classes, solvability and the assemblies found."""
    inst = D.draw(random.Random(seed))
    assert D.check(inst) == []


@pytest.mark.parametrize("inst", D.large_instances(), ids=lambda inst: f"{inst['name']}-2^{inst['passes']}")
def test_counts_beyond_powers_of_two(inst):
    """Counts past 2^14, 2^15 and 2^16 assemblies: every way still agrees with the oracle."""
    assert D.oracle(inst)["assemblies"] > 2 ** inst["passes"], "the instance must pass the power it is here for"
    assert D.check(inst) == []


@pytest.mark.gpu
@settings(max_examples=SIMULATOR_EXAMPLES, **_settings)
@given(seed=st.integers(0, 2**32 - 1))
def test_simulator_agrees(seed):
    """Tiny figures also counted and solved by the CUDA kernels (the simulator on CI): the oracle's answers, the
    CPU's node count and first assembly with the same settings."""
    if D.cuda_backend() is None:
        pytest.skip("no cuda backend (set NUMBA_ENABLE_CUDASIM=1)")
    inst = D.draw(random.Random(seed), sim=True)
    assert D.check(inst) == []
