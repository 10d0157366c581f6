"""Compile a family's GA operator module together with the shared random-number rules, for one target.

The family's operators may call the functions of :mod:`puzzlebatch.ga.rng` (``rand_below``, ``rand_unit``, ...) by
their plain names, and the per-child template :func:`puzzlebatch.ga.item.breed_item` calls the operators by name:
all of them are one compile unit (:mod:`puzzlebatch.jit.unit`), cached on disk.
"""

from __future__ import annotations

from types import ModuleType

from puzzlebatch import jit
from puzzlebatch.ga import item
from puzzlebatch.ga import rng as rng_rules


def ga_label(module: ModuleType) -> str:
    """``puzzlebatch.puzzles.cubes.ga_rules`` -> ``cubes GA``."""
    parts = module.__name__.split(".")
    return f"{parts[-2] if len(parts) >= 2 else parts[-1]} GA"


def ga_unit(module: ModuleType, target: jit.Target, drivers: ModuleType | None = None) -> jit.Unit:
    """The rng rules, the family's operators, the breeding template and (optionally) a driver module."""
    templates = [item] + ([drivers] if drivers is not None else [])
    return jit.unit(ga_label(module), target, rules=[rng_rules, module], templates=templates)


def compile_ga_rules(module: ModuleType, target: jit.Target) -> jit.Unit:
    """The family's operators and the rng rules, compiled for ``target`` (one unit per module and target)."""
    return ga_unit(module, target)
