"""The hex Tetris player: beam search over lockable placements, every candidate evaluated in batch on the
playout kernels, with phrases of power woven into the command paths and every solution re-scored by the exact
scorer.

For every unit of every game (all seeds of a problem advance together, one batch; the unit sequence is the one
the seed's generator gives, so the search plans with the units that will come):

1. :meth:`Playouts.evaluate` lists, for each beam state, every position where the unit can lock (a breadth-first
   search over positions, pivot × rotation class, in the kernel) with the features of the board each would leave
   (the lock and its line clears done on a scratch copy, then the hex evaluation ``rules.board_eval``: holes that
   no unit can reach, covered cells, wells, row and down transitions, height, danger in the spawn zone);
2. each candidate's value is the weighted sum of :data:`FEATURE_NAMES` (the move score it would have, its depth
   and contacts, minus the board features); the ``beam + keep`` best of each game are placed on copies of their
   states (:meth:`GameBatch.take`, then one :meth:`Playouts.run_placements` batch: shortest legal command path,
   repeat rule respected);
3. the ``beam`` best distinct children of each game are kept.  Keeping several boards per game is the look-ahead:
   a placement is only committed to when its continuations stay among the best.

A game ends when every beam state has ended; its best final state's placements are then spelled as commands by
:func:`puzzlebatch.puzzles.hextris.phrases.weave` (phrases of power woven into the paths to the same locks),
and the woven strings (phrases allowed to run on past a lock into the next unit, and not) and the plain
shortest-path string are scored by the exact batch scorer (:func:`score_solutions`): the best is kept and a
solution scoring 0 is never returned.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.hextris import rules
from puzzlebatch.puzzles.hextris.encode import problem_tables
from puzzlebatch.puzzles.hextris.model import Problem
from puzzlebatch.runners.backend import Backend
from puzzlebatch.runners.hextris import GameBatch, Playouts, score_solutions, solution_strings

#: the evaluation's weights, one per name.  A state's value is ``w[score] * score + w[depth] * depth +
#: w[contact] * contact - sum(w[k] * feature[k])`` over the board features (the others): the move score so far, then
#: for the last lock its depth (the sum of its members' rows) and the sides it touches, then the hex board features
#: of ``rules.B_*`` (holes, covered cells, wells, row and down transitions, height, spawn-zone danger).
FEATURE_NAMES = ("score", "depth", "contact", "holes", "covered", "wells", "row_transitions", "down_transitions",
                 "mass", "height", "danger")
#: the sign each weight takes in the value (the weights themselves are >= 0)
SIGNS = np.array([1, 1, 1, -1, -1, -1, -1, -1, -1, -1, -1], dtype=np.float64)
#: the best of five hand-set vectors on seed 0 of 20 qualifier problems (bench/RESULTS.md): transitions and mass
#: weigh most, a line is worth 20 points, a row of danger 90
DEFAULT_WEIGHTS = np.array([0.2, 0, 0, 0, 0, 3, 3, 5, 3, 0, 90], dtype=np.float64)
_COLUMNS = (None, rules.C_PLACE + rules.F_DEPTH, rules.C_PLACE + rules.F_CONTACT) + \
    tuple(rules.C_BOARD + k for k in range(rules.N_BOARD))


def load_weights(path: str | Path) -> np.ndarray:
    """Weights from a JSON file: a list of ``len(FEATURE_NAMES)`` numbers, or a list of such lists (a portfolio:
    every game is played with each and the best solution by the exact scorer is kept), or ``{"weights": ...}``
    (one-line error otherwise)."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise PuzzleInputError(f"--weights {path}: cannot read ({e.strerror})") from None
    except json.JSONDecodeError as e:
        raise PuzzleInputError(f"--weights {path}: not JSON ({e.msg} at line {e.lineno})") from None
    w = doc.get("weights") if isinstance(doc, dict) else doc
    rows = w if isinstance(w, list) and w and all(isinstance(r, list) for r in w) else [w]
    for r in rows:
        if not isinstance(r, list) or len(r) != len(FEATURE_NAMES) or \
                not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in r):
            raise PuzzleInputError(f"--weights {path}: expected a list of {len(FEATURE_NAMES)} numbers >= 0 "
                                   f"({', '.join(FEATURE_NAMES)}) or a list of such lists (a portfolio)")
    return np.array(w, dtype=np.float64)


