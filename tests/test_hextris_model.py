"""The scalar model and the batch scorer against the organizers' evaluator (reference_scores.json)."""

import filecmp
import random
from pathlib import Path

import pytest

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.hextris import model
from puzzlebatch.puzzles.hextris.encode import encode_commands, rotated_offsets
from puzzlebatch.puzzles.hextris.model import (DATA_DIR, Game, lcg_numbers, load_phrases, parse_problem,
                                               power_score, score_solution)
from puzzlebatch.runners.hextris.playouts import parse_solutions, score_solutions
from tests.hextris_helpers import problems, reference_entries

SHARED = Path("/work/shared/data/icfp2015")


def _key(s):
    return s.move_score, s.power_score, s.total, s.end


def _ref_key(e):
    return e["move_score"], e["power_score"], e["total"], e["end"]


def test_lcg_matches_the_published_sequence():
    # RULES.md §4, from the organizers' clarification of 2015-08-07: seed 17 gives these ten numbers.
    assert lcg_numbers(17, 10) == [0, 24107, 16552, 12125, 9427, 13152, 21440, 3383, 6873, 16117]


def test_packaged_data_equals_the_shared_copy():
    if not SHARED.exists():
        pytest.skip("shared data folder not present (fresh clone): the packaged copy is the reference")
    for name in ["power_phrases.txt", "reference_scores.json"] + [f"problems/problem_{i}.json" for i in range(25)]:
        assert filecmp.cmp(DATA_DIR / name, SHARED / name, shallow=False), name


def test_phrases_are_the_eighteen():
    phrases = load_phrases()
    assert len(phrases) == 18 and phrases[0] == "Ei!" and max(map(len, phrases)) == 51  # RULES.md §12


def test_batch_scorer_reproduces_all_175_reference_scores(cpu):
    entries = reference_entries()
    assert len(entries) == 175
    run = score_solutions(problems(), parse_solutions(entries, "reference"), load_phrases(), cpu)
    assert run.backend == "cpu"
    bad = [(e["problemId"], e["seed"], _key(s), _ref_key(e)) for s, e in zip(run.scores, entries)
           if _key(s) != _ref_key(e)]
    assert not bad, f"{len(bad)} mismatches (problem, seed, ours, evaluator's): {bad[:5]}"


def test_scalar_model_reproduces_one_reference_per_problem():
    """The plain-Python model on the shortest reference solution of each problem (all 175: the slow test)."""
    shortest = {}
    for e in reference_entries():
        if e["problemId"] not in shortest or len(e["solution"]) < len(shortest[e["problemId"]]["solution"]):
            shortest[e["problemId"]] = e
    assert len(shortest) == 25
    phrases = load_phrases()
    for e in shortest.values():
        s = score_solution(problems()[e["problemId"]], e["seed"], e["solution"], phrases)
        assert _key(s) == _ref_key(e), (e["problemId"], e["seed"])


@pytest.mark.slow
def test_scalar_model_reproduces_all_175_reference_scores():
    phrases = load_phrases()
    for e in reference_entries():
        s = score_solution(problems()[e["problemId"]], e["seed"], e["solution"], phrases)
        assert _key(s) == _ref_key(e), (e["problemId"], e["seed"])


def test_reference_ends_include_both_kinds():
    ends = {e["end"] for e in reference_entries()}
    assert ends == {"out_of_units", "spawn_blocked"}


# -- the rules one by one --------------------------------------------------------------------------------------------
def _single_cell_problem(width=5, height=5, units=None, length=3, filled=()):
    units = units or [{"members": [{"x": 0, "y": 0}], "pivot": {"x": 0, "y": 0}}]
    return parse_problem({"id": 99, "width": width, "height": height, "filled": [{"x": x, "y": y} for x, y in filled],
                          "sourceLength": length, "sourceSeeds": [0, 7], "units": units})


def test_spawn_is_centred_rounding_left():
    p = _single_cell_problem(width=5)
    assert p.units[0].members == ((2, 0),)
    p = _single_cell_problem(width=6, units=[{"members": [{"x": 0, "y": 0}, {"x": 1, "y": 0}],
                                              "pivot": {"x": 0, "y": 0}}])
    assert p.units[0].members == ((2, 0), (3, 0))  # gaps 2 and 2
    p = _single_cell_problem(width=5, units=[{"members": [{"x": 0, "y": 0}, {"x": 1, "y": 0}],
                                              "pivot": {"x": 0, "y": 0}}])
    assert p.units[0].members == ((1, 0), (2, 0))  # gaps 1 and 2: the left one smaller


