"""Phrases of power woven into command paths (plain Python over the same rule functions as the kernels).

Long because :func:`weave` is one algorithm of some 200 lines with its private reachability helpers (``UnitMoves``,
``_Dist``, ``reverse_bfs``, ``reachable``, ``_try_path``, ``_step_towards``): kept together since those helpers
serve it (and the searching weaver) alone, and :func:`opening`, :func:`insertions`, :func:`placements_of` and
:func:`opening_of` replay games with the same rule functions.

Given where each unit of a game must lock (the player's placements), :func:`weave` writes a command string that
locks every unit at exactly that place while spelling as many phrases of power as the board allows.  For each
unit, from the current position:

1. try the phrases, best gain first (a phrase not yet spelled in this game is worth ``2 * len + 300``, a repeat
   ``2 * len``): the phrase is taken when every one of its moves is a legal move that does not lock the unit or
   repeat a position (the repeat rule of RULES.md §10), and the target is still legally reachable afterwards;
2. otherwise make one move along a shortest path to the target among the moves that keep it reachable;
3. at the target, the lock command.

Reachability is exact: no command moves a unit up, so a legal path from ``P`` (row ``r``, positions ``V``
visited in that row) to the target ``T`` is a walk inside row ``r`` that avoids ``V`` followed (unless ``T`` is
in row ``r``) by a downward move onto a position from which ``T`` is reachable at all (a fresh row: shortest
paths never repeat a position).  The positions from which ``T`` is reachable, with their distances, come from a
reverse breadth-first search from ``T`` (:func:`reverse_bfs`).

The rule functions of ``rules.py`` run here as plain Python on lists (``tab``, ``board``), the same code the
kernels compile; every emitted command is also executed through :func:`rules.step`, and the caller re-scores the
finished string with the exact scorer.
"""

from __future__ import annotations

import time

import numpy as np

from puzzlebatch.puzzles.hextris import rules
from puzzlebatch.puzzles.hextris.model import CANONICAL_CHAR, CHAR_TO_COMMAND, COMMAND_CHARS

DOWN = (rules.C_SW, rules.C_SE)
#: (next move, last move) pairs where the next move returns to the position just left: always a repeat error
UNDO = {(rules.C_E, rules.C_W), (rules.C_W, rules.C_E), (rules.C_CW, rules.C_CCW), (rules.C_CCW, rules.C_CW)}


def phrase_commands(phrase: str) -> list[int] | None:
    """The commands a phrase spells, or None when a character is not a command."""
    out = []
    for ch in phrase.lower():
        if ch not in CHAR_TO_COMMAND:
            return None
        out.append(CHAR_TO_COMMAND[ch])
    return out


class UnitMoves:
    """Moves of one unit on one board, with rotations kept canonical (modulo the unit's symmetry)."""

    def __init__(self, tab: list, board: list, u: int, tab_arr, board_arr):
        self.tab, self.board, self.u = tab, board, u
        self.tab_arr, self.board_arr = tab_arr, board_arr
        self.crot = tab[rules.H_CROT] + u * 6
        self._fits: dict = {}
        self.scratch = None  # rules.row_reachable's marks and queue

    def fits(self, p) -> bool:
        f = self._fits.get(p)
        if f is None:
            f = self._fits[p] = bool(rules.fits(self.board, self.tab, self.u, p[0], p[1], p[2]))
        return f

    def move(self, p, cmd):
        q, r, rot = rules.moved(p[0], p[1], p[2], cmd)
        return q, r, self.tab[self.crot + rot]


class _Dist:
    """Distances to the target by position ``(pq, pr, rot)`` (``in``: the target is reachable from there)."""

    def __init__(self, tab, d: list, arr: np.ndarray | None = None):
        self.d = d
        self.arr = arr  # the same as int64, for rules.row_reachable
        self.border, self.slots = tab[rules.H_BORDER], tab[rules.H_NSLOTS]
        self.rows = tab[rules.H_NROWS]

    def _id(self, p):
        x = p[0] + (p[1] >> 1) + self.border
        y = p[1] + self.border
        if x < 0 or y < 0 or x >= self.slots or y >= self.rows:
            return -1
        return (y * self.slots + x) * 6 + p[2]

    def __contains__(self, p) -> bool:
        i = self._id(p)
        return i >= 0 and self.d[i] > 0

    def __getitem__(self, p) -> int:
        return self.d[self._id(p)] - 1


