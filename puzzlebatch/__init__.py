"""puzzlebatch: batch search for combinatorial puzzles on CUDA GPUs and CPUs.

The public Python API, loaded on first use (``import puzzlebatch`` itself stays light)::

    import puzzlebatch as pb

    pb.snake.count("3,2,3,2,3", box="3x3x1").embeddings
    pb.cubes.count("2x2x1").assemblies
    pb.polyomino.count("6x10", "pentominoes").distinct
    pb.sliding.solve("1 2 3 4 5 6 0 7 8").moves
    pb.hextris.score("1", "solutions.json").scores

Each family is a module (``pb.snake``, ``pb.cubes``, ``pb.polyomino``, ``pb.sliding``, ``pb.hextris``); a family
a user registers (:func:`register_family`, or an entry point in the group ``puzzlebatch.families``) is reached as
``pb.family(name)`` (and ``pb.<name>``).  Results are dataclasses with ``to_dict()``, the document the command line
prints with ``--json``; bad input raises :class:`PuzzleInputError` with the one-line message the command line
prints.
"""

from importlib.metadata import PackageNotFoundError, version as _version

from puzzlebatch.errors import BackendUnavailableError, CountMismatchError, Interrupted, PuzzleInputError
from puzzlebatch.registry import Family, Param, SearchSpec, families, register_family, unregister_family

try:
    __version__ = _version("puzzlebatch")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0"

__all__ = ["__version__", "family", "families", "register_family", "unregister_family", "Family", "SearchSpec",
           "Param", "RunOptions", "PuzzleInputError", "BackendUnavailableError", "CountMismatchError", "Interrupted"]
# and one attribute a family (pb.snake, ...), from the registry: dir(pb) lists them


def family(name: str):
    """The Python API of the family called ``name``: its module for a built-in family (``pb.family("snake") is
    pb.snake``), an object with ``count`` and ``solve`` for a search family.

    Raises
    ------
    PuzzleInputError
        No family has that name.
    """
    import importlib

    from puzzlebatch import registry

    fam = registry.get(name)
    if fam.api is not None:
        return importlib.import_module(fam.api)
    search = importlib.import_module("puzzlebatch.api.search")
    return search.FamilyAPI(fam)


def __getattr__(name: str):
    # pb.snake, pb.RunOptions, pb.<user family>: imported when first used (PEP 562)
    if name == "RunOptions":
        from importlib import import_module

        return import_module("puzzlebatch.runners.engine.session").RunOptions
    import importlib.util

    if name.startswith("_") or importlib.util.find_spec(f"{__name__}.{name}") is not None:
        # a submodule not imported yet (``from puzzlebatch import limits``): the import system loads it
        raise AttributeError(f"module 'puzzlebatch' has no attribute {name!r}")
    from puzzlebatch import registry

    if name in registry.names():
        return family(name)
    raise AttributeError(f"module 'puzzlebatch' has no attribute {name!r}")


def __dir__():
    from puzzlebatch import registry

    return sorted(set(globals()) | set(__all__) | set(registry.names()))
