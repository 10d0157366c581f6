"""The family registry: every puzzle family, built in or brought by a user, described once.

A family is a :class:`Family` descriptor.  The command line (``puzzlebatch <family> ...``), ``warmup``, ``show``,
job files, the web app and the public API (``pb.<family>``) read this registry; no other module lists the families.

Where the descriptors come from, in this order:

1. the package's own, one module each in :mod:`puzzlebatch.descriptors` (found by scanning that folder);
2. installed distributions that declare an entry point in the group ``puzzlebatch.families``
   (``[project.entry-points."puzzlebatch.families"] nqueens = "my_package:FAMILY"``): the object it names is a
   :class:`Family` (or a module with a ``FAMILY`` attribute);
3. :func:`register_family`, called at run time (a notebook, a test).

A built-in family gives its hooks as ``"module:attribute"`` strings, imported only when used, so that a command
imports only what it runs.  A user's family gives a search instead (:class:`SearchSpec`): its per-item rules
(the contract in :mod:`puzzlebatch.puzzles.search`), its parameters and a function from parameters to the search
problem; the framework gives it ``count`` and ``solve`` verbs, both backends, the disk cache, results files,
resume, Dask and ``show``.

Examples
--------
>>> import puzzlebatch as pb
>>> sorted(f.name for f in pb.families())[:3]
['cubes', 'hextris', 'polyomino']
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from puzzlebatch.errors import PuzzleInputError

ENTRY_POINT_GROUP = "puzzlebatch.families"
NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
#: names a family may not take: the application's own commands
RESERVED = frozenset({"info", "show", "run", "serve", "warmup", "families", "help"})


@dataclass(frozen=True)
class Param:
    """One parameter of a user family's problem: a positional argument on the command line, a keyword argument
    in the Python API.

    Parameters
    ----------
    name
        The keyword (a Python identifier).
    type
        Converts the command line's text (``int``, ``str``, or a :mod:`puzzlebatch.limits` checker such as
        ``limits.positive_int``); it raises ``ValueError`` on bad text.
    help
        One line for ``--help``.
    default
        The value when it is not given (``None``: required).
    """

    name: str
    type: Callable[[str], Any] = int
    help: str = ""
    default: Any = None


@dataclass(frozen=True)
class SearchSpec:
    """A family that is one search tree: what a user writes to add a puzzle (see ``docs/tutorial-new-family.md``).

    Parameters
    ----------
    params
        The problem's parameters (:class:`Param`), in command-line order.
    problem
        ``problem(**params) -> SearchProblem``: the rules module, its int64 tables, the root state and the goal
        depth (:class:`puzzlebatch.runners.engine.search.SearchProblem`).  Bad parameters raise
        :class:`puzzlebatch.errors.PuzzleInputError` (or ``ValueError``) with a one-line message.
    solution
        ``solution(state, **params) -> JSON value``: what ``solve`` reports for a solution's state (default: the
        state as a list).
    check
        ``check(solution, **params) -> bool``: an independent test of a reported solution (optional; a solution
        that fails it is an error, never a result).
    draw
        ``draw(solution, path, **params) -> path``: a picture of a solution (optional; ``solve --png``,
        ``show --solution``).
    """

    params: tuple[Param, ...]
    problem: Callable[..., Any]
    solution: Callable[..., Any] | None = None
    check: Callable[..., bool] | None = None
    draw: Callable[..., Any] | None = None


@dataclass(frozen=True)
class Kernels:
    """A kind of kernel a family brings (beyond the generic batch DFS and GA): its CPU drivers and its CUDA launcher,
    built from the same per-item rules, with the same method names (see
    :func:`puzzlebatch.runners.engine.twins.twin`).

    Parameters
    ----------
    kind
        The name callers give ``twin(backend, kind)``.
    cpu, cuda
        ``"module:function"`` returning the CPU drivers and the CUDA launcher (``function(rules)`` when
        ``needs_rules``, else ``function()``).
    launches
        The CPU drivers' methods whose calls count as kernel launches.
    needs_rules
        Whether the kind is compiled with a rules module the caller gives.
    """

    kind: str
    cpu: str
    cuda: str
    launches: tuple[str, ...]
    needs_rules: bool = False


@dataclass(frozen=True)
class WebTask:
    """A job the web app's worker processes run for a family (``POST /api/<family>/<verb>`` queues it).

    Parameters
    ----------
    verb
        The job's kind is ``"<family>.<verb>"``.
    run
        ``"module:function"``: ``function(params, ctx) -> result document``, run in a worker process.
    seconds
        Its time limit, after the kernels are compiled.
    """

    verb: str
    run: str
    seconds: float


@dataclass(frozen=True)
class Family:
    """One puzzle family.

    Parameters
    ----------
    name
        The command-line word (``puzzlebatch <name> ...``) and the ``family`` of its stored runs.
    help
        One line for ``puzzlebatch --help``.
    commands
        ``"module:register"``: adds the family's verbs to an argparse sub-parsers object (built-in families).
        Without it the family must give ``search``, and gets the generic ``count`` and ``solve`` verbs.
    api
        The module of its public Python API (``pb.<name>``).
    records
        The module that reads what its runs stored (rows, solutions, pictures) for ``show`` and the web app.
    warmup
        ``"module:function"``: ``function(backend_args, tmp) -> [(what, argv), ...]``, the tiny commands that
        compile everything it uses (``puzzlebatch warmup``).
    jobs
        ``"module:function"``: its instance generator for job files (``[instances.generate]``).
    web_warm
        ``"module:function"``: what a web worker compiles before its first job (``serve --warm``).
    search
        A user family's search (:class:`SearchSpec`).
    web_tasks
        The jobs the web app runs for it (:class:`WebTask`).
    kernels
        Kinds of kernel of its own (:class:`Kernels`), for :func:`~puzzlebatch.runners.engine.twins.twin`.
    """

    name: str
    help: str
    commands: str | None = None
    api: str | None = None
    records: str | None = None
    warmup: str | None = None
    jobs: str | None = None
    web_warm: str | None = None
    search: SearchSpec | None = None
    web_tasks: tuple[WebTask, ...] = ()
    kernels: tuple[Kernels, ...] = ()
    origin: str = field(default="built in", compare=False)

    def __post_init__(self) -> None:
        if not NAME.match(self.name or ""):
            raise PuzzleInputError(f"family name {self.name!r}: use 1-32 lower-case letters, digits, - or _, "
                                   f"starting with a letter")
        if self.name in RESERVED:
            raise PuzzleInputError(f"family name {self.name!r} is one of the application's commands")
        if self.commands is None and self.search is None:
            raise PuzzleInputError(f"family {self.name!r}: give its commands or its search (SearchSpec)")

    def hook(self, what: str) -> Any:
        """The object a ``"module:attribute"`` hook names (imported now), or None when the family has none."""
        ref = getattr(self, what)
        if ref is None or not isinstance(ref, str):
            return ref
        module, _, attr = ref.partition(":")
        obj = importlib.import_module(module)
        return getattr(obj, attr) if attr else obj


_lock = threading.Lock()
_registered: dict[str, Family] = {}  # register_family's
_found: dict[str, Family] | None = None  # the package's and the entry points', read once


def _load(obj: Any, where: str) -> Family:
    fam = getattr(obj, "FAMILY", obj)
    if not isinstance(fam, Family):
        raise PuzzleInputError(f"{where}: not a puzzlebatch Family (got {type(fam).__name__})")
    return fam


def _discover() -> dict[str, Family]:
    from importlib.metadata import entry_points

    import puzzlebatch.descriptors as builtin

    out: dict[str, Family] = {}
    for info in sorted(pkgutil.iter_modules(builtin.__path__), key=lambda m: m.name):
        fam = _load(importlib.import_module(f"{builtin.__name__}.{info.name}"), f"{builtin.__name__}.{info.name}")
        out[fam.name] = fam
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in out and out[ep.name].origin == "built in":
            continue  # a built-in name is never replaced by a plug-in
        try:
            fam = _load(ep.load(), f"entry point {ep.name} = {ep.value}")
        except PuzzleInputError:
            raise
        except Exception as exc:  # a broken plug-in is named, not a traceback
            raise PuzzleInputError(f"entry point {ep.name} = {ep.value} (group {ENTRY_POINT_GROUP}): cannot load "
                                   f"it: {type(exc).__name__}: {exc}") from None
        out[fam.name] = Family(**{**fam.__dict__, "origin": f"entry point {ep.value}"})
    return out


def _all() -> dict[str, Family]:
    global _found
    with _lock:
        if _found is None:
            _found = _discover()
        return {**_found, **_registered}


def families() -> list[Family]:
    """Every registered family: the package's, the installed plug-ins', then those given to
    :func:`register_family`."""
    return list(_all().values())


def names() -> list[str]:
    """The families' names, in :func:`families` order."""
    return list(_all())


