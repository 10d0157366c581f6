"""Differential testing of the connector-cubes family: random small figures and cube sets, answered by the
brute-force oracle (``tests/reference/cubes_oracle.py``) and by every way the package has to answer them, compared
key by key.

An *instance* is a JSON-able dict, so that a disagreement can be replayed from its message
(``check(json.loads(...))``):

``cells``
    the figure: its cells (x, y, z), shifted to the origin and sorted by z, then y, then x (the order of
    :meth:`Figure.from_cells`); a random polycube of 1 to 4 cells grown cell by cell, so lines, Ls, squares, Ts,
    skew and 3D corners turn up in every orientation (of 4 cells, also the boxes 2x2x1 and 4x1x1 as such).
``numbers``
    the cubes: numbers of the 27 shipped cubes (:func:`load_cubes`, :meth:`CubeSet.subset`, in this order), as
    many as the cells or a few more; or, with ``cubes_text``, a random cube set in the seed document's format
    (``NUMBER;F0,...,F5`` lines, faces from a small alphabet, so that contacts match often and identical cubes
    occur), read by the package with :func:`parse_cubes` and by the oracle with its own ``parse``.
``order`` / ``symmetry``
    the branching rule (``lookup``, ``exact``, ``fixed``) of every search of the instance, and the symmetry
    merging of its tiny-settings searches.
``tiny`` / ``stop_after``
    tiny :class:`~puzzlebatch.runners.engine.search.SearchSettings` (``budget`` 1..7, ``batch_size`` 1..5,
    ``frontier_target`` 1..3, ``first_batch_size`` 1..2), their budget raised for trees too large for
    :data:`MAX_LAUNCHES` launches; and the launches of the first half of an interrupted count, resumed from its
    frontier and totals.
``threads``
    the threads of the default-settings counts: ``"default"`` (numba's, in about a third of the draws) or 1.  The
    other ways always run on one thread: their launches hold one item or a few, and a launch of two threads costs
    milliseconds on a busy two-core machine.
``sim``
    also run the ``cuda`` backend (numba's simulator under ``NUMBA_ENABLE_CUDASIM=1``: every simulated thread is
    a Python thread, so :func:`draw` with ``sim=True`` keeps figures and cube sets tiny).

What is compared:

``assemblies``
    the number of assemblies (a cube and a rotation per cell, no cube twice, every contact summing to 0).  Oracle:
    ``cubes_oracle.assemblies`` (rotations generated as the closure of two quarter turns, cells filled in order,
    every unused cube tried in every rotation).  The package: :func:`cubes.count` with its default settings
    (symmetry merged), a :class:`BatchDFS` with the default settings and no merging, with the tiny settings (one
    thread), interrupted and resumed, and on the simulator.
``distinct`` / ``symmetries``
    the classes under the figure's rotations and the size of that group.  Oracle: ``cubes_oracle.count_distinct``
    (its own rotations and cell permutations); it canonicalises every assembly in Python (about 0.3 ms each), so
    the classes are counted only up to :data:`DISTINCT_MAX` assemblies; above, the oracle's group size is
    compared and ``distinct`` must be ``assemblies / symmetries`` (the group acts freely: a rotation turns every
    cube, so no assembly is its own image).
``solvable`` / ``assembly``
    :func:`cubes.solve` (with ``solve_settings``, and on the simulator) and ``BatchDFS.first`` (the tiny settings,
    with and without symmetry merging) find an assembly iff the count is positive; the assembly, as (cube, faces
    as they lie) per cell, is one of the oracle's, and passes :func:`check_assembly`.  All of them return the
    same (cube, rotation) per cell: the first assembly in depth-first order does not depend on the settings, the
    backend or the merging (the frontier keeps the *first* member of each class, so the first assembly of the
    whole tree always lies below a representative).

:func:`large_instances` adds figures whose counts pass 2^14, 2^15 and 2^16 assemblies (the oracle lists them in
about a second each).

Nothing here imports pytest; ``python -m tests.differential.cubes [N] [SEED]`` checks N random instances.
"""

from __future__ import annotations

import contextlib
import functools
import json
import random
import sys
import time

from tests.reference import cubes_oracle
from tests.differential.common import capped_settings, cuda_backend, settings_label as _label

