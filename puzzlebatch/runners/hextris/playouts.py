"""Batch playouts of hex Tetris on the CPU or CUDA, and the scorer built on them.

The API the player and the tuner build on:

>>> from puzzlebatch.puzzles.hextris.model import official_problem
>>> from puzzlebatch.runners.engine.backend import select_backend
>>> sim = Playouts([official_problem(6)], select_backend("cpu"))
>>> games = sim.new_games(seeds=[0, 1, 2])                  # one game per seed, first unit spawned
>>> sim.run_commands(games, ["lll", "ddd", "ppp"])          # advance each game by its own command string
>>> places, feats = sim.lockable(games)[0]                   # where game 0's unit can lock, with features
>>> sim.run_placements(games.take([0]), places[:1, None])   # lock it at one of them (shortest path)
>>> cmds = sim.run_policy(games, GREEDY_WEIGHTS)            # or let the greedy weighted policy finish them
>>> games.move_scores, games.end_names                      # scores and how each game ended

A :class:`GameBatch` holds every game's state in flat arrays (one row per game); :meth:`GameBatch.take` copies
rows, so a player can branch candidate continuations from the same position and evaluate them in one batch:
list the candidates with :meth:`Playouts.lockable`, copy the game once per candidate, lock each copy at its
candidate with :meth:`Playouts.run_placements`, finish the copies with :meth:`Playouts.run_policy`
(``record=False``), and compare ``move_scores``.  Every entry point runs on the backend given (CPU prange or one
CUDA thread per game), with the same results bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.hextris import evaluation, rules
from puzzlebatch.puzzles.hextris.encode import TableSet, decode_commands, encode_commands
from puzzlebatch.puzzles.hextris.model import END_NAMES, ERROR_SEED, Problem, Score, power_score
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.twins import twin

#: the simple greedy player's weights (rules.F_* order: lines, depth, contact, covered, top row):
#: clear lines when it can, then lock as low as possible, snugly, without covering empty cells.
GREEDY_WEIGHTS = np.array([10000, 10, 6, -12, 4], dtype=np.int64)


@dataclass
class GameBatch:
    """Games in flat arrays, one row each (layout in ``puzzles/hextris/rules.py``).

    Attributes
    ----------
    prob : int64[n]
        Index of each game's problem in the :class:`Playouts` problem list.
    states : int64[n, STATE_LEN]
    boards : int64[n, board_words]
    vis : int64[n, vis_words]
    """

    prob: np.ndarray
    states: np.ndarray
    boards: np.ndarray
    vis: np.ndarray

    def __len__(self) -> int:
        return len(self.prob)

    def take(self, index) -> "GameBatch":
        """A copy of some games (an index array, a slice or a boolean mask), e.g. to branch continuations."""
        return GameBatch(self.prob[index].copy(), self.states[index].copy(), self.boards[index].copy(),
                         self.vis[index].copy())

    @property
    def move_scores(self) -> np.ndarray:
        return self.states[:, rules.S_SCORE]

    @property
    def ends(self) -> np.ndarray:
        return self.states[:, rules.S_END]

    @property
    def end_names(self) -> list[str]:
        return [END_NAMES[int(e)] for e in self.ends]

    @property
    def commands(self) -> np.ndarray:
        """Commands executed so far per game."""
        return self.states[:, rules.S_NCMD]

    @property
    def units_locked(self) -> np.ndarray:
        return self.states[:, rules.S_LOCKED]

    def board_cells(self, i: int, problem: Problem) -> set[tuple[int, int]]:
        """The full cells of game ``i``'s board."""
        nw = (problem.width + 63) // 64
        words = self.boards[i, : problem.height * nw].view(np.uint64).reshape(problem.height, nw)
        return {(x, y) for y in range(problem.height) for x in range(problem.width)
                if (int(words[y, x >> 6]) >> (x & 63)) & 1}


