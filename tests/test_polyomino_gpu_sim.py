"""Polyomino exact-cover kernels (in the CUDA simulator on CI) against the CPU twin, bit for bit.

The simulator runs every thread as Python, so problems are tiny: a handful of work items, small budgets.
"""

import numpy as np
import pytest

from puzzlebatch.config import launch
from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.runners.polyomino import solver as RP
from puzzlebatch.runners.engine.search import BatchDFS, Frontier, SearchSettings, SearchTotals
from tests.reference import polyomino_oracle as oracle
from tests.backends import GPU

pytestmark = pytest.mark.gpu


def _pack(board, pieces, **kw):
    return P.build(P.parse_board(board), S.load_pieces(pieces, **kw))


@pytest.mark.parametrize("board, pieces, kw, mode, budget", [
    ("6x3", "trominoes", {"unlimited": True}, "first", 7),  # items stop on their budget and hand back stacks
    ("4x4", "tetrominoes", {"unlimited": True}, "mrv", 10**6),  # MRV branching, items finish
    ("3x2x2", "tetracubes", {"count": 1}, "first", 5),  # 3D, the region test on three axes
])
def test_one_launch_is_bit_identical(cpu, gpu, board, pieces, kw, mode, budget):
    pk = _pack(board, pieces, **kw)
    eng = RP.engine(pk.cover, mode, True)
    dfs = BatchDFS(eng.problem, cpu, SearchSettings(frontier_target=19))
    frontier = dfs.expand(Frontier.root(eng.problem), SearchTotals(), 19)
    frontier = frontier.take(slice(0, 19))
    assert len(frontier) > launch.threads_per_block, "more than one block"
    results = [BatchDFS(eng.problem, b, SearchSettings(budget=budget)).run_batch(frontier, 2, 0)
               for b in (cpu, gpu)]
    assert gpu.name == GPU
    for a, b, name in zip(results[0], results[1], ("out", "states", "stacks", "solutions")):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b), f"{name} differs between cpu and {gpu.name}"


def test_counts_and_first_solution_agree(cpu, gpu):
    pk = _pack("6x3", "trominoes", unlimited=True)
    settings = SearchSettings(budget=20, batch_size=12, frontier_target=10, first_batch_size=6)
    got = {b.name: RP.count_packing(pk, b, settings=settings, distinct=False) for b in (cpu, gpu)}
    expected = oracle.count_tilings(sorted(pk.board.playable), [sorted(p.cells) for p in pk.pieces],
                                    copies=[None] * len(pk.pieces))
    assert got["cpu"].solutions == got[GPU].solutions == expected
    assert got["cpu"].nodes == got[GPU].nodes and got[GPU].backend == GPU
    first = {b.name: RP.solve_packing(pk, b, settings=settings) for b in (cpu, gpu)}
    assert first["cpu"].solved and first[GPU].backend == GPU
    assert [(k, c.tolist()) for k, c in first["cpu"].placements] == \
        [(k, c.tolist()) for k, c in first[GPU].placements]
