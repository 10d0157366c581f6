"""Rank solutions of the 25 qualifier problems on the published 2015 qualifying leaderboard.

The contest scored a team on a problem by the floor of the mean total score over the problem's ``sourceSeeds``
(a seed without a solution counts 0) and ranked the teams per problem; the overall standing is the sum of the
per-problem ranks (smaller is better).  The published table ranks densely: a score's rank is one plus the number
of distinct scores above it on that problem (ties share a rank and the next score takes the next rank), which
reproduces the published ranks (tests/test_hextris_tune.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from puzzlebatch.puzzles.hextris.model import DATA_DIR, Problem

LEADERBOARD = DATA_DIR / "qualifying_leaderboard.json"


def load_leaderboard() -> dict:
    return json.loads(LEADERBOARD.read_text(encoding="utf-8"))


@dataclass
class ProblemRank:
    problem_id: int
    score: int  # floor of the mean total over the source seeds
    rank: int
    best: int  # the best published score
    best_team: str
    taupegoons: int | None  # the source document's team
    teams: int


def problem_scores(problems: dict[int, Problem], totals: dict[tuple[int, int], int]) -> dict[int, int]:
    """Per problem: floor of the mean of ``totals[(problem, seed)]`` over its source seeds (missing: 0)."""
    out = {}
    for pid, p in problems.items():
        vals = [totals.get((pid, s), 0) for s in p.source_seeds]
        out[pid] = sum(vals) // len(vals)
    return out


def rank_scores(scores: dict[int, int], board: dict | None = None) -> list[ProblemRank]:
    """The rank each per-problem score would have had on the published leaderboard."""
    board = load_leaderboard() if board is None else board
    out = []
    for pid in sorted(scores):
        teams = board["per_problem"][str(pid)]
        s = scores[pid]
        rank = 1 + len({t["score"] for t in teams if t["score"] > s})
        top = max(teams, key=lambda t: t["score"])
        tg = next((t["score"] for t in teams if t["team"] == "TaupeGoons"), None)
        out.append(ProblemRank(pid, s, rank, top["score"], top["team"], tg, len(teams)))
    return out


def overall_rank(rank_sum: int, board: dict | None = None) -> int:
    """Where a sum of per-problem ranks would stand among the published overall sums (1 + teams strictly better)."""
    board = load_leaderboard() if board is None else board
    return 1 + sum(1 for t in board["overall"] if t["score"] < rank_sum)
