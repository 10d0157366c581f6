"""What every family's command line shares: the JSON document a command prints (:func:`print_json`).

This module sits below ``puzzlebatch.cli`` so that the families' ``cli.py`` modules import it without importing the
application (which imports them)."""

from __future__ import annotations

import json
import sys


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