@pytest.mark.parametrize("solution, end", [
    ("d", "error_repeat_position"),  # a one-cell unit on its pivot is unchanged by a turn (RULES.md §10)
    ("bp", "error_repeat_position"),  # E then W returns to the position just left
    ("dk", "error_repeat_position"),
    ("bbll", "in_progress"),
    # 3 one-cell units on a 5x5 board, SE all the way: they lock at (4, 4), (3, 3), (3, 2) after 5, 4, 3 commands
    ("l" * 12, "out_of_units"),
    ("l" * 13, "error_command_after_end"),
    ("l" * 12 + "\n\t\r", "out_of_units"),  # ignored characters after the end are fine
    ("ll#", "error_invalid_char"),
    ("LlL", "in_progress"),
])
def test_error_and_end_rules(solution, end):
    p = _single_cell_problem()
    s = score_solution(p, 0, solution, [])
    assert s.end == end
    if end.startswith("error"):
        assert (s.move_score, s.power_score, s.total) == (0, 0, 0)


@pytest.mark.parametrize("solution", ["d", "bp", "l" * 13, "ll#", "bbll", "l" * 12, "ei!"])
def test_batch_kernel_agrees_on_the_error_rules(solution, cpu):
    p = _single_cell_problem()
    ours = score_solutions({99: p}, [{"problemId": 99, "seed": 0, "tag": None, "solution": solution}],
                           load_phrases(), cpu).scores[0]
    assert _key(ours) == _key(score_solution(p, 0, solution))


def test_seed_not_in_problem_scores_zero(cpu):
    p = _single_cell_problem()
    entry = {"problemId": 99, "seed": 3, "tag": "t", "solution": "lll"}
    assert score_solution(p, 3, "lll").end == "error_seed_not_in_problem"
    s = score_solutions({99: p}, [entry], [], cpu).scores[0]
    assert (s.total, s.end, s.tag) == (0, "error_seed_not_in_problem", "t")


def test_line_clear_scores_and_bonus():
    # 3-wide, 2-high board, bottom row full but the middle: a single cell dropped there clears one line.
    p = _single_cell_problem(width=3, height=2, filled=[(0, 1), (2, 1)], length=2)
    g = Game(p, 0)
    # spawn at (1, 0); SW from an even row goes to (0, 1): full -> SE goes to (1, 1)
    g.step(model.SE)
    assert g.pivot == (1, 1)
    g.step(model.SE)  # locks: row 1 is full and cleared, 1 + 100 points; the empty row 0 drops into its place
    assert g.move_score == 101 and g.filled == set() and g.units_locked == 1


def test_power_score_counts_overlaps_case_insensitively():
    # RULES.md §11: "cthulhu cthulhu cthulhu" contains "cthulhu cthulhu" twice.
    assert model.count_overlapping("cthulhu cthulhu cthulhu", "cthulhu cthulhu") == 2
    assert power_score("EI!ei!", ["Ei!"]) == 2 * 3 * 2 + 300
    assert power_score("e\ni!", ["Ei!"]) == 0  # broken by an ignored character: no match


def test_symmetries_agree_between_model_and_tables():
    for p in problems().values():
        _, period = rotated_offsets(p)
        assert [u.symmetry() for u in p.units] == list(period)
    assert {k for p in problems().values() for k in rotated_offsets(p)[1]} <= {1, 2, 3, 6}


def test_encode_commands_drops_ignored_and_marks_invalid():
    codes, offsets = encode_commands(["p\nB", "#"])
    assert list(offsets) == [0, 2, 3] and list(codes) == [0, 1, 6]


@pytest.mark.parametrize("doc, message", [
    ([], "expected a JSON object"),
    ({"width": 5}, "missing key 'height'"),
    ({"width": 5, "height": 0, "filled": [], "sourceLength": 1, "sourceSeeds": [0], "units": []}, "at least 1x1"),
    ({"width": 5, "height": 5, "filled": [{"x": 9, "y": 0}], "sourceLength": 1, "sourceSeeds": [0],
      "units": [{"members": [{"x": 0, "y": 0}], "pivot": {"x": 0, "y": 0}}]}, "filled[0]: cell (9, 0) is outside"),
    ({"width": 5, "height": 5, "filled": [], "sourceLength": 1, "sourceSeeds": [0],
      "units": [{"members": [], "pivot": {"x": 0, "y": 0}}]}, "at least one member"),
    ({"width": 5, "height": 5, "filled": [], "sourceLength": 1, "sourceSeeds": ["a"],
      "units": [{"members": [{"x": 0, "y": 0}], "pivot": {"x": 0, "y": 0}}]}, "sourceSeeds[0]: expected an integer"),
])
def test_bad_problems_are_one_line_errors(doc, message):
    with pytest.raises(PuzzleInputError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
                       .replace("]", r"\]")) as info:
        parse_problem(doc, "p.json")
    assert "\n" not in str(info.value) and "p.json" in str(info.value)


def test_random_games_scalar_model_is_deterministic():
    rng = random.Random(5)
    p = problems()[6]
    sol = "".join(rng.choice("lapb") for _ in range(300))
    assert score_solution(p, 0, sol) == score_solution(p, 0, sol)
