"""The cold start of ``play_icfp2015``: the plain-Python player answers while the compiled players are built.

No clock and no race: the slow compile is a fake worker that waits until the plain-Python player has finished
every game, and the answers are checked with the scalar scorer (the organizers' rules, ``model.score_solution``)."""

import io
import json
import threading

from puzzlebatch.cli.hextris.play_icfp2015 import play
from puzzlebatch.puzzles.hextris.model import IN_PROGRESS, load_phrases, official_problem, score_solution
from puzzlebatch.runners.engine.backend import select_backend
from puzzlebatch.runners.hextris.coldstart import QuickPlayer
from puzzlebatch.runners.hextris.greedy import BeamRun


def test_quick_player_scores_legal_games_with_phrases():
    p, phrases = official_problem(0), load_phrases()
    q = QuickPlayer([p], phrases)
    q.run()
    (entry, total), = q.best().values()
    s = score_solution(p, entry["seed"], entry["solution"], phrases)
    assert s.end in ("out_of_units", "spawn_blocked")  # played to its end, no error
    assert s.total == total and s.power_score >= 300  # at least one phrase spelled, the total is the scorer's


def test_quick_player_stops_between_units_with_legal_partial_games():
    p, phrases = official_problem(6), load_phrases()
    q = QuickPlayer([p], phrases)
    q.run(max_units=60)  # 50 games: some placed two units, some one
    assert q.units == 60
    for (_, seed), (entry, total) in q.best().items():
        s = score_solution(p, seed, entry["solution"], phrases)
        assert s.end == "in_progress" and s.total == total > 0


def test_slow_compile_is_covered_and_reported():
    problems = [official_problem(0), official_problem(13)]
    player = BeamRun(problems, select_backend("cpu"), None, None, "t")
    compiled = threading.Event()

    def slow_compile():  # the fake compile lasts until the quick player has ended every game
        while player.quick is None or any(g.game.end == IN_PROGRESS for gs in player.quick.games for g in gs):
            compiled.wait(0.01)
        player.greedy_done.set()

    player.run = slow_compile
    out, err = io.StringIO(), io.StringIO()
    assert play(player, None, out, err) == 0
    answer = json.loads(out.getvalue())
    assert [(e["problemId"], e["seed"]) for e in answer] == [(p.id, p.source_seeds[0]) for p in problems]
    phrases = load_phrases()
    for p, e in zip(problems, answer):
        assert score_solution(p, e["seed"], e["solution"], phrases).total > 0  # never an empty answer
    assert "before the first compiled move (none was made)" in err.getvalue()
    assert f"placed {player.quick.units} units" in err.getvalue() and player.quick.units > 0


def test_the_beam_plans_until_just_before_the_answer():
    # The beam player stops planning at PLAN_STOP of the seconds it is handed; BeamRun hands it what puts that at
    # beam_end, a margin before play() prints the answer.  (With 0.8 x 0.85 of -t, a shard of the 3,000 s timed run
    # stopped planning after 1,640 s of its 2,158.)
    from puzzlebatch.runners.hextris.greedy import answer_time, beam_end
    from puzzlebatch.runners.hextris.player import PLAN_STOP

    problems = [official_problem(13)]
    assert BeamRun(problems, select_backend("cpu"), None, None, "t").beam_seconds(5.0) is None
    for seconds, spent in ((30.0, 4.0), (600.0, 40.0), (3000.0, 60.0)):
        run = BeamRun(problems, select_backend("cpu"), seconds, None, "t")
        now = run.t0 + spent  # the cold start and the greedy phase
        stop = now + PLAN_STOP * run.beam_seconds(now)
        assert abs(stop - beam_end(run.t0, seconds)) < 1e-6
        assert answer_time(run.t0, seconds) - stop >= 3.0  # time to weave and score the last problem
    assert stop - run.t0 >= 0.85 * 3000.0
    late = BeamRun(problems, select_backend("cpu"), 30.0, None, "t")
    assert late.beam_seconds(late.t0 + 29.0) == 0.1  # past the end: the least budget, never a negative one
