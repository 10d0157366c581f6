"""Phrases of power woven by search: a beam search, unit after unit, over sequences of phrases and single moves
that lock every unit where the plan says, maximising the power gained.

:func:`phrases.weave` is greedy: at each position it takes the best-ranked phrase that fits.  :func:`weave_search`
takes the same placements (the planned lock of every unit) and searches instead.  A search state is the unit's
position, the positions visited in its row (the repeat rule, RULES.md §10), the phrase matcher's state (the phrase
begun at the end of the text: :class:`phrases.PhraseMatcher`) and the phrases spelled so far in the game; its value
is the power gained so far (``2 * len`` per occurrence completed, 300 more for a phrase new to the game).  A state
grows by a text (a phrase, or the rest of a phrase begun at the end of the text) or by one move (written with its
character that completes a phrase or goes deepest into one); every move must land on a position from which the
planned lock position is reachable at all (the reverse breadth-first distances of ``phrases.reverse_bfs``) and
must not repeat a position of its row.  At the lock position the unit locks with one of the commands blocked
there, written with a character worth most (a text may end with that lock: ``ei!`` whose ``!`` locks).  With
``across``, a text may lock the unit at its planned place and go on with the next unit's moves (the board after
a lock at the planned place, hence the next unit's spawn, does not depend on the path).

No command moves a unit up, so a unit's states are taken row by row, top down; within a row best value first, and
at most ``beam`` states with distinct (position, matcher state, phrases used) are expanded per row (the first
taken of each such key has the best value).  The states that lock a unit are the roots of the next unit's search
(at most ``keep`` per starting row, best value first), so a unit's choice is not final until the units after it
are searched.  The floor of each unit's search is a shortest legal path (``phrases.shortest_walk``) from its best
expanded states; past ``deadline`` the remaining units take shortest paths.  The finished string is replayed
through :func:`rules.step` (every unit must lock at its planned placement, no error), and the caller re-scores it
with the exact scorer.
"""

from __future__ import annotations

import heapq
import time

import numpy as np

from puzzlebatch.puzzles.hextris import rules
from puzzlebatch.puzzles.hextris.model import COMMAND_CHARS
from puzzlebatch.runners.hextris.phrases import (DOWN, PhraseMatcher, UnitMoves, phrase_commands, plain_game,
                                                 reachable, reverse_bfs, shortest_walk, signed_words)


class _Chars:
    """Per matcher state: what each text and each single command's characters do (cached)."""

    def __init__(self, matcher: PhraseMatcher):
        self.m = matcher
        self._texts: dict[int, list] = {}
        self._moves: dict[tuple[int, int], list] = {}
        self._options: dict[int, list] = {}

    def texts(self, s: int) -> list[tuple[str, list[int], int, int, tuple]]:
        """``(text, commands, next state, repeat points, phrases completed)`` for every text worth appending."""
        got = self._texts.get(s)
        if got is None:
            got = []
            for text, cmds, _, _, _ in self.m.options(s):
                s2, points, done = self.m.run(s, text)
                got.append((text, cmds, s2, points, tuple(done)))
            self._texts[s] = got
        return got

    def options(self, s: int) -> list[tuple[str, list[int], int, int, tuple]]:
        """:meth:`texts` and then each command written with its best character, in the same form (cached)."""
        got = self._options.get(s)
        if got is None:
            got = self._options[s] = self.texts(s) + [(ch, [cmd], s2, points, done) for cmd in range(6)
                                                      for ch, s2, points, done, _ in self.moves(s, cmd)[:1]]
        return got

    def moves(self, s: int, cmd: int) -> list[tuple[str, int, int, tuple, int]]:
        """``(char, next state, points, phrases completed, depth of the next state)`` for every character of
        ``cmd``, best first (points, then depth: a character that begins or continues a phrase)."""
        got = self._moves.get((s, cmd))
        if got is None:
            got = []
            for ch in COMMAND_CHARS[cmd]:
                s2, points, done = self.m.run(s, ch)
                got.append((ch, s2, points, tuple(done), len(self.m.prefix[s2])))
            got.sort(key=lambda g: (-g[2], -g[4]))
            self._moves[(s, cmd)] = got
        return got


