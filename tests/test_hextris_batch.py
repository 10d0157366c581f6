"""Batch playouts (numba CPU) against the scalar Python model, game by game and cell by cell."""

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzlebatch.puzzles.hextris import rules
from puzzlebatch.puzzles.hextris.model import END_NAMES, Game, decode, play, to_axial
from puzzlebatch.runners.hextris.playouts import GREEDY_WEIGHTS, Playouts, solution_strings
from tests.hextris_helpers import problems, random_solution

PROBLEMS = [0, 2, 6, 10, 13, 14, 21, 24]  # small, wide (24: 100 columns, two words a row), filled boards, big units


def _compare(problem, games, i, game: Game):
    s = games.states[i]
    assert END_NAMES[s[rules.S_END]] == END_NAMES[game.end]
    assert s[rules.S_SCORE] == game.move_score
    assert s[rules.S_LOCKED] == game.units_locked
    assert games.board_cells(i, problem) == game.filled
    if game.end == 0:
        assert s[rules.S_UNIT] == game.unit_index
        assert to_axial(*game.pivot) == (s[rules.S_PQ], s[rules.S_PR])
        assert game.position_id()[2] == s[rules.S_ROT] % problem.units[game.unit_index].symmetry()


@pytest.mark.parametrize("pid", PROBLEMS)
def test_random_command_strings_match_the_scalar_model(pid, cpu):
    p = problems()[pid]
    rng = random.Random(pid)
    seeds = [rng.choice(p.source_seeds) for _ in range(12)]
    sols = [random_solution(rng, rng.randint(1, 400), down_bias=rng.choice([0.5, 0.7, 0.9])) for _ in seeds]
    sim = Playouts([p], cpu)
    games = sim.new_games(seeds)
    sim.run_commands(games, sols)
    for i, (seed, sol) in enumerate(zip(seeds, sols)):
        _compare(p, games, i, play(p, seed, sol))


def test_commands_in_several_calls_equal_one_call(cpu):
    p = problems()[6]
    rng = random.Random(1)
    sol = random_solution(rng, 600, down_bias=0.8, mixed_case=False).replace("\n", "").replace("\t", "") \
        .replace("\r", "")
    sim = Playouts([p], cpu)
    one = sim.new_games([0])
    sim.run_commands(one, [sol])
    parts = sim.new_games([0])
    for a, b in [(0, 100), (100, 101), (101, 600)]:
        sim.run_commands(parts, [sol[a:b]])
    assert np.array_equal(one.states, parts.states) and np.array_equal(one.boards, parts.boards)


def test_games_of_several_problems_in_one_batch(cpu):
    ps = [problems()[i] for i in (24, 0, 13)]
    rng = random.Random(2)
    sim = Playouts(ps, cpu)
    prob = [0, 1, 2, 1, 0]
    seeds = [ps[k].source_seeds[0] for k in prob]
    sols = [random_solution(rng, 300, down_bias=0.8) for _ in prob]
    games = sim.new_games(seeds, prob)
    sim.run_commands(games, sols)
    for i, k in enumerate(prob):
        _compare(ps[k], games, i, play(ps[k], seeds[i], sols[i]))


@pytest.mark.parametrize("pid", [6, 2, 24, 10])
def test_greedy_policy_commands_replay_to_the_same_game(pid, cpu):
    p = problems()[pid]
    seeds = list(p.source_seeds[:3])
    sim = Playouts([p], cpu)
    games = sim.new_games(seeds)
    codes = sim.run_policy(games, GREEDY_WEIGHTS)
    for i, (seed, sol) in enumerate(zip(seeds, solution_strings(codes))):
        assert len(codes[i]) == games.commands[i]
        game = play(p, seed, sol)
        assert game.end in (1, 2), "the policy plays to the end without an error"
        _compare(p, games, i, game)