def candidate_values(scores: np.ndarray, feats: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The value of each candidate child: ``scores`` the parent's move score, ``feats`` the kernel's candidate
    features (``rules.C_*``), ``weights`` one row for all or one row per candidate."""
    x = np.empty((len(feats), len(FEATURE_NAMES)), np.float64)
    x[:, 0] = scores + feats[:, rules.C_POINTS]
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
    #: 1: a child's value is that of its best continuation with the next unit of the sequence (its placements
    #: evaluated in the same way, one more kernel call per unit); 0: the child's own value
    lookahead: int = 1
    #: candidate placements evaluated by the kernel in the last :meth:`plan`
    placements_evaluated: int = 0
    #: the beam width used at each unit of the last :meth:`plan` (adapted to its ``budget``)
    beams_used: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sim = Playouts([self.problem], self.backend)

    def plan(self, seeds, soft_deadline: float | None = None, hard_deadline: float | None = None,
             budget: float | None = None, prefixes: list[str] | None = None) -> list[GamePlan]:
        """Play every seed; after ``soft_deadline`` (``time.perf_counter()``) the search narrows to beam 1,
        keep 1; at ``hard_deadline`` it stops and each game keeps its best state so far (a legal partial game).

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
            cand, feats, counts = self.sim.evaluate(cur, cap)
            cap = max(cap, cand.shape[1])
            si, ci = np.nonzero(np.arange(cand.shape[1])[None, :] < counts[:, None])
            if len(si) == 0:
                break
            self.placements_evaluated += len(si)
            f = feats[si, ci]
            own = owner[si]
            values = candidate_values(cur.move_scores[si], f, weights[own] if weights.ndim == 2 else weights)
            pick = _top_per_group(own, values, beam + keep)
            idx, tg, values = si[pick], cand[si[pick], ci[pick]], values[pick]
            ch = cur.take(idx)
            self.sim.run_placements(ch, tg[:, None, :], record=False)
            self.units_played += len(ch)
            ch_owner = owner[idx]
            scores = ch.move_scores
            ended = ch.ends != rules.END_IN_PROGRESS
            if self.lookahead and not narrow:
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
          weave_phrases: bool = True, deadline: float | None = None) -> list[Solved]:
    """Commands for planned games: woven with phrases and plain shortest paths, both scored by the exact scorer;
    the better of each game is kept, and a game whose best solution scores 0 is left out."""
    from puzzlebatch.puzzles.hextris.phrases import weave

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
    entries, woven_flags = [], []
    tabs = {pid: problem_tables(p).tolist() for pid, p in problems.items()}
    for i, p in enumerate(plans):
        entries.append({"problemId": p.problem.id, "seed": p.seed, "tag": tag, "solution": plain[i]})
        woven_flags.append(False)
        for across in (True, False):  # phrases running on past locks or not: the exact scorer keeps the better
            if weave_phrases and phrases and (deadline is None or time.perf_counter() < deadline):
                entries.append({"problemId": p.problem.id, "seed": p.seed, "tag": tag,
                                "solution": weave(tabs[p.problem.id], p.seed, p.placements, phrases,
                                                  deadline=deadline, across=across, prefix=p.prefix)})
                woven_flags.append(True)
    run = score_solutions(problems, entries, phrases, backend)
    best: dict[tuple[int, int], int] = {}
    for k, s in enumerate(run.scores):
        key = (s.problemId, s.seed)
        if key not in best or s.total > run.scores[best[key]].total:
            best[key] = k
    out = []
    for key, k in best.items():
        s = run.scores[k]
        if s.total <= 0:
            continue
        out.append(Solved(entries[k], s.move_score, s.power_score, s.total, s.end, woven_flags[k]))
    return out


def state_bytes(problem: Problem, backend: Backend) -> int:
    """Bytes one game copy of the beam search holds (its state, board, visited set and kernel work arrays, the
    candidate list, and its share of the plan tree over the whole unit sequence)."""
    ts = Playouts([problem], backend).tableset
    nw = (problem.width + 63) // 64
    # the state, its BFS work arrays, the evaluation's scratch board and its candidate list (256 rows at least)
    return 8 * (2 * ts.work_len + 2 * ts.board_words + 2 * nw + ts.vis_words + rules.STATE_LEN
                + 256 * (3 + rules.N_CAND)) + 32 * problem.source_length


