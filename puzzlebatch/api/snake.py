"""Snake cubes: fold a chain of straight and corner cubes into a box.

Examples
--------
>>> import puzzlebatch as pb
>>> r = pb.snake.count("3,2,3,2,3", box="3x3x1", backend="cpu")  # doctest: +SKIP
>>> r.embeddings, r.distinct  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from puzzlebatch.api.common import Result, backend_of, options_of, settings_of
from puzzlebatch.puzzles.snake.model import SOURCE_CHAIN, Box, Chain, check_fits, default_box, parse_box, parse_chain
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.search import SearchSettings
from puzzlebatch.runners.engine.session import RunOptions, Session

__all__ = ["count", "solve", "SnakeCount", "SnakeSolution", "SOURCE_CHAIN"]


@dataclasses.dataclass
class SnakeCount(Result):
    """The embeddings of a chain in a box.

    Attributes
    ----------
    chain, box
        The chain's letters and the box (``"3x3x3"``).
    embeddings
        Every folding, each image under the box's symmetries counted.
    distinct
        The foldings up to the box's symmetries.
    symmetries
        The box's symmetry group's order.
    nodes, seconds, backend, device
        The search's size, its work time (compiling excluded), where it ran.
    complete
        False when stopped early (``max_batches``): the counts so far; the run resumes from ``out``.
    out, run_id
        The results file and run (None when nothing was stored).
    """

    chain: str
    box: str
    embeddings: int
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


@dataclasses.dataclass
class SnakeSolution(Result):
    """The first folding of a chain (depth-first order over one representative of each symmetry class).

    Attributes
    ----------
    solved
        Whether the chain folds into the box (False: the whole tree was searched).
    cells
        ``(x, y, z)`` of cube 1..N, or None.
    """

    chain: str
    box: str
    solved: bool
    cells: list[list[int]] | None
    nodes: int
    seconds: float
    backend: str
    device: str
    out: str | None = None
    run_id: str | None = None
    picture: str | None = None


def problem_of(chain: str | Chain = SOURCE_CHAIN, box: str | Box | None = None) -> tuple[Chain, Box]:
    """The chain and box from text (``"FJJF..."`` or ``"3,2,2,..."``; ``"AxBxC"``) or objects; checks the chain
    fits (:class:`~puzzlebatch.errors.PuzzleInputError` otherwise)."""
    chain = chain if isinstance(chain, Chain) else parse_chain(chain)
    box = box if isinstance(box, Box) else (parse_box(box) if box else default_box(chain))
    check_fits(chain, box)
    return chain, box


def _params(chain: Chain, box: Box, settings: SearchSettings, all_rows: bool) -> dict:
    return {"chain": chain.letters, "box": str(box), "budget": settings.budget, "batch_size": settings.batch_size,
            "frontier_target": settings.frontier_target, "all": all_rows}


def count(chain: str | Chain = SOURCE_CHAIN, box: str | Box | None = None, *, backend: str | Backend = "auto",
          all: bool = False, verify: bool = False, out: str | Path | None = None, resume: bool | None = None,
          scheduler: str | None = None, max_batches: int | None = None, settings: SearchSettings | None = None,
          options: RunOptions | None = None) -> SnakeCount:
    """Count the embeddings of ``chain`` in ``box`` and the distinct foldings up to the box's symmetries.

    Parameters
    ----------
    chain
        Letters ``F``/``J`` (one a cube) or segment lengths ``"3,2,2,..."``; default: the source document's 3x3x3
        chain.
    box
        ``"AxBxC"`` (default: the n x n x n cube of the chain's length).
    backend
        ``"auto"``, ``"cpu"`` or ``"cuda"`` (``"cuda"`` without a GPU raises; never a silent fallback).
    all
        Also store every folding searched (item rows ``cells`` and ``weight``).
    verify
        Count a second time along another split of the work; a mismatch raises
        :class:`~puzzlebatch.errors.CountMismatchError`.
    out
        Store the run in this HDF5 file (default: nothing stored; the command line's default is
        ``results/snake.h5``).
    resume
        Continue the unfinished count of the same problem in ``out``.
    scheduler
        Run on a Dask cluster (``"local:N"``, an address or a scheduler file).
    max_batches
        Stop after this many launches (``complete`` is then False; ``resume=True`` continues).
    settings, options
        The batch DFS's knobs and the run's options, for full control (keyword arguments above override them).

    Returns
    -------
    SnakeCount

    Raises
    ------
    PuzzleInputError
        A malformed chain or box, or a chain that cannot fit.
    puzzlebatch.errors.Interrupted
        Ctrl-C: the run was checkpointed in ``out`` first (``resume=True`` continues it).
    """
    from puzzlebatch.runners.snake import solver as snake

    chain, box = problem_of(chain, box)
    be = backend_of(backend)
    settings = settings or settings_of(be)
    opts = options_of(options, backend, out=out, resume=resume, scheduler=scheduler, max_batches=max_batches)
    instances = {"chain": np.array(chain.corners, dtype=np.int8), "box": np.array(box.dims, dtype=np.int64)}
    with Session(opts, "snake", "count", _params(chain, box, settings, all), be,
                 same_problem=lambda p: p.get("chain") == chain.letters and p.get("box") == str(box)
                 and bool(p.get("all")) == all, label=f"snake count {box}", describe=f"{chain.letters} in {box}",
                 series="embeddings", instances=instances, sort_rows=all) as s:
        cell_dtype = np.int16 if box.volume < 2**15 else np.int32

        def store_rows(cells, weights):
            s.append_items(cells=cells.astype(cell_dtype), weight=weights.astype(np.int64))

        result, rest, totals = snake.count(chain, box, be, settings, frontier=s.frontier, totals=s.totals,
                                           on_batch=s.on_batch, max_batches=opts.max_batches, elapsed=s.elapsed,
                                           pool=s.pool, sink=store_rows if all else None)
        verified = None
        if verify and result.complete:
            from puzzlebatch.runners.engine import verify as check

            again = check.second_split(settings)
            second = snake.count(chain, box, be, again, pool=s.pool, symmetry=False)[0]
            verified = check.compare(f"snake count {chain.letters} --box {box}", result.to_json(), second.to_json(),
                                     ("embeddings", "distinct"), check.describe(again, symmetry=False))
        doc = s.finish(result.to_json(), result.complete, rest, totals, result.seconds)
    return SnakeCount(**result.to_json(), device=be.device, verified=verified, **doc)


def solve(chain: str | Chain = SOURCE_CHAIN, box: str | Box | None = None, *, backend: str | Backend = "auto",
          out: str | Path | None = None, scheduler: str | None = None, png: str | Path | None = None,
          settings: SearchSettings | None = None, options: RunOptions | None = None) -> SnakeSolution:
    """The first folding of ``chain`` in ``box`` (depth-first order over one representative of each symmetry
    class), or none.

    Parameters
    ----------
    chain, box, backend, scheduler, settings, options
        As for :func:`count`.
    out
        Also record the run (and the folding) in this HDF5 file (default: nothing stored).
    png
        Draw the folding (``.png`` or ``.svg``).

    Returns
    -------
    SnakeSolution
        ``solved`` is False when the whole tree holds no folding.
    """
    from puzzlebatch.runners.snake import solver as snake

    chain, box = problem_of(chain, box)
    be = backend_of(backend)
    settings = settings or settings_of(be)
    opts = options_of(options, backend, out=out, scheduler=scheduler)
    instances = {"chain": np.array(chain.corners, dtype=np.int8), "box": np.array(box.dims, dtype=np.int64)}
    with Session(opts, "snake", "solve", {"chain": chain.letters, "box": str(box)}, be, keep=False,
                 instances=instances) as s:
        result = snake.solve(chain, box, be, settings, pool=s.pool)
        if result.solved:
            cell_dtype = np.int16 if box.volume < 2**15 else np.int32
            index = {tuple(c): i for i, c in enumerate(box.coords().tolist())}
            idx = [index[tuple(c)] for c in result.cells]
            s.append_items(cells=np.array([idx], dtype=cell_dtype), weight=np.ones(1, np.int64))
        doc = s.finish(result.to_json(), True, seconds=result.seconds)
    picture = None
    if png and result.solved:
        from puzzlebatch.results.pictures import draw_snake

        picture = str(draw_snake(np.array(result.cells), box.dims, png, title=f"{chain.letters} in {box}"))
    doc.pop("work", None)
    return SnakeSolution(**result.to_json(), device=be.device, picture=picture, **doc)
