"""The two-word bitboard rule (``--branch bitboard`` on boards of 65 to 128 cells and pieces): the same tree as the
one-word rule where both apply, the plain-Python Algorithm X oracle and the general engine on boards that span
both words, the 128-bit shifts and flood fill against plain integers, the choice of engine, and the CUDA twin in
the simulator, bit for bit."""

import random

import numpy as np
import pytest

from puzzlebatch.puzzles.polyomino import bitboard as B
from puzzlebatch.puzzles.polyomino import bitboard2 as B2
from puzzlebatch.puzzles.polyomino import bitboard2_rules as BR2
from puzzlebatch.puzzles.polyomino import bitboard_rules as BR
from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.runners.engine.search import SearchSettings
from puzzlebatch.runners.polyomino import solver as RP
from tests.backends import GPU
from tests.test_polyomino_bitboard import _full_flood_dead, assert_one_launch_identical, hole_verdicts, leaf_counts
from tests.test_polyomino_mrv import oracle_count, random_packing

SPLITTY = SearchSettings(budget=5, batch_size=16, frontier_target=6, first_batch_size=4)
M64 = (1 << 64) - 1


def _pack(board, pieces, **kw):
    b = P.parse_board_text(board) if "\n" in board else P.parse_board(board)
    return P.build(b, S.load_pieces(pieces, **kw))


def _count(pk, enc, module, backend, settings=SPLITTY):
    totals, left = RP.count_engine(RP.Engine(pk.cover, enc, "bitboard", True, module), backend, settings)
    assert not len(left)
    return totals.count, totals.nodes


@pytest.mark.parametrize("board, pieces", [("5x4", "pentominoes+trominoes"), ("3x3x3", "soma"),
                                           ("4x3", "trominoes+tetrominoes+dominoes"), ("4x2x3", "tetracubes")])
def test_where_one_word_holds_the_board_both_rules_search_the_same_tree(cpu, board, pieces):
    # the same lists, the same region test, the same leaf count: equal counts and equal node counts
    pk = _pack(board, pieces)
    one = _count(pk, B.encode(pk.cover), BR, cpu)
    two = _count(pk, B2.encode(pk.cover), BR2, cpu)
    assert one == two and one[0] > 0


@pytest.mark.parametrize("seed", range(6))
def test_random_packings_search_the_same_tree_on_both_rules(cpu, seed):
    pk = random_packing(random.Random(500 + seed))
    assert _count(pk, B.encode(pk.cover), BR, cpu) == _count(pk, B2.encode(pk.cover), BR2, cpu)


