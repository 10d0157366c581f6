"""Connector cubes: build a figure from cubes whose faces carry male and female connectors.

Three verbs: :func:`count` (every assembly, and the distinct ones up to the figure's rotations), :func:`solve` (one
assembly, or a proof that none exists) and :func:`ga` (the genetic algorithm of the seed document, extended).

Long because it is the family's whole API: the three verbs, each with its result class and its documentation.

Examples
--------
>>> import puzzlebatch as pb
>>> r = pb.cubes.count("2x2x1", backend="cpu")  # doctest: +SKIP
>>> r.assemblies, r.distinct  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from puzzlebatch import limits as L
from puzzlebatch.api.common import Result, backend_of, internal, options_of, settings_of
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.cubes.model import CubeSet, Figure, check_fits, load_cubes, parse_figure
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.search import SearchSettings
from puzzlebatch.runners.engine.session import RunOptions, Session

__all__ = ["count", "solve", "ga", "problem_of", "CubesCount", "CubesSolution", "CubesGA", "ORDERS"]

#: the branching-cell rules of the batch DFS (``order=``)
ORDERS = ("lookup", "exact", "fixed")
REPAIR_ORDERS = ("constrained", "scan")  # the GA repair's refill: most constrained cell first, or scan order


@dataclasses.dataclass
class CubesCount(Result):
    """The assemblies of a figure.

    Attributes
    ----------
    figure
        The figure's name (``"3x3x3"``, or the voxel file's name).
    n_cells, cubes
        The figure's cells and the cube set's size.
    assemblies
        Every assembly (each choice of cube and rotation per cell), each image under the figure's rotations
        counted.
    distinct
        The assemblies up to the figure's rotations.
    symmetries
        The number of the figure's rotations.
    nodes, seconds, backend, device
        The search's size, its work time (compiling excluded), where it ran.
    complete
        False when stopped early (``max_batches``): the counts so far; the run resumes from ``out``.
    out, run_id
        The results file and run (None when nothing was stored).
    work
        What each worker did.
    verified
        With ``verify=True``: how the second count split the work (None otherwise).
    batches, items_left
        Launches so far and the work items left (not in :meth:`to_dict`).
    """

    figure: str
    n_cells: int
    cubes: int
    assemblies: int
    distinct: int
    symmetries: int
    nodes: int
    seconds: float
    backend: str
    device: str
    complete: bool
    out: str | None = None
    run_id: str | None = None
    work: list | None = None
    verified: dict | None = None
    batches: int = internal(0)
    items_left: int = internal(0)


@dataclasses.dataclass
class CubesSolution(Result):
    """One assembly of a figure (the first in depth-first order over one representative of each symmetry class),
    or a proof that none exists.

    Attributes
    ----------
    figure, n_cells, cubes
        As for :class:`CubesCount`.
    solved
        Whether the figure can be built (False: the whole search tree was searched).
    assembly
        One dict a cell: ``cell`` (x, y, z), ``cube`` (its number), ``rotation`` (0..23) and ``faces`` (the six face
        values as the cube now lies, in the order -Y, +Z, +X, -Z, -X, +Y); None when not solved.
    nodes, seconds, backend, device
        The search's size, its time, where it ran.
    out, run_id
        The results file and run (None when nothing was stored).
    picture
        The drawing written (``png=``), or None.
    """

    figure: str
    n_cells: int
    cubes: int
    solved: bool
    assembly: list[dict] | None
    nodes: int
    seconds: float
    backend: str
    device: str
    out: str | None = None
    run_id: str | None = None
    picture: str | None = None


@dataclasses.dataclass
class CubesGA(Result):
    """A genetic-algorithm run on a figure.

    Attributes
    ----------
    figure, n_cells, cubes
        As for :class:`CubesCount`.
    seed
        The run's random seed.
    solved
        Whether an individual filled the whole figure.
    generation
        The last generation run.
    best_cubes
        The most cubes the best individual placed.
    evaluations, evaluations_per_second
        Individuals evaluated, and how fast.
    seconds, backend, device
        The work time (layer seeding included), where it ran.
    assembly
        The assembly found (as in :class:`CubesSolution`), or None.
    seeding
        With ``seed_layers=True`` on a figure of several layers: the layer run (``layer``, ``layer_generations``,
        ``layer_solutions``, ``layer_seconds``, ``seeds``); None otherwise.
    out, run_id
        The results file and run: per-generation history rows, the ``best`` series and the population's
        checkpoint (None when nothing was stored).
    picture
        The drawing of the best individual written (``png=``), or None.
    """

    figure: str
    n_cells: int
    cubes: int
    seed: int
    solved: bool
    generation: int
    best_cubes: int
    evaluations: int
    seconds: float
    evaluations_per_second: float
    backend: str
    device: str
    assembly: list[dict] | None = None
    seeding: dict | None = None
    out: str | None = None
    run_id: str | None = None
    picture: str | None = None


def problem_of(figure: str | Path | Figure, cubes: str | Path | CubeSet | None = None) -> tuple[Figure, CubeSet]:
    """The figure and the cube set, checked to fit.

    Parameters
    ----------
    figure
        A box ``"LxWxH"`` (``"LxW"`` is one layer), the path of a voxel file (layers of ``#`` for filled cells,
        an empty line between layers), or a :class:`~puzzlebatch.puzzles.cubes.model.Figure`.
    cubes
        The path of a cube-set file (one cube a line ``NUMBER;F0,...,F5``), a
        :class:`~puzzlebatch.puzzles.cubes.model.CubeSet`, or None for the seed document's 27 cubes.

    Returns
    -------
    (Figure, CubeSet)

    Raises
    ------
    PuzzleInputError
        A malformed or unreadable figure or cube set, or a figure with more cells than there are cubes.
    """
    cube_set = cubes if isinstance(cubes, CubeSet) else load_cubes(cubes)
    fig = figure if isinstance(figure, Figure) else parse_figure(str(figure))
    check_fits(fig, cube_set)
    return fig, cube_set


def _check_order(order: str) -> None:
    if order not in ORDERS:
        raise PuzzleInputError(f"--order {order!r}: one of {', '.join(ORDERS)}")


def _knobs(budget, batch_size, frontier) -> dict:
    """The batch DFS's knobs given, checked as the command line checks them."""
    return {name: None if v is None else L.check_value(f"--{name.replace('_', '-')}", v, L.POSITIVE)
            for name, v in (("budget", budget), ("batch_size", batch_size), ("frontier", frontier))}


