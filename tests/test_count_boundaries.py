"""Counts across every power of two the code keeps counts in: 2^14, 2^15, 2^16 (solution buffers, int16 ids),
2^31, 2^32 (int32) and 2^63 (int64), checked against an exact plain-Python dynamic program.

For the batch DFS, the board whose count first passes each small power is counted as one work item (nothing split,
so one item's counter and buffers carry it all) and as many tiny ones; past 2^31 only the transfer-matrix count
reaches, in both of its exact modes (residues combined by CRT, and Python integers).
"""

from __future__ import annotations

import pytest

from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.runners.engine.search import SearchSettings
from puzzlebatch.runners.polyomino import large as L
from puzzlebatch.runners.polyomino import solver as RP
from tests.reference.tiling_classes_oracle import domino_tilings

ONE_ITEM = SearchSettings(budget=1 << 60, batch_size=1, frontier_target=1, first_batch_size=1)
TINY = SearchSettings(budget=500, batch_size=16, frontier_target=8, first_batch_size=1)  # many splits


def first_past(power: int, rows: int) -> tuple[int, int]:
    """The shortest rows x n rectangle with more than 2^power domino tilings."""
    n = 1
    while domino_tilings(rows, n) <= 1 << power:
        n += 1
    return rows, n


def test_the_oracle_agrees_with_published_values():
    # OEIS A004003 (2n x 2n) and A001835 (3 x 2n)
    assert [domino_tilings(2 * n, 2 * n) for n in range(1, 6)] == [2, 36, 6728, 12988816, 258584046368]
    assert [domino_tilings(3, 2 * n) for n in range(1, 6)] == [3, 11, 41, 153, 571]


@pytest.mark.parametrize("power", [14, 15, 16])
@pytest.mark.parametrize("settings", [ONE_ITEM, TINY], ids=["one item", "tiny items"])
def test_dfs_counts_past_small_powers(power, settings, cpu):
    m, n = first_past(power, 4)
    expected = domino_tilings(m, n)
    assert expected > 1 << power
    pk = P.build(P.parse_board(f"{n}x{m}"), S.load_pieces("dominoes", unlimited=True))
    r = RP.count_packing(pk, cpu, settings=settings, distinct=False)
    assert (r.solutions, r.complete) == (expected, True)
    rows = []
    RP.count_packing_run(pk, cpu, settings=settings if settings is TINY else None, sink=rows.append)
    assert sum(len(x) for x in rows) == expected


@pytest.mark.parametrize("power", [31, 32, 63, 64])
@pytest.mark.parametrize("method", ["crt", "bigint"])
def test_transfer_counts_past_large_powers(power, method, cpu):
    m, n = first_past(power, 8)
    expected = domino_tilings(m, n)
    pieces = S.load_pieces("dominoes", unlimited=True)
    assert L.count_strip(pieces, n, m, cpu, method).solutions == expected > 1 << power


@pytest.mark.parametrize("frontier", [(1 << 15) + 1, (1 << 16) + 1])
def test_frontiers_past_2_15_and_2_16_items(frontier, cpu):
    """The root expanded into more work items than an int16 (and a uint16) holds, all in one launch."""
    m, n = first_past(17, 4)
    expected = domino_tilings(m, n)
    pk = P.build(P.parse_board(f"{n}x{m}"), S.load_pieces("dominoes", unlimited=True))
    eng = RP.engine(pk.cover)
    settings = SearchSettings(budget=1 << 20, batch_size=1 << 17, frontier_target=frontier, first_batch_size=1)
    frontier_items = RP.BatchDFS(eng.problem, cpu, settings).expand(
        RP.Frontier.root(eng.problem), RP.SearchTotals(), frontier)
    assert len(frontier_items) > frontier - 1
    r = RP.count_packing(pk, cpu, settings=settings, distinct=False)
    assert (r.solutions, r.complete) == (expected, True)
