"""Differential testing of hex Tetris (ICFP 2015 "Honeycomb"): random games, each played and scored by the
plain-Python game of ``puzzles/hextris/model.py`` (and, for the shipped reference solutions, by the organizers'
evaluator, whose scores ship in ``reference_scores.json``) and by every way the package has to play a batch of
games, compared key by key.

An *instance* is a JSON-able dict, so that a disagreement can be replayed from its message
(``check(json.loads(...))``):

``problem``
    an official qualifier problem (its number, 0..24, :func:`model.official_problem`) or a small random problem as
    the official JSON object (id 1000 and up, 1 to 12 columns and rows, a few cells full, one to four units of one
    to five cells, a source of 0 to 30 units), read by :func:`model.parse_problem`.
``seed``
    the source seed of the game: mostly one of the problem's, sometimes another 32-bit number (the score is then
    ``error_seed_not_in_problem``, while the game itself is still played).
``commands``
    the command string: letters of the official alphabet (any of each command's characters, upper case sometimes,
    ``\\t\\n\\r`` sprinkled in, phrases of power sometimes), drawn while a model game is played so that most games go
    deep (units are steered down and aside without repeating a position, with a few wild commands that may end
    the game in an error, and a command after the end sometimes); one time in 25 with a character that is
    not a command.
``reference`` / ``prefix`` / ``suffix``
    instead of ``commands``: the solution of entry ``reference`` of ``reference_scores.json`` (its problem and
    seed), cut to its first ``prefix`` characters (None: whole) with ``suffix`` appended.
``fillers``, ``pos3``, ``pos17``, ``chunks``
    how the ways lay the game out: the seed of the other games of the batches (16 games of two official problems
    and the instance's problem, the last one a copy of the instance), the instance's place in the batches of 3 and
    17 games, and the character positions where the command string is cut for the ways that feed it in chunks.

What is compared (the keys of the answers; the first answer that has a key is the reference for it):

``end``, ``move_score``, ``units_locked``, ``commands``, ``spawned``, ``board``, ``unit``
    the game after the commands: how it ended (``model.END_NAMES``), its raw move score (before an error zeroes
    it), the units locked and spawned, the commands executed, the full cells, and, while the game is in progress,
    the current unit (its index, its pivot and its member cells, rebuilt here from the kernel's pivot and
    orientation with the model's geometry).  Oracle: :func:`model.play`.
``filler K``
    the same for the other games of the batches (each against :func:`model.play`): the games around the instance
    are played right too.
``score_move``, ``score_power``, ``score_total``, ``score_end``
    the official score (move score, power score, total, end, zero after an error).  Oracle:
    :func:`model.score_solution`; for a whole reference solution also the organizers' evaluator; the power score
    also by a count of the phrases written here (overlapping, case-insensitive matches on the raw text).
``arrays3``
    (with ``cuda=True``) the batch of three games' arrays, bit for bit, on the CPU and in the simulator.

The package's ways: :class:`Playouts` on the CPU with the game alone, inside batches of 3 and 17 games of
several problems (the batch of 17 on all of numba's threads and fed pre-encoded commands, ``encode_commands``; the
other ways on one thread), the command string fed in chunks (alone and in the batch of 3), and
:func:`score_solutions` alone and among the batch's games; with ``cuda=True`` and at most
:data:`SIM_MAX_COMMANDS` commands, the ``cuda`` backend (numba's simulator under ``NUMBA_ENABLE_CUDASIM=1``) on
the batch of 3 and on the game alone in chunks.

A command string with a character that is not a command is an error before anything runs when it is fed in one
call (as the evaluator decodes the whole string first), but the chunks before the bad one have run when it is fed
in chunks: for such strings the chunked ways give ``end`` only.

Nothing here imports pytest; ``python -m tests.differential.hextris [N] [SEED] [--cuda]`` checks N random
instances.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
from functools import lru_cache
from typing import Callable

from puzzlebatch.puzzles.hextris import model

SIM_MAX_COMMANDS = 30  # the simulator runs every thread in Python: short command strings only
MODEL_MAX_CHARS = 12_000  # a longer reference solution is drawn as a prefix (the model takes ~10 us a command)
N_FILLERS = 16
RANDOM_PROBLEM_ID = 1000
#: characters that are not commands (neither the alphabet nor ``\t\n\r``, in either case); U+1F600 lies beyond
#: the BMP.  The Kelvin sign U+212A is left out on purpose, see :data:`KELVIN_SIGN`.
INVALID_CHARS = "#?@&*+-/:;<=>[]^_`{|}~6789\x00\x0b\u00e9\u20ac\U0001F600"
#: U+212A KELVIN SIGN lower-cases to ``k`` (Python's ``str.lower`` and Haskell's ``toLower`` alike): the model
#: reads it as CCW, the kernels' character table as an invalid character.  A known disagreement, kept out of the
#: random draws (see the tests' ``test_kelvin_sign``).
KELVIN_SIGN = "\u212a"
#: texts where a phrase of power occurs more than once, overlapping ("ia! ia!" twice in "ia! ia! ia!")
OVERLAPPING = ("Ia! Ia! Ia!", "ia! ia! ia! ia!", "Ei! Ia! Ia! Ia!")


# -- data ------------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def official(n: int) -> model.Problem:
    return model.official_problem(n)


@lru_cache(maxsize=256)
def _parsed(doc_json: str) -> model.Problem:
    return model.parse_problem(json.loads(doc_json), where="random problem")


def problem_of(inst: dict) -> model.Problem:
    p = inst["problem"]
    return official(p) if isinstance(p, int) else _parsed(json.dumps(p, sort_keys=True))


@lru_cache(maxsize=None)
def reference_entries() -> tuple[dict, ...]:
    """The 175 shipped solutions with the organizers' scores (``DATA_DIR/reference_scores.json``)."""
    return tuple(json.loads((model.DATA_DIR / "reference_scores.json").read_text(encoding="utf-8")))


