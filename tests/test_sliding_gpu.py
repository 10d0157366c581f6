"""Sliding-puzzle CUDA kernels (in the simulator on CI) against the CPU twins, bit for bit; small batches."""

import numpy as np
import pytest

from puzzlebatch.config import launch
from puzzlebatch.puzzles.sliding.model import Board, parse_board
from puzzlebatch.runners.sliding import solver as sliding
from puzzlebatch.runners.sliding import pdb as sliding_pdb
from tests.backends import GPU

pytestmark = pytest.mark.gpu


def _both(fn_name, cpu, gpu, *args, out_shape, out_dtype=np.int64):
    outs = []
    for backend in (cpu, gpu):
        out = np.full(out_shape, -7, out_dtype)
        getattr(sliding.drivers(backend), fn_name)(*args, out)
        outs.append(out)
    return outs


def test_bfs_expansion_is_bit_identical(cpu, gpu):
    fact = sliding.factorials(6)
    ranks = np.array([0, 1, 5, 17, 42, 99, 100, 180, 200, 250, 300, 333, 359, 7, 8, 9, 64, 128, 256, 31, 3],
                     np.int64)
    assert len(ranks) > 2 * launch.threads_per_block and len(ranks) % launch.threads_per_block
    a, b = _both("bfs_expand_batch", cpu, gpu, ranks, 2, 3, 1, fact, out_shape=(len(ranks), 4))
    assert gpu.name == GPU and np.array_equal(a, b) and (a >= -1).all()


def test_whole_bfs_on_the_simulator_equals_cpu(cpu, gpu):
    for rows, cols in ((2, 2), (2, 3)):
        results = [sliding.bfs(rows, cols, "blank-last", backend)[1] for backend in (cpu, gpu)]
        assert results[0].depth_counts == results[1].depth_counts
        assert np.array_equal(results[0].packed, results[1].packed)
        assert np.array_equal(results[0].frontier, results[1].frontier)


def test_pdb_expansion_is_bit_identical(cpu, gpu):
    n, k = 9, 3
    codes = np.array([r * n + c for r, c in [(0, 0), (5, 3), (17, 8), (100, 4), (200, 1), (250, 6), (311, 0),
                                             (400, 7), (450, 2), (503, 5), (12, 3), (77, 0), (88, 8), (99, 1),
                                             (123, 4), (321, 6), (222, 2), (111, 5), (333, 7), (444, 0), (55, 3)]],
                     np.int64)
    # only codes whose region cell is empty are states; the rule is defined on all, and both backends must agree
    a, b = _both("pdb_expand_batch", cpu, gpu, codes, k, 3, 3, out_shape=(len(codes), 4 * k))
    assert np.array_equal(a, b)


def test_pdb_build_on_the_simulator_equals_cpu(cpu, gpu, tmp_path):
    files = [sliding_pdb.build_pattern(2, 3, (1, 2), backend, tmp_path / backend.name) for backend in (cpu, gpu)]
    tables = [np.asarray(sliding_pdb.load_table(f)) for f in files]
    assert np.array_equal(tables[0], tables[1])


@pytest.mark.parametrize("heuristic", ["manhattan", "linear-conflict", "pdb"])
def test_ida_batch_is_bit_identical(heuristic, cpu, gpu, tmp_path):
    pdbs = sliding_pdb.ensure(3, 3, "4-4", cpu, tmp_path) if heuristic == "pdb" else None
    boards = [parse_board(t) for t in ("1 2 3 4 5 6 7 8 0", "1 2 3 4 0 6 7 5 8", "4 1 3 7 2 6 0 5 8",
                                       "1 2 3 4 5 6 8 7 0", "2 3 6 1 5 0 4 7 8")]
    runs = {b.name: sliding.solve_batch(boards, "blank-last", heuristic, b, pdbs=pdbs) for b in (cpu, gpu)}
    assert [r.backend for r in runs[GPU]] == [GPU] * 5
    for a, b in zip(runs["cpu"], runs[GPU]):
        assert (a.solvable, a.length, a.moves, a.directions, a.nodes, a.iterations, a.initial_h) == \
               (b.solvable, b.length, b.moves, b.directions, b.nodes, b.iterations, b.initial_h)
    from puzzlebatch.puzzles.sliding.model import goal_board, replay

    for board, r in zip(boards, runs[GPU]):
        assert (r.length is None) == (board.text() == "1 2 3 4 5 6 8 7 0")  # the document's unsolvable example
        if r.solvable:
            assert replay(board, r.moves)[-1] == goal_board(3, 3) and len(r.moves) == r.length


def test_compressed_databases_are_bit_identical(cpu, gpu, tmp_path):
    pdbs = sliding_pdb.ensure(3, 3, "4-4", cpu, tmp_path).compressed(1)
    boards = [parse_board(t) for t in ("4 1 3 7 2 6 0 5 8", "2 3 6 1 5 0 4 7 8", "8 6 7 2 5 4 3 0 1")]
    runs = {b.name: sliding.solve_batch(boards, "blank-last", "pdb", b, pdbs=pdbs) for b in (cpu, gpu)}
    assert [r.backend for r in runs[GPU]] == [GPU] * 3 and runs["cpu"][2].length == 31
    for a, b in zip(runs["cpu"], runs[GPU]):
        assert (a.length, a.moves, a.nodes, a.iterations, a.initial_h) == \
               (b.length, b.moves, b.nodes, b.iterations, b.initial_h)


def test_ida_batch_on_a_15_puzzle_board(cpu, gpu):
    board = Board(4, 4, (1, 2, 3, 0, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
    a, b = (sliding.solve(board, "blank-first", "linear-conflict", x) for x in (cpu, gpu))
    assert a.length == b.length == 3 and a.moves == b.moves and a.nodes == b.nodes
