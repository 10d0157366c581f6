"""Differential tests of hex Tetris: random games played and scored by the plain-Python model (and the organizers'
evaluator for the shipped reference solutions) and by every way the package plays a batch of games (see
:mod:`tests.differential.hextris` for what is compared).

Hypothesis draws an integer seed from a derandomized source and the instance from ``random.Random(seed)``, so CI
sees the same instances every run; a failure prints each disagreement with the instance as JSON (replay it with
``check(json.loads(...))``).  The CUDA twin runs in numba's simulator on a few short games only.
"""

from __future__ import annotations

import collections
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzlebatch.puzzles.hextris import model
from tests.differential import hextris as D

RANDOM_EXAMPLES = 200
SIMULATOR_EXAMPLES = 5

_settings = dict(deadline=None, derandomize=True, database=None, print_blob=False,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
seeds = st.integers(min_value=0, max_value=2**64 - 1)


@given(seeds)
@settings(max_examples=RANDOM_EXAMPLES, **_settings)
def test_random_games_agree(seed: int):
    """The model, the organizers' scores and every CPU way agree on the game and its score."""
    inst = D.draw(random.Random(seed))
    assert D.check(inst) == []


@pytest.mark.gpu
@given(seeds)
@settings(max_examples=SIMULATOR_EXAMPLES, **_settings)
def test_simulator_agrees(seed: int):
    """The ``cuda`` backend (the simulator in CI) plays short games like the model and bit for bit like the CPU."""
    inst = D.draw(random.Random(seed), max_commands=D.SIM_MAX_COMMANDS)
    assert D.n_commands(D.commands_of(inst)) <= D.SIM_MAX_COMMANDS, "the draw must give the simulator its ways"
    names = [name for name, _ in D.ways(inst, cuda=True)]
    assert any(name.startswith("cuda") for name in names), names
    assert D.check(inst, cuda=True) == []


def test_every_reference_solution_scores_as_the_organizers(cpu):
    """All 175 shipped solutions in one batch of :func:`score_solutions` (in two orders), score by score, as the
    organizers' evaluator (the random draws only take the shorter ones whole)."""
    from puzzlebatch.runners.hextris.playouts import parse_solutions, score_solutions

    entries = list(D.reference_entries())
    problems = {i: D.official(i) for i in range(25)}
    order = list(range(len(entries)))
    random.Random(1).shuffle(order)
    for perm in (list(range(len(entries))), order):
        got = score_solutions(problems, parse_solutions([entries[k] for k in perm], "reference"),
                              list(D.phrases()), cpu).scores
        bad = [(k, entries[k]["end"], entries[k]["total"], s.end, s.total) for k, s in zip(perm, got)
               if (s.move_score, s.power_score, s.total, s.end) != (entries[k]["move_score"],
                                                                     entries[k]["power_score"], entries[k]["total"],
                                                                     entries[k]["end"])]
        assert bad == [], f"(entry, organizers' end and total, package's end and total): {bad[:5]}"


def test_kelvin_sign():
    """U+212A lower-cases to ``k`` (CCW): the model and the kernels both play it (the kernels' table once called it
    an invalid character)."""
    inst = {"problem": 3, "seed": 0, "commands": "lll" + D.KELVIN_SIGN + "llll", "fillers": 1, "pos3": 1,
            "pos17": 5, "chunks": [2, 5]}
    assert D.check(inst) == []


def test_every_character_reads_the_same_in_the_model_and_the_kernels():
    """Every code point of the BMP: the kernels' character table gives what the model's decoding of the
    lower-cased character gives (a command, ignored, or invalid)."""
    from puzzlebatch.puzzles.hextris import rules
    from puzzlebatch.puzzles.hextris.encode import CHAR_CODES

    bad = []
    for c in range(65536):
        cmds = model.decode(chr(c))
        want = rules.C_INVALID if cmds is None else (cmds[0] if cmds else -1)
        if int(CHAR_CODES[c]) != want:
            bad.append((hex(c), int(CHAR_CODES[c]), want))
    assert bad == []


def test_the_draws_cover_every_kind():
    """The generator reaches every kind of problem and command string and every way a game ends (a check of the
    harness itself)."""
    rng = random.Random(0)
    seen: set[str] = set()
    ends: collections.Counter = collections.Counter()
    for _ in range(200):
        inst = D.draw(rng)
        if inst.get("reference") is not None:
            seen.add("reference " + ("whole" if inst["prefix"] is None else "prefix")
                     + (" + suffix" if inst["suffix"] else ""))
        else:
            seen.add("official" if isinstance(inst["problem"], int) else "random problem")
        text = D.commands_of(inst)
        if model.decode(text) is None:
            seen.add("invalid character")
        if any(p.lower() in text.lower() for p in D.phrases()):
            seen.add("phrase")
        if any(c in text for c in model.IGNORED_CHARS):
            seen.add("ignored character")
        if text != text.lower():
            seen.add("upper case")
        if len(inst["chunks"]) > 1:
            seen.add("several cuts")
        problem = D.problem_of(inst)
        ends[model.score_solution(problem, inst["seed"], text, list(D.phrases())).end] += 1
        ends[model.END_NAMES[model.play(problem, inst["seed"], text).end]] += 1
    assert seen >= {"reference whole", "reference prefix", "reference whole + suffix", "official",
                    "random problem", "invalid character", "phrase", "ignored character", "upper case",
                    "several cuts"}, seen
    assert set(ends) >= set(model.END_NAMES) - {"error_unreachable_placement"}, ends
