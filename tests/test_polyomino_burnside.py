"""A count's symmetry breaking stopped after a piece or two, with Burnside's lemma for the classes.

Counting every solution and the distinct ones, the symmetry breaking fixes at most ``burnside_levels`` pieces; a
leaf that keeps symmetries is weighted by its orbit's size, and the classes are (solutions + the solutions each
symmetry maps onto themselves) / |G|, the latter counted as smaller exact covers (``invariant_cover``, pieces used
once included).  Checked against a plain-Python oracle that lists every labelled tiling and its classes (with
tilings that a symmetry maps onto themselves: small symmetric pieces), at every level, and on the published
counts by the tests of the bitboard and merged counts.
"""

from __future__ import annotations

import numpy as np
import pytest

from puzzlebatch.puzzles.polyomino import cover as C
from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.runners.engine.backend import select_backend
from puzzlebatch.runners.engine.search import SearchSettings
from puzzlebatch.runners.polyomino import solver as RP
from tests.reference import tiling_classes_oracle as oracle

POOL = {
    "a": [(0, 0)], "b": [(0, 0), (1, 0)], "c": [(0, 0), (1, 0), (2, 0)], "d": [(0, 0), (1, 0), (0, 1)],
    "e": [(0, 0), (1, 0), (2, 0), (3, 0)], "f": [(0, 0), (1, 0), (0, 1), (1, 1)],
    "g": [(0, 0), (1, 0), (2, 0), (1, 1)], "h": [(0, 0), (1, 0), (1, 1), (2, 1)],
    "i": [(0, 0), (1, 0), (2, 0), (0, 1)], "x": [(1, 0), (0, 1), (1, 1), (2, 1), (1, 2)],
    "p": [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)], "t": [(0, 0), (1, 0), (2, 0), (1, 1), (1, 2)],
    "u": [(0, 0), (2, 0), (0, 1), (1, 1), (2, 1)],
}


def _packing(w: int, h: int, names: str) -> P.Packing:
    text = "\n".join(f"{n}: " + " ".join(f"{x},{y}" for x, y in POOL[n]) for n in names)
    return P.build(P.parse_board(f"{w}x{h}"), S.parse_pieces(text))


# boards with pieces once each, area exact; the first three have tilings a symmetry maps onto themselves (found
# by a search of the oracle over small boards and subsets of the pieces above: they are rare); on the boards one
# cell thick a reflection across the thickness acts as the identity (every solution is its own image)
CASES = [(2, 2, "ad"), (3, 2, "bf"), (4, 3, "cgu"), (2, 1, "b"), (5, 1, "bc"), (4, 4, "bcdef"), (4, 4, "efgi"),
         (4, 3, "bcdf"), (5, 4, "bcdefg"), (3, 3, "abcd"), (6, 3, "befhi"),
         (5, 5, "adefgix"), (4, 2, "acf"), (5, 3, "bfip")]


def _oracle(w, h, names):
    found = oracle.tilings_once(w, h, {n: POOL[n] for n in names})
    classes, symmetric = oracle.classes_once(w, h, found)
    return len(found), classes, symmetric


@pytest.mark.parametrize("levels", [1, 2, 99])
@pytest.mark.parametrize("w,h,names", CASES)
def test_counts_and_classes_equal_the_oracle_at_every_level(monkeypatch, w, h, names, levels):
    monkeypatch.setattr(RP, "BURNSIDE_LEVELS", levels)
    monkeypatch.setattr(RP, "BURNSIDE_SMALL_GROUP", 0)  # every group fixes ``levels`` pieces
    pk = _packing(w, h, names)
    tiny = SearchSettings(budget=5, batch_size=3, frontier_target=2, first_batch_size=2)  # many splits
    r = RP.count_packing(pk, select_backend("cpu"), mode="bitboard", settings=tiny)
    n, classes, _ = _oracle(w, h, names)
    assert (r.solutions, r.distinct) == (n, classes)
    assert r.complete


