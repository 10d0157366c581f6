"""Compile one plain rules module twice: for the CPU (numba njit) and for CUDA (device functions).

A family's ``puzzles/<family>/rules.py`` holds undecorated functions written in the numba subset
(DESIGN.md §3).  Rules call each other by their plain names, so compiling one function alone is not enough:
numba must see the *compiled* twin of every rule it calls.  :func:`compile_rules` therefore copies each function
with a private globals dict in which every sibling rule is replaced by its compiled version of the same target.
The plain module stays untouched and importable (tests and oracles call it as ordinary Python).

The CUDA twins are built from the plain functions, never from the njit dispatchers: an njit dispatcher called from
a kernel works on a real GPU but not under the CUDA simulator, which is how CI tests kernels.
"""

from __future__ import annotations

import types
from types import ModuleType, SimpleNamespace
from typing import Callable, Literal

Target = Literal["cpu", "cuda"]

_cache: dict[tuple[str, str], SimpleNamespace] = {}


def _plain_functions(module: ModuleType) -> dict[str, types.FunctionType]:
    return {
        name: obj
        for name, obj in vars(module).items()
        if isinstance(obj, types.FunctionType) and obj.__module__ == module.__name__ and not name.startswith("__")
    }


def _jit_for(target: Target, inline: bool = True) -> Callable[[Callable], Callable]:
    if target == "cpu":
        from numba import njit

        if not inline:  # plain njit: LLVM still inlines small functions, and numba compiles far faster
            return lambda fn: njit(fn)
        return lambda fn: njit(inline="always")(fn)
    if target == "cuda":
        from numba import cuda

        return lambda fn: cuda.jit(device=True)(fn)
    raise ValueError(f"unknown compile target {target!r}: expected 'cpu' or 'cuda'")


def compile_rules(module: ModuleType, target: Target, *, inline: bool = True) -> SimpleNamespace:
    """Return a namespace with every rule of ``module`` compiled for ``target``.

    Parameters
    ----------
    module
        A rules module of plain functions (no numba decorators).
    target
        ``"cpu"`` for njit functions (inlined into their callers), ``"cuda"`` for CUDA device functions.
    inline
        CPU only: False compiles plain ``njit`` functions instead of numba-IR inlined ones (large rule sets compile
        several times faster; LLVM still inlines the small ones).  The batch DFS uses it for its host-side
        helpers (expansion, splitting), which run rarely.

    Returns
    -------
    types.SimpleNamespace
        One attribute per rule, the compiled twin.  Results are cached per (module, target).
    """
    key = (module.__name__, target) if inline else (module.__name__, target, "no-inline")
    if key in _cache:
        return _cache[key]
    jit = _jit_for(target, inline)
    plain = _plain_functions(module)
    shared_globals = dict(vars(module))  # constants and imports stay visible; rules are swapped below
    compiled: dict[str, Callable] = {}
    for name, fn in plain.items():
        clone = types.FunctionType(fn.__code__, shared_globals, name, fn.__defaults__, fn.__closure__)
        clone.__doc__ = fn.__doc__
        compiled[name] = jit(clone)
    # numba resolves globals lazily (at first compile), so filling them in after wrapping is enough.
    shared_globals.update(compiled)
    ns = SimpleNamespace(**compiled)
    _cache[key] = ns
    return ns


def jit_function(fn: Callable, target: Target) -> Callable:
    """Compile one plain function (e.g. a closure built by a factory) for ``target``."""
    return _jit_for(target)(fn)


def next_choice_of(module: ModuleType, compiled: SimpleNamespace, target: Target) -> Callable:
    """The family's ``next_choice`` twin if its rules define one, else the compiled default (try everything)."""
    if hasattr(compiled, "next_choice"):
        return compiled.next_choice
    from puzzlebatch.puzzles.search import no_skip

    key = ("puzzlebatch.puzzles.search.no_skip", target)
    if key not in _cache:
        _cache[key] = SimpleNamespace(fn=jit_function(no_skip, target))
    return _cache[key].fn