def _instances(figure: Figure, cube_set: CubeSet) -> dict:
    return {"cells": figure.cells, "cube_numbers": np.array(cube_set.numbers), "cube_faces": cube_set.faces}


def _check_picture(png) -> None:
    """Fail before the work on a picture name that cannot be drawn."""
    if png is not None and Path(png).suffix.lower() not in (".png", ".svg"):
        raise PuzzleInputError(f"--png: cannot draw {str(png)!r}: use a .png or .svg file name")


def _contract(doc: dict) -> dict:
    """A runner's document in the shared names (``cells`` are coordinates everywhere: the count is ``n_cells``)."""
    doc = dict(doc)
    doc["n_cells"] = doc.pop("cells")
    return doc


# -- count -------------------------------------------------------------------------------------------------------
def count(figure: str | Path | Figure, *, cubes: str | Path | CubeSet | None = None, backend: str | Backend = "auto",
          order: str = "lookup", verify: bool = False, out: str | Path | None = None, resume: bool | None = None,
          scheduler: str | None = None, max_batches: int | None = None, budget: int | None = None,
          batch_size: int | None = None, frontier: int | None = None, settings: SearchSettings | None = None,
          options: RunOptions | None = None) -> CubesCount:
    """Count the assemblies of ``figure`` and the distinct ones up to the figure's rotations.

    Parameters
    ----------
    figure
        ``"LxWxH"``, a voxel file or a ``Figure`` (see :func:`problem_of`).
    cubes
        A cube-set file or a ``CubeSet`` (default: the seed document's 27 cubes).
    backend
        ``"auto"``, ``"cpu"`` or ``"cuda"`` (``"cuda"`` without a GPU raises; never a silent fallback).
    order
        The branching cell: ``"lookup"`` (shortest candidate list), ``"exact"`` (fewest fitting placements, with
        forward checking) or ``"fixed"`` (z, y, x order).
    verify
        Count a second time along another split of the work; a mismatch raises
        :class:`~puzzlebatch.errors.CountMismatchError`.
    out
        Store the run in this HDF5 file (default: nothing stored; the command line's default is
        ``results/cubes.h5``).
    resume
        Continue the unfinished count of the same problem in ``out``.
    scheduler
        Run on a Dask cluster (``"local:N"``, an address or a scheduler file).
    max_batches
        Stop after this many launches (``complete`` is then False; ``resume=True`` continues).
    budget, batch_size, frontier
        The batch DFS's knobs: nodes per work item per launch, work items per launch, work items the root is
        expanded into (default: the backend's).
    settings, options
        The batch DFS's knobs and the run's options, for full control (keyword arguments above override them).

    Returns
    -------
    CubesCount

    Raises
    ------
    PuzzleInputError
        A malformed figure or cube set, a figure that cannot fit, an unknown ``order``, or ``resume`` without a
        run to resume.
    puzzlebatch.errors.CountMismatchError
        ``verify=True`` and the two counts differ.
    puzzlebatch.errors.Interrupted
        Ctrl-C: the run was checkpointed in ``out`` first (``resume=True`` continues it).
    """
    from puzzlebatch.runners.cubes import solver

    fig, cube_set = problem_of(figure, cubes)
    _check_order(order)
    knobs = _knobs(budget, batch_size, frontier)
    be = backend_of(backend)
    settings = settings_of(be, settings, **knobs)
    opts = options_of(options, backend, out=out, resume=resume, scheduler=scheduler, max_batches=max_batches)
    params = {"figure": str(fig), "figure_cells": fig.cells.tolist(), "cubes": cube_set.source,
              "cubes_text": cube_set.to_text(), "order": order, "budget": settings.budget,
              "batch_size": settings.batch_size, "frontier_target": settings.frontier_target}

    def same_problem(p: dict) -> bool:
        return all(p.get(k) == params[k] for k in ("figure_cells", "cubes_text", "order"))

    with Session(opts, "cubes", "count", params, be, same_problem=same_problem, label=f"cubes count {fig}",
                 describe=f"figure {fig} with these cubes", series="assemblies",
                 instances=_instances(fig, cube_set)) as s:
        result, rest, totals = solver.count(fig, cube_set, be, settings, frontier=s.frontier, totals=s.totals,
                                            on_batch=s.on_batch, max_batches=opts.max_batches, elapsed=s.elapsed,
                                            pool=s.pool, order=order)
        verified = None
        if verify and result.complete:
            from puzzlebatch.runners.engine import verify as check

            again = check.second_split(settings)
            second = solver.count(fig, cube_set, be, again, pool=s.pool, symmetry=False, order=order)[0]
            name = figure if isinstance(figure, (str, Path)) else fig
            verified = check.compare(f"cubes count --figure {name}", result.to_json(), second.to_json(),
                                     ("assemblies", "distinct"), check.describe(again, symmetry=False))
        doc = s.finish(result.to_json(), result.complete, rest, totals, result.seconds)
    return CubesCount(**_contract(result.to_json()), device=be.device, verified=verified, **doc,
                      batches=totals.batches, items_left=len(rest))


