"""Write ``docs/api.md``, the Python API's reference page, from the public names' docstrings.

    python docs/make_api_reference.py          # rewrite docs/api.md
    python docs/make_api_reference.py --check  # exit 1 if docs/api.md is not what the code says

``tests/test_docs.py`` runs the check, so the page never drifts from the code.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parent / "api.md"

INTRO = """# Python API reference

Generated from the docstrings by `python docs/make_api_reference.py`; do not edit by hand.

```python
import puzzlebatch as pb

r = pb.snake.count("3,2,3,2,3", box="3x3x1", backend="cpu")
r.embeddings, r.distinct, r.to_dict()
```

Every family is a module of `puzzlebatch` (`pb.snake`, `pb.polyomino`, `pb.cubes`, `pb.sliding`, `pb.hextris`), loaded
on first use.  Results are dataclasses; `to_dict()` gives the document the command line prints with `--json`.  Bad
input raises `pb.PuzzleInputError` with the one-line message the command line prints (exit status 2 there).  Without
`out=` nothing is written; with `out=FILE.h5` the run is stored, and `resume=True` continues an interrupted one
(Ctrl-C raises `pb.Interrupted` after the run is checkpointed).  A family of your own: see
[the tutorial](tutorial-new-family.md).
"""


def _signature(obj) -> str:
    try:
        return str(inspect.signature(obj)).replace("'", "")
    except (TypeError, ValueError):
        return "(...)"


def _doc(obj) -> str:
    return inspect.cleandoc(obj.__doc__ or "").strip()


def _entry(name: str, obj, level: str = "###") -> list[str]:
    out = []
    if inspect.isclass(obj):
        kind = "dataclass" if dataclasses.is_dataclass(obj) else "class"
        out.append(f"{level} `{name}` ({kind})")
        if dataclasses.is_dataclass(obj):
            fields = ", ".join(f.name for f in dataclasses.fields(obj) if not f.metadata.get("internal"))
            out.append(f"\nFields: `{fields}`.")
    else:
        out.append(f"{level} `{name}{_signature(obj)}`")
    doc = _doc(obj)
    if doc:
        out += ["", "```text", doc, "```"]
    return out + [""]


def _public(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items() if not n.startswith("_") and getattr(v, "__module__", None)
                 == module.__name__ and (inspect.isfunction(v) or inspect.isclass(v))]
    return list(names)


def render() -> str:
    import puzzlebatch as pb
    from puzzlebatch import registry

    lines = [INTRO, "## The package", ""]
    for name in ("family", "families", "register_family", "unregister_family", "Family", "SearchSpec", "Param",
                 "RunOptions", "PuzzleInputError", "Interrupted", "CountMismatchError", "BackendUnavailableError"):
        lines += _entry(f"pb.{name}", getattr(pb, name))
    for fam in registry.families():
        if fam.origin != "built in" or not fam.api:
            continue
        module = importlib.import_module(fam.api)
        lines += [f"## `pb.{fam.name}`", "", _doc(module), ""]
        for name in _public(module):
            obj = getattr(module, name)
            if callable(obj):
                lines += _entry(f"pb.{fam.name}.{name}", obj)
    search = importlib.import_module("puzzlebatch.api.search")
    lines += ["## A search family of your own (`puzzlebatch.api.search`)", "", _doc(search), ""]
    for name in _public(search):
        lines += _entry(f"puzzlebatch.api.search.{name}", getattr(search, name))
    return "\n".join(lines).rstrip() + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="compare with docs/api.md instead of writing it")
    args = p.parse_args(argv)
    text = render()
    if args.check:
        if not PAGE.exists() or PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE.name} is out of date: run python docs/make_api_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
