"""Compile a family's GA operator module together with the shared random-number rules, for one target.

Like :func:`puzzlebatch.jit.compile_rules`, but the family's operators may call the functions of
:mod:`puzzlebatch.ga.rng` (``rand_below``, ``rand_unit``, ...) by their plain names: both modules' functions are
cloned into one globals dict where every name resolves to the compiled twin of the same target.
"""

from __future__ import annotations

import types
from types import ModuleType, SimpleNamespace

from puzzlebatch.ga import rng as rng_rules
from puzzlebatch.jit import Target, jit_function

_cache: dict[tuple[str, str], SimpleNamespace] = {}


def _plain(module: ModuleType) -> dict[str, types.FunctionType]:
    return {n: f for n, f in vars(module).items()
            if isinstance(f, types.FunctionType) and f.__module__ == module.__name__ and not n.startswith("__")}


def compile_ga_rules(module: ModuleType, target: Target) -> SimpleNamespace:
    """The family's operators and the rng rules, compiled for ``target`` (cached per module and target)."""
    key = (module.__name__, target)
    if key in _cache:
        return _cache[key]
    plain = _plain(rng_rules) | _plain(module)
    shared = dict(vars(rng_rules)) | dict(vars(module))
    compiled = {}
    for name, fn in plain.items():
        clone = types.FunctionType(fn.__code__, shared, name, fn.__defaults__, fn.__closure__)
        compiled[name] = jit_function(clone, target)
    shared.update(compiled)
    ns = SimpleNamespace(**compiled)
    _cache[key] = ns
    return ns