def test_policy_in_steps_equals_policy_at_once(cpu):
    p = problems()[2]
    sim = Playouts([p], cpu)
    once = sim.new_games([p.source_seeds[1]])
    all_codes = sim.run_policy(once, GREEDY_WEIGHTS)[0]
    steps = sim.new_games([p.source_seeds[1]])
    parts = []
    while steps.ends[0] == 0:
        parts.append(sim.run_policy(steps, GREEDY_WEIGHTS, max_units=7)[0])
    assert np.array_equal(np.concatenate(parts), all_codes)
    assert np.array_equal(once.states, steps.states)


def test_population_of_weights_one_row_per_game(cpu):
    p = problems()[6]
    sim = Playouts([p], cpu)
    weights = np.array([GREEDY_WEIGHTS, [0, 0, 0, 0, 0], [0, 1, 0, 0, 0]], dtype=np.int64)
    games = sim.new_games([0, 0, 0])
    codes = sim.run_policy(games, weights, record=False)
    assert all(len(c) == 0 for c in codes) and (games.commands > 0).all()
    single = sim.new_games([0])
    sim.run_policy(single, weights[2])
    assert np.array_equal(single.states[0], games.states[2])


def _lock_targets(p, seed, solution):
    """(pivot x, pivot y, rot) where each unit of a replayed solution locked, from the scalar model."""
    game = Game(p, seed)
    targets = []
    for c in decode(solution):
        before = game.units_locked
        where = game.position_id()
        game.step(c)
        if game.units_locked > before:
            targets.append(where)
    return targets, game


@pytest.mark.parametrize("pid", [6, 13, 24])
def test_placements_reproduce_the_policys_games(pid, cpu):
    p = problems()[pid]
    seed = p.source_seeds[0]
    sim = Playouts([p], cpu)
    ref = sim.new_games([seed])
    codes = sim.run_policy(ref, GREEDY_WEIGHTS, max_units=40)
    targets, _ = _lock_targets(p, seed, solution_strings(codes)[0])
    games = sim.new_games([seed, seed])
    got = sim.run_placements(games, (np.array([targets, targets]), [len(targets), 5]))
    assert np.array_equal(got[0], codes[0]), "same BFS, same shortest paths, same lock commands"
    assert np.array_equal(games.states[0], ref.states[0]) and np.array_equal(games.boards[0], ref.boards[0])
    assert games.units_locked[1] == 5


def test_unreachable_placement_is_an_error(cpu):
    from puzzlebatch.puzzles.hextris.model import parse_problem

    # a one-cell unit above a full row 2: (2, 4) is empty and lockable but out of reach; (9, 0) is off the board
    p = parse_problem({"id": 1, "width": 5, "height": 5, "sourceLength": 2, "sourceSeeds": [0],
                       "filled": [{"x": x, "y": 2} for x in range(5)],
                       "units": [{"members": [{"x": 0, "y": 0}], "pivot": {"x": 0, "y": 0}}]})
    sim = Playouts([p], cpu)
    games = sim.new_games([0, 0, 0])
    sim.run_placements(games, np.array([[[2, 4, 0]], [[9, 0, 0]], [[3, 1, 0]]]))
    assert games.end_names == ["error_unreachable_placement"] * 2 + ["in_progress"]
    assert games.units_locked[2] == 1


def test_recorded_commands_survive_a_too_small_buffer(cpu, monkeypatch):
    p = problems()[2]
    sim = Playouts([p], cpu)
    ref = sim.new_games([0, 1])
    expected = sim.run_policy(ref, GREEDY_WEIGHTS, max_units=10)
    monkeypatch.setattr(sim, "_cap", lambda games, record, max_units=-1: 3)  # far too small: the batch is replayed
    games = sim.new_games([0, 1])
    got = sim.run_policy(games, GREEDY_WEIGHTS, max_units=10)
    assert all(np.array_equal(a, b) for a, b in zip(got, expected))
    assert np.array_equal(games.states, ref.states) and np.array_equal(games.boards, ref.boards)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.text(alphabet="pbalDK' \t!", max_size=120))
