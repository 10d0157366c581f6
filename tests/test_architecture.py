"""The house plan, checked over the package's import graph (see ARCHITECTURE.md).

Layers only point down: ``cli``/``web`` → ``runners`` → ``cpu_fallback``/``gpu_kernels`` → ``puzzles``/``ga`` →
``results``/``jit``/``outputs`` → the leaves (``config``, ``errors``, ``limits``, ...).  No import circles, counting
imports inside functions (they run too) and imports under ``if TYPE_CHECKING:`` (an annotation's import is a
dependency too).  No
module imports a ``_private`` name of another; argparse only in the command-line modules; a module over
:data:`LONG` lines says at the top why it is long.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "puzzlebatch"

# (prefix, layer): the longest matching prefix decides; a module may import its own layer or lower ones
LAYERS = [
    ("puzzlebatch.__main__", 7),
    ("puzzlebatch.cli", 6), ("puzzlebatch.web", 6),
    ("puzzlebatch.api", 5),
    ("puzzlebatch.runners", 4),
    ("puzzlebatch.cpu_fallback", 3), ("puzzlebatch.gpu_kernels", 3),
    ("puzzlebatch.puzzles", 2), ("puzzlebatch.ga", 2),
    ("puzzlebatch.results", 1), ("puzzlebatch.jit", 1), ("puzzlebatch.outputs", 1), ("puzzlebatch.xp", 1),
    ("puzzlebatch.transfers", 1),
    ("puzzlebatch.config", 0), ("puzzlebatch.errors", 0), ("puzzlebatch.limits", 0), ("puzzlebatch.data", 0),
    ("puzzlebatch", 0),
]
# the kernels' device checks sit below the backend choice that uses them
EXTRA = {"puzzlebatch.gpu_kernels.detect": 0}
LONG = 500


def _is_cli_module(name: str) -> bool:
    """The command-line package, and nothing else, builds command lines."""
    return name == "puzzlebatch.cli" or name.startswith("puzzlebatch.cli.")


@dataclass
class Module:
    name: str
    path: Path
    tree: ast.Module
    imports: list[tuple[str, str | None, int]] = field(default_factory=list)  # (module, name, line)


def _modules() -> dict[str, Module]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = Module(name, path, ast.parse(path.read_text(encoding="utf-8")))
    for m in out.values():
        for node in ast.walk(m.tree):
            if isinstance(node, ast.Import):
                m.imports += [(a.name, None, node.lineno) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                m.imports += [(node.module, a.name, node.lineno) for a in node.names]
    return out


MODULES = _modules()


def _target(module: str, name: str | None) -> str | None:
    """The package module an import loads (``from a.b import c`` loads ``a.b.c`` when that is a module)."""
    if name is not None and f"{module}.{name}" in MODULES:
        return f"{module}.{name}"
    while module and module not in MODULES:
        module = module.rpartition(".")[0]
    return module or None


def _edges() -> dict[str, dict[str, int]]:
    edges: dict[str, dict[str, int]] = {m: {} for m in MODULES}
    for m in MODULES.values():
        for module, name, line in m.imports:
            if not module.startswith("puzzlebatch"):
                continue
            t = _target(module, name)
            if t and t != m.name:
                edges[m.name].setdefault(t, line)
    return edges


def _layer(name: str) -> int:
    if name in EXTRA:
        return EXTRA[name]
    return max((p for p in LAYERS if name == p[0] or name.startswith(p[0] + ".")), key=lambda p: len(p[0]))[1]


def _cycles(edges) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(edges[w])))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_graph_is_the_whole_package():
    assert len(MODULES) > 100 and "puzzlebatch.runners.engine.search" in MODULES
    edges = _edges()
    assert "puzzlebatch.runners.engine.search" in edges["puzzlebatch.runners.engine.distributed"]
    # the cycle finder finds a planted circle
    planted = {k: dict(v) for k, v in edges.items()}
    planted["puzzlebatch.errors"]["puzzlebatch.runners.engine.search"] = 1
    assert any("puzzlebatch.errors" in c for c in _cycles(planted))


def test_no_import_circles():
    assert _cycles(_edges()) == []


def test_imports_only_point_down():
    up = [f"{a}:{line} imports {b}" for a, targets in _edges().items() for b, line in targets.items()
          if _layer(b) > _layer(a)]
    assert up == []


def test_no_private_names_from_other_modules():
    bad = [f"{m.name}:{line} from {module} import {name}" for m in MODULES.values()
           for module, name, line in m.imports
           if module.startswith("puzzlebatch") and name and name.startswith("_") and not name.startswith("__")
           and _target(module, None) != m.name]
    assert bad == []


def test_argparse_only_in_the_command_line_modules():
    bad = [m.name for m in MODULES.values() if any(mod == "argparse" for mod, _, _ in m.imports)
           and not _is_cli_module(m.name)]
    assert bad == []


@pytest.mark.parametrize("name", ["runners.engine.search", "runners.engine.session", "api.snake", "api.search",
                                  "api.cubes", "api.polyomino", "api.sliding", "api.hextris",
                                  "runners.engine.distributed", "runners.engine.twins"])
def test_the_engine_reads_no_command_line_arguments(name):
    """The engine takes plain values: no ``args.`` namespace reads (``getattr(args, ...)`` included)."""
    tree = MODULES[f"puzzlebatch.{name}"].tree
    reads = [n.lineno for n in ast.walk(tree)
             if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "args"
             or isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "getattr"
             and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id == "args"]
    assert reads == []


def test_long_modules_say_why():
    """A module over LONG lines says why at the top of its docstring ("Long because ...")."""
    bad = []
    for m in MODULES.values():
        n = len(m.path.read_text(encoding="utf-8").splitlines())
        doc = ast.get_docstring(m.tree) or ""
        if n > LONG and "long because" not in doc.lower():
            bad.append(f"{m.name} ({n} lines)")
    assert bad == []


def test_every_family_registers_its_command_line():
    from puzzlebatch.cli import build_parser

    from puzzlebatch import registry

    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    built_in = [f for f in registry.families() if f.origin == "built in"]
    assert len(built_in) >= 5
    for family in built_in:
        assert family.name in sub.choices
        assert family.hook("commands").__module__ in MODULES


def test_no_module_lists_the_families_by_hand():
    """The registry is the one list of families: outside a family's own modules no module spells two family
    names as strings (a dispatch table, a list of choices), and each family's name is written in its descriptor."""
    from puzzlebatch import registry

    names = {f.name for f in registry.families() if f.origin == "built in"}

    def owner(module: str) -> str | None:
        parts = module.split(".")
        for name in names:
            if name in parts or any(p.startswith(f"{name}_") or p.endswith(f"_{name}") for p in parts):
                return name
        return None

    bad = []
    for m in MODULES.values():
        if owner(m.name):
            continue
        spelled = {n.value for n in ast.walk(m.tree) if isinstance(n, ast.Constant) and n.value in names}
        if len(spelled) > 1:
            bad.append(f"{m.name}: {sorted(spelled)}")
    assert bad == []
    for name in names:
        assert f"puzzlebatch.descriptors.{name}" in MODULES
