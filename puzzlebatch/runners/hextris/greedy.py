"""The greedy batch player and the contest player built on it (``play_icfp2015``, ``hextris play --player greedy``).

:class:`GreedyPlayer` plays every distinct seed of every problem with the simple greedy policy as batch playouts
(:class:`~puzzlebatch.runners.hextris.playouts.Playouts`), a few units at a time, round robin over the problems, so
that whenever it is stopped every game has a legal partial solution (a partial game is scored normally, RULES.md
§8); its :meth:`~GreedyPlayer.checkpoint` and :meth:`~GreedyPlayer.restore` let a stored run continue.

:class:`BeamRun` is the contest player: the greedy player first (seconds for the whole qualifier), then the beam
player of :mod:`puzzlebatch.runners.hextris.player` one problem after another with the time left; a game keeps the
greedy solution unless the beam player's scores more by the exact scorer.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.jit.clock import work_clock
from puzzlebatch.puzzles.hextris import rules
from puzzlebatch.puzzles.hextris.encode import decode_commands
from puzzlebatch.puzzles.hextris.model import Problem
from puzzlebatch.runners.engine.backend import Backend

#: units each game advances per kernel call: the granularity of the time limit
CHUNK_UNITS = 25


@dataclass
class PlayResult:
    """Official solutions (one per distinct seed of every problem), their move scores and how the games ended."""

    solutions: list[dict]
    move_scores: list[int]
    seconds: float
    complete: bool = True
    ends: list[str] = field(default_factory=list)


def _bytes_per_game(sim) -> int:
    ts = sim.tableset
    per_unit = int((2 * ts.tables[:, rules.H_HEIGHT] + ts.tables[:, rules.H_WIDTH] + 16).max())
    return 8 * (ts.work_len + ts.board_words + ts.vis_words + rules.STATE_LEN + rules.N_FEATURES) \
        + per_unit * CHUNK_UNITS


class GreedyPlayer:
    """Every distinct seed of every problem, played with the greedy policy a chunk of units at a time.

    :meth:`run` may be stopped at any moment (it runs in a worker thread under ``play_icfp2015``):
    :meth:`result` then returns what the finished chunks give, each game a legal (possibly partial) solution.
    """

    def __init__(self, problems: list[Problem], backend: Backend, *, megabytes: float | None = None, weights=None,
                 tag: str = "puzzlebatch-greedy"):
        from puzzlebatch.runners.hextris.playouts import GREEDY_WEIGHTS

        self.problems, self.backend, self.tag = problems, backend, tag
        self.weights = GREEDY_WEIGHTS if weights is None else np.asarray(weights, dtype=np.int64)
        # half the memory limit for the batch arrays, half for Python, numba and the output
        self.budget = None if megabytes is None else megabytes * 2**20 * 0.5
        self.seeds = [list(dict.fromkeys(p.source_seeds)) for p in problems]  # a seed listed twice is played once
        self.cmds = [[[] for _ in seeds] for seeds in self.seeds]
        self.scores = [[0] * len(seeds) for seeds in self.seeds]
        self.ends = [["in_progress"] * len(seeds) for seeds in self.seeds]
        self.complete = False
        self.t0 = time.perf_counter()  # deadlines are wall time
        self.w0 = work_clock()  # reported seconds leave compiling out
        self._sims: list = [None] * len(problems)
        self._games: list = [None] * len(problems)
        self._parts: dict[int, dict[str, np.ndarray]] = {}  # per problem: its checkpoint arrays, until played on
        self.chunks = 0  # kernel calls made by this object

    def _sim(self, k: int):
        from puzzlebatch.runners.hextris.playouts import Playouts

        if self._sims[k] is None:
            self._sims[k] = Playouts([self.problems[k]], self.backend)
        return self._sims[k]

    def run(self, deadline: float | None = None, on_chunk=None, max_chunks: int | None = None) -> None:
        """Play until every game has ended, ``time.perf_counter()`` passes ``deadline`` or ``max_chunks`` kernel
        calls were made; ``on_chunk(units)`` is called after every kernel call with the number of units placed by
        it (every game then consistent: a :meth:`checkpoint` taken there is one a run can continue from)."""
        pending = [k for k in range(len(self.problems))
                   if self._games[k] is None or (self._games[k].ends == rules.END_IN_PROGRESS).any()]
        made = 0
        while pending:
            if deadline is not None and time.perf_counter() > deadline:
                return
            if max_chunks is not None and made >= max_chunks:
                return
            k = pending.pop(0)
            sim = self._sim(k)
            if self._games[k] is None:
                self._games[k] = sim.new_games(self.seeds[k])
            games = self._games[k]
            live = np.flatnonzero(games.ends == rules.END_IN_PROGRESS)
            if self.budget is not None:
                live = live[: max(1, int(self.budget // _bytes_per_game(sim)))]
            sub = games.take(live)
            codes = sim.run_policy(sub, self.weights, max_units=CHUNK_UNITS)
            for j, g in enumerate(live):
                for name in ("states", "boards", "vis"):
                    getattr(games, name)[g] = getattr(sub, name)[j]
                self.cmds[k][g].append(codes[j])
                self.scores[k][g] = int(sub.move_scores[j])
                self.ends[k][g] = sub.end_names[j]
            self._parts.pop(k, None)
            made += 1
            self.chunks += 1
            if (games.ends == rules.END_IN_PROGRESS).any():
                pending.append(k)
            if on_chunk is not None:
                on_chunk(int(sub.units_locked.sum()))
        self.complete = True

    def result(self) -> PlayResult:
        solutions, scores, ends = [], [], []
        for k, p in enumerate(self.problems):
            for g, seed in enumerate(self.seeds[k]):
                parts = list(self.cmds[k][g])
                codes = np.concatenate(parts) if parts else np.zeros(0, np.int8)
                solutions.append({"problemId": p.id, "seed": seed, "tag": self.tag,
                                  "solution": decode_commands(codes)})
                scores.append(self.scores[k][g])
                ends.append(self.ends[k][g])
        return PlayResult(solutions, scores, work_clock() - self.w0, self.complete, ends)

    # -- checkpoints (``puzzlebatch hextris play --out FILE.h5 --resume``) ------------------------------------------
    def units_locked(self) -> int:
        """Units locked so far, over every game."""
        return sum(int(g.units_locked.sum()) for g in self._games if g is not None)

    def checkpoint(self) -> tuple[dict[str, np.ndarray], dict]:
        """Every started problem's game arrays and recorded commands, as arrays + JSON meta for the store.

        A snapshot: the arrays and lists are copies, which the games played afterwards leave as they are (a
        problem's part is built again only after a chunk of it was played)."""
        arrays: dict[str, np.ndarray] = {}
        for k, games in enumerate(self._games):
            if games is None:
                continue
            part = self._parts.get(k)
            if part is None:
                part = {f"{name}_{k}": getattr(games, name).copy() for name in ("states", "boards", "vis")}
                per_game = [np.concatenate(c) if c else np.zeros(0, np.int8) for c in self.cmds[k]]
                part[f"lengths_{k}"] = np.array([len(c) for c in per_game], np.int64)
                part[f"codes_{k}"] = np.concatenate(per_game) if per_game else np.zeros(0, np.int8)
                self._parts[k] = part
            arrays.update(part)
        meta = {"problems": [p.id for p in self.problems], "started": [g is not None for g in self._games],
                "scores": [list(s) for s in self.scores], "ends": [list(e) for e in self.ends]}
        return arrays, meta

    def restore(self, arrays: dict[str, np.ndarray], meta: dict) -> None:
        """Continue from :meth:`checkpoint`'s output (same problems, in the same order)."""
        from puzzlebatch.runners.hextris.playouts import GameBatch

        if meta["problems"] != [p.id for p in self.problems]:
            raise PuzzleInputError(f"--resume: the checkpoint is for problems {meta['problems']}, not "
                                   f"{[p.id for p in self.problems]}")
        for k, started in enumerate(meta["started"]):
            if not started:
                continue
            n = len(self.seeds[k])
            self._games[k] = GameBatch(np.zeros(n, np.int64), arrays[f"states_{k}"].astype(np.int64),
                                       arrays[f"boards_{k}"].astype(np.int64), arrays[f"vis_{k}"].astype(np.int64))
            bounds = np.concatenate([[0], np.cumsum(arrays[f"lengths_{k}"])])
            codes = arrays[f"codes_{k}"].astype(np.int8)
            self.cmds[k] = [[codes[bounds[g]:bounds[g + 1]]] for g in range(n)]
        self.scores = [list(s) for s in meta["scores"]]
        self.ends = [list(e) for e in meta["ends"]]
        self._parts.clear()


def answer_time(t0: float, seconds: float) -> float:
    """When ``play_icfp2015`` prints its answer, for a limit of ``seconds`` counted from ``t0``: the rest of the
    limit covers the interpreter's start before ``t0`` and writing the output."""
    return t0 + 0.9 * seconds - 0.7


def beam_end(t0: float, seconds: float) -> float:
    """When the beam player's planning stops: the answer time less a margin for the last problem's spelling and
    exact scoring after it (1-2 s measured; 1 % of the limit, at least 3 s: 3 % left 60 s of a 3,000 s limit
    unused)."""
    return answer_time(t0, seconds) - max(3.0, 0.01 * seconds)


def deadline(t0: float, seconds: float | None) -> float | None:
    # a margin for writing the output: stop starting chunks at 85% of the limit
    return None if seconds is None else t0 + max(0.0, 0.85 * seconds - 0.5)


def play_problems(problems: list[Problem], backend: Backend, *, seconds: float | None = None,
                  megabytes: float | None = None, weights=None, tag: str = "puzzlebatch-greedy",
                  on_chunk=None) -> PlayResult:
    """Play every distinct seed of every problem with the greedy policy (in this thread); stop starting new
    chunks when ``seconds`` would be exceeded.  ``megabytes`` bounds the games held at once."""
    player = GreedyPlayer(problems, backend, megabytes=megabytes, weights=weights, tag=tag)
    player.run(deadline(player.t0, seconds), on_chunk)
    return player.result()


class BeamRun:
    """The contest player: the greedy player first (:class:`GreedyPlayer`: every game gets a legal solution within
    seconds), then the beam player (``runners.hextris.player``) one problem at a time with the time left.

    :meth:`solutions` returns, for every game, the greedy solution unless the beam player's scores more by the exact
    scorer (with the phrases the player weaves): never less than the greedy player under the same limits, whatever
    the beam player does.  While the greedy phase runs, its solutions so far are the answer (legal partial games).
    """

    def __init__(self, problems: list[Problem], backend: Backend, seconds: float | None, phrases, tag: str,
                 megabytes: float | None = None):
        self.problems, self.backend, self.seconds, self.phrases, self.tag = problems, backend, seconds, phrases, tag
        self.megabytes = megabytes
        self.t0 = time.perf_counter()
        self.greedy: GreedyPlayer | None = None
        self._greedy: dict[tuple[int, int], tuple[dict, int]] = {}  # game -> (entry, exact total)
        self._beam: dict[tuple[int, int], tuple[dict, int]] = {}  # games where the beam player scores more
        self._lock = threading.Lock()
        #: the plain-Python player of the cold start (``coldstart.QuickPlayer``), set by whoever runs it: a game
        #: keeps its solution where it scores more than the compiled players'
        self.quick = None
        #: ``time.perf_counter()`` when the first compiled move was made (None before): the cold start's cost
        self.first_move_at: float | None = None
        #: set once every game has the compiled greedy player's solution scored (or the run gave up)
        self.greedy_done = threading.Event()
        #: called in the worker thread before anything is compiled (tests inject a slow compile here)
        self.before_compile = None
        #: the kernels compiled in other processes (``precompile.Precompiler``): each stage is waited for before
        #: its first use (None: compiled here, on first use)
        self.compiler = None

    def _stage(self, name: str) -> bool:
        """Wait for the kernels of stage ``name`` if another process compiles them; False when the time is up
        (nothing is to be compiled here then)."""
        if self.compiler is not None:
            end = deadline(self.t0, self.seconds)
            return self.compiler.wait(name, end) or end is None or time.perf_counter() < end
        return True

    def run(self) -> None:
        from puzzlebatch.puzzles.hextris.model import load_phrases
        from puzzlebatch.runners.hextris.playouts import score_solutions
        from puzzlebatch.runners.hextris.player import play_problems as beam_play

        phrases = load_phrases() if self.phrases is None else list(self.phrases)
        greedy = GreedyPlayer(self.problems, self.backend, megabytes=self.megabytes, tag=self.tag)
        with self._lock:
            self.greedy = greedy
        try:
            if self.before_compile is not None:
                self.before_compile()

            def first(_units):
                if self.first_move_at is None:
                    self.first_move_at = time.perf_counter()

            if not self._stage("greedy"):
                return
            greedy.run(deadline(self.t0, self.seconds), on_chunk=first)
            entries = greedy.result().solutions
            if not self._stage("score"):
                return
            scores = score_solutions({p.id: p for p in self.problems}, entries, phrases, self.backend).scores
            with self._lock:
                self._greedy = {(e["problemId"], e["seed"]): (e, s.total) for e, s in zip(entries, scores)}
        finally:
            self.greedy_done.set()
        if not greedy.complete:
            return

        def on_problem(p, solved):
            with self._lock:
                for s in solved:
                    key = (s.entry["problemId"], s.entry["seed"])
                    if s.total > self._greedy[key][1]:
                        self._beam[key] = (s.entry, s.total)

        if not self._stage("beam"):
            return
        beam_play(self.problems, self.backend, phrases=phrases, seconds=self.beam_seconds(time.perf_counter()),
                  tag=self.tag, on_problem=on_problem, megabytes=self.megabytes)

    def beam_seconds(self, now: float) -> float | None:
        """The beam player's ``seconds`` when it starts at ``now``: it stops planning at ``PLAN_STOP`` of them,
        which lands on :func:`beam_end` (before, the planning stopped at 0.85 x 0.8 of the limit and a quarter of
        it went unused)."""
        from puzzlebatch.runners.hextris.player import PLAN_STOP

        return None if self.seconds is None else max(0.1, (beam_end(self.t0, self.seconds) - now) / PLAN_STOP)

    def solutions(self) -> list[dict]:
        """Every game's best solution so far, in problem and seed order."""
        quick = {} if self.quick is None else self.quick.best()
        with self._lock:
            partial = {}
            if not self._greedy and self.greedy is not None:
                # the greedy phase is under way: its partial games, scored by their move score (a lower bound)
                r = self.greedy.result()
                partial = {(e["problemId"], e["seed"]): (e, s) for e, s in zip(r.solutions, r.move_scores)}
            out = []
            for key in ((p.id, s) for p in self.problems for s in dict.fromkeys(p.source_seeds)):
                have = [c for c in (self._beam.get(key) or self._greedy.get(key) or partial.get(key), quick.get(key))
                        if c is not None]
                # the first is kept on ties: the compiled players' answer before the quick player's
                out.append(max(have, key=lambda c: c[1])[0] if have else
                           {"problemId": key[0], "seed": key[1], "tag": self.tag, "solution": ""})
            return out
