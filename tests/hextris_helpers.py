"""Shared helpers of the hextris tests: the packaged reference data and random command strings."""

from __future__ import annotations

import json
import random
from functools import lru_cache

from puzzlebatch.puzzles.hextris.model import DATA_DIR, CANONICAL_CHAR, official_problem


@lru_cache(maxsize=None)
def reference_entries() -> list[dict]:
    """The 175 reference solutions with the organizers' evaluator's scores (packaged copy)."""
    return json.loads((DATA_DIR / "reference_scores.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def problems() -> dict:
    return {i: official_problem(i) for i in range(25)}


def random_solution(rng: random.Random, length: int, down_bias: float = 0.5, mixed_case: bool = True) -> str:
    """A random command string: downward moves with probability ``down_bias``, other commands otherwise, written
    with random characters of each command (upper case sometimes) and ignored characters sprinkled in."""
    from puzzlebatch.puzzles.hextris.model import COMMAND_CHARS

    out = []
    for _ in range(length):
        cmd = rng.choice((2, 3)) if rng.random() < down_bias else rng.choice((0, 1, 4, 5))
        ch = rng.choice(COMMAND_CHARS[cmd]) if rng.random() < 0.7 else CANONICAL_CHAR[cmd]
        if mixed_case and rng.random() < 0.2:
            ch = ch.upper()
        out.append(ch)
        if rng.random() < 0.02:
            out.append(rng.choice("\t\n\r"))
    return "".join(out)


class SteppedClock:
    """A stand-in for the player's ``time`` module: every ``perf_counter()`` call advances by ``step`` seconds, so
    the beam player's own accounting sees a fast or a slow machine whatever this one is doing."""

    def __init__(self, step: float):
        self.now, self.step = 0.0, step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now
