"""Compile units: plain modules compiled together for one target, every function cached on disk.

A family's per-item logic is written once, as plain functions in the numba subset (``puzzles/<family>/rules.py``;
ARCHITECTURE.md, "One rule, two backends").  Those functions call each other, and the shared templates (the
per-item DFS of :mod:`puzzlebatch.puzzles.search`, the ``prange`` drivers of ``cpu_fallback/``, the kernels of
``gpu_kernels/``) call them, *by their plain names*.  A :class:`Unit` copies every function of its modules with a
private globals dict (the module's own globals, overlaid with the unit's compiled functions) and compiles each copy
for its target, so every name resolves to the compiled twin of the same target; the plain modules stay untouched
and importable.

Nothing is captured in a closure: a template is an ordinary module-level function, which numba's cache can key,
and each unit's entries live in their own folder keyed on all the sources it depends on
(:mod:`puzzlebatch.jit.cache`), so one template compiled for two families never collides and an edited rule is
never served stale.

How each function is compiled:

- functions of the unit's *rules* modules: ``njit(inline="always")`` (``inline=True``) or plain ``njit`` on the
  CPU, ``cuda.jit(device=True)`` on CUDA.  A rules module may name, in a tuple ``NOT_INLINED``, the large and
  rarely called rules that stay plain ``njit`` functions even then: inlining copies a rule's code into every call
  site, which costs compile time where it buys no speed;
- functions of its *template* modules: as marked by :func:`driver` (CPU entry points, e.g. ``parallel=True``) or
  :func:`kernel` (CUDA kernels); unmarked ones like rules but never force-inlined.

The CUDA twins are built from the plain functions, never from njit dispatchers: an njit dispatcher called from a
kernel works on a real GPU but not under the CUDA simulator, which is how CI tests kernels.
"""

from __future__ import annotations

import os
import threading
import types
from types import ModuleType
from typing import Callable, Iterable, Literal

from puzzlebatch.jit import cache, clock

Target = Literal["cpu", "cuda"]

_MARK = "__puzzlebatch_jit__"


def driver(fn: Callable | None = None, **options):
    """Mark a template function as a CPU entry point compiled with ``njit(**options)`` (e.g. ``parallel=True``).

    The function is returned unchanged: it is compiled only as part of a :class:`Unit`.  A ``prange`` over items of
    very different cost should take them from a work queue (:mod:`puzzlebatch.jit.atomic`): numba's own
    ``prange`` hands each thread a fixed block.
    """
    def mark(f):
        setattr(f, _MARK, ("driver", options))
        return f

    return mark(fn) if fn is not None else mark


def kernel(fn: Callable | None = None, **options):
    """Mark a template function as a CUDA kernel (``cuda.jit(**options)``), compiled only as part of a
    :class:`Unit`."""
    def mark(f):
        setattr(f, _MARK, ("kernel", options))
        return f

    return mark(fn) if fn is not None else mark


def plain_functions(module: ModuleType) -> dict[str, types.FunctionType]:
    """The functions defined in ``module`` itself (not imported), by name."""
    return {
        name: obj
        for name, obj in vars(module).items()
        if isinstance(obj, types.FunctionType) and obj.__module__ == module.__name__ and not name.startswith("__")
    }