ORDERS = ("lookup", "exact", "fixed")
MAX_LAUNCHES = 40  # a tiny-settings search of a larger tree gets a larger budget (a launch costs ~0.1-0.3 ms)
DISTINCT_MAX = 120  # count_distinct only up to this many assemblies (about 0.3 ms each in Python)
FACE_ALPHABETS = [(1, -1), (1, -1, 2, -2), (1, -1, 2, -2, 3, -3, 4, -4), (1, 2, -1), (2, -2, -3)]
# (cells, cubes beyond the cells) of a random draw, with weights: the oracle tries every unused cube in every
# rotation, so 4-cell figures get exactly 4 cubes (0.1 to 0.3 s), smaller ones a few spare cubes.
SIZES = [((1, 0), 2), ((1, 2), 2), ((2, 0), 8), ((2, 1), 6), ((2, 2), 2), ((3, 0), 8), ((3, 1), 0.5), ((4, 0), 0.8)]
SIM_SIZES = [(2, 0), (2, 0), (2, 1)]  # a figure of one cell is solved by the host expansion alone
SIM_MAX_LAUNCHES = 10  # a simulated launch costs tens of milliseconds
NEIGHBOURS = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]


# -- drawing instances ---------------------------------------------------------------------------------------------

def normalised(cells) -> list[list[int]]:
    """Cells shifted to the origin and sorted by z, then y, then x."""
    lo = [min(c[k] for c in cells) for k in range(3)]
    return sorted(([c[k] - lo[k] for k in range(3)] for c in cells), key=lambda c: (c[2], c[1], c[0]))


def random_polycube(rng: random.Random, n: int) -> list[list[int]]:
    """A connected figure of ``n`` cells grown from one cell, each new cell beside a random one of the figure."""
    cells = [(0, 0, 0)]
    while len(cells) < n:
        x, y, z = rng.choice(cells)
        dx, dy, dz = rng.choice(NEIGHBOURS)
        c = (x + dx, y + dy, z + dz)
        if c not in cells:
            cells.append(c)
    return normalised(cells)


def random_cubes_text(rng: random.Random, k: int) -> str:
    """``k`` random cubes in the document's format, faces from a small alphabet (matches and twins are common)."""
    alphabet = rng.choice(FACE_ALPHABETS)
    numbers = rng.sample(range(1, 60), k)
    return "".join(f"{n};{','.join(str(rng.choice(alphabet)) for _ in range(6))}\n" for n in numbers)


def _threads(rng: random.Random) -> str | int:
    return "default" if rng.random() < 0.3 else 1


def _tiny(rng: random.Random) -> dict:
    return {"budget": rng.randint(1, 7), "batch_size": rng.randint(1, 5), "frontier_target": rng.randint(1, 3),
            "first_batch_size": rng.randint(1, 2)}


def draw(rng: random.Random, *, sim: bool = False) -> dict:
    """One random instance (JSON-able).  ``sim=True``: at most 2 cells and 3 cubes, also run on ``cuda``."""
    if sim:
        n, extra = rng.choice(SIM_SIZES)
    else:
        n, extra = rng.choices([s for s, _ in SIZES], weights=[w for _, w in SIZES])[0]
    if n == 4 and rng.random() < 0.4:  # the boxes 2x2x1 and 4x1x1, rarely grown at random, in any orientation
        dims = list(rng.choice([(2, 2, 1), (4, 1, 1)]))
        rng.shuffle(dims)
        cells = normalised([[x, y, z] for x in range(dims[0]) for y in range(dims[1]) for z in range(dims[2])])
    else:
        cells = random_polycube(rng, n)
    inst = {"cells": cells}
    if n + extra <= 3 and not sim and rng.random() < 0.3:  # random faces match often: many assemblies
        inst["cubes_text"] = random_cubes_text(rng, n + extra)
    else:
        inst["numbers"] = rng.sample(range(1, 28), n + extra)
    inst.update(order=rng.choice(ORDERS), symmetry=rng.random() < 0.5, tiny=_tiny(rng),
                stop_after=rng.randint(1, 4), threads=_threads(rng), sim=sim)
    return inst