def reverse_bfs(unit: UnitMoves, target, top_row: int) -> _Dist:
    """Distance to ``target`` of every valid position (rows ``top_row`` .. target's) that can reach it
    (``rules.reverse_distances``, compiled for the CPU)."""
    from puzzlebatch.cpu_fallback.hextris import weave_rules

    tab = unit.tab
    work = np.zeros(2 * tab[rules.H_NPOS], np.int64)
    weave_rules().reverse_distances(unit.board_arr, unit.tab_arr, unit.u, target[0], target[1], target[2],
                                    top_row, work)
    npos = tab[rules.H_NPOS]
    return _Dist(tab, work[:npos].tolist(), work[:npos].copy())


def reachable(unit: UnitMoves, p, visited: set, target, dist: _Dist) -> bool:
    """True when ``target`` can be reached legally from ``p`` with ``visited`` marked in ``p``'s row
    (``rules.row_reachable``, compiled for the CPU)."""
    if p == target:
        return True
    if dist.arr is not None:
        from puzzlebatch.cpu_fallback.hextris import weave_rules

        ids = np.array([dist._id(v) for v in visited if dist._id(v) >= 0] or [-1], np.int64)
        if unit.scratch is None:
            npos = unit.tab[rules.H_NPOS]
            unit.scratch = (np.zeros(npos + 1, np.int64), np.zeros(npos, np.int64))
        return bool(weave_rules().row_reachable(unit.board_arr, unit.tab_arr, unit.u, p[0], p[1], p[2], ids,
                                                len(ids), target[0], target[1], target[2], dist.arr,
                                                *unit.scratch))
    return _reachable_plain(unit, p, visited, target, dist)


def _reachable_plain(unit: UnitMoves, p, visited: set, target, dist: _Dist) -> bool:
    """:func:`reachable` in plain Python (the oracle of the compiled rule)."""
    if p == target:
        return True
    seen = {p}
    queue = [p]
    while queue:
        a = queue.pop()
        for cmd in range(6):
            b = unit.move(a, cmd)
            if cmd in DOWN:
                if b in dist:
                    return True
                continue
            if b == target and b not in visited:
                return True
            if b in seen or b in visited or b not in dist or not unit.fits(b):
                continue
            seen.add(b)
            queue.append(b)
    return False


def _try_path(unit: UnitMoves, p, visited: set, cmds: list[int]):
    """Follow ``cmds`` from ``p``; the end position and visited set, or None if a move locks or repeats."""
    visited = set(visited)
    for cmd in cmds:
        q = unit.move(p, cmd)
        if not unit.fits(q):
            return None
        if cmd in DOWN:
            visited = {q}
        elif q in visited:
            return None
        else:
            visited.add(q)
        p = q
    return p, visited


def signed_words(board: list) -> np.ndarray:
    return np.array([w - (1 << 64) if w >> 63 else w for w in board], dtype=np.int64)


def _step_towards(unit: UnitMoves, p, visited: set, target, dist: _Dist):
    """One move along a shortest legal path to ``target``: ``(command, position, visited)``, or None."""
    moves = []
    for cmd in range(6):
        q = unit.move(p, cmd)
        if q not in dist or (cmd not in DOWN and q in visited):
            continue
        moves.append((dist[q], cmd, q))
    for _d, cmd, q in sorted(moves):
        nv = {q} if cmd in DOWN else visited | {q}
        if reachable(unit, q, nv, target, dist):
            return cmd, q, nv
    return None