class Unit:
    """Modules compiled together for one target; attributes are the compiled functions.

    Parameters
    ----------
    label
        What the unit is for, shown to users (``"polyomino"``) and part of its cache folder's name.
    target
        ``"cpu"`` or ``"cuda"``.
    rules
        Modules of rules (see the module docstring for how they are compiled).
    templates
        Modules of templates and drivers/kernels.
    inline
        CPU: force-inline the rules into their callers (numba IR inlining: faster code, slower compiles).
    aliases
        ``{name: other}``: where no module defines ``name``, it means the function ``other`` (a template's default,
        e.g. ``next_choice`` -> ``no_skip``).
    replace
        ``{name: other}``: ``name`` means the function ``other`` even where a module defines it (a kernel's own
        version of a rule: the warp-wide candidate scan of :mod:`puzzlebatch.gpu_kernels.search` for a rule's
        ``next_choice``).
    """

    def __init__(self, label: str, target: Target, rules: Iterable[ModuleType] = (),
                 templates: Iterable[ModuleType] = (), *, inline: bool = True,
                 aliases: dict[str, str] | None = None, replace: dict[str, str] | None = None) -> None:
        if target not in ("cpu", "cuda"):
            raise ValueError(f"unknown compile target {target!r}: expected 'cpu' or 'cuda'")
        clock.install()
        self.label = label
        self.target = target
        self.inline = inline
        rules, templates = list(rules), list(templates)
        modules = rules + templates
        self.module_names = [m.__name__ for m in modules]
        variant = "-".join([label.replace(" ", "_"), target] + (["inline"] if inline and target == "cpu" else []))
        roles = f"rules={[m.__name__ for m in rules]} templates={[m.__name__ for m in templates]} " \
                f"inline={inline} aliases={sorted((aliases or {}).items())}" + \
                (f" replace={sorted(replace.items())}" if replace else "")
        self.key = cache.source_key(self.module_names, target,
                                    extra=roles + " loaded=" + cache.loaded_fingerprint(modules))
        self.folder = str(cache.compile_cache_dir() / f"{variant}-{self.key}")
        if target == "cpu":
            from puzzlebatch.jit import prebuilt

            prebuilt.seed(self.folder)  # an empty folder gets the package's compiled code, where it has this one
        self.symbol_prefix = "unit_" + f"{variant}_{self.key}".replace("-", "_")
        self.functions: dict[str, Callable] = {}
        self._plain: dict[str, tuple[types.FunctionType, ModuleType, bool]] = {}
        for module in modules:
            for name, fn in plain_functions(module).items():
                if name in self._plain and self._plain[name][1] is not module:
                    raise ValueError(f"compile unit {label!r}: {name!r} is defined in both "
                                     f"{self._plain[name][1].__name__} and {module.__name__}")
                self._plain[name] = (fn, module, module in rules)
        overlay: dict[str, Callable] = {}
        globals_of: dict[str, dict] = {}
        for name, (fn, module, is_rule) in self._plain.items():
            g = globals_of.setdefault(module.__name__, dict(vars(module)))
            clone = types.FunctionType(fn.__code__, g, name, fn.__defaults__, fn.__closure__)
            clone.__doc__ = fn.__doc__
            # numba names a compiled function's machine symbol after its module, qualified name and a counter
            # that restarts in every process.  Two units compiled in two processes can give the same template
            # (``dfs_item`` of the snake unit and of the cubes unit) the same symbol; loaded from the disk cache
            # into one process, the linker then binds the second unit's calls to the first unit's code (a wrong
            # count, or a crash).  The unit's folder name in the qualified name makes every symbol its own.
            clone.__qualname__ = f"{self.symbol_prefix}.{fn.__qualname__}"
            clone.__module__ = fn.__module__
            clone.__kwdefaults__ = fn.__kwdefaults__
            clone.__puzzlebatch_label__ = label
            clone.__puzzlebatch_cache__ = (self.folder, self.key)
            inline_it = is_rule and self.inline and name not in getattr(module, "NOT_INLINED", ())
            no_nrt = name in getattr(module, "NO_NRT", ())
            overlay[name] = self._compile(clone, getattr(fn, _MARK, None), inline_it, no_nrt)
        for name, other in (aliases or {}).items():
            if name not in overlay:
                overlay[name] = overlay[other]
        for name, other in (replace or {}).items():
            overlay[name] = overlay[other]
        # numba resolves globals when it compiles, so filling them in now is enough.
        for g in globals_of.values():
            g.update(overlay)
        self.functions = overlay

    def _compile(self, clone: types.FunctionType, mark, inline: bool, no_nrt: bool = False) -> Callable:
        kind, options = mark if mark is not None else (None, {})
        if self.target == "cpu":
            from numba import njit

            if kind == "kernel":
                raise ValueError(f"{clone.__name__} is a CUDA kernel: it cannot be in a CPU unit")
            if kind is None and inline:
                options = {"inline": "always"}
            if no_nrt:  # a module's NO_NRT: it and the rules inlined into it never allocate (see the docstring)
                options = {**options, "_nrt": False}
            disp = njit(**options)(clone)
            disp._cache = cache.cpu_cache_class()(clone)
            return disp
        from numba import cuda

        if kind == "driver":
            raise ValueError(f"{clone.__name__} is a CPU driver: it cannot be in a CUDA unit")
        if kind == "kernel":
            disp = cuda.jit(**options)(clone)
            if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") in ("", "0"):  # the simulator has no cache
                disp._cache = cache.cuda_cache_class()(clone)
            return disp
        return cuda.jit(device=True)(clone)

    def __getattr__(self, name: str):
        functions = self.__dict__.get("functions", {})
        if name in functions:
            return functions[name]
        raise AttributeError(f"compile unit {self.__dict__.get('label')!r} has no function {name!r}")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.functions))

    def __repr__(self) -> str:
        return f"<Unit {self.label} ({self.target}): {len(self.functions)} functions in {self.folder}>"


_units: dict[tuple, Unit] = {}
_units_lock = threading.Lock()


def unit(label: str, target: Target, rules: Iterable[ModuleType] = (), templates: Iterable[ModuleType] = (), *,
         inline: bool = True, aliases: dict[str, str] | None = None, replace: dict[str, str] | None = None) -> Unit:
    """The :class:`Unit` for these modules and target, built once per process for the same code.

    The process's table of units is keyed by the code the unit compiles (its modules' loaded fingerprint, under
    a millisecond), never by module names alone: a module reloaded with other code (a notebook's edited rules) gets
    a unit of its own."""
    rules, templates = tuple(rules), tuple(templates)
    key = (label, target, tuple(m.__name__ for m in rules), tuple(m.__name__ for m in templates), inline,
           tuple(sorted((aliases or {}).items())), tuple(sorted((replace or {}).items())),
           os.environ.get("NUMBA_ENABLE_CUDASIM", "0"),
           cache.loaded_fingerprint(rules + templates))
    with _units_lock:
        u = _units.get(key)
        if u is None:
            u = Unit(label, target, rules, templates, inline=inline, aliases=aliases, replace=replace)
            _units[key] = u
        return u


def built_units() -> list[Unit]:
    """Every unit built in this process so far."""
    with _units_lock:
        return list(_units.values())
