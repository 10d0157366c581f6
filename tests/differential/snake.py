"""Differential testing of the snake family: random small chains and boxes, answered by the plain-Python oracle
(``tests/reference/snake_oracle.py``) and by every way the package has to answer them, compared key by key.

An *instance* is a JSON-able dict, so that a disagreement can be replayed from its message
(``check(json.loads(...))``):

``letters`` / ``dims``
    the chain (``F``/``J`` letters, one a cube) and the box ``[a, b, c]``; the axes of the box are shuffled, so
    that the same shape is searched in every orientation.
``source``
    how the chain was made: ``random_chain`` (a random Hamiltonian path of the box: folds by construction),
    ``mutated`` (such a chain with one or two interior letters flipped: may or may not fold) or ``letters``
    (random letters: rarely fold; some are refused before any search by :func:`check_fits`).
``tiny``
    tiny :class:`~puzzlebatch.runners.engine.search.SearchSettings` (``budget`` 1..7, ``batch_size`` 1..5,
    ``frontier_target`` 1..3, ``first_batch_size`` 1..2) that cut the search into many work items, launches and
    re-splits.  A tree too large for them has its budget raised until a search needs at most
    :data:`MAX_LAUNCHES` launches (the way's name says the budget used).
``stop_after``
    the launches of the first half of an interrupted count (``max_batches``), resumed from its frontier and totals.
``threads``
    the threads of the default-settings ways: ``"default"`` (numba's, in about a third of the draws) or 1.  The
    tiny-settings ways always run on one thread: a launch of two threads costs milliseconds on a busy two-core
    machine, one of one thread a tenth of a millisecond.
``sim``
    also run the ``cuda`` backend (numba's simulator under ``NUMBA_ENABLE_CUDASIM=1``; every simulated thread is
    a Python thread, so :func:`draw` with ``sim=True`` keeps the boxes tiny).

What is compared (each way's answer against the oracle's, and the ways against each other):

``embeddings`` / ``distinct``
    the number of foldings and of classes under the box's symmetries.  Oracle: ``snake_oracle.count``'s
    definition (``embeddings``: recursive DFS over coordinates; classes under its own ``symmetries``, kept here
    for the enumeration's checks); the package: :func:`snake.count` with its default
    settings and with the tiny settings, interrupted and resumed, on a :class:`BatchDFS` without symmetry merging,
    and on the simulator.
``foldings``
    the enumeration (``count(..., sink=...)``): without symmetry merging every folding exactly once, equal to the
    oracle's list as a set; with merging (:func:`snake.count`'s sink) every row a folding of the oracle's, and
    in each symmetry class the rows' weights add up to the size of the class.
``first``
    :func:`snake.solve` (default and tiny settings, and on the simulator) and ``BatchDFS.first`` without symmetry
    merging all return the oracle's first folding in depth-first order (start cells in index order
    x + a * (y + b * z); directions +x, -x, +y, -y, +z, -z).  With merging too: the frontier keeps the *first* member
of each class,
    so the first folding of the whole tree always lies below a representative.  Each returned folding is also
    checked with :func:`is_valid_embedding`, and a solution exists iff the count is positive.
``refused``
    a chain the package refuses before searching (:class:`PuzzleInputError` from ``check_fits``: a straight run
    longer than the box) has no folding in the oracle either, and every way refuses it.

No instance here passes 2^14 foldings: the oracle lists about a thousand foldings a second (2x2x4's 1,424 take
1.4 s), so such a count would cost the oracle tens of seconds.

Nothing here imports pytest; ``python -m tests.differential.snake [N] [SEED]`` checks N random instances.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import random
import sys
import time

from tests.reference import snake_oracle
from tests.differential.common import capped_settings, cuda_backend, settings_label as _label

MAX_LAUNCHES = 120  # a tiny-settings search of a larger tree gets a larger budget (a launch costs ~0.1-0.3 ms)

# Boxes of a random draw, with weights; the draw shuffles their axes.  Volumes up to 12 take any chain; the larger
# ones only mutated or random letters (few foldings: the oracle lists every folding in Python, about 1 ms each).
BOXES = [((1, 1, 2), 1), ((1, 1, 3), 1), ((1, 2, 2), 2), ((1, 2, 3), 3), ((1, 2, 4), 3), ((1, 3, 3), 3),
         ((2, 2, 2), 3), ((1, 2, 5), 2), ((1, 2, 6), 2), ((1, 3, 4), 4), ((2, 2, 3), 5), ((1, 4, 4), 2),
         ((1, 3, 5), 2), ((1, 2, 8), 1), ((2, 2, 4), 1)]
FOLDED_MAX_CELLS = 12  # random_chain (many J, many foldings) only up to this volume, else mutated or random letters
SIM_BOXES = [(1, 1, 3), (1, 2, 2), (1, 2, 3), (1, 2, 4), (2, 2, 2), (1, 3, 3)]
SIM_MAX_LAUNCHES = 10  # a simulated launch costs tens of milliseconds


# -- drawing instances ---------------------------------------------------------------------------------------------

def _threads(rng: random.Random) -> str | int:
    return "default" if rng.random() < 0.3 else 1


def _tiny(rng: random.Random) -> dict:
    return {"budget": rng.randint(1, 7), "batch_size": rng.randint(1, 5), "frontier_target": rng.randint(1, 3),
            "first_batch_size": rng.randint(1, 2)}


def draw(rng: random.Random, *, sim: bool = False) -> dict:
    """One random instance (JSON-able).  ``sim=True``: a tiny box, also run on the ``cuda`` backend."""
    from puzzlebatch.puzzles.snake.generate import random_chain
    from puzzlebatch.puzzles.snake.model import Box

    if sim:
        dims = list(rng.choice(SIM_BOXES))
    else:
        dims = list(rng.choices([b for b, _ in BOXES], weights=[w for _, w in BOXES])[0])
    rng.shuffle(dims)
    n = math.prod(dims)
    kind = rng.choices(["random_chain", "mutated", "letters"], weights=[4, 1, 0] if sim else [5, 3, 2])[0]
    if kind == "random_chain" and n > FOLDED_MAX_CELLS:
        kind = "mutated"
    if kind == "letters":
        p = rng.uniform(0.3, 0.85)
        letters = "".join("J" if rng.random() < p else "F" for _ in range(n))
    else:
        chain, _ = random_chain(Box(*dims), rng.randrange(1 << 30))
        letters = chain.letters
        if kind == "mutated" and n > 2:
            cs = list(letters)
            for _ in range(rng.randint(1, 2)):
                k = rng.randrange(1, n - 1)
                cs[k] = "F" if cs[k] == "J" else "J"
            letters = "".join(cs)
    if rng.random() < 0.3:  # the end cubes' letters must not matter
        letters = rng.choice("FJ") + letters[1:-1] + rng.choice("FJ")
    return {"letters": letters, "dims": dims, "source": kind, "tiny": _tiny(rng),
            "stop_after": rng.randint(1, 4), "threads": _threads(rng), "sim": sim}


def draw_sim(rng: random.Random) -> dict:
    return draw(rng, sim=True)


# -- the oracle ----------------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=256)
def _oracle(letters: str, dims: tuple[int, int, int]) -> dict:
    # snake_oracle.count's definition, with the classes kept: every folding, canonicalised under the oracle's own
    # symmetries of the box (min over the images).
    every = snake_oracle.embeddings(letters, dims)
    maps = snake_oracle.symmetries(dims)
    class_of = {}
    for path in every:
        class_of[tuple(path)] = min(tuple(f(p) for p in path) for f in maps)
    class_size: dict[tuple, int] = {}
    for c in class_of.values():
        class_size[c] = class_size.get(c, 0) + 1
    return {"embeddings": len(every), "distinct": len(class_size),
            "first": [list(p) for p in every[0]] if every else None,
            "foldings": frozenset(class_of), "class_of": class_of, "class_size": class_size}


def oracle(inst: dict) -> dict:
    """The oracle's answer: ``embeddings``, ``distinct``, ``first`` (cells (x, y, z) of cubes 1..N, or None),
    ``foldings`` (every folding as a tuple of cells), ``class_of`` (folding -> the canonical folding of its class)
    and ``class_size`` (canonical folding -> size of its class).  Cached: the oracle is slow and draws repeat
    small chains."""
    return _oracle(inst["letters"], tuple(inst["dims"]))


# -- the package's ways --------------------------------------------------------------------------------------------

@contextlib.contextmanager
def one_thread():
    """numba's parallel drivers on one thread (a launch of two threads costs milliseconds on a busy machine)."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def threads(inst: dict):
    """The threads of the default-settings ways: numba's default (``inst["threads"]`` is ``"default"``) or one.
    A launch of two threads costs milliseconds on a busy two-core machine, so only some instances pay for it."""
    return contextlib.nullcontext() if inst.get("threads") == "default" else one_thread()


