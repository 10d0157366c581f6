"""The hex Tetris player: phrase weaving, openings, beam search on the kernel evaluation, exact re-scoring, CLI.

The oracle is the scalar model (``model.Game``/``score_solution``), which reproduces the organizers' 175
reference scores (tests/test_hextris_model.py)."""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
import pytest

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.hextris.encode import problem_tables
from puzzlebatch.puzzles.hextris.model import load_phrases, official_problem, play, score_solution
from puzzlebatch.runners.hextris.phrases import weave
from puzzlebatch.runners.hextris.playouts import GREEDY_WEIGHTS, Playouts
from puzzlebatch.runners.hextris.player import BeamPlayer, DEFAULT_WEIGHTS, load_weights, spell
from tests.hextris_helpers import SteppedClock
from tests.test_cli import run_cli


def _placements(sim, problem, seed, n_units, rng=None):
    """Placements chosen from the kernel's lockable list (greedy, or at random with ``rng``), and the game after."""
    g = sim.new_games([seed])
    out = []
    while g.ends[0] == 0 and len(out) < n_units:
        pl, f = sim.lockable(g)[0]
        k = rng.randrange(len(pl)) if rng else int(np.argmax(f @ GREEDY_WEIGHTS))
        out.append(tuple(int(v) for v in pl[k]))
        sim.run_placements(g, pl[k][None, None, :], record=False)
    return out, g


@pytest.mark.parametrize("pid, n_units, random_choice", [(6, 150, False), (2, 40, True), (12, 25, True),
                                                         (24, 30, False), (1, 60, True)])
def test_woven_solution_locks_every_unit_where_planned(cpu, pid, n_units, random_choice):
    problem = official_problem(pid)
    seed = problem.source_seeds[-1]
    sim = Playouts([problem], cpu)
    places, g = _placements(sim, problem, seed, n_units, random.Random(pid) if random_choice else None)
    phrases = load_phrases()
    text = weave(problem_tables(problem).tolist(), seed, places, phrases)
    game = play(problem, seed, text)  # the scalar model replays it
    assert not game.errored and game.units_locked == len(places)
    assert game.move_score == int(g.move_scores[0])
    assert game.filled == g.board_cells(0, problem)
    score = score_solution(problem, seed, text, phrases)
    assert score.power_score > 0 and score.total == game.move_score + score.power_score


def test_weave_spells_only_the_phrases_given(cpu):
    problem = official_problem(6)
    sim = Playouts([problem], cpu)
    places, g = _placements(sim, problem, 0, 20)
    text = weave(problem_tables(problem).tolist(), 0, places, ["Ei!"])
    assert "ei!" in text
    assert score_solution(problem, 0, text, ["Ei!"]).power_score == 300 + 2 * 3 * text.count("ei!")
    plain = weave(problem_tables(problem).tolist(), 0, places, [])
    assert score_solution(problem, 0, plain, load_phrases()).move_score == int(g.move_scores[0])


def test_beam_plans_replay_exactly_and_spell_keeps_the_better(cpu):
    problem = official_problem(11)  # 50 units, 5 seeds
    plans = BeamPlayer(problem, cpu, DEFAULT_WEIGHTS, beam=3, keep=4).plan(problem.source_seeds)
    solved = spell(plans, cpu, load_phrases())
    assert [s.entry["seed"] for s in solved] == list(problem.source_seeds)
    for plan, s in zip(plans, solved):
        exact = score_solution(problem, s.entry["seed"], s.entry["solution"], load_phrases())
        assert (exact.move_score, exact.power_score, exact.total, exact.end) == \
            (s.move_score, s.power_score, s.total, s.end)
        assert exact.move_score == plan.move_score > 0 and s.woven and s.power_score > 0
    # beam search with look-ahead does at least as well here as the one-state search on the same heuristic
    narrow = BeamPlayer(problem, cpu, DEFAULT_WEIGHTS, beam=1, keep=1).plan(problem.source_seeds)
    assert sum(p.move_score for p in plans) >= sum(p.move_score for p in narrow)


