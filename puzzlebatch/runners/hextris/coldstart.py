"""The player of the cold start: plain Python (the scalar model of ``puzzles.hextris.model``), nothing to compile.

On a machine whose compile cache is empty, the compiled players of ``play_icfp2015`` make no move until numba
has built their kernels (tens of seconds on a loaded 2-core machine), and that time counts against ``-t``.
:class:`QuickPlayer` plays meanwhile, in the thread that waits for them, so that every game has a legal solution
that scores from the first second: one unit of every game at a time, round robin.  Each unit drops at the best of
a few columns (every turn on a small board, none or one on a large one; drifting left or right on the way down),
valued as the compiled greedy player values a lock (:func:`lock_value`: rows completed, depth, contacts, cells
covered, top row); before the drop it spells the first phrase of power not yet used in its game (300 points the
first time) if the best drop after the phrase is about as good (:data:`PHRASE_SLACK`).  It stops as soon as the
compiled players have their own answer (:meth:`QuickPlayer.run`'s ``stop``); ``play_icfp2015`` keeps, game by
game, whichever answer scores more.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from puzzlebatch.puzzles.hextris.model import CANONICAL_CHAR, CCW, CW, E, IN_PROGRESS, SE, SW, W, Game, Problem, \
    decode, neighbour, power_score, rotate

def process_start() -> float:
    """``time.perf_counter()``'s value when this process started (the interpreter's start and the imports count
    against ``-t`` too); now where ``/proc`` cannot tell."""
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])  # field 22, starttime (after the command's name)
        with open("/proc/uptime", encoding="ascii") as f:
            uptime = float(f.read().split()[0])
        age = uptime - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):  # pragma: no cover - not Linux
        age = 0.0
    return time.perf_counter() - min(max(age, 0.0), 60.0)


#: the lateral shifts tried for each unit (at most this many columns, spread over the board's width)
COLUMNS = 12
#: boards of at most this many cells try every turn of the unit (larger ones: none or one clockwise turn)
SMALL_BOARD = 400
#: a phrase is spelled before the drop if the best drop after it is worth at least the best without it, less this
#: much per member (three rows of depth: 30 scored best of 10, 30 and 100 on problems 0, 1, 3, 5, 7, 9)
PHRASE_SLACK = 30


def quick_value(game: Game, members) -> int:
    """The cheap policy's value of locking ``members``: rows completed first, then depth."""
    w, filled = game.problem.width, game.filled
    lines = sum(1 for y in {y for _, y in members} if all((x, y) in filled or (x, y) in members for x in range(w)))
    return 1000 * lines + sum(y for _, y in members)


def lock_value(game: Game, members) -> int:
    """The compiled greedy player's value of locking ``members`` (``playouts.GREEDY_WEIGHTS`` over the features of
    ``rules.placement_features``): rows completed first, then depth, contacts with full cells, walls and floor,
    fewer empty cells covered just below, a lower top."""
    p = game.problem
    w, h, filled = p.width, p.height, game.filled
    lines = sum(1 for y in {y for _, y in members}
                if all((x, y) in filled or (x, y) in members for x in range(w)))
    depth = contact = covered = 0
    top = h
    for x, y in members:
        depth += y
        top = min(top, y)
        odd = y & 1
        for d, cell in enumerate(((x - 1, y), (x + 1, y), (x - 1 + odd, y + 1), (x + odd, y + 1),
                                  (x - 1 + odd, y - 1), (x + odd, y - 1))):
            if cell in members or cell[1] < 0:
                continue
            if not (0 <= cell[0] < w and cell[1] < h) or cell in filled:
                contact += 1
            elif d in (2, 3):
                covered += 1
    return 10000 * lines + 10 * depth + 6 * contact - 12 * covered + 4 * top


def _moved(pivot, members, cmd):
    if cmd in (CW, CCW):
        cw = cmd == CW
        return pivot, frozenset(rotate(c, pivot, cw) for c in members)
    return neighbour(pivot, cmd), frozenset(neighbour(c, cmd) for c in members)


@dataclass
class QuickGame:
    """One game of the quick player: the scalar game, the text spelled so far, the phrases it used and the text's
    power score (as of the last :meth:`QuickPlayer.best`)."""

    game: Game
    text: str = ""
    used: frozenset = frozenset()
    power: int = 0

    @property
    def total(self) -> int:
        return self.game.move_score + self.power