@lru_cache(maxsize=None)
def phrases() -> tuple[str, ...]:
    """The 18 phrases of power, read from the data file here (not through the model)."""
    text = (model.DATA_DIR / "power_phrases.txt").read_text(encoding="utf-8")
    return tuple(line for line in text.splitlines() if line.strip())


def commands_of(inst: dict) -> str:
    """The instance's command string (a reference solution cut and extended, or the drawn one)."""
    if inst.get("reference") is None:
        return inst["commands"]
    sol = reference_entries()[inst["reference"]]["solution"]
    return (sol if inst["prefix"] is None else sol[: inst["prefix"]]) + inst["suffix"]


def n_commands(text: str) -> int:
    """Commands in ``text`` (its characters less the ignored ones; an invalid character counts as one)."""
    return sum(1 for c in text if c not in model.IGNORED_CHARS)


# -- drawing instances ---------------------------------------------------------------------------------------------
def draw(rng: random.Random, max_commands: int | None = None) -> dict:
    """One random instance (see the module's docstring); at most ``max_commands`` commands when given (the
    simulator's instances)."""
    kind = rng.choices(["official", "random", "reference"], weights=[9, 8, 3])[0]
    inst: dict = {}
    if kind == "reference":
        entries = reference_entries()
        k = rng.randrange(len(entries))
        sol = entries[k]["solution"]
        inst.update(problem=entries[k]["problemId"], seed=entries[k]["seed"], reference=k, suffix="")
        mode = rng.choices(["whole", "prefix", "after"], weights=[3, 4, 2])[0]
        if max_commands is not None:
            mode = "prefix"
        if mode != "prefix" and len(sol) <= MODEL_MAX_CHARS:
            inst["prefix"] = None
            if mode == "after":  # a command after the game's end: an error
                inst["suffix"] = rng.choice(["", "\n"]) + rng.choice("pbalDK!")
        else:
            cap = min(len(sol), MODEL_MAX_CHARS // 2, max_commands or MODEL_MAX_CHARS)
            inst["prefix"] = rng.randint(0, cap)
    else:
        if kind == "official":
            inst["problem"] = rng.randrange(25)
        else:
            inst["problem"] = random_problem(rng, RANDOM_PROBLEM_ID + rng.randrange(1000))
        problem = problem_of(inst)
        inst["seed"] = (rng.choice(problem.source_seeds) if rng.random() < 0.85
                        else rng.choice([0, 2**32 - 1, rng.randrange(2**32)]))
        limit = rng.choice([0, rng.randint(1, 6), rng.randint(5, 40), rng.randint(30, 150), rng.randint(100, 400)])
        if max_commands is not None:
            limit = min(limit, max_commands - 2)  # room for a command after the end and a bad character
        inst["commands"] = guided_commands(rng, problem, inst["seed"], limit)
    text = commands_of(inst)
    inst["fillers"] = rng.randrange(1 << 32)
    inst["pos3"] = rng.randrange(3)
    inst["pos17"] = rng.randrange(17)
    inst["chunks"] = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randint(1, 4))))
    return inst