def shortest_walk(unit: UnitMoves, p, visited: set, target, dist: _Dist | None = None) -> list[int]:
    """A legal shortest path (commands) from ``p`` to ``target`` (no lock)."""
    if dist is None:
        dist = reverse_bfs(unit, target, p[1])
    out = []
    while p != target:
        cmd, p, visited = _step_towards(unit, p, visited, target, dist)
        out.append(cmd)
    return out


class PhraseMatcher:
    """Aho-Corasick automaton over the phrases (lower case): what appending a text to the solution adds to its power
    score, overlapping occurrences and occurrences that begin in earlier text included (the scorer counts every
    occurrence: RULES.md §11), and which texts would complete a phrase begun at the end of the solution.

    A state is the longest suffix of the text so far that is a prefix of a phrase (state 0: none).
    """

    def __init__(self, phrases: list[str]):
        self.phrases = [ph for ph in dict.fromkeys(p.lower() for p in phrases) if phrase_commands(ph)]
        self.prefix = [""]
        self.next: list[dict[str, int]] = [{}]
        for ph in self.phrases:
            s = 0
            for ch in ph:
                if ch not in self.next[s]:
                    self.next[s][ch] = len(self.prefix)
                    self.prefix.append(self.prefix[s] + ch)
                    self.next.append({})
                s = self.next[s][ch]
        index = {ph: i for i, ph in enumerate(self.phrases)}
        by_prefix = {u: s for s, u in enumerate(self.prefix)}
        # fall back: the longest proper suffix that is a prefix; ends: the phrases that end at this state
        self.fail = [by_prefix[next(u[k:] for k in range(1, len(u) + 1) if u[k:] in by_prefix)] if u else 0
                     for u in self.prefix]
        self.ends = [[index[u[k:]] for k in range(len(u)) if u[k:] in index] for u in self.prefix]
        self._options: dict[int, list] = {}

    def step(self, s: int, ch: str) -> int:
        while ch not in self.next[s] and s:
            s = self.fail[s]
        return self.next[s].get(ch, 0)

    def run(self, s: int, text: str) -> tuple[int, int, list[int]]:
        """``(state, repeat points, phrases completed)`` after appending ``text`` in state ``s``: repeat points are
        ``2 * len`` per occurrence completed; each phrase's first use in a game adds 300 more (the caller's)."""
        points, done = 0, []
        for ch in text.lower():
            s = self.step(s, ch)
            for i in self.ends[s]:
                points += 2 * len(self.phrases[i])
                done.append(i)
        return s, points, done

    def options(self, s: int) -> list[tuple[str, list[int], int, int, frozenset]]:
        """The texts worth appending in state ``s``: every phrase, and the rest of every phrase begun at the end of
        the text; each as ``(text, commands, downward moves, repeat points, phrases completed)``."""
        got = self._options.get(s)
        if got is None:
            got, seen, t = [], set(), s
            while True:
                u = self.prefix[t]
                for ph in self.phrases:
                    if len(ph) > len(u) and ph.startswith(u) and ph[len(u):] not in seen:
                        text = ph[len(u):]
                        seen.add(text)
                        cmds = phrase_commands(text)
                        _, points, done = self.run(s, text)
                        got.append((text, cmds, sum(1 for c in cmds if c in DOWN), points, frozenset(done)))
                if t == 0:
                    break
                t = self.fail[t]
            self._options[s] = got
        return got