# -- solve -------------------------------------------------------------------------------------------------------
def solve(figure: str | Path | Figure, *, cubes: str | Path | CubeSet | None = None, backend: str | Backend = "auto",
          order: str = "lookup", out: str | Path | None = None, scheduler: str | None = None,
          png: str | Path | None = None, budget: int | None = None, batch_size: int | None = None,
          frontier: int | None = None, settings: SearchSettings | None = None,
          options: RunOptions | None = None) -> CubesSolution:
    """One assembly of ``figure`` (the first in depth-first order over one representative of each symmetry class),
    or a proof that none exists.

    Parameters
    ----------
    figure, cubes, backend, order, scheduler, budget, batch_size, frontier, options
        As for :func:`count`.
    out
        Also record the run (and the assembly) in this HDF5 file (default: nothing stored).
    png
        Draw the assembly (``.png`` or ``.svg``).
    settings
        The batch DFS's knobs (default: the first-assembly settings of the backend,
        :func:`puzzlebatch.runners.cubes.solver.solve_settings`).

    Returns
    -------
    CubesSolution
        ``solved`` is False when the whole tree holds no assembly.

    Raises
    ------
    PuzzleInputError
        A malformed figure or cube set, a figure that cannot fit, an unknown ``order``, or a picture that is
        neither ``.png`` nor ``.svg``.
    """
    from puzzlebatch.runners.cubes import solver

    fig, cube_set = problem_of(figure, cubes)
    _check_order(order)
    _check_picture(png)
    knobs = _knobs(budget, batch_size, frontier)
    be = backend_of(backend)
    settings = settings_of(be, settings or solver.solve_settings(be), **knobs)
    opts = options_of(options, backend, out=out, scheduler=scheduler)
    with Session(opts, "cubes", "solve", {"figure": str(fig), "cubes": cube_set.source}, be, keep=False,
                 instances=_instances(fig, cube_set)) as s:
        result = solver.solve(fig, cube_set, be, settings, order=order, pool=s.pool)
        if result.solved:
            a = result.assembly
            s.append_items(cell=np.array([r["cell"] for r in a]), cube=np.array([r["cube"] for r in a]),
                           rotation=np.array([r["rotation"] for r in a]), faces=np.array([r["faces"] for r in a]))
        doc = s.finish(result.to_json(), True, seconds=result.seconds)
    doc.pop("work", None)
    picture = None
    if png is not None and result.solved:
        from puzzlebatch.results.cubes_pictures import draw_assembly

        picture = str(draw_assembly(result.assembly, png, title=f"{fig} from {len(cube_set)} cubes"))
    return CubesSolution(**_contract(result.to_json()), device=be.device, picture=picture, **doc)