def test_any_seed_and_command_text_matches_the_scalar_model(seed, text):
    """Property: for any seed (even one not in the problem) and any text over commands and ignored characters,
    the batch kernel ends in the scalar model's state."""
    p = problems()[0]
    sim = _property_sim(p)
    games = sim.new_games([seed])
    sim.run_commands(games, [text])
    _compare(p, games, 0, play(p, seed, text))


_SIMS = {}


def _property_sim(p):
    from puzzlebatch.runners.engine.backend import select_backend

    if p.id not in _SIMS:
        _SIMS[p.id] = Playouts([p], select_backend("cpu"))
    return _SIMS[p.id]


def _oracle_lockable(game: Game) -> set:
    """Plain-Python BFS over the scalar model's positions: the (pivot x, y, rot) ids where the unit can lock
    without repeating a position (those the unit visited since its last downward move are out of bounds)."""
    start = (game.pivot, game.members)
    seen, queue, found = {start} | set(game.visited), [start], set()
    for pos in queue:
        game.pivot, game.members = pos
        locks = False
        for c in range(6):
            nxt = game.moved(c)
            if not game.valid(nxt[1]):
                locks = True
            elif nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
        if locks:
            found.add(game.position_id())
    game.pivot, game.members = start
    return found


@pytest.mark.parametrize("pid", [6, 2, 16])
def test_lockable_positions_match_a_python_bfs_and_the_policys_choice(pid, cpu):
    p = problems()[pid]
    sim = Playouts([p], cpu)
    seeds = list(p.source_seeds[:3])
    games = sim.new_games(seeds)
    codes = sim.run_policy(games, GREEDY_WEIGHTS, max_units=12)
    listed = sim.lockable(games)
    for i, seed in enumerate(seeds):
        places, feats = listed[i]
        game = play(p, seed, solution_strings([codes[i]])[0])
        assert {tuple(map(int, r)) for r in places} == _oracle_lockable(game)
        assert len(places) == len({tuple(r) for r in places}), "each position listed once"
        # the policy locks at the first best-valued place of the list
        best = int(np.argmax(feats @ GREEDY_WEIGHTS))
        a, b = games.take([i]), games.take([i])
        sim.run_policy(a, GREEDY_WEIGHTS, max_units=1)
        sim.run_placements(b, places[best][None, None, :])
        assert np.array_equal(a.states, b.states) and np.array_equal(a.boards, b.boards)


def test_every_listed_place_can_be_played(cpu):
    p = problems()[2]
    sim = Playouts([p], cpu)
    games = sim.new_games([p.source_seeds[0]])
    sim.run_policy(games, GREEDY_WEIGHTS, max_units=5)
    places, _ = sim.lockable(games, cap=4)[0]  # too small a buffer: listed again with room for all
    assert len(places) > 4
    branches = games.take(np.zeros(len(places), np.int64))
    sim.run_placements(branches, places[:, None, :])
    assert set(branches.end_names) <= {"in_progress", "spawn_blocked", "out_of_units"}, "no placement errs"
    assert (branches.units_locked == games.units_locked[0] + 1).all()


@pytest.mark.parametrize("prefix", ["ppp", "bbbb", "lpp", "aaabb"])
def test_policy_and_lockable_from_the_middle_of_a_unit(prefix, cpu):
    """After arbitrary moves the unit must not pass again where it has been since its last downward move."""
    p = problems()[6]
    sim = Playouts([p], cpu)
    games = sim.new_games([0])
    sim.run_commands(games, [prefix])
    assert games.end_names == ["in_progress"]
    places, _ = sim.lockable(games)[0]
    game = play(p, 0, prefix)
    assert {tuple(map(int, r)) for r in places} == _oracle_lockable(game)
    codes = sim.run_policy(games, GREEDY_WEIGHTS)[0]
    replay = play(p, 0, prefix + solution_strings([codes])[0])
    assert replay.end == 1 and games.end_names == ["out_of_units"]
    _compare(p, games, 0, replay)
