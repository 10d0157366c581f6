"""Weights that fit the board: the features, the nearest-boards prediction, the portfolio it gives the player."""

from __future__ import annotations

import json

import numpy as np
import pytest

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.hextris.generate import generate_problem
from puzzlebatch.puzzles.hextris.model import official_problem, parse_problem
from puzzlebatch.runners.hextris import fit
from puzzlebatch.runners.hextris.player import DEFAULT_WEIGHTS, FEATURE_NAMES
from tests.hextris_helpers import SteppedClock


def _table(tmp_path, boards, candidates):
    path = tmp_path / "fit.json"
    path.write_text(json.dumps({"candidates": candidates, "boards": boards}))
    fit.load_fit.cache_clear()
    return str(path)


def test_board_features_read_the_problem_file():
    p = official_problem(6)  # 10x10, 5 units (sizes in the file), 150 units a game, 50 seeds... as the JSON says
    doc = json.loads((fit.FIT_FILE.parent.parent / "icfp2015" / "problems" / "problem_6.json").read_text())
    f = dict(zip(fit.FEATURES, fit.board_features(p)))
    assert f["log_width"] == pytest.approx(np.log(doc["width"]))
    assert f["log_height"] == pytest.approx(np.log(doc["height"]))
    assert f["fill"] == pytest.approx(len(doc["filled"]) / (doc["width"] * doc["height"]))
    assert f["log_units"] == pytest.approx(np.log(len(doc["units"])))
    sizes = [len(u["members"]) for u in doc["units"]]
    assert (f["mean_unit_size"], f["max_unit_size"]) == (pytest.approx(np.mean(sizes)), max(sizes))
    assert f["log_length"] == pytest.approx(np.log(doc["sourceLength"]))
    assert f["log_seeds"] == pytest.approx(np.log(len(doc["sourceSeeds"])))


def test_prediction_is_the_mean_of_the_nearest_boards(tmp_path):
    """Three training boards: two like a 10x10 board, one like a 50x50; the 10x10 board's prediction is the mean
    of the two near ones (k=2); the portfolio's rows: the default weights, then the others best first."""
    small, large = parse_problem(generate_problem(3)), parse_problem(generate_problem(4))
    near = fit.board_features(small)
    far = near + 10.0
    cands = [DEFAULT_WEIGHTS.tolist(), [1.0] * len(FEATURE_NAMES), [2.0] * len(FEATURE_NAMES)]
    path = _table(tmp_path, [{"name": "a", "features": near.tolist(), "relative": [1.0, 1.10, 0.90]},
                             {"name": "b", "features": (near + 0.01).tolist(), "relative": [1.0, 1.02, 1.00]},
                             {"name": "c", "features": far.tolist(), "relative": [1.0, 0.50, 1.50]}], cands)
    try:
        assert fit.predict(small, k=2, path=path) == pytest.approx([1.0, 1.06, 0.95])
        w = fit.fitted_weights(small, rows=2, k=2, path=path)
        assert w.shape == (2, len(FEATURE_NAMES))
        assert np.array_equal(w[0], cands[0]) and np.array_equal(w[1], cands[1])  # the default first
        w = fit.fitted_weights(small, rows=3, k=2, path=path)
        assert [r[0] for r in w] == [cands[0][0], 1.0, 2.0]  # then the others, best predicted first
        assert np.array_equal(fit.fitted_weights(small, rows=1, k=2, path=path), cands[1])  # one row: a vector
        # leaving a board out changes its neighbours
        assert fit.predict(small, k=1, path=path, exclude="a") == pytest.approx([1.0, 1.02, 1.00])
        assert large is not None
    finally:
        fit.load_fit.cache_clear()


def test_a_broken_table_is_one_line_naming_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{\"candidates\": [[1]], \"boards\": [{\"name\": \"x\", \"features\": [1], \"relative\": [1]}]}")
    fit.load_fit.cache_clear()
    with pytest.raises(PuzzleInputError, match=r"bad\.json: not a weight-fit table"):
        fit.load_fit(str(bad))
    bad.write_text("not json")
    fit.load_fit.cache_clear()
    with pytest.raises(PuzzleInputError, match=r"bad\.json: not a weight-fit table"):
        fit.load_fit(str(bad))
    fit.load_fit.cache_clear()


def test_the_shipped_table_gives_every_board_a_portfolio_of_its_candidates():
    """The package's table: learned on the qualifier and generated boards, its candidates 13 weights each; every
    qualifier problem and a generated one get ``ROWS`` distinct candidate rows."""
    t = fit.load_fit()
    assert t["candidates"].shape[1] == len(FEATURE_NAMES) and len(t["names"]) >= 25
    assert np.array_equal(t["candidates"][0], DEFAULT_WEIGHTS)  # relative scores are over the default weights
    assert np.allclose(t["relative"][:, 0], 1.0)
    for p in [official_problem(n) for n in range(25)] + [parse_problem(generate_problem(500))]:
        w = fit.fitted_weights(p)
        assert w.shape == (fit.ROWS, len(FEATURE_NAMES))
        assert len({tuple(r) for r in w}) == fit.ROWS
        assert all(any(np.array_equal(r, c) for c in t["candidates"]) for r in w)


def test_the_player_plays_the_fitted_portfolio(cpu):
    """``weights="fit"`` plays the board's fitted rows: the same games as those rows passed by hand."""
    from puzzlebatch.runners.hextris.player import play_problems

    problem = official_problem(23)
    by_name = play_problems([problem], cpu, weights="fit", beam=2, keep=3)
    by_hand = play_problems([problem], cpu, weights=fit.fitted_weights(problem), beam=2, keep=3)
    assert [(s.entry, s.total) for s in by_name] == [(s.entry, s.total) for s in by_hand]
    assert len(by_name) == len(set(problem.source_seeds))


