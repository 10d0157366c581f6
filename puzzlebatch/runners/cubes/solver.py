"""Connector cubes on the batch DFS: counting assemblies of a figure and finding one (or proving none)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.puzzles.cubes import encode, rules
from puzzlebatch.puzzles.cubes.model import CubeSet, Figure, check_assembly, check_fits, rotated_faces
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.search import BatchDFS, Frontier, SearchProblem, SearchSettings, SearchTotals, \
    default_settings


def problem(figure: Figure, cubes: CubeSet, order: str = "lookup") -> SearchProblem:
    """The search tree of a figure; ``order`` picks the branching cell (``lookup``, ``exact``, ``fixed``; see
    :func:`puzzlebatch.puzzles.cubes.rules.select`)."""
    check_fits(figure, cubes)
    tab = encode.tables(figure, cubes, order)
    return SearchProblem(rules=rules, tables=tab, root=encode.root_state(figure, cubes, tab), goal=figure.n_cells)


def make_canonicalize(figure: Figure, cubes: CubeSet):
    """Merge frontier items whose partial assemblies are images of each other under the figure's rotations.

    A rotation g of the figure maps the completions of a partial assembly one to one onto the completions of its
    image (each cube keeps its number, its rotation is composed with g), so one representative per class,
    weighted by the number of members, counts them all.  The representative is the class's first member in
    frontier order, so the DFS order of a first-solution search is kept.
    """
    n_cubes = len(cubes)

    def canonicalize(frontier: Frontier) -> Frontier:
        if not (frontier.los == 0).all():
            return frontier
        pl = frontier.states[:, n_cubes:n_cubes + figure.n_cells]
        images = encode.symmetry_images(pl, figure)  # (|G|, n, cells)
        best = images[0].copy()
        rows = np.arange(len(pl))
        for img in images[1:]:
            diff = img != best
            first = diff.argmax(axis=1)
            less = diff.any(axis=1) & (img[rows, first] < best[rows, first])
            best[less] = img[less]
        _, rep, inverse = np.unique(best, axis=0, return_index=True, return_inverse=True)
        weights = np.zeros(len(rep), np.int64)
        np.add.at(weights, inverse.ravel(), frontier.weights)
        order = np.argsort(rep)
        merged = frontier.take(rep[order])
        merged.weights = weights[order]
        return merged

    return canonicalize


def searcher(figure: Figure, cubes: CubeSet, backend: Backend, settings: SearchSettings | None = None,
             symmetry: bool = True, order: str = "lookup", pool=None) -> BatchDFS:
    return BatchDFS(problem(figure, cubes, order), backend, settings,
                    canonicalize=make_canonicalize(figure, cubes) if symmetry else None, pool=pool)


@dataclass
class CountResult:
    figure: str
    cells: int
    cubes: int
    assemblies: int
    distinct: int
    symmetries: int
    nodes: int
    seconds: float
    backend: str
    complete: bool

    def to_json(self) -> dict:
        return dict(self.__dict__)


def count(figure: Figure, cubes: CubeSet, backend: Backend, settings: SearchSettings | None = None, *,
          frontier: Frontier | None = None, totals: SearchTotals | None = None, on_batch=None,
          max_batches: int | None = None, elapsed: float = 0.0,
          symmetry: bool = True, order: str = "lookup", pool=None) -> tuple[CountResult, Frontier, SearchTotals]:
    """Count the assemblies of ``figure`` (every choice of cube and rotation per cell) and the distinct ones up to
    the figure's rotations (the group acts freely: a rotation turns every cube, so no assembly is its own
    image).  ``pool`` runs the work items elsewhere (:mod:`puzzlebatch.runners.engine.distributed`)."""
    t0 = work_clock()
    dfs = searcher(figure, cubes, backend, settings, symmetry, order, pool)
    totals, rest = dfs.count(frontier, totals, on_batch=on_batch, max_batches=max_batches)
    n_sym = len(figure.symmetries())
    complete = len(rest) == 0
    if complete and totals.count % n_sym:
        raise AssertionError(f"{totals.count} assemblies is not a multiple of the {n_sym} symmetries")
    result = CountResult(figure=str(figure), cells=figure.n_cells, cubes=len(cubes), assemblies=totals.count,
                         distinct=totals.count // n_sym, symmetries=n_sym, nodes=totals.nodes,
                         seconds=elapsed + work_clock() - t0, backend=backend.name, complete=complete)
    return result, rest, totals


def assembly_doc(figure: Figure, cubes: CubeSet, placements: list[tuple[int, int]]) -> list[dict]:
    """The JSON contract: per cell its position, cube number, rotation and face values as they now lie."""
    return [{"cell": [int(v) for v in figure.cells[i]], "cube": int(n), "rotation": int(r),
             "faces": [int(v) for v in rotated_faces(cubes.faces[cubes.index_of(n)], r)]}
            for i, (n, r) in enumerate(placements)]


@dataclass
class SolveResult:
    figure: str
    cells: int
    cubes: int
    solved: bool
    assembly: list[dict] | None
    nodes: int
    seconds: float
    backend: str

    def to_json(self) -> dict:
        return dict(self.__dict__)


def solve_settings(backend: Backend) -> SearchSettings:
    """Settings for a first-assembly search.

    On the CPU one item at a time with a large budget: the first assembly of the 3x3x3 lies some tens of thousands
    of nodes into the tree, and items searched beside it in parallel are mostly wasted work (measured: 70 ms with 1
    item per launch against 290 ms with 64).  GPUs keep the foundation's wide launches.
    """
    s = default_settings(backend)
    if backend.name == "cpu":
        s.frontier_target, s.first_batch_size, s.budget = 2, 1, 1 << 20
    return s


def solve(figure: Figure, cubes: CubeSet, backend: Backend, settings: SearchSettings | None = None,
          order: str = "lookup", pool=None) -> SolveResult:
    """One assembly (the first in depth-first order over one representative per symmetry class), or a proof that
    none exists (the whole tree searched)."""
    t0 = work_clock()
    dfs = searcher(figure, cubes, backend, settings or solve_settings(backend), order=order, pool=pool)
    totals, _ = dfs.first()
    assembly = None
    if totals.solutions:
        placements = encode.decode(encode.placements_of(totals.solutions[0], figure, cubes), cubes)
        problem_text = check_assembly(figure, cubes, placements)  # independent check before reporting
        if problem_text:
            raise AssertionError(f"search returned an invalid assembly: {problem_text}")
        assembly = assembly_doc(figure, cubes, placements)
    return SolveResult(figure=str(figure), cells=figure.n_cells, cubes=len(cubes), solved=assembly is not None,
                       assembly=assembly, nodes=totals.nodes, seconds=work_clock() - t0, backend=backend.name)