def large_instances() -> list[dict]:
    """Figures of the 27 shipped cubes whose counts pass 2^14, 2^15 and 2^16 (the oracle lists them in 0.4 to
    0.8 s); ``passes`` is the power of two the count must exceed (checked against the oracle, never assumed)."""
    line4 = [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]
    tee = [[0, 0, 0], [1, 0, 0], [2, 0, 0], [1, 1, 0]]
    corner = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    rows = [("line4", line4, [2, 3, 12, 27], 14, "exact", True),
            ("T", tee, [5, 8, 12, 18, 19], 15, "fixed", False),
            ("corner", corner, [2, 9, 13, 14, 25], 16, "lookup", True)]
    return [{"name": name, "cells": normalised(cells), "numbers": numbers, "order": order, "symmetry": symmetry,
             "tiny": {"budget": 5, "batch_size": 3, "frontier_target": 2, "first_batch_size": 2},
             "stop_after": 3, "threads": "default", "sim": False, "passes": power}
            for name, cells, numbers, power, order, symmetry in rows]


def draw_sim(rng: random.Random) -> dict:
    return draw(rng, sim=True)


# -- the oracle ----------------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _shipped_oracle_cubes() -> dict:
    from puzzlebatch.puzzles.cubes.model import default_cubes_text

    return cubes_oracle.parse(default_cubes_text())


def _oracle_cubes(inst: dict) -> dict:
    if "cubes_text" in inst:
        return cubes_oracle.parse(inst["cubes_text"])
    shipped = _shipped_oracle_cubes()
    return {n: shipped[n] for n in inst["numbers"]}


@functools.lru_cache(maxsize=64)
def _oracle(cells: tuple, cubes_key: tuple) -> dict:
    cubes = {n: dict(zip(cubes_oracle.DIRS, faces)) for n, faces in cubes_key}
    cell_list = [tuple(c) for c in cells]
    found = cubes_oracle.assemblies(cell_list, cubes)
    _, n_sym = cubes_oracle.count_distinct(cell_list, [])
    ans = {"assemblies": len(found), "symmetries": n_sym, "solvable": bool(found), "found": frozenset(found),
           "cubes": cubes}
    if len(found) <= DISTINCT_MAX:
        ans["distinct"] = cubes_oracle.count_distinct(cell_list, found)[0]
    return ans


def oracle_assembly(exp: dict, assembly) -> tuple | None:
    """An assembly given as (cube, faces as they lie in the data's face order) per cell, in the oracle's terms:
    (cube, rotation matrix) per cell, the first of the oracle's rotations that turns the cube so; None when a
    cube cannot lie so.  The assembly is valid iff this is one of the oracle's assemblies (validity depends on
    the faces only, and the oracle lists every rotation that gives them)."""
    out = []
    for n, faces in assembly:
        cube = exp["cubes"].get(n)
        m = next((m for m in cubes_oracle.rotations() if cube is not None and
                  tuple(cubes_oracle.turned(cube, m)[d] for d in cubes_oracle.DIRS) == tuple(faces)), None)
        if m is None:
            return None
        out.append((n, m))
    return tuple(out)


def oracle(inst: dict) -> dict:
    """The oracle's answer: ``assemblies``, ``symmetries``, ``solvable``, ``found`` (every assembly as (cube,
    rotation matrix) per cell, cells in the instance's order), ``cubes`` (the oracle's cubes) and, up to
    :data:`DISTINCT_MAX` assemblies, ``distinct``.  Cached per figure and cube set."""
    cubes = _oracle_cubes(inst)
    key = tuple((n, tuple(cubes[n][d] for d in cubes_oracle.DIRS)) for n in cubes)
    return _oracle(tuple(tuple(c) for c in inst["cells"]), key)


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


def _attempt(fn) -> dict:
    """``fn()``'s answer, or ``{"error": ...}`` when it raised."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 -- any exception is a finding, reported with the instance
        return {"error": f"{type(exc).__name__}: {exc}"}


def _settings(tiny: dict, nodes: int | None, launches: int = MAX_LAUNCHES):
    """:func:`~tests.differential.common.capped_settings` with this family's launch cap."""
    return capped_settings(tiny, nodes, launches)