def random_problem(rng: random.Random, pid: int) -> dict:
    """A small random problem as the official JSON object (see the module's docstring)."""
    while True:
        w, h = rng.randint(1, 12), rng.randint(1, 12)
        units = []
        for _ in range(rng.choice([1, 1, 2, 3, 4])):
            cells = _hex_cells(rng, rng.choice([1, 1, 2, 3, 3, 4, 5]))
            if rng.random() < 0.6:
                pivot = rng.choice(cells)
            else:
                pivot = (rng.randint(-2, 5), rng.randint(-2, 5))
            units.append({"members": [{"x": x, "y": y} for x, y in cells], "pivot": {"x": pivot[0], "y": pivot[1]}})
        density = rng.choice([0.0, 0.0, 0.15, 0.35, 0.6])
        top = rng.randint(0, h)  # the rows above stay empty
        filled = [{"x": x, "y": y} for y in range(top, h) for x in range(w) if rng.random() < density]
        doc = {"id": pid, "width": w, "height": h, "filled": filled,
               "sourceLength": rng.choice([0, 1, 2, 3, 5, 8, 12, 30]),
               "sourceSeeds": [rng.randrange(2**32) if rng.random() < 0.7 else rng.randrange(20)
                               for _ in range(rng.randint(1, 3))],
               "units": units}
        try:
            model.parse_problem(doc)
        except Exception:  # noqa: BLE001 - a unit wider or taller than the board: draw again
            continue
        return doc


def _hex_cells(rng: random.Random, size: int) -> list[tuple[int, int]]:
    """``size`` hex cells grown neighbour to neighbour (offset coordinates, moved to x, y >= 0)."""
    axial = {(0, 0)}
    steps = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)]
    while len(axial) < size:
        q, r = rng.choice(sorted(axial))
        dq, dr = rng.choice(steps)
        axial.add((q + dq, r + dr))
    r0 = min(r for _, r in axial)
    r0 -= r0 & 1  # keep the rows' parity: the shape stays the same hex shape
    cells = [model.to_offset(q, r - r0) for q, r in axial]
    x0 = min(x for x, _ in cells)
    return sorted((x - x0, y) for x, y in cells)


