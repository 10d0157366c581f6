"""The beam player on the CUDA kernels (numba's simulator on CI) gives the same plan, solution and exact score as
on the CPU drivers: a tiny problem, a few units (the simulator runs ~ms per simulated thread-step)."""

import dataclasses

import pytest

from puzzlebatch.puzzles.hextris.model import load_phrases, score_solution
from puzzlebatch.runners.hextris.player import BeamPlayer, spell
from tests.test_hextris_gpu_sim import _tiny
from tests.backends import GPU

pytestmark = pytest.mark.gpu


def test_beam_player_same_on_both_backends(cpu, gpu):

    problem = dataclasses.replace(_tiny(), source_length=3)
    phrases = load_phrases()
    out = []
    for backend in (cpu, gpu):
        plans = BeamPlayer(problem, backend, beam=2, keep=2).plan([1])
        solved = spell(plans, backend, phrases)
        out.append(([(p.placements, p.move_score, p.end) for p in plans],
                    [(s.entry, s.move_score, s.power_score, s.total, s.end, s.woven) for s in solved]))
    assert gpu.name == GPU
    assert out[0] == out[1]
    (entry, move, power, total, end, _), = out[0][1]
    assert len(out[0][0][0][0]) == 3  # the three units were placed
    exact = score_solution(problem, 1, entry["solution"], phrases)  # the scalar model, independent of the kernels
    assert (exact.move_score, exact.power_score, exact.total) == (move, power, total) and total > 0