def package_problem(inst: dict):
    """The package's (figure, cube set) of an instance."""
    from puzzlebatch.puzzles.cubes import model

    figure = model.Figure.from_cells(inst["cells"], "figure")
    if "cubes_text" in inst:
        cubes = model.parse_cubes(inst["cubes_text"], "<instance>")
    else:
        cubes = model.load_cubes().subset(inst["numbers"])
    return figure, cubes


def ways(inst: dict) -> dict[str, dict]:
    """Every way the package answers ``inst``: way name -> answer (keys as in :func:`oracle`, plus ``complete``,
    ``nodes`` and ``placements``: (cube, rotation) per cell; ``{"error": ...}`` for an exception).

    :func:`cubes.count` and :func:`cubes.solve` run once each; the other ways build their :class:`BatchDFS` the
    way :func:`cubes.searcher` does, on one shared problem (building the tables takes about 10 ms: per way, it
    would be most of an instance's time).  Every way searches in the instance's order: the draws spread the
    orders over the instances."""
    from puzzlebatch.puzzles.cubes import encode
    from puzzlebatch.puzzles.cubes.model import check_assembly, rotated_faces
    from puzzlebatch.runners.cubes import solver as rc
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.search import BatchDFS

    cpu = select_backend("cpu")
    figure, cubes = package_problem(inst)
    where = {tuple(int(v) for v in c): i for i, c in enumerate(inst["cells"])}
    order, symmetry = inst["order"], inst["symmetry"]
    sym = "sym" if symmetry else "nosym"
    out: dict[str, dict] = {}
    shared = []  # the problem, built on first use (inside a way: an exception there is that way's finding)

    def dfs(backend, settings=None, symmetry=symmetry) -> BatchDFS:
        if not shared:
            shared.append(rc.problem(figure, cubes, order))
        return BatchDFS(shared[0], backend, settings,
                        canonicalize=rc.make_canonicalize(figure, cubes) if symmetry else None)

    def count_api(backend, settings=None, symmetry=symmetry):
        r, rest, totals = rc.count(figure, cubes, backend, settings, symmetry=symmetry, order=order)
        return {"assemblies": r.assemblies, "distinct": r.distinct, "symmetries": r.symmetries,
                "complete": r.complete and len(rest) == 0, "nodes": totals.nodes}

    def count(backend, settings=None, symmetry=symmetry):
        totals, rest = dfs(backend, settings, symmetry).count()
        return {"assemblies": totals.count, "complete": len(rest) == 0, "nodes": totals.nodes}

    def resumed(settings, stop_after):
        totals, rest = dfs(cpu, settings).count(max_batches=stop_after)
        totals, rest = dfs(cpu, settings).count(frontier=rest, totals=totals)  # a fresh search, as on --resume
        return {"assemblies": totals.count, "complete": len(rest) == 0}

    def solve_api(backend, settings=None):
        r = rc.solve(figure, cubes, backend, settings, order=order)
        if not r.solved:
            return {"solvable": False}
        per_cell = [None] * figure.n_cells
        for a in r.assembly:
            per_cell[where[tuple(a["cell"])]] = (a["cube"], tuple(a["faces"]))
        return {"solvable": True, "assembly": tuple(per_cell),
                "placements": [(a["cube"], a["rotation"]) for a in sorted(r.assembly,
                                                                         key=lambda a: where[tuple(a["cell"])])]}

    def first(backend, settings, symmetry):
        totals, _ = dfs(backend, settings, symmetry=symmetry).first()
        if not totals.solutions:
            return {"solvable": False}
        placements = encode.decode(encode.placements_of(totals.solutions[0], figure, cubes), cubes)
        placements = [(int(n), int(r)) for n, r in placements]
        ans = {"solvable": True, "placements": placements,
               "assembly": tuple((n, tuple(int(v) for v in rotated_faces(cubes.faces[cubes.index_of(n)], r)))
                                 for n, r in placements)}
        problem = check_assembly(figure, cubes, placements)
        if problem:
            ans["invalid"] = problem
        return ans

    label = _threads_label(inst)
    with threads(inst):  # launches of many items; one item or a few below: one thread
        out[f"count[cpu,default,{order},sym,{label}]"] = _attempt(lambda: count_api(cpu, symmetry=True))
        full = out[f"count[cpu,default,{order},nosym,{label}]"] = _attempt(lambda: count(cpu, symmetry=False))
    # the whole tree's nodes: no tiny search needs more launches (fewer with the simulator: the same settings)
    s = _settings(inst["tiny"], full.get("nodes"), SIM_MAX_LAUNCHES if inst.get("sim") else MAX_LAUNCHES)
    with one_thread():
        out[f"solve[cpu,solve_settings,{order},1 thread]"] = _attempt(lambda: solve_api(cpu))
        out[f"count[cpu,{_label(s)},{order},{sym},1 thread]"] = tiny = _attempt(lambda: count(cpu, s))
        out[f"count[cpu,{_label(s)},{order},{sym},1 thread,resumed after {inst['stop_after']}]"] = _attempt(
            lambda: resumed(s, inst["stop_after"]))
        merged_name = f"first[cpu,{_label(s)},{order},sym,1 thread]"
        merged = out[merged_name] = _attempt(lambda: first(cpu, s, True))
        out[f"first[cpu,{_label(s)},{order},nosym,1 thread]"] = _attempt(lambda: first(cpu, s, False))
    if inst.get("sim"):
        gpu = cuda_backend()
        if gpu is None:
            out["cuda"] = {"error": "the instance asks for the cuda backend and none is available"}
        else:
            sim = out[f"count[{gpu.name},{_label(s)},{order},{sym}]"] = _attempt(lambda: count_api(gpu, s))
            if "nodes" in sim and "nodes" in tiny:  # the same work cut the same way: the same nodes
                sim["nodes_cpu_same_settings"] = tiny["nodes"]
            out[f"solve[{gpu.name},{_label(s)},{order}]"] = _attempt(lambda: solve_api(gpu, s))
    # The first assembly in depth-first order of the tree, whatever the settings, the backend and the symmetry
    # merging: every first-solution way must return the same placements.
    if "placements" in merged:
        for name, ans in out.items():
            if name != merged_name and "placements" in ans:
                ans["same_as"] = (merged_name, merged["placements"])
    return out