def test_a_portfolio_is_cut_to_the_rows_whose_games_fit_in_the_time():
    from puzzlebatch.runners.hextris.player import PORTFOLIO_RATE, portfolio_rows

    assert portfolio_rows(3, 10.0, 100) == 3  # 2,500 placements of time for 100 a row
    assert portfolio_rows(3, 10.0, int(PORTFOLIO_RATE * 10 / 2)) == 2
    assert portfolio_rows(3, 1.0, 10**6) == 0  # not one row's games: none
    assert portfolio_rows(1, 100.0, 1) == 1


@pytest.mark.parametrize("step, after", [(1e-3, 1), (2.0, 0)])
def test_a_clocked_portfolio_plays_its_first_row_whole_then_the_others_in_the_time_left(cpu, monkeypatch, step,
                                                                                        after):
    """On a clock a portfolio's first row plays exactly as it would alone (same games, same strings); the other
    rows play only in the time it leaves (a fast clock: they do; a slow one: none), and a game's solution is
    replaced only by one that scores more."""
    from puzzlebatch.runners.hextris import player as hextris_player
    from puzzlebatch.runners.hextris.player import play_problems

    problem = official_problem(21)  # 20 units, one seed
    other = fit.load_fit()["candidates"][1]

    def play(weights):
        monkeypatch.setattr(hextris_player, "time", SteppedClock(step))
        timings = []
        got = play_problems([problem], cpu, weights=weights, seconds=60, max_beam=8, weave_phrases=False,
                            timings=timings)
        return {s.entry["seed"]: s for s in got}, timings[0]

    alone, t_alone = play(DEFAULT_WEIGHTS)
    both, t_both = play(np.stack([DEFAULT_WEIGHTS, other]))
    assert t_alone["rows_after"] == 0 and t_both["rows_after"] == after
    assert t_both["mean_beam"] == t_alone["mean_beam"] and t_both["plan_s"] == t_alone["plan_s"]
    assert both.keys() == alone.keys()
    for seed, s in both.items():
        assert s.total >= alone[seed].total
        if s.total == alone[seed].total:
            assert s.entry == alone[seed].entry  # ties keep the first row's game
    if after == 0:
        assert [(s.entry, s.total) for s in both.values()] == [(s.entry, s.total) for s in alone.values()]


def test_best_of_keeps_the_first_game_unless_another_scores_more():
    from puzzlebatch.runners.hextris.player import Solved, best_of

    def sol(seed, total, text):
        return Solved({"problemId": 1, "seed": seed, "tag": "t", "solution": text}, total, 0, total, "done", False)

    first = [sol(1, 10, "a"), sol(2, 20, "b")]
    got = best_of(first, [sol(2, 20, "c"), sol(1, 11, "d"), sol(3, 5, "e")])
    assert [(s.entry["seed"], s.entry["solution"]) for s in got] == [(1, "d"), (2, "b"), (3, "e")]


def test_a_clocked_fit_adds_rows_near_the_default_weights_named_by_the_board():
    """``jitter`` rows follow the chosen ones: each non-zero default weight scaled by a factor near 1, zeros kept;
    the same board gives the same rows, another board others."""
    p, q = parse_problem(generate_problem(7)), parse_problem(generate_problem(8))
    plain = fit.fitted_weights(p)
    w = fit.fitted_weights(p, jitter=5)
    assert w.shape == (fit.ROWS + 5, len(FEATURE_NAMES)) and np.array_equal(w[: fit.ROWS], plain)
    near = w[fit.ROWS:]
    zero = DEFAULT_WEIGHTS == 0
    assert np.all(near[:, zero] == 0) and np.all(near[:, ~zero] != DEFAULT_WEIGHTS[~zero])
    ratio = near[:, ~zero] / DEFAULT_WEIGHTS[~zero]
    assert np.all((ratio > np.exp(-6 * fit.JITTER_SCALE)) & (ratio < np.exp(6 * fit.JITTER_SCALE)))
    assert np.array_equal(fit.fitted_weights(p, jitter=5), w)
    assert not np.array_equal(fit.fitted_weights(q, jitter=5)[-5:], near)
    assert fit.fitted_weights(p, rows=1, jitter=5).shape == (len(FEATURE_NAMES),)  # one row: the best alone
    assert np.array_equal(fit.fitted_weights(p, jitter=2, jitter_scale=0.0)[-2:], [DEFAULT_WEIGHTS] * 2)


def test_fit_on_a_clock_plays_the_rows_near_the_default_too(cpu, monkeypatch):
    """``weights="fit"`` with ``seconds`` asks for :data:`fit.JITTER_ROWS` rows near the default weights; without
    a clock, none (every row would cost a whole set of games at the fixed beam)."""
    from puzzlebatch.runners.hextris import player as hextris_player

    asked = []
    real = fit.fitted_weights
    monkeypatch.setattr(fit, "fitted_weights", lambda p, **kw: (asked.append(kw.get("jitter", 0)), real(p, **kw))[1])
    monkeypatch.setattr(hextris_player, "time", SteppedClock(1e-3))
    problem = official_problem(21)
    hextris_player.play_problems([problem], cpu, weights="fit", seconds=60, max_beam=4, weave_phrases=False)
    hextris_player.play_problems([problem], cpu, weights="fit", beam=1, keep=1, weave_phrases=False)
    assert asked == [fit.JITTER_ROWS, 0]
