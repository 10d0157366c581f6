"""The results browser's reads: files, runs, pages of items, CSV, and stored solutions ready to draw.

Every file is opened read-only through :class:`puzzlebatch.results.store.ResultsStore` (so a file being written by
a running command can be looked at), and only after :func:`puzzlebatch.web.paths.resolve` has checked its name.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from puzzlebatch.web import limits
from puzzlebatch.web.paths import NotFound, resolve


RETRIES = 3  # a read that races a writer's commit is tried again on a fresh view of the file
RETRY_SECONDS = 0.05


def _open(root: Path, rel: str):
    from puzzlebatch.results.store import ResultsStore

    return ResultsStore(resolve(root, rel), "r")


def _retrying(read):
    """Run ``read`` (which opens the file itself), again on a racing read: a file read while its writer commits
    may show a half-written page for a moment.  A read that keeps failing is one line naming the file."""
    import functools
    import time

    from puzzlebatch.errors import PuzzleInputError
    from puzzlebatch.results.h5util import one_line_reason

    @functools.wraps(read)
    def wrapper(root: Path, rel: str, *args, **kwargs):
        for attempt in range(RETRIES):
            try:
                return read(root, rel, *args, **kwargs)
            except (OSError, RuntimeError, KeyError, ValueError, TypeError, IndexError) as exc:
                if isinstance(exc, PuzzleInputError):
                    raise
                if attempt == RETRIES - 1:
                    raise PuzzleInputError(f"{rel}: damaged results file ({one_line_reason(exc)})") from None
                time.sleep(RETRY_SECONDS)
        raise AssertionError("unreachable")

    return wrapper


def _run(store, run_id: str):
    if run_id not in store.run_ids():
        raise NotFound(f"run {run_id!r}: not in this file")
    return store.run(run_id)


@_retrying
def describe_file(root: Path, rel: str) -> dict:
    """``puzzlebatch show FILE --json``, with the path as the request named it and each run's drawing kind
    (``drawable``: what the page draws a stored solution as, None for a table only)."""
    from puzzlebatch.results.show import describe

    desc = describe(resolve(root, rel))
    desc["path"] = rel
    for run in desc["runs"]:
        run["drawable"] = run.get("drawing") if run.get("stored_solutions") else None
    return desc


def _cell(value: Any) -> Any:
    """One table cell as JSON: arrays as lists, long strings cut."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str) and len(value) > limits.MAX_CELL_CHARS:
        return value[:limits.MAX_CELL_CHARS] + f"… ({len(value):,} characters)"
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


@_retrying
def items_page(root: Path, rel: str, run_id: str, offset: int, limit: int) -> dict:
    """Rows ``offset .. offset + limit`` of a run's items: ``columns`` and ``rows`` as stored (long strings cut),
    and ``items``, the same rows decoded by the family's records module (``puzzlebatch show FILE --run ID
    --json``)."""
    from puzzlebatch.errors import PuzzleInputError
    from puzzlebatch.results.show import records

    limits.check_range("limit", limit, 1, limits.MAX_PAGE_ROWS)
    with _open(root, rel) as store:
        run = _run(store, run_id)
        total = run.n_committed
        limits.check_range("offset", offset, 0, max(0, total))
        cols = run.item_rows(offset, offset + limit)
        names = list(cols)
        n = len(next(iter(cols.values()))) if cols else 0
        rows = [[_cell(cols[c][i]) for c in names] for i in range(n)]
        try:
            decoded = records(run.attrs.get("family")).items(run, offset, offset + n)
        except (PuzzleInputError, OSError, RuntimeError, KeyError, ValueError, IndexError, TypeError):
            decoded = None  # the table as stored is still shown
        items = None if decoded is None else [{"row": offset + i + 1, **{k: _cut(v) for k, v in item.items()}}
                                              for i, item in enumerate(decoded)]
        return {"columns": names, "rows": rows, "offset": offset, "total": total, "items": items}