# -- ga ----------------------------------------------------------------------------------------------------------
def ga_config(*, population: int = 256, generations: int = 1000, mutation: float = 0.1, parents: int = 2,
              selection: str = "roulette", tournament: int = 2, replacement: str = "carrier", block: float = 0.0,
              plane: float = 0.5, ruin: float = 0.0, grow: bool = False, repair: int = 0, radius: int = 7,
              repair_order: str = "constrained", islands: int = 1, migrate_every: int = 10):
    """The GA's settings and the cubes operators from plain values, checked (the parameters of :func:`ga`).

    Parameters
    ----------
    population, generations, mutation, parents, selection, tournament, replacement, block, plane, ruin, grow
        As for :func:`ga`.
    repair, radius, repair_order, islands, migrate_every
        As for :func:`ga`.

    Returns
    -------
    (GAConfig, Operators)
        :class:`puzzlebatch.runners.engine.ga.GAConfig` and :class:`puzzlebatch.runners.cubes.ga.Operators`.

    Raises
    ------
    PuzzleInputError
        A value out of its range (named as the command line's option).
    """
    from puzzlebatch.runners.cubes.ga import Operators
    from puzzlebatch.runners.engine.ga import GAConfig

    population = L.check_value("--population", population, L.POSITIVE)
    L.POPULATION.check(population, f"--population {population}")
    generations = L.check_value("--generations", generations, L.POSITIVE)
    mutation = L.check_value("--mutation", mutation, L.PROBABILITY)
    parents = L.check_value("--parents", parents, L.POSITIVE)
    tournament = L.check_value("--tournament", tournament, L.POSITIVE)
    islands = L.check_value("--islands", islands, L.POSITIVE)
    migrate_every = L.check_value("--migrate-every", migrate_every, L.POSITIVE)
    block, plane, ruin = (L.check_value(f"--{name}", v, L.PROBABILITY)
                          for name, v in (("block", block), ("plane", plane), ("ruin", ruin)))
    config = GAConfig(population=population, generations=generations, p_mutation=mutation, n_parents=parents,
                      selection=selection, tournament_size=tournament, replacement=replacement, islands=islands,
                      migrate_every=migrate_every)
    config.check()
    repair = L.check_value("--repair", repair, L.REPAIR)
    radius = L.check_value("--radius", radius, L.REPAIR)
    if radius < 1:
        raise PuzzleInputError(f"--radius {radius}: must be at least 1")
    if repair_order not in REPAIR_ORDERS:
        raise PuzzleInputError(f"--repair-order {repair_order!r}: one of {', '.join(REPAIR_ORDERS)}")
    return config, Operators(p_block=block, p_plane=plane, p_ruin=ruin, grow=bool(grow), repair=repair,
                             radius=radius, mrv=repair_order == "constrained")


