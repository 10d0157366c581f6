"""Counts whose symmetry classes cannot all be broken by a piece (unlimited pieces: every board keeps its whole
group), checked against closed forms and a second way of counting.

A count used to enumerate such a subproblem into a buffer of 2^14 solutions and report what fitted as complete
(8x8 dominoes: 71,692 tilings instead of 12,988,816).  Now the classes are counted by Burnside's lemma (the
solutions each symmetry maps onto themselves, counted as smaller exact covers) or, with copy limits or rows to
store, streamed through the batch DFS and reduced to one representative per class; nothing is bounded by a buffer.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.runners.polyomino import solver as RP
from puzzlebatch.runners.engine.search import SearchSettings
from tests.reference import tiling_classes_oracle as oracle


def kasteleyn_exact(m: int, n: int) -> int:
    """The same closed form, the square root of the full product over 1..m, 1..n (valid for every m, n)."""
    prod = 1.0
    for j in range(1, m + 1):
        for k in range(1, n + 1):
            prod *= abs(2 * math.cos(math.pi * j / (m + 1)) + 2j * math.cos(math.pi * k / (n + 1)))
    return round(math.sqrt(prod))


BOARDS = [(m, n) for m in range(1, 9) for n in range(m, 65) if m * n <= 64]


def _count(board: str, pieces: str, **kw):
    from puzzlebatch.runners.engine.backend import select_backend

    pk = P.build(P.parse_board(board), S.load_pieces(pieces, unlimited=True))
    return RP.count_packing(pk, select_backend("cpu"), **kw)


def test_the_closed_form_itself():
    # published values: 2x3 has 3, 4x4 36, 6x6 6,728, 8x8 12,988,816 tilings
    assert [kasteleyn_exact(*mn) for mn in ((2, 3), (4, 4), (6, 6), (8, 8), (3, 3))] == [3, 36, 6728, 12988816, 0]


# The boards of more than a million tilings (4x16, 2x32, 8x8, ...) take seconds to a minute each: run with -m slow.
@pytest.mark.parametrize("m,n", [pytest.param(m, n, id=f"{n}x{m}", marks=[pytest.mark.slow]
                                              if kasteleyn_exact(m, n) > 1_000_000 else [])
                                 for m, n in BOARDS])
def test_domino_tilings_equal_kasteleyn(m, n):
    r = _count(f"{n}x{m}", "dominoes")
    assert r.complete
    assert r.solutions == kasteleyn_exact(m, n), f"{n}x{m}"


def _orbits_by_streaming(pk, settings=None):
    """The count with every symmetric subproblem streamed through the engine (the path --all takes)."""
    from puzzlebatch.runners.engine.backend import select_backend

    rows = []
    r = RP.count_packing_run(pk, select_backend("cpu"), settings=settings, sink=rows.append)[0]
    stored = np.concatenate(rows) if rows else np.zeros((0, 1), np.int64)
    return r, stored


@pytest.mark.parametrize("board,pieces", [("10x4", "dominoes"), ("6x6", "dominoes"), ("6x4", "L-trominoes"),
                                          ("6x6", "trominoes"), ("2x2x4", "tetracubes"), ("5x4", "dominoes")])
def test_burnside_and_streamed_classes_agree(board, pieces):
    pk = P.build(P.parse_board(board), S.load_pieces(pieces, unlimited=True))
    fast = _count(board, pieces)
    # many splits: items of a few moves, sized so that every board takes a few thousand launches (6x6 trominoes
    # with items of 7 moves took two minutes of the suite)
    tiny = SearchSettings(budget=max(7, fast.nodes // 2000), batch_size=5, frontier_target=3, first_batch_size=2)
    streamed, rows = _orbits_by_streaming(pk, tiny)
    assert (fast.solutions, fast.distinct) == (streamed.solutions, streamed.distinct)
    # the stored rows are every solution once
    assert len(rows) == fast.solutions == len({tuple(r) for r in rows.tolist()})


@pytest.mark.parametrize("w,h,pieces", [(4, 4, "dominoes"), (6, 3, "L-trominoes"), (6, 4, "dominoes"),
                                         (6, 6, "L-trominoes"), (5, 4, "dominoes"), (3, 9, "trominoes")])
def test_classes_against_an_orbit_oracle(w, h, pieces):
    shapes = {"dominoes": [[(0, 0), (1, 0)]], "L-trominoes": [[(0, 0), (1, 0), (0, 1)]],
              "trominoes": [[(0, 0), (1, 0), (2, 0)], [(0, 0), (1, 0), (0, 1)]]}[pieces]
    found = oracle.tilings(w, h, shapes)
    r = _count(f"{w}x{h}", pieces)
    assert (r.solutions, r.distinct) == (len(found), oracle.classes(w, h, found))