def test_spell_never_emits_a_zero_score(cpu):
    from puzzlebatch.runners.hextris.player import GamePlan

    problem = official_problem(21)
    # an empty plan: the solution would be the empty string, which scores 0 -> left out
    assert spell([GamePlan(problem, problem.source_seeds[0], [], 0, "in_progress")], cpu, load_phrases()) == []


def test_hard_deadline_gives_legal_partial_games(cpu):
    import time

    problem = official_problem(6)
    plans = BeamPlayer(problem, cpu, beam=2, keep=2).plan(problem.source_seeds[:3], time.perf_counter(),
                                                          time.perf_counter() + 0.3)
    for s in spell(plans, cpu, load_phrases()):
        assert score_solution(problem, s.entry["seed"], s.entry["solution"]).total == s.total > 0


def test_play_cli_beam_one_seed_json(capsys, tmp_path):
    w = tmp_path / "w.json"
    w.write_text(json.dumps({"weights": DEFAULT_WEIGHTS.tolist()}))
    code, out, _ = run_cli(capsys, "hextris", "play", "11", "--seed", "0", "--weights", str(w), "--beam", "2",
                           "--keep", "3", "--backend", "cpu", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["backend"] == "cpu" and [s["seed"] for s in doc["entries"]] == [0]
    exact = score_solution(official_problem(11), 0, doc["entries"][0]["solution"], load_phrases())
    assert exact.total == doc["scores"][0]["total"] > 0


def test_play_cli_out_then_resume_skips_finished_problems(capsys, tmp_path):
    out = tmp_path / "p.h5"
    code, text, _ = run_cli(capsys, "hextris", "play", "21", "--backend", "cpu", "--out", str(out), "--json")
    first = json.loads(text)
    assert code == 0 and len(first["entries"]) == 1
    from puzzlebatch.results.store import ResultsStore

    with ResultsStore(out, "r") as store:
        run = store.run(first["run_id"])
        assert run.attrs["status"] == "done" and list(run.items()["total"]) == [first["scores"][0]["total"]]


@pytest.mark.parametrize("args, message", [
    (["hextris", "play", "11", "--seed", "99"], "--seed 99: not a seed of problem 11"),
    (["hextris", "play", "11", "--weights", "{tmp}/w.json"], "expected a list of 13 numbers >= 0"),
    (["hextris", "play", "11", "--weights", "{tmp}/none.json"], "none.json: cannot read"),
    (["hextris", "play", "11", "--beam", "0"], "--beam: 0: must be between 1 and 65,536"),
    (["hextris", "play", "11", "--seed", "0", "--all-seeds"], "--seed and --all-seeds"),
])
def test_play_cli_bad_input(args, message, capsys, tmp_path):
    (tmp_path / "w.json").write_text("[1, 2]")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code, _, err = run_cli(capsys, *args)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_load_weights_accepts_a_plain_list(tmp_path):
    f = tmp_path / "w.json"
    f.write_text("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11.5, 12, 0.25]")
    assert load_weights(f).tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11.5, 12, 0.25]


def test_load_weights_reads_files_written_before_hole_rows_and_partial_rows(tmp_path):
    f = tmp_path / "w.json"
    f.write_text(json.dumps([[1] * 11, [2] * 12, [4] * 13]))
    assert load_weights(f).tolist() == [[1] * 11 + [0, 0], [2] * 12 + [0], [4] * 13]
    f.write_text(json.dumps({"weights": [3] * 11}))
    assert load_weights(f).tolist() == [3] * 11 + [0, 0]
    for bad in ([1] * 10, [1] * 14):
        f.write_text(json.dumps(bad))
        with pytest.raises(PuzzleInputError, match="expected a list of 13 numbers"):
            load_weights(f)


