"""The hex board evaluation (``evaluation.board_eval``, ``evaluation.evaluate_placements``) against boards worked out by hand,
and the CPU drivers against the CUDA kernels (numba's simulator on CI) bit for bit.

Boards are drawn row by row, odd rows shifted half a cell to the right (RULES.md §1): ``#`` full, ``.`` empty."""

from __future__ import annotations

import random

import numpy as np
import pytest

from puzzlebatch.puzzles.hextris import evaluation, rules
from puzzlebatch.puzzles.hextris.encode import problem_tables
from puzzlebatch.puzzles.hextris.model import official_problem, parse_problem
from puzzlebatch.runners.hextris.playouts import Playouts
from tests.backends import GPU


def _problem(picture: str, units=([(0, 0)],), length: int = 5):
    rows = [r.split() for r in picture.strip("\n").splitlines()]
    filled = [{"x": x, "y": y} for y, r in enumerate(rows) for x, c in enumerate(r) if c == "#"]
    return parse_problem({"id": 900, "width": len(rows[0]), "height": len(rows), "sourceLength": length,
                          "sourceSeeds": [0], "filled": filled,
                          "units": [{"members": [{"x": x, "y": y} for x, y in u], "pivot": {"x": 0, "y": 0}}
                                    for u in units]})


# Holes, covered cells, wells, transitions, height and the spawn zone worked out by hand:
#
#   y0  .  #  .  .  .        reachable (a one-cell unit from the top row, moves E W SE SW): row 0: 0 2 3 4;
#   y1    .  #  #  #  .      row 1 (from row 0 even: x or x+1 above): 0 4; row 2 (from row 1 odd: x-1 or x above):
#   y2  #  #  .  .  #        none, cells 2 and 3 lie under (1,1) (2,1) (3,1); row 3 (from row 2: x or x+1): cell 1
#   y3    #  .  #  #  #      lies under (1,2) and the unreached (2,2).          -> holes 3: (2,2) (3,2) (1,3)
#
# covered (reachable, NW or NE full): (0,1), whose NE is (1,0).                 -> 1
# wells (reachable, W and E full or walls): (0,0) wall|(1,0); (0,1) wall|(1,1); (4,1) (3,1)|wall   -> 3
# row transitions, walls full: row 0 F.#...F 4, row 1 F.###.F 4, row 2 F##..#F 2, row 3 F#.###F 2 -> 12
# down transitions (each cell to SW and SE below, the floor full, nothing outside the columns):
#   row 0 -> 1: x1 # vs (0,1) .; x2 . vs (1,1) # (2,1) #; x3 . vs (2,1) # (3,1) #; x4 . vs (3,1) #     -> 6
#   row 1 -> 2: x0 . vs (0,2) # (1,2) #; x1 # vs (2,2) .; x2 # vs (2,2) . (3,2) .; x3 # vs (3,2) .;
#               x4 . vs (4,2) #                                                                       -> 7
#   row 2 -> 3: x1 # vs (1,3) .; x2 . vs (2,3) #; x3 . vs (2,3) # (3,3) #                              -> 4
#   row 3 -> floor: x1 . vs floor twice                                                                -> 2   = 19
# mass (each full cell's height above the floor): row 0: 1 cell x 4, row 1: 3 x 3, row 2: 3 x 2, row 3: 4 x 1 -> 23
# height: the highest full cell is in row 0 -> 4 rows
# spawn zone: a one-cell unit spawns at x = (5 - 1) // 2 = 2: columns 1..3, rows 0..1 (1 row + 1); the first
# full cell there is (1,0) in row 0 -> danger 2 - 0 = 2
# rows holding a hole: row 2 ((2,2) (3,2)) and row 3 ((1,3)) -> 2
# partial rows (k full cells of 5: k * (5 - k)): row 0: 1 * 4; row 1: 3 * 2; row 2: 3 * 2; row 3: 4 * 1  -> 20
BOARD_A = """
. # . . .
. # # # .
# # . . #
# . # # #
"""
EXPECTED_A = {evaluation.B_HOLES: 3, evaluation.B_COVERED: 1, evaluation.B_WELLS: 3, evaluation.B_ROW_TRANS: 12,
              evaluation.B_DOWN_TRANS: 19, evaluation.B_MASS: 23, evaluation.B_HEIGHT: 4, evaluation.B_DANGER: 2,
              evaluation.B_HOLE_ROWS: 2, evaluation.B_PARTIAL: 20}