def _threads_label(inst: dict) -> str:
    return "default threads" if inst.get("threads") == "default" else "1 thread"


def _xyz(index: int, dims) -> tuple[int, int, int]:
    """Cell index -> (x, y, z), index = x + a * (y + b * z) (the box's documented numbering)."""
    a, b, _ = dims
    return (index % a, (index // a) % b, index // (a * b))


def _attempt(fn) -> dict:
    """``fn()``'s answer, or ``{"error": ...}`` when it raised."""
    from puzzlebatch.errors import PuzzleInputError

    try:
        return fn()
    except PuzzleInputError as exc:
        return {"refused": str(exc)}
    except Exception as exc:  # noqa: BLE001 -- any other exception is a finding, reported with the instance
        return {"error": f"{type(exc).__name__}: {exc}"}


def _settings(tiny: dict, nodes: int | None, launches: int = MAX_LAUNCHES):
    """:func:`~tests.differential.common.capped_settings` with this family's launch cap."""
    return capped_settings(tiny, nodes, launches)


def ways(inst: dict) -> dict[str, dict]:
    """Every way the package answers ``inst``: way name -> answer (keys as in :func:`oracle`, plus ``nodes``,
    ``complete``, ``solvable`` and ``rows``: an enumeration's (folding, weight) pairs; ``{"refused": ...}`` for a
    :class:`PuzzleInputError`, ``{"error": ...}`` for any other exception)."""
    import numpy as np

    from puzzlebatch.puzzles.snake import encode
    from puzzlebatch.puzzles.snake.model import Box, is_valid_embedding, parse_chain
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.search import BatchDFS
    from puzzlebatch.runners.snake import solver as snake

    cpu = select_backend("cpu")
    dims = tuple(inst["dims"])
    chain, box = parse_chain(inst["letters"]), Box(*dims)
    w = encode.n_words(box.volume)
    out: dict[str, dict] = {}

    def folding(cells) -> list[list[int]]:
        return [list(_xyz(int(i), dims)) for i in cells]

    def count(backend, settings=None):
        r, rest, totals = snake.count(chain, box, backend, settings)
        return {"embeddings": r.embeddings, "distinct": r.distinct, "complete": r.complete and len(rest) == 0,
                "nodes": totals.nodes}

    def solve(backend, settings=None):
        r = snake.solve(chain, box, backend, settings)
        ans = {"solvable": r.solved, "first": [list(c) for c in r.cells] if r.solved else None}
        if r.solved and not is_valid_embedding(chain, box, box.index(*np.array(r.cells).T)):
            ans["invalid"] = True
        return ans

    def first_nosym(settings):
        totals, _ = BatchDFS(snake.problem(chain, box), cpu, settings).first()
        if not totals.solutions:
            return {"solvable": False, "first": None}
        cells = totals.solutions[0][w:w + box.volume]
        ans = {"solvable": True, "first": folding(cells)}
        if not is_valid_embedding(chain, box, cells):
            ans["invalid"] = True
        return ans

    def count_nosym(settings):
        totals, rest = BatchDFS(snake.problem(chain, box), cpu, settings).count()
        return {"embeddings": totals.count, "complete": len(rest) == 0}

    def enumerate_nosym():
        rows = []
        totals, _ = BatchDFS(snake.problem(chain, box), cpu).count(
            sink=lambda states, weights: rows.extend(zip(states[:, w:w + box.volume].tolist(), weights.tolist())))
        return {"embeddings": totals.count, "rows": [(tuple(map(tuple, folding(c))), wt) for c, wt in rows],
                "each_once": True, "nodes": totals.nodes}

    def enumerate_sym(settings):
        rows = []
        r, _, _ = snake.count(chain, box, cpu, settings,
                              sink=lambda cells, weights: rows.extend(zip(cells.tolist(), weights.tolist())))
        return {"embeddings": r.embeddings, "rows": [(tuple(map(tuple, folding(c))), wt) for c, wt in rows]}

    def resumed(settings, stop_after):
        first, rest, totals = snake.count(chain, box, cpu, settings, max_batches=stop_after)
        stopped = {"complete": first.complete, "work left": len(rest)}
        r, rest, _ = snake.count(chain, box, cpu, settings, frontier=rest, totals=totals)
        return {"embeddings": r.embeddings, "distinct": r.distinct, "complete": r.complete and len(rest) == 0,
                "stopped": stopped}

    label = _threads_label(inst)
    with threads(inst):
        out[f"count[cpu,default,{label}]"] = _attempt(lambda: count(cpu))
        out[f"solve[cpu,default,{label}]"] = _attempt(lambda: solve(cpu))
        full = out[f"enumerate[cpu,default,nosym,{label}]"] = _attempt(enumerate_nosym)
    # the whole tree's nodes: no tiny search needs more launches (fewer with the simulator: the same settings)
    s = _settings(inst["tiny"], full.get("nodes"), SIM_MAX_LAUNCHES if inst.get("sim") else MAX_LAUNCHES)
    with one_thread():
        out[f"count[cpu,{_label(s)},1 thread]"] = tiny = _attempt(lambda: count(cpu, s))
        out[f"count[cpu,{_label(s)},1 thread,resumed after {inst['stop_after']}]"] = _attempt(
            lambda: resumed(s, inst["stop_after"]))
        out[f"count[cpu,{_label(s)},1 thread,nosym]"] = _attempt(lambda: count_nosym(s))
        out[f"enumerate[cpu,{_label(s)},1 thread]"] = _attempt(lambda: enumerate_sym(s))
        out[f"solve[cpu,{_label(s)},1 thread]"] = _attempt(lambda: solve(cpu, s))
        out[f"first[cpu,{_label(s)},1 thread,nosym]"] = _attempt(lambda: first_nosym(s))
    if inst.get("sim"):
        gpu = cuda_backend()
        if gpu is None:
            out["cuda"] = {"error": "the instance asks for the cuda backend and none is available"}
        else:
            sim = out[f"count[{gpu.name},{_label(s)}]"] = _attempt(lambda: count(gpu, s))
            if "nodes" in sim and "nodes" in tiny:  # the same work cut the same way: the same nodes
                sim["nodes_cpu_same_settings"] = tiny["nodes"]
            out[f"solve[{gpu.name},{_label(s)}]"] = _attempt(lambda: solve(gpu, s))
    return out


# -- comparing -------------------------------------------------------------------------------------------------------

def check(inst: dict, answers: dict[str, dict] | None = None) -> list[str]:
    """Run the oracle and every way; one message per disagreement, naming the instance (JSON) and the two ways."""
    exp = oracle(inst)
    got = ways(inst) if answers is None else answers
    tag = json.dumps(inst, sort_keys=True)
    msgs: list[str] = []

    def differ(what: str, a_name: str, a, b_name: str, b) -> None:
        msgs.append(f"snake {tag}: {what}: {a_name} = {a!r} but {b_name} = {b!r}")

    for name, ans in got.items():
        if "error" in ans:
            differ("an exception", "oracle", "an answer", name, ans["error"])
            continue
        if "refused" in ans:
            if exp["embeddings"]:
                differ("refused a chain that folds", "oracle embeddings", exp["embeddings"], name, ans["refused"])
            continue
        for key in ("embeddings", "distinct", "first"):
            if key in ans and ans[key] != exp[key]:
                differ(key, "oracle", exp[key], name, ans[key])
        if "solvable" in ans and ans["solvable"] != (exp["embeddings"] > 0):
            differ("a solution exists iff the count is positive", "oracle embeddings", exp["embeddings"], name,
                   ans["solvable"])
        if ans.get("invalid"):
            differ("is_valid_embedding", "is_valid_embedding", False, name, ans["first"])
        if ans.get("complete") is False:
            differ("complete", "oracle", True, name, False)
        if "nodes_cpu_same_settings" in ans and ans["nodes"] != ans["nodes_cpu_same_settings"]:
            differ("nodes with the same settings", "cpu", ans["nodes_cpu_same_settings"], name, ans["nodes"])
        if "stopped" in ans and ans["stopped"]["complete"] != (ans["stopped"]["work left"] == 0):
            differ("complete iff no work is left", "the interrupted count's frontier",
                   ans["stopped"]["work left"], name, ans["stopped"]["complete"])
        if "rows" in ans:
            _check_rows(exp, name, ans, differ)
    refused = sorted(name for name, ans in got.items() if "refused" in ans)
    if refused and len(refused) != len(got):
        differ("refusal", "refused by", refused, "answered by", sorted(set(got) - set(refused)))
    return msgs


def _check_rows(exp: dict, name: str, ans: dict, differ) -> None:
    """An enumeration: every row a folding of the oracle's; per symmetry class the weights add up to its size
    (without merging: every folding once, weight 1)."""
    rows = ans["rows"]
    unknown = [r for r, _ in rows if r not in exp["foldings"]]
    if unknown:
        differ("enumerated rows", "oracle foldings", f"{len(exp['foldings'])} foldings", name,
               f"{len(unknown)} rows not among them, e.g. {unknown[0]}")
        return
    if ans.get("each_once") and (len(rows) != len(exp["foldings"]) or {r for r, _ in rows} != exp["foldings"]
                                 or any(wt != 1 for _, wt in rows)):
        differ("every folding once, weight 1", "oracle foldings", len(exp["foldings"]), name,
               f"{len(rows)} rows, {len({r for r, _ in rows})} distinct, weights {sorted({wt for _, wt in rows})}")
    if sum(wt for _, wt in rows) != exp["embeddings"]:
        differ("sum of the rows' weights", "oracle embeddings", exp["embeddings"], name, sum(wt for _, wt in rows))
    per_class: dict[tuple, int] = {}
    for r, wt in rows:
        c = exp["class_of"][r]
        per_class[c] = per_class.get(c, 0) + wt
    if per_class != exp["class_size"]:
        bad = next(c for c in set(per_class) | set(exp["class_size"])
                   if per_class.get(c) != exp["class_size"].get(c))
        differ(f"weights in the class of {bad}", "oracle class size", exp["class_size"].get(bad), name,
               per_class.get(bad))


def main(argv: list[str]) -> int:
    """``python -m tests.differential.snake [N] [SEED]``: check N random instances, print the disagreements."""
    n = int(argv[0]) if argv else 50
    seed = int(argv[1]) if len(argv) > 1 else 0
    bad = 0
    t0 = time.perf_counter()
    for i in range(n):
        msgs = check(draw(random.Random(seed + i)))
        bad += bool(msgs)
        for m in msgs:
            print(m)
    print(f"{n} instances, {bad} with disagreements, {time.perf_counter() - t0:.1f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
