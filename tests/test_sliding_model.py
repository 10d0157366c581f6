"""Sliding puzzles: parsing, goals, solvability by parity (against the explicit graph), moves, ranks."""

import math
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.sliding import rules
from puzzlebatch.puzzles.sliding.model import Board, goal_board, move_blank, move_tile, parse_board, \
    read_instances, replay, solvability, to_blank_first
from puzzlebatch.runners.sliding.solver import factorials
from tests.reference import sliding_oracle

DATA = Path(__file__).resolve().parent.parent / "puzzlebatch" / "data" / "sliding"
SHARED = Path("/work/shared/data/sliding")


@pytest.fixture(scope="module")
def oracle_3x3():
    graph = sliding_oracle.explicit_graph(3, 3)
    return {kind: sliding_oracle.dijkstra(graph, sliding_oracle.goal(3, 3, kind))
            for kind in ("blank-last", "blank-first")}


@pytest.mark.parametrize("text, message", [
    ("1 2 3 4 5 6 7 8", "8 tiles is not a square"),
    ("1 2 3 4 5 6 7 7 0", "tile 7 appears twice (positions 7 and 8)"),
    ("1 2 3 4 5 6 7 9 0", "tile 9 at position 8 is out of range 0..8"),
    ("1 2 3 x 5 6 7 8 0", "'x' is not a tile number"),
    ("", "no tiles given"),
])
def test_malformed_boards_are_one_line_errors(text, message):
    with pytest.raises(PuzzleInputError) as exc:
        parse_board(text, where="TILES")
    assert message in str(exc.value) and "TILES" in str(exc.value) and "\n" not in str(exc.value)


def test_grids_and_sizes():
    b = parse_board("1 2 3 4\n5 6 7 0\n9 10 11 8")
    assert (b.rows, b.cols) == (3, 4) and b.blank == 7
    assert parse_board("1 2 3 0 5 4", (2, 3)).cols == 3
    assert parse_board("1 2 3 . 5 6 7 8 4").blank == 3
    with pytest.raises(PuzzleInputError, match="6 tiles given for a 3x3"):
        parse_board("1 2 3 0 5 4", (3, 3))


def test_packaged_data_is_the_shared_data_and_reads():
    korf = read_instances(DATA / "korf100.txt")
    assert len(korf) == 100 and all((b.rows, b.cols) == (4, 4) for b, _ in korf)
    lengths = [n for _, n in korf]
    assert (min(lengths), max(lengths)) == (41, 66)  # the data README: optimal lengths 41..66
    k24 = read_instances(DATA / "korf24_50.txt")
    assert len(k24) == 50 and (min(n for _, n in k24), max(n for _, n in k24)) == (81, 114)
    assert abs(sum(n for _, n in k24) / 50 - 100.78) < 1e-9  # README: mean 100.78
    if SHARED.exists():
        for name in ("korf100.txt", "korf24_50.txt", "README.md"):
            assert (DATA / name).read_bytes() == (SHARED / name).read_bytes()


def test_instance_file_errors(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 2 3 4 5 6 7 8 0\n1 2 3\n")
    with pytest.raises(PuzzleInputError, match=r"bad.txt:2: 3 numbers"):
        read_instances(bad)
    with pytest.raises(PuzzleInputError, match="cannot read"):
        read_instances(tmp_path / "missing.txt")


@pytest.mark.parametrize("rows, cols", [(2, 2), (2, 3), (3, 2)])
def test_parity_matches_reachability_everywhere(rows, cols):
    for kind in ("blank-last", "blank-first"):
        dist = sliding_oracle.distances(rows, cols, kind)
        goal = goal_board(rows, cols, kind)
        for state, d in dist.items():
            ok, why = solvability(Board(rows, cols, state), goal)
            assert ok == (d != math.inf), (state, kind, why)
        assert sum(d != math.inf for d in dist.values()) == math.factorial(rows * cols) // 2


def test_parity_matches_reachability_3x3(oracle_3x3):
    rng = random.Random(6)
    states = rng.sample(sorted(oracle_3x3["blank-last"]), 3000)
    for kind, dist in oracle_3x3.items():
        goal = goal_board(3, 3, kind)
        for s in states:
            assert solvability(Board(3, 3, s), goal)[0] == (dist[s] != math.inf)


def test_loyd_examples_are_explained():
    # The document's example (part 3.4): tiles 7 and 8 swapped, blank last.
    ok, why = solvability(parse_board("1 2 3 4 5 6 8 7 0"), goal_board(3, 3))
    assert not ok and why.startswith("unsolvable: 1 inversions (odd permutation")
    # Loyd's 14-15 puzzle: unsolvable; even width, so the blank row is part of the invariant.
    loyd = parse_board("1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0")
    ok, why = solvability(loyd, goal_board(4, 4))
    assert not ok and "blank on row 3" in why and "even width" in why


def test_blank_first_view_keeps_distances(oracle_3x3):
    rng = random.Random(3)
    for s in rng.sample(sorted(oracle_3x3["blank-last"]), 300):
        b = Board(3, 3, s)
        assert oracle_3x3["blank-last"][s] == oracle_3x3["blank-first"][to_blank_first(b, "blank-last").tiles]
    assert to_blank_first(goal_board(4, 4), "blank-last") == goal_board(4, 4, "blank-first")


def test_moves_by_tile_and_direction():
    b = parse_board("1 2 3 4 5 6 7 0 8")
    nb, tile = move_blank(b, "R")
    assert tile == 8 and nb == goal_board(3, 3)
    assert move_tile(b, 8) == nb
    with pytest.raises(PuzzleInputError, match="cannot move that way"):
        move_blank(b, "D")
    with pytest.raises(PuzzleInputError, match="not next to the blank"):
        move_tile(b, 1)
    assert replay(b, ["U", 5, "R"])[-1] == goal_board(3, 3)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([(2, 2), (2, 3), (3, 3), (3, 4), (2, 5), (2, 6)]), st.randoms(use_true_random=False))
def test_rank_is_a_bijection_onto_the_class(size, rng):
    rows, cols = size
    n = rows * cols
    fact = factorials(n)
    tiles = list(range(n))
    rng.shuffle(tiles)
    board = np.array(tiles, np.int64)
    cls = rules.state_class(board, n, cols)
    r = rules.rank_state(board, n, fact)
    assert 0 <= r < math.factorial(n) // 2
    out = np.zeros(n, np.int64)
    rules.unrank_state(r, n, cols, cls, fact, out, np.zeros(n, np.int64))
    assert out.tolist() == tiles


def test_rank_is_perfect_on_2x3():
    n, fact = 6, factorials(6)
    for cls in (0, 1):
        seen = set()
        for r in range(360):
            b = np.zeros(n, np.int64)
            rules.unrank_state(r, n, 3, cls, fact, b, np.zeros(n, np.int64))
            assert rules.state_class(b, n, 3) == cls and rules.rank_state(b, n, fact) == r
            seen.add(tuple(b))
        assert len(seen) == 360
