"""What every family's command line shares: the JSON document a command prints (:func:`print_json`).

This module sits below ``puzzlebatch.cli`` so that the families' ``cli.py`` modules import it without importing the
application (which imports them)."""

from __future__ import annotations

import json
import sys

from puzzlebatch import limits as L
from puzzlebatch.limits import DEFAULT_ITEM_SECONDS


def say(message: str) -> None:
    """One line of news on stderr (``puzzlebatch: ...``), apart from the command's output on stdout."""
    print(f"puzzlebatch: {message}", file=sys.stderr)


def print_json(doc) -> None:
    """Print the command's JSON document.  Every object carries ``seconds`` (the work, compiling excluded; the
    verb's own measure when it has one) and ``compile_seconds`` (this command's compiling: 0 when every function
    came from the disk cache); one with a ``backend`` also ``h2d_bytes``, ``d2h_bytes`` and ``launches`` (this
    command's traffic with the device and its kernel launches, unless the verb reports its own)."""
    if isinstance(doc, dict):
        from puzzlebatch.jit.clock import command_timings

        timings = command_timings()
        doc.setdefault("seconds", timings["seconds"])
        doc["compile_seconds"] = timings["compile_seconds"]
        if "backend" in doc:  # a command that ran kernels: what it moved to and from the device, and launched
            from puzzlebatch.transfers import command_transfers

            for key, value in command_transfers().items():
                doc.setdefault(key, value)
    json.dump(doc, sys.stdout, indent=2, default=_json_default)
    sys.stdout.write("\n")


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
    add_scheduler_arguments(p)


def count_options(args):
    """The :class:`~puzzlebatch.runners.engine.count_session.CountOptions` of a count's flags."""
    from puzzlebatch.runners.engine.count_session import CountOptions

    return CountOptions(out=args.out, resume=bool(args.resume), checkpoint_every=args.checkpoint_every,
                        scheduler=getattr(args, "scheduler", None), backend_request=getattr(args, "backend", "auto"),
                        item_seconds=getattr(args, "item_seconds", 20.0))


def add_search_arguments(p) -> None:
    """``--budget``, ``--batch-size`` and ``--frontier``: the batch DFS's knobs (defaults: the backend's)."""
    p.add_argument("--budget", type=L.positive_int, help="DFS nodes per work item per launch (default: the "
                                                          "backend's, lowered so that a launch takes about a second)")
    p.add_argument("--batch-size", type=L.positive_int, help="work items per launch (default: the backend's)")
    p.add_argument("--frontier", type=L.positive_int, help="expand the root into this many work items (default: "
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
