"""The searching phrase weaver (``weave_search``): legal strings that lock every unit where planned, at least the
greedy weaver's power on fixed small games, and the best phrase count on a tiny board found by brute force.

The oracle is the scalar model (``model.play``/``score_solution``) and, for the tiny board, an exhaustive walk of
every legal command sequence through ``rules.step``."""

from __future__ import annotations

import random

import numpy as np
import pytest

from puzzlebatch.puzzles.hextris import rules
from puzzlebatch.puzzles.hextris.encode import problem_tables
from puzzlebatch.puzzles.hextris.model import load_phrases, official_problem, parse_problem, play, score_solution
from puzzlebatch.runners.hextris.phrases import plain_game, placements_of, weave
from puzzlebatch.runners.hextris.playouts import GREEDY_WEIGHTS, Playouts
from puzzlebatch.runners.hextris.player import GamePlan, spell
from puzzlebatch.runners.hextris.weave_search import weave_search


def _placements(sim, seed, n_units, rng=None):
    """Placements from the kernel's lockable list (greedy, or at random with ``rng``), and the game after them."""
    g = sim.new_games([seed])
    out = []
    while g.ends[0] == 0 and len(out) < n_units:
        pl, f = sim.lockable(g)[0]
        k = rng.randrange(len(pl)) if rng else int(np.argmax(f @ GREEDY_WEIGHTS))
        out.append(tuple(int(v) for v in pl[k]))
        sim.run_placements(g, pl[k][None, None, :], record=False)
    return out, g


@pytest.mark.parametrize("pid, n_units, random_choice", [(6, 40, True), (2, 15, True), (12, 12, True),
                                                         (1, 25, True), (23, 30, False), (10, 30, True)])
def test_searched_weaving_is_legal_and_locks_every_unit_where_planned(cpu, pid, n_units, random_choice):
    problem = official_problem(pid)
    seed = problem.source_seeds[-1]
    sim = Playouts([problem], cpu)
    places, g = _placements(sim, seed, n_units, random.Random(pid) if random_choice else None)
    phrases = load_phrases()
    tab = problem_tables(problem).tolist()
    text = weave_search(tab, seed, places, phrases, beam=8)
    game = play(problem, seed, text)  # the scalar model replays it
    assert not game.errored and game.units_locked == len(places)
    assert game.move_score == int(g.move_scores[0])
    assert game.filled == g.board_cells(0, problem)
    back = placements_of(tab, seed, text)
    assert [(x, y) for x, y, _ in back] == [(x, y) for x, y, _ in places]
    score = score_solution(problem, seed, text, phrases)
    assert score.power_score > 0 and score.total == game.move_score + score.power_score


@pytest.mark.parametrize("pid, n_units", [(11, 30), (1, 30), (10, 30), (0, 25)])
def test_search_spells_at_least_the_greedy_weavers_power(cpu, pid, n_units):
    """On these fixed games (the kernel's greedy placements) the search's power is at least that of both greedy
    weavings (phrases running on past locks or not), each computed here."""
    problem = official_problem(pid)
    seed = problem.source_seeds[0]
    places, _ = _placements(Playouts([problem], cpu), seed, n_units)
    phrases = load_phrases()
    tab = problem_tables(problem).tolist()
    old = max(score_solution(problem, seed, weave(tab, seed, places, phrases, across=a), phrases).power_score
              for a in (True, False))
    new = score_solution(problem, seed, weave_search(tab, seed, places, phrases, beam=24), phrases)
    assert not new.end.startswith("error")
    assert new.power_score >= old


def _tiny(width: int, height: int, filled=()) -> tuple:
    """A board with one single-cell unit whose pivot is the cell (turning it in place repeats a position)."""
    return parse_problem({"id": 900, "width": width, "height": height, "sourceLength": 1, "sourceSeeds": [0],
                          "filled": [{"x": x, "y": y} for x, y in filled],
                          "units": [{"members": [{"x": 0, "y": 0}], "pivot": {"x": 0, "y": 0}}]})