def _cut(value: Any) -> Any:
    """A decoded value with its long strings cut, as the table cuts them."""
    if isinstance(value, str):
        return _cell(value)
    if isinstance(value, list):
        return [_cut(v) for v in value]
    if isinstance(value, dict):
        return {k: _cut(v) for k, v in value.items()}
    return value


def _csv_value(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return " ".join(str(v) for v in value.ravel().tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return str(value)


def items_csv(root: Path, rel: str, run_id: str, chunk: int = 10_000) -> Iterator[str]:
    """A run's items as CSV text (arrays as space-separated values), in chunks, at most ``MAX_CSV_ROWS`` rows.

    The file is checked before the first chunk is produced, so a bad request fails before the download starts.
    """
    store = _open(root, rel)
    try:
        run = _run(store, run_id)
    except BaseException:
        store.close()
        raise

    def rows() -> Iterator[str]:
        try:
            total = min(run.n_committed, limits.MAX_CSV_ROWS)
            buf = io.StringIO()
            writer = csv.writer(buf, lineterminator="\n")
            names = list(run.column_info())
            writer.writerow(["row"] + names)
            for lo in range(0, total, chunk):
                cols = run.item_rows(lo, min(total, lo + chunk))
                for i in range(len(next(iter(cols.values())))):
                    writer.writerow([lo + i + 1] + [_csv_value(cols[c][i]) for c in names])
                yield buf.getvalue()
                buf.seek(0)
                buf.truncate()
            if not total:
                yield buf.getvalue()
        finally:
            store.close()

    return rows()


def _sizes(doc: dict) -> dict:
    """A records document as the page draws it: sizes (``"3x3x3"``) as lists of numbers."""
    out = dict(doc)
    for key in ("size", "box"):
        if isinstance(out.get(key), str) and all(part.isdigit() for part in out[key].split("x")):
            out[key] = [int(part) for part in out[key].split("x")]
    return out


@_retrying
def stored_solution(root: Path, rel: str, run_id: str, row: int, kind: str | None = None) -> dict:
    """The stored solution of row ``row`` (0-based) of a run, decoded by its family's records module (the fields of
    ``puzzlebatch show FILE --run ID --solution K --json``), with ``kind``, its drawing; ``kind`` given: the run
    must draw as that (404 otherwise)."""
    from puzzlebatch.errors import PuzzleInputError
    from puzzlebatch.limits import LimitError
    from puzzlebatch.results.show import records, run_description

    with _open(root, rel) as store:
        run = _run(store, run_id)
        attrs = run.attrs
        desc = run_description(run)
        drawing = desc["drawing"] if desc["stored_solutions"] else None
        if drawing is None or kind is not None and drawing != kind:
            raise NotFound(f"run {run_id}: {attrs.get('family')} {attrs.get('algorithm')} rows have no "
                           + (f"{kind} to replay" if kind else "drawing"))
        n = run.n_committed
        k = row // desc["rows_per_solution"]
        if not 0 <= row < n or k >= desc["stored_solutions"]:
            raise NotFound(f"row {row}: the run has rows 0..{n - 1}" if n else f"run {run_id} has no rows")
        try:
            doc = records(attrs.get("family")).solution(run, k)
        except LimitError:
            raise  # a size over a limit: 400, as on the command line
        except (PuzzleInputError, OSError, RuntimeError, KeyError, ValueError, IndexError, TypeError) as exc:
            raise NotFound(f"run {run_id} row {row}: cannot read it ({' '.join(str(exc).split())})") from None
        return {"kind": drawing, "run": run_id, "row": k if desc["rows_per_solution"] > 1 else row,
                "rows": n // desc["rows_per_solution"], "family": attrs.get("family"),
                "algorithm": attrs.get("algorithm")} | {key: v for key, v in doc.items() if key != "text"}


def solution(root: Path, rel: str, run_id: str, row: int) -> dict:
    """Stored solution ``row`` (0-based) of a run, as the page draws it (``kind`` names the drawing; sizes are
    lists of numbers)."""
    return _sizes(stored_solution(root, rel, run_id, row))