def test_the_cases_hold_symmetric_tilings():
    """The cases above are not all free: some tilings are their own images, so the fixed points count."""
    assert all(_oracle(w, h, names)[2] > 0 for w, h, names in CASES[:3])


@pytest.mark.parametrize("w,h,names", CASES[:8])
def test_fixed_points_of_pieces_used_once_sum_to_the_classes(w, h, names):
    """Burnside's lemma on the whole board: the invariant covers' counts, over every symmetry, add up to |G|
    times the oracle's classes."""
    pk = _packing(w, h, names)
    syms = P.symmetries(pk)
    img = P.option_images(pk, syms)[:, :]
    be = select_backend("cpu")
    eng = RP.engine(pk.cover, "bitboard")
    total = 0
    for h_ in range(len(syms)):
        cov = C.invariant_cover(pk.cover, img[h_])
        assert cov is not None
        total += RP.count_cover(eng, be, None, cov)[0]
    n, classes, _ = _oracle(w, h, names)
    assert total == classes * len(syms)
    assert RP.count_cover(eng, be, None, C.invariant_cover(pk.cover, img[0]))[0] == n  # the identity: every one


def test_invariant_cover_refuses_two_copies_left():
    text = "b count=2: 0,0 1,0\nc count=2: 0,0 1,0 0,1"
    pk = P.build(P.parse_board("5x2"), S.parse_pieces(text))
    syms = P.symmetries(pk)
    assert C.invariant_cover(pk.cover, P.option_images(pk, syms)[:, :][1]) is None
    assert RP.burnside_plan(pk, syms, P.option_images(pk, syms)) is None


def test_a_level_limit_stops_the_breaking():
    pk = P.build(P.parse_board("12x5"), S.load_pieces("pentominoes"))
    syms = P.symmetries(pk)
    img = P.option_images(pk, syms)
    one = P.break_symmetry(pk, syms, img, levels=1)
    full = P.break_symmetry(pk, syms, img)
    assert max(len(lf.fixed) for lf in one) == 1 and any(len(lf.syms) > 1 for lf in one)
    assert max(len(lf.fixed) for lf in full) > 1 and all(len(lf.syms) == 1 for lf in full)
    assert len(one) < len(full)


def test_conjugacy_classes_of_the_square():
    """D4 on a square board: classes {e}, {r, r^3}, {r^2}, the two axis mirrors, the two diagonal mirrors."""
    pk = P.build(P.parse_board("4x4"), S.load_pieces("dominoes", unlimited=True))
    syms = P.symmetries(pk)
    assert len(syms) == 8
    sizes = sorted(len(P.conjugates(syms, [h])) for h in range(8))
    assert sizes == [1, 1, 2, 2, 2, 2, 2, 2]
    assert P.conjugates(syms, [0]) == [0]
    det = [round(float(np.linalg.det(s.matrix))) for s in syms]
    for h in range(8):  # conjugation keeps rotations rotations and mirrors mirrors
        assert {det[k] for k in P.conjugates(syms, [h])} == {det[h]}


def test_five_by_twelve_fixes_one_piece_and_counts_the_published_classes():
    """Haselgrove's 1,010 classes of 5x12, with the breaking stopped at one piece on a rectangle's group of four
    (10 leaves, not thousands), and at two on the square's group of eight."""
    pk = P.build(P.parse_board("12x5"), S.load_pieces("pentominoes"))
    r = RP.count_packing(pk, select_backend("cpu"), mode="bitboard")
    assert (r.solutions, r.distinct) == (4040, 1010)
    assert r.leaves < 20
    assert (RP.burnside_levels(4), RP.burnside_levels(8), RP.burnside_levels(24)) == (1, 2, 2)