def _expected(d: dict) -> list[int]:
    return [d[k] for k in range(evaluation.N_BOARD)]


def _plain_eval(problem) -> list[int]:
    """``evaluation.board_eval`` run as plain Python on lists (the initial board of the problem)."""
    tab = [int(v) for v in problem_tables(problem)]
    nw = tab[rules.H_NW]
    board = [tab[tab[rules.H_BOARD0] + k] for k in range(problem.height * nw)]
    feats = [0] * evaluation.N_BOARD
    evaluation.board_eval(board, tab, feats, [0] * (2 * nw))
    return feats


def test_board_features_of_a_hand_drawn_board(cpu):
    p = _problem(BOARD_A)
    sim = Playouts([p], cpu)
    games = sim.new_games([0])
    assert sim.board_features(games.boards).tolist() == [_expected(EXPECTED_A)]
    assert _plain_eval(p) == _expected(EXPECTED_A)


# A shelf: the cells under it can only be reached around its ends.
#
#   y0  .  .  .  .  .  .      row 1 (from row 0, even: x or x+1): 0 and 5 from above, nothing else (1..4 full)
#   y1    .  #  #  #  #  .    row 2 (from row 1, odd: x-1 or x): 0 (from 0), 5 (from 5), then 1..4 along the row:
#   y2  .  .  .  .  .  .      all reached -> holes 0
# covered: (1,2) NW (0,1) . NE (1,1) #; (2,2) (1,1) (2,1); (3,2); (4,2) NW (3,1) NE (4,1); (5,2) NW (4,1) #
#   -> (1,2) .. (5,2): 5                wells: (0,1) between the wall and (1,1), (5,1) between (4,1) and the wall -> 2
# row transitions: 2 + 4 + 2 = 8; down transitions: row 0 (even, SW x-1 SE x): x1 (0,1) . (1,1) #: 1; x2: 2;
#   x3: 2; x4: 2; x5: (4,1) # (5,1) .: 1 -> 8; row 1 (odd, SW x SE x+1): x0 . vs (0,2) . (1,2) .: 0; x1..x4 #
#   over empty cells: 2 each (x4: (4,2) (5,2)) -> 8; row 2 -> floor: x0 SE only (SW outside): 1, x1..x5: 2 each
#   -> 11; total 27.  mass: 4 cells in row 1, 2 rows above the floor: 8.  height: row 1 -> 3 - 1 = 2.  spawn zone: columns 1..3 (x = 2 for width 6), rows 0..1:
#   (1,1) -> danger 2 - 1 = 1.  partial rows: row 1, 4 full of 6: 4 * 2 -> 8
BOARD_B = """
. . . . . .
. # # # # .
. . . . . .
"""
EXPECTED_B = {evaluation.B_HOLES: 0, evaluation.B_COVERED: 5, evaluation.B_WELLS: 2, evaluation.B_ROW_TRANS: 8,
              evaluation.B_DOWN_TRANS: 27, evaluation.B_MASS: 8, evaluation.B_HEIGHT: 2, evaluation.B_DANGER: 1,
              evaluation.B_HOLE_ROWS: 0, evaluation.B_PARTIAL: 8}


def test_board_features_under_a_shelf(cpu):
    p = _problem(BOARD_B)
    assert Playouts([p], cpu).board_features(Playouts([p], cpu).new_games([0]).boards).tolist() == \
        [_expected(EXPECTED_B)]
    assert _plain_eval(p) == _expected(EXPECTED_B)


