"""The hex Tetris player: beam search over lockable placements, every candidate evaluated in batch on the
playout kernels, with phrases of power woven into the command paths and every solution re-scored by the exact
scorer.

Long because it is the whole player pipeline (the weights and their files, the beam search, the survival retry,
spelling and exact re-scoring, the time shares of ``play_problems``): each step hands the next its ``GamePlan``s
and one time budget runs through them all.

For every unit of every game (all seeds of a problem advance together, one batch; the unit sequence is the one
the seed's generator gives, so the search plans with the units that will come):

1. :meth:`Playouts.evaluate` lists, for each beam state, every position where the unit can lock (a breadth-first
   search over positions, pivot × rotation class, in the kernel) with the features of the board each would leave
   (the lock and its line clears done on a scratch copy, then the hex evaluation ``evaluation.board_eval``: holes that
   no unit can reach and the rows that hold them, covered cells, wells, row and down transitions, mass, height,
   danger in the spawn zone);
2. each candidate's value is the weighted sum of :data:`FEATURE_NAMES` (the move score it would have, its depth
   and contacts, minus the board features); the ``beam + keep`` best of each game are placed on copies of their
   states (:meth:`GameBatch.take`, then one :meth:`Playouts.run_placements` batch: shortest legal command path,
   repeat rule respected);
3. the ``beam`` best distinct children of each game are kept.  Keeping several boards per game is the look-ahead:
   a placement is only committed to when its continuations stay among the best.

A game ends when every beam state has ended; its best final state's placements are then spelled as commands by
:func:`puzzlebatch.runners.hextris.phrases.weave` (phrases of power woven into the paths to the same locks);
the woven strings (phrases allowed to run on past a lock into the next unit, and not), the string of the
searching weaver (:func:`puzzlebatch.runners.hextris.weave_search.weave_search`, while the problem's time lasts) and
the plain shortest-path string are scored by the exact batch scorer (:func:`score_solutions`); the time the
problem's share still has then goes to wider searches of each game's best string (:data:`DEEPEN_BEAMS`). The best is
kept and a solution scoring 0 is never returned.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.hextris import evaluation, rules
from puzzlebatch.puzzles.hextris.encode import problem_tables
from puzzlebatch.puzzles.hextris.model import Problem
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.hextris.playouts import GREEDY_WEIGHTS, GameBatch, Playouts, score_solutions, solution_strings

#: the evaluation's weights, one per name.  A state's value is ``w[score] * score + w[depth] * depth +
#: w[contact] * contact - sum(w[k] * feature[k])`` over the board features (the others): the move score so far, then
#: for the last lock its depth (the sum of its members' rows) and the sides it touches, then the hex board features
#: of ``evaluation.B_*`` (holes, covered cells, wells, row and down transitions, mass, height, spawn-zone danger,
#: rows that hold a hole, rows part full).
FEATURE_NAMES = ("score", "depth", "contact", "holes", "covered", "wells", "row_transitions", "down_transitions",
                 "mass", "height", "danger", "hole_rows", "partial_rows")
#: the sign each weight takes in the value (the weights themselves are >= 0)
SIGNS = np.array([1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1], dtype=np.float64)
#: the weight files of earlier versions list fewer features (no ``hole_rows``, no ``partial_rows``): those read 0
OLDEST_WEIGHTS = 11
#: the best of five hand-set vectors on seed 0 of 20 qualifier problems (bench/RESULTS.md): transitions and mass
#: weigh most, a line is worth 20 points, a row of danger 90
DEFAULT_WEIGHTS = np.array([0.2, 0, 0, 0, 0, 3, 3, 5, 3, 0, 90, 0, 0], dtype=np.float64)
#: a board whose rows take this many units or more to fill (its width over the mean unit size) is played, when no
#: weights are given, with the default weights and *rows part full* weighed 1 (:data:`WIDE_ROW_WEIGHTS`).  On such
#: a board a row clears only after tens of units, and a stack of part-full rows climbs to the spawn zone first.
#: Chosen on the qualifier: problem 24 (100 wide, 2.96 cells a unit: 34 units a row) scores 40 % more with that
#: weight; problem 14 (25 units a row) does not gain, problems 7 and 23 (11 and 3) lose a fifth.  Checked on 20
#: generated boards held out from that choice (every board of generator seeds 100-345 with 30 units a row or more),
#: the full player at 30 s a side: more on 9, equal on 5, less on 6, totals +3.8 % (bench/RESULTS.md)
WIDE_ROW_UNITS = 30.0
WIDE_ROW_WEIGHTS = np.array([0.2, 0, 0, 0, 0, 3, 3, 5, 3, 0, 90, 0, 1], dtype=np.float64)
#: weight rows tried again, as a portfolio, on a game that the weights played let die (spawn blocked before its last
#: unit): survival first.  The first three (the spawn zone's danger, rows that hold holes and the mass of the stack
#: weigh most, the score little) come from a random search on problem 18 seed 0; the last two are the default
#: vector with rows part full weighing 6 and 8, which keep that game alive to its last unit at beams 8 to 16
#: (bench/RESULTS.md).  The exact scorer keeps the better of the first game and these, so a retry never loses
#: points
SURVIVAL_WEIGHTS = np.array([[1, 3, 0, 1, 0, 1, 1, 1, 6, 0, 300, 60, 0],
                             [4.06, 5.12, 0, 1.05, 0, 3, 1.61, 0.95, 9.57, 0, 186.95, 69.17, 0],
                             [0.2, 3, 0, 3, 3, 3, 1, 1, 6, 10, 300, 20, 0],
                             [0.2, 0, 0, 0, 0, 3, 3, 5, 3, 0, 90, 0, 6],
                             [0.2, 0, 0, 0, 0, 3, 3, 5, 3, 0, 90, 0, 8]], dtype=np.float64)
#: states expanded per row of a unit by the searching phrase weaver in :func:`spell` (``weave_search``)
SEARCH_BEAM = 24
#: wider searches of the phrase weaver tried in :func:`spell` while a problem's time lasts, and the roots each keeps
#: per row (a small board's game weaves in seconds at these widths; its share of the time would be left unused)
DEEPEN_BEAMS = (64, 256, 1024)
DEEPEN_KEEP = 8
#: the survival retry places at most this many children of one beam state (``BeamPlayer.children``)
SURVIVAL_CHILDREN = 2
_COLUMNS = (None, evaluation.C_PLACE + rules.F_DEPTH, evaluation.C_PLACE + rules.F_CONTACT) + \
    tuple(evaluation.C_BOARD + k for k in (evaluation.B_HOLES, evaluation.B_COVERED, evaluation.B_WELLS,
                                           evaluation.B_ROW_TRANS, evaluation.B_DOWN_TRANS, evaluation.B_MASS,
                                           evaluation.B_HEIGHT, evaluation.B_DANGER, evaluation.B_HOLE_ROWS,
                                           evaluation.B_PARTIAL))


def row_units(problem: Problem) -> float:
    """How many units fill one row of ``problem``'s board: its width over the mean cells of a unit."""
    return problem.width / max(1.0, float(np.mean([len(u.members) for u in problem.units])))