def weave(tab: list, seed: int, placements, phrases: list[str], max_tries: int = 100000,
          deadline: float | None = None, lookahead: bool = True, across: bool = True, prefix: str = "") -> str:
    """A command string locking the game's units at ``placements`` (``(pivot x, pivot y, rot)`` each, as
    :meth:`Playouts.lockable` lists them) and spelling phrases of power wherever the board allows.

    ``tab`` is the problem's table as a list (``encode.problem_tables(p).tolist()``).  ``max_tries`` bounds the
    phrase attempts per unit (time).  The texts tried at each step are the phrases and the completions of phrases
    begun at the end of the solution (:class:`PhraseMatcher`: after ``ia!``, `` ia!`` completes ``ia! ia!``):
    those that spell a phrase not used yet in this game first (longest phrase first: each is worth 300 more),
    then by power gained per downward move (rows are what a path runs out of).  Every move outside a phrase is
    written with the character of its command that completes a phrase or begins one, where one does.  With
    ``lookahead``, where no phrase fits, a sideways or turning move after which one does is preferred to a step
    along the shortest path.  With ``across``, a phrase may also run on past a unit's lock into the next units'
    moves (the lock is one of its characters, every lock on the way at its planned placement): long phrases fit
    on low boards.  Past ``deadline`` (``time.perf_counter()``, looked at before every move once a unit has tried a
    phrase) no more phrases are tried: the rest of the game takes shortest paths.  ``prefix`` (an
    :func:`opening`) is played first; ``placements`` are then those of the units after it, the first one from
    wherever the prefix left it.  Raises ``ValueError`` if a placement is not
    reachable (a player bug).
    """
    matcher = PhraseMatcher(phrases)
    used: set[int] = set()
    state = [0] * rules.STATE_LEN
    nw = tab[rules.H_NW]
    # Python ints do not wrap: keep the row masks and the board words unsigned so that a 64-bit word with bit 63
    # set compares equal to its full-row mask (the kernels' int64 -1)
    tab_arr = np.asarray(tab, dtype=np.int64)
    tab = [int(v) for v in tab]
    for base, n in ((tab[rules.H_ROWMASK], nw), (tab[rules.H_BOARD0], tab[rules.H_HEIGHT] * nw)):
        for k in range(base, base + n):
            tab[k] &= (1 << 64) - 1
    board = [0] * (tab[rules.H_HEIGHT] * nw)
    vis = [0] * tab[rules.H_VISWORDS]
    rules.init_game(state, board, vis, tab, seed)
    out: list[str] = []
    ac = [0]  # the matcher's state at the end of the text

    def order(s: int) -> list[tuple[str, list[int], bool]]:
        """Texts to try in matcher state ``s``, best first, each with whether it spells a phrase not used yet."""
        ranked = []
        for text, cmds, downs, points, done in matcher.options(s):
            new = done - used
            if new:
                ranked.append(((0, -max(len(matcher.phrases[i]) for i in new), -len(cmds)), text, cmds, True))
            elif points:
                # a text that undoes its own last move when repeated (ei!ei!: W then E) needs a downward move
                # between two copies: count it, so that the rate is that of a chain of them
                undo = (cmds[0], cmds[-1]) in UNDO
                ranked.append(((1, -points / max(1, downs + undo), -len(cmds)), text, cmds, False))
        ranked.sort(key=lambda r: r[0])
        return [r[1:] for r in ranked]

    def emit(text: str, cmds: list[int]) -> None:
        for c in cmds:
            rules.step(state, board, vis, tab, c)
        ac[0], _, done = matcher.run(ac[0], text)
        used.update(done)
        out.append(text)

    def emit_move(cmd: int) -> None:
        """One move, written with its character that completes a phrase (new ones first) or goes deepest into one."""
        best, key = CANONICAL_CHAR[cmd], None
        for ch in COMMAND_CHARS[cmd]:
            s, points, done = matcher.run(ac[0], ch)
            k = (len(set(done) - used), points, len(matcher.prefix[s]), ch == CANONICAL_CHAR[cmd])
            if key is None or k > key:
                best, key = ch, k
        emit(best, [cmd])

    carry = None  # the visited set of the current unit's row, when a phrase ran on past a lock into it
    if prefix:
        cmds = phrase_commands(prefix)
        carry = set()
        for c in cmds:
            locked = state[rules.S_LOCKED]
            rules.step(state, board, vis, tab, c)
            u = state[rules.S_UNIT]
            now = (state[rules.S_PQ], state[rules.S_PR], tab[tab[rules.H_CROT] + u * 6 + state[rules.S_ROT]])
            carry = {now} if (c in DOWN or state[rules.S_LOCKED] != locked) else carry | {now}
        if state[rules.S_END] != rules.END_IN_PROGRESS:
            raise ValueError(f"prefix {prefix!r}: the game does not go on after it")
        ac[0], _, done = matcher.run(0, prefix)
        used.update(done)
        out.append(prefix)
    infos: dict = {}  # unit index -> (unit, target, distances) on the board it spawns on (same for every path)

    def planned(j, u):
        qx, qy, qr = placements[j]
        return qx - (qy >> 1), qy, tab[tab[rules.H_CROT] + u * 6 + qr % 6]

    def attempt(i, unit, visited, target, dist, cmds):
        """Run ``cmds`` on a copy of the game: the unit index, position and row-visited set reached, if every lock
        on the way is at its planned placement, the game goes on, and the unit reached can still reach its own."""
        st, bd, vs = list(state), list(board), list(vis)
        j, vq = i, set(visited)
        for c in cmds:
            u = st[rules.S_UNIT]
            pos = (st[rules.S_PQ], st[rules.S_PR], tab[tab[rules.H_CROT] + u * 6 + st[rules.S_ROT]])
            lk = st[rules.S_LOCKED]
            rules.step(st, bd, vs, tab, c)
            if st[rules.S_END] != rules.END_IN_PROGRESS:
                return None
            u2 = st[rules.S_UNIT]
            now = (st[rules.S_PQ], st[rules.S_PR], tab[tab[rules.H_CROT] + u2 * 6 + st[rules.S_ROT]])
            if st[rules.S_LOCKED] != lk:
                if pos != planned(j, u):
                    return None
                j += 1
                if j >= len(placements):
                    return None
                vq = {now}
                if j not in infos:
                    un = UnitMoves(tab, list(bd), u2, tab_arr, signed_words(bd))
                    tj = planned(j, u2)
                    infos[j] = (un, tj, reverse_bfs(un, tj, now[1]))
            elif c in DOWN:
                vq = {now}
            else:
                vq.add(now)
        if j == i:
            return None  # (plain phrases within the unit are tried by _try_path)
        un, tj, dj = infos[j]
        if now not in dj or not reachable(un, now, vq, tj, dj):
            return None
        return j, vq

    i = 0
    while i < len(placements):
        if state[rules.S_END] != rules.END_IN_PROGRESS:
            break
        px, py, rot = placements[i]
        unit = UnitMoves(tab, board, state[rules.S_UNIT], tab_arr, signed_words(board))
        pq = px - (py >> 1)
        target = (pq, py, tab[unit.crot + rot % 6])
        lock = rules.lock_command(board, tab, unit.u, pq, py, target[2])
        p = (state[rules.S_PQ], state[rules.S_PR], tab[unit.crot + state[rules.S_ROT]])
        dist = reverse_bfs(unit, target, p[1])
        visited = carry if carry is not None else {p}
        carry = None
        if lock < 0 or not reachable(unit, p, visited, target, dist):
            raise ValueError(f"placement {(px, py, rot)} is not reachable")
        locked = state[rules.S_LOCKED]
        tries = 0 if deadline is None or time.perf_counter() < deadline else max_tries
        more = across and i + 1 < len(placements)
        jump = None
        while True:
            took = False
            if tries and tries < max_tries and deadline is not None and time.perf_counter() >= deadline:
                tries = max_tries  # the deadline passed within this unit: shortest paths from here
            if tries < max_tries:
                # best first; a phrase may run on past this unit's lock into the next unit (a long phrase on a
                # low board)
                for text, cmds, new in order(ac[0]):
                    tries += 1
                    got = None if p == target else _try_path(unit, p, visited, cmds)
                    if got is not None and reachable(unit, got[0], got[1], target, dist):
                        emit(text, cmds)
                        p, visited = got
                        took = True
                        break
                    if more and (new or p == target):
                        jump = attempt(i, unit, visited, target, dist, cmds)
                        if jump is not None:
                            emit(text, cmds)
                            took = True
                            break
                    if tries >= max_tries:
                        break
            if jump is not None:
                break
            if took:
                continue
            if p == target:
                emit_move(lock)
                break
            if lookahead and tries < max_tries:
                # no phrase fits here: a sideways or turning move (no row spent) after which one fits, if any
                step = None
                for cmd in range(6):
                    if cmd in DOWN:
                        continue
                    q = unit.move(p, cmd)
                    if q in visited or q not in dist or not unit.fits(q):
                        continue
                    nv = visited | {q}
                    if not reachable(unit, q, nv, target, dist):
                        continue
                    after = matcher.step(ac[0], CANONICAL_CHAR[cmd])
                    for _text, cmds, _ in order(after):
                        tries += 1
                        got = _try_path(unit, q, nv, cmds)
                        if got is not None and reachable(unit, got[0], got[1], target, dist):
                            step = (cmd, q, nv)
                            break
                    if step is not None:
                        break
                if step is not None:
                    emit_move(step[0])
                    p, visited = step[1], step[2]
                    continue
            best = _step_towards(unit, p, visited, target, dist)
            if best is None:  # pragma: no cover - reachability was checked before every move
                raise ValueError(f"lost the way to placement {(px, py, rot)}")
            emit_move(best[0])
            p, visited = best[1], best[2]
        if jump is not None:  # a phrase ran on into unit jump[0] (its locks checked by attempt)
            if state[rules.S_LOCKED] != locked + jump[0] - i:  # pragma: no cover
                raise ValueError(f"placement {(px, py, rot)}: the woven phrase did not lock as planned")
            i, carry = jump
            continue
        if state[rules.S_LOCKED] != locked + 1 or state[rules.S_END] >= rules.END_ERROR_REPEAT:
            raise ValueError(f"placement {(px, py, rot)}: the woven path did not lock there")  # pragma: no cover
        i += 1
    return "".join(out)