# Rows with holes, apart from the holes themselves: a lid over row 1 but for its east end.
#
#   y0  .  .  .  .  .        row 0: all reached.  row 1 (odd: from x or x+1 above): x4 from (4,0) -> reached.
#   y1    #  #  #  #  .      row 2 (even: from x-1 or x above): x0 under (0,1) #; x2 under (1,1) # (2,1) #;
#   y2  .  #  .  .  #        x3 under (2,1) # (3,1) #; the run along the row starts nowhere -> none reached.
#   y3    #  .  #  .  #      row 3 (odd: from x or x+1 above): x1 under (1,2) # and the unreached (2,2); x3
#                            under the unreached (3,2) and (4,2) # -> none reached.
# holes: (0,2) (2,2) (3,2) (1,3) (3,3) -> 5, in two rows -> hole rows 2
# partial rows (k of 5 full: k * (5 - k)): row 0 empty 0; row 1 4 * 1; row 2 2 * 3; row 3 3 * 2 -> 16
BOARD_C = """
. . . . .
# # # # .
. # . . #
# . # . #
"""


def test_rows_with_holes_count_each_row_once(cpu):
    p = _problem(BOARD_C)
    sim = Playouts([p], cpu)
    f = sim.board_features(sim.new_games([0]).boards)[0]
    assert (f[evaluation.B_HOLES], f[evaluation.B_HOLE_ROWS], f[evaluation.B_PARTIAL]) == (5, 2, 16)
    g = _plain_eval(p)
    assert (g[evaluation.B_HOLES], g[evaluation.B_HOLE_ROWS], g[evaluation.B_PARTIAL]) == (5, 2, 16)


def test_evaluated_placement_clears_its_row(cpu):
    """A one-cell unit on ``. . . .`` / `` . . . .`` / ``# # . #``: locking it at (2, 2) fills the bottom row,
    which is cleared: 1 + 100 move points, one line, and an empty board is left (row transitions 2 per row: 6;
    down transitions: the bottom row's empty cells over the floor, x0 once (its SW is outside), x1..x3 twice: 7;
    everything else 0)."""
    p = _problem("""
. . . .
. . . .
# # . #
""")
    sim = Playouts([p], cpu)
    games = sim.new_games([0])
    places, feats, counts = sim.evaluate(games)
    rows = [tuple(r) for r in places[0, : counts[0]].tolist()]
    f = feats[0, rows.index((2, 2, 0))]
    assert f[evaluation.C_POINTS] == 101 and f[evaluation.C_PLACE + rules.F_LINES] == 1
    assert f[evaluation.C_BOARD:].tolist() == _expected({evaluation.B_HOLES: 0, evaluation.B_COVERED: 0, evaluation.B_WELLS: 0,
                                                    evaluation.B_ROW_TRANS: 6, evaluation.B_DOWN_TRANS: 7, evaluation.B_MASS: 0,
                                                    evaluation.B_HEIGHT: 0, evaluation.B_DANGER: 0,
                                                    evaluation.B_HOLE_ROWS: 0, evaluation.B_PARTIAL: 0})
    # every candidate's board features are those of the board its placement leaves (placed by the kernel)
    for k, place in enumerate(rows):
        child = games.take([0])
        sim.run_placements(child, np.array(place)[None, None, :], record=False)
        assert child.move_scores[0] == feats[0, k, evaluation.C_POINTS]
        assert sim.board_features(child.boards)[0].tolist() == feats[0, k, evaluation.C_BOARD:].tolist()


def _cells(tab, u, place) -> frozenset:
    x, y, rot = place
    return frozenset(rules.member_cell(tab, u, rot, m, x - (y >> 1), y) for m in range(tab[tab[rules.H_SIZE] + u]))