def guided_commands(rng: random.Random, problem: model.Problem, seed: int, limit: int) -> str:
    """A random command string of about ``limit`` commands, drawn while a model game plays it (see the module's
    docstring)."""
    game = model.Game(problem, seed)
    down = rng.uniform(0.3, 0.75)
    wild = rng.choice([0.0, 0.0, 0.01, 0.05, 0.25])
    p_phrase = rng.choice([0.0, 0.03, 0.15, 0.3])
    upper = rng.choice([0.0, 0.1, 0.5])
    out: list[str] = []
    n = 0

    def render(cmd: int) -> str:
        ch = rng.choice(model.COMMAND_CHARS[cmd])
        if rng.random() < upper:
            ch = ch.upper()
        if rng.random() < 0.03:
            ch += rng.choice(model.IGNORED_CHARS)
        return ch

    while n < limit and game.end == model.IN_PROGRESS:
        phrase = rng.choice(phrases()) if rng.random() < 0.7 else rng.choice(OVERLAPPING)
        if rng.random() < p_phrase and n + n_commands(phrase) <= limit:
            phrase = rng.choice([phrase, phrase.lower(), phrase.upper()])
            out.append(phrase)
            for cmd in model.decode(phrase):
                game.step(cmd)
                n += 1
            continue
        if rng.random() < wild:
            cmd = rng.randrange(6)
        else:
            visited = set(game.visited)
            safe = [c for c in (model.W, model.E, model.CW, model.CCW) if game.moved(c) not in visited]
            cmd = rng.choice((model.SW, model.SE)) if rng.random() < down or not safe else rng.choice(safe)
        out.append(render(cmd))
        game.step(cmd)
        n += 1
    if game.end in (model.OUT_OF_UNITS, model.SPAWN_BLOCKED) and rng.random() < 0.25:
        out.append(render(rng.randrange(6)))  # a command after the end: an error
    text = "".join(out)
    if rng.random() < 0.04:
        k = rng.randint(0, len(text))
        text = text[:k] + rng.choice(INVALID_CHARS) + text[k:]
    return text


# -- the other games of the batches ----------------------------------------------------------------------------------
def filler_games(inst: dict) -> tuple[list[model.Problem], list[tuple[model.Problem, int, str]]]:
    """The problems of the batches (two official ones and the instance's, in a drawn order) and the
    :data:`N_FILLERS` other games ``(problem, seed, commands)``; the first two (those of the batch of 3) have at
    most :data:`SIM_MAX_COMMANDS` commands, the last is a copy of the instance."""
    from tests.hextris_helpers import random_solution

    rng = random.Random(inst["fillers"])
    me = problem_of(inst)
    pool = [official(i) for i in rng.sample(range(25), 2)]
    pool.insert(rng.randrange(len(pool) + 1), me)
    problems: list[model.Problem] = []
    for p in pool:
        if p not in problems:
            problems.append(p)
    games = []
    for k in range(N_FILLERS - 1):
        p = rng.choice(pool)
        seed = rng.choice(p.source_seeds) if rng.random() < 0.9 else rng.randrange(2**32)
        length = rng.randint(0, SIM_MAX_COMMANDS if k < 2 else 80)
        games.append((p, seed, random_solution(rng, length, down_bias=rng.uniform(0.4, 0.9))))
    games.append((me, inst["seed"], commands_of(inst)))
    return problems, games


# -- the oracles -----------------------------------------------------------------------------------------------------
VIEW_KEYS = ("end", "move_score", "units_locked", "commands", "spawned", "board", "unit")


def game_view(game: model.Game) -> dict:
    """The compared keys of a model game."""
    return {"end": model.END_NAMES[game.end], "move_score": game.move_score, "units_locked": game.units_locked,
            "commands": game.commands, "spawned": game.spawned, "board": frozenset(game.filled),
            "unit": ((game.unit_index, tuple(game.pivot), frozenset(game.members))
                     if game.end == model.IN_PROGRESS else None)}


def power_count(text: str) -> int:
    """The power score of ``text`` counted here: every (overlapping) case-insensitive occurrence of each phrase in
    the raw text, ``2 * len * reps + 300`` per phrase that occurs."""
    low = text.lower()
    total = 0
    for p in phrases():
        reps = len(re.findall("(?=" + re.escape(p.lower()) + ")", low))
        if reps:
            total += 2 * len(p) * reps + 300
    return total


def _score_keys(score) -> dict:
    return {"score_move": score.move_score, "score_power": score.power_score, "score_total": score.total,
            "score_end": score.end}


