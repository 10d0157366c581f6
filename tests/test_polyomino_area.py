"""A board the pieces cannot fill by their sizes alone is answered at once (a count of 0, no solution), with the
reason, instead of after a whole search; the area test against a brute-force oracle and the search itself.  A count
by search that Knuth's estimate puts at hours says so first, with the way that does not search."""

import itertools
import json
import random

import pytest

from puzzlebatch.api import polyomino as api
from puzzlebatch.cli import main
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.runners.polyomino import solver as RP


def _reachable_by_brute_force(pieces, cells):
    """Every number of copies of every piece tried (UNLIMITED: as many as fit)."""
    ranges = [range((cells // size if n == S.UNLIMITED else n) + 1) for size, n in pieces]
    return any(sum(k * size for k, (size, _) in zip(ks, pieces)) == cells for ks in itertools.product(*ranges))


def test_the_area_test_agrees_with_every_choice_of_copies():
    rng = random.Random(7)
    for _ in range(300):
        pieces = [(rng.randint(1, 7), rng.choice([0, 1, 2, 3, S.UNLIMITED])) for _ in range(rng.randint(1, 4))]
        cells = rng.randint(0, 40)
        gap = S.fill_gap(pieces, cells)
        assert (gap is None) == _reachable_by_brute_force(pieces, cells), (pieces, cells, gap)


def test_the_reason_names_the_cells():
    assert S.fill_gap([(5, 12)], 64) == ("the pieces cover 60 cells, fewer than the 64 to fill: no packing fills "
                                         "the board")
    assert "sizes 4" in S.fill_gap([(4, S.UNLIMITED)], 49) and "nearest below: 48" in S.fill_gap(
        [(4, S.UNLIMITED)], 49)
    assert S.fill_gap([(5, S.UNLIMITED)], 1_000_000) is None  # a million cells: a few dozen shifts
    assert S.fill_gap([(4, 3), (4, 2)], 20) is None  # copies of one size add up


@pytest.mark.parametrize("board, pieces, copies", [("3x3", "trominoes", None), ("3x5", "tetrominoes", None),
                                                   ("5x5", "tetrominoes", 2)])
def test_the_answer_at_once_is_the_searchs(board, pieces, copies, monkeypatch):
    """The same count (0) with and without the area test; without it the search walks a tree."""
    quick = api.count(board, pieces, copies=copies, backend="cpu")
    assert quick.solutions == 0 and quick.nodes == 0 and quick.complete and "no packing fills" in quick.note
    monkeypatch.setattr(RP, "area_gap", lambda pk: None)
    searched = api.count(board, pieces, copies=copies, backend="cpu")
    assert searched.solutions == 0 and searched.complete and "no packing fills" not in (searched.note or "")


def test_count_and_solve_of_eight_by_eight_with_the_pentominoes(capsys, tmp_path):
    """60 cells of pieces on 64: a count said 0 after 30 million nodes, a solve 'no solution' after 43 million."""
    assert main(["polyomino", "count", "--board", "8x8", "--pieces", "pentominoes", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["solutions"], doc["nodes"], doc["complete"]) == (0, 0, True)
    assert "60 cells, fewer than the 64" in doc["note"]
    out = tmp_path / "all.h5"
    assert main(["polyomino", "count", "--board", "8x8", "--pieces", "pentominoes", "--all", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "no packing fills the board" in said and "draw one" not in said  # no solution to draw
    assert main(["show", str(out), "--run", "polyomino-enumerate-0000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == 0
    assert main(["polyomino", "solve", "--board", "8x8", "--pieces", "pentominoes"]) == 1
    out = capsys.readouterr().out.strip()
    assert out == "no solution: the pieces cover 60 cells, fewer than the 64 to fill: no packing fills the board"
    assert main(["polyomino", "solve", "--board", "8x8", "--pieces", "pentominoes", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["solved"] is False and doc["nodes"] == 0 and "fewer than the 64" in doc["note"]


def test_a_board_the_sizes_can_fill_is_searched_as_before(monkeypatch):
    """Pieces left over (4x5 takes four of the twelve pentominoes): no note, the same count as without the test."""
    r = api.count("4x5", "pentominoes", backend="cpu")
    assert r.solutions > 0 and r.nodes > 0 and "no packing fills" not in (r.note or "")
    monkeypatch.setattr(RP, "area_gap", lambda pk: None)
    again = api.count("4x5", "pentominoes", backend="cpu")
    assert (again.solutions, again.distinct, again.nodes) == (r.solutions, r.distinct, r.nodes)


def test_a_count_of_hours_points_to_the_transfer_matrix_first(capsys, monkeypatch):
    """10x10 by unlimited dominoes: the search is estimated far over the limit, said before it starts (the search
    itself is replaced here: it would take hours); the transfer matrix gives the published number of tilings
    (258,584,046,368; OEIS A004003)."""
    est = api.search_estimate("10x10", "dominoes", unlimited=True)
    assert est > 1e10

    class Started(Exception):
        pass

    def count(*args, **kwargs):
        raise Started

    with monkeypatch.context() as m:
        m.setattr(api, "count", count)
        with pytest.raises(Started):
            main(["polyomino", "count", "--board", "10x10", "--pieces", "dominoes", "--unlimited"])
    err = capsys.readouterr().err
    assert "estimated at" in err and "--method transfer" in err, err
    assert main(["polyomino", "count", "--board", "10x10", "--pieces", "dominoes", "--unlimited", "--method",
                 "transfer", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["solutions"] == 258_584_046_368
    # small enough to search: no word about it
    assert main(["polyomino", "count", "--board", "4x4", "--pieces", "dominoes", "--unlimited"]) == 0
    said = capsys.readouterr()
    assert "estimated at" not in said.err and "36 solutions" in said.out  # A004003: 36 tilings of 4x4


def test_the_hint_costs_a_bounded_walk(capsys, monkeypatch):
    """The estimate before a count walks a few paths down the top levels without the dead-region test (its cost
    bounded on long strips: a whole path through 1x2000 is a thousand moves), and is not made at all above the
    band size, where building the tables twice would cost seconds; a backend that cannot run is said first."""
    calls = []

    class Started(Exception):
        pass

    def count(*args, **kwargs):
        raise Started

    def estimate(*args, **kwargs):
        calls.append((args, kwargs))
        return 0.0

    monkeypatch.setattr(api, "count", count)
    monkeypatch.setattr(api, "search_estimate", estimate)
    for board in ("1x2000", "60x60"):
        with pytest.raises(Started):
            main(["polyomino", "count", "--board", board, "--pieces", "dominoes", "--unlimited", "--backend", "cpu"])
    assert len(calls) == 1 and calls[0][0][0] == "1x2000"
    assert calls[0][1]["depth"] == 64 and calls[0][1]["probes"] == 16 and calls[0][1]["prune"] is False
    assert 60 * 60 > api.BAND_AUTO_CELLS >= 2000
    capsys.readouterr()


def test_a_walk_cut_at_a_depth_estimates_the_top_of_the_tree():
    """One path, the same random moves: cut at depth 5 it sums the first five levels' products of the whole
    walk's, so no more; cut at the goal it is the whole walk."""
    pk = api.packing_of("6x6", "dominoes", unlimited=True)
    eng = RP.engine(pk.cover, RP.default_branch(pk), False)
    whole = RP.estimate_nodes(eng, 1)
    assert 0 < RP.estimate_nodes(eng, 1, depth=5) < whole == RP.estimate_nodes(eng, 1, depth=eng.enc.goal)
