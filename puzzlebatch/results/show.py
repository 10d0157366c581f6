"""Summaries of a results file for ``puzzlebatch show FILE.h5``: a JSON-ready dict and a text table."""

from __future__ import annotations

import os
from typing import Any

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.results.store import ResultsStore, dumps

_TABLE = (  # (header, key in a run's description)
    ("RUN", "id"), ("FAMILY", "family"), ("ALGORITHM", "algorithm"), ("BACKEND", "backend"),
    ("DEVICE", "device"), ("STATUS", "status"), ("ITEMS", "n_committed"), ("SECONDS", "seconds"),
    ("STARTED", "started"),
)
_JSON_WIDTH = 100  # params/result lines are cut to this many characters


def describe(path: str | os.PathLike) -> dict[str, Any]:
    """Describe a results file and its runs.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.h5`` results file (opened read-only).

    Returns
    -------
    dict
        JSON-serialisable: ``path``, the file attributes (``schema``, ``schema_version``,
        ``creator_version``, ``created``) and ``runs``, a list in creation order of dicts with the run
        attributes (``id``, ``family``, ``algorithm``, ``backend``, ``device``, ``seed``, ``status``,
        ``n_committed``, ``started``, ``finished``, ``seconds``, ``params``, ``result``) plus
        ``columns`` (name -> {"dtype", "shape"} of one row), ``series`` (name -> points) and
        ``checkpoint`` (bool).

    Raises
    ------
    PuzzleInputError
        The file is missing or not a puzzlebatch results file.
    """
    with ResultsStore(path, "r") as store:
        runs = []
        for run_id in store.run_ids():
            try:
                run = store.run(run_id)
                entry = run.attrs
                entry["columns"] = {name: {"dtype": dtype, "shape": list(shape)}
                                    for name, (dtype, shape) in run.column_info().items()}
                entry["series"] = {name: len(run.series(name)[0]) for name in run.series_names()}
                entry["checkpoint"] = run.has_checkpoint()
            except (PuzzleInputError, OSError, RuntimeError, KeyError, ValueError) as exc:
                # One damaged run is reported as such; the others are shown as usual.
                entry = {"id": run_id, "status": "damaged", "error": " ".join(str(exc).split())}
            runs.append(entry)
        return {"path": os.fspath(path), **store.attrs, "runs": runs}


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _cut(text: str) -> str:
    return text if len(text) <= _JSON_WIDTH else text[:_JSON_WIDTH - 3] + "..."


def format_text(desc: dict[str, Any]) -> str:
    """Render :func:`describe`'s dict as a text table: one row per run, then its params and result.

    Parameters
    ----------
    desc : dict
        As returned by :func:`describe`.

    Returns
    -------
    str
        Lines joined by newlines, without a trailing newline.
    """
    lines = [f"{desc.get('path')}: schema {desc.get('schema_version')}, "
             f"written by puzzlebatch {desc.get('creator_version')}, created {desc.get('created')}"]
    runs = desc.get("runs", [])
    if not runs:
        lines.append("(no runs)")
        return "\n".join(lines)
    rows = [[header for header, _ in _TABLE]]
    rows += [[_cell(run.get(key)) for _, key in _TABLE] for run in runs]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_TABLE))]
    for i, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
        if i == 0:
            continue
        run = runs[i - 1]
        if run.get("error"):
            lines.append("    damaged: " + _cut(run["error"]))
            continue
        lines.append("    params: " + _cut(dumps(run.get("params"))))
        if run.get("result") is not None:
            lines.append("    result: " + _cut(dumps(run["result"])))
        extras = []
        if run.get("columns"):
            extras.append("columns " + ", ".join(
                f"{name}:{col['dtype']}{tuple(col['shape']) if col['shape'] else ''}"
                for name, col in run["columns"].items()))
        if run.get("series"):
            extras.append("series " + ", ".join(f"{name}({n})" for name, n in run["series"].items()))
        if run.get("checkpoint"):
            extras.append("checkpoint")
        if extras:
            lines.append("    " + "; ".join(extras))
    return "\n".join(lines)
