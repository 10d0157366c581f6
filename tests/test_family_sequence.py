"""Every ordered pair of families run one after the other in one process gives the answers of fresh processes, on
the CPU and on the CUDA simulator.

Web-app workers, Dask workers and notebooks run many jobs of different families in one process: nothing a run
compiles, caches or allocates may change the next run's answer.  Each family's small job (``tests/isolation_proc.py``)
runs alone in a fresh process, then all of them in one process in an order where every ordered pair of two
families stands side by side (31 runs for 6 families).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.isolation_proc import FAMILIES, every_ordered_pair

ROOT = Path(__file__).resolve().parent.parent
CHILD = str(Path(__file__).resolve().parent / "isolation_proc.py")
BACKENDS = "cpu,cuda"  # "cuda" is the simulator here (NUMBA_ENABLE_CUDASIM=1, as tests/conftest.py sets)


def _child(*argv: str):
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, CHILD, "--backends", BACKENDS, *argv], capture_output=True, text=True,
                          env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_the_sequence_holds_every_ordered_pair():
    names = sorted(FAMILIES)
    seq = every_ordered_pair(names)
    pairs = list(zip(seq, seq[1:]))
    assert len(seq) == len(names) * (len(names) - 1) + 1
    assert sorted(pairs) == sorted((a, b) for a in names for b in names if a != b)


@pytest.mark.gpu
def test_every_ordered_pair_of_families_in_one_process():
    fresh = {}
    for family in sorted(FAMILIES):
        fresh |= _child(family)
    seq = every_ordered_pair(sorted(FAMILIES))
    runs = _child("--sequence", *seq)
    assert len(runs) == 2 * len(seq)
    previous = None
    for key, answer in runs:
        assert answer == fresh[key], f"{key} after {previous}: {answer} in one process, {fresh[key]} fresh"
        previous = key