def _best_ei_count(tab: list, target: tuple) -> int:
    """Brute force: over every legal command sequence that locks the unit at ``target`` (the locking command
    included), the most occurrences of E SW W, the commands of "Ei!" (it cannot overlap itself, so each occurrence
    can be written "ei!" independently)."""
    t, state, board, vis = plain_game(tab, 0)
    best = -1

    def go(st, bd, vs, cmds):
        nonlocal best
        for c in range(6):
            s2, b2, v2 = list(st), list(bd), list(vs)
            pos = (s2[rules.S_PQ] + (s2[rules.S_PR] >> 1), s2[rules.S_PR])
            rules.step(s2, b2, v2, t, c)
            if s2[rules.S_END] >= rules.END_ERROR_REPEAT:
                continue
            seq = cmds + [c]
            if s2[rules.S_LOCKED] != st[rules.S_LOCKED]:
                if pos == target:
                    n = sum(1 for k in range(len(seq) - 2) if seq[k:k + 3] == [rules.C_E, rules.C_SW, rules.C_W])
                    best = max(best, n)
                continue
            go(s2, b2, v2, seq)

    go(state, board, vis, [])
    return best


@pytest.mark.parametrize("target", [(0, 4), (3, 4), (1, 3)])
def test_single_cell_on_a_tiny_board_spells_the_most_phrases(target):
    """A 4x5 board (one column blocked in the last row for the third target): the search with "Ei!" finds as many
    occurrences as the best of every legal path that locks at ``target`` (brute force), at least the greedy's."""
    problem = _tiny(4, 5, filled=[(1, 4)] if target == (1, 3) else [])
    tab = problem_tables(problem).tolist()
    places = [(target[0], target[1], 0)]
    best = _best_ei_count(tab, target)
    assert best >= 1
    text = weave_search(tab, 0, places, ["Ei!"], beam=64)
    score = score_solution(problem, 0, text, ["Ei!"])
    assert play(problem, 0, text).units_locked == 1 and not score.end.startswith("error")
    assert score.power_score == 300 + 6 * best
    greedy = score_solution(problem, 0, weave(tab, 0, places, ["Ei!"]), ["Ei!"]).power_score
    assert score.power_score >= greedy


def _greedy_plan(cpu, pid: int, n_units: int):
    """A plan of the greedy placements of ``n_units`` units of the problem's first seed, and its table."""
    problem = official_problem(pid)
    seed = problem.source_seeds[0]
    places, g = _placements(Playouts([problem], cpu), seed, n_units)
    plan = GamePlan(problem, seed, places, int(g.move_scores[0]), "in_progress")
    return plan, problem_tables(problem).tolist()


def test_spell_keeps_the_best_of_the_greedy_and_the_searched_weavings(cpu):
    plan, tab = _greedy_plan(cpu, 11, 25)
    problem, seed, places = plan.problem, plan.seed, plan.placements
    phrases = load_phrases()
    got = spell([plan], cpu, phrases)
    assert len(got) == 1
    candidates = [weave(tab, seed, places, phrases, across=a) for a in (True, False)]
    candidates.append(weave_search(tab, seed, places, phrases))
    assert got[0].total == max(score_solution(problem, seed, c, phrases).total for c in candidates)
    without = spell([plan], cpu, phrases, search_beam=0)
    assert without[0].total <= got[0].total


def test_past_the_deadline_the_units_take_shortest_paths(cpu):
    """With a deadline already past, no search is made (every unit takes a shortest legal path and its lock): the
    string is still legal and locks every unit where planned."""
    problem = official_problem(6)
    seed = problem.source_seeds[0]
    places, g = _placements(Playouts([problem], cpu), seed, 30)
    tab = problem_tables(problem).tolist()
    text = weave_search(tab, seed, places, load_phrases(), deadline=0.0)
    game = play(problem, seed, text)
    assert not game.errored and game.units_locked == len(places) and game.move_score == int(g.move_scores[0])
    searched = weave_search(tab, seed, places, load_phrases(), beam=8)
    assert len(text) < len(searched)