class _Info:
    """One unit of the plan on the board it spawns on: where it starts, where it must lock, the distances to there."""

    __slots__ = ("unit", "start", "target", "dist", "lock_cmds", "locks", "succ")

    def __init__(self, unit, start, target, dist, lock_cmds):
        self.unit, self.start, self.target, self.dist, self.lock_cmds = unit, start, target, dist, lock_cmds
        self.locks = frozenset(lock_cmds)
        #: position -> the position each command leads to, None where the target cannot be reached from there
        #: (filled as the search reaches positions: the search's inner loop follows texts through it)
        self.succ: dict = {}

    def successors(self, p) -> tuple:
        """The position each of the six commands leads to from ``p``, None where it is not in ``dist``."""
        move, dist = self.unit.move, self.dist
        got = tuple(q if q in dist else None for q in (move(p, c) for c in range(6)))
        self.succ[p] = got
        return got


def _key(st):
    return -st[4], len(st[1])


def weave_search(tab: list, seed: int, placements, phrases: list[str], beam: int = 24, keep: int = 4,
                 deadline: float | None = None, prefix: str = "", across: bool = True) -> str:
    """A command string locking the game's units at ``placements`` (``(pivot x, pivot y, rot)`` each, as
    :func:`phrases.weave` takes them) with the phrases of power chosen by a beam search (module docstring).

    ``beam``: states expanded per row of a unit's search, and states handed on to the next unit (time grows about
    linearly with it).  With ``across``, a text may lock a unit (at its planned place) and go on with the next
    one's moves.  Past ``deadline`` (``time.perf_counter()``) the remaining units take shortest paths.  ``prefix``
    (an opening) is played first.  Raises ``ValueError`` if a placement is not reachable (a player bug)."""
    matcher = PhraseMatcher(phrases)
    chars = _Chars(matcher)
    tab_arr = np.asarray(tab, dtype=np.int64)
    tab, state, board, vis = plain_game(tab, seed)
    ac, used0 = 0, set()
    carry = None
    if prefix:
        carry = set()
        for c in phrase_commands(prefix):
            locked = state[rules.S_LOCKED]
            rules.step(state, board, vis, tab, c)
            u = state[rules.S_UNIT]
            now = (state[rules.S_PQ], state[rules.S_PR], tab[tab[rules.H_CROT] + u * 6 + state[rules.S_ROT]])
            carry = {now} if (c in DOWN or state[rules.S_LOCKED] != locked) else carry | {now}
        if state[rules.S_END] != rules.END_IN_PROGRESS:
            raise ValueError(f"prefix {prefix!r}: the game does not go on after it")
        ac, _, done = matcher.run(0, prefix)
        used0.update(done)
    n = len(placements)
    infos: list[_Info] = []
    shadow = (list(state), list(board), list(vis))  # the game with every unit so far locked where planned

    def info(j: int) -> _Info:
        while len(infos) <= j:
            st, bd, vs = shadow
            if st[rules.S_END] != rules.END_IN_PROGRESS:
                raise ValueError(f"placement {placements[len(infos)]}: the game has ended")
            px, py, rot = placements[len(infos)]
            unit = UnitMoves(tab, list(bd), st[rules.S_UNIT], tab_arr, signed_words(bd))
            target = (px - (py >> 1), py, tab[unit.crot + rot % 6])
            start = (st[rules.S_PQ], st[rules.S_PR], tab[unit.crot + st[rules.S_ROT]])
            dist = reverse_bfs(unit, target, start[1])
            lock_cmds = [c for c in range(6) if not unit.fits(unit.move(target, c))]
            if not lock_cmds or start not in dist:
                raise ValueError(f"placement {(px, py, rot)} is not reachable")
            infos.append(_Info(unit, start, target, dist, lock_cmds))
            st[rules.S_PQ], st[rules.S_PR], st[rules.S_ROT] = target[0], py, rot % 6
            rules.lock(st, bd, vs, tab)
        return infos[j]

    def gain(points, done, used):
        fresh = [i for i in done if i not in used]
        if not fresh:
            return points, used
        return points + 300 * len(set(fresh)), used | set(fresh)

    def walk_on(st, j):
        """From state ``st`` of unit ``j``: a shortest legal path and the lock (each move written with its best
        character); the state that starts unit ``j + 1``, or None if the target cannot be reached from there."""
        inf = info(j)
        p, vs, s, used, value, _ = st
        if not reachable(inf.unit, p, set(vs), inf.target, inf.dist):
            return None
        cmds = shortest_walk(inf.unit, p, set(vs), inf.target, inf.dist) + [None]
        text = []
        for k, c in enumerate(cmds):
            pick = None
            for c2 in ([c] if c is not None else inf.lock_cmds):
                ch, s2, points, done, depth = chars.moves(s, c2)[0]
                g, u2 = gain(points, done, used)
                if pick is None or (g, depth) > pick[0]:
                    pick = ((g, depth), ch, c2, s2, u2)
            (g, _), ch, c2, s, used = pick
            value += g
            text.append(ch)
            cmds[k] = c2
        return root_after(j, s, used, value, (st, "".join(text), cmds))

    def first_walk(rs, j):
        """The shortest path on from the best root that can still reach unit ``j``'s lock."""
        for st in rs:
            got = walk_on(st, j)
            if got is not None:
                return got
        raise ValueError(f"placement {placements[j]}: not reachable from the search's states")  # pragma: no cover

    def root_after(j, s, used, value, back):
        if j + 1 >= n:
            return (None, None, s, used, value, back)
        nxt = info(j + 1)
        return (nxt.start, frozenset((nxt.start,)), s, used, value, back)

    def run_text(j, p, vs, cmds):
        """Follow ``cmds`` from ``p`` (unit ``j``, ``vs`` its row's visited positions): ``(j, position, visited)``
        where the text ends (position None: it ended with unit ``j``'s lock), or None if a move is illegal, locks
        elsewhere than planned or leaves a place from which the planned lock cannot be reached."""
        inf = infos[j]
        succ, target = inf.succ, inf.target
        own = None
        last = len(cmds) - 1
        for k, c in enumerate(cmds):
            nx = succ.get(p)
            q = (nx or inf.successors(p))[c]
            if q is None:  # off the positions that reach the target: a lock there, or no way on
                if p != target or c not in inf.locks:
                    return None
                if k == last:
                    return j, None, None
                if not across or j + 1 >= n:
                    return None
                j += 1
                inf = info(j)
                succ, target = inf.succ, inf.target
                p, vs, own = inf.start, frozenset((inf.start,)), None
                continue
            if c in DOWN:
                own = None
                vs = frozenset((q,))
            else:
                if own is None:
                    if q in vs:
                        return None
                    own = set(vs)
                elif q in own:
                    return None
                own.add(q)
            p = q
        if own is not None:
            vs = frozenset(own)
        if p[1] == target[1] and p != target and target in vs:
            return None  # the lock position was passed in its own row: no way back
        return j, p, vs

    p0 = info(0).start if n else None
    roots: dict[int, list] = {0: [(p0, frozenset(carry) if carry else frozenset((p0,)), ac, frozenset(used0), 0,
                                   None)]}
    counter = 0
    final = None
    for j in range(n):
        if j:
            infos[j - 1] = None  # no text starts before unit j now: its tables are let go (memory: long games)
        inf = info(j)
        rs = roots.pop(j, [])
        if not rs:  # every text handed on ran on past this unit's lock
            if any(roots.get(k) for k in range(j + 1, n + 1)):
                continue
            raise ValueError(f"placement {placements[j]}: the search lost the way")  # pragma: no cover
        # the roots: best value first, one per (position, visited, matcher state, phrases used), at most ``beam``
        uniq = {}
        for st in sorted(rs, key=_key):
            uniq.setdefault((st[0], st[1], st[2], st[3]), st)
        per_row: dict = {}
        rs = [st for st in uniq.values() if per_row.setdefault(st[0][1], []).append(st) or
              len(per_row[st[0][1]]) <= max(1, keep)]
        nxt: list = roots.setdefault(j + 1, [])
        if deadline is not None and time.perf_counter() >= deadline:
            nxt.append(first_walk(rs, j))
            continue
        target, t_row = inf.target, inf.target[1]
        heaps: dict[int, list] = {}
        for st in rs:
            counter += 1
            heaps.setdefault(st[0][1], []).append((-st[4], len(st[1]), counter, st))
        for h in heaps.values():
            heapq.heapify(h)
        floor = []  # the best expanded states: shortest paths from them are the floor of the search
        for row in range(min(heaps), t_row + 1):
            heap = heaps.setdefault(row, [])
            seen = set()
            expanded = 0
            while heap and expanded < beam:
                _, _, _, st = heapq.heappop(heap)
                p, vs, s, used, value, _ = st
                key = (p, s, used)
                if key in seen:
                    continue
                seen.add(key)
                expanded += 1
                if p == target:
                    for cmd in inf.lock_cmds:
                        for ch, s2, points, done, _depth in chars.moves(s, cmd)[:3]:
                            g, u2 = gain(points, done, used)
                            nxt.append(root_after(j, s2, u2, value + g, (st, ch, [cmd])))
                    continue
                if len(floor) < 4:
                    floor.append(st)
                elif value > floor[-1][4]:
                    floor[-1] = st
                    floor.sort(key=_key)
                nx = inf.succ.get(p) or inf.successors(p)
                for text, cmds, s2, points, done in chars.options(s):
                    if nx[cmds[0]] is None and (p != target or cmds[0] not in inf.locks):
                        continue  # its first move leaves the positions that reach the lock, and does not lock
                    got = run_text(j, p, vs, cmds)
                    if got is None:
                        continue
                    k, q, qv = got
                    g, u2 = gain(points, done, used) if done else (points, used)
                    back = (st, text, cmds)
                    if q is None:
                        roots.setdefault(k + 1, []).append(root_after(k, s2, u2, value + g, back))
                    elif k > j:
                        ik = info(k)
                        if reachable(ik.unit, q, set(qv), ik.target, ik.dist):
                            roots.setdefault(k, []).append((q, qv, s2, u2, value + g, back))
                    else:
                        counter += 1
                        child = (q, qv, s2, u2, value + g, back)
                        heapq.heappush(heap if q[1] == row else heaps.setdefault(q[1], []),
                                       (-(value + g), len(qv), counter, child))
        best_found = max((r[4] for r in roots.get(j + 1, [])), default=None)
        for st in floor:
            if best_found is None or st[4] > best_found:
                got = walk_on(st, j)
                if got is not None:
                    roots.setdefault(j + 1, []).append(got)
        if not roots.get(j + 1) and not any(roots.get(k) for k in range(j + 2, n + 1)):
            roots.setdefault(j + 1, []).append(first_walk(rs, j))
    ends = roots.get(n, [])
    final = max(ends, key=lambda st: st[4])
    texts = []
    st = final
    while st[5] is not None:
        st, t, _ = st[5]
        texts.append(t)
    out = (prefix or "") + "".join(reversed(texts))
    _check(tab, seed, placements, out, prefix)
    return out