def plain_game(tab: list, seed: int):
    """A game in plain Python: the table with unsigned row masks and board, and the state, board, visited set."""
    tab = [int(v) for v in tab]
    nw = tab[rules.H_NW]
    for base, n in ((tab[rules.H_ROWMASK], nw), (tab[rules.H_BOARD0], tab[rules.H_HEIGHT] * nw)):
        for k in range(base, base + n):
            tab[k] &= (1 << 64) - 1
    state = [0] * rules.STATE_LEN
    board = [0] * (tab[rules.H_HEIGHT] * nw)
    vis = [0] * tab[rules.H_VISWORDS]
    rules.init_game(state, board, vis, tab, seed)
    return tab, state, board, vis


def _drop(t, state, board, vis, side: int) -> str | None:
    """Commands that take the current unit as far as it goes to one side (``side`` -1: W, +1: E) and then down
    until it locks (SW and SE in turn, whichever is free), played on the game; None if the game ends or errs."""
    out = []
    u = state[rules.S_UNIT]
    crot = t[rules.H_CROT] + u * 6
    sideways = rules.C_W if side < 0 else rules.C_E
    moves = [sideways] * (t[rules.H_WIDTH] + 8)
    locked = state[rules.S_LOCKED]
    for cmd in moves:
        q, r, o = rules.moved(state[rules.S_PQ], state[rules.S_PR], state[rules.S_ROT], cmd)
        if not rules.fits(board, t, u, q, r, t[crot + o]):
            break
        rules.step(state, board, vis, t, cmd)
        out.append(cmd)
    while state[rules.S_LOCKED] == locked and state[rules.S_END] == rules.END_IN_PROGRESS:
        down = rules.C_SW if len(out) % 2 else rules.C_SE
        q, r, o = rules.moved(state[rules.S_PQ], state[rules.S_PR], state[rules.S_ROT], down)
        if not rules.fits(board, t, u, q, r, t[crot + o]):
            other = rules.C_SE + rules.C_SW - down
            q, r, o = rules.moved(state[rules.S_PQ], state[rules.S_PR], state[rules.S_ROT], other)
            if rules.fits(board, t, u, q, r, t[crot + o]):
                down = other
        rules.step(state, board, vis, t, down)
        out.append(down)
    if state[rules.S_END] != rules.END_IN_PROGRESS:
        return None
    return "".join(CANONICAL_CHAR[c] for c in out)