# -- comparing -------------------------------------------------------------------------------------------------------

def check(inst: dict, answers: dict[str, dict] | None = None) -> list[str]:
    """Run the oracle and every way; one message per disagreement, naming the instance (JSON) and the two ways."""
    exp = oracle(inst)
    got = ways(inst) if answers is None else answers
    tag = json.dumps(inst, sort_keys=True)
    msgs: list[str] = []

    def differ(what: str, a_name: str, a, b_name: str, b) -> None:
        msgs.append(f"cubes {tag}: {what}: {a_name} = {a!r} but {b_name} = {b!r}")

    for name, ans in got.items():
        if "error" in ans:
            differ("an exception", "oracle", "an answer", name, ans["error"])
            continue
        for key in ("assemblies", "symmetries", "distinct", "solvable"):
            if key in ans and key in exp and ans[key] != exp[key]:
                differ(key, "oracle", exp[key], name, ans[key])
        if "distinct" in ans and "distinct" not in exp and ans["distinct"] * exp["symmetries"] != exp["assemblies"]:
            differ("distinct x symmetries", "oracle assemblies", exp["assemblies"], name,
                   f"{ans['distinct']} x {exp['symmetries']}")
        if "assembly" in ans and oracle_assembly(exp, ans["assembly"]) not in exp["found"]:
            differ("the assembly found", "oracle", f"{exp['assemblies']} assemblies", name,
                   f"{ans['assembly']}, not one of them")
        if ans.get("invalid"):
            differ("check_assembly", "check_assembly", ans["invalid"], name, ans["placements"])
        if "same_as" in ans and ans["placements"] != ans["same_as"][1]:
            differ("the first assembly in depth-first order", ans["same_as"][0], ans["same_as"][1], name,
                   ans["placements"])
        if ans.get("complete") is False:
            differ("complete", "oracle", True, name, False)
        if "nodes_cpu_same_settings" in ans and ans["nodes"] != ans["nodes_cpu_same_settings"]:
            differ("nodes with the same settings", "cpu", ans["nodes_cpu_same_settings"], name, ans["nodes"])
    return msgs


def main(argv: list[str]) -> int:
    """``python -m tests.differential.cubes [N] [SEED]``: check N random instances, print the disagreements."""
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
