"""Reading a results file for ``puzzlebatch show`` and the web app's results browser: its runs, a run's rows, a
stored solution and its picture.

How the runs of a family are read is the family's *records* module (``Family.records`` in
:mod:`puzzlebatch.registry`); nothing here knows a family.  A records module has these functions, each given an
open :class:`~puzzlebatch.results.run.Run`:

``describe(run) -> dict``
    ``summary`` (one line about what the run stored, or None), ``stored_solutions`` (how many stored solutions
    ``solution`` decodes; 0 for none), ``drawing`` (the kind of drawing the web page makes of one, or None) and
    ``rows_per_solution`` (item rows a solution takes: 1, or all of them when the run stores one solution a row a
    part).
``items(run, start, stop) -> list[dict]``
    Rows ``start .. stop - 1`` decoded to JSON values (coordinates, moves, placements...).
``solution(run, k) -> dict``
    Stored solution ``k`` (0-based) decoded to JSON values, with ``text``: how ``show --solution`` prints it.
``draw(run, k, path) -> Path``
    A picture of solution ``k`` (``.png`` or ``.svg``); :class:`~puzzlebatch.errors.PuzzleInputError` for a
    run without one.

A run of a family with no records module (a user's plug-in, a job's ledger) is read by :data:`GENERIC`: its
columns as stored, JSON text decoded; a search family's stored states through its ``SearchSpec``.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.results.store import ResultsStore, dumps

_TABLE = (  # (header, key in a run's description)
    ("RUN", "id"), ("FAMILY", "family"), ("ALGORITHM", "algorithm"), ("BACKEND", "backend"),
    ("DEVICE", "device"), ("STATUS", "status"), ("ITEMS", "n_committed"), ("SECONDS", "seconds"),
    ("STARTED", "started"),
)
_JSON_WIDTH = 100  # params/result lines are cut to this many characters
_LINE_WIDTH = 160  # an item's line in a listing
_VALUE_CHARS = 60  # a long string in an item's line
DEFAULT_ROWS = 20  # rows listed without --rows
_READ_ERRORS = (PuzzleInputError, OSError, RuntimeError, KeyError, ValueError, IndexError, TypeError)


# -- plain values --------------------------------------------------------------------------------------------------

def plain(value: Any) -> Any:
    """A stored value as JSON: arrays as lists, numpy scalars as Python numbers, bytes as text, non-finite floats as
    None."""
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()] if value.dtype.kind in "fO" else value.tolist()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def plain_rows(columns: dict[str, np.ndarray]) -> list[dict]:
    """``{column: rows}`` as one dict of plain values a row."""
    names = list(columns)
    n = len(columns[names[0]]) if names else 0
    return [{name: plain(columns[name][i]) for name in names} for i in range(n)]


def size_text(dims) -> str:
    """``(3, 3, 3)`` as ``"3x3x3"``."""
    return "x".join(str(int(d)) for d in dims)


def plural(n: int, word: str) -> str:
    """``1 game``, ``2 games``, ``1,000 games``."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def text_of(value: Any) -> str:
    """A stored name (bytes or text) as text."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


# -- the records of a run ------------------------------------------------------------------------------------------

class _Generic:
    """Runs no records module reads: the columns as stored; a search family's states through its SearchSpec."""

    @staticmethod
    def _spec(run):
        from puzzlebatch import registry

        try:
            fam = registry.get(str(run.attrs.get("family")))
        except PuzzleInputError:
            return None
        return fam.search if fam.search is not None and "state" in run.column_info() else None

    def describe(self, run) -> dict:
        spec = self._spec(run)
        n = run.n_committed if spec is not None and run.attrs.get("algorithm") == "solve" else 0
        return {"summary": None, "stored_solutions": n, "drawing": None, "rows_per_solution": 1}

    def items(self, run, start: int, stop: int) -> list[dict]:
        rows = plain_rows(run.item_rows(start, stop))
        for row in rows:
            for key, value in row.items():
                if isinstance(value, str) and value[:1] in "{[":
                    try:
                        row[key] = json.loads(value)  # a job ledger's instance results
                    except ValueError:
                        pass
        return rows

    def solution(self, run, k: int) -> dict:
        spec = self._spec(run)
        if spec is None or run.attrs.get("algorithm") != "solve":
            raise PuzzleInputError(_no_solutions(run))
        attrs = run.attrs
        params = (attrs.get("params") or {}).get("params") or {}
        state = np.asarray(run.item_rows(k, k + 1)["state"][0])
        solution = spec.solution(state, **params) if spec.solution else state.tolist()
        return {"params": params, "state": state.tolist(), "solution": plain(solution),
                "text": json.dumps(plain(solution))}

    def draw(self, run, k: int, path) -> Any:
        spec = self._spec(run)
        if spec is None or spec.draw is None:
            raise PuzzleInputError(f"--png: {run.attrs.get('family')} runs have no picture")
        doc = self.solution(run, k)
        state = np.asarray(doc["state"])
        solution = spec.solution(state, **doc["params"]) if spec.solution else doc["state"]
        return spec.draw(solution, path, **doc["params"])