def opening(tab: list, seed: int, phrases: list[str], min_len: int = 40, max_skips: int = 3,
            limit: int = 4000, start: str = "") -> list[tuple[str, tuple]]:
    """Openings that spell the long phrases (``min_len`` characters or more) early in the game: the phrase dictates
    the moves and a unit locks wherever a move is blocked (the next unit goes on with the phrase) -- a long phrase
    needs more rows than the paths to the planned locks give it.

    A candidate drops the first units (none to ``max_skips``) to the bottom at one side or the other until a unit
    that can turn (a phrase of power turns) is the current one, moves it sideways by some columns, then spells the
    phrases in some order, one after the other; one whose game errs (a repeated position) or ends is dropped.
    At most ``limit`` candidates are played (plain Python, about a millisecond each).

    ``start`` (commands played first, e.g. a solution up to one of its locks) makes it an insertion in the middle of
    a game: every prefix returned begins with it.

    Returns ``[(prefix, key)]``, best first: the most long phrases spelled, then the fewest full cells in the spawn
    zone's rows, then the fewest units locked.  Empty when no phrase fits.
    """
    longs = [p for p in dict.fromkeys(p.lower() for p in phrases) if len(p) >= min_len and phrase_commands(p)]
    if not longs:
        return []
    orders = [longs] if len(longs) == 1 else [longs, longs[::-1]] + [[p] for p in longs]
    zone = tab[rules.H_ZONE]
    nw = tab[rules.H_NW]
    width = tab[rules.H_WIDTH]
    out: list[tuple[str, tuple]] = []
    tried = 0
    game = plain_game(tab, seed)
    for c in phrase_commands("".join(ch for ch in start.lower() if ch in CHAR_TO_COMMAND)) or []:
        rules.step(game[1], game[2], game[3], game[0], c)
    if game[1][rules.S_END] != rules.END_IN_PROGRESS:
        return []
    leads = [(start, game)]
    for _ in range(max_skips + 1):
        after = []
        for lead, (t, state, board, vis) in leads:
            u = state[rules.S_UNIT]
            if t[t[rules.H_PERIOD] + u] > 1:  # this unit can turn: try the phrases from here
                for shift in sorted(range(-width, width + 1), key=abs):
                    side = "p" if shift < 0 else "b"
                    for order in orders:
                        if tried >= limit:
                            break
                        tried += 1
                        text = lead + side * abs(shift) + "".join(order)
                        t2, st, bd, vs = t, list(state), list(board), list(vis)
                        for c in phrase_commands(side * abs(shift) + "".join(order)):
                            rules.step(st, bd, vs, t2, c)
                            if st[rules.S_END] != rules.END_IN_PROGRESS:
                                break
                        if st[rules.S_END] != rules.END_IN_PROGRESS:
                            continue
                        top = sum(bin(bd[y * nw + k]).count("1") for y in range(min(zone, t2[rules.H_HEIGHT]))
                                  for k in range(nw))
                        out.append((text, (-len(order), top, st[rules.S_LOCKED])))
            for side in (-1, 1):  # drop this unit at a side and look at the next one
                st, bd, vs = list(state), list(board), list(vis)
                moves = _drop(t, st, bd, vs, side)
                if moves is not None:
                    after.append((lead + moves, (t, st, bd, vs)))
        if any(k[0] == -len(longs) and k[1] == 0 for _, k in out) or tried >= limit:
            break
        leads = after
    out.sort(key=lambda c: c[1])
    return out