def games_for_memory(problem: Problem, backend: Backend, megabytes: float) -> int:
    """How many game copies fit in half of ``megabytes`` (the other half for Python, numba and the output)."""
    return max(1, int(0.5 * megabytes * 2**20 // state_bytes(problem, backend)))


def _warm_up(problem: Problem, backend: Backend) -> None:
    """Compile the kernels the player uses (numba compiles on first call) on one unit of one game."""
    sim = Playouts([problem], backend)
    g = sim.new_games(problem.source_seeds[:1])
    pl, _, n = sim.evaluate(g)
    if n[0]:
        sim.run_placements(g.take([0]), pl[:1, :1, :])
    sim.run_commands(g, ["l"])


def play_problems(problems: list[Problem], backend: Backend, *, seeds: dict[int, list[int]] | None = None,
                  weights=None, beam: int = 4, keep: int = 8, phrases: list[str] | None = None,
                  seconds: float | None = None, tag: str = "puzzlebatch-beam", weave_phrases: bool = True,
                  on_problem=None, adaptive: bool = True, max_beam: int = 256, plan_share: float = 0.6,
                  timings: list | None = None, megabytes: float | None = None, openings: bool = True) -> list[Solved]:
    """Plan and spell every seed of every problem (``seeds[problem.id]`` overrides the seeds played).

    With ``openings`` (and phrases woven), a seed that has an opening spelling the long phrases
    (:func:`puzzlebatch.puzzles.hextris.phrases.opening`) is planned twice in the same batch, from the start and
    after the opening; the exact scorer keeps the better.

    With ``seconds``, the kernels are compiled first, then each problem gets a share of the time left proportional
    to its units × seeds × width.  With ``adaptive`` (the default) the planning gets ``plan_share`` of the share as
    its budget and the beam width adapts to it (:meth:`BeamPlayer.plan`, from ``beam`` up to ``max_beam``); past
    80 % of its share the search narrows to greedy (beam 1, keep 1); past 85 % of the whole time the planning
    stops (the games keep their best state: legal partial games) and the phrase weaving tries no more phrases past
    the problem's share.  Without ``seconds`` the beam is ``beam`` throughout.  ``timings`` (a list) receives
    one dict per problem: planning and spelling seconds, budget, mean and largest beam.  ``megabytes`` bounds the
    games held at once (:func:`games_for_memory`; the beam and ``keep`` shrink to fit, down to one state per game).
    """
    from puzzlebatch.puzzles.hextris.model import load_phrases

    phrases = load_phrases() if phrases is None else phrases
    weights = DEFAULT_WEIGHTS if weights is None else np.asarray(weights)
    if weights.ndim == 2 and len(weights) == 1:
        weights = weights[0]
    t0 = time.perf_counter()
    seed_lists = [list(dict.fromkeys(seeds[p.id] if seeds and p.id in seeds else p.source_seeds)) for p in problems]
    work = np.array([p.source_length * len(s) * p.width for p, s in zip(problems, seed_lists)], dtype=np.float64)
    if problems and seconds is not None:
        _warm_up(problems[0], backend)
    out: list[Solved] = []
    for i, (p, s) in enumerate(zip(problems, seed_lists)):
        start = time.perf_counter()
        soft = hard = mine = budget = None
        if seconds is not None:
            hard = t0 + 0.85 * seconds
            mine = start + max(0.0, hard - start) * work[i] / max(work[i:].sum(), 1.0)  # this problem's share
            soft = start + 0.8 * (mine - start)  # past it: greedy; the rest of the share for the weaving
            budget = plan_share * (mine - start) if adaptive else None
        cap = None if megabytes is None else games_for_memory(p, backend, megabytes)
        games, prefixes = list(s), [""] * len(s)
        if openings and weave_phrases and phrases:
            from puzzlebatch.puzzles.hextris.phrases import opening

            tab = problem_tables(p).tolist()
            for seed in s:
                found = opening(tab, seed, phrases)
                if found:
                    games.append(seed)
                    prefixes.append(found[0][0])
        rows = len(weights) if weights.ndim == 2 else 1  # a portfolio: every game once per weight row, one batch
        w = np.repeat(weights, len(games), axis=0) if weights.ndim == 2 else weights
        player = BeamPlayer(p, backend, w, beam, keep, max_beam, cap)
        plans = player.plan(games * rows, soft, hard, budget, prefixes * rows)
        t_plan = time.perf_counter()
        solved = spell(plans, backend, phrases, tag=tag, weave_phrases=weave_phrases, deadline=mine)
        out.extend(solved)
        if timings is not None:
            used = player.beams_used
            timings.append({"problem": p.id, "plan_s": t_plan - start, "spell_s": time.perf_counter() - t_plan,
                            "budget_s": budget, "mean_beam": float(np.mean(used)) if used else 0.0,
                            "max_beam": int(max(used)) if used else 0})
        if on_problem is not None:
            on_problem(p, solved)
    return out


# -- the `hextris play` command (beam player) -----------------------------------------------------------------------
def _phrases(args) -> list[str]:
    from puzzlebatch.puzzles.hextris.model import load_phrases

    if args.no_phrases:
        return []
    out = list(args.phrase or [])
    if args.phrases:
        out += load_phrases(args.phrases)
    return out or load_phrases()


def run_play_beam(args, problems: list[Problem]) -> int:
    """``puzzlebatch hextris play`` with the beam player: official solutions (or ``--json`` with scores) on
    stdout; ``--out`` stores each problem's solutions as it finishes and ``--resume`` skips those."""
    import sys

    from puzzlebatch.runners.backend import select_backend
    from puzzlebatch.runners.progress import bar

    if args.resume and not args.out:
        raise PuzzleInputError("--resume needs --out FILE.h5 (the results file of the interrupted run)")
    if args.seed is not None and args.all_seeds:
        raise PuzzleInputError("--seed and --all-seeds: give one of them")
    if args.beam < 1 or args.keep < 1:
        raise PuzzleInputError(f"--beam {args.beam} --keep {args.keep}: both must be at least 1")
    seeds = None
    if args.seed is not None:
        for p in problems:
            if args.seed not in p.source_seeds:
                raise PuzzleInputError(f"--seed {args.seed}: not a seed of problem {p.id} "
                                       f"({', '.join(map(str, p.source_seeds))})")
        seeds = {p.id: [args.seed] for p in problems}
    weights = load_weights(args.weights) if args.weights else DEFAULT_WEIGHTS
    phrases = _phrases(args)
    backend = select_backend(args.backend)
    t0 = time.perf_counter()  # the time limit is wall time
    w0 = work_clock()  # reported seconds leave compiling out
    done: list[dict] = []
    store = run = None
    if args.out:
        from puzzlebatch.results.store import ResultsStore

        params = {"problems": [p.id for p in problems], "weights": np.asarray(weights).tolist(), "beam": args.beam,
                  "keep": args.keep, "seed": args.seed, "phrases": phrases, "tag": args.tag}
        out = Path(args.out)
        if args.resume and not out.exists():
            raise PuzzleInputError(f"--resume: {out} does not exist; give the --out file of the interrupted run")
        store = ResultsStore(out, "a")
        if args.resume:
            for rid in reversed(store.run_ids()):
                r = store.run(rid)
                if r.attrs.get("algorithm") == "beam-play" and r.attrs.get("status") != "done" \
                        and r.attrs["params"] == params:
                    run = r
                    break
            if run is None:
                store.close()
                raise PuzzleInputError(f"--resume: {out} has no unfinished beam play with these settings")
            ck = run.load_checkpoint()
            if ck is not None:
                done = list(ck[1].get("done", []))
        else:
            run = store.create_run("hextris", "beam-play", backend=backend.name, device=backend.device, seed=None,
                                   params=params)
    finished = {d["entry"]["problemId"] for d in done}
    todo = [p for p in problems if p.id not in finished]
    progress = bar("hextris play", unit="problem", total=len(problems))
    progress.update(len(problems) - len(todo))

    import threading

    play, pool = play_problems, None
    if getattr(args, "scheduler", None):  # one problem per Dask task (hextris_dist)
        from puzzlebatch.runners.distributed import open_pool
        from puzzlebatch.runners.hextris_dist import play_on_pool, problem_specs

        pool = open_pool(args.scheduler, args.backend, args.item_seconds)
        play = play_on_pool(pool, problem_specs(args.problems, problems))
    lock = threading.Lock()
    stopped = [False]  # set at the time limit: the worker thread records nothing more

    def on_problem(p, solved):
        with lock:
            if stopped[0]:
                return
            done.extend({"entry": s.entry, "move_score": s.move_score, "power_score": s.power_score,
                         "total": s.total, "end": s.end, "woven": s.woven} for s in solved)
            if run is not None:
                run.save_checkpoint({"problem_ids": np.array(sorted({d["entry"]["problemId"] for d in done}))},
                                    {"done": done})
            progress.update(1)

    def work():
        play(todo, backend, seeds=seeds, weights=weights, beam=args.beam, keep=args.keep, phrases=phrases,
             seconds=None if args.time is None else max(0.1, args.time - (time.perf_counter() - t0)),
             tag=args.tag, weave_phrases=bool(phrases), on_problem=on_problem)

    late = False
    try:
        if args.time is None:
            work()
        else:
            # in a worker thread, so that the limit holds even during a long step (numba compiling on first use,
            # one long weave): at the limit the problems finished so far are reported
            worker = threading.Thread(target=work, daemon=True)
            worker.start()
            worker.join(max(0.0, t0 + 0.95 * args.time - 0.3 - time.perf_counter()))
            late = worker.is_alive()
    except KeyboardInterrupt:
        progress.close()
        if run is not None:
            run.finish("interrupted", seconds=work_clock() - w0)
            store.close()
            print(f"puzzlebatch: interrupted; resume with --out {args.out} --resume", file=sys.stderr)
        return 130
    with lock:
        stopped[0] = True
    progress.close()
    if pool is not None:
        pool.close()
        print("\n".join(pool.work.lines()), file=sys.stderr)
    seconds = work_clock() - w0
    if late:
        more = f"; resume with --out {args.out} --resume" if args.out else ""
        print(f"puzzlebatch: time limit: {len({d['entry']['problemId'] for d in done})} of {len(problems)} problems "
              f"finished{more}", file=sys.stderr)
    code = _report(args, backend, weights, done, run, store, seconds, late)
    if late and _own_process():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # do not wait for the worker's current step (it holds no file: the store is closed)
    return code


def _own_process() -> bool:
    """True when this process is the ``puzzlebatch`` command itself (``python -m puzzlebatch`` or the console
    script), not a caller that imported it (a test): only then may a late worker thread be abandoned by exiting."""
    import sys

    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    return (spec is not None and spec.name.split(".")[0] == "puzzlebatch") or \
        os.path.basename(sys.argv[0] or "") == "puzzlebatch"


def _report(args, backend, weights, done, run, store, seconds, late) -> int:
    import sys

    from puzzlebatch.cli import print_json

    if run is not None:
        # a run stopped by the time limit and resumed later holds the first part's rows already
        have = run.items()
        stored = set(zip(have["problemId"].tolist(), have["seed"].tolist())) if have else set()
        new = [d for d in done if (d["entry"]["problemId"], d["entry"]["seed"]) not in stored]
        if new:
            run.append_items(problemId=np.array([d["entry"]["problemId"] for d in new], np.int64),
                             seed=np.array([d["entry"]["seed"] for d in new], np.int64),
                             total=np.array([d["total"] for d in new], np.int64),
                             solution=np.array([d["entry"]["solution"] for d in new], dtype=object))
        result = {"games": len(done), "total": int(sum(d["total"] for d in done))}
        # stopped by the time limit: "interrupted" (the store's status for an unfinished run), so that --resume
        # plays the problems left
        run.set_result(result | {"stopped": "time_limit"} if late else result)
        run.finish("interrupted" if late else "done", seconds=seconds)
        store.close()
    if args.json:
        doc = {"backend": backend.name, "device": backend.device, "seconds": seconds, "player": "beam",
               "beam": args.beam, "keep": args.keep, "weights": np.asarray(weights).tolist(),
               "solutions": [d["entry"] for d in done],
               "scores": [{k: d[k] for k in ("move_score", "power_score", "total", "end", "woven")}
                          | {"problemId": d["entry"]["problemId"], "seed": d["entry"]["seed"]} for d in done]}
        if run is not None:
            doc |= {"out": str(args.out), "run_id": run.id}
        print_json(doc)
        return 0
    print_json([d["entry"] for d in done])
    print(f"{len(done)} games, total score {sum(d['total'] for d in done)} "
          f"(power {sum(d['power_score'] for d in done)}), {seconds:.2f} s on {backend.name}", file=sys.stderr)
    return 0
