"""What every family's command line shares: the JSON document a command prints (:func:`print_json`).

This module sits below ``puzzlebatch.cli`` so that the families' ``cli.py`` modules import it without importing the
application (which imports them)."""

from __future__ import annotations

import json
import sys

from puzzlebatch import limits as L
from puzzlebatch.limits import DEFAULT_ITEM_SECONDS




def add_backend_argument(p) -> None:
    """``--backend auto|cpu|cuda`` (the one spelling every verb that runs kernels takes)."""
    p.add_argument("--backend", choices=["auto", "cpu", "cuda"], default="auto",
                   help="where the kernels run: cuda (numba.cuda), cpu (numba, every core) or auto (cuda when a GPU "
                        "is present; asking for cuda without one is an error, never a silent fallback)")


def say(message: str) -> None:
    """One line of news on stderr (``puzzlebatch: ...``), apart from the command's output on stdout."""
    print(f"puzzlebatch: {message}", file=sys.stderr)


#: the version of the ``--json`` document contract below (README, "JSON output"): raised when a shared key changes
SCHEMA_VERSION = 1

_command: list[str | None] = [None]  # the command now running, e.g. "snake solve" (set by the application)


def set_command(name: str | None) -> str | None:
    """Name the command now running (``"snake solve"``), the ``command`` of its JSON document; returns the name it
    replaces (a command run by a command, a job file's instance, restores it afterwards)."""
    before, _command[0] = _command[0], name
    return before


def current_command() -> str | None:
    return _command[0]


def print_json(doc: dict) -> None:
    """Print the command's JSON document: one object, first ``command`` (the verb, e.g. ``"snake solve"``) and
    ``schema_version`` (:data:`SCHEMA_VERSION`), then the verb's keys.  Every document carries ``backend`` (null
    when the verb ran no kernels), ``seconds`` (the work, compiling excluded; the verb's own measure when it has
    one) and ``compile_seconds`` (this command's compiling: 0 when every function came from the disk cache); one
    with a backend also ``h2d_bytes``, ``d2h_bytes`` and ``launches`` (this command's traffic with the device and
    its kernel launches, unless the verb reports its own).  Anything but a dict is refused (``TypeError``)."""
    if not isinstance(doc, dict):
        raise TypeError(f"print_json: a command prints one JSON object, not a {type(doc).__name__}")
    for key in ("command", "schema_version"):
        if key in doc:
            raise ValueError(f"print_json: {key!r} is set here, not by the verb")
    from puzzlebatch.jit.clock import command_timings

    timings = command_timings()
    out = {"command": current_command(), "schema_version": SCHEMA_VERSION, **doc}
    out.setdefault("backend", None)
    out.setdefault("seconds", timings["seconds"])
    out["compile_seconds"] = timings["compile_seconds"]
    if out["backend"] is not None:  # a command that ran kernels: what it moved to and from the device, and launched
        from puzzlebatch.transfers import command_transfers

        for key, value in command_transfers().items():
            out.setdefault(key, value)
    write_json(out)


def write_json(value) -> None:
    """Print any JSON value (numpy numbers and arrays included) on stdout: for output that is not a command's
    ``--json`` document, such as the official solutions list ``hextris play`` prints."""
    json.dump(value, sys.stdout, indent=2, default=_json_default)
    sys.stdout.write("\n")


def size_text(size) -> str:
    """A board's size as every JSON document spells it: ``"5x4"``, ``"3x3x3"`` (the sizes a command line takes)."""
    return "x".join(str(int(v)) for v in size)


def _json_default(obj):
    import numpy as np

    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


# -- options shared by the batch verbs ------------------------------------------------------------------------------

def add_scheduler_arguments(p) -> None:
    """``--scheduler`` and ``--item-seconds`` for a batch command."""
    p.add_argument("--scheduler", metavar="ADDRESS|local:N|FILE.json",
                   help="run the work items on a Dask cluster: local:N starts N worker processes here; "
                        "tcp://host:8786 or a scheduler file joins a running one (default: this process, all "
                        "cores; needs the `dist` extra)")
    p.add_argument("--item-seconds", type=L.positive_seconds, default=DEFAULT_ITEM_SECONDS, metavar="S",
                   help=f"with --scheduler: a work item's time on a worker before the rest is re-split "
                        f"(default {DEFAULT_ITEM_SECONDS:g})")


def add_count_arguments(p, what: str = "count") -> None:
    """``--resume``, ``--checkpoint-every``, ``--max-batches``, ``--scheduler`` and ``--item-seconds`` for a
    resumable command."""
    p.add_argument("--resume", action="store_true", help=f"continue the unfinished {what} in --out")
    p.add_argument("--checkpoint-every", type=L.non_negative_seconds, default=30.0, metavar="SECONDS",
                   help="save the work left this often (default 30)")
    p.add_argument("--max-batches", type=L.positive_int, help="stop after this many launches (resume later)")
    p.add_argument("--verify", action="store_true",
                   help="count a second time along another split of the work (another budget, batch size and "
                        "frontier; symmetry merging off) and refuse to report a mismatch (exit 3)")
    add_scheduler_arguments(p)


def run_options(args):
    """The :class:`~puzzlebatch.runners.engine.session.RunOptions` of a command's flags (those it has)."""
    from puzzlebatch.runners.engine.session import RunOptions

    return RunOptions(out=getattr(args, "out", None), resume=bool(getattr(args, "resume", False)),
                      checkpoint_every=getattr(args, "checkpoint_every", 30.0),
                      scheduler=getattr(args, "scheduler", None), backend_request=getattr(args, "backend", "auto"),
                      item_seconds=getattr(args, "item_seconds", DEFAULT_ITEM_SECONDS),
                      max_batches=getattr(args, "max_batches", None))


count_options = run_options


def add_search_arguments(p) -> None:
    """``--budget``, ``--batch-size`` and ``--frontier``: the batch DFS's knobs (defaults: the backend's)."""
    p.add_argument("--budget", type=L.budget, help="DFS nodes per work item per launch (default: the "
                                                    "backend's, lowered so that a launch takes about a second)")
    p.add_argument("--batch-size", type=L.work_items, help="work items per launch (default: the backend's)")
    p.add_argument("--frontier", type=L.work_items, help="expand the root into this many work items (default: "
                                                          "the backend's)")


def search_settings(args, backend, base=None):
    """The :class:`~puzzlebatch.runners.engine.search.SearchSettings` of the search knobs given (``base``, or the
    backend's defaults, for the rest)."""
    from puzzlebatch.runners.engine.search import default_settings

    s = base or default_settings(backend)
    if getattr(args, "budget", None):
        s.budget = args.budget
    if getattr(args, "batch_size", None):
        s.batch_size = args.batch_size
    if getattr(args, "frontier", None):
        s.frontier_target = args.frontier
    return s