def _straddling_packing(rng, width, height, free, pieces):
    """A packing of ``pieces`` on a ``width`` x ``height`` board (65 to 128 cells) whose only empty cells are a
    block of about ``free`` cells, maybe less a cell, across cells 63 and 64 (the edge of the two words, in
    search order); the rest are holes."""
    while True:
        w = rng.choice([c for c in (3, 4, 5, 6) if c <= width and free // c >= 2 and free // c <= height])
        h = free // w
        x0, y0 = rng.randrange(0, width - w + 1), rng.randrange(0, height - h + 1)
        hole = rng.choice([None, (x0 + rng.randrange(w), y0 + rng.randrange(h))])
        pk = _pack("\n".join("".join("." if x0 <= x < x0 + w and y0 <= y < y0 + h and (x, y) != hole else "#"
                                      for x in range(width)) for y in range(height)), pieces)
        if _spans_both_words(pk.cover):
            return pk


def _spans_both_words(ec):
    free = set(range(ec.n_primary)) - set(ec.precovered)
    return min(free) < 64 <= max(free)


@pytest.mark.parametrize("seed", range(8))
def test_boards_across_both_words_match_the_oracle_and_the_general_engine(cpu, seed):
    rng = random.Random(900 + seed)
    width, height = rng.choice([(9, 8), (10, 8), (11, 9), (14, 8), (13, 7)])
    pieces = rng.choice(["trominoes+tetrominoes+dominoes", "pentominoes+trominoes+dominoes",
                         "tetrominoes+trominoes+L-trominoes"])
    pk = _straddling_packing(rng, width, height, rng.randint(10, 14), pieces)
    ec = pk.cover
    assert 64 < ec.n_primary <= 128 and not B.supports(ec) and B2.supports(ec) and _spans_both_words(ec)
    got = RP.count_packing(pk, cpu, mode="bitboard", settings=SPLITTY, distinct=False)
    assert got.branch == "bitboard"
    assert got.solutions == oracle_count(ec)
    assert got.solutions == RP.count_packing(pk, cpu, mode="first", distinct=False).solutions


def test_a_board_of_80_cells_counts_as_the_general_engine(cpu):
    # the twelve pentominoes and the five tetrominoes (the tetrominoes I, T and L named I4, T4 and L4) on a 10x8
    # board of which a 6x4 corner is free: each tiling by some of the pieces, both engines agree
    board = "\n".join(("." * 6 + "#" * 4) if y < 4 else "#" * 10 for y in range(8))
    pk = _pack(board, "pentominoes+tetrominoes")
    assert [p.name for p in pk.pieces][-5:] == ["I4", "O", "T4", "S", "L4"]
    assert pk.cover.n_primary == 80 and B2.supports(pk.cover)
    a = RP.count_packing(pk, cpu, mode="bitboard")
    b = RP.count_packing(pk, cpu, mode="first")
    assert a.branch == "bitboard" and b.branch == "first"
    assert (a.solutions, a.distinct) == (b.solutions, b.distinct)
    assert a.solutions > 0


def test_the_first_solution_is_a_tiling(cpu):
    pk = _pack("\n".join("." * 8 + "#" * 2 for _ in range(9)), "pentominoes+tetrominoes")  # 72 free of 90
    res = RP.solve_packing(pk, cpu, mode="bitboard")
    assert res.solved
    P.validate(pk, res.placements)


def _words(v):
    return np.int64(B._word(v & M64)), np.int64(B._word(v >> 64))


def _int(a, b):
    return (int(a) & M64) | (int(b) & M64) << 64


def test_the_128_bit_shifts_and_the_lowest_bit_match_plain_integers():
    rng = random.Random(3)
    with np.errstate(over="ignore"):  # the rules' wrapping arithmetic, run here on numpy scalars
        for _ in range(400):
            v = rng.getrandbits(128) >> rng.randrange(128) or 1
            s = rng.randrange(1, 128)
            a, b = _words(v)
            assert _int(*BR2.shift_up(a, b, np.int64(s))) == (v << s) & ((1 << 128) - 1)
            assert _int(*BR2.shift_down(a, b, np.int64(s))) == v >> s
            assert BR2.low_index(a, b) == (v & -v).bit_length() - 1
            assert BR2.popcount(a) + BR2.popcount(b) == bin(v).count("1")


@pytest.mark.parametrize("board, pieces", [("12x9", "pentominoes+tetrominoes+trominoes"),
                                           ("5x4x5", "tetracubes+soma")])
def test_the_region_test_never_rejects_a_live_node_and_sees_small_holes(board, pieces):
    pk = _pack(board, pieces)
    ec = pk.cover
    assert ec.n_primary > 64
    t = B2.encode(ec, flood=128).tables
    ref = {"shape": ec.geometry.shape, "sizes": [ec.group_size(g) for g in range(len(ec.groups))]}
    full, ncell = (1 << ec.n_primary) - 1, ec.n_primary
    rng = random.Random(11)
    checks = []
    with np.errstate(over="ignore"):
        for _ in range(150):
            free = full & ~(rng.getrandbits(128) | rng.getrandbits(128))
            used = rng.getrandbits(len(ref["sizes"]))
            c = (full & ~free) | used << ncell
            got = BR2.dead_region(*_words(free), *_words(c), *_words(free), t)
            checks.append((got, _full_flood_dead(free, used, ref)))
    assert all(not got or want for got, want in checks)  # sound: only dead nodes are rejected
    assert sum(got == want for got, want in checks) >= 140


@pytest.mark.parametrize("board, pieces", [("10x6", "pentominoes"), ("11x5", "iq-puzzler-pro")])
def test_a_hole_of_one_piece_is_dead_unless_a_piece_left_fits_it(board, pieces):
    # as on one word (tests/test_polyomino_bitboard.py), the pieces' bits across both words: the hole's placements
    # are found by a scan of its first cell's list, the pieces left read from both words
    pk = _pack(board, pieces)
    ec = pk.cover
    assert ec.n_primary + len(ec.groups) > 64
    t = B2.encode(ec, flood=128).tables
    ncell = ec.n_primary
    got, want, by_size = hole_verdicts(
        ec, lambda free, used: BR2.dead_region(*_words(free), *_words((free ^ ((1 << ncell) - 1)) | (used << ncell)),
                                               *_words(free), t), 4)
    assert got == want
    assert sum(w and not s for w, s in zip(want, by_size)) >= 15
    assert sum(not w for w in want) >= 15


def test_which_rule_runs():
    assert not B2.supports(_pack("16x9", "pentominoes+tetrominoes").cover)  # 144 cells
    assert not B2.supports(_pack("4x3", "trominoes", unlimited=True).cover)  # copies without end
    big = _pack("\n".join("." * 11 + "#" for _ in range(11)), "pentominoes+tetrominoes")  # 132 cells, 121 free
    assert not B2.supports(big.cover)
    pk = _pack("10x8", "pentominoes+tetrominoes")
    assert RP.default_branch(pk) == "bitboard"
    assert RP.engine(pk.cover, "bitboard").rules is BR2
    assert RP.engine(_pack("10x6", "pentominoes").cover, "bitboard").rules is BR


def test_shipped_sets_with_a_shared_name_are_told_apart_and_files_are_not(tmp_path):
    names = [p.name for p in S.load_pieces("pentominoes+tetrominoes")]
    assert len(names) == len(set(names)) == 17 and {"I", "I4", "L", "L4", "T", "T4"} <= set(names)
    f = tmp_path / "mine.txt"
    f.write_text("I:\n###\n")
    with pytest.raises(S.PuzzleInputError, match="piece name I appears in two sets"):
        S.load_pieces(f"pentominoes+{f}")


# -- the CUDA twin in the simulator ---------------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("lanes", [1, 32])  # a thread an item; a warp an item, sharing the candidate scans
@pytest.mark.parametrize("budget", [6, 10**6])
def test_one_launch_is_bit_identical(cpu, gpu, budget, lanes):
    rng = random.Random(4)
    pk = _straddling_packing(rng, 10, 8, 12, "trominoes+tetrominoes+dominoes")
    eng = RP.engine(pk.cover, "bitboard", True)
    assert eng.rules is BR2
    assert_one_launch_identical(eng, cpu, gpu, budget, lanes)


@pytest.mark.gpu
def test_counts_agree_with_the_cpu(cpu, gpu):
    rng = random.Random(5)
    pk = _straddling_packing(rng, 9, 8, 11, "trominoes+tetrominoes+dominoes")
    settings = SearchSettings(budget=20, batch_size=12, frontier_target=10, first_batch_size=6)
    got = {b.name: RP.count_packing(pk, b, mode="bitboard", settings=settings, distinct=False) for b in (cpu, gpu)}
    assert got["cpu"].branch == got[GPU].branch == "bitboard" and got[GPU].backend == GPU
    assert got["cpu"].solutions == got[GPU].solutions == oracle_count(pk.cover) > 0
    assert got["cpu"].nodes == got[GPU].nodes


@pytest.mark.parametrize("board, pieces", [("10x8", "pentominoes+tetrominoes"), ("11x5", "iq-puzzler-pro")])
def test_the_leaf_count_counts_the_covers_of_three_pieces_or_fewer(board, pieces):
    # as the one-word rule's: three pieces left or fewer counted without a move, four or more searched (-1)
    ec = _pack(board, pieces).cover
    got, want, n_left = leaf_counts(ec, BR2, B2.encode(ec), seed=43)
    assert got == want
    assert sum(w > 0 and n == 3 for w, n in zip(want, n_left)) >= 5 and sum(w == 0 for w in want) >= 5
    assert -1 in want
