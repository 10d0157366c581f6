"""The count's memo of searched subtrees (``puzzlebatch.puzzles.search``): the same counts and the same node counts
with it as without it, whatever the table's size (collisions replace entries), the budget (items stopped and split
in the middle of a subtree), the batch and the threads; published counts and the plain-Python Algorithm X oracle
as the outside truth; and a search that needs fewer moves with it."""

import random
from dataclasses import replace

import numpy as np
import pytest

from puzzlebatch.cpu_fallback.search import drivers
from puzzlebatch.puzzles import search as T
from puzzlebatch.puzzles.polyomino import bitboard_rules as BR
from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.runners.engine.memo import memo_rows, memo_width
from puzzlebatch.runners.engine.search import BatchDFS, SearchSettings, default_settings
from puzzlebatch.runners.polyomino import solver as RP
from tests.test_polyomino_mrv import oracle_count, random_packing

SPLITTY = SearchSettings(budget=5, batch_size=16, frontier_target=6, first_batch_size=4)


def _pack(board, pieces="pentominoes"):
    return P.build(P.parse_board(board), S.load_pieces(pieces))


def _counts(pk, backend, settings, distinct=True):
    got = RP.count_packing(pk, backend, mode="bitboard", settings=settings, distinct=distinct)
    assert got.branch == "bitboard" and got.complete
    return got.solutions, got.distinct, got.nodes


@pytest.mark.parametrize("board, solutions, distinct", [("12x5", 4040, 1010), ("15x4", 1472, 368)])
def test_published_counts_and_the_same_nodes_whatever_the_memo(cpu, board, solutions, distinct):
    # 2^17 entries (the default), 16 entries (a collision at nearly every store), none; and a budget of 5 moves,
    # so that items stop inside subtrees the memo is filling, and are split and searched again from the middle.
    pk = _pack(board)
    base = default_settings(cpu)
    runs = {label: _counts(pk, cpu, s) for label, s in {
        "default": base, "tiny": replace(base, memo_entries=16), "none": replace(base, memo_entries=0),
        "splitty": replace(SPLITTY, memo_entries=64)}.items()}
    assert runs["none"][:2] == (solutions, distinct)
    assert len(set(runs.values())) == 1, runs


@pytest.mark.parametrize("seed", range(10))
def test_random_packings_match_the_oracle_with_a_small_memo(cpu, seed):
    rng = random.Random(900 + seed)
    pk = random_packing(rng)
    if RP.engine(pk.cover, "bitboard").rules is not BR:
        pytest.skip("not a one-word bitboard packing")
    expected = oracle_count(pk.cover)
    for s in (replace(SPLITTY, memo_entries=4), replace(default_settings(cpu), memo_entries=8)):
        assert _counts(pk, cpu, s, distinct=False)[0] == expected


def _whole_tree(eng, memo, budget):
    d = drivers(eng.rules)
    p = eng.problem
    out = np.zeros(T.OUT_WIDTH, np.int64)
    d.dfs_item(p.root.copy(), np.zeros(p.goal + 1, np.int32), np.int32(0), np.int32(0), np.int64(p.goal),
               np.int64(budget), np.int64(0), np.int64(0), np.zeros((1, len(p.root)), np.int64), out, p.tables,
               memo)
    return out


def test_the_memo_saves_moves_and_reports_the_whole_tree(cpu):
    # One item, the whole 12x5 tree (no symmetry breaking).  Without a memo it needs as many moves as it has
    # nodes; with one, far fewer: a budget of half the tree stops the plain search and not the one with a memo,
    # which still reports every node and every solution.
    eng = RP.engine(_pack("12x5").cover, "bitboard")
    assert eng.rules is BR
    plain = _whole_tree(eng, T.NO_MEMO[0], 1 << 62)
    memo = memo_rows(1, eng.problem.goal, 1 << 16, eng.problem.merge_key)
    remembered = _whole_tree(eng, memo[0], 1 << 62)
    assert plain[T.OUT_COUNT] == 4040 and plain[T.OUT_STATUS] == T.DONE
    assert (remembered[T.OUT_COUNT], remembered[T.OUT_NODES]) == (plain[T.OUT_COUNT], plain[T.OUT_NODES])
    assert plain[T.OUT_MOVES] == plain[T.OUT_NODES] and 0 < remembered[T.OUT_MOVES] < plain[T.OUT_NODES] // 2
    head = T.memo_head(eng.problem.goal)
    assert np.count_nonzero(memo[0, head + 2::T.MEMO_ENTRY]) > 1000  # entries were written
    half = int(plain[T.OUT_NODES]) // 2
    fresh = memo_rows(1, eng.problem.goal, 1 << 16, eng.problem.merge_key)
    assert _whole_tree(eng, T.NO_MEMO[0], half)[T.OUT_STATUS] == T.BUDGET
    assert _whole_tree(eng, fresh[0], half)[T.OUT_STATUS] == T.DONE