def test_rank_in_group_and_children_per_state(cpu):
    from puzzlebatch.runners.hextris.player import _rank_in_group as rank_in_group

    groups = np.array([1, 0, 1, 1, 0])
    values = np.array([5.0, 2.0, 7.0, 5.0, 3.0])
    # group 0: 3.0 (index 4) then 2.0 (1); group 1: 7.0 (2), then the tie 5.0, 5.0 in index order (0, 3)
    assert rank_in_group(groups, values).tolist() == [1, 1, 0, 2, 0]
    problem = official_problem(11)
    free = BeamPlayer(problem, cpu, beam=4, keep=2).plan(problem.source_seeds[:2])
    capped = BeamPlayer(problem, cpu, beam=4, keep=2, children=2).plan(problem.source_seeds[:2])
    for plans in (free, capped):
        for g in plans:  # every plan replays to the score the planner gave it
            sim = Playouts([problem], cpu)
            games = sim.new_games([g.seed])
            sim.run_placements(games, np.array(g.placements, np.int64)[None], record=False)
            assert int(games.move_scores[0]) == g.move_score > 0


def test_portfolio_keeps_the_best_weights_per_game(cpu, tmp_path):
    from puzzlebatch.runners.hextris.player import play_problems

    problem = official_problem(23)  # the shelves board: the weights decide how long a game lasts
    rows = [DEFAULT_WEIGHTS.tolist(), [1, 1, 1, 50, 10, 5, 5, 3, 1, 5, 300, 0, 0]]
    single = [{s.entry["seed"]: s.total for s in play_problems([problem], cpu, weights=np.array(w), beam=2, keep=3)}
              for w in rows]
    f = tmp_path / "p.json"
    f.write_text(json.dumps(rows))
    both = play_problems([problem], cpu, weights=load_weights(f), beam=2, keep=3)
    assert {s.entry["seed"]: s.total for s in both} == {k: max(d[k] for d in single) for k in single[0]}


def test_survival_retry_plans_again_only_the_games_that_died(cpu):
    from puzzlebatch.runners.hextris.player import SURVIVAL_WEIGHTS, GamePlan, survival_plans

    problem = official_problem(13)
    alive = GamePlan(problem, 0, [], 0, "out_of_units")
    dead = dataclasses.replace(alive, end="spawn_blocked")
    assert survival_plans(problem, cpu, [alive], 1, 1, 1, None, None, None, None) == []
    assert survival_plans(problem, cpu, [dead], 1, 1, 1, None, None, None, 0.0) == []  # no planning time left
    again = survival_plans(problem, cpu, [alive, dead, dead], 1, 1, 1, None, None, None, None)  # once per game
    assert len(again) == len(SURVIVAL_WEIGHTS) and all(g.seed == 0 and g.placements for g in again)
    for g in again:  # each replays to the move score its plan gives
        sim = Playouts([problem], cpu)
        games = sim.new_games([0])
        sim.run_placements(games, np.array(g.placements, np.int64)[None], record=False)
        assert int(games.move_scores[0]) == g.move_score


def test_max_games_bounds_every_batch(cpu):
    from puzzlebatch.runners.hextris.player import games_for_memory

    problem = official_problem(11)  # 5 seeds
    player = BeamPlayer(problem, cpu, beam=8, keep=4, max_games=12)
    sizes = []
    run = player.sim.run_placements
    player.sim.run_placements = lambda games, *a, **k: (sizes.append(len(games)), run(games, *a, **k))[1]
    plans = player.plan(problem.source_seeds[:5])
    assert sizes and max(sizes) <= 12 and all(p.move_score > 0 for p in plans)
    assert 1 <= games_for_memory(problem, cpu, 50) < games_for_memory(problem, cpu, 500)


