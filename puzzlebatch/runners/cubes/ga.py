"""Connector cubes on the generic GA engine: the seed document's method, done right and extended."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from puzzlebatch.runners.engine.ga import GAConfig, GAProblem, GAResult, GAState, GeneticAlgorithm
from puzzlebatch.puzzles.cubes import encode, ga_rules
from puzzlebatch.puzzles.cubes.model import N_ROT, CubeSet, Figure, check_assembly, check_fits
from puzzlebatch.runners.engine.backend import Backend


@dataclass
class Operators:
    """Operator settings (``params`` of :mod:`puzzlebatch.puzzles.cubes.ga_rules`).

    The defaults are the document's: single-cube crossover only, mutation moves a cube."""

    p_block: float = 0.0  # probability that a crossover transplants a row or a plane
    p_plane: float = 0.5  # given a transplant, probability of a plane rather than a row
    p_ruin: float = 0.0  # probability that a mutation is a ruin-and-recreate move instead of a cube move
    grow: bool = False  # place cubes next to placed ones first
    repair: int = 0  # node budget of the memetic repair that replaces the mutation (0: off)
    radius: int = 7  # cubes the repair takes out around a hole
    mrv: bool = False  # the repair branches on the most constrained cell first (instead of scan order)

    def params(self) -> np.ndarray:
        return np.array([self.p_block, self.p_plane, self.p_ruin, 1.0 if self.grow else 0.0, float(self.repair),
                         float(self.radius), 1.0 if self.mrv else 0.0], np.float64)


def ga_tables(figure: Figure, cubes: CubeSet) -> np.ndarray:
    header = np.zeros(ga_rules.G_HEADER, np.int64)
    nbr = figure.neighbours().ravel()
    faces = encode.placement_faces(cubes).ravel()
    xyz = figure.cells.ravel()
    header[ga_rules.G_CELLS] = figure.n_cells
    header[ga_rules.G_CUBES] = len(cubes)
    header[ga_rules.G_NBR] = ga_rules.G_HEADER
    header[ga_rules.G_FACES] = ga_rules.G_HEADER + len(nbr)
    header[ga_rules.G_XYZ] = ga_rules.G_HEADER + len(nbr) + len(faces)
    return np.concatenate([header, nbr, faces, xyz]).astype(np.int64)


def make_init(figure: Figure, cubes: CubeSet):
    """The document's start: each individual holds one cube (different ones while they last), here in a random
    cell and rotation."""

    def init(rng: np.random.Generator, n: int) -> np.ndarray:
        pop = np.full((n, figure.n_cells), -1, np.int64)
        order = rng.permutation(len(cubes))
        for i in range(n):
            cube = order[i % len(cubes)]
            pop[i, rng.integers(figure.n_cells)] = cube * N_ROT + rng.integers(N_ROT)
        return pop

    return init


def ga_problem(figure: Figure, cubes: CubeSet, ops: Operators | None = None) -> GAProblem:
    check_fits(figure, cubes)
    return GAProblem(rules=ga_rules, tables=ga_tables(figure, cubes), params=(ops or Operators()).params(),
                     init=make_init(figure, cubes), target=float(figure.n_cells), name=str(figure))


def bottom_layer(figure: Figure) -> Figure:
    cells = figure.cells[figure.cells[:, 2] == 0]
    return Figure.from_cells(cells, f"{figure} layer z=0")


def layer_seeds(figure: Figure, cubes: CubeSet, backend: Backend, config: GAConfig, ops: Operators, seed: int,
                wanted: int) -> tuple[np.ndarray, dict]:
    """Seeding from sub-solutions (the document's proposal): solve the figure's bottom layer with the GA, keep the
    distinct complete layers, and lay each one into every z level of the figure whose cells match it.

    Returns the seed genomes for the figure and a summary of the layer run.
    """
    layer = bottom_layer(figure)
    ga = GeneticAlgorithm(ga_problem(layer, cubes, ops), backend, config, seed)
    result, state = ga.run(until_solved=wanted)
    arrays = state.arrays()  # on the host
    full = np.unique(arrays["population"][arrays["fitness"] >= layer.n_cells], axis=0)
    index = figure.index()
    seeds = []
    heights = sorted({int(z) for z in figure.cells[:, 2]})
    for g in full:
        for z in heights:
            genome = np.full(figure.n_cells, -1, np.int64)
            ok = True
            for (x, y, _), p in zip(layer.cells.tolist(), g):
                k = index.get((x, y, z))
                if k is None:
                    ok = False
                    break
                genome[k] = p
            if ok:
                seeds.append(genome)
    rng = np.random.default_rng(seed)
    seeds = np.array(seeds, np.int64).reshape(-1, figure.n_cells)
    rng.shuffle(seeds)
    info = {"layer": str(layer), "layer_generations": result.generation, "layer_solutions": int(len(full)),
            "layer_seconds": result.seconds, "seeds": int(len(seeds))}
    return seeds, info


