"""Any search family: ``count`` and ``solve`` for a family that is one search tree (a user's
:class:`~puzzlebatch.registry.SearchSpec`), with the batch DFS, both backends, results files, resume and Dask.

Examples
--------
>>> import puzzlebatch as pb
>>> pb.register_family(FAMILY)  # doctest: +SKIP
>>> pb.family("nqueens").count(n=8).solutions  # doctest: +SKIP
92
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from puzzlebatch.api.common import Result, backend_of, options_of, settings_of
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.registry import Family, get
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.search import BatchDFS, SearchProblem, SearchSettings
from puzzlebatch.runners.engine.session import RunOptions, Session

__all__ = ["count", "solve", "SearchCount", "SearchSolution", "FamilyAPI"]


@dataclasses.dataclass
class SearchCount(Result):
    """The solutions of one problem of a search family.

    Attributes
    ----------
    family
        The family's name.
    params
        The problem's parameters.
    solutions
        How many leaves at the goal depth the tree has (weighted: exact whatever the batch size or backend).
    nodes, seconds, backend, device
        The search's size, its work time (compiling excluded) and where it ran.
    complete
        False when stopped early (``max_batches``); ``resume=True`` continues from ``out``.
    out, run_id
        The results file and run (None when nothing was stored).
    """

    family: str
    params: dict
    solutions: int
    nodes: int
    seconds: float
    backend: str
    device: str
    complete: bool
    out: str | None = None
    run_id: str | None = None
    work: dict | None = None


@dataclasses.dataclass
class SearchSolution(Result):
    """The first solution in depth-first order, or none (``solved`` False: the whole tree was searched).

    Attributes
    ----------
    family, params
        As for :class:`SearchCount`.
    solved
        Whether the tree holds a solution.
    solution
        The family's ``solution(state, **params)`` of the first solution (the state as a list when the family has
        no ``solution``), or None.
    nodes, seconds, backend, device
        The search's size, its work time (compiling excluded) and where it ran.
    out, run_id
        The results file and run (None when nothing was stored).
    picture
        The drawing written (``png=``), or None.
    """

    family: str
    params: dict
    solved: bool
    solution: Any
    nodes: int
    seconds: float
    backend: str
    device: str
    out: str | None = None
    run_id: str | None = None
    picture: str | None = None


def _family(family: str | Family) -> Family:
    fam = family if isinstance(family, Family) else get(family)
    if fam.search is None:
        raise PuzzleInputError(f"family {fam.name!r} has its own API (pb.{fam.name}), not a plain search")
    return fam


def params_of(family: Family, given: dict) -> dict:
    """The problem's parameters: those given, checked against the family's :class:`~puzzlebatch.registry.Param`
    list, the defaults for the rest."""
    spec = family.search
    names = [p.name for p in spec.params]
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise PuzzleInputError(f"{family.name}: unknown parameter(s) {', '.join(unknown)} "
                               f"(parameters: {', '.join(names) or 'none'})")
    out = {}
    for p in spec.params:
        value = given.get(p.name, p.default)
        if value is None:
            raise PuzzleInputError(f"{family.name}: parameter {p.name!r} is required")
        if isinstance(value, str) and p.type is not str:
            try:
                value = p.type(value)
            except ValueError as exc:
                raise PuzzleInputError(f"{family.name}: {p.name} = {value!r}: {exc}") from None
        out[p.name] = value
    return out


def problem_of(family: Family, params: dict) -> SearchProblem:
    """The family's search problem for ``params`` (its ``problem`` function; a ``ValueError`` becomes a
    one-line :class:`PuzzleInputError`)."""
    try:
        problem = family.search.problem(**params)
    except PuzzleInputError:
        raise
    except ValueError as exc:
        raise PuzzleInputError(f"{family.name}: {exc}") from None
    if not isinstance(problem, SearchProblem):
        raise PuzzleInputError(f"{family.name}: problem() returned a {type(problem).__name__}, not a SearchProblem")
    return problem


def _instances(problem: SearchProblem) -> dict:
    return {"tables": np.asarray(problem.tables, dtype=np.int64), "root": np.asarray(problem.root, dtype=np.int64)}


def count(family: str | Family, *, backend: str | Backend = "auto", out: str | Path | None = None,
          resume: bool | None = None, scheduler: str | None = None, max_batches: int | None = None,
          settings: SearchSettings | None = None, options: RunOptions | None = None, **params) -> SearchCount:
    """Count the solutions of one problem of a search family.

    Parameters
    ----------
    family
        The family (its name, or its descriptor).
    backend
        ``"auto"``, ``"cpu"`` or ``"cuda"``.
    out
        Store the run in this HDF5 file (default: nothing stored; the command line's default is
        ``results/<family>.h5``).
    resume
        Continue the unfinished count of the same problem in ``out``.
    scheduler
        Run on a Dask cluster (``"local:N"``, an address or a scheduler file).
    max_batches
        Stop after this many launches (``complete`` False; ``resume=True`` continues).
    settings, options
        The batch DFS's knobs and the run's options.
    **params
        The problem's parameters (the family's ``SearchSpec.params``).

    Returns
    -------
    SearchCount

    Raises
    ------
    PuzzleInputError
        An unknown family or one with its own API, an unknown, missing or malformed parameter, a parameter the
        family's ``problem`` refuses (its ``ValueError``), or ``resume`` without a run to resume.
    puzzlebatch.errors.Interrupted
        Ctrl-C: the run was checkpointed in ``out`` first (``resume=True`` continues it).
    """
    fam = _family(family)
    params = params_of(fam, params)
    problem = problem_of(fam, params)
    be = backend_of(backend)
    settings = settings or settings_of(be)
    opts = options_of(options, backend, out=out, resume=resume, scheduler=scheduler, max_batches=max_batches)
    stored = {"params": params, "budget": settings.budget, "batch_size": settings.batch_size,
              "frontier_target": settings.frontier_target}
    what = " ".join(f"{k}={v}" for k, v in params.items())
    with Session(opts, fam.name, "count", stored, be, same_problem=lambda p: p.get("params") == params,
                 label=f"{fam.name} count", describe=what, series="solutions", instances=_instances(problem)) as s:
        dfs = BatchDFS(problem, be, settings, pool=s.pool)
        totals, rest = dfs.count(s.frontier, s.totals, on_batch=s.on_batch, max_batches=opts.max_batches)
        seconds = s.seconds()
        result = {"family": fam.name, "params": params, "solutions": int(totals.count), "nodes": int(totals.nodes),
                  "seconds": seconds, "backend": be.name, "device": be.device, "complete": len(rest) == 0}
        doc = s.finish(result, len(rest) == 0, rest, totals, seconds)
    return SearchCount(**result, **doc)


def solve(family: str | Family, *, backend: str | Backend = "auto", out: str | Path | None = None,
          scheduler: str | None = None, png: str | Path | None = None, settings: SearchSettings | None = None,
          options: RunOptions | None = None, **params) -> SearchSolution:
    """The first solution in depth-first order of one problem of a search family, or none.

    Parameters
    ----------
    family, backend, scheduler, settings, options, **params
        As for :func:`count`.
    out
        Also record the run (and the solution's state) in this HDF5 file (default: nothing stored).
    png
        Draw the solution with the family's ``draw`` (when it has one; nothing is drawn otherwise).

    Returns
    -------
    SearchSolution
        ``solution`` is the family's ``solution(state, **params)`` (the state as a list without one).

    Raises
    ------
    PuzzleInputError
        An unknown family or one with its own API, an unknown, missing or malformed parameter, or a parameter the
        family's ``problem`` refuses (its ``ValueError``).
    AssertionError
        The family's ``check`` refused the solution the search returned (a bug in its rules).
    """
    fam = _family(family)
    spec = fam.search
    params = params_of(fam, params)
    problem = problem_of(fam, params)
    be = backend_of(backend)
    settings = settings or settings_of(be)
    opts = options_of(options, backend, out=out, scheduler=scheduler)
    with Session(opts, fam.name, "solve", {"params": params}, be, keep=False, instances=_instances(problem)) as s:
        totals, _ = BatchDFS(problem, be, settings, pool=s.pool).first()
        solution = None
        if totals.solutions:
            state = np.asarray(totals.solutions[0])
            solution = spec.solution(state, **params) if spec.solution else state.tolist()
            if spec.check is not None and not spec.check(solution, **params):
                raise AssertionError(f"{fam.name}: the search returned a solution its check refuses: {solution}")
            s.append_items(state=state[None, :].astype(np.int64))
        seconds = s.seconds()
        result = {"family": fam.name, "params": params, "solved": solution is not None, "solution": solution,
                  "nodes": int(totals.nodes), "seconds": seconds, "backend": be.name, "device": be.device}
        doc = s.finish(result, True, seconds=seconds)
    doc.pop("work", None)
    picture = None
    if png and solution is not None and spec.draw is not None:
        picture = str(spec.draw(solution, png, **params))
    return SearchSolution(**result, picture=picture, **doc)


class FamilyAPI:
    """``pb.<family>`` for a search family: :meth:`count` and :meth:`solve` with the family filled in."""

    def __init__(self, family: Family) -> None:
        self.family = family
        self.__doc__ = family.help

    def count(self, **kwargs) -> SearchCount:
        """:func:`puzzlebatch.api.search.count` of this family (the same keyword arguments)."""
        return count(self.family, **kwargs)

    def solve(self, **kwargs) -> SearchSolution:
        """:func:`puzzlebatch.api.search.solve` of this family (the same keyword arguments)."""
        return solve(self.family, **kwargs)

    def __repr__(self) -> str:
        return f"<puzzlebatch family {self.family.name!r} ({self.family.origin})>"