def test_spell_spends_time_left_on_wider_searches(cpu, monkeypatch):
    """With time left before the deadline, ``spell`` weaves each game's best string again at the wider widths of
    ``DEEPEN_BEAMS`` (``DEEPEN_KEEP`` roots per row) and keeps the best by the exact scorer: its total is the best
    of every candidate string, the wider one included."""
    import time

    from puzzlebatch.runners.hextris import player

    plan, tab = _greedy_plan(cpu, 11, 25)
    problem, seed, places = plan.problem, plan.seed, plan.placements
    phrases = load_phrases()
    monkeypatch.setattr(player, "DEEPEN_BEAMS", (48,))
    got = spell([plan], cpu, phrases, deadline=time.perf_counter() + 3600)
    candidates = [weave(tab, seed, places, phrases, across=a) for a in (True, False)]
    candidates += [weave_search(tab, seed, places, phrases),
                   weave_search(tab, seed, places, phrases, beam=48, keep=player.DEEPEN_KEEP)]
    assert got[0].total == max(score_solution(problem, seed, c, phrases).total for c in candidates)
    assert got[0].total >= spell([plan], cpu, phrases)[0].total


def test_a_wider_search_is_not_started_when_it_would_pass_the_deadline(cpu, monkeypatch):
    """The expected time of a width (the last width's time per weaving, scaled by the ratio of widths) must fit
    before the deadline: an absurd width is never started, and the searches done are those of the first pass."""
    import time

    from puzzlebatch.runners.hextris import player
    from puzzlebatch.runners.hextris import weave_search as ws

    plan, _ = _greedy_plan(cpu, 23, 20)
    widths = []
    real = ws.weave_search

    def counting(*a, **k):
        widths.append(k.get("beam"))
        return real(*a, **k)

    monkeypatch.setattr(ws, "weave_search", counting)
    monkeypatch.setattr(player, "DEEPEN_BEAMS", (10**7,))
    got = spell([plan], cpu, load_phrases(), deadline=time.perf_counter() + 600)
    assert widths == [player.SEARCH_BEAM] and len(got) == 1


def test_the_greedy_weaver_stops_trying_phrases_within_a_unit_at_the_deadline(cpu, monkeypatch):
    """A fake clock that passes the deadline right after the first unit starts: the first unit stops trying
    phrases at its next move (before, the deadline was looked at only when a unit began, so a unit could try up
    to ``max_tries`` phrases past it).  The string stays legal and locks every unit where planned."""
    import types

    from puzzlebatch.runners.hextris import phrases as ph

    problem = official_problem(6)
    seed = problem.source_seeds[0]
    places, g = _placements(Playouts([problem], cpu), seed, 12)
    tab = problem_tables(problem).tolist()
    tries = []
    real_try = ph._try_path

    def counting(*a, **k):
        tries.append(1)
        return real_try(*a, **k)

    monkeypatch.setattr(ph, "_try_path", counting)
    weave(tab, seed, places, load_phrases(), lookahead=False, across=False)  # no deadline
    n_free = len(tries)
    clock = iter([0.0] + [10.0] * 10**6)  # the first look before the deadline (5.0), every later one past it
    monkeypatch.setattr(ph, "time", types.SimpleNamespace(perf_counter=lambda: next(clock)))
    tries.clear()
    late = weave(tab, seed, places, load_phrases(), deadline=5.0, lookahead=False, across=False)
    game = play(problem, seed, late)
    assert not game.errored and game.units_locked == len(places) and game.move_score == int(g.move_scores[0])
    n_texts = len(ph.PhraseMatcher(load_phrases()).options(0))
    assert 0 < len(tries) <= n_texts < n_free  # one pass over the texts at the first move, none after