@pytest.mark.parametrize("pid", [18, 24])  # units whose pivot lies outside them: one cell, six pivot positions
def test_candidates_are_the_lockable_positions_one_per_cell_set(cpu, pid):
    """``evaluate`` lists the lockable positions of ``lockable`` that lock distinct cells, the first of each in
    BFS order, with the same placement features, on real boards mid-game."""
    p = official_problem(pid)
    tab = [int(v) for v in problem_tables(p)]
    sim = Playouts([p], cpu)
    games = sim.new_games([p.source_seeds[0]] * 3)
    sim.run_commands(games, ["", "llllllll", "aaaaaaaaaalllll"])
    places, feats, counts = sim.evaluate(games)
    for g, (pl, f) in enumerate(sim.lockable(games)):
        u = int(games.states[g, rules.S_UNIT])
        first = {}
        for k, place in enumerate(pl.tolist()):
            first.setdefault(_cells(tab, u, place), k)
        keep = sorted(first.values())
        assert counts[g] == len(keep) > 0
        assert np.array_equal(places[g, : counts[g]], pl[keep])
        assert np.array_equal(feats[g, : counts[g], evaluation.C_PLACE:evaluation.C_BOARD], f[keep])
    if pid == 18:  # its first unit is a cell with the pivot outside: positions lock the same cells
        assert counts.sum() < sum(len(pl) for pl, _ in sim.lockable(games))


@pytest.mark.parametrize("pid", [14, 18, 24])
def test_candidate_features_are_those_of_the_boards_left(cpu, pid):
    """The evaluation reuses the rows a lock leaves unchanged: every candidate's features must still be those of
    the board its placement leaves (placed by the kernel, evaluated whole), line clears included, mid-game."""
    p = official_problem(pid)
    sim = Playouts([p], cpu)
    games = sim.new_games([p.source_seeds[0]] * 2)
    # two mid-game boards: the greedy policy's, and one filled from the top (depth alone, negated)
    sim.run_policy(games, np.array([[10000, 10, 6, -12, 4], [0, -1, 0, 0, 0]]), max_units=25, record=False)
    places, feats, counts = sim.evaluate(games)
    rows = [(g, k) for g in range(len(games)) for k in range(counts[g])]
    children = games.take([g for g, _ in rows])
    sim.run_placements(children, np.array([places[g, k] for g, k in rows])[:, None, :], record=False)
    got = np.array([feats[g, k] for g, k in rows])
    assert np.array_equal(got[:, evaluation.C_POINTS], children.move_scores - games.move_scores[[g for g, _ in rows]])
    assert np.array_equal(got[:, evaluation.C_BOARD:], sim.board_features(children.boards))
    assert len(rows) > 50


@pytest.mark.gpu
def test_evaluation_is_bit_identical_on_cuda(cpu, gpu):
    """Random mid-game boards of a small board, a hand-drawn board and a 66-column board (two words a row, full
    cells on both sides of bit 63)."""
    from puzzlebatch.config import launch
    from tests.test_hextris_gpu_sim import _tiny

    wide = "\n".join(" ".join("#" if (x * 7 + y * 3) % 5 == 0 or (y == 3 and x in (62, 63, 64)) else "."
                               for x in range(66)) for y in range(4))
    ps = [_tiny(), _problem(BOARD_A), _problem(wide, units=([(0, 0), (1, 0)],))]
    rng = random.Random(5)
    n = 2 * launch.threads_per_block + 3
    prob = [rng.randrange(3) for _ in range(n)]
    seeds = [ps[k].source_seeds[0] for k in prob]
    moves = ["".join(rng.choice("aallbp") for _ in range(rng.randint(0, 12))) for _ in range(n)]
    out = []
    for backend in (cpu, gpu):
        sim = Playouts(ps, backend)
        games = sim.new_games(seeds, prob)
        sim.run_commands(games, moves)
        places, feats, counts = sim.evaluate(games, cap=64)
        out.append((places, feats, counts, sim.board_features(games.boards, games.prob)))
    assert gpu.name == GPU
    for a, b in zip(*out):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert out[0][2].sum() > 0