def ga(figure: str | Path | Figure, *, cubes: str | Path | CubeSet | None = None, backend: str | Backend = "auto",
       seed: int = 0, population: int = 256, generations: int = 1000, mutation: float = 0.1, parents: int = 2,
       selection: str = "roulette", tournament: int = 2, replacement: str = "carrier", block: float = 0.0,
       plane: float = 0.5, ruin: float = 0.0, grow: bool = False, repair: int = 0, radius: int = 7,
       repair_order: str = "constrained", islands: int = 1, migrate_every: int = 10, seed_layers: bool = False,
       out: str | Path | None = None, resume: bool | None = None, checkpoint_every: float | None = None,
       progress: bool | None = None, png: str | Path | None = None, options: RunOptions | None = None) -> CubesGA:
    """Build ``figure`` with the genetic algorithm (the seed document's method, extended).

    Parameters
    ----------
    figure, cubes, backend
        As for :func:`count`.
    seed
        The random seed.
    population, generations
        Individuals, and the generation limit (the run stops at the first individual that fills the figure).
    mutation
        Mutation probability per child.
    parents
        Carrier plus donors per child (more than 2: multi-parent crossover).
    selection, tournament
        The carrier's choice: ``"roulette"`` (fitness-proportional, the document's) or ``"tournament"`` (of
        ``tournament`` individuals).
    replacement
        ``"carrier"``: a child replaces its carrier if not worse (the document's elitism); ``"plus"``: the best of
        parents and children survive.
    block, plane
        The probability that a crossover moves a whole row or plane of the donor, and given that, a plane.
    ruin
        The probability that a mutation empties a hole's neighbourhood and refills the figure from every unused
        cube, instead of moving one cube.
    grow
        Place cubes next to placed ones first.
    repair, radius, repair_order
        The memetic repair: with ``repair`` > 0 every mutation takes up to ``radius`` cubes out around a hole and
        refills the empty cells by a backtracking search of at most ``repair`` nodes (what it holds at the budget
        is kept and topped up greedily).  ``repair_order`` ``"constrained"`` branches on the cell with the fewest
        fitting placements first; ``"scan"`` fills cells in scan order.  ``grow=True, ruin=1, mutation=0.5,
        repair=300`` builds the 3x3x3 from the 27 cubes within a few generations.
    islands, migrate_every
        Split the population into ``islands`` equal islands (carrier and donors from the child's own island);
        every ``migrate_every`` generations each island's best replaces the next island's worst (a ring).
    seed_layers
        Seed the population with GA-built bottom layers (figures of several layers).
    out
        Store the run in this HDF5 file: a history row per generation, the ``best`` series and the population's
        checkpoint (default: nothing stored; the command line's default is ``results/cubes.h5``).
    resume
        Continue the unfinished GA run of the same figure, cubes, seed and settings in ``out`` (from its last
        checkpoint: the generations after it are run again, with the same random states).
    checkpoint_every
        Seconds between commits of the history and checkpoints of the population (default 30).
    progress
        Show a progress bar on stderr.
    png
        Draw the best individual (``.png`` or ``.svg``): the whole assembly when the figure was built, else the
        cubes the best individual placed, in their cells.
    options
        The run's options, for full control (keyword arguments above override them).

    Returns
    -------
    CubesGA

    Raises
    ------
    PuzzleInputError
        A malformed figure or cube set, a figure that cannot fit, a setting out of range, or ``resume`` without
        a run to resume.
    puzzlebatch.errors.Interrupted
        Ctrl-C: the run keeps its last checkpoint (the population) and is marked interrupted; ``resume=True``
        continues it.
    """
    from puzzlebatch.runners.cubes import ga as cubes_ga
    from puzzlebatch.runners.engine.ga import GeneticAlgorithm

    seed = L.check_value("--seed", seed, L.SEED)
    fig, cube_set = problem_of(figure, cubes)
    _check_picture(png)
    config, ops = ga_config(population=population, generations=generations, mutation=mutation, parents=parents,
                            selection=selection, tournament=tournament, replacement=replacement, block=block,
                            plane=plane, ruin=ruin, grow=grow, repair=repair, radius=radius,
                            repair_order=repair_order, islands=islands, migrate_every=migrate_every)
    be = backend_of(backend)
    opts = options_of(options, backend, out=out, resume=resume, progress=progress)
    if checkpoint_every is not None:
        opts = dataclasses.replace(opts, checkpoint_every=L.check_value("--checkpoint-every", checkpoint_every,
                                                                        L.NON_NEGATIVE_SECONDS))
    seed_layers = bool(seed_layers)
    params = {"figure": str(fig), "figure_cells": fig.cells.tolist(), "cubes": cube_set.source,
              "cubes_text": cube_set.to_text(), "config": dict(config.__dict__), "operators": dict(ops.__dict__),
              "seed_layers": seed_layers, "seed": seed}

    def same_problem(p: dict) -> bool:
        return all(p.get(k) == params[k] for k in ("figure_cells", "cubes_text", "config", "operators",
                                                   "seed_layers", "seed"))

    with Session(opts, "cubes", "ga", params, be, same_problem=same_problem, label=f"cubes ga {fig}",
                 describe=f"figure {fig} with seed {seed} and these settings", instances=_instances(fig, cube_set),
                 pool=False, seed=seed) as s:
        state, seeding = None, None
        if s.restored is not None:
            state, seeding = cubes_ga.restore(s)
        if state is None and seed_layers and len({int(z) for z in fig.cells[:, 2]}) > 1:
            seeds, seeding = cubes_ga.layer_seeds(fig, cube_set, be, config, ops, seed,
                                                  wanted=max(2, config.population // 4))
            if s.run is not None:
                s.run.set_result({"seeding": seeding})
            state = GeneticAlgorithm(cubes_ga.ga_problem(fig, cube_set, ops), be, config, seed).start(seeds)
        recorder = cubes_ga.recorder(s, seeding, s.progress(f"cubes ga {fig}", total=config.generations, unit="gen"))
        result, state = cubes_ga.run_ga(fig, cube_set, be, config, ops, seed, state=state, on_generation=recorder,
                                        seeding=seeding)
        recorder.commit(state)
        complete = result.success or state.generation >= config.generations
        doc = s.finish(result.to_json(), complete, seconds=result.seconds)
    doc.pop("work", None)
    fields = _contract(result.to_json())
    fields["solved"] = fields.pop("success")  # the shared name of a first-solution verb's answer
    picture = None
    if png is not None and result.best:
        from puzzlebatch.results.cubes_pictures import draw_assembly

        what = "built" if result.success else f"best: {result.best_cubes} of {fig.n_cells} cubes"
        picture = str(draw_assembly(result.best, png, title=f"{fig} by the GA, seed {seed}, generation "
                                                             f"{result.generation} ({what})"))
    return CubesGA(**fields, device=be.device, picture=picture, **doc)
