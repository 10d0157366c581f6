"""Hex Tetris (ICFP 2015 "Honeycomb"): the problem, the units and the scalar Python model of one game.

Every rule follows ``puzzlebatch/data/icfp2015/RULES.md`` (section numbers below are that file's).  This module is
plain Python on purpose: it is the readable statement of the game that the batch kernels (``rules.py``) are tested
against, and the model behind ``puzzlebatch hextris show``.  It works on sets of cells and does not share code with
the kernels' rules.

Coordinates (§1): cells are ``(x, y)`` in "odd-r" offset coordinates (row ``y`` grows downwards, odd rows are
shifted half a cell to the right).  Geometry is done in axial/cube coordinates ``(q, r)`` with
``q = x - floor(y / 2)``, ``r = y``, where a rotation by 60 degrees is integer arithmetic — the document's oblique
coordinates, up to the orientation of the axes.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.limits import CELLS, PHRASE, SEEDS, SOURCE_LENGTH

Cell = tuple[int, int]

# Commands (§5), in the kernels' code order: 0 W, 1 E, 2 SW, 3 SE, 4 CW, 5 CCW.
W, E, SW, SE, CW, CCW = range(6)
COMMAND_NAMES = ("W", "E", "SW", "SE", "CW", "CCW")
COMMAND_CHARS = {
    W: "p'!.03",
    E: "bcefy2",
    SW: "aghij4",
    SE: "lmno 5",
    CW: "dqrvz1",
    CCW: "kstuwx",
}
IGNORED_CHARS = "\t\n\r"
CHAR_TO_COMMAND = {c: cmd for cmd, chars in COMMAND_CHARS.items() for c in chars}
#: one canonical character per command, used when the programs write solutions
CANONICAL_CHAR = {W: "p", E: "b", SW: "a", SE: "l", CW: "d", CCW: "k"}

# How a game ends (the ``end`` key of the score JSON).
END_NAMES = (
    "in_progress",
    "out_of_units",
    "spawn_blocked",
    "error_repeat_position",
    "error_invalid_char",
    "error_command_after_end",
    "error_seed_not_in_problem",
    "error_unreachable_placement",
)
IN_PROGRESS, OUT_OF_UNITS, SPAWN_BLOCKED, ERROR_REPEAT, ERROR_INVALID_CHAR, ERROR_AFTER_END, ERROR_SEED, \
    ERROR_PLACEMENT = range(8)

DATA_DIR = Path(__file__).resolve().parent.parent.parent / "data" / "icfp2015"


# -- coordinates ----------------------------------------------------------------------------------------------------
def to_axial(x: int, y: int) -> Cell:
    """Offset ``(x, y)`` -> axial ``(q, r)``."""
    return x - (y >> 1), y


def to_offset(q: int, r: int) -> Cell:
    """Axial ``(q, r)`` -> offset ``(x, y)``."""
    return q + (r >> 1), r


def neighbour(cell: Cell, command: int) -> Cell:
    """The cell one step from ``cell`` in the direction of a move command (§1 table)."""
    x, y = cell
    odd = y & 1
    if command == W:
        return x - 1, y
    if command == E:
        return x + 1, y
    if command == SW:
        return x - 1 + odd, y + 1
    if command == SE:
        return x + odd, y + 1
    raise ValueError(f"not a move command: {command}")


def rotate(cell: Cell, pivot: Cell, clockwise: bool) -> Cell:
    """``cell`` turned by 60 degrees about ``pivot`` (§2: cube ``(q, r, s) -> (-r, -s, -q)`` clockwise)."""
    q, r = to_axial(*cell)
    pq, pr = to_axial(*pivot)
    dq, dr = q - pq, r - pr
    if clockwise:
        dq, dr = -dr, dq + dr
    else:
        dq, dr = dq + dr, -dq
    return to_offset(pq + dq, pr + dr)


def lcg_numbers(seed: int, count: int) -> list[int]:
    """The first ``count`` random numbers of the source (§4); the first comes from the seed itself."""
    out = []
    s = seed & 0xFFFFFFFF
    for _ in range(count):
        out.append((s >> 16) & 0x7FFF)
        s = (1103515245 * s + 12345) & 0xFFFFFFFF
    return out


# -- problem --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Unit:
    """A unit as it spawns (§3): member cells and pivot already shifted to the top centre of the board."""

    members: tuple[Cell, ...]
    pivot: Cell

    @property
    def size(self) -> int:
        return len(self.members)

    def symmetry(self) -> int:
        """The number of distinct orientations (1, 2, 3 or 6): the order of the rotation group modulo the unit's
        own rotational symmetry about its pivot (the source document's G_r(p))."""
        cells = frozenset(self.members)
        turned = cells
        for k in range(1, 7):
            turned = frozenset(rotate(c, self.pivot, True) for c in turned)
            if turned == cells:
                return k
        raise AssertionError("six turns always come back")  # pragma: no cover


@dataclass(frozen=True)
class Problem:
    """One problem file (official JSON: ``id, width, height, filled, sourceLength, sourceSeeds, units``)."""

    id: int
    width: int
    height: int
    filled: frozenset[Cell]
    source_length: int
    source_seeds: tuple[int, ...]
    units: tuple[Unit, ...]
    raw_units: tuple[dict, ...] = field(repr=False, compare=False, default=())

    @property
    def max_unit_size(self) -> int:
        return max(u.size for u in self.units)


def _int(value, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PuzzleInputError(f"{where}: expected an integer, got {value!r}")
    return value


def _cell(obj, where: str) -> Cell:
    if not isinstance(obj, dict) or "x" not in obj or "y" not in obj:
        raise PuzzleInputError(f"{where}: expected a cell {{\"x\": X, \"y\": Y}}, got {obj!r}")
    return _int(obj["x"], where + ".x"), _int(obj["y"], where + ".y")


def spawn_unit(members: list[Cell], pivot: Cell, width: int) -> Unit:
    """Shift a unit to its spawn position with the evaluator's formula (§3): raw offset shift by
    ``(left - minx, -miny)`` with ``left = (width - unit_width) // 2``."""
    minx = min(x for x, _ in members)
    maxx = max(x for x, _ in members)
    miny = min(y for _, y in members)
    left = (width - (maxx - minx + 1)) // 2
    dx, dy = left - minx, -miny
    return Unit(tuple((x + dx, y + dy) for x, y in members), (pivot[0] + dx, pivot[1] + dy))


def parse_problem(doc: dict, where: str = "problem") -> Problem:
    """Build a :class:`Problem` from the official JSON object, with one-line errors naming the field."""
    if not isinstance(doc, dict):
        raise PuzzleInputError(f"{where}: expected a JSON object, got {type(doc).__name__}")
    for key in ("width", "height", "filled", "sourceLength", "sourceSeeds", "units"):
        if key not in doc:
            raise PuzzleInputError(f"{where}: missing key {key!r}")
    width, height = _int(doc["width"], f"{where}.width"), _int(doc["height"], f"{where}.height")
    if width < 1 or height < 1:
        raise PuzzleInputError(f"{where}: board {width}x{height} must be at least 1x1")
    CELLS.check(width * height, f"{where}: board {width}x{height}")
    for key in ("filled", "sourceSeeds", "units"):
        if not isinstance(doc[key], list):
            raise PuzzleInputError(f"{where}.{key}: expected a list, got {type(doc[key]).__name__}")
    filled = set()
    for i, c in enumerate(doc["filled"]):
        x, y = _cell(c, f"{where}.filled[{i}]")
        if not (0 <= x < width and 0 <= y < height):
            raise PuzzleInputError(f"{where}.filled[{i}]: cell ({x}, {y}) is outside the {width}x{height} board")
        filled.add((x, y))
    if not isinstance(doc["units"], list) or not doc["units"]:
        raise PuzzleInputError(f"{where}.units: expected a non-empty list of units")
    units = []
    for i, u in enumerate(doc["units"]):
        if not isinstance(u, dict) or "members" not in u or "pivot" not in u:
            raise PuzzleInputError(f"{where}.units[{i}]: expected {{\"members\": [...], \"pivot\": {{...}}}}")
        if not isinstance(u["members"], list):
            raise PuzzleInputError(f"{where}.units[{i}].members: expected a list of cells")
        members = [_cell(c, f"{where}.units[{i}].members[{j}]") for j, c in enumerate(u["members"])]
        if not members:
            raise PuzzleInputError(f"{where}.units[{i}].members: a unit needs at least one member")
        if len(set(members)) != len(members):
            raise PuzzleInputError(f"{where}.units[{i}].members: repeated cell")
        unit = spawn_unit(members, _cell(u["pivot"], f"{where}.units[{i}].pivot"), width)
        for x, y in unit.members:
            if not (0 <= x < width and 0 <= y < height):
                raise PuzzleInputError(f"{where}.units[{i}].members: at its spawn position the unit has cell "
                                       f"({x}, {y}) outside the {width}x{height} board")
        units.append(unit)
    SEEDS.check(len(doc["sourceSeeds"]), f"{where}.sourceSeeds")
    seeds = tuple(_int(s, f"{where}.sourceSeeds[{i}]") for i, s in enumerate(doc["sourceSeeds"]))
    if not seeds:
        raise PuzzleInputError(f"{where}.sourceSeeds: needs at least one seed (every game is played from one)")
    for i, s in enumerate(seeds):
        if not 0 <= s < 2**32:
            raise PuzzleInputError(f"{where}.sourceSeeds[{i}]: {s} is not a 32-bit seed (0 .. 4294967295)")
    length = _int(doc["sourceLength"], f"{where}.sourceLength")
    if length < 0:
        raise PuzzleInputError(f"{where}.sourceLength: must be >= 0, got {length}")
    SOURCE_LENGTH.check(length, f"{where}.sourceLength")
    pid = doc.get("id", -1)
    return Problem(id=_int(pid, f"{where}.id"), width=width, height=height, filled=frozenset(filled),
                   source_length=length, source_seeds=seeds, units=tuple(units), raw_units=tuple(doc["units"]))


def load_json(path: str | os.PathLike, what: str):
    from puzzlebatch.outputs import read_text

    text = read_text(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise PuzzleInputError(f"{path}: line {exc.lineno} column {exc.colno}: invalid JSON ({exc.msg})") from None
    except RecursionError:
        raise PuzzleInputError(f"{path}: JSON nested too deeply") from None


def load_problem(path: str | os.PathLike) -> Problem:
    """Read a problem file (official JSON)."""
    return parse_problem(load_json(path, "problem"), where=str(path))


def official_problem(n: int) -> Problem:
    """One of the 25 qualifier problems shipped in ``puzzlebatch/data/icfp2015/problems``."""
    path = DATA_DIR / "problems" / f"problem_{n}.json"
    if not path.exists():
        raise PuzzleInputError(f"no official problem {n}: the qualifier problems are 0..24")
    return load_problem(path)


def load_phrases(path: str | os.PathLike | None = None) -> list[str]:
    """The phrases of power, one a line (default: the 18 of §12)."""
    from puzzlebatch.outputs import read_text

    p = Path(path) if path is not None else DATA_DIR / "power_phrases.txt"
    lines = read_text(p, "phrases").splitlines()
    phrases = [ln for ln in lines if ln.strip()]
    if not phrases:
        raise PuzzleInputError(f"{p}: no phrase in the file (one a line; --no-phrases weaves none)")
    return check_phrases(phrases, str(p))


def check_phrases(phrases: list[str], where: str = "phrases") -> list[str]:
    """``phrases`` if each is within the :data:`~puzzlebatch.limits.PHRASE` limit (a one-line error otherwise)."""
    for i, p in enumerate(phrases):
        PHRASE.check(len(p), f"{where}: phrase {i + 1} ({p[:20]!r}...)" if len(p) > 20 else f"{where}: phrase {p!r}")
        if decode(p) is None:
            bad = next(ch for ch in p.lower() if ch not in CHAR_TO_COMMAND and ch not in IGNORED_CHARS)
            raise PuzzleInputError(f"{where}: phrase {i + 1} ({p[:20]!r}) has {bad!r}, which is not a command "
                                   "character, so it can never be spelled")
    return phrases


# -- scores ---------------------------------------------------------------------------------------------------------
def lock_points(size: int, lines: int, lines_old: int) -> int:
    """Move score of one lock (§9)."""
    points = size + 50 * lines * (lines + 1)
    bonus = (lines_old - 1) * points // 10 if lines_old > 1 else 0
    return points + bonus


def count_overlapping(text: str, phrase: str) -> int:
    """Occurrences of ``phrase`` in ``text``, every start position tried (overlaps count)."""
    n, start = 0, text.find(phrase)
    while start >= 0:
        n += 1
        start = text.find(phrase, start + 1)
    return n


def power_score(solution: str, phrases: list[str]) -> int:
    """Power score (§11): per phrase ``2 * len * reps + 300 if reps``; case-insensitive, on the raw text."""
    text = solution.lower()
    total = 0
    for p in phrases:
        reps = count_overlapping(text, p.lower()) if p else 0
        total += 2 * len(p) * reps + (300 if reps else 0)
    return total


def decode(solution: str) -> list[int] | None:
    """Commands of a solution string (§5); ignored characters dropped; None if a character is not a command."""
    out = []
    for ch in solution.lower():
        cmd = CHAR_TO_COMMAND.get(ch)
        if cmd is not None:
            out.append(cmd)
        elif ch not in IGNORED_CHARS:
            return None
    return out


# -- the game -------------------------------------------------------------------------------------------------------
Position = tuple[Cell, frozenset]


class Game:
    """One game of a problem for one seed, advanced one command at a time (plain Python, sets of cells).

    Attributes
    ----------
    filled : set of (x, y)
        The full cells of the board.
    members, pivot
        The current unit's cells and pivot (``members`` is empty once the game has ended).
    move_score, end, units_locked, commands
        The running move score, the end code (index into :data:`END_NAMES`), how many units locked, how many
        commands were executed.
    """

    def __init__(self, problem: Problem, seed: int):
        self.problem = problem
        self.filled: set[Cell] = set(problem.filled)
        self.order = [r % len(problem.units) for r in lcg_numbers(seed, problem.source_length)]
        self.spawned = 0
        self.units_locked = 0
        self.move_score = 0
        self.lines_old = 0
        self.commands = 0
        self.end = IN_PROGRESS
        self.unit_index = -1
        self.members: frozenset[Cell] = frozenset()
        self.pivot: Cell = (0, 0)
        self.visited: list[Position] = []
        self._spawn()

    # positions -----------------------------------------------------------------------------------------------------
    def valid(self, members) -> bool:
        w, h = self.problem.width, self.problem.height
        return all(0 <= x < w and 0 <= y < h and (x, y) not in self.filled for x, y in members)

    def moved(self, command: int) -> Position:
        """The unit's position after ``command`` (not checked for validity)."""
        if command in (CW, CCW):
            cw = command == CW
            return self.pivot, frozenset(rotate(c, self.pivot, cw) for c in self.members)
        return neighbour(self.pivot, command), frozenset(neighbour(c, command) for c in self.members)

    def position_id(self) -> tuple[int, int, int]:
        """The unique position identifier (pivot x, pivot y, orientation modulo the unit's symmetry)."""
        unit = self.problem.units[self.unit_index]
        k = unit.symmetry()
        spawn = frozenset(unit.members)
        # orientation: number of clockwise turns about the pivot that map the spawn shape onto the current one
        # (after translating the spawn pivot onto the current pivot).
        sq, sr = to_axial(*unit.pivot)
        pq, pr = to_axial(*self.pivot)
        shifted = frozenset(to_offset(q - sq + pq, r - sr + pr) for q, r in (to_axial(*c) for c in spawn))
        for rot in range(k):
            if shifted == self.members:
                return self.pivot[0], self.pivot[1], rot
            shifted = frozenset(rotate(c, self.pivot, True) for c in shifted)
        raise AssertionError("position not reachable from the spawn shape")  # pragma: no cover

    # game flow -----------------------------------------------------------------------------------------------------
    def _spawn(self) -> None:
        if self.spawned >= self.problem.source_length:
            self.end = OUT_OF_UNITS
            self.members = frozenset()
            return
        self.unit_index = self.order[self.spawned]
        self.spawned += 1
        unit = self.problem.units[self.unit_index]
        self.members, self.pivot = frozenset(unit.members), unit.pivot
        if not self.valid(self.members):
            self.end = SPAWN_BLOCKED
            self.members = frozenset()
            return
        self.visited = [(self.pivot, self.members)]

    def _lock(self) -> None:
        self.filled |= self.members
        size = len(self.members)
        w, h = self.problem.width, self.problem.height
        full = [y for y in range(h) if all((x, y) in self.filled for x in range(w))]
        if full:
            below = {y: sum(1 for f in full if f > y) for y in range(h)}
            self.filled = {(x, y + below[y]) for x, y in self.filled if y not in full}
        lines = len(full)
        self.move_score += lock_points(size, lines, self.lines_old)
        self.lines_old = lines
        self.units_locked += 1
        self._spawn()

    def step(self, command: int) -> None:
        """Execute one command (0..5); sets :attr:`end` when the game ends or errs."""
        if self.end != IN_PROGRESS:
            if self.end in (OUT_OF_UNITS, SPAWN_BLOCKED):
                self.end = ERROR_AFTER_END
            return
        self.commands += 1
        pivot, members = self.moved(command)
        if not self.valid(members):
            self._lock()
            return
        if command in (SW, SE):
            self.visited = [(pivot, members)]
        else:
            if (pivot, members) in self.visited:
                self.end = ERROR_REPEAT
                return
            self.visited.append((pivot, members))
        self.pivot, self.members = pivot, members

    @property
    def errored(self) -> bool:
        return self.end >= ERROR_REPEAT


@dataclass
class Score:
    """The score of one solution (the ``hextris score`` JSON keys)."""

    problemId: int
    seed: int
    tag: str | None
    move_score: int
    power_score: int
    total: int
    end: str

    def to_json(self) -> dict:
        return {"problemId": self.problemId, "seed": self.seed, "tag": self.tag, "move_score": self.move_score,
                "power_score": self.power_score, "total": self.total, "end": self.end}


def play(problem: Problem, seed: int, solution: str) -> Game:
    """Replay a solution string with the scalar model; returns the finished (or in-progress) game."""
    game = Game(problem, seed)
    commands = decode(solution)
    if commands is None:
        game.end = ERROR_INVALID_CHAR
        return game
    for c in commands:
        game.step(c)
        if game.errored:
            break
    return game


def score_solution(problem: Problem, seed: int, solution: str, phrases: list[str] | None = None,
                   tag: str | None = None) -> Score:
    """Score one solution exactly as the organizers' evaluator does (§9–§11), with the scalar model."""
    phrases = load_phrases() if phrases is None else phrases
    if seed not in problem.source_seeds:
        return Score(problem.id, seed, tag, 0, 0, 0, END_NAMES[ERROR_SEED])
    game = play(problem, seed, solution)
    if game.errored:
        return Score(problem.id, seed, tag, 0, 0, 0, END_NAMES[game.end])
    ps = power_score(solution, phrases)
    return Score(problem.id, seed, tag, game.move_score, ps, game.move_score + ps, END_NAMES[game.end])
