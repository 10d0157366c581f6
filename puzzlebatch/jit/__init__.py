"""Compiling the rules once for the CPU (numba njit) and once for CUDA, cached on disk.

- :mod:`puzzlebatch.jit.unit`: compile units (rules + templates compiled together for one target);
- :mod:`puzzlebatch.jit.cache`: where compiled code is kept and how it is keyed (every source it depends on);
- :mod:`puzzlebatch.jit.clock`: how long this process compiled, so that results report the work alone.

The cache folder is ``$PUZZLEBATCH_CACHE_DIR`` or the user's cache folder; ``puzzlebatch info`` shows it and
``puzzlebatch warmup`` fills it ahead of time.
"""

from __future__ import annotations

from types import ModuleType

from puzzlebatch.jit.clock import Stopwatch, compile_seconds
from puzzlebatch.jit.unit import Target, Unit, driver, kernel, unit

__all__ = ["Stopwatch", "Target", "Unit", "compile_rules", "compile_seconds", "driver", "kernel", "unit"]


def compile_rules(module: ModuleType, target: Target, *, inline: bool = True, label: str | None = None) -> Unit:
    """Every rule of one plain rules module compiled for ``target`` (a :class:`Unit` with no templates).

    ``inline`` (CPU): force-inline rules into their callers; False compiles plain ``njit`` functions (large rule
    sets compile several times faster, and LLVM still inlines the small ones).
    """
    return unit(label or module.__name__.rsplit(".", 2)[-2], target, rules=[module], inline=inline)
