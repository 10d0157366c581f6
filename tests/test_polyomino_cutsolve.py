"""Cut puzzles solved back by the scan-order search with local restarts: solutions validated, existence
decided the same as the plain-Python Algorithm X oracle, impossible boards proved, CUDA simulator == CPU, CLI."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from puzzlebatch.puzzles.polyomino import cut as K
from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.puzzles.search import NO_MEMO
from puzzlebatch.runners.polyomino import cutsolve as CS
from puzzlebatch.runners.polyomino import large as L
from tests.reference.polyomino_oracle import count_tilings
from tests.backends import GPU


def run_cli(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "puzzlebatch", "polyomino", *args], capture_output=True,
                          text=True, env=dict(os.environ))
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.parametrize("w,h,seed", [(8, 8, 1), (12, 7, 2), (16, 16, 3), (9, 20, 4)])
def test_random_cuts_solved_back_and_validated(cpu, w, h, seed):
    board = P.parse_board(f"{w}x{h}")
    pieces = K.random_cut(board.playable, 4, 6, seed).piece_objects()
    res = CS.solve_pieces(board, pieces, cpu, seed=seed, time_limit=60)
    assert res.solved and res.validated and res.backend == "cpu"
    assert sorted(k for k, _ in res.placements) == list(range(len(pieces)))  # every piece exactly once
    L.validate_tiling(pieces, w, h, res.placements)  # and once more here, from the test


def test_masks_large_pieces_and_transposed_boards(cpu):
    # a board with holes, pieces of 12..20 cells, wider than tall (searched transposed)
    mask = np.ones((9, 17), bool)
    mask[3:5, 6:9] = False
    cells = [(x, y) for y in range(9) for x in range(17) if mask[y, x]]
    cut = K.random_cut(cells, 12, 20, seed=7, size=(17, 9))
    pieces = cut.piece_objects()
    board = P.Board((17, 9), frozenset(cells))
    res = CS.solve_pieces(board, pieces, cpu, time_limit=60)
    assert res.solved
    L.validate_tiling(pieces, 17, 9, res.placements, mask)


def _oracle_cases():
    rng = np.random.default_rng(11)
    tetro = [sorted(p.cells) for p in S.load_pieces("tetrominoes")]
    cases = []
    for _ in range(14):  # 5 tetrominoes (repeats allowed) on 4x5: some boards tile, some do not
        pick = rng.integers(0, len(tetro), 5)
        cases.append((4, 5, [tetro[i] for i in pick]))
    return cases


@pytest.mark.parametrize("w,h,cells", _oracle_cases())
def test_existence_agrees_with_the_oracle(cpu, w, h, cells):
    pieces = [S.Piece(f"Q{i}", S.normalize(c), "free", 1) for i, c in enumerate(cells)]
    board = P.parse_board(f"{w}x{h}")
    res = CS.solve_pieces(board, pieces, cpu, time_limit=60)
    n = count_tilings([(x, y) for x in range(w) for y in range(h)], cells)
    assert res.solved == (n > 0)
    assert res.solved or res.proved_none  # "none" is proved: the whole tree was searched


def test_search_is_complete_with_tiny_budgets(cpu):
    # rewinds and restarts with a budget far too small still end in a tiling (or a proof), never a wrong answer
    board = P.parse_board("10x10")
    pieces = K.random_cut(board.playable, 4, 6, 5).piece_objects()
    classes, _ = L.shape_classes(pieces)
    res = CS.solve(np.ones((10, 10), bool), classes, cpu, budget=5, back=1, time_limit=60)
    assert res.solved and res.rounds > 1
    L.validate_tiling(classes, 10, 10, res.placements)


@pytest.mark.gpu
def test_kernel_simulator_matches_cpu_bit_for_bit(cpu, gpu):
    from puzzlebatch.cpu_fallback.polyomino_cut import drivers as cpu_drivers
    from puzzlebatch.gpu_kernels.search import drivers as gpu_drivers
    from puzzlebatch.puzzles.polyomino import cutsearch_rules as R
    from puzzlebatch.puzzles.search import OUT_WIDTH

    board = P.parse_board("4x3")
    classes, _ = L.shape_classes(K.random_cut(board.playable, 3, 4, 2).piece_objects())
    pb = CS.build(np.ones((3, 4), bool), classes)
    results = []
    for d in (cpu_drivers(), gpu_drivers(R)):
        states = np.stack([CS.seeded(pb, s) for s in (1, 2)])
        stacks = np.zeros((2, pb.goal + 2), np.int32)
        sols = np.zeros((2, 1, states.shape[1]), np.int64)
        out = np.zeros((2, OUT_WIDTH), np.int64)
        d.dfs_batch(states, stacks, np.zeros(2, np.int32), np.zeros(2, np.int32), pb.goal, 50, 1, 1, sols, out,
                    pb.tables, NO_MEMO)
        results.append((states, stacks, sols, out))
    for a, b in zip(*results):
        assert np.array_equal(a, b)
    assert results[0][3][:, 2].sum() >= 1  # a tiling was found
    sol = CS.decode(pb, results[0][2][0, 0])
    L.validate_tiling(classes, 4, 3, sol)
    res = CS.solve(np.ones((3, 4), bool), classes, gpu, portfolio=2)  # the whole loop on the simulated kernel
    assert res.solved and res.backend == GPU
    L.validate_tiling(classes, 4, 3, res.placements)


def test_cli_generate_solve_back_and_errors(tmp_path, capsys):
    # in process (puzzlebatch.cli.main): the compiled search is shared with the tests above
    from puzzlebatch.cli import main

    out = tmp_path / "cut.txt"
    assert main(["polyomino", "generate", "--random-cut", "14x12", "--sizes", "4-6", "--seed", "9",
                 "--text", str(out)]) == 0
    pieces = S.load_pieces(str(out))
    assert len(pieces) >= 30  # auto picks the cut search
    capsys.readouterr()
    assert main(["polyomino", "solve", "--board", "14x12", "--pieces", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["solved"] and doc["validated"] and doc["method"] == "cut" and doc["backend"] == "cpu"
    names = [p.name for p in pieces]
    L.validate_tiling(pieces, 14, 12, [(names.index(d["piece"]), [tuple(c) for c in d["cells"]])
                                       for d in doc["placements"]])
    assert sorted(d["piece"] for d in doc["placements"]) == sorted(names)
    assert main(["polyomino", "solve", "--board", "14x11", "--pieces", str(out), "--method", "cut"]) == 2
    err = capsys.readouterr().err
    assert "--pieces" in err and len(err.strip().splitlines()) == 1


def test_cli_bad_input_is_one_line_exit_2(tmp_path):
    out = tmp_path / "cut.txt"
    out.write_text("O:\n##\n##\n")
    bad = run_cli("solve", "--board", "2x2", "--pieces", str(out), "--method", "cut", "--unlimited", check=False)
    assert bad.returncode == 2 and "--method cut" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_fast_shape_classes_match_the_engine():
    board = P.parse_board("20x20")
    pieces = K.random_cut(board.playable, 3, 6, 8).piece_objects()
    pieces += [p.with_(name=p.name + "r", turns="rotations") for p in pieces[:30]]
    fast, fm = CS.shape_classes(pieces)
    ref, rm = L.shape_classes(pieces)
    assert sorted(map(sorted, fm)) == sorted(map(sorted, rm)) and len(fast) == len(ref)
    for p in pieces[:40] + pieces[-30:]:
        assert set(CS.orientations2d(p.cells, p.turns)) == set(p.orientations())
