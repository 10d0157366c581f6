"""Hex Tetris (ICFP 2015): score official solutions, replay one, play every seed, tune the player, rank.

Long because it holds the five verbs of the family, each with its inputs (problems, solutions, phrases, weights
given as text, files or objects), its run (a :class:`~puzzlebatch.runners.engine.session.Session` for those that
store one) and its result class.

>>> import puzzlebatch as pb
>>> r = pb.hextris.score("1", [{"problemId": 1, "seed": 0, "solution": "Ei! ia! ia!"}])  # doctest: +SKIP
>>> r.scores[0]["total"]  # doctest: +SKIP
>>> pb.hextris.play("21", player="greedy").entries  # doctest: +SKIP

A problem is a qualifier number (``1`` or ``"1"``), ``"all"`` (the 25), the path of an official problem file, a
:class:`~puzzlebatch.puzzles.hextris.model.Problem` or its JSON object, or a list of these.  Solutions are the
official document ``[{"problemId", "seed", "tag"?, "solution"}]``: a path, the JSON text, or the list itself.
Results are dataclasses whose ``to_dict()`` is the document the command line prints with ``--json``; bad input
raises :class:`~puzzlebatch.errors.PuzzleInputError` with the command line's one-line message.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Sequence, Union

import numpy as np

from puzzlebatch.api.common import Result, backend_of, internal, options_of
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.jit.clock import work_clock
from puzzlebatch.puzzles.hextris.model import Problem
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.session import RunOptions, Session

__all__ = ["score", "show", "play", "tune", "rank", "problems_of", "HextrisScores", "HextrisGame", "HextrisPlay",
           "GreedyPlay", "BeamPlay", "HextrisTuning", "HextrisRanking"]

#: what names a problem (see the module's docstring)
ProblemSpec = Union[int, str, Path, Problem, dict]
Problems = Union[ProblemSpec, Sequence[ProblemSpec]]
Solutions = Union[str, Path, dict, Sequence[dict]]

RESUME_NEEDS_OUT = "--resume needs --out FILE.h5 (the results file of the interrupted run)"


@dataclass
class _Doc(Result):
    """A result whose optional keys (``OPTIONAL``) are left out of the document when they are None."""

    OPTIONAL: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        for key in self.OPTIONAL:
            if out.get(key) is None:
                out.pop(key, None)
        return out


# -- inputs ------------------------------------------------------------------------------------------------------------
def _items(problem) -> list:
    items = list(problem) if isinstance(problem, (list, tuple)) else [problem]
    if not items:
        raise PuzzleInputError("problems: give at least one problem")
    # a number names a qualifier problem as its text does on the command line
    return [str(int(x)) if isinstance(x, (int, np.integer)) and not isinstance(x, bool) else x for x in items]


def problems_of(problem: Problems) -> list[Problem]:
    """The problems a value names (see the module's docstring), in order.

    Parameters
    ----------
    problem
        A qualifier number, ``"all"``, a problem file, a :class:`Problem` or its JSON object, or a list of these.

    Returns
    -------
    list of Problem

    Raises
    ------
    PuzzleInputError
        An unknown number, an unreadable or malformed file, a problem given twice.
    """
    from puzzlebatch.puzzles.hextris.model import parse_problem
    from puzzlebatch.runners.hextris.problems import resolve_problems

    out: list[Problem] = []
    for item in _items(problem):
        if isinstance(item, Problem):
            out.append(item)
        elif isinstance(item, dict):
            out.append(parse_problem(item))
        elif isinstance(item, (str, Path)):
            out.extend(resolve_problems([str(item)]))
        else:
            raise PuzzleInputError(f"problem: expected a qualifier number, 'all', a problem file or a Problem, got "
                                   f"{type(item).__name__}")
    ids = [p.id for p in out]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise PuzzleInputError(f"problem id {min(dup)} given twice")
    return out


def _json_text(value: str) -> bool:
    if not value.lstrip().startswith(("[", "{")):
        return False
    try:
        return not Path(value).is_file()
    except (OSError, ValueError):  # a name too long for a file
        return True


def _solutions(solutions: Solutions) -> tuple[list[dict], str]:
    from puzzlebatch.puzzles.hextris.model import load_json
    from puzzlebatch.runners.hextris.playouts import parse_solutions

    if isinstance(solutions, Path) or isinstance(solutions, str) and not _json_text(solutions):
        return parse_solutions(load_json(solutions, "solutions"), str(solutions)), str(solutions)
    if isinstance(solutions, str):
        try:
            doc = json.loads(solutions)
        except json.JSONDecodeError as exc:
            raise PuzzleInputError(f"solutions: line {exc.lineno} column {exc.colno}: invalid JSON ({exc.msg})") \
                from None
        except RecursionError:
            raise PuzzleInputError("solutions: JSON nested too deeply") from None
        return parse_solutions(doc, "solutions"), "solutions"
    return parse_solutions(list(solutions) if isinstance(solutions, tuple) else solutions, "solutions"), "solutions"


def solutions_of(solutions: Solutions) -> list[dict]:
    """Official solution entries ``{"problemId", "seed", "tag", "solution"}``, checked.

    Parameters
    ----------
    solutions
        The path of an official solutions file, its JSON text, or the list of entries (one dict is one entry).

    Returns
    -------
    list of dict

    Raises
    ------
    PuzzleInputError
        An unreadable file, invalid JSON, a missing or mistyped key (named with the entry's index).
    """
    return _solutions(solutions)[0]


def phrases_of(phrases: str | Path | Sequence[str] | None) -> list[str]:
    """The phrases of power: None for the 18 official ones, a file (one a line), or a list of phrases.

    Parameters
    ----------
    phrases
        None (the 18 official phrases), the path of a phrases file (one phrase a line, blank lines skipped), or
        the phrases themselves (``[]``: none).

    Returns
    -------
    list of str

    Raises
    ------
    PuzzleInputError
        An unreadable file, or something other than strings.
    """
    from puzzlebatch.puzzles.hextris.model import check_phrases, load_phrases

    if phrases is None:
        return load_phrases()
    if isinstance(phrases, (str, Path)):
        return load_phrases(phrases)
    out = list(phrases)
    bad = [p for p in out if not isinstance(p, str)]
    if bad:
        raise PuzzleInputError(f"phrases: expected strings, got {bad[0]!r}")
    return check_phrases(out)


def _problem_range(problems, what: str) -> list[int]:
    """Qualifier problem numbers from ``"0-24"``, ``"1,3,5-7"`` or a list of numbers."""
    from puzzlebatch.runners.hextris.problems import parse_problem_range

    if isinstance(problems, str):
        return parse_problem_range(problems)
    out = []
    for v in (problems if isinstance(problems, (list, tuple)) else [problems]):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise PuzzleInputError(f"{what}: expected qualifier numbers 0..24, got {v!r}")
        if not 0 <= int(v) <= 24:
            raise PuzzleInputError(f"{what}: no qualifier problem {int(v)} (0..24)")
        out.append(int(v))
    return list(dict.fromkeys(out))


def _at_least(value, low, name: str) -> None:
    if value is not None and value < low:
        raise PuzzleInputError(f"{name}: {value}: must be at least {low}")


# -- score ---------------------------------------------------------------------------------------------------------
@dataclass
class HextrisScores(_Doc):
    """The exact scores of official solutions (``hextris score --json``).

    Attributes
    ----------
    scores
        One per solution, in order: ``problemId, seed, tag, move_score, power_score, total, end`` (a solution that
        errs scores 0 and says why in ``end``).
    total
        The sum of the totals.
    commands
        Commands executed, over every game.
    """

    backend: str
    device: str
    seconds: float
    commands: int
    scores: list[dict]
    total: int


def score(problem: Problems, solutions: Solutions, *, phrases: str | Path | Sequence[str] | None = None,
          backend: str | Backend = "auto") -> HextrisScores:
    """Score official solutions exactly as the organizers' evaluator (every game in one batch).

    Parameters
    ----------
    problem
        The problems the solutions are for (a number, ``"all"``, a file, a :class:`Problem`, or a list).
    solutions
        A solutions file, its JSON text, or the list of ``{"problemId", "seed", "tag"?, "solution"}``.
    phrases
        The phrases of power (None: the 18 official; a file, one a line; or a list).
    backend
        ``"auto"``, ``"cpu"`` or ``"cuda"``.

    Returns
    -------
    HextrisScores

    Raises
    ------
    PuzzleInputError
        A bad problem or solutions document, or a solution for a problem not given.
    """
    from puzzlebatch.runners.hextris.playouts import score_solutions

    problems = {p.id: p for p in problems_of(problem)}
    entries = solutions_of(solutions)
    words = phrases_of(phrases)
    be = backend_of(backend)
    run = score_solutions(problems, entries, words, be)
    return HextrisScores(run.backend, be.device, run.seconds, run.commands, [s.to_json() for s in run.scores],
                         sum(s.total for s in run.scores))


# -- show ----------------------------------------------------------------------------------------------------------
@dataclass
class HextrisGame(_Doc):
    """A board, or a solution replayed on it (``hextris show --json``).

    Attributes
    ----------
    units_locked, commands, move_score, power_score, total, end
        The game after the solution's commands (the start of the game without one).
    picture, animation
        The files drawn (``png=``, ``gif=``), if any.
    frames
        The board after every locked unit (:class:`~puzzlebatch.results.hextris_pictures.Frame`), then the final
        one; not in :meth:`to_dict`.
    """

    OPTIONAL: ClassVar[tuple[str, ...]] = ("picture", "animation")

    problemId: int
    seed: int
    size: str
    width: int
    height: int
    units_locked: int
    commands: int
    move_score: int
    power_score: int
    total: int
    end: str
    picture: str | None = None
    animation: str | None = None
    problem: Problem | None = internal()
    frames: list = internal()
    final: Any = internal()


def _solution_text(path: str | Path, problem: Problem, seed: int) -> str:
    """A solution file: an official solutions JSON (the entry for this problem and seed) or raw command text."""
    from puzzlebatch.outputs import read_text
    from puzzlebatch.puzzles.hextris.model import load_json
    from puzzlebatch.runners.hextris.playouts import parse_solutions

    text = read_text(path, "--solution")
    if text.lstrip().startswith(("[", "{")):
        for e in parse_solutions(load_json(path, "solutions"), str(path)):
            if e["problemId"] == problem.id and e["seed"] == seed:
                return e["solution"]
        raise PuzzleInputError(f"{path}: no solution for problem {problem.id} seed {seed}")
    return text.rstrip("\n")


def show(problem: ProblemSpec, *, seed: int | None = None, solution: str | Path | None = None,
         commands: str | None = None, phrases: str | Path | Sequence[str] | None = None,
         png: str | Path | None = None, gif: str | Path | None = None, max_frames: int = 200,
         fps: int = 8) -> HextrisGame:
    """Replay a solution on a problem with the exact model (or show its start), and draw it.

    Parameters
    ----------
    problem
        One problem (a number, a file, a :class:`Problem`).
    seed
        The game's seed (default: the problem's first).
    solution
        A file: an official solutions JSON (its entry for this problem and seed) or the commands as text.
    commands
        The commands themselves (instead of ``solution``).
    phrases
        The phrases of power for the power score (None: the 18 official).
    png, gif
        Draw the final board (``.png`` or ``.svg``), animate the game (one frame per locked unit).
    max_frames, fps
        The animation's frames at most, and its speed.

    Returns
    -------
    HextrisGame

    Raises
    ------
    PuzzleInputError
        A seed not of the problem, a character that is not a command, no entry for the game in the file.
    """
    from puzzlebatch.puzzles.hextris.model import END_NAMES, IN_PROGRESS, Game, decode, power_score
    from puzzlebatch.results.hextris_pictures import Frame, draw_animation, draw_board

    problems = problems_of(problem)
    if len(problems) != 1:
        raise PuzzleInputError(f"show: give one problem, not {len(problems)}")
    if solution is not None and commands is not None:
        raise PuzzleInputError("show: give the solution file or the commands, not both")
    _at_least(max_frames, 1, "--max-frames")
    _at_least(fps, 1, "--fps")
    [p] = problems
    if seed is not None and seed not in p.source_seeds:
        raise PuzzleInputError(f"--seed {seed}: not a seed of problem {p.id} ({', '.join(map(str, p.source_seeds))})")
    seed = p.source_seeds[0] if seed is None else seed
    game = Game(p, seed)
    frames = [Frame(set(game.filled), game.members, game.pivot, f"problem {p.id} seed {seed}: start")]
    text = _solution_text(solution, p, seed) if solution is not None else (commands or "")
    steps = decode(text)
    if steps is None:
        bad = next(ch for ch in text if ch.lower() not in "p'!.03bcefy2aghij4lmno 5dqrvz1kstuwx\t\n\r")
        where = solution if solution is not None else "commands"
        raise PuzzleInputError(f"{where}: character {bad!r} is not a command (the game would score 0)")
    for c in steps:
        before = game.units_locked
        game.step(c)
        if game.errored:
            break
        if game.units_locked > before:
            frames.append(Frame(set(game.filled), game.members, game.pivot,
                                f"units {game.units_locked}  move score {game.move_score}"))
    ps = 0 if game.errored else power_score(text, phrases_of(phrases))
    total = 0 if game.errored else game.move_score + ps
    caption = f"problem {p.id} seed {seed}: {game.units_locked} units, score {total} ({END_NAMES[game.end]})"
    final = Frame(set(game.filled), game.members if game.end == IN_PROGRESS else frozenset(), game.pivot, caption)
    picture = animation = None
    if png:
        picture = str(draw_board(p.width, p.height, final, png, initial=p.filled))
    if gif:
        animation = str(draw_animation(p.width, p.height, frames[: max_frames - 1] + [final], gif, initial=p.filled,
                                       fps=fps))
    return HextrisGame(p.id, seed, f"{p.width}x{p.height}", p.width, p.height, game.units_locked, game.commands,
                       game.move_score, ps, total, END_NAMES[game.end], picture, animation, problem=p,
                       frames=frames, final=final)


# -- play ----------------------------------------------------------------------------------------------------------
@dataclass(kw_only=True)
class HextrisPlay(_Doc):
    """What both players report (``hextris play --json``).

    Attributes
    ----------
    entries
        The official solutions ``{"problemId", "seed", "tag", "solution"}``: the file the contest took.
    player
        ``"beam"`` or ``"greedy"``.
    out, run_id
        Where the games are stored (None without ``out``).
    """

    backend: str
    device: str
    seconds: float
    player: str
    entries: list[dict]
    out: str | None = None
    run_id: str | None = None


@dataclass(kw_only=True)
class GreedyPlay(HextrisPlay):
    """The greedy batch player's games.

    Attributes
    ----------
    complete
        False when the time limit (or ``max_batches``) stopped it: every game is then a legal partial game, and
        ``resume=True`` continues them.
    move_scores, ends
        Each game's move score and how it ended, in ``entries`` order.
    """

    complete: bool
    move_scores: list[int]
    ends: list[str]


@dataclass(kw_only=True)
class BeamPlay(HextrisPlay):
    """The beam player's games, every one scored by the exact scorer.

    Attributes
    ----------
    beam, keep, weights
        The player's settings.
    stopped
        ``"time_limit"`` when the limit came before every problem was played (the problems finished are
        reported; ``resume=True`` plays the rest), else None.
    scores
        Per entry: ``problemId, seed, move_score, power_score, total, end, woven``.
    """

    beam: int
    keep: int
    weights: list | str
    stopped: str | None
    scores: list[dict]


def play(problem: Problems, *, player: str = "beam", time_limit: float | None = None, seed: int | None = None,
         weights: str | Path | Sequence[float] | None = None, beam: int = 4, keep: int = 8,
         phrases: str | Path | Sequence[str] | None = None, tag: str | None = None, backend: str | Backend = "auto",
         out: str | Path | None = None, resume: bool | None = None, scheduler: str | None = None,
         max_batches: int | None = None, checkpoint_every: float | None = None,
         options: RunOptions | None = None) -> GreedyPlay | BeamPlay:
    """Play every seed of every problem and return the official solutions.

    Parameters
    ----------
    problem
        The problems (a number, ``"all"``, a file, a :class:`Problem`, or a list).
    player
        ``"beam"``: beam search over placements with phrases of power woven in, every solution re-scored exactly;
        ``"greedy"``: the kernel's greedy policy on every game at once, no phrases.
    time_limit
        Seconds (wall time).  The greedy player stops starting chunks of units (every game a legal partial one);
        the beam player reports the problems finished at the limit.
    seed
        Beam player: play only this seed of each problem (default: every seed).
    weights
        Beam player: its 13 weights (a list, a list of lists for a portfolio, or a JSON file), ``"fit"``: per
        problem, a portfolio of rows chosen from its board's features (:mod:`puzzlebatch.runners.hextris.fit`), or
        ``"default"`` (the same as None): the tuned default weights, with *rows part full* weighed 1 on a board
        whose rows take 30 units or more to fill (:func:`puzzlebatch.runners.hextris.player.board_weights`).
    beam, keep
        Beam player: states kept per game, candidates per state.
    phrases
        Beam player: the phrases of power (None: the 18 official; a file; a list; ``[]``: weave none).
    tag
        The solutions' tag (default ``puzzlebatch-beam`` / ``puzzlebatch-greedy``).
    backend
        ``"auto"``, ``"cpu"`` or ``"cuda"``.
    out
        Store the games in this HDF5 file: checkpoints while playing, the games at the end (default: nothing
        stored; the command line's default is ``results/hextris.h5``).
    resume
        Continue the unfinished play of the same problems in ``out`` (a greedy play from its last checkpoint, a
        beam play skipping the problems it finished).
    scheduler
        Beam player: one problem per task on a Dask cluster (``"local:N"``, an address or a scheduler file).
    max_batches
        Greedy player: stop after this many kernel calls (chunks of 25 units); ``resume=True`` continues.
    checkpoint_every
        Seconds between checkpoints of a greedy play (default 30).
    options
        The run's options, for full control (the keyword arguments above override them).

    Returns
    -------
    GreedyPlay or BeamPlay

    Raises
    ------
    PuzzleInputError
        A bad problem, seed, weights, phrases or setting; ``resume`` without ``out`` or without an unfinished play
        there.
    puzzlebatch.errors.Interrupted
        Ctrl-C: the games were checkpointed in ``out`` first (``resume=True`` continues them).
    """
    if player not in ("beam", "greedy"):
        raise PuzzleInputError(f"player {player!r}: expected beam or greedy")
    items = _items(problem)
    problems = problems_of(items)
    opts = options_of(options, backend, out=out, resume=resume, scheduler=scheduler, max_batches=max_batches)
    if checkpoint_every is not None:
        opts = dataclasses.replace(opts, checkpoint_every=float(checkpoint_every))
    if opts.resume and opts.out is None:
        raise PuzzleInputError(RESUME_NEEDS_OUT)
    if time_limit is not None and not time_limit > 0:
        raise PuzzleInputError(f"--time-limit: {time_limit}: must be greater than 0")
    _at_least(opts.max_batches, 1, "--max-batches")
    if player == "greedy":
        return _play_greedy(problems, opts, backend, tag or "puzzlebatch-greedy", time_limit)
    if opts.max_batches is not None:
        raise PuzzleInputError("max_batches: the beam player stops at a time limit (time_limit), not after batches")
    return _play_beam(items, problems, opts, backend, tag or "puzzlebatch-beam", time_limit, seed, weights, beam,
                      keep, phrases)


def _play_greedy(problems: list[Problem], opts: RunOptions, backend, tag: str,
                 time_limit: float | None) -> GreedyPlay:
    from puzzlebatch.runners.hextris.greedy import GreedyPlayer, deadline
    from puzzlebatch.runners.hextris.playouts import GREEDY_WEIGHTS

    be = backend_of(backend)
    player = GreedyPlayer(problems, be, tag=tag)
    ids = [p.id for p in problems]
    params = {"problems": ids, "weights": GREEDY_WEIGHTS.tolist(), "tag": tag}
    with Session(opts, "hextris", "greedy-play", params, be, pool=False, label="hextris play",
                 same_problem=lambda p: p.get("problems") == ids, describe=f"problems {ids}",
                 instances={"problem_ids": np.array(ids, dtype=np.int64)}) as s:
        if s.restored is not None:
            player.restore(*s.restored)
        units = sum(p.source_length * len(set(p.source_seeds)) for p in problems)
        bar = s.progress("hextris play", unit="unit", total=units)
        bar.update(player.units_locked())

        def on_chunk(n: int) -> None:
            bar.update(n)
            if s.stored:  # every game consistent here: what Ctrl-C saves, written every checkpoint_every seconds
                s.checkpoint(*player.checkpoint())

        player.run(deadline(player.t0, time_limit), on_chunk, max_chunks=opts.max_batches)
        result = player.result()
        if result.complete:
            s.append_items(problemId=np.array([e["problemId"] for e in result.solutions], np.int64),
                           seed=np.array([e["seed"] for e in result.solutions], np.int64),
                           move_score=np.array(result.move_scores, np.int64),
                           end=np.array(result.ends, dtype=object),
                           solution=np.array([e["solution"] for e in result.solutions], dtype=object))
        elif s.stored:  # stopped by the time limit: keep the games so that resume=True finishes them
            s.checkpoint(*player.checkpoint(), force=True)
        doc = s.finish({"games": len(result.solutions), "move_scores": int(sum(result.move_scores))},
                       result.complete)
    return GreedyPlay(backend=be.name, device=be.device, seconds=result.seconds, player="greedy",
                      entries=result.solutions, complete=result.complete, move_scores=result.move_scores,
                      ends=result.ends, out=doc["out"], run_id=doc["run_id"])


def _play_beam(items: list, problems: list[Problem], opts: RunOptions, backend, tag: str, time_limit: float | None,
               seed: int | None, weights, beam: int, keep: int, phrases) -> BeamPlay:
    from puzzlebatch.runners.hextris import player as hextris_player

    _at_least(beam, 1, "--beam")
    _at_least(keep, 1, "--keep")
    seeds = None
    if seed is not None:
        for p in problems:
            if seed not in p.source_seeds:
                raise PuzzleInputError(f"--seed {seed}: not a seed of problem {p.id} "
                                       f"({', '.join(map(str, p.source_seeds))})")
        seeds = {p.id: [seed] for p in problems}
    if weights is None or (isinstance(weights, str) and weights == "default"):
        w = "default"  # per problem, the default weights fitted to its rows' width (player.board_weights)
    elif isinstance(weights, str) and weights == "fit":
        w = "fit"  # a portfolio per problem, chosen from its board's features (runners/hextris/fit.py)
    elif isinstance(weights, (str, Path)):
        w = hextris_player.load_weights(weights)
    else:
        w = hextris_player.check_weights(weights)
    words = phrases_of(phrases)
    be = backend_of(backend)
    t0 = time.perf_counter()  # the time limit is wall time
    w0 = work_clock()  # reported seconds leave compiling out
    ids = [p.id for p in problems]
    w_doc = w if isinstance(w, str) else np.asarray(w).tolist()
    params = {"problems": ids, "weights": w_doc, "beam": beam, "keep": keep, "seed": seed,
              "phrases": words, "tag": tag}
    done: list[dict] = []
    with Session(opts, "hextris", "beam-play", params, be, label="hextris play",
                 describe=f"problems {ids} with these settings") as s:
        if s.restored is not None:
            done = list(s.restored[1].get("done", []))
        finished = {d["entry"]["problemId"] for d in done}
        todo = [p for p in problems if p.id not in finished]
        # the bar counts units (the planning places one unit in every game of a problem at a time): a game of one
        # problem moves it too, not only at its end
        bar = s.progress("hextris play", unit="unit", total=sum(p.source_length for p in problems))
        bar.update(sum(p.source_length for p in problems if p.id in finished))
        placed: dict[int, int] = {}
        play = hextris_player.play_problems  # looked up now: tests put a stand-in there
        extra = {}
        if opts.scheduler:  # one problem per Dask task
            from puzzlebatch.runners.hextris.dist import play_on_pool, problem_specs

            play = play_on_pool(s.pool, problem_specs(items, problems))
        elif getattr(play, "__module__", "") == hextris_player.__name__:  # (a stand-in takes no on_unit)
            def on_unit(p) -> None:
                if not stopped[0] and placed.get(p.id, 0) < p.source_length:
                    placed[p.id] = placed.get(p.id, 0) + 1
                    bar.update(1)

            extra["on_unit"] = on_unit
        lock = threading.Lock()
        stopped = [False]  # set at the time limit (or Ctrl-C): the worker thread records nothing more

        def save() -> None:
            s.checkpoint({"problem_ids": np.array(sorted({d["entry"]["problemId"] for d in done}), np.int64)},
                         {"done": list(done)}, force=True)

        def on_problem(p, solved) -> None:
            with lock:
                if stopped[0]:
                    return
                done.extend({"entry": x.entry, "move_score": x.move_score, "power_score": x.power_score,
                             "total": x.total, "end": x.end, "woven": x.woven} for x in solved)
                save()
                bar.update(p.source_length - placed.get(p.id, 0))
                placed[p.id] = p.source_length

        def work() -> None:
            chosen = None if isinstance(w, str) and w == "default" else w  # None: per problem, board_weights
            play(todo, be, seeds=seeds, weights=chosen, beam=beam, keep=keep, phrases=words,
                 seconds=None if time_limit is None else max(0.1, time_limit - (time.perf_counter() - t0)),
                 tag=tag, weave_phrases=bool(words), on_problem=on_problem, **extra)

        late = False
        try:
            if time_limit is None:
                work()
            else:
                # in a worker thread, so that the limit holds even during a long step (numba compiling on first
                # use, one long weave): at the limit the problems finished so far are reported
                worker = threading.Thread(target=work, daemon=True)
                worker.start()
                worker.join(max(0.0, t0 + 0.95 * time_limit - 0.3 - time.perf_counter()))
                late = worker.is_alive()
        finally:
            with lock:
                stopped[0] = True
        seconds = work_clock() - w0
        result = {"games": len(done), "total": int(sum(d["total"] for d in done))}
        if s.stored:
            # a run stopped by the time limit and resumed later holds the first part's rows already
            have = s.run.items()
            stored = set(zip(have["problemId"].tolist(), have["seed"].tolist())) if have else set()
            new = [d for d in done if (d["entry"]["problemId"], d["entry"]["seed"]) not in stored]
            if new:
                s.append_items(problemId=np.array([d["entry"]["problemId"] for d in new], np.int64),
                               seed=np.array([d["entry"]["seed"] for d in new], np.int64),
                               total=np.array([d["total"] for d in new], np.int64),
                               solution=np.array([d["entry"]["solution"] for d in new], dtype=object))
            if late:  # unfinished ("interrupted"), so that resume=True plays the problems left
                save()  # (with the rows just stored)
                s.run.set_result(result | {"stopped": "time_limit"})
        doc = s.finish(result, complete=not late)
    return BeamPlay(backend=be.name, device=be.device, seconds=seconds, player="beam", beam=beam, keep=keep,
                    weights=w_doc, stopped="time_limit" if late else None,
                    entries=[d["entry"] for d in done],
                    scores=[{k: d[k] for k in ("move_score", "power_score", "total", "end", "woven")}
                            | {"problemId": d["entry"]["problemId"], "seed": d["entry"]["seed"]} for d in done],
                    out=doc["out"], run_id=doc["run_id"])


# -- tune ----------------------------------------------------------------------------------------------------------
@dataclass
class HextrisTuning(_Doc):
    """A tuning run of the beam player's weights (``hextris tune``).

    Attributes
    ----------
    best_genes, best_fitness
        The fittest genome played and its fitness.
    history
        Per generation: ``generation, best, mean, genome, evaluated, seconds``.
    games
        Training games (problem and seed) each genome plays.
    held_out
        With ``held_out=``: the best genome against the default weights on those problems (``best``,
        ``default``, ``better_on``, ``worse_on``, ``per_problem``), else None.
    complete
        False when ``max_batches`` stopped it before the last generation (``resume=True`` continues).
    weights
        The best genome as the player's weights (for ``play(weights=...)``); not in :meth:`to_dict`.
    """

    OPTIONAL: ClassVar[tuple[str, ...]] = ("picture",)

    backend: str
    device: str
    best_genes: list[int]
    best_fitness: int
    history: list[dict]
    games: int
    held_out: dict | None
    complete: bool = True
    out: str | None = None
    run_id: str | None = None
    picture: str | None = None
    weights: list | None = internal()


def tune(problems: str | Sequence[int] = "0-24", *, seeds_per_problem: int = 1, generations: int = 5,
         population: int = 12, elite: int = 4, newcomers: int = 2, gene_low: int = 0, gene_high: int = 10,
         p_major: float = 0.1, beam: int = 1, keep: int = 4, fitness: str = "move", genes: str = "absolute",
         search_beam: int | None = None, normalise: bool = False, seed: int = 0,
         held_out: str | Sequence[int] | None = None, save_weights: str | Path | None = None,
         png: str | Path | None = None, backend: str | Backend = "auto", out: str | Path | None = None,
         resume: bool | None = None, scheduler: str | None = None, max_batches: int | None = None,
         options: RunOptions | None = None) -> HextrisTuning:
    """Tune the beam player's weights with the document's genetic algorithm.

    Parameters
    ----------
    problems
        The training problems: ``"0-24"``, ``"1,3,5-7"`` or a list of qualifier numbers.
    seeds_per_problem
        Training seeds per problem (its first ones).
    generations, population, elite, newcomers, gene_low, gene_high, p_major
        The genetic algorithm (:class:`~puzzlebatch.runners.hextris.tune.TuneConfig`).
    beam, keep
        The player's beam and candidates per state while tuning.
    fitness
        ``"move"``: the planned move score; ``"exact"``: move + power of the spelled solutions.
    genes
        ``"absolute"`` or ``"relative"`` (steps of x1.41 around the default weights).
    search_beam
        ``fitness="exact"``: the searching phrase weaver's states per row (None: the player's).
    normalise
        Each problem's total relative to the default weights' (10,000 = as good).
    seed
        The GA's random seed.
    held_out
        After tuning, play every seed of these problems with the best genome and with the default weights:
        qualifier numbers, generated boards (``"g100-119"``: the generator's seeds; their ids are 1000 + the
        seed), or both (``"3,11,g100-119"``).
    save_weights
        Write the best weights (JSON, for ``play(weights=...)``).
    png
        Plot the best and mean fitness per generation.
    backend, out, resume, scheduler, options
        As for :func:`play` (``out`` records every genome played and checkpoints every generation).
    max_batches
        Stop after this many generations (``resume=True`` continues).

    Returns
    -------
    HextrisTuning

    Raises
    ------
    PuzzleInputError
        Bad problem ranges or GA settings; ``resume`` without ``out`` or without an unfinished run there.
    puzzlebatch.errors.Interrupted
        Ctrl-C: the last generation's population was checkpointed in ``out`` first.
    """
    from puzzlebatch.puzzles.hextris.model import official_problem
    from puzzlebatch.runners.hextris.tune import CODINGS, TuneConfig, Tuner

    opts = options_of(options, backend, out=out, resume=resume, scheduler=scheduler, max_batches=max_batches)
    if opts.resume and opts.out is None:
        raise PuzzleInputError(RESUME_NEEDS_OUT)
    if generations < 0 or seeds_per_problem < 1:
        raise PuzzleInputError("--generations must be >= 0 and --seeds-per-problem >= 1")
    _at_least(opts.max_batches, 1, "--max-batches")
    if fitness not in ("move", "exact"):
        raise PuzzleInputError(f"--fitness {fitness}: expected move or exact")
    if genes not in CODINGS:
        raise PuzzleInputError(f"--genes {genes}: expected one of {', '.join(CODINGS)}")
    _at_least(search_beam, 0, "--search-beam")
    ids = _problem_range(problems, "--problems")
    held_problems = _held_problems(held_out) if held_out is not None else None
    games = [(p, s) for p in map(official_problem, ids) for s in list(dict.fromkeys(p.source_seeds))
             [: seeds_per_problem]]
    cfg = TuneConfig(population=population, elite=elite, newcomers=newcomers, gene_low=gene_low,
                     gene_high=gene_high, p_major=p_major, coding=genes)
    cfg.check()
    be = backend_of(backend)
    tuner = Tuner(games, be, cfg, seed=seed, beam=beam, keep=keep, fitness=fitness, search_beam=search_beam,
                  normalise=normalise)
    params = {"problems": ids, "seeds_per_problem": seeds_per_problem, "population": population, "elite": elite,
              "newcomers": newcomers, "genes": [gene_low, gene_high], "p_major": p_major, "beam": beam,
              "keep": keep, "fitness": fitness}
    if genes != "absolute" or search_beam is not None or normalise:  # older runs lack these keys
        params |= {"coding": genes, "search_beam": search_beam, "normalise": normalise}
    say = opts.progress  # one line per generation on stderr, with the progress bar
    with Session(opts, "hextris", "ga-tune", params, be, seed=seed, label="hextris tune",
                 describe=f"problems {ids} with these settings") as s:
        if s.restored is not None:
            tuner.restore(*s.restored)
        if opts.scheduler:  # one problem's games per Dask task
            from puzzlebatch.runners.hextris.dist import pool_evaluator

            tuner.evaluator = pool_evaluator(s.pool)
        bar = s.progress("hextris tune", unit="generation", total=generations)
        bar.update(min(tuner.generation, generations))

        def on_new(gen, genomes, fit) -> None:
            s.append_items(generation=np.full(len(genomes), gen, np.int64), genome=np.array(genomes, np.int64),
                           fitness=np.asarray(fit, np.int64))

        steps = 0
        while tuner.generation < generations and (opts.max_batches is None or steps < opts.max_batches):
            rec = tuner.step(on_new)
            s.checkpoint(*tuner.checkpoint(), force=True)
            steps += 1
            bar.update(1)
            if say:
                print(f"generation {rec['generation']}: best {rec['best']} {rec['genome']}, mean {rec['mean']:.0f}, "
                      f"{rec['evaluated']} new genomes, {rec['seconds']:.1f} s", file=sys.stderr)
        complete = tuner.generation >= generations
        genome, best = tuner.best() if tuner.cache else ([], 0)
        doc = s.finish({"best_genome": genome, "best_fitness": best, "history": tuner.history}, complete)
    held = None
    if complete and held_problems and genome:
        held = _held_out(tuner, genome, held_problems, be, cfg, say)
    weights = tuner.weights(genome).tolist() if genome else None
    if complete and save_weights and genome:
        from puzzlebatch.outputs import write_text

        write_text(save_weights, json.dumps({"weights": weights, "genes": genome, "coding": cfg.coding,
                                             "fitness": best, "held_out": held}) + "\n", "--save-weights")
    picture = _plot(tuner.history, png, fitness, normalise) if png and tuner.history else None
    return HextrisTuning(be.name, be.device, genome, best, tuner.history, len(games), held, complete, doc["out"],
                         doc["run_id"], picture, weights=weights)


MAX_GENERATED_HELD_OUT = 1000  #: generated boards one --held-out may name


def _held_problems(spec) -> list:
    """The held-out boards of ``spec``: qualifier numbers (``"3,11,13"``, or a list of numbers), generated boards
    (``"g100-119"``: the seeds of :func:`~puzzlebatch.puzzles.hextris.generate.generate_problem`, the boards a
    tuning never saw), or both (``"3,g100-119"``)."""
    from puzzlebatch.puzzles.hextris.generate import generate_problem
    from puzzlebatch.puzzles.hextris.model import official_problem, parse_problem

    if not isinstance(spec, str):
        return [official_problem(i) for i in _problem_range(spec, "--held-out")]
    qualifier, generated = [], []
    for part in (x.strip() for x in spec.split(",")):
        if part[:1] not in ("g", "G"):
            qualifier.append(part)
            continue
        a, dash, b = part[1:].partition("-")
        try:
            lo, hi = int(a), int(b if dash else a)
        except ValueError:
            raise PuzzleInputError(f"--held-out {spec!r}: {part!r} is not g and generator seeds, like g100-119") \
                from None
        if lo < 0 or hi < lo:
            raise PuzzleInputError(f"--held-out {spec!r}: {part!r} is not a range of seeds >= 0, low to high")
        generated.extend(range(lo, hi + 1))
        if len(generated) > MAX_GENERATED_HELD_OUT:
            raise PuzzleInputError(f"--held-out {spec!r}: more than {MAX_GENERATED_HELD_OUT} generated boards")
    ids = _problem_range(",".join(qualifier), "--held-out") if qualifier else []
    return [official_problem(i) for i in ids] + [parse_problem(generate_problem(s)) for s in dict.fromkeys(generated)]


def _held_out(tuner, genome: list[int], problems: list, be: Backend, cfg, say: bool) -> dict:
    """The best genome against the player's default on games the GA never saw."""
    from puzzlebatch.runners.hextris.tune import evaluate, hand_genes

    hand = hand_genes(cfg.coding, cfg.gene_low, cfg.gene_high).tolist()
    per_problem = {}
    ids = [p.id for p in problems]
    for p in problems:
        fit = evaluate(np.array([genome, hand]), [(p, s) for s in dict.fromkeys(p.source_seeds)], be,
                       **dict(tuner.eval_kwargs(), scales=None))  # plain totals: these are other problems
        per_problem[str(p.id)] = [int(fit[0]), int(fit[1])]
        if say:
            print(f"held-out problem {p.id}: best genome {fit[0]}, default weights {fit[1]}", file=sys.stderr)
    held = {"problems": ids, "best": sum(v[0] for v in per_problem.values()),
            "default": sum(v[1] for v in per_problem.values()),
            "better_on": sum(v[0] > v[1] for v in per_problem.values()),
            "worse_on": sum(v[0] < v[1] for v in per_problem.values()), "per_problem": per_problem}
    if say:
        print(f"held-out {','.join(map(str, ids))}: best genome {held['best']}, default weights {held['default']} "
              f"(better on {held['better_on']} problems, worse on {held['worse_on']})", file=sys.stderr)
    return held


def _plot(history: list[dict], png, fitness: str, normalise: bool) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from puzzlebatch.outputs import save_with

    fig, ax = plt.subplots(figsize=(6, 4))
    gens = [h["generation"] for h in history]
    ax.plot(gens, [h["best"] for h in history], "o-", label="best")
    ax.plot(gens, [h["mean"] for h in history], "s--", label="mean")
    ax.set_xlabel("generation")
    ax.set_ylabel(("move score" if fitness == "move" else "exact total") +
                  (" (10,000 a problem = default)" if normalise else ""))
    ax.set_title("hextris tune: fitness per generation")
    ax.legend()
    fig.tight_layout()
    try:
        save_with(png, fig.savefig, "--png")
    finally:
        plt.close(fig)
    return str(png)


# -- rank ----------------------------------------------------------------------------------------------------------
@dataclass
class HextrisRanking(_Doc):
    """Solutions of the 25 qualifier problems ranked on the 2015 qualifying leaderboard (``hextris rank``).

    Attributes
    ----------
    problems
        Per problem: ``problemId, score, rank, teams, best, best_team, gap_to_best, taupegoons``.
    rank_sum, overall_place
        The sum of the ranks, and the place it gives among the 316 teams with ours inserted.
    leader, leader_rank_sum, first
        The leaderboard's leader, its sum of ranks once ours are inserted, and whether ours beats it.
    """

    backend: str
    device: str
    problems: list[dict]
    rank_sum: int
    overall_place: int
    leader: str
    leader_rank_sum: int
    first: bool


def rank(solutions: Solutions, *, backend: str | Backend = "auto") -> HextrisRanking:
    """Rank solutions of the qualifier problems on the 2015 qualifying leaderboard.

    Every solution is scored exactly; the best solution of each game counts.

    Parameters
    ----------
    solutions
        A solutions file, its JSON text, or the list of entries.
    backend
        ``"auto"``, ``"cpu"`` or ``"cuda"``.

    Returns
    -------
    HextrisRanking

    Raises
    ------
    PuzzleInputError
        A bad solutions document, or a problem that is not a qualifier problem.
    """
    from puzzlebatch.puzzles.hextris.model import load_phrases, official_problem
    from puzzlebatch.runners.hextris.playouts import score_solutions
    from puzzlebatch.runners.hextris.rank import problem_scores, rank_scores, standing

    entries, where = _solutions(solutions)
    problems = {i: official_problem(i) for i in range(25)}
    bad = [e["problemId"] for e in entries if e["problemId"] not in problems]
    if bad:
        raise PuzzleInputError(f"{where}: problemId {bad[0]} is not a qualifier problem (0..24)")
    be = backend_of(backend)
    run = score_solutions(problems, entries, load_phrases(), be)
    totals: dict = {}
    for x in run.scores:  # the best solution of each game counts
        totals[(x.problemId, x.seed)] = max(totals.get((x.problemId, x.seed), 0), x.total)
    scores = problem_scores(problems, totals)
    table = standing(scores)
    rows = [{"problemId": r.problem_id, "score": r.score, "rank": r.rank, "teams": r.teams, "best": r.best,
             "best_team": r.best_team, "gap_to_best": r.best - r.score, "taupegoons": r.taupegoons}
            for r in rank_scores(scores)]
    return HextrisRanking(run.backend, be.device, rows, table.rank_sum, table.place, table.leader, table.leader_sum,
                          table.first)