@pytest.mark.parametrize("merge", ["no", "yes"])
def test_items_already_at_the_goal_are_counted_beside_shallower_ones(merge):
    """A frontier of leaves where some are whole solutions already (every piece fixed) and others are not: the
    host's expansion used to drop the finished ones (4 counted instead of 8 on this board, with the breaking
    run to the end and the leaves weighted)."""
    from puzzlebatch.api.common import settings_of

    be = select_backend("cpu")
    pk = _packing(4, 3, "cgu")
    syms = P.symmetries(pk)
    leaves = P.break_symmetry(pk, syms, P.option_images(pk, syms))
    eng = RP.engine(pk.cover, "bitboard")
    assert {len(lf.fixed) for lf in leaves} > {eng.enc.goal}  # finished leaves beside shallower ones
    weights = [len(syms) // len(lf.syms) for lf in leaves]
    one_by_one = sum(RP.count_engine(eng, be, settings_of(be, merge=merge),
                                     frontier=RP.leaf_frontier(eng, [lf], [w]))[0].count
                     for lf, w in zip(leaves, weights))
    together = RP.count_engine(eng, be, settings_of(be, merge=merge), frontier=RP.leaf_frontier(eng, leaves,
                                                                                               weights))[0].count
    assert together == one_by_one == _oracle(4, 3, "cgu")[0]


@pytest.mark.parametrize("w,h,names", [(4, 3, "cgu"), (5, 4, "bcdefg"), (5, 5, "adefgix")])
def test_a_count_stopped_and_resumed_keeps_the_weights_and_the_fixed_points(w, h, names):
    """Stopped after one launch (the work left and the running totals, as a checkpoint holds them) and resumed:
    the same solutions and classes as the oracle's."""
    be = select_backend("cpu")
    pk = _packing(w, h, names)
    tiny = SearchSettings(budget=2, batch_size=2, frontier_target=2, first_batch_size=1)
    res, left, totals = RP.count_packing_run(pk, be, mode="bitboard", settings=tiny, max_batches=1)
    steps = 1
    while not res.complete:
        res, left, totals = RP.count_packing_run(pk, be, mode="bitboard", settings=tiny, frontier=left,
                                                 totals=totals, max_batches=totals.batches + 1)
        steps += 1
        assert steps < 10_000
    n, classes, _ = _oracle(w, h, names)
    assert (res.solutions, res.distinct) == (n, classes)
    assert steps > 1 or n == 0


@pytest.mark.parametrize("board,pieces", [("12x5", "pentominoes"), ("3x3x3", "soma")])
def test_option_images_by_integer_keys_equal_those_by_rows(board, pieces):
    """The images of the options, looked up by integer keys where the rows fit an int64 (every shipped board),
    are those the byte rows give, and each symmetry permutes the options; asking for a few columns first (as the
    symmetry breaking does) changes nothing."""
    pk = P.build(P.parse_board(board), S.load_pieces(pieces))
    syms = P.symmetries(pk)
    fast = P.option_images(pk, syms)
    assert fast.radix > 0
    fast.ensure([3, 1, 4])
    rows = P.OptionImages(pk, syms, int_keys=False)
    assert rows.radix == 0
    got = fast[:, :]
    assert np.array_equal(got, rows[:, :])
    assert all(np.array_equal(np.sort(got[h]), np.arange(fast.n)) for h in range(len(syms)))


@pytest.mark.parametrize("board, pieces", [("12x5", "pentominoes"), ("3x3x3", "soma")])
def test_one_symmetry_row_of_the_option_images_is_that_row_of_all(board, pieces):
    # img[h] alone (a symmetry's fixed points) against the whole table, computed lazily or not yet at all
    pk = P.build(P.parse_board(board), S.load_pieces(pieces))
    syms = P.symmetries(pk)
    full = P.option_images(pk, syms)[:, :]
    for h in range(len(syms)):
        fresh = P.option_images(pk, syms)
        fresh.ensure(range(0, len(pk.cover.options), 7))  # some columns known already
        assert np.array_equal(fresh[h], full[h]) and np.array_equal(np.sort(full[h]), np.arange(full.shape[1]))
