"""The one place that picks a kernel family's twin for a backend.

Every kernel family has two twins built from the same per-item rules (``puzzlebatch/puzzles``): the CPU drivers in
``puzzlebatch/cpu_fallback`` and the CUDA kernels in ``puzzlebatch/gpu_kernels``.  :func:`twin` returns the one
for ``backend``: the CPU drivers with their launches counted (:class:`~puzzlebatch.transfers.CountingDrivers`), or
a CUDA launcher of the run's own (its tables stay on the device for the run; its transfers are counted).  Callers
use the same attribute names on both (``dfs_batch``, ``run_steps``, ``ida_batch``, ...).  See ARCHITECTURE.md, "One
rule, two backends".
"""

from __future__ import annotations

import importlib
from types import ModuleType

from puzzlebatch.registry import Kernels
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.transfers import CountingDrivers

Kind = str

#: the framework's own kinds; a family adds its own in its descriptor (``Family.kernels``)
GENERIC: dict[str, Kernels] = {
    "search": Kernels("search", "puzzlebatch.cpu_fallback.search:drivers", "puzzlebatch.gpu_kernels.search:launcher",
                      ("dfs_batch",), needs_rules=True),
    "ga": Kernels("ga", "puzzlebatch.cpu_fallback.ga:drivers", "puzzlebatch.gpu_kernels.ga:launcher",
                  ("breed_batch", "fitness_batch"), needs_rules=True),
}


def kinds() -> dict[str, Kernels]:
    """Every kind of kernel: the framework's and the registered families' (``Family.kernels``)."""
    from puzzlebatch import registry

    out = dict(GENERIC)
    for fam in registry.families():
        for k in fam.kernels:
            out[k.kind] = k
    return out


def _load(ref: str):
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def twin(backend: Backend, kind: Kind, rules: ModuleType | None = None, *, inline: bool = True, lanes: int = 1):
    """The drivers of kernel family ``kind`` on ``backend``.

    ``rules`` is the family's rules module for the generic families (``search``: a DFS rules module; ``ga``: a GA
    operator module); ``inline=False`` compiles the search rules as separate functions on the CPU (for rules
    that are called from many places, where inlining costs compile time); ``lanes`` (``search`` on CUDA): the
    threads that share each work item's candidate tests: a warp, for rules that name ``candidate_fits`` (the
    bitboards); anything else is a :class:`~puzzlebatch.errors.PuzzleInputError`, never a quiet thread an item."""
    known = kinds()
    if kind not in known:
        raise ValueError(f"unknown kernel family {kind!r} (one of {', '.join(known)})")
    k = known[kind]
    if k.needs_rules and rules is None:
        raise ValueError(f"kernel family {kind!r} needs its rules module")
    args = (rules,) if k.needs_rules else ()
    if lanes > 1 and (kind != "search" or backend.kind == "cpu"):  # the CUDA search unit checks the rules
        from puzzlebatch.errors import PuzzleInputError

        raise PuzzleInputError(f"cuda lanes: {lanes} threads an item are for the CUDA search kernels; {kind} runs "
                               f"on {backend.name} (use one thread an item)")
    if backend.kind == "cpu":
        make = _load(k.cpu)
        drivers = make(*args, inline=inline) if kind == "search" else make(*args)
        return CountingDrivers(drivers, k.launches)
    return _load(k.cuda)(*args, lanes=lanes) if lanes > 1 else _load(k.cuda)(*args)


def cpu_launches(kind: Kind) -> tuple[str, ...]:
    """The CPU drivers' methods of ``kind`` counted as launches."""
    return kinds()[kind].launches