@dataclass
class CubesGAResult:
    figure: str
    cells: int
    cubes: int
    seed: int
    success: bool
    generation: int
    best_cubes: int
    evaluations: int
    seconds: float
    evaluations_per_second: float
    backend: str
    assembly: list[dict] | None
    seeding: dict | None
    best: list[dict] | None = None  # the best individual's cubes, as ``assembly`` but only its filled cells

    def to_json(self) -> dict:
        doc = dict(self.__dict__)
        doc.pop("best")  # drawn (``--png``), not part of the JSON contract
        return doc


def finish(figure: Figure, cubes: CubeSet, result: GAResult, seed: int, backend: Backend,
           seeding: dict | None = None) -> CubesGAResult:
    """Check the best genome independently and describe the run."""
    from puzzlebatch.runners.cubes.solver import assembly_doc

    filled = result.best >= 0
    if filled.any():
        # The best genome restricted to its filled cells must be a valid (partial) assembly.
        part = Figure.from_cells(figure.cells[filled], "part")
        index = figure.index()
        origin = figure.cells[filled].min(axis=0)
        genes = result.best[[index[tuple(c)] for c in (part.cells + origin).tolist()]]
        problem = check_assembly(part, cubes, encode.decode(genes, cubes))
        if problem:
            raise AssertionError(f"GA produced an invalid partial assembly: {problem}")
    assembly = None
    if result.success:
        assembly = assembly_doc(figure, cubes, encode.decode(result.best, cubes))
    best = None
    if filled.any():  # the filled cells where they lie in the figure
        docs = assembly_doc(figure, cubes, encode.decode(result.best[filled], cubes))
        best = [doc | {"cell": [int(v) for v in figure.cells[k]]} for k, doc in zip(np.flatnonzero(filled), docs)]
    return CubesGAResult(figure=str(figure), cells=figure.n_cells, cubes=len(cubes), seed=seed,
                         success=result.success, generation=result.generation, best_cubes=int(result.best_fitness),
                         evaluations=result.evaluations, seconds=result.seconds + (seeding or {}).get(
                             "layer_seconds", 0.0),
                         evaluations_per_second=result.evaluations_per_second, backend=backend.name,
                         assembly=assembly, seeding=seeding, best=best)


def run_ga(figure: Figure, cubes: CubeSet, backend: Backend, config: GAConfig, ops: Operators, seed: int, *,
           seed_layers: bool = False, state: GAState | None = None, on_generation=None,
           seeding: dict | None = None) -> tuple[CubesGAResult, GAState]:
    """One GA run on ``figure``; ``seed_layers`` seeds the population from GA-built bottom layers."""
    ga = GeneticAlgorithm(ga_problem(figure, cubes, ops), backend, config, seed)
    if state is None:
        initial = None
        if seed_layers and len({int(z) for z in figure.cells[:, 2]}) > 1:
            initial, seeding = layer_seeds(figure, cubes, backend, config, ops, seed,
                                           wanted=max(2, config.population // 4))
        state = ga.start(initial)
    result, state = ga.run(state, on_generation=on_generation)
    return finish(figure, cubes, result, seed, backend, seeding), state


# -- a run in a session: history rows and the population's checkpoints ------------------------------------------
class _SessionRun:
    """What :class:`~puzzlebatch.runners.engine.ga_history.GARecorder` writes to, handed to a
    :class:`~puzzlebatch.runners.engine.session.Session`: history rows, the ``best`` series and the population's
    checkpoint (with the rows it covers, the GA's own seconds and the layer seeding)."""

    def __init__(self, session, seeding: dict | None) -> None:
        self.session, self.seeding = session, seeding

    def append_items(self, **columns) -> None:
        self.session.append_items(**columns)

    def append_series(self, name: str, step, value) -> None:
        self.session.append_series(name, step, value)

    def save_checkpoint(self, arrays: dict, meta: dict) -> None:
        # Copies: on the CPU the state's arrays are the population itself, which the next generations change in
        # place, and the session keeps this checkpoint as what Ctrl-C saves.  The session's "seconds" is the run's
        # whole work; the GA's own (breeding only) goes on as "ga_seconds".
        arrays = {k: np.array(v, copy=True) for k, v in arrays.items()}
        self.session.checkpoint(arrays, meta | {"ga_seconds": meta["seconds"], "seeding": self.seeding}, force=True)


def recorder(session, seeding: dict | None, progress=None):
    """The ``on_generation`` callback of a GA run in ``session``: a history row a generation, committed with a
    checkpoint of the population every ``checkpoint_every`` seconds (and by its ``commit(state)``)."""
    from puzzlebatch.runners.engine.ga_history import GARecorder

    return GARecorder(_SessionRun(session, seeding), session.options.checkpoint_every, progress)


def restore(session) -> tuple[GAState, dict | None]:
    """The population and the layer seeding of the run ``session`` resumes (its :attr:`restored` checkpoint)."""
    from puzzlebatch.errors import PuzzleInputError

    arrays, values = session.restored
    try:
        state = GAState.from_checkpoint(arrays, values | {"seconds": values.get("ga_seconds", values["seconds"])})
    except (KeyError, TypeError, ValueError) as exc:
        raise PuzzleInputError(f"--resume: {session.out}: run {session.run.id}: the checkpoint is damaged "
                               f"({exc})") from None
    seeding = values.get("seeding") or (session.run.attrs.get("result") or {}).get("seeding")
    return state, seeding