@pytest.mark.parametrize("step, last", [(1e-4, 16), (2.0, 1)])
def test_adaptive_beam_follows_the_measured_time_per_unit(cpu, monkeypatch, step, last):
    """With a budget the beam doubles while the units measured so far leave time for a wider one (up to
    ``max_beam``), and halves down to 1 when a unit costs more than the budget allows."""
    from puzzlebatch.runners.hextris import player as hextris_player

    problem = official_problem(21)  # 20 units, one seed
    player = BeamPlayer(problem, cpu, beam=2, keep=4, max_beam=16)
    monkeypatch.setattr(hextris_player, "time", SteppedClock(step))
    plans = player.plan(problem.source_seeds, budget=5.0)
    assert player.beams_used[0] == 2 and player.beams_used[-1] == last and plans[0].move_score > 0
    # at most doubling or halving from one unit to the next
    assert all(b // 2 <= a <= 2 * b for b, a in zip(player.beams_used, player.beams_used[1:]))


def test_play_cli_time_limit_holds_during_compilation():
    """``hextris play --time-limit``: the player runs in a worker thread; at the limit the finished problems are
    printed (none where compiling alone outlasts 3 s) and the process exits without waiting for the worker."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # (the subprocess timeout only guards against a hang; the test asserts no duration)
    proc = subprocess.run([sys.executable, "-m", "puzzlebatch", "hextris", "play", "24", "--time-limit", "3",
                           "--backend", "cpu", "--json"], capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["backend"] == "cpu" and all(s["problemId"] == 24 for s in doc["entries"])
    # either the limit stopped the worker (the program says so, the unfinished problem left out) or the player
    # finished the problem inside it (its own deadlines): then every seed has a solution
    problem = official_problem(24)
    if "puzzlebatch: time limit: 0 of 1 problems finished" in proc.stderr:
        assert doc["entries"] == []
    else:
        assert sorted(s["seed"] for s in doc["entries"]) == sorted(set(problem.source_seeds))
    for s in doc["entries"]:
        assert not score_solution(problem, s["seed"], s["solution"], load_phrases()).end.startswith("error")


def test_phrases_running_on_past_a_lock_replay_exactly(cpu):
    """``weave(across=True)``: a phrase may contain a unit's lock and go on with the next unit's moves (every lock
    still at its planned place); on the low shelves board of problem 23 that spells more distinct phrases."""
    problem = official_problem(23)
    seed = problem.source_seeds[0]
    sim = Playouts([problem], cpu)
    places, g = _placements(sim, problem, seed, 40)
    phrases = load_phrases()
    tab = problem_tables(problem).tolist()
    texts = {a: weave(tab, seed, places, phrases, across=a) for a in (True, False)}
    for text in texts.values():
        game = play(problem, seed, text)
        assert not game.errored and game.units_locked == len(places) and game.move_score == int(g.move_scores[0])
    distinct = {a: sum(1 for p in phrases if p.lower() in t) for a, t in texts.items()}
    assert distinct[True] > distinct[False]
    from puzzlebatch.runners.hextris.phrases import placements_of

    back = placements_of(tab, seed, texts[True])  # read back (rotations may differ by the unit's symmetry)
    assert [(x, y) for x, y, _ in back] == [(x, y) for x, y, _ in places]
    again = play(problem, seed, weave(tab, seed, back, phrases))
    assert again.units_locked == len(places) and again.filled == play(problem, seed, texts[True]).filled


def test_play_out_at_the_time_limit_records_an_unfinished_run_then_resumes(capsys, tmp_path, monkeypatch):
    """``hextris play --time-limit --out``: at the limit the run is stored as unfinished ("interrupted", result
    ``stopped: time_limit``) with the problems finished so far, and ``--resume`` plays the rest without storing a
    game twice.  The player is replaced by a stub that finishes problem 21 at once and then waits on an event, so
    the limit always falls while problem 23 is being played, however slow the machine."""
    import threading

    from puzzlebatch.results.store import ResultsStore
    from puzzlebatch.runners.hextris import player as hextris_player
    from puzzlebatch.runners.hextris.player import Solved

    release = threading.Event()
    solution = {21: "a", 23: "a"}  # one move: a legal partial game on both boards

    def stub(problems, backend, *, on_problem, tag="t", block=True, **_):
        for p in problems:
            if p.id == 23 and block:
                release.wait(60)  # still "planning" when the time limit comes
                return []
            s = score_solution(p, p.source_seeds[0], solution[p.id], load_phrases())
            entry = {"problemId": p.id, "seed": p.source_seeds[0], "tag": tag, "solution": solution[p.id]}
            on_problem(p, [Solved(entry, s.move_score, s.power_score, s.total, s.end, False)])
        return []

    out = tmp_path / "t.h5"
    monkeypatch.setattr(hextris_player, "play_problems", stub)
    try:
        code, text, err = run_cli(capsys, "hextris", "play", "21", "23", "--backend", "cpu", "--out", str(out),
                                  "--time-limit", "1", "--json")
    finally:
        release.set()
    first = json.loads(text)
    assert code == 0 and [s["problemId"] for s in first["entries"]] == [21] and "time limit" in err
    with ResultsStore(out, "r") as store:
        run = store.run(first["run_id"])
        assert run.attrs["status"] == "interrupted" and run.attrs["result"]["stopped"] == "time_limit"
        assert run.items()["problemId"].tolist() == [21]
    monkeypatch.setattr(hextris_player, "play_problems", lambda *a, **k: stub(*a, **k, block=False))
    code, text, _ = run_cli(capsys, "hextris", "play", "21", "23", "--backend", "cpu", "--out", str(out), "--resume",
                            "--json")
    again = json.loads(text)
    assert code == 0 and again["run_id"] == first["run_id"]
    assert sorted(s["problemId"] for s in again["entries"]) == [21, 23]
    with ResultsStore(out, "r") as store:
        run = store.run(first["run_id"])
        assert run.attrs["status"] == "done" and sorted(run.items()["problemId"].tolist()) == [21, 23]


@pytest.mark.parametrize("pid", [6, 24])
def test_compiled_reachability_equals_the_plain_python_one(cpu, pid):
    """The weaver's legal-reachability test (``rules.row_reachable``, compiled) against the plain-Python walk, from
    random positions between the spawn row and the target's, with random sets of positions already visited in
    their row."""
    from puzzlebatch.puzzles.hextris import rules
    from puzzlebatch.runners.hextris.phrases import reachable, _reachable_plain, reverse_bfs, signed_words, UnitMoves

    problem = official_problem(pid)
    rng = random.Random(pid)
    sim = Playouts([problem], cpu)
    places, g = _placements(sim, problem, problem.source_seeds[0], 12)
    tab = [int(v) for v in problem_tables(problem)]
    tab_arr = np.array(problem_tables(problem))
    games = sim.new_games(problem.source_seeds[:1])
    checked = {True: 0, False: 0}
    for place in places:
        board = [int(v) & ((1 << 64) - 1) for v in games.boards[0]]
        u = int(games.states[0, rules.S_UNIT])
        unit = UnitMoves(tab, board, u, tab_arr, signed_words(board))
        target = (place[0] - (place[1] >> 1), place[1], tab[unit.crot + place[2] % 6])
        dist = reverse_bfs(unit, target, 0)
        rows = {}  # every valid position from the spawn row down to the target's, by row
        for y in range(int(games.states[0, rules.S_PR]), target[1] + 1):
            rows[y] = [(q, y, tab[unit.crot + r]) for q in range(-8 - y, problem.width + 8) for r in range(6)
                       if unit.fits((q, y, tab[unit.crot + r]))]
        for _ in range(30):
            row = rows[rng.choice([y for y in rows if rows[y]])]
            p = rng.choice(row)
            visited = {p} | set(rng.sample(row, min(len(row), rng.randrange(0, 12))))
            plain = _reachable_plain(unit, p, visited, target, dist)
            assert reachable(unit, p, visited, target, dist) == plain
            checked[plain] += 1
        sim.run_placements(games, np.array(place)[None, None, :], record=False)
    assert checked[True] > 0 and checked[False] > 0


def test_opening_spells_the_long_phrases_and_the_plan_goes_on_from_it(cpu):
    """``phrases.opening``: drops units at a side until one that can turn is current, then spells the two
    51-character phrases (units lock wherever the phrase's moves are blocked); the beam player plans the rest of
    the game from there and the spelled solution (prefix + woven placements) replays exactly."""
    from puzzlebatch.runners.hextris.phrases import opening

    problem = dataclasses.replace(official_problem(7), source_length=25)
    phrases = load_phrases()
    longs = [p.lower() for p in phrases if len(p) == 51]
    seed = problem.source_seeds[0]
    found = opening(problem_tables(problem).tolist(), seed, phrases)
    prefix, key = found[0]
    assert key[0] == -2 and all(p in prefix for p in longs)
    game = play(problem, seed, prefix)
    assert not game.errored and game.units_locked >= 1
    plan, = BeamPlayer(problem, cpu, beam=2, keep=2).plan([seed], prefixes=[prefix])
    assert plan.prefix == prefix and len(plan.placements) == problem.source_length - game.units_locked
    solved, = spell([plan], cpu, phrases)
    text = solved.entry["solution"]
    assert text.startswith(prefix) and all(p in text for p in longs)
    exact = score_solution(problem, seed, text, phrases)
    assert (exact.move_score, exact.total) == (solved.move_score, solved.total) and exact.end == "out_of_units"
    assert exact.move_score == plan.move_score


def test_opening_of_a_solution_ends_at_its_last_long_phrase(cpu):
    """``phrases.opening_of``: the string up to the end of its last long phrase, and the placements of the units it
    leaves to lock (the whole solution's placements, less those the prefix locks); None without a long phrase."""
    from puzzlebatch.runners.hextris.phrases import opening, opening_of, placements_of

    problem = dataclasses.replace(official_problem(7), source_length=25)
    phrases = load_phrases()
    seed = problem.source_seeds[0]
    tab = problem_tables(problem).tolist()
    prefix = opening(tab, seed, phrases)[0][0]
    plan, = BeamPlayer(problem, cpu, beam=2, keep=2).plan([seed], prefixes=[prefix])
    text = spell([plan], cpu, phrases)[0].entry["solution"]
    head, rest = opening_of(tab, seed, text, phrases)
    longs = [p.lower() for p in phrases if len(p) >= 40]
    ends = [text.lower().find(p) + len(p) for p in longs if p in text.lower()]
    assert text.startswith(head) and len(head) == max(ends) and any(head.lower().endswith(p) for p in longs)
    whole, before = placements_of(tab, seed, text), placements_of(tab, seed, head)
    assert rest == whole[len(before):] and len(before) + len(rest) == len(whole)
    assert opening_of(tab, seed, text[: text.lower().find(longs[0]) + 5], ["Ei!", "Ia! Ia!"]) is None


def test_insertions_spell_the_missing_long_phrases_after_a_lock_of_the_solution(cpu):
    """``phrases.insertions``: each prefix is the solution up to one of its locks, then a missing long phrase; the
    game goes on after it (no error, not ended) and the planner plans the rest from there.  A solution that spells
    every long phrase needs no insertion."""
    from puzzlebatch.puzzles.hextris.model import IN_PROGRESS
    from puzzlebatch.runners.hextris.phrases import insertions, opening, placements_of

    problem = dataclasses.replace(official_problem(12), source_length=30)
    phrases = load_phrases()
    longs = [p.lower() for p in phrases if len(p) >= 40]
    seed = problem.source_seeds[0]
    tab = problem_tables(problem).tolist()
    plan, = BeamPlayer(problem, cpu, beam=2, keep=2).plan([seed])
    text = spell([plan], cpu, phrases, search_beam=0)[0].entry["solution"]
    missing = [p for p in longs if p not in text.lower()]
    assert missing
    got = insertions(tab, seed, text, phrases, points=3)
    assert got
    lock_ends = set()
    for k in range(1, len(text) + 1):
        if len(placements_of(tab, seed, text[:k])) > len(placements_of(tab, seed, text[:k - 1])):
            lock_ends.add(k)
    for prefix in got:
        cut = max(k for k in lock_ends if prefix.startswith(text[:k]))
        assert any(p in prefix[cut:].lower() for p in missing)
        game = play(problem, seed, prefix)
        assert not game.errored and game.end == IN_PROGRESS
    after, = BeamPlayer(problem, cpu, beam=2, keep=2).plan([seed], prefixes=[got[0]])
    assert after.prefix == got[0] and len(after.placements) == problem.source_length - play(problem, seed,
                                                                                             got[0]).units_locked
    seven = problem_tables(dataclasses.replace(official_problem(7), source_length=25)).tolist()
    both = opening(seven, official_problem(7).source_seeds[0], phrases)[0][0]
    assert all(p in both.lower() for p in longs)
    assert insertions(seven, official_problem(7).source_seeds[0], both, phrases) == []


def test_board_weights_weigh_part_full_rows_on_boards_of_wide_rows(cpu, monkeypatch):
    from puzzlebatch.runners.hextris import player as P

    from puzzlebatch.puzzles.hextris.model import DATA_DIR

    def units_a_row(pid):  # from the problem file itself: the width over the mean cells of a unit
        doc = json.loads((DATA_DIR / "problems" / f"problem_{pid}.json").read_text())
        return doc["width"] / (sum(len(u["members"]) for u in doc["units"]) / len(doc["units"]))

    for pid, wide in ((24, True), (14, False), (7, False), (23, False), (0, False)):
        assert (units_a_row(pid) >= 30) is wide
        expected = P.WIDE_ROW_WEIGHTS if wide else P.DEFAULT_WEIGHTS
        assert P.board_weights(official_problem(pid)).tolist() == expected.tolist()
    assert P.WIDE_ROW_WEIGHTS[:-1].tolist() == P.DEFAULT_WEIGHTS[:-1].tolist() and P.WIDE_ROW_WEIGHTS[-1] == 1

    # play_problems without weights plans each problem with its board's weights
    seen = []

    class Planned(Exception):
        pass

    class Stub:
        def __init__(self, problem, backend, w, *args):
            seen.append((problem.id, np.asarray(w).tolist()))
            raise Planned

    monkeypatch.setattr(P, "BeamPlayer", Stub)
    for pid in (24, 7):
        with pytest.raises(Planned):
            P.play_problems([official_problem(pid)], cpu, seeds={pid: [official_problem(pid).source_seeds[0]]},
                            openings=False)
    assert seen == [(24, P.WIDE_ROW_WEIGHTS.tolist()), (7, P.DEFAULT_WEIGHTS.tolist())]


def test_play_cli_default_weights_are_named_and_equal_the_default_vector(capsys, tmp_path):
    w = tmp_path / "w.json"
    w.write_text(json.dumps(DEFAULT_WEIGHTS.tolist()))
    totals = []
    for weights in ("default", str(w)):
        code, out, _ = run_cli(capsys, "hextris", "play", "11", "--seed", "0", "--weights", weights, "--beam", "2",
                               "--keep", "3", "--backend", "cpu", "--json")
        assert code == 0
        doc = json.loads(out)
        totals.append(doc["scores"][0]["total"])
        if weights == "default":
            assert doc["weights"] == "default"
    assert totals[0] == totals[1] > 0  # problem 11 (10 wide) is not a board of wide rows