def test_memo_rows_are_checked():
    assert memo_rows(4, 10, 0, (0, 1)) is T.NO_MEMO and memo_rows(4, 10, 1 << 4, ()) is T.NO_MEMO
    m = memo_rows(3, 10, 1 << 4, (0, 1))
    assert m.shape == (3, memo_width(10, 16)) and (m[:, T.MEMO_KA] == 0).all() and (m[:, T.MEMO_KB] == 1).all()
    with pytest.raises(ValueError, match="power of two"):
        memo_rows(1, 10, 12, (0, 1))
    with pytest.raises(ValueError, match="at most two"):
        memo_rows(1, 10, 16, (0, 1, 2))


def test_no_memo_for_a_family_without_a_key(cpu):
    eng = RP.engine(_pack("12x5").cover, "first")
    assert not eng.problem.merge_key
    assert BatchDFS(eng.problem, cpu).memo is T.NO_MEMO
    bit = RP.engine(_pack("12x5").cover, "bitboard").problem
    assert BatchDFS(bit, cpu).memo.shape[1] > T.MEMO_HEAD


@pytest.mark.gpu
def test_the_kernel_counts_without_a_memo_and_agrees(cpu, gpu):
    # The CUDA kernel searches without a memo (one row too short for a table); its counts and nodes are the CPU's,
    # whose memo is on.
    # 3x20: the two published solutions (eight with the rectangle's images), a tree small enough for the simulator
    pk = _pack("20x3")
    bit = RP.engine(pk.cover, "bitboard").problem
    assert BatchDFS(bit, gpu).memo is T.NO_MEMO
    small = SearchSettings(budget=1 << 8, batch_size=64, frontier_target=16, first_batch_size=16, merge="no")
    assert _counts(pk, gpu, small) == _counts(pk, cpu, default_settings(cpu)) == (8, 2, _counts(pk, cpu, small)[2])


def test_the_command_line_and_the_api_take_a_memo_size(capsys):
    import json

    from puzzlebatch.api import polyomino as api
    from puzzlebatch.cli import main
    from puzzlebatch.errors import PuzzleInputError

    docs = []
    for memo in ("0", "1024"):
        assert main(["polyomino", "count", "--board", "15x4", "--pieces", "pentominoes", "--memo", memo,
                     "--json"]) == 0
        docs.append(json.loads(capsys.readouterr().out))
    assert [(d["solutions"], d["distinct"]) for d in docs] == [(1472, 368)] * 2
    assert docs[0]["nodes"] == docs[1]["nodes"]
    for bad, why in (("1000", "power of two"), ("1", "from 2"), ("-4", "between 0 and"), ("many", "whole number")):
        assert main(["polyomino", "count", "--board", "15x4", "--pieces", "pentominoes", "--memo", bad]) == 2
        err = capsys.readouterr().err
        assert "--memo" in err and why in err and len(err.strip().splitlines()) == 1
    assert api.count("15x4", "pentominoes", memo=0).solutions == 1472
    with pytest.raises(PuzzleInputError, match="power of two"):
        api.count("15x4", "pentominoes", memo=3)


def test_memo_buckets_are_whole_cache_lines():
    # a bucket is two entries of four words from a multiple of eight: in an aligned row, one 64-byte line
    for goal in (0, 1, 5, 12, 63):
        head = T.memo_head(goal)
        assert head % (T.MEMO_ENTRY * T.MEMO_WAYS) == 0 and head >= T.MEMO_HEAD + 2 * (goal + 1)
        assert memo_width(goal, 16) == head + T.MEMO_ENTRY * 16
    assert T.MEMO_ENTRY * T.MEMO_WAYS * 8 == 64
    with pytest.raises(ValueError, match="at least 2"):
        memo_width(4, 1)


@pytest.mark.parametrize("board, pieces, rules", [("10x6", "pentominoes", "bitboard_rules"),
                                                  ("10x8", "pentominoes+tetrominoes", "bitboard2_rules")])
def test_child_key_names_the_memo_key_of_the_child_the_move_makes(board, pieces, rules):
    # The DFS fetches the child's memo bucket before it applies the move, from the rule's child_key: on random
    # walks down the tree (the rules run as plain Python), every move that applies leaves exactly the key words
    # child_key named; a move it cannot name is the finish move of a full board, which has no child to look up.
    eng = RP.engine(_pack(board, pieces).cover, "bitboard")
    R, p = eng.rules, eng.problem
    assert R.__name__.endswith(rules)
    ka, kb = p.merge_key
    rng = random.Random(7)
    checked = 0
    with np.errstate(over="ignore"):
        for _ in range(12):
            state = p.root.copy()
            for d in range(p.goal):
                fits = []
                for c in range(R.n_choices(state, d, p.tables)):
                    known, k1, k2 = R.child_key(state, d, c, p.tables)
                    if R.apply(state, d, c, p.tables):
                        assert known and (k1, k2) == (state[ka], state[kb])
                        R.undo(state, d, c, p.tables)
                        fits.append(c)
                        checked += 1
                if not fits:
                    break
                c = rng.choice(fits)
                R.apply(state, d, c, p.tables)
    assert checked > 100
