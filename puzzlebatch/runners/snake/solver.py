"""Snake cubes on the batch DFS: counting embeddings and finding the first folding."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.puzzles.snake import encode, rules
from puzzlebatch.puzzles.snake.model import Box, Chain, check_fits, is_valid_embedding
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.search import BatchDFS, Frontier, SearchProblem, SearchSettings, SearchTotals


def problem(chain: Chain, box: Box) -> SearchProblem:
    check_fits(chain, box)
    return SearchProblem(rules=rules, tables=encode.tables(chain, box), root=encode.root_state(box),
                         goal=box.volume)


def make_canonicalize(box: Box):
    """Merge frontier items that are images of each other under the box's symmetries.

    A symmetry maps the subtree below a prefix onto the subtree below its image (straight stays straight, a
    corner stays a corner), so one representative per class, weighted by the class size, counts them all.
    """
    perms = box.symmetries()
    w = encode.n_words(box.volume)

    def canonicalize(frontier: Frontier) -> Frontier:
        fresh = frontier.los == 0
        depth = int(frontier.depths.max())
        if not fresh.all() or int(frontier.depths.min()) != depth or depth == 0:
            return frontier  # only a uniform layer of fresh items is merged
        prefix = frontier.states[:, w:w + depth]
        best = perms[0][prefix]
        rows = np.arange(len(prefix))
        for g in perms[1:]:
            img = g[prefix]
            diff = img != best
            first = diff.argmax(axis=1)
            less = diff.any(axis=1) & (img[rows, first] < best[rows, first])
            best[less] = img[less]
        _, rep, inverse = np.unique(best, axis=0, return_index=True, return_inverse=True)
        weights = np.zeros(len(rep), np.int64)
        np.add.at(weights, inverse.ravel(), frontier.weights)
        order = np.argsort(rep)  # keep the representatives in frontier (DFS) order
        merged = frontier.take(rep[order])
        merged.weights = weights[order]
        return merged

    return canonicalize


@dataclass
class CountResult:
    chain: str
    box: str
    embeddings: int
    distinct: int
    symmetries: int
    nodes: int
    seconds: float
    backend: str
    complete: bool

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass
class SolveResult:
    chain: str
    box: str
    solved: bool
    cells: list[list[int]] | None  # (x, y, z) of cube 1..N
    nodes: int
    seconds: float
    backend: str

    def to_json(self) -> dict:
        return dict(self.__dict__)


def searcher(chain: Chain, box: Box, backend: Backend, settings: SearchSettings | None = None,
             pool=None, symmetry: bool = True) -> BatchDFS:
    """The batch DFS of ``chain`` in ``box``; ``symmetry`` merges frontier items that are images of each other."""
    return BatchDFS(problem(chain, box), backend, settings,
                    canonicalize=make_canonicalize(box) if symmetry else None, pool=pool)


def count(chain: Chain, box: Box, backend: Backend, settings: SearchSettings | None = None, *,
          frontier: Frontier | None = None, totals: SearchTotals | None = None, on_batch=None,
          max_batches: int | None = None, elapsed: float = 0.0, pool=None,
          sink=None, symmetry: bool = True) -> tuple[CountResult, Frontier, SearchTotals]:
    """Count the embeddings of ``chain`` in ``box`` (and the distinct ones up to the box's symmetries); ``pool``
    runs the work items elsewhere (:mod:`puzzlebatch.runners.engine.distributed`).

    ``sink(cells, weights)``, if given, receives the embeddings searched: rows of the cell index of cube
    1..N, each standing for ``weight`` embeddings (itself and its images under the symmetries merged into its
    work item); the weights add up to the count."""
    t0 = work_clock()
    dfs = searcher(chain, box, backend, settings, pool, symmetry)
    w = encode.n_words(box.volume)
    to_cells = None if sink is None else (lambda states, weights: sink(states[:, w:w + box.volume], weights))
    totals, rest = dfs.count(frontier, totals, on_batch=on_batch, max_batches=max_batches, sink=to_cells)
    n_sym = len(box.symmetries())
    complete = len(rest) == 0
    if complete and totals.count % n_sym:
        raise AssertionError(f"{totals.count} embeddings is not a multiple of the {n_sym} symmetries")
    result = CountResult(chain=chain.letters, box=str(box), embeddings=totals.count,
                         distinct=totals.count // n_sym, symmetries=n_sym, nodes=totals.nodes,
                         seconds=elapsed + work_clock() - t0, backend=backend.name, complete=complete)
    return result, rest, totals


def solve(chain: Chain, box: Box, backend: Backend, settings: SearchSettings | None = None,
          pool=None) -> SolveResult:
    """One folding, or none: the first in depth-first order over one representative of each symmetry class
    (the same on a cluster: ``pool``)."""
    t0 = work_clock()
    dfs = searcher(chain, box, backend, settings, pool)
    totals, _ = dfs.first()
    cells = None
    if totals.solutions:
        idx = encode.cells_of(totals.solutions[0], box.volume, box)
        if not is_valid_embedding(chain, box, idx):  # independent check before anything is reported
            raise AssertionError(f"search returned an invalid folding: {idx.tolist()}")
        cells = encode.coords_of(idx, box).tolist()
    return SolveResult(chain=chain.letters, box=str(box), solved=cells is not None, cells=cells,
                       nodes=totals.nodes, seconds=work_clock() - t0, backend=backend.name)