def placements_of(tab: list, seed: int, solution: str) -> list[tuple[int, int, int]]:
    """Where a solution locks each unit, as ``(pivot x, pivot y, rot)`` (the form :func:`weave` takes): replays
    the commands through :func:`rules.step` (characters that are no command are skipped)."""
    tab = [int(v) for v in tab]
    nw = tab[rules.H_NW]
    for base, n in ((tab[rules.H_ROWMASK], nw), (tab[rules.H_BOARD0], tab[rules.H_HEIGHT] * nw)):
        for k in range(base, base + n):
            tab[k] &= (1 << 64) - 1
    state = [0] * rules.STATE_LEN
    board = [0] * (tab[rules.H_HEIGHT] * nw)
    vis = [0] * tab[rules.H_VISWORDS]
    rules.init_game(state, board, vis, tab, seed)
    out = []
    for ch in solution.lower():
        if state[rules.S_END] != rules.END_IN_PROGRESS:
            break
        cmd = CHAR_TO_COMMAND.get(ch)
        if cmd is None:
            continue
        q, r, rot, locked = state[rules.S_PQ], state[rules.S_PR], state[rules.S_ROT], state[rules.S_LOCKED]
        rules.step(state, board, vis, tab, cmd)
        if state[rules.S_LOCKED] != locked:
            out.append((q + (r >> 1), r, rot))
    return out