def oracle_views(inst: dict) -> list[tuple[str, dict]]:
    """The oracles' answers, each named: the first is the reference, the others cross-check it."""
    problem, text, seed = problem_of(inst), commands_of(inst), inst["seed"]
    score = model.score_solution(problem, seed, text, list(phrases()))
    views = [("oracle:model", dict(game_view(model.play(problem, seed, text)), **_score_keys(score)))]
    if inst.get("reference") is not None and inst["prefix"] is None and not inst["suffix"]:
        e = reference_entries()[inst["reference"]]
        views.append(("oracle:organizers", {"score_move": e["move_score"], "score_power": e["power_score"],
                                            "score_total": e["total"], "score_end": e["end"]}))
    errored = score.end.startswith("error")
    views.append(("oracle:phrase count", {"score_power": 0 if errored else power_count(text)}))
    _, games = filler_games(inst)
    others = {f"filler {k}": game_view(model.play(p, s, t)) for k, (p, s, t) in enumerate(games[:-1])}
    others[f"filler {len(games) - 1}"] = {k: views[0][1][k] for k in VIEW_KEYS}  # the copy of the instance
    views.append(("oracle:model (other games)", others))
    return views


def oracle(inst: dict) -> dict:
    """The oracles' answer: for each key, the reference oracle's value (see :func:`oracle_views`)."""
    out: dict = {}
    for _, view in oracle_views(inst):
        for key, value in view.items():
            out.setdefault(key, value)
    return out