@dataclass
class Playouts:
    """Batch playouts of one or more problems on one backend.

    Parameters
    ----------
    problems
        The problems the games may come from (each game names one by index).
    backend
        From :func:`puzzlebatch.runners.engine.backend.select_backend`; ``backend.name`` is what results record.
    """

    problems: list[Problem]
    backend: Backend
    tableset: TableSet = field(init=False)

    def __post_init__(self) -> None:
        self.problems = list(self.problems)
        self.tableset = TableSet.build(self.problems)
        self._d = twin(self.backend, "hextris")

    @property
    def transfers(self) -> dict:
        """Bytes moved to and from the device and launches so far (``h2d_bytes``, ``d2h_bytes``, ``launches``)."""
        return self._d.transfers.to_json()

    def new_games(self, seeds, prob=None) -> GameBatch:
        """Start one game per seed (``prob[g]``: problem index, default 0); the first unit is spawned."""
        seeds = np.asarray(seeds, dtype=np.int64)
        n = len(seeds)
        prob = np.zeros(n, np.int64) if prob is None else np.asarray(prob, dtype=np.int64)
        ts = self.tableset
        games = GameBatch(prob, np.zeros((n, rules.STATE_LEN), np.int64), np.zeros((n, ts.board_words), np.int64),
                          np.zeros((n, ts.vis_words), np.int64))
        self._d.init_batch(ts.tables, prob, seeds, games.states, games.boards, games.vis)
        return games

    def run_commands(self, games: GameBatch, solutions: list[str] | tuple[np.ndarray, np.ndarray]) -> None:
        """Advance every game by its command string (or by pre-encoded ``(codes, offsets)``), in place."""
        cmds, offsets = encode_commands(solutions) if isinstance(solutions, list) else solutions
        if len(offsets) != len(games) + 1:
            raise ValueError(f"{len(offsets) - 1} command strings for {len(games)} games")
        self._d.commands_batch(self.tableset.tables, games.prob, cmds, offsets, games.states, games.boards,
                               games.vis)

    def _work(self, n: int) -> np.ndarray:
        return np.zeros((n, self.tableset.work_len), np.int64)

    def _cap(self, games: GameBatch, record: bool | int, max_units: int = -1) -> int:
        """Commands to make room for per game: a BFS path is at most height + width + a few turns long."""
        if record is False:
            return 0
        if record is True:
            t = self.tableset.tables
            per_unit = int((2 * t[:, rules.H_HEIGHT] + t[:, rules.H_WIDTH] + 16).max())
            left = int((t[games.prob, rules.H_SRCLEN] - games.states[:, rules.S_SPAWNED] + 1).max()) if len(games) \
                else 0
            if max_units >= 0:
                left = min(left, max_units)
            return max(1, per_unit * left)
        return int(record)

    def run_policy(self, games: GameBatch, weights, max_units: int = -1, record: bool | int = True) \
            -> list[np.ndarray]:
        """Play each game with the greedy weighted placement policy, in place.

        For every unit the kernel searches all reachable lockable positions breadth first, scores each with
        ``weights · features`` (``rules.F_*``), takes the best (first in BFS order on ties) and walks there by a
        shortest command path, then locks.

        Parameters
        ----------
        weights
            int64 ``[N_FEATURES]`` for every game, or ``[n, N_FEATURES]`` one row per game (a GA population).
        max_units
            Lock at most this many units per game in this call (-1: play to the end).
        record
            True: return each game's commands; False: do not record (faster, less memory); an int: record at
            most that many per game.

        Returns
        -------
        list of int8 arrays
            The command codes each game executed (empty arrays when not recorded).
        """
        n = len(games)
        w = np.asarray(weights, dtype=np.int64)
        w = np.broadcast_to(w, (n, rules.N_FEATURES)).copy() if w.ndim == 1 else np.ascontiguousarray(w)
        feats = np.zeros((n, rules.N_FEATURES), np.int64)

        def call(out, n_out):
            self._d.policy_batch(self.tableset.tables, games.prob, w, np.int64(max_units), games.states,
                                 games.boards, games.vis, self._work(n), feats, out, n_out)

        return self._recorded(games, call, self._cap(games, record, max_units), record is True)

    def lockable(self, games: GameBatch, cap: int = 256) -> list[tuple[np.ndarray, np.ndarray]]:
        """Every position where each game's current unit can lock (the games are not changed).

        Returns, per game, ``(places, features)``: int64 ``[m, 3]`` rows ``(pivot x, pivot y, rot)`` in the
        kernel's BFS order (rot reduced modulo the unit's symmetry; pass them to :meth:`run_placements`) and int64
        ``[m, N_FEATURES]`` the policy's features of each.  ``m`` is 0 for a game that has ended.  This is how a
        player lists candidate moves before evaluating continuations with :meth:`run_placements` and
        :meth:`run_policy` on copies (:meth:`GameBatch.take`).
        """
        n = len(games)
        while True:
            out = np.zeros((n, cap, 3), np.int64)
            feats = np.zeros((n, cap, rules.N_FEATURES), np.int64)
            n_out = np.zeros(n, np.int64)
            self._d.lockable_batch(self.tableset.tables, games.prob, games.states, games.boards, games.vis,
                                   self._work(n), out, feats, n_out)
            if n == 0 or int(n_out.max()) <= cap:
                return [(out[i, : n_out[i]], feats[i, : n_out[i]]) for i in range(n)]
            cap = int(n_out.max())

    def _scratch(self, n: int) -> np.ndarray:
        """Per game: a board copy, two rows of the flood fill and the lock keys seen
        (``evaluation.evaluate_placements``)."""
        return np.zeros((n, max(evaluation.eval_scratch_len(t) for t in self.tableset.tables)), np.int64)

    def evaluate(self, games: GameBatch, cap: int = 256) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every position where each game's current unit can lock, with the features of the board it would leave:
        the candidate placements of a whole beam evaluated in one batch (the games are not changed).

        Returns ``(places, feats, counts)``: int64 ``[n, m, 3]`` placements (pivot x, pivot y, rot) in the kernel's
        BFS order, int64 ``[n, m, evaluation.N_CAND]`` their features (``rules.C_*``: the lock's move points, the
        placement features, the board features after the lock and its line clears) and ``counts[g]``, the number
        of valid rows of game ``g`` (0 for a game that has ended).
        """
        n = len(games)
        while True:
            out = np.zeros((n, cap, 3), np.int64)
            feats = np.zeros((n, cap, evaluation.N_CAND), np.int64)
            n_out = np.zeros(n, np.int64)
            self._d.evaluate_batch(self.tableset.tables, games.prob, games.states, games.boards, games.vis,
                                   self._work(n), self._scratch(n), out, feats, n_out)
            if n == 0 or int(n_out.max()) <= cap:
                return out, feats, n_out
            cap = int(n_out.max())

    def board_features(self, boards: np.ndarray, prob=None) -> np.ndarray:
        """The hex board features (``rules.B_*``) of each board row (``GameBatch.boards`` layout), int64
        ``[n, evaluation.N_BOARD]``; ``prob[g]`` is the problem index of board ``g`` (default 0)."""
        boards = np.ascontiguousarray(boards, dtype=np.int64)
        n = len(boards)
        prob = np.zeros(n, np.int64) if prob is None else np.asarray(prob, dtype=np.int64)
        feats = np.zeros((n, evaluation.N_BOARD), np.int64)
        self._d.board_eval_batch(self.tableset.tables, prob, boards, self._scratch(n), feats)
        return feats

    def _recorded(self, games: GameBatch, call, cap: int, grow: bool) -> list[np.ndarray]:
        """Run ``call(out, n_out)``; when recording everything and a game's commands overflowed ``out``, replay the
        batch from a copy with room for all of them (long winding paths are rare), so no command is ever lost."""
        n = len(games)
        before = games.take(slice(None)) if grow else None
        while True:
            out = np.zeros((n, cap), np.int8)
            n_out = np.zeros(n, np.int64)
            call(out, n_out)
            if not grow or n == 0 or int(n_out.max()) <= cap:
                return [out[i, : min(int(n_out[i]), cap)] for i in range(n)]
            cap = int(n_out.max())
            for name in ("prob", "states", "boards", "vis"):
                getattr(games, name)[...] = getattr(before, name)

    def run_placements(self, games: GameBatch, targets, record: bool | int = True) -> list[np.ndarray]:
        """Lock each game's next units at given places, in place: the placement-policy entry point.

        ``targets`` is int64 ``[n, K, 3]`` (pivot x, pivot y, clockwise turns from the spawn orientation) with
        an optional count per game: pass ``(targets, n_targets)``.  Each unit walks a shortest path to its target
        and locks there; a target that is not reachable or cannot lock ends that game with
        ``error_unreachable_placement``.  Returns the commands executed per game, as :meth:`run_policy`.
        """
        if isinstance(targets, tuple):
            targets, n_targets = targets
        else:
            n_targets = None
        targets = np.ascontiguousarray(np.asarray(targets, dtype=np.int64).reshape(len(games), -1, 3))
        n = len(games)
        n_targets = np.full(n, targets.shape[1], np.int64) if n_targets is None else \
            np.asarray(n_targets, dtype=np.int64)

        def call(out, n_out):
            self._d.placements_batch(self.tableset.tables, games.prob, targets, n_targets, games.states,
                                     games.boards, games.vis, self._work(n), out, n_out)

        return self._recorded(games, call, self._cap(games, record, int(n_targets.max()) if n else 0),
                              record is True)


# -- scoring official solutions --------------------------------------------------------------------------------------
@dataclass
class ScoreRun:
    """The scores of a batch of solutions, the backend that ran the games, the wall time and commands executed."""

    scores: list[Score]
    backend: str
    seconds: float
    commands: int


def parse_solutions(doc, where: str) -> list[dict]:
    """Check an official solutions document (``[{"problemId", "seed", "tag"?, "solution"}]``)."""
    if isinstance(doc, dict):
        doc = [doc]
    if not isinstance(doc, list):
        raise PuzzleInputError(f"{where}: expected a JSON list of solutions, got {type(doc).__name__}")
    out = []
    for i, e in enumerate(doc):
        if not isinstance(e, dict):
            raise PuzzleInputError(f"{where}[{i}]: expected an object, got {type(e).__name__}")
        for key, typ in (("problemId", int), ("seed", int), ("solution", str)):
            if key not in e:
                raise PuzzleInputError(f"{where}[{i}]: missing key {key!r}")
            if not isinstance(e[key], typ) or isinstance(e[key], bool):
                raise PuzzleInputError(f"{where}[{i}].{key}: expected {typ.__name__}, got {e[key]!r}")
        tag = e.get("tag")
        out.append({"problemId": e["problemId"], "seed": e["seed"], "tag": tag if isinstance(tag, str) else None,
                    "solution": e["solution"]})
    return out


def score_solutions(problems: dict[int, Problem], entries: list[dict], phrases: list[str], backend: Backend) \
        -> ScoreRun:
    """Score official solution entries exactly as the organizers' evaluator, the games run in one batch.

    ``problems`` maps problem id -> problem; an entry whose problem is missing is an input error.
    """
    t0 = work_clock()
    ids = sorted(problems)
    index = {pid: i for i, pid in enumerate(ids)}
    for i, e in enumerate(entries):
        if e["problemId"] not in index:
            raise PuzzleInputError(f"solution {i}: problemId {e['problemId']} is not among the problems given "
                                   f"({', '.join(map(str, ids))})")
    sim = Playouts([problems[p] for p in ids], backend)
    games = sim.new_games([e["seed"] for e in entries], [index[e["problemId"]] for e in entries])
    sim.run_commands(games, [e["solution"] for e in entries])
    scores = []
    for i, e in enumerate(entries):
        p = problems[e["problemId"]]
        end = int(games.ends[i])
        if e["seed"] not in p.source_seeds:
            end = ERROR_SEED
        if end >= rules.END_ERROR_REPEAT:
            scores.append(Score(e["problemId"], e["seed"], e["tag"], 0, 0, 0, END_NAMES[end]))
            continue
        ms = int(games.move_scores[i])
        ps = power_score(e["solution"], phrases)
        scores.append(Score(e["problemId"], e["seed"], e["tag"], ms, ps, ms + ps, END_NAMES[end]))
    return ScoreRun(scores, backend.name, work_clock() - t0, int(games.commands.sum()))


def solution_strings(codes: list[np.ndarray]) -> list[str]:
    """Command codes per game -> solution strings (one canonical character per command)."""
    return [decode_commands(c) for c in codes]
