"""The hex Tetris replay: a whole game recorded command by command by the exact model, for the page to play.

The game is replayed by :class:`puzzlebatch.puzzles.hextris.model.Game` (the plain-Python statement of the rules
that the scorer is tested against; it reproduces the organizers' 175 reference scores).  The record is compact so
that the longest qualifier game (problem 24: 298,388 commands, 1,620 units) travels in a few megabytes:

* ``poses``: after each command, the current unit's pivot ``x, y``, its turn ``0..5`` (clockwise turns since it
  spawned) and its unit index (``-1`` once the game is over), int16 little-endian, base64;
* ``units``: each unit's cells relative to its pivot in axial coordinates, for each of the six turns;
* ``boards``: the full cells after each lock (one bit per cell, row-major, ``numpy.packbits``), base64;
* ``locks``: the command that locked each unit, the lines it cleared and the move score after it;
* ``phrases``: every occurrence of a phrase of power as int32 rows ``[phrase, start, end, power]`` (the commands
  ``start .. end - 1`` spell it; ``power`` is the power score once it is complete), base64, so the page can show
  the score as it accumulates and highlight the phrase being spelled.

The final score is the model's total (move + power; 0 for a game that errs), the number ``hextris score`` prints.
"""

from __future__ import annotations

import base64
import json
from functools import lru_cache

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.web import limits
from puzzlebatch.web.tasks import Context, ensure_warm

IGNORED = "\t\n\r"


@lru_cache(maxsize=1)
def references() -> dict[tuple[int, int], dict]:
    """The shipped reference solutions (with the organizers' evaluator's scores) by (problem, seed)."""
    from puzzlebatch.puzzles.hextris.model import DATA_DIR

    entries = json.loads((DATA_DIR / "reference_scores.json").read_text(encoding="utf-8"))
    out: dict[tuple[int, int], dict] = {}
    for e in entries:  # several per game: keep the best, as a viewer would want it
        key = (int(e["problemId"]), int(e["seed"]))
        if key not in out or e["total"] > out[key]["total"]:
            out[key] = e
    return out


def problem_list() -> list[dict]:
    """The 25 qualifier problems: size, units, seeds and the seeds that have a reference solution."""
    from puzzlebatch.puzzles.hextris.model import official_problem

    refs = references()
    out = []
    for i in range(25):
        p = official_problem(i)
        out.append({"id": p.id, "width": p.width, "height": p.height, "units": len(p.units),
                    "source_length": p.source_length, "seeds": list(p.source_seeds),
                    "reference_seeds": [s for s in p.source_seeds if (p.id, s) in refs]})
    return out


def problem_of(params: dict):
    """A qualifier problem by number, or an uploaded problem (the official JSON object)."""
    from puzzlebatch.puzzles.hextris.model import official_problem, parse_problem

    spec = params.get("problem")
    if isinstance(spec, dict):
        return parse_problem(spec, "problem")
    if isinstance(spec, bool) or not isinstance(spec, int):
        raise PuzzleInputError("problem: give a qualifier number 0..24 or a problem JSON object")
    return official_problem(spec)


def solution_text(params: dict, problem, seed: int) -> tuple[str, str | None]:
    """The commands to replay and their tag: a shipped reference, raw command text, or an official solutions
    JSON document (the entry for this problem and seed, as ``hextris show --solution`` picks it)."""
    from puzzlebatch.runners.hextris.playouts import parse_solutions

    source = params.get("source", "text")
    if source == "reference":
        entry = references().get((problem.id, seed))
        if entry is None or problem.id < 0:
            raise PuzzleInputError(f"no reference solution for problem {problem.id} seed {seed}")
        return entry["solution"], "reference"
    text = params.get("solution")
    if not isinstance(text, str):
        raise PuzzleInputError("solution: give the commands or an official solutions JSON document")
    if len(text) > limits.MAX_SOLUTION_CHARS:
        raise PuzzleInputError(f"solution: {len(text):,} characters, more than the {limits.MAX_SOLUTION_CHARS:,} "
                               "allowed")
    if text.lstrip().startswith(("[", "{")):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PuzzleInputError(f"solutions: line {exc.lineno} column {exc.colno}: invalid JSON ({exc.msg})") \
                from None
        for e in parse_solutions(doc, "solutions"):
            if e["problemId"] == problem.id and e["seed"] == seed:
                return e["solution"], e.get("tag")
        raise PuzzleInputError(f"solutions: no solution for problem {problem.id} seed {seed}")
    return text.rstrip("\n"), None