def board_weights(problem: Problem) -> np.ndarray:
    """The weights the beam player uses on ``problem`` when none are given: :data:`WIDE_ROW_WEIGHTS` on a board
    whose rows take :data:`WIDE_ROW_UNITS` units or more to fill, :data:`DEFAULT_WEIGHTS` on the others."""
    return WIDE_ROW_WEIGHTS if row_units(problem) >= WIDE_ROW_UNITS else DEFAULT_WEIGHTS


def load_weights(path: str | Path) -> np.ndarray:
    """Weights from a JSON file: a list of ``len(FEATURE_NAMES)`` numbers, or a list of such lists (a portfolio:
    every game is played with each and the best solution by the exact scorer is kept), or ``{"weights": ...}``
    (one-line error otherwise)."""
    from puzzlebatch.outputs import read_text

    try:
        doc = json.loads(read_text(path, "--weights"))
    except json.JSONDecodeError as e:
        raise PuzzleInputError(f"--weights {path}: not JSON ({e.msg} at line {e.lineno})") from None
    except RecursionError:
        raise PuzzleInputError(f"--weights {path}: JSON nested too deeply") from None
    return check_weights(doc, f"--weights {path}")


def check_weights(doc, where: str = "weights") -> np.ndarray:
    """The player's weights from a value: a list of ``len(FEATURE_NAMES)`` numbers >= 0 (the last ones may be left
    out: 0), a list of such lists (a portfolio), or ``{"weights": ...}``; a one-line error naming ``where``
    otherwise."""
    if isinstance(doc, np.ndarray):
        doc = doc.tolist()
    w = doc.get("weights") if isinstance(doc, dict) else doc
    if isinstance(w, tuple):
        w = list(w)
    portfolio = isinstance(w, list) and w and all(isinstance(r, (list, tuple)) for r in w)
    rows = [list(r) for r in w] if portfolio else [w]
    n = len(FEATURE_NAMES)
    for r in rows:
        if not isinstance(r, list) or not OLDEST_WEIGHTS <= len(r) <= n or \
                not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in r):
            raise PuzzleInputError(f"{where}: expected a list of {n} numbers >= 0 "
                                   f"({', '.join(FEATURE_NAMES)}; the last {n - OLDEST_WEIGHTS} may be left out: "
                                   "0) or a list of such lists (a portfolio)")
    rows = [list(r) + [0] * (n - len(r)) for r in rows]  # files written before "hole_rows" or "partial_rows": 0
    return np.array(rows if portfolio else rows[0], dtype=np.float64)