class QuickPlayer:
    """Every distinct seed of every problem played one unit at a time by a plain-Python policy (see the module)."""

    def __init__(self, problems: list[Problem], phrases: list[str], tag: str = "puzzlebatch-beam"):
        self.problems, self.phrases, self.tag = problems, list(phrases), tag
        self.games = [[QuickGame(Game(p, s)) for s in dict.fromkeys(p.source_seeds)] for p in problems]
        self.units = 0  # units placed by this player

    # -- one unit --------------------------------------------------------------------------------------------------
    @staticmethod
    def _spelled(game: Game, phrase: str):
        """``(pivot, members, positions seen)`` after spelling ``phrase`` from the unit's position; None if a command
        of it locks the unit or repeats a position."""
        cmds = decode(phrase)
        if not cmds:
            return None
        pivot, members = game.pivot, game.members
        seen = set(game.visited)
        for c in cmds:
            pivot, members = _moved(pivot, members, c)
            if not game.valid(members):
                return None
            if c in (SW, SE):
                seen = set()
            elif (pivot, members) in seen:
                return None
            seen.add((pivot, members))
        return pivot, members, seen

    @staticmethod
    def _drop_plan(game: Game, rot: int, shift: int, start=None, down=(SW, SE), cheap: bool = False):
        """(value, commands) of turning ``rot`` times, shifting ``shift`` columns and dropping until the lock (each
        step the first of ``down`` that is free), from ``start`` (``_spelled``'s answer; default: where the unit
        is); None if the turn or a shift is blocked.  ``cheap``: valued by :func:`quick_value`."""
        pivot, members, seen = (game.pivot, game.members, game.visited) if start is None else start
        seen = set(seen)
        cmds = []
        for c in [CW] * rot + [E if shift > 0 else W] * abs(shift):
            pivot, members = _moved(pivot, members, c)
            if not game.valid(members) or (pivot, members) in seen:
                return None
            seen.add((pivot, members))
            cmds.append(c)
        while True:
            for c in down:
                p2, m2 = _moved(pivot, members, c)
                if game.valid(m2):
                    pivot, members = p2, m2
                    cmds.append(c)
                    break
            else:
                cmds.append(SW)  # blocked both ways: this move locks the unit
                break
        return (quick_value(game, members) if cheap else lock_value(game, members)), cmds

    def _best(self, game: Game, start=None, cheap: bool = False):
        """The best :meth:`_drop_plan` over the turns and the shifts tried (None if none is possible); ``cheap``:
        none or one turn, drifting left only."""
        p = game.problem
        step = max(1, (2 * p.width) // COLUMNS)
        best = None
        for rot in (range(6) if p.width * p.height <= SMALL_BOARD and not cheap else (0, 1)):
            for shift in range(-p.width, p.width + 1, step):
                for down in ((SW, SE),) if cheap else ((SW, SE), (SE, SW)):  # drifting left or right on the way down
                    plan = self._drop_plan(game, rot, shift, start, down, cheap)
                    if plan is None:
                        break  # the turn or the shift is blocked
                    if best is None or plan[0] > best[0]:
                        best = plan
        return best

    def step_game(self, g: QuickGame, cheap: bool = False) -> None:
        """Place the current unit of one game (``cheap``: the cheap policy, see :meth:`run`)."""
        game = g.game
        text, best = "", None if cheap else self._best(game)
        for phrase in self.phrases:  # the first phrase not yet used that spells (full policy: if the drop after it
            if phrase in g.used:     # is about as good as the best drop without it)
                continue
            start = self._spelled(game, phrase)
            if start is None:
                continue
            after = self._best(game, start, cheap)
            if after is not None and (cheap or best is None or after[0] >= best[0] - PHRASE_SLACK * len(game.members)):
                text, best = phrase, (after[0], decode(phrase) + after[1])
                g.used = g.used | {phrase}
            break
        if best is None:
            best = self._best(game, cheap=cheap) or (0, [SW])  # (a drop without turn or shift is always a plan)
        for c in best[1]:
            game.step(c)
        g.text += text + "".join(CANONICAL_CHAR[c] for c in best[1][len(decode(text) or ()):])
        self.units += 1

    # -- the whole run ---------------------------------------------------------------------------------------------
    def run(self, stop=None, deadline: float | None = None, max_units: int | None = None) -> None:
        """Place units round robin over every live game until all ended, ``stop()`` is true, ``time.perf_counter()``
        passes ``deadline`` or ``max_units`` units were placed.

        With a ``deadline``, each round uses the full policy only while the units left, at the seconds per unit
        measured so far, fit in the time left; otherwise the cheap one (none or one turn, drifting left only, the
        first phrase not yet used spelled whenever it can be: about a quarter of the time per unit), so that the
        games get played to their end rather than left partial."""
        rate = None  # seconds per unit of the full policy (the last round's)
        while True:
            live = [g for games in self.games for g in games if g.game.end == IN_PROGRESS]
            if not live:
                return
            cheap = False
            if deadline is not None and rate is not None:
                left = sum(g.game.problem.source_length - g.game.spawned + 1 for g in live)
                cheap = left * rate > deadline - time.perf_counter()
            t, placed = time.perf_counter(), 0
            for g in live:
                if (stop is not None and stop()) or (deadline is not None and time.perf_counter() > deadline) or \
                        (max_units is not None and self.units >= max_units):
                    return
                self.step_game(g, cheap)
                placed += 1
            if not cheap:
                rate = (time.perf_counter() - t) / max(1, placed)

    def best(self) -> dict[tuple[int, int], tuple[dict, int]]:
        """Every game's solution so far and its exact total, by (problem id, seed)."""
        out = {}
        for p, games in zip(self.problems, self.games):
            for seed, g in zip(dict.fromkeys(p.source_seeds), games):
                g.power = power_score(g.text, self.phrases)  # here only: once per answer, not once per unit
                out[(p.id, seed)] = ({"problemId": p.id, "seed": seed, "tag": self.tag, "solution": g.text}, g.total)
        return out