def _check(tab: list, seed: int, placements, text: str, prefix: str) -> None:
    """Replay ``text`` through :func:`rules.step`: every unit after the prefix locks at its planned placement and
    the game never errs (``ValueError`` otherwise)."""
    tab, state, board, vis = plain_game(tab, seed)
    k0 = len(phrase_commands(prefix)) if prefix else 0
    got = []
    for i, c in enumerate(phrase_commands(text)):
        q, r, rot, locked = state[rules.S_PQ], state[rules.S_PR], state[rules.S_ROT], state[rules.S_LOCKED]
        u = state[rules.S_UNIT]
        rules.step(state, board, vis, tab, c)
        if state[rules.S_END] >= rules.END_ERROR_REPEAT:
            raise ValueError("the searched weaving errs")  # pragma: no cover
        if state[rules.S_LOCKED] != locked and i >= k0:
            crot = tab[rules.H_CROT] + u * 6
            got.append((q, r, tab[crot + rot]))
            px, py, prot = placements[len(got) - 1]
            if (q, r, tab[crot + rot]) != (px - (py >> 1), py, tab[crot + prot % 6]):
                # pragma: no cover
                raise ValueError(f"placement {(px, py, prot)}: the searched weaving locked elsewhere")
    if len(got) != len(placements):
        raise ValueError("the searched weaving did not lock every unit")  # pragma: no cover
