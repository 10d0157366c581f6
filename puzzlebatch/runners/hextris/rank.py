"""Rank solutions of the 25 qualifier problems on the published 2015 qualifying leaderboard.

The contest scored a team on a problem by the floor of the sum of its totals over the problem's *distinct* seeds
divided by the length of ``sourceSeeds`` (a seed without a solution counts 0; problem 5 lists a seed twice, which
counts once: RULES.md §13) and ranked the teams per problem; the overall standing is the sum of the
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
    """Per problem: ``totals[(problem, seed)]`` summed over the distinct source seeds (missing: 0), divided (floor)
    by the number of entries of ``sourceSeeds`` -- the organizers' rule (a seed listed twice counts once)."""
    out = {}
    for pid, p in problems.items():
        vals = [totals.get((pid, s), 0) for s in dict.fromkeys(p.source_seeds)]
        out[pid] = sum(vals) // len(p.source_seeds)
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


@dataclass
class Standing:
    """The overall table with our per-problem scores inserted into every problem's ranking."""

    rank_sum: int  # ours
    place: int  # 1 + teams whose adjusted sum is strictly smaller
    leader: str  # the best published team's name (Unagi)
    leader_sum: int  # its sum of ranks once ours are inserted (it drops a place wherever we score above it)

    @property
    def first(self) -> bool:
        return self.place == 1 and self.rank_sum < self.leader_sum


def standing(scores: dict[int, int], board: dict | None = None) -> Standing:
    """Our sum of ranks and every published team's sum with our scores inserted: a team loses one rank on a problem
    where our score is a new distinct score above its own (dense ranking; a team absent from a problem is ranked
    below every score there)."""
    board = load_leaderboard() if board is None else board
    ranks = rank_scores(scores, board)
    ours = sum(r.rank for r in ranks)
    adjusted = {t["team"]: t["score"] for t in board["overall"]}
    for pid, s in scores.items():
        rows = board["per_problem"][str(pid)]
        if s in {t["score"] for t in rows}:
            continue  # a tie: nobody moves
        present = {t["team"]: t["score"] for t in rows}
        for team in adjusted:
            if present.get(team, -1) < s:
                adjusted[team] += 1
    leader = min(board["overall"], key=lambda t: t["score"])["team"]
    place = 1 + sum(1 for v in adjusted.values() if v < ours)
    return Standing(ours, place, leader, adjusted[leader])


def overall_rank(rank_sum: int, board: dict | None = None) -> int:
    """Where a sum of per-problem ranks would stand among the published overall sums (1 + teams strictly better)."""
    board = load_leaderboard() if board is None else board
    return 1 + sum(1 for t in board["overall"] if t["score"] < rank_sum)