# -- the package's ways ----------------------------------------------------------------------------------------------
@contextlib.contextmanager
def _threads(n: int | None):
    """numba's CPU threads for this thread of Python set to ``n`` for the block (None: left as they are)."""
    if n is None:
        yield
        return
    import numba

    old = numba.get_num_threads()
    numba.set_num_threads(max(1, min(n, numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(old)


def row_view(games, i: int, problem: model.Problem) -> dict:
    """The compared keys of game ``i`` of a :class:`GameBatch`; the current unit's cells are rebuilt from the
    kernel's unit, pivot (axial) and orientation (clockwise turns from the spawn shape) with the model's
    geometry."""
    from puzzlebatch.puzzles.hextris import rules

    s = [int(v) for v in games.states[i]]
    end = model.END_NAMES[s[rules.S_END]]
    unit = None
    if end == "in_progress":
        u = problem.units[s[rules.S_UNIT]]
        sq, sr = model.to_axial(*u.pivot)
        pq, pr = s[rules.S_PQ], s[rules.S_PR]
        pivot = model.to_offset(pq, pr)
        members = []
        for c in u.members:
            q, r = model.to_axial(*c)
            cell = model.to_offset(q - sq + pq, r - sr + pr)
            for _ in range(s[rules.S_ROT]):
                cell = model.rotate(cell, pivot, True)
            members.append(cell)
        unit = (s[rules.S_UNIT], tuple(pivot), frozenset(members))
    return {"end": end, "move_score": s[rules.S_SCORE], "units_locked": s[rules.S_LOCKED],
            "commands": s[rules.S_NCMD], "spawned": s[rules.S_SPAWNED],
            "board": frozenset(games.board_cells(i, problem)), "unit": unit}


def _split(text: str, cuts: list[int]) -> list[str]:
    bounds = [0] + [min(c, len(text)) for c in cuts] + [len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


_PLAYOUTS: dict = {}


def _playouts(backend, problems: list[model.Problem], fresh: bool):
    """A :class:`Playouts` of ``problems`` on ``backend``: a new one, or (``fresh=False``) one kept from an earlier
    way of the same instance (the batches of 3 and 17 share their problems; building the tables of the large
    official problems takes milliseconds)."""
    from puzzlebatch.runners.hextris.playouts import Playouts

    if fresh:
        return Playouts(problems, backend)
    key = (backend.name, tuple(problems))
    if key not in _PLAYOUTS:
        if len(_PLAYOUTS) >= 8:
            _PLAYOUTS.pop(next(iter(_PLAYOUTS)))
        _PLAYOUTS[key] = Playouts(problems, backend)
    return _PLAYOUTS[key]


def _play(backend, problems, games, chunks=None, encoded=False, threads=None):
    """Play ``games`` [(problem, seed, text)] as one batch; ``chunks``: feed each text cut at those positions."""
    from puzzlebatch.puzzles.hextris.encode import encode_commands

    with _threads(threads):
        sim = _playouts(backend, problems, fresh=len(games) == 1)
        batch = sim.new_games([s for _, s, _ in games], [problems.index(p) for p, _, _ in games])
        if chunks is None:
            texts = [t for _, _, t in games]
            sim.run_commands(batch, encode_commands(texts) if encoded else texts)
        else:
            parts = [_split(t, chunks) for _, _, t in games]
            for k in range(len(chunks) + 1):
                sim.run_commands(batch, [p[k] for p in parts])
    return batch


def _arrays(batch) -> tuple:
    return tuple((name, getattr(batch, name).tobytes()) for name in ("prob", "states", "boards", "vis"))


def ways(inst: dict, cuda: bool = False) -> list[tuple[str, Callable[[], dict]]]:
    """The ways the package plays the instance, each (name, callable returning a dict of the keys it knows).

    With ``cuda`` and at most :data:`SIM_MAX_COMMANDS` commands, also the ``cuda`` backend (the simulator under
    ``NUMBA_ENABLE_CUDASIM=1``)."""
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.hextris.playouts import score_solutions

    cpu = select_backend("cpu")
    problem, text, seed = problem_of(inst), commands_of(inst), inst["seed"]
    valid = model.decode(text) is not None
    problems, fillers = filler_games(inst)
    me = (problem, seed, text)
    b3 = fillers[:2]
    b3.insert(inst["pos3"], me)
    b17 = fillers[:N_FILLERS]
    b17.insert(inst["pos17"], me)
    cuts = inst["chunks"]

    def batch_way(backend, games, pos, chunks=None, encoded=False, threads=None, arrays=False):
        def run() -> dict:
            batch = _play(backend, problems if len(games) > 1 else [problem], games, chunks, encoded, threads)
            out = row_view(batch, pos, problem)
            if chunks is not None and not valid:
                out = {"end": out["end"]}  # see the module's docstring
            k = 0
            for i, (p, _, _) in enumerate(games):
                if i != pos:
                    out[f"filler {k}"] = row_view(batch, i, p)
                    k += 1
            if arrays and chunks is None:
                out["arrays3"] = _arrays(batch)
            return out
        return run

    def score_way(entries_of, threads=None):
        def run() -> dict:
            games, pos = entries_of()
            by_id = {p.id: p for p, _, _ in games}
            entries = [{"problemId": p.id, "seed": s, "tag": None, "solution": t} for p, s, t in games]
            with _threads(threads):
                scores = score_solutions(by_id, entries, list(phrases()), cpu).scores
            return _score_keys(scores[pos])
        return run

    out = [("cpu alone, 1 thread", batch_way(cpu, [me], 0, threads=1)),
           (f"cpu batch of 3 at {inst['pos3']}, 1 thread", batch_way(cpu, b3, inst["pos3"], threads=1, arrays=True)),
           (f"cpu batch of 17 at {inst['pos17']}, encoded", batch_way(cpu, b17, inst["pos17"], encoded=True)),
           (f"cpu alone in chunks cut at {cuts}, 1 thread", batch_way(cpu, [me], 0, chunks=cuts, threads=1)),
           (f"cpu batch of 3 at {inst['pos3']} in chunks cut at {cuts}, 1 thread",
            batch_way(cpu, b3, inst["pos3"], chunks=cuts, threads=1)),
           ("score_solutions alone, 1 thread", score_way(lambda: ([me], 0), threads=1)),
           (f"score_solutions among 17 at {inst['pos17']}, 1 thread", score_way(lambda: (b17, inst["pos17"]), 1))]
    if cuda and n_commands(text) <= SIM_MAX_COMMANDS:
        gpu = select_backend("cuda")
        out += [(f"{gpu.name} batch of 3 at {inst['pos3']}", batch_way(gpu, b3, inst["pos3"], arrays=True)),
                (f"{gpu.name} alone in chunks cut at {cuts}", batch_way(gpu, [me], 0, chunks=cuts))]
    return out


# -- the comparison ----------------------------------------------------------------------------------------------
def _cells(cells) -> str:
    return "{" + ", ".join(f"({x},{y})" for x, y in sorted(cells)) + "}"


def _show(value) -> str:
    if isinstance(value, frozenset):
        return f"{len(value)} cells"
    if isinstance(value, tuple) and value and isinstance(value[0], tuple) and value[0][0] == "prob":
        return "arrays"
    return repr(value)


def _differ(key: str, a_name: str, a, b_name: str, b) -> str:
    if isinstance(a, dict) and isinstance(b, dict):  # a filler's view: the keys that differ
        parts = [_differ(f"{key} {k}", a_name, a.get(k), b_name, b.get(k)) for k in a if a.get(k) != b.get(k)]
        return "; ".join(parts)
    msg = f"{key}: {a_name} = {_show(a)} but {b_name} = {_show(b)}"
    if isinstance(a, frozenset) and isinstance(b, frozenset):
        msg += f"; only {a_name}: {_cells(a - b)}; only {b_name}: {_cells(b - a)}"
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == 3 and isinstance(a[2], frozenset):
        msg = (f"{key}: {a_name} = unit {a[0]} pivot {a[1]} cells {_cells(a[2])} but {b_name} = unit {b[0]} pivot "
               f"{b[1]} cells {_cells(b[2])}")
    if key == "arrays3":
        diff = [na for (na, xa), (_, xb) in zip(a, b) if xa != xb]
        msg = f"{key}: {a_name} and {b_name} differ in {', '.join(diff)}"
    return msg


def describe(inst: dict) -> str:
    """The instance as JSON (the reference solution by its index: replay with ``check(json.loads(...))``)."""
    return json.dumps(inst, sort_keys=True)


def check(inst: dict, cuda: bool = False, views: list[tuple[str, dict]] | None = None) -> list[str]:
    """Every disagreement between the oracles and the package's ways on ``inst``, one message each naming the
    instance (as JSON) and the two answers that differ; empty when all agree.

    ``views``: the oracles' answers if already computed (:func:`oracle_views`); ``cuda``: see :func:`ways`."""
    where = describe(inst)
    try:
        answers = list(views) if views is not None else oracle_views(inst)
    except Exception as e:  # noqa: BLE001 - reported, not raised: the other instances still run
        return [f"instance {where}: the oracle raised {e!r}"]
    try:
        package_ways = ways(inst, cuda)
    except Exception as e:  # noqa: BLE001
        return [f"instance {where}: setting up the ways raised {e!r}"]
    msgs = []
    for name, fn in package_ways:
        try:
            answers.append((name, fn()))
        except Exception as e:  # noqa: BLE001
            msgs.append(f"instance {where}: {name} raised {e!r}")
    ref: dict = {}
    for name, ans in answers:
        for key, value in ans.items():
            if key not in ref:
                ref[key] = (name, value)
            elif ref[key][1] != value:
                msgs.append(f"instance {where}: " + _differ(key, ref[key][0], ref[key][1], name, value))
    return msgs


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.differential.hextris [N] [SEED] [--cuda]``: check N random instances (default 100)."""
    import os
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    cuda = "--cuda" in args
    args = [a for a in args if a != "--cuda"]
    if cuda:
        os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
    n = int(args[0]) if args else 100
    rng = random.Random(int(args[1]) if len(args) > 1 else 0)
    bad = 0
    for _ in range(n):
        inst = draw(rng, SIM_MAX_COMMANDS if cuda else None)
        for msg in check(inst, cuda):
            bad += 1
            print(msg)
    print(f"{n} instances, {bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