def replay_bytes(problem, n_commands: int) -> int:
    """An upper estimate of the memory a replay of ``n_commands`` commands takes: the game keeps every position
    of the falling unit (a set of its cells, about 200 bytes a cell) until it locks, so a unit can pile up as many
    positions as commands, up to the board's positions (six turns a cell); plus a pose a command and a board
    bitmap a lock, each kept three times over (array, base64, JSON)."""
    w, h = problem.width, problem.height
    unit = max((len(u.members) for u in problem.units), default=1)
    per_unit = min(n_commands, 6 * w * h) + 1
    boards = (min(n_commands, problem.source_length) + 1) * ((w * h + 7) // 8)
    return per_unit * unit * 200 + 3 * (8 * (n_commands + 1) + boards)


def check_replay(problem, text: str) -> None:
    """Refuse a replay whose estimate (:func:`replay_bytes`) is over the memory limit, before it starts."""
    from puzzlebatch.limits import check_memory

    check_memory(replay_bytes(problem, len(text)),
                 f"replay of problem {problem.id} ({problem.width}x{problem.height}, {len(text):,} commands)")


def _b64(arr: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(arr).tobytes()).decode("ascii")


def _bitmap(cells, width: int, height: int) -> np.ndarray:
    grid = np.zeros(width * height, np.uint8)
    if cells:
        xy = np.array(list(cells), np.int64)
        grid[xy[:, 1] * width + xy[:, 0]] = 1
    return np.packbits(grid)


def unit_turns(problem) -> list[list[list[list[int]]]]:
    """Per unit, per clockwise turn 0..5, its cells relative to the pivot in axial ``(dq, dr)``."""
    from puzzlebatch.puzzles.hextris.model import rotate, to_axial

    out = []
    for u in problem.units:
        pq, pr = to_axial(*u.pivot)
        cells, turns = list(u.members), []
        for _ in range(6):
            turns.append([[q - pq, r - pr] for q, r in (to_axial(*c) for c in cells)])
            cells = [rotate(c, u.pivot, True) for c in cells]
        out.append(turns)
    return out


def phrase_occurrences(commands: str, phrases: list[str]) -> tuple[list[str], np.ndarray]:
    """Every occurrence of every phrase (overlaps count), ordered by where it ends.

    Returns the phrases (lower case) and an int32 array of rows ``[phrase index, start, end, power]``: the
    commands ``start .. end - 1`` spell the phrase, and ``power`` is the power score reached once it is complete
    (§11: ``2 * len * reps``, plus 300 for a phrase's first occurrence).
    """
    text = commands.lower()
    names = [p.lower() for p in phrases]
    occ = []
    for k, p in enumerate(names):
        start = text.find(p) if p else -1
        while start >= 0:
            occ.append((start + len(p), start, k))
            start = text.find(p, start + 1)
    occ.sort()
    seen: set[int] = set()
    power = 0
    rows = np.zeros((len(occ), 4), np.int32)
    for i, (end, start, k) in enumerate(occ):
        power += 2 * len(names[k]) + (0 if k in seen else 300)
        seen.add(k)
        rows[i] = (k, start, end, power)
    return names, rows


def record(problem, seed: int, solution: str, phrases: list[str], ctx: Context | None = None,
           verify: bool = False) -> dict:
    """Replay ``solution`` on ``problem`` for ``seed`` and record everything the page draws (module docstring).

    ``verify`` re-derives the unit's cells from each recorded pose and checks them against the model (tests).
    """
    from puzzlebatch.puzzles.hextris.model import CCW, CW, END_NAMES, IN_PROGRESS, Game, decode, power_score, \
        to_axial, to_offset

    if seed not in problem.source_seeds:
        raise PuzzleInputError(f"--seed {seed}: not a seed of problem {problem.id} "
                               f"({', '.join(map(str, problem.source_seeds))})")
    commands = decode(solution)
    if commands is None:
        bad = next(ch for ch in solution if ch.lower() not in "p'!.03bcefy2aghij4lmno 5dqrvz1kstuwx" + IGNORED)
        raise PuzzleInputError(f"solution: character {bad!r} is not a command (the game would score 0)")
    turns = unit_turns(problem)
    w, h = problem.width, problem.height
    game = Game(problem, seed)
    poses = np.zeros((len(commands) + 1, 4), np.int16)
    boards = [_bitmap(game.filled, w, h)]
    lock_cmd, lock_lines, lock_score = [], [], []
    turn = 0

    def pose(i: int) -> None:
        live = game.end == IN_PROGRESS
        poses[i] = (game.pivot[0], game.pivot[1], turn, game.unit_index if live else -1)
        if verify and live:
            pq, pr = to_axial(*game.pivot)
            cells = {to_offset(pq + dq, pr + dr) for dq, dr in turns[game.unit_index][turn]}
            assert cells == set(game.members), f"command {i}: recorded pose does not give the unit's cells"

    pose(0)
    executed = 0
    for i, c in enumerate(commands):
        if ctx is not None and i % 20000 == 0:
            ctx.check()
            ctx.progress({"commands": i, "of": len(commands)})
        before = game.units_locked
        game.step(c)
        if game.errored:
            break
        executed = i + 1
        if game.units_locked > before:
            turn = 0
            lock_cmd.append(executed)
            lock_lines.append(game.lines_old)
            lock_score.append(game.move_score)
            boards.append(_bitmap(game.filled, w, h))
        elif c in (CW, CCW):
            turn = (turn + (1 if c == CW else 5)) % 6
        pose(executed)
    errored = game.errored
    played = "".join(ch for ch in solution if ch not in IGNORED)
    names, occurrences = phrase_occurrences(played, [] if errored else phrases)
    ps = 0 if errored else power_score(solution, phrases)
    if int(occurrences[-1, 3] if len(occurrences) else 0) != ps:
        raise AssertionError("phrase occurrences do not add up to the power score")
    return {
        "problem": {"id": problem.id, "width": w, "height": h, "source_length": problem.source_length,
                    "filled": sorted([x, y] for x, y in problem.filled)},
        "seed": seed, "units": turns, "n_commands": executed, "commands": played[:executed],
        "poses": _b64(poses[:executed + 1].astype("<i2")), "boards": _b64(np.concatenate(boards)),
        "board_bytes": int(len(boards[0])),
        "locks": {"command": lock_cmd, "lines": lock_lines, "move_score": lock_score},
        "phrases": {"names": names, "count": int(len(occurrences)), "rows": _b64(occurrences.astype("<i4"))},
        "error_at": executed + 1 if errored else None,
        "final": {"move_score": 0 if errored else game.move_score, "power_score": ps,
                  "total": 0 if errored else game.move_score + ps, "end": END_NAMES[game.end],
                  "units_locked": game.units_locked, "commands": game.commands},
    }


def replay_task(params: dict, ctx: Context) -> dict:
    """Record a game for the replay page (see :func:`record`)."""
    from puzzlebatch.puzzles.hextris.model import load_phrases

    problem = problem_of(params)
    seed = int(params.get("seed", problem.source_seeds[0]))
    text, tag = solution_text(params, problem, seed)
    check_replay(problem, text)
    ensure_warm("hextris", ctx)
    doc = record(problem, seed, text, load_phrases(), ctx)
    return doc | {"tag": tag, "source": params.get("source", "text")}
