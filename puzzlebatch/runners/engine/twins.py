"""The one place that picks a kernel family's twin for a backend.

Every kernel family has two twins built from the same per-item rules (``puzzlebatch/puzzles``): the CPU drivers in
``puzzlebatch/cpu_fallback`` and the CUDA kernels in ``puzzlebatch/gpu_kernels``.  :func:`twin` returns the one
for ``backend``: the CPU drivers with their launches counted (:class:`~puzzlebatch.transfers.CountingDrivers`), or
a CUDA launcher of the run's own (its tables stay on the device for the run; its transfers are counted).  Callers
use the same attribute names on both (``dfs_batch``, ``run_steps``, ``ida_batch``, ...).  See ARCHITECTURE.md, "One
rule, two backends".
"""

from __future__ import annotations

from types import ModuleType
from typing import Literal

from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.transfers import CountingDrivers

Kind = Literal["search", "strip", "hextris", "sliding", "ga"]
KINDS: tuple[Kind, ...] = ("search", "strip", "hextris", "sliding", "ga")

# the CPU launches each family counts (the kernels a CUDA launcher counts itself)
CPU_LAUNCHES: dict[str, tuple[str, ...]] = {
    "search": ("dfs_batch",),
    "strip": ("run_steps",),
    "hextris": ("init_batch", "commands_batch", "policy_batch", "placements_batch", "lockable_batch"),
    "sliding": ("bfs_expand_batch", "pdb_expand_batch", "ida_batch"),
    "ga": ("breed_batch", "fitness_batch"),
}


def twin(backend: Backend, kind: Kind, rules: ModuleType | None = None, *, inline: bool = True):
    """The drivers of kernel family ``kind`` on ``backend``.

    ``rules`` is the family's rules module for the generic families (``search``: a DFS rules module; ``ga``: a GA
    operator module); ``inline=False`` compiles the search rules as separate functions on the CPU (for rules
    that are called from many places, where inlining costs compile time)."""
    if kind not in CPU_LAUNCHES:
        raise ValueError(f"unknown kernel family {kind!r} (one of {', '.join(KINDS)})")
    if kind in ("search", "ga") and rules is None:
        raise ValueError(f"kernel family {kind!r} needs its rules module")
    if backend.kind == "cpu":
        return CountingDrivers(_cpu(kind, rules, inline), CPU_LAUNCHES[kind])
    return _cuda(kind, rules)


def _cpu(kind: str, rules, inline: bool):
    if kind == "search":
        from puzzlebatch.cpu_fallback.search import drivers

        return drivers(rules, inline=inline)
    if kind == "strip":
        from puzzlebatch.cpu_fallback.polyomino_strip import drivers

        return drivers()
    if kind == "hextris":
        from puzzlebatch.cpu_fallback.hextris import drivers

        return drivers()
    if kind == "sliding":
        from puzzlebatch.cpu_fallback.sliding import drivers

        return drivers()
    from puzzlebatch.cpu_fallback.ga import drivers

    return drivers(rules)


def _cuda(kind: str, rules):
    if kind == "search":
        from puzzlebatch.gpu_kernels.search import launcher

        return launcher(rules)
    if kind == "strip":
        from puzzlebatch.gpu_kernels.polyomino_strip import launcher

        return launcher()
    if kind == "hextris":
        from puzzlebatch.gpu_kernels.hextris import launcher

        return launcher()
    if kind == "sliding":
        from puzzlebatch.gpu_kernels.sliding import launcher

        return launcher()
    from puzzlebatch.gpu_kernels.ga import launcher

    return launcher(rules)