GENERIC = _Generic()


def records(family: Any) -> Any:
    """The records module of ``family`` (a name), or :data:`GENERIC` for a family without one (or unknown here)."""
    from puzzlebatch import registry

    try:
        module = registry.get(str(family)).hook("records")
    except PuzzleInputError:
        return GENERIC
    return GENERIC if module is None else module


def _no_solutions(run) -> str:
    a = run.attrs
    return (f"run {run.id} ({a.get('family')} {a.get('algorithm')}) stores no solution to show; list its rows "
            f"with --run {run.id}")


def run_description(run) -> dict:
    """What the records module says of ``run`` (:func:`records`' ``describe``); a run it cannot read is described
    as the generic reader describes it."""
    rec = records(run.attrs.get("family"))
    try:
        desc = dict(rec.describe(run))
    except _READ_ERRORS:
        desc = GENERIC.describe(run)
    return {"summary": desc.get("summary"), "stored_solutions": int(desc.get("stored_solutions") or 0),
            "drawing": desc.get("drawing"), "rows_per_solution": max(1, int(desc.get("rows_per_solution") or 1))}


# -- a file --------------------------------------------------------------------------------------------------------

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
        ``columns`` (name -> {"dtype", "shape"} of one row), ``series`` (name -> points),
        ``checkpoint`` (bool), and what the family's records module says: ``summary`` (one line or None),
        ``stored_solutions`` (how many ``show --solution`` reads) and ``drawing`` (the web page's drawing or None).

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
                desc = run_description(run)
                entry |= {k: desc[k] for k in ("summary", "stored_solutions", "drawing")}
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


def _cut(text: str, width: int = _JSON_WIDTH) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def format_text(desc: dict[str, Any]) -> str:
    """Render :func:`describe`'s dict as a text table: one row per run, then its params, result and summary.

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
        if run.get("summary"):
            lines.append("    stored: " + _cut(run["summary"], _LINE_WIDTH))
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
    path = desc.get("path")
    listed = [run for run in runs if run.get("n_committed") and not run.get("error")]
    if listed:
        lines.append(f"rows of a run: puzzlebatch show {path} --run RUN [--rows A:B]")
    if any(run.get("stored_solutions") for run in runs):
        lines.append(f"a stored solution: puzzlebatch show {path} --run RUN --solution K [--png FILE]")
    return "\n".join(lines)


# -- a run's rows --------------------------------------------------------------------------------------------------

def parse_rows(text: str | None) -> tuple[int, int | None]:
    """``--rows A:B`` (1-based, both ends included; ``A:`` to the end, ``:B`` from the first, ``A`` one row) as a
    0-based ``(start, stop)``; without it, the first :data:`DEFAULT_ROWS`."""
    if text is None:
        return 0, DEFAULT_ROWS
    a, colon, b = text.strip().partition(":")
    try:
        first = int(a) if a.strip() else 1
        last = (int(b) if b.strip() else None) if colon else first
    except ValueError:
        raise PuzzleInputError(f"--rows {text!r}: expected A:B, row numbers from 1 (e.g. 21:40)") from None
    if first < 1 or last is not None and last < first:
        raise PuzzleInputError(f"--rows {text!r}: expected A:B with 1 <= A <= B")
    return first - 1, last


def _open_run(store: ResultsStore, run_id: str):
    if run_id not in store.run_ids():
        known = ", ".join(store.run_ids()[-5:]) or "none"
        raise PuzzleInputError(f"--run: {store.path} has no run {run_id!r} (the latest: {known})")
    return store.run(run_id)


def _header(run) -> dict:
    a = run.attrs
    return {"run_id": run.id, "family": a.get("family"), "algorithm": a.get("algorithm"), "status": a.get("status")}


def run_items(path: str | os.PathLike, run_id: str, start: int = 0, stop: int | None = DEFAULT_ROWS) -> dict:
    """Rows ``start .. stop - 1`` (0-based, clipped) of a run, decoded by its family's records module.

    Returns
    -------
    dict
        ``run_id``, ``family``, ``algorithm``, ``status``, ``rows`` (the run's committed rows), ``first`` and
        ``last`` (the 1-based rows listed), ``columns`` (name -> {"dtype", "shape"}) and ``items``: one dict a
        row, ``row`` (1-based) first.

    Raises
    ------
    PuzzleInputError
        No such file or run, or a row the records module cannot read.
    """
    with ResultsStore(path, "r") as store:
        run = _open_run(store, run_id)
        n = run.n_committed
        start = min(max(0, start), n)
        stop = n if stop is None else min(max(start, stop), n)
        try:
            rows = records(run.attrs.get("family")).items(run, start, stop)
        except _READ_ERRORS as exc:
            raise PuzzleInputError(f"{path}: run {run_id}: cannot read its rows ({exc})") from None
        columns = {name: {"dtype": dtype, "shape": list(shape)} for name, (dtype, shape) in run.column_info().items()}
        return {"path": os.fspath(path), **_header(run), "rows": n, "first": start + 1 if stop > start else 0,
                "last": stop, "columns": columns,
                "items": [{"row": start + i + 1, **row} for i, row in enumerate(rows)]}


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return value if len(value) <= _VALUE_CHARS else f"{value[:_VALUE_CHARS]}… ({len(value):,} characters)"
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return "/".join(value)  # lines of a grid
    if isinstance(value, list) and value and all(isinstance(v, list) and all(isinstance(x, int) for x in v)
                                                 for v in value):
        return " ".join("(" + ",".join(map(str, v)) + ")" for v in value)  # coordinates
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return _cell(value)


def format_items(doc: dict) -> str:
    """:func:`run_items`' dict as text: a header, then one line a row."""
    head = (f"run {doc['run_id']} ({doc['family']} {doc['algorithm']}, {doc['status']}): "
            + (f"rows {doc['first']}-{doc['last']} of {doc['rows']}" if doc["items"] else f"{doc['rows']} rows"))
    lines = [head]
    width = len(str(doc["last"] or 1))
    for item in doc["items"]:
        text = "  ".join(f"{k} {_value_text(v)}" for k, v in item.items() if k != "row")
        lines.append(_cut(f"{item['row']:>{width}}  {text}", _LINE_WIDTH))
    if doc["last"] < doc["rows"]:
        lines.append(f"(more: --rows {doc['last'] + 1}:{min(doc['rows'], doc['last'] + DEFAULT_ROWS)})")
    return "\n".join(lines)


# -- a stored solution ---------------------------------------------------------------------------------------------

def _latest_with_solutions(store: ResultsStore):
    for run_id in reversed(store.run_ids()):
        try:
            run = store.run(run_id)
            if run_description(run)["stored_solutions"]:
                return run
        except _READ_ERRORS:
            continue
    raise PuzzleInputError(f"show: {store.path} holds no stored solution (runs that keep them: counts with --all, "
                           "solves with --out)")


def run_solution(path: str | os.PathLike, run_id: str | None, number: int, picture: str | None = None) -> dict:
    """Stored solution ``number`` (1-based) of a run (default: the latest run that stores solutions), decoded by
    its family's records module, and drawn to ``picture`` if given.

    Returns
    -------
    dict
        ``run_id``, ``family``, ``algorithm``, ``status``, ``number``, ``of`` (the run's stored solutions), the
        records module's fields and ``text``; ``picture`` when drawn.

    Raises
    ------
    PuzzleInputError
        No such file or run, a run without stored solutions, ``number`` out of range, or no picture for the
        family.
    """
    with ResultsStore(path, "r") as store:
        run = _open_run(store, run_id) if run_id is not None else _latest_with_solutions(store)
        desc = run_description(run)
        n = desc["stored_solutions"]
        if not n:
            raise PuzzleInputError(_no_solutions(run) if desc["drawing"] is None else
                                   f"show: run {run.id} of {path} stored no solution (none was found, or the run "
                                   "stopped before the first)")
        if not 1 <= number <= n:
            raise PuzzleInputError(f"--solution: {number} is not between 1 and {n}")
        rec = records(run.attrs.get("family"))
        try:
            doc = dict(rec.solution(run, number - 1))
        except _READ_ERRORS as exc:
            if isinstance(exc, PuzzleInputError):
                raise
            raise PuzzleInputError(f"{path}: run {run.id}: cannot read solution {number} ({exc})") from None
        out = {**_header(run), "number": number, "of": n, **doc}
        if picture is not None:
            out["picture"] = os.fspath(rec.draw(run, number - 1, picture))
        return out


def format_solution(doc: dict) -> str:
    """:func:`run_solution`'s dict as text."""
    lines = [f"solution {doc['number']} of {doc['of']} (run {doc['run_id']}, {doc['family']} {doc['algorithm']}):"]
    if doc.get("text"):
        lines.append(doc["text"])
    if doc.get("picture"):
        lines.append(f"picture: {doc['picture']}")
    return "\n".join(lines)
