"""The player of the cold start: plain Python (the scalar model of ``puzzles.hextris.model``), nothing to compile.

On a machine whose compile cache is empty, the compiled players of ``play_icfp2015`` make no move until numba
has built their kernels (tens of seconds on a loaded 2-core machine), and that time counts against ``-t``.
:class:`QuickPlayer` plays meanwhile, in the thread that waits for them, so that every game has a legal solution
that scores from the first second: one unit of every game at a time, round robin, each unit spelling a phrase of
power not yet used in its game when it can (300 points the first time) and then dropping at the best of a few
columns (lines cleared first, then depth).  It stops as soon as the compiled players have their own answer
(:meth:`QuickPlayer.run`'s ``stop``); ``play_icfp2015`` keeps, game by game, whichever answer scores more.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from puzzlebatch.puzzles.hextris.model import CANONICAL_CHAR, CCW, CW, E, IN_PROGRESS, SE, SW, W, Game, Problem, \
    decode, neighbour, power_score, rotate

#: the lateral shifts tried for each unit (at most this many columns, spread over the board's width)
COLUMNS = 12


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
    def _spell(self, g: QuickGame, phrase: str) -> bool:
        """Spell ``phrase`` from the unit's position if no command of it locks the unit or repeats a position."""
        cmds = decode(phrase)
        if not cmds:
            return False
        game = g.game
        pivot, members = game.pivot, game.members
        seen = set(game.visited)
        for c in cmds:
            pivot, members = _moved(pivot, members, c)
            if not game.valid(members):
                return False
            if c in (SW, SE):
                seen = set()
            elif (pivot, members) in seen:
                return False
            seen.add((pivot, members))
        for c in cmds:
            game.step(c)
        g.text += phrase
        g.used = g.used | {phrase}
        return True

    def _drop_plan(self, game: Game, rot: int, shift: int):
        """(value, commands) of turning ``rot`` times, shifting ``shift`` columns and dropping until the lock; None
        if the turn or a shift is blocked."""
        pivot, members = game.pivot, game.members
        seen = set(game.visited)
        cmds = []
        for c in [CW] * rot + [E if shift > 0 else W] * abs(shift):
            pivot, members = _moved(pivot, members, c)
            if not game.valid(members) or (pivot, members) in seen:
                return None
            seen.add((pivot, members))
            cmds.append(c)
        while True:
            for c in (SW, SE):
                p2, m2 = _moved(pivot, members, c)
                if game.valid(m2):
                    pivot, members = p2, m2
                    cmds.append(c)
                    break
            else:
                cmds.append(SW)  # blocked both ways: this move locks the unit
                break
        w = game.problem.width
        filled = game.filled
        rows = {y for _, y in members}
        lines = sum(1 for y in rows if all((x, y) in filled or (x, y) in members for x in range(w)))
        return 1000 * lines + sum(y for _, y in members), cmds

    def step_game(self, g: QuickGame) -> None:
        """Place the current unit of one game."""
        game = g.game
        for phrase in self.phrases:
            if phrase not in g.used and self._spell(g, phrase):
                break
        if game.end != IN_PROGRESS:  # pragma: no cover - a phrase never locks (checked above)
            return
        w = game.problem.width
        step = max(1, (2 * w) // COLUMNS)
        best = None
        for rot in (0, 1):
            for shift in range(-w, w + 1, step):
                plan = self._drop_plan(game, rot, shift)
                if plan is not None and (best is None or plan[0] > best[0]):
                    best = plan
        if best is None:  # pragma: no cover - the drop without turn or shift is always a plan
            best = (0, [SW])
        for c in best[1]:
            game.step(c)
        g.text += "".join(CANONICAL_CHAR[c] for c in best[1])
        self.units += 1

    # -- the whole run ---------------------------------------------------------------------------------------------
    def run(self, stop=None, deadline: float | None = None, max_units: int | None = None) -> None:
        """Place units round robin over every live game until all ended, ``stop()`` is true, ``time.perf_counter()``
        passes ``deadline`` or ``max_units`` units were placed."""
        while True:
            live = [g for games in self.games for g in games if g.game.end == IN_PROGRESS]
            if not live:
                return
            for g in live:
                if (stop is not None and stop()) or (deadline is not None and time.perf_counter() > deadline) or \
                        (max_units is not None and self.units >= max_units):
                    return
                self.step_game(g)

    def best(self) -> dict[tuple[int, int], tuple[dict, int]]:
        """Every game's solution so far and its exact total, by (problem id, seed)."""
        out = {}
        for p, games in zip(self.problems, self.games):
            for seed, g in zip(dict.fromkeys(p.source_seeds), games):
                g.power = power_score(g.text, self.phrases)  # here only: once per answer, not once per unit
                out[(p.id, seed)] = ({"problemId": p.id, "seed": seed, "tag": self.tag, "solution": g.text}, g.total)
        return out