def get(name: str) -> Family:
    """The family called ``name``.

    Raises
    ------
    PuzzleInputError
        No family has that name (the message lists those that exist).
    """
    fams = _all()
    if name not in fams:
        raise PuzzleInputError(f"unknown family {name!r}: expected one of {', '.join(fams)}")
    return fams[name]


def register_family(family: Family, *, replace: bool = False) -> Family:
    """Add a family to the registry of this process (a plug-in installed with an entry point needs no call).

    Parameters
    ----------
    family
        Its descriptor.
    replace
        Replace a family already registered under the same name by this function (a built-in family is never
        replaced).

    Returns
    -------
    Family
        ``family``, for use as a decorator-like one-liner.

    Raises
    ------
    PuzzleInputError
        The name is taken.
    """
    if not isinstance(family, Family):
        raise PuzzleInputError(f"register_family: expected a Family, got {type(family).__name__}")
    found = _all()
    with _lock:
        if family.name in found and (family.name not in _registered or not replace):
            raise PuzzleInputError(f"family {family.name!r} is already registered ({found[family.name].origin})")
        _registered[family.name] = Family(**{**family.__dict__, "origin": "register_family"})
    return family


def unregister_family(name: str) -> None:
    """Remove a family added by :func:`register_family` (tests; the package's families stay)."""
    with _lock:
        _registered.pop(name, None)
