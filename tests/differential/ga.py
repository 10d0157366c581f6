"""Differential testing of the genetic algorithm (``runners/engine/ga.py``) on connector cubes: tiny random runs,
checked against a plain-Python fitness oracle and across every way the package has to run them, compared key by
key.

An *instance* is a JSON-able dict, so that a disagreement can be replayed from its message
(``check(json.loads(...))``):

``figure``
    a box ``"LxWxH"`` or a list of ``[x, y, z]`` cells (one to six, not always connected).
``cubes``
    the numbers of the cubes given to the GA, in the order of their GA indices (at least one per cell).
``seed``, ``population``, ``generations``
    the run's seed, its population size (2 to 12) and its generation limit (0 to 4).
``p_mutation``, ``n_parents``, ``selection``, ``tournament_size``, ``replacement``
    the :class:`~puzzlebatch.runners.engine.ga.GAConfig` fields.
``ops``
    the cube operators ``[p_block, p_plane, p_ruin, grow]`` (:class:`~puzzlebatch.runners.cubes.ga.Operators`).
``repair``, ``islands``
    the memetic repair ``[nodes, radius, most constrained cell first]`` and ``[islands, migrate_every]``.
``target``
    True: the run stops at the first generation where an individual fills the figure (the CLI's run); False: it
    runs every generation (the problem's target removed, as ``bench/gpu.py`` does).
``stop``
    the generation after which the "stopped and resumed" way checkpoints its run (0 .. ``generations``).

What is compared (the keys of the answers; the first answer that has a key is the reference for it):

``population`` / ``fitness`` / ``rngs``
    the final population (a tuple of genomes), its fitness and the per-slot xorshift states, bit for bit.
``generation`` / ``evaluations`` / ``best``
    the generations run, the individuals scored (the population's P at the start and P children a generation:
    the oracle's ``P * (generations + 1)`` when the run has no target) and the best genome (the first fittest).

and, for every way on its own (the oracle of this module, :mod:`tests.reference.cubes_ga_oracle`):

* every individual of the final population is a valid partial assembly (each cube at most once, every contact
  complementary) whose fitness is the oracle's (the number of cubes placed);
* the first population (drawn from the seed by the family's ``init``, as the engine's ``start`` does) is the
  documented one: each individual holds one cube, different cubes while they last; a run of no generation ends
  on it, and the replacement never loses fitness: with ``carrier`` every slot ends at least as fit as it started
  (with islands, whose migrants may replace a slot by a less fit one, the best fitness never drops), with ``plus``
  the k-th best fitness never drops;
* a run with a target stops before its generation limit only when an individual fills the figure.

The ways: the CPU run with numba's threads (``cpu``); the same seed run again in the same process on one thread;
a run stopped after ``stop`` generations, saved as a checkpoint (``GAState.arrays``/``meta``) and resumed from
``GAState.from_checkpoint``; the *interpreted* run (``python``): the same per-child template and operators
(``ga/item.py``, ``ga/rng.py``, ``cubes/ga_rules.py``) executed by the Python interpreter instead of numba, with the
replacement written here from the engine's documentation (compiled against interpreted code, and the host-side
replacement against a plain one); with ``cuda=True`` also the ``cuda`` backend, whole and stopped and resumed
(numba's simulator under ``NUMBA_ENABLE_CUDASIM=1``: tiny runs only, see :data:`CUDA_MAX_POPULATION`).

Nothing here imports pytest; ``python -m tests.differential.ga [N] [SEED] [--cuda]`` checks N random instances.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import random
from functools import lru_cache
from typing import Callable

import numpy as np

from tests.reference import cubes_ga_oracle as reference

MAX_CELLS = 6
MAX_POPULATION = 12
MAX_GENERATIONS = 4
CUDA_MAX_POPULATION = 10  # the simulator runs every thread in Python
CUDA_MAX_GENERATIONS = 3
N_CUBES = 27  # the shipped set: cubes 1..27

BOXES = ["1x1x1", "2x1x1", "1x2x1", "1x1x2", "3x1x1", "2x2x1", "2x1x2", "1x2x2", "3x2x1", "2x3x1", "2x2x2"]


# -- drawing instances ---------------------------------------------------------------------------------------------
def draw(rng: random.Random, max_population: int = MAX_POPULATION, max_generations: int = MAX_GENERATIONS) -> dict:
    """One random tiny run (see the module's docstring): a small figure, a random cube subset and random settings."""
    if rng.random() < 0.5:
        figure = rng.choice(BOXES)
        n_cells = len(_figure_cells(figure))
    else:
        cells = _random_figure(rng)
        figure, n_cells = [list(c) for c in cells], len(cells)
    n_cubes = rng.randint(n_cells, min(N_CUBES, n_cells + rng.choice([0, 2, 6, 12])))
    cubes = rng.sample(range(1, N_CUBES + 1), n_cubes)
    population = rng.randint(2, max_population)
    generations = rng.choice([0] + [rng.randint(1, max_generations)] * 5)
    selection = rng.choice(["roulette", "tournament"])
    inst = {
        "figure": figure,
        "cubes": cubes,
        "seed": rng.randrange(1 << 32) if rng.random() < 0.8 else rng.randrange(10),
        "population": population,
        "generations": generations,
        "p_mutation": rng.choice([0.0, 0.1, 0.5, 1.0]),
        "n_parents": rng.choice([1, 2, 2, 3]),
        "selection": selection,
        "tournament_size": rng.randint(1, min(3, population)),
        "replacement": rng.choice(["carrier", "plus"]),
        "ops": [rng.choice([0.0, 0.5, 1.0]), rng.choice([0.0, 0.5, 1.0]), rng.choice([0.0, 0.0, 0.4, 1.0]),
                rng.random() < 0.4],
        "target": rng.random() < 0.5,
        "stop": rng.randint(0, generations),
    }
    # the memetic repair (node budget, radius, most constrained cell first) and islands, drawn last
    inst["repair"] = [rng.choice([0, 0, 5, 40]), rng.randint(1, 8), rng.random() < 0.5]
    sizes = [k for k in range(2, population + 1) if population % k == 0 and population // k >= 2]
    islands = rng.choice(sizes) if sizes and inst["replacement"] == "carrier" and rng.random() < 0.4 else 1
    inst["islands"] = [islands, rng.randint(1, 3)]
    return inst


def _random_figure(rng: random.Random) -> list[tuple[int, int, int]]:
    """One to :data:`MAX_CELLS` cells grown face to face (one time in six with a cell set apart)."""
    size = rng.randint(1, MAX_CELLS)
    cells = {(0, 0, 0)}
    while len(cells) < size:
        x, y, z = rng.choice(sorted(cells))
        d = rng.choice(reference.DIRS)
        step = 2 if rng.random() < 1 / 6 else 1  # a gap: the figure falls apart
        cells.add((x + step * d[0], y + step * d[1], z + step * d[2]))
    return sorted(cells)


def _figure_cells(figure) -> list[tuple[int, int, int]]:
    if isinstance(figure, str):
        return reference.box_cells(*(int(v) for v in figure.split("x")))
    return reference.figure_cells(figure)


# -- the oracle ------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _cubes_text() -> str:
    from puzzlebatch.puzzles.cubes.model import default_cubes_text

    return default_cubes_text()


def fitness_oracle(inst: dict) -> reference.Fitness:
    """The plain-Python fitness of the instance's figure and cubes (:mod:`tests.reference.cubes_ga_oracle`)."""
    return reference.Fitness(_figure_cells(inst["figure"]), reference.cube_faces(_cubes_text(), inst["cubes"]))


def oracle(inst: dict) -> dict:
    """What is known without running the GA: with no target, the generations run and the individuals scored."""
    if inst["target"]:
        return {}
    p, g = inst["population"], inst["generations"]
    return {"generation": g, "evaluations": p * (g + 1)}


def first_population(inst: dict) -> dict:
    """The run's first population (drawn by the family's ``init`` from the seed, as the engine's ``start`` does)
    with the oracle's fitness: ``{"population", "fitness"}``."""
    problem, config = _setup(inst)
    pop = problem.init(np.random.default_rng(inst["seed"]), config.population)
    fit = fitness_oracle(inst)
    return {"population": tuple(tuple(int(v) for v in g) for g in pop),
            "fitness": tuple(fit.fitness(g) for g in pop)}


def oracle_problems(inst: dict, name: str, ans: dict, initial: dict | None) -> list[str]:
    """The oracle's checks of one way's answer on its own (see the module's docstring); ``initial``: the run's
    first population (:func:`first_population`; None: the replacement is not checked)."""
    fit = fitness_oracle(inst)
    n_cells = len(fit.cells)
    msgs = []
    pop, fitness = ans["population"], ans["fitness"]
    if len(pop) != inst["population"] or len(fitness) != inst["population"]:
        return [f"{name} has {len(pop)} individuals and {len(fitness)} fitness values for a population of "
                f"{inst['population']}"]
    for i, (genome, f) in enumerate(zip(pop, fitness)):
        bad = fit.problem(genome)
        if bad:
            msgs.append(f"individual {i} of {name} is not a valid partial assembly ({bad}): {list(genome)}")
        elif f != fit.fitness(genome):
            msgs.append(f"fitness: oracle fitness of {name}'s individual {i} = {fit.fitness(genome)} but {name} = {f}"
                        f" (genome {list(genome)})")
    if inst["target"]:
        gen = ans["generation"]
        if gen < inst["generations"] and max(fitness) < n_cells:
            msgs.append(f"generation: {name} stopped after {gen} of {inst['generations']} generations without "
                        f"filling the figure (best {max(fitness)} of {n_cells} cells)")
        if ans["evaluations"] != inst["population"] * (gen + 1):
            msgs.append(f"evaluations: {name} = {ans['evaluations']} but {gen} generations of "
                        f"{inst['population']} make {inst['population'] * (gen + 1)}")
    if initial is not None:
        if ans["generation"] == 0 and pop != initial["population"]:
            msgs.append(f"population: {name} ran no generation but its population is not the first one")
        start = initial["fitness"]
        if inst["replacement"] == "carrier" and inst.get("islands", (1,))[0] > 1:
            if max(fitness) < max(start):  # a migrant may replace a slot by a less fit one; never the best
                msgs.append(f"islands: {name}'s best fitness fell from {max(start)} to {max(fitness)}")
        elif inst["replacement"] == "carrier":
            lost = [i for i in range(len(start)) if fitness[i] < start[i]]
            if lost:
                msgs.append(f"carrier replacement: {name}'s slot {lost[0]} fell from {start[lost[0]]} to "
                            f"{fitness[lost[0]]}")
        else:
            a, b = sorted(start, reverse=True), sorted(fitness, reverse=True)
            if any(y < x for x, y in zip(a, b)):
                msgs.append(f"plus replacement: {name}'s ranked fitness {b} fell below the first population's {a}")
    return msgs


def initial_problems(inst: dict, initial: dict) -> list[str]:
    """The documented first population (:func:`first_population`): each individual holds one cube, different
    cubes while they last, so its fitness is 1."""
    fit = fitness_oracle(inst)
    msgs = []
    seen = []
    for i, genome in enumerate(initial["population"]):
        placed = [v for v in genome if v >= 0]
        if len(placed) != 1 or fit.problem(genome) is not None:
            msgs.append(f"initial individual {i} holds {len(placed)} cubes, not one: {list(genome)}")
            continue
        seen.append(placed[0] // reference.N_ROT)
    k = min(len(seen), len(inst["cubes"]))
    if len(set(seen[:k])) != k:
        msgs.append(f"initial population: the first {k} individuals repeat a cube: {seen[:k]}")
    return msgs


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


def _setup(inst: dict, generations: int | None = None):
    """(GAProblem, GAConfig) of the instance (``generations``: another generation limit)."""
    from puzzlebatch.puzzles.cubes import model
    from puzzlebatch.runners.cubes import ga as cubes_ga
    from puzzlebatch.runners.engine.ga import GAConfig

    figure = inst["figure"]
    fig = model.parse_figure(figure) if isinstance(figure, str) else model.Figure.from_cells(figure, "random")
    cubes = model.load_cubes().subset(inst["cubes"])
    p_block, p_plane, p_ruin, grow = inst["ops"]
    repair, radius, mrv = inst.get("repair", (0, 7, False))
    islands, migrate_every = inst.get("islands", (1, 10))
    problem = cubes_ga.ga_problem(fig, cubes, cubes_ga.Operators(p_block, p_plane, p_ruin, bool(grow), repair=repair,
                                                                 radius=radius, mrv=bool(mrv)))
    if not inst["target"]:
        problem.target = None
    config = GAConfig(population=inst["population"],
                      generations=inst["generations"] if generations is None else generations,
                      p_mutation=inst["p_mutation"], n_parents=inst["n_parents"], selection=inst["selection"],
                      tournament_size=inst["tournament_size"], replacement=inst["replacement"], islands=islands,
                      migrate_every=migrate_every)
    return problem, config


def _answer(result, state) -> dict:
    arrays = state.arrays()
    return {"population": tuple(tuple(int(v) for v in g) for g in arrays["population"]),
            "fitness": tuple(float(v) for v in arrays["fitness"]),
            "rngs": tuple(int(v) for v in arrays["rngs"]),
            "generation": int(state.generation),
            "evaluations": int(state.evaluations),
            "best": tuple(int(v) for v in result.best)}


def _engine_run(inst: dict, backend, threads: int | None = None) -> Callable[[], dict]:
    def run() -> dict:
        from puzzlebatch.runners.engine.ga import GeneticAlgorithm

        problem, config = _setup(inst)
        with _threads(threads):
            result, state = GeneticAlgorithm(problem, backend, config, seed=inst["seed"]).run()
        return _answer(result, state)
    return run


def _resumed_run(inst: dict, backend, threads: int | None = 1) -> Callable[[], dict]:
    """Run ``stop`` generations, keep the state as a checkpoint would (host arrays and meta, copied), then resume
    it in a new engine with the full generation limit."""
    def run() -> dict:
        from puzzlebatch.runners.engine.ga import GAState, GeneticAlgorithm

        with _threads(threads):
            problem, config = _setup(inst, generations=inst["stop"])
            _, first = GeneticAlgorithm(problem, backend, config, seed=inst["seed"]).run()
            saved = {k: np.array(v, copy=True) for k, v in first.arrays().items()}
            meta = json.loads(json.dumps(first.meta()))
            state = GAState.from_checkpoint(saved, meta)
            problem, config = _setup(inst)
            result, state = GeneticAlgorithm(problem, backend, config, seed=inst["seed"]).run(state)
        return _answer(result, state)
    return run


@lru_cache(maxsize=None)
def _interpreted_breed_item():
    """``ga/item.py``'s ``breed_item`` bound to the plain-Python cube operators and random functions (what numba
    compiles as one unit, left to the interpreter)."""
    from puzzlebatch.ga import item
    from puzzlebatch.ga import rng as rng_rules
    from puzzlebatch.puzzles.cubes import ga_rules

    ns: dict = {"__name__": "interpreted_ga_item"}
    for module in (rng_rules, ga_rules):
        ns.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
    exec(compile(inspect.getsource(item), item.__file__, "exec"), ns)  # noqa: S102 - the package's own source
    return ns["breed_item"], ns["fitness"]


def _replace_carrier(pop, fit, children, child_fit, carriers) -> None:
    """Carrier elitism as documented: per carrier its fittest child (the first on ties) replaces it when at least
    as fit; every comparison against the generation's parents."""
    best: dict[int, int] = {}
    for i in range(len(children)):
        c = int(carriers[i])
        if c not in best or child_fit[i] > child_fit[best[c]]:
            best[c] = i
    old = fit.copy()
    for c, i in best.items():
        if child_fit[i] >= old[c]:
            pop[c] = children[i]
            fit[c] = child_fit[i]


def _migrate(pop, fit, islands: int) -> None:
    """Ring migration as documented: each island's fittest (the first on ties) replaces the least fit (the first on
    ties) of the next island, every choice made on the fitness before any move."""
    size = len(fit) // islands
    best = [j * size + max(range(size), key=lambda k: (fit[j * size + k], -k)) for j in range(islands)]
    worst = [j * size + min(range(size), key=lambda k: (fit[j * size + k], k)) for j in range(islands)]
    moved = [(pop[b].copy(), fit[b]) for b in best]
    for j in range(islands):
        dest = worst[(j + 1) % islands]
        pop[dest], fit[dest] = moved[j]


def _replace_plus(pop, fit, children, child_fit):
    """(mu + lambda) as documented: the P fittest of children then parents, children first on ties."""
    allpop = np.concatenate([children, pop])
    allfit = np.concatenate([child_fit, fit])
    order = sorted(range(len(allfit)), key=lambda k: (-allfit[k], k))[: len(pop)]
    return allpop[order].copy(), allfit[order].copy()


def interpreted_run(inst: dict) -> dict:
    """The run with the per-child rules interpreted by Python (see the module's docstring)."""
    from puzzlebatch.runners.engine.ga import seed_states

    breed_item, fitness = _interpreted_breed_item()
    problem, config = _setup(inst)
    p = config.population
    pop = np.ascontiguousarray(problem.init(np.random.default_rng(inst["seed"]), p))
    fit = np.array([fitness(g, problem.tables) for g in pop], np.float64)
    rngs = seed_states(inst["seed"], p)
    tournament = config.tournament_size if config.selection == "tournament" else 0
    target = problem.target
    generation = 0
    while generation < config.generations and not (target is not None and fit.max() >= target):
        cum = np.cumsum(np.maximum(fit, 0.0) + 1e-9)
        children = np.empty_like(pop)
        child_fit = np.zeros(p, np.float64)
        carriers = np.zeros(p, np.int64)
        no_bids = np.empty(0, np.int64)  # the replacement below is the documented one, not the engine's bids
        for i in range(p):
            breed_item(i, pop, fit, cum, children, child_fit, carriers, no_bids, rngs, config.n_parents,
                       config.p_mutation, tournament, config.islands, problem.params, problem.tables)
        if config.replacement == "plus":
            pop, fit = _replace_plus(pop, fit, children, child_fit)
        else:
            _replace_carrier(pop, fit, children, child_fit, carriers)
        generation += 1
        if config.islands > 1 and generation % config.migrate_every == 0:
            _migrate(pop, fit, config.islands)
    b = int(np.argmax(fit))
    ans = {"population": tuple(tuple(int(v) for v in g) for g in pop), "fitness": tuple(float(v) for v in fit),
           "rngs": tuple(int(v) for v in rngs), "generation": generation, "evaluations": p * (generation + 1),
           "best": tuple(int(v) for v in pop[b])}
    return ans


def ways(inst: dict, cuda: bool = False) -> list[tuple[str, Callable[[], dict]]]:
    """The ways the package runs the instance, each (name, callable returning the answer's dict).

    With ``cuda`` and a run of at most :data:`CUDA_MAX_POPULATION` individuals and :data:`CUDA_MAX_GENERATIONS`
    generations, also the ``cuda`` backend (the simulator under ``NUMBA_ENABLE_CUDASIM=1``)."""
    from puzzlebatch.runners.engine.backend import select_backend

    cpu = select_backend("cpu")
    out = [("cpu", _engine_run(inst, cpu)),
           ("cpu again, 1 thread", _engine_run(inst, cpu, threads=1)),
           (f"cpu stopped after {inst['stop']} generations and resumed, 1 thread", _resumed_run(inst, cpu)),
           ("python (interpreted rules)", lambda: interpreted_run(inst))]
    if cuda and inst["population"] <= CUDA_MAX_POPULATION and inst["generations"] <= CUDA_MAX_GENERATIONS:
        gpu = select_backend("cuda")
        out += [(gpu.name, _engine_run(inst, gpu)),
                (f"{gpu.name} stopped after {inst['stop']} generations and resumed", _resumed_run(inst, gpu, None))]
    return out


# -- the comparison ----------------------------------------------------------------------------------------------
def _differ(key: str, a_name: str, a, b_name: str, b) -> str:
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        k = next(i for i in range(len(a)) if a[i] != b[i])
        n = sum(x != y for x, y in zip(a, b))
        return f"{key}[{k}]: {a_name} = {a[k]!r} but {b_name} = {b[k]!r} (first of {n} differing entries)"
    return f"{key}: {a_name} = {a!r} but {b_name} = {b!r}"


def check(inst: dict, cuda: bool = False) -> list[str]:
    """Every disagreement between the oracle and the package's ways on ``inst``, one message each naming the
    instance (as JSON) and the two answers that differ; empty when all agree (``cuda``: see :func:`ways`)."""
    where = json.dumps(inst, sort_keys=True)
    try:
        answers = [("oracle", oracle(inst))]
        initial = first_population(inst)
    except Exception as e:  # noqa: BLE001 - reported, not raised: the other instances still run
        return [f"instance {where}: the oracle raised {e!r}"]
    msgs = [f"instance {where}: {m}" for m in initial_problems(inst, initial)]
    try:
        package_ways = ways(inst, cuda)
    except Exception as e:  # noqa: BLE001
        return [f"instance {where}: setting up the ways raised {e!r}"]
    for name, fn in package_ways:
        try:
            answers.append((name, fn()))
        except Exception as e:  # noqa: BLE001
            msgs.append(f"instance {where}: {name} raised {e!r}")
    for name, ans in answers[1:]:
        msgs += [f"instance {where}: {m}" for m in oracle_problems(inst, name, ans, initial)]
    ref: dict = {}
    for name, ans in answers:
        for key, value in ans.items():
            if key not in ref:
                ref[key] = (name, value)
            elif ref[key][1] != value:
                msgs.append(f"instance {where}: " + _differ(key, ref[key][0], ref[key][1], name, value))
    return msgs


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.differential.ga [N] [SEED] [--cuda]``: check N random instances (default 100)."""
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
        inst = draw(rng, CUDA_MAX_POPULATION, CUDA_MAX_GENERATIONS) if cuda else draw(rng)
        for msg in check(inst, cuda):
            bad += 1
            print(msg)
    print(f"{n} instances, {bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