def opening_of(tab: list, seed: int, solution: str, phrases: list[str], min_len: int = 40):
    """The solution up to the end of the first occurrence of its last long phrase (``min_len`` characters or more),
    and the placements after it (``(prefix, placements)``, what :func:`weave_search.weave_search` takes to weave the
    rest again); None when it spells no long phrase."""
    low = solution.lower()
    ends = [low.find(p.lower()) + len(p) for p in phrases if len(p) >= min_len and p.lower() in low]
    if not ends:
        return None
    prefix = solution[: max(ends)]
    done = len(placements_of(tab, seed, prefix))
    return prefix, placements_of(tab, seed, solution)[done:]


def insertions(tab: list, seed: int, solution: str, phrases: list[str], points: int = 4, min_len: int = 40,
               spacing: int = 4, limit: int = 600, max_skips: int = 2) -> list[str]:
    """Prefixes that spell the long phrases (``min_len`` characters or more) a solution misses in the middle of its
    game: the solution is played up to one of its locks, then :func:`opening` (started there) spells the missing
    phrases; the rest of the game is for the planner (``BeamPlayer.plan`` with the prefix).

    The locks tried are the ``points`` after which the board holds the fewest full cells (at least ``spacing``
    units apart): a long phrase locks several units wherever its moves are blocked, and needs the room.  Returns
    one prefix per lock where a missing phrase fits (the most phrases, then the emptiest spawn zone), best lock
    first; empty when nothing is missing or nothing fits."""
    low = solution.lower()
    missing = [p for p in dict.fromkeys(phrases) if len(p) >= min_len and p.lower() not in low]
    if not missing:
        return []
    t, state, board, vis = plain_game(tab, seed)
    locks = []  # (full cells after the lock, length of the text up to it, locks so far)
    for i, ch in enumerate(solution):
        cmd = CHAR_TO_COMMAND.get(ch.lower())
        if cmd is None:
            continue
        locked = state[rules.S_LOCKED]
        rules.step(state, board, vis, t, cmd)
        if state[rules.S_END] != rules.END_IN_PROGRESS:
            break
        if state[rules.S_LOCKED] != locked:
            locks.append((sum(bin(w).count("1") for w in board), i + 1, state[rules.S_LOCKED]))
    chosen: list[tuple[int, int, int]] = []
    for lock in sorted(locks):
        if all(abs(lock[2] - c[2]) >= spacing for c in chosen):
            chosen.append(lock)
        if len(chosen) >= points:
            break
    out = []
    for _, end, _ in chosen:
        found = opening(tab, seed, missing, min_len=min_len, limit=limit, max_skips=max_skips,
                        start=solution[:end])
        if found and found[0][1][0] < 0:
            out.append(found[0][0])
    return out