def candidate_values(scores: np.ndarray, feats: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The value of each candidate child: ``scores`` the parent's move score, ``feats`` the kernel's candidate
    features (``rules.C_*``), ``weights`` one row for all or one row per candidate."""
    x = np.empty((len(feats), len(FEATURE_NAMES)), np.float64)
    x[:, 0] = scores + feats[:, evaluation.C_POINTS]
    for k, col in enumerate(_COLUMNS[1:], start=1):
        x[:, k] = feats[:, col]
    w = np.asarray(weights, dtype=np.float64) * SIGNS
    return (x * w).sum(axis=1) if w.ndim == 2 else x @ w


@dataclass
class GamePlan:
    """One game's chosen placements and the move score the kernel gave them."""

    problem: Problem
    seed: int
    placements: list[tuple[int, int, int]]
    move_score: int
    end: str
    #: commands played before the placements (an opening that spells long phrases, ``phrases.opening``)
    prefix: str = ""


def _top_per_group(groups: np.ndarray, values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest ``values`` of every group (ties: the first), grouped by ascending group."""
    order = np.lexsort((np.arange(len(values)), -values, groups))
    g = groups[order]
    first = np.searchsorted(g, g, side="left")
    return order[np.arange(len(order)) - first < k]


def _rank_in_group(groups: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each value's rank among those of its group (0: the largest; ties: the first)."""
    order = np.lexsort((np.arange(len(values)), -values, groups))
    g = groups[order]
    rank = np.empty(len(values), np.int64)
    rank[order] = np.arange(len(order)) - np.searchsorted(g, g, side="left")
    return rank


@dataclass
class BeamPlayer:
    """Beam search over placements for all seeds of one problem at once (see the module docstring).

    Parameters
    ----------
    beam
        States kept per game after each unit (1 = greedy on the evaluation).
    keep
        Candidates placed per game beyond the beam (the best by value): room for children that turn out to be the
        same board reached in another order, or a finished game.
    weights
        ``[len(FEATURE_NAMES)]`` for every game, or one row per game of :meth:`plan` (the tuner plays every
        genome of a generation in one batch this way).
    """

    problem: Problem
    backend: Backend
    weights: np.ndarray = field(default_factory=lambda: DEFAULT_WEIGHTS.copy())
    beam: int = 4
    keep: int = 8
    max_beam: int = 256
    #: at most this many games (beam states and candidates placed, all seeds) in one batch: bounds the memory
    #: (:func:`games_for_memory`); the beam, then ``keep``, shrink to fit
    max_games: int | None = None
    units_played: int = 0
    #: called with no argument after every unit placed in every game of the batch (progress)
    on_step: Callable[[], None] | None = None
    #: 1: a child's value is that of its best continuation with the next unit of the sequence (its placements
    #: evaluated in the same way, one more kernel call per unit); 0: the child's own value.  Not used with a time
    #: budget, where the same time buys a wider beam
    lookahead: int = 1
    #: at most this many children of one beam state are placed (None: no limit), so that the beam keeps boards
    #: of several parents
    children: int | None = None
    #: candidate placements evaluated by the kernel in the last :meth:`plan`
    placements_evaluated: int = 0
    #: the beam width used at each unit of the last :meth:`plan` (adapted to its ``budget``)
    beams_used: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sim = Playouts([self.problem], self.backend)

    def plan(self, seeds, soft_deadline: float | None = None, hard_deadline: float | None = None,
             budget: float | None = None, prefixes: list[str] | None = None) -> list[GamePlan]:
        """Play every seed; after ``soft_deadline`` (``time.perf_counter()``) the search narrows to beam 1,
        keep 1, placements chosen by the quick greedy score of their placement features (``GREEDY_WEIGHTS``,
        no board evaluation: the time left goes to the phrase weaving); at ``hard_deadline`` it stops and each
        game keeps its best state so far (a legal partial game).

        For every unit, every lockable placement of every beam state is evaluated in one kernel call
        (:meth:`Playouts.evaluate`); the best ``beam + keep`` children of each game by value are placed
        (:meth:`Playouts.run_placements`) and the ``beam`` best distinct boards are kept.

        With ``budget`` (seconds), the beam width adapts after every unit so that the whole sequence
        (``source_length`` units) would take about ``budget``: the seconds per unit and per beam state measured so
        far give the widest beam (between 1 and ``max_beam``, at most doubling or halving per unit) that the time
        left allows for the units left.  Without it the beam is ``beam`` throughout.  ``prefixes[g]``: commands
        game ``g`` plays first (an opening); its plan's placements are those of the units after them."""
        seeds = [int(s) for s in seeds]
        self.beams_used = []
        self.placements_evaluated = 0
        t_start = time.perf_counter()
        width = self.beam
        rate = None  # seconds per unit per beam state (moving average)
        step = 0
        n = len(seeds)
        weights = np.asarray(self.weights, dtype=np.float64)
        cur = self.sim.new_games(seeds)
        prefixes = [""] * n if prefixes is None else [str(x) for x in prefixes]
        if any(prefixes):
            self.sim.run_commands(cur, prefixes)
        owner = np.arange(n)
        node = np.full(n, -1, np.int64)
        parents: list[np.ndarray] = []  # per depth: parent node ids (global numbering)
        places: list[np.ndarray] = []
        best_node = np.full(n, -1, np.int64)
        best_score = cur.move_scores.copy()
        best_end = cur.ends.copy()
        total = 0
        cap = 256
        while len(cur):
            now = time.perf_counter()
            if hard_deadline is not None and now > hard_deadline:
                break
            narrow = soft_deadline is not None and now > soft_deadline
            beam, keep = (1, 1) if narrow else (width, self.keep)
            if self.max_games is not None:
                games = len(np.unique(owner))
                keep = max(0, min(keep, self.max_games // games - 1))
                beam = max(1, min(beam, self.max_games // games - keep))
                width = min(width, max(beam, 1))
            self.beams_used.append(beam)
            t_step = now
            if narrow:  # out of time: the quick greedy score on the placement features only (no board evaluation)
                lock = self.sim.lockable(cur)
                cand = np.zeros((len(cur), max(1, max(len(pl) for pl, _ in lock)), 3), np.int64)
                counts = np.array([len(pl) for pl, _ in lock], np.int64)
                quick = np.full(cand.shape[:2], -np.inf)
                for i, (pl, f) in enumerate(lock):
                    cand[i, : len(pl)] = pl
                    quick[i, : len(pl)] = f @ GREEDY_WEIGHTS
            else:
                cand, feats, counts = self.sim.evaluate(cur, cap)
                cap = max(cap, cand.shape[1])
            si, ci = np.nonzero(np.arange(cand.shape[1])[None, :] < counts[:, None])
            if len(si) == 0:
                break
            self.placements_evaluated += len(si)
            own = owner[si]
            if narrow:
                values = quick[si, ci]
            else:
                values = candidate_values(cur.move_scores[si], feats[si, ci],
                                          weights[own] if weights.ndim == 2 else weights)
            if self.children is not None and not narrow:  # at most ``children`` per beam state: diversity
                values = np.where(_rank_in_group(si, values) < self.children, values, -np.inf)
            pick = _top_per_group(own, values, beam + keep)
            pick = pick[np.isfinite(values[pick])] if self.children is not None and not narrow else pick
            idx, tg, values = si[pick], cand[si[pick], ci[pick]], values[pick]
            ch = cur.take(idx)
            self.sim.run_placements(ch, tg[:, None, :], record=False)
            self.units_played += len(ch)
            if self.on_step is not None:
                self.on_step()
            ch_owner = owner[idx]
            scores = ch.move_scores
            ended = ch.ends != rules.END_IN_PROGRESS
            if self.lookahead and not narrow and budget is None:
                values = self._ahead(ch, ch_owner, values, weights)
                order = np.lexsort((np.arange(len(ch)), -values, ch_owner))
                ch, ch_owner, idx, tg, values = ch.take(order), ch_owner[order], idx[order], tg[order], values[order]
                scores = ch.move_scores
                ended = ch.ends != rules.END_IN_PROGRESS
            improved = {}  # owner -> (child, end): finished children better than the game's best so far
            for j in np.nonzero(ended)[0]:
                o = int(ch_owner[j])
                if (best_node[o] < 0 or scores[j] > best_score[o]) and \
                        (o not in improved or scores[j] > scores[improved[o][0]]):
                    improved[o] = (j, ch.ends[j])
            chosen = []
            seen, count = set(), {}
            for j in np.nonzero(~ended)[0]:  # already best first within each game
                o = int(ch_owner[j])
                if count.get(o, 0) >= beam:
                    continue
                key = (o, ch.boards[j].tobytes(), int(scores[j]))
                if key in seen:
                    continue
                seen.add(key)
                count[o] = count.get(o, 0) + 1
                chosen.append(j)
            chosen = np.array(chosen, np.int64)
            # only the children kept (the beam, and finished games' new bests) enter the tree: memory
            rec = np.union1d(chosen, np.array([v[0] for v in improved.values()], np.int64)).astype(np.int64)
            ids = np.full(len(ch), -1, np.int64)
            ids[rec] = total + np.arange(len(rec))
            total += len(rec)
            parents.append(node[idx[rec]])
            places.append(tg[rec])
            for o, (j, end) in improved.items():
                best_node[o], best_score[o], best_end[o] = ids[j], scores[j], end
            if len(chosen) == 0:
                break
            # a live state better than any finished one so far also counts (stop at the hard deadline)
            for j in chosen:
                o = ch_owner[j]
                if best_node[o] < 0 or scores[j] > best_score[o]:
                    best_node[o], best_score[o], best_end[o] = ids[j], scores[j], rules.END_IN_PROGRESS
            cur = ch.take(chosen)
            owner = ch_owner[chosen]
            node = ids[chosen]
            step += 1
            if budget is not None:
                now = time.perf_counter()
                r = (now - t_step) / max(1, beam)
                rate = r if rate is None else 0.7 * rate + 0.3 * r
                left = max(1, self.problem.source_length - step)
                allowed = (budget - (now - t_start)) / left / max(rate, 1e-9)
                width = int(min(self.max_beam, 2 * width, max(1, width // 2, allowed)))
        return self._plans(seeds, best_node, best_score, best_end, parents, places, prefixes)

    def _ahead(self, ch: GameBatch, ch_owner: np.ndarray, values: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Each child's value replaced by that of its best placement of the next unit (the sequence is known); a
        child whose game has ended keeps its own value, one that has no placement left is worth nothing."""
        cand, feats, counts = self.sim.evaluate(ch)
        si, ci = np.nonzero(np.arange(cand.shape[1])[None, :] < counts[:, None])
        self.placements_evaluated += len(si)
        out = np.where(ch.ends == rules.END_IN_PROGRESS, -np.inf, values)
        if len(si):
            own = ch_owner[si]
            v = candidate_values(ch.move_scores[si], feats[si, ci], weights[own] if weights.ndim == 2 else weights)
            best = np.full(len(ch), -np.inf)
            np.maximum.at(best, si, v)
            live = ch.ends == rules.END_IN_PROGRESS
            out[live] = best[live]
        return out

    def _plans(self, seeds, best_node, best_score, best_end, parents, places, prefixes) -> list[GamePlan]:
        n = len(seeds)
        all_parents = np.concatenate(parents) if parents else np.zeros(0, np.int64)
        all_places = np.concatenate(places) if places else np.zeros((0, 3), np.int64)
        from puzzlebatch.puzzles.hextris.model import END_NAMES

        out = []
        for g in range(n):
            seq = []
            k = int(best_node[g])
            while k >= 0:
                seq.append(tuple(int(v) for v in all_places[k]))
                k = int(all_parents[k])
            out.append(GamePlan(self.problem, seeds[g], seq[::-1], int(best_score[g]), END_NAMES[int(best_end[g])],
                                prefixes[g]))
        return out


@dataclass
class Solved:
    """One emitted solution with its exact score."""

    entry: dict  # official {"problemId", "seed", "tag", "solution"}
    move_score: int
    power_score: int
    total: int
    end: str
    woven: bool


def spell(plans: list[GamePlan], backend: Backend, phrases: list[str], *, tag: str = "puzzlebatch-beam",
          weave_phrases: bool = True, deadline: float | None = None, search_beam: int = SEARCH_BEAM) -> list[Solved]:
    """Commands for planned games: plain shortest paths, the greedy weavings (:func:`phrases.weave`, phrases
    running on past locks or not) and the searching weaving (:func:`weave_search.weave_search` with ``search_beam``
    states per row; 0: not tried), all scored by the exact scorer; the best of each game is kept, and a game whose
    best solution scores 0 is left out."""
    from puzzlebatch.runners.hextris.phrases import weave
    from puzzlebatch.runners.hextris.weave_search import weave_search

    if not plans:
        return []
    problems = {p.problem.id: p.problem for p in plans}
    # plain shortest paths from the kernel, all games in one batch per problem
    plain: dict[int, str] = {}
    for pid, prob in problems.items():
        gi = [i for i, p in enumerate(plans) if p.problem.id == pid]
        sim = Playouts([prob], backend)
        games = sim.new_games([plans[i].seed for i in gi])
        if any(plans[i].prefix for i in gi):
            sim.run_commands(games, [plans[i].prefix for i in gi])
        k = max(1, max(len(plans[i].placements) for i in gi))
        tg = np.zeros((len(gi), k, 3), np.int64)
        nt = np.zeros(len(gi), np.int64)
        for r, i in enumerate(gi):
            pl = plans[i].placements
            if pl:
                tg[r, : len(pl)] = pl
            nt[r] = len(pl)
        for r, s in zip(gi, solution_strings(sim.run_placements(games, (tg, nt)))):
            plain[r] = plans[r].prefix + s
    entries, woven_flags, owner = [], [], []  # owner: the plan each string spells
    tabs = {pid: problem_tables(p).tolist() for pid, p in problems.items()}
    for i, p in enumerate(plans):
        entries.append({"problemId": p.problem.id, "seed": p.seed, "tag": tag, "solution": plain[i]})
        woven_flags.append(False)
        owner.append(i)
        for across in (True, False):  # phrases running on past locks or not: the exact scorer keeps the better
            if weave_phrases and phrases and (deadline is None or time.perf_counter() < deadline):
                entries.append({"problemId": p.problem.id, "seed": p.seed, "tag": tag,
                                "solution": weave(tabs[p.problem.id], p.seed, p.placements, phrases,
                                                  deadline=deadline, across=across, prefix=p.prefix)})
                woven_flags.append(True)
                owner.append(i)
    searched = 0.0
    if weave_phrases and phrases and search_beam > 0:
        # then the searching weaver, game after game while the time lasts (past the deadline a game's remaining
        # units take shortest paths: the exact scorer then keeps the greedy weavings)
        t = time.perf_counter()
        for i, p in enumerate(plans):
            if deadline is not None and time.perf_counter() >= deadline:
                break
            try:
                text = weave_search(tabs[p.problem.id], p.seed, p.placements, phrases, beam=search_beam,
                                    deadline=deadline, prefix=p.prefix)
            except ValueError:  # pragma: no cover - the search checks its own string; never worse than none
                continue
            entries.append({"problemId": p.problem.id, "seed": p.seed, "tag": tag, "solution": text})
            woven_flags.append(True)
            owner.append(i)
        searched = time.perf_counter() - t
    totals = list(score_solutions(problems, entries, phrases, backend).scores)
    if weave_phrases and phrases and search_beam > 0 and deadline is not None:
        _deepen(plans, tabs, phrases, backend, entries, woven_flags, owner, totals, search_beam, searched, deadline)
    best: dict[tuple[int, int], int] = {}
    for k, s in enumerate(totals):
        key = (s.problemId, s.seed)
        if key not in best or s.total > totals[best[key]].total:
            best[key] = k
    out = []
    for _key, k in best.items():
        s = totals[k]
        if s.total <= 0:
            continue
        out.append(Solved(entries[k], s.move_score, s.power_score, s.total, s.end, woven_flags[k]))
    return out


def _deepen(plans, tabs, phrases, backend, entries, woven_flags, owner, totals, beam, took, deadline) -> None:
    """Spend the rest of a problem's time on wider phrase searches: each game's best string so far is woven
    again at ``DEEPEN_BEAMS`` (4x wider each time, ``DEEPEN_KEEP`` roots per row), from its plan's start and from
    its own opening (:func:`phrases.opening_of`: the string up to its last long phrase, the rest woven again); a
    width is tried only while its expected time (the last width's, scaled by the ratio of widths) fits before
    ``deadline``.  New strings are appended to ``entries`` / ``totals`` (scored by the exact scorer)."""
    from puzzlebatch.runners.hextris.phrases import opening_of
    from puzzlebatch.runners.hextris.weave_search import weave_search

    problems = {p.problem.id: p.problem for p in plans}
    # seconds per weaving at the last width (about linear in the width; the roots kept change it little)
    last, each = beam, took / max(1, len(plans))
    for width in DEEPEN_BEAMS:
        if width <= last:
            continue
        best: dict[tuple[int, int], int] = {}
        for k, s in enumerate(totals):
            key = (s.problemId, s.seed)
            if key not in best or s.total > totals[best[key]].total:
                best[key] = k
        jobs = []  # (entry whose string is woven again, its start, the placements after it)
        for k in best.values():
            p = plans[owner[k]]
            jobs.append((k, p.prefix, p.placements))
            got = opening_of(tabs[p.problem.id], p.seed, entries[k]["solution"], phrases)
            if got and got[0] != p.prefix:
                jobs.append((k,) + got)
        if time.perf_counter() + each * len(jobs) * width / last > deadline:
            break
        t, new, new_owner = time.perf_counter(), [], []
        for k, prefix, places in jobs:
            if time.perf_counter() >= deadline:
                break
            p = plans[owner[k]]
            try:
                text = weave_search(tabs[p.problem.id], p.seed, places, phrases, beam=width, keep=DEEPEN_KEEP,
                                    deadline=deadline, prefix=prefix)
            except ValueError:  # pragma: no cover - as in spell
                continue
            new.append(dict(entries[k], solution=text))
            new_owner.append(owner[k])
        if not new:
            break
        entries.extend(new)
        woven_flags.extend([True] * len(new))
        owner.extend(new_owner)
        totals.extend(score_solutions(problems, new, phrases, backend).scores)
        each, last = (time.perf_counter() - t) / len(new), width


def state_bytes(problem: Problem, backend: Backend) -> int:
    """Bytes one game copy of the beam search holds (its state, board, visited set and kernel work arrays, the
    candidate list, and its share of the plan tree over the whole unit sequence)."""
    ts = Playouts([problem], backend).tableset
    nw = (problem.width + 63) // 64
    # the state, its BFS work arrays, the evaluation's scratch board and its candidate list (256 rows at least)
    return 8 * (2 * ts.work_len + 2 * ts.board_words + 2 * nw + ts.vis_words + rules.STATE_LEN
                + 256 * (3 + evaluation.N_CAND)) + 32 * problem.source_length


def games_for_memory(problem: Problem, backend: Backend, megabytes: float) -> int:
    """How many game copies fit in half of ``megabytes`` (the other half for Python, numba and the output)."""
    return max(1, int(0.5 * megabytes * 2**20 // state_bytes(problem, backend)))


def _warm_up(problem: Problem, backend: Backend) -> None:
    """Compile the kernels the player uses (numba compiles on first call) on one unit of one game: the narrowed
    search's ``lockable`` too, so that it is never compiled inside a problem's share of the time."""
    sim = Playouts([problem], backend)
    g = sim.new_games(problem.source_seeds[:1])
    sim.lockable(g)
    pl, _, n = sim.evaluate(g)
    if n[0]:
        sim.run_placements(g.take([0]), pl[:1, :1, :])
    sim.run_commands(g, ["l"])


def survival_plans(problem: Problem, backend: Backend, plans: list[GamePlan], beam: int, keep: int, max_beam: int,
                    cap: int | None, soft: float | None, hard: float | None, budget: float | None) -> list[GamePlan]:
    """The games of ``plans`` that ended spawn-blocked, planned again with every row of :data:`SURVIVAL_WEIGHTS`
    (one batch, at most :data:`SURVIVAL_CHILDREN` children per beam state; ``budget`` the planning seconds left,
    none: the fixed beam)."""
    # once per seed and start (a portfolio may have let the same game die under several weight rows)
    dead = list({(g.seed, g.prefix): g for g in plans if g.end == "spawn_blocked"}.values())
    if not dead or (budget is not None and budget <= 0) or (hard is not None and time.perf_counter() > hard):
        return []
    rows = len(SURVIVAL_WEIGHTS)
    w = np.repeat(SURVIVAL_WEIGHTS, len(dead), axis=0)
    player = BeamPlayer(problem, backend, w, beam, keep, max_beam, cap, children=SURVIVAL_CHILDREN)
    return player.plan([g.seed for g in dead] * rows, soft, hard, budget, [g.prefix for g in dead] * rows)


#: the share of ``seconds`` after which the planning stops (the rest: the last problem's weaving and scoring)
PLAN_STOP = 0.85

#: unit placements a second (games x units) the planning sustains at beam 4 on the 2-core Xeon of
#: bench/RESULTS.md (problem 18: six rows of a 1,000-unit game in about 26 s): what a portfolio row costs
PORTFOLIO_RATE = 250.0


def portfolio_rows(rows: int, budget: float, placements: int) -> int:
    """How many of a portfolio's ``rows`` to play when the planning has ``budget`` seconds for ``placements``
    unit placements a row (units x games): every row costs a whole set of games, and a portfolio that cannot
    finish its games in the time loses more to short beams and partial games than its other rows win (0: not
    one row's games fit)."""
    return max(0, min(int(rows), int(budget * PORTFOLIO_RATE // max(1, placements))))


#: a clocked portfolio plays its other rows only when its first row left at least this share of the problem's time
#: (and :data:`AFTER_MIN_S` seconds): below it their games would be cut short
AFTER_MIN_SHARE = 0.15
AFTER_MIN_S = 1.0


def rows_in_time_left(problem: Problem, backend: Backend, rows: np.ndarray, games: list[int], prefixes: list[str],
                      phrases: list[str], start: float, mine: float, hard: float | None, *, beam: int, keep: int,
                      max_beam: int, cap: int | None, plan_share: float, tag: str,
                      weave_phrases: bool) -> tuple[list[Solved], int]:
    """A clocked portfolio's rows after the first, in the time the first row (planned, retried and woven) left of
    the problem's share (from now to ``mine``; the share began at ``start``): the rows whose games fit
    (:func:`portfolio_rows`; none when not one row's do), in one batch, the beam adapted to ``plan_share`` of that
    time, then woven until ``mine``.  Returns their solutions (the best of each game) and the rows played (0: too
    little time left)."""
    now = time.perf_counter()
    left = mine - now
    budget = plan_share * left
    rows = rows[:portfolio_rows(len(rows), budget, problem.source_length * len(games))]
    if left < max(AFTER_MIN_S, AFTER_MIN_SHARE * (mine - start)) or not len(rows):
        return [], 0
    player = BeamPlayer(problem, backend, np.repeat(rows, len(games), axis=0), beam, keep, max_beam, cap)
    # greedy past 3/4 of the time left, stopped at 0.85 of it: the weaving and scoring of their games need the rest
    stop = now + 0.85 * left if hard is None else min(hard, now + 0.85 * left)
    plans = player.plan(games * len(rows), now + 0.75 * left, stop, budget, prefixes * len(rows))
    return spell(plans, backend, phrases, tag=tag, weave_phrases=weave_phrases, deadline=mine), len(rows)


def best_of(first: list[Solved], more: list[Solved]) -> list[Solved]:
    """Per game (problem and seed), the better of ``first``'s solution and ``more``'s (ties: ``first``'s), in
    ``first``'s order, then the games only ``more`` solved."""
    best = {(s.entry["problemId"], s.entry["seed"]): s for s in first}
    for s in more:
        key = (s.entry["problemId"], s.entry["seed"])
        if key not in best or s.total > best[key].total:
            best[key] = s
    return list(best.values())


def play_problems(problems: list[Problem], backend: Backend, *, seeds: dict[int, list[int]] | None = None,
                  weights=None, beam: int = 4, keep: int = 8, phrases: list[str] | None = None,
                  seconds: float | None = None, tag: str = "puzzlebatch-beam", weave_phrases: bool = True,
                  on_problem=None, adaptive: bool = True, max_beam: int = 256, plan_share: float = 0.6,
                  timings: list | None = None, megabytes: float | None = None, openings: bool = True,
                  survival: bool = True, on_unit: Callable[[Problem], None] | None = None) -> list[Solved]:
    """Plan and spell every seed of every problem (``seeds[problem.id]`` overrides the seeds played).

    With ``openings`` (and phrases woven), a seed that has an opening spelling the long phrases
    (:func:`puzzlebatch.runners.hextris.phrases.opening`) is planned twice in the same batch, from the start and
    after the opening; the exact scorer keeps the better.

    With ``seconds``, the kernels are compiled first, then each problem gets a share of the time left proportional
    to the square root of its units × seeds × width.  With ``adaptive`` (the default) the planning gets
    ``plan_share`` of the share as
    its budget and the beam width adapts to it (:meth:`BeamPlayer.plan`, from ``beam`` up to ``max_beam``); past
    80 % of its share the search narrows to greedy (beam 1, keep 1); past 85 % of the whole time the planning
    stops (the games keep their best state: legal partial games) and the phrase weaving tries no more phrases past
    the problem's share.  Without ``seconds`` the beam is ``beam`` throughout.  ``timings`` (a list) receives
    one dict per problem: planning and spelling seconds, budget, mean and largest beam, games retried for
    survival.  ``megabytes`` bounds the games held at once (:func:`games_for_memory`; the beam and ``keep`` shrink
    to fit, down to one state per game).

    With ``survival``, a game whose plan ends spawn-blocked before its last unit is planned again with every row of
    :data:`SURVIVAL_WEIGHTS` (one batch, in the planning time left); all its plans are spelled and the exact scorer
    keeps the best.

    ``weights``: one row, a portfolio of rows (every game once per row, in one batch: the exact scorer keeps the
    best), a function of the problem giving either (or None), ``"fit"``: the portfolio chosen from the board's
    features (:func:`puzzlebatch.runners.hextris.fit.fitted_weights`), or None: :func:`board_weights` (the default
    weights, *rows part full* weighed 1 on boards of wide rows).  With ``seconds``, a portfolio's first row plays
    as if it were alone (its share of the time, the survival retries, the weaving), and the other rows, first
    first, play in the time it leaves of the problem's share (:func:`rows_in_time_left`, as many as fit); a game's
    solution is replaced only by one that scores more.  So on a clock a portfolio plays its first row exactly as
    that row alone would.

    ``on_unit(problem)``, if given, is called after each unit the planning places in the problem's games (at most
    ``problem.source_length`` times; ``on_problem`` follows when the problem is done).
    """
    from puzzlebatch.puzzles.hextris.model import load_phrases

    phrases = load_phrases() if phrases is None else phrases
    if isinstance(weights, str) and weights == "fit":  # a portfolio per board, chosen from its features
        from puzzlebatch.runners.hextris.fit import JITTER_ROWS, fitted_weights

        # on a clock, rows near the default weights too, for the time the default row leaves
        weights = partial(fitted_weights, jitter=JITTER_ROWS if seconds is not None else 0)
    per_problem = weights if callable(weights) else (lambda p, w=weights: w)
    t0 = time.perf_counter()
    seed_lists = [list(dict.fromkeys(seeds[p.id] if seeds and p.id in seeds else p.source_seeds)) for p in problems]
    # each problem's share of the time: the square root of its work (units x seeds x width), so that the problems
    # of one seed, which count as much in a ranking as those of fifty, still get wide beams
    work = np.sqrt(np.array([p.source_length * len(s) * p.width for p, s in zip(problems, seed_lists)],
                            dtype=np.float64))
    if problems and seconds is not None:
        _warm_up(problems[0], backend)
    out: list[Solved] = []
    for i, (p, s) in enumerate(zip(problems, seed_lists)):
        start = time.perf_counter()
        soft = hard = mine = budget = None
        if seconds is not None:
            hard = t0 + PLAN_STOP * seconds
            mine = start + max(0.0, hard - start) * work[i] / max(work[i:].sum(), 1.0)  # this problem's share
            soft = start + 0.8 * (mine - start)  # past it: greedy; the rest of the share for the weaving
            budget = plan_share * (mine - start) if adaptive else None
        cap = None if megabytes is None else games_for_memory(p, backend, megabytes)
        games, prefixes = list(s), [""] * len(s)
        if openings and weave_phrases and phrases:
            from puzzlebatch.runners.hextris.phrases import opening

            tab = problem_tables(p).tolist()
            for seed in s:
                found = opening(tab, seed, phrases)
                if found:
                    games.append(seed)
                    prefixes.append(found[0][0])
        weights = per_problem(p)
        weights = board_weights(p) if weights is None else np.asarray(weights, dtype=np.float64)
        after = None  # with a clock, a portfolio's first row plays alone; the others in the time it leaves
        if weights.ndim == 2 and budget is not None:
            weights, after = weights[0], (weights[1:] if len(weights) > 1 else None)
        if weights.ndim == 2 and len(weights) == 1:
            weights = weights[0]
        rows = len(weights) if weights.ndim == 2 else 1  # a portfolio: every game once per weight row, one batch
        w = np.repeat(weights, len(games), axis=0) if weights.ndim == 2 else weights
        player = BeamPlayer(p, backend, w, beam, keep, max_beam, cap)
        if on_unit is not None:
            player.on_step = lambda p=p: on_unit(p)
        plans = player.plan(games * rows, soft, hard, budget, prefixes * rows)
        retried = []
        if survival:
            retried = survival_plans(p, backend, plans, beam, keep, max_beam, cap, soft, hard,
                                     None if budget is None else budget - (time.perf_counter() - start))
            plans += retried
        t_plan = time.perf_counter()
        solved = spell(plans, backend, phrases, tag=tag, weave_phrases=weave_phrases, deadline=mine)
        played_after = 0
        if after is not None:  # the time the first row left of the share, for the other rows
            more, played_after = rows_in_time_left(p, backend, after, games, prefixes, phrases, start, mine, hard,
                                                   beam=beam, keep=keep, max_beam=max_beam, cap=cap,
                                                   plan_share=plan_share, tag=tag, weave_phrases=weave_phrases)
            solved = best_of(solved, more)
        out.extend(solved)
        if timings is not None:
            used = player.beams_used
            timings.append({"problem": p.id, "plan_s": t_plan - start, "spell_s": time.perf_counter() - t_plan,
                            "budget_s": budget, "mean_beam": float(np.mean(used)) if used else 0.0,
                            "max_beam": int(max(used)) if used else 0,
                            "survival_retries": len(retried) // len(SURVIVAL_WEIGHTS),
                            "rows_after": played_after})
        if on_problem is not None:
            on_problem(p, solved)
    return out
