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


def _open(root: Path, rel: str):
    from puzzlebatch.results.store import ResultsStore

    return ResultsStore(resolve(root, rel), "r")


def _run(store, run_id: str):
    if run_id not in store.run_ids():
        raise NotFound(f"run {run_id!r}: not in this file")
    return store.run(run_id)


def drawable(attrs: dict, columns: dict) -> str | None:
    """What kind of drawing a run's rows make (None: a table only)."""
    family, algorithm = attrs.get("family"), attrs.get("algorithm")
    if family == "polyomino" and "solution" in columns:
        return "polyomino"
    if family == "snake" and "cells" in columns:
        return "snake"
    if family == "cubes" and algorithm == "solve" and "faces" in columns:
        return "cubes"
    if family == "sliding" and algorithm == "solve" and "moves" in columns:
        return "sliding"
    if family == "hextris" and "solution" in columns and "problemId" in columns:
        return "hextris"
    return None


def describe_file(root: Path, rel: str) -> dict:
    """``puzzlebatch show FILE --json``, with the path as the request named it and each run's drawing kind."""
    from puzzlebatch.results.show import describe

    desc = describe(resolve(root, rel))
    desc["path"] = rel
    for run in desc["runs"]:
        run["drawable"] = drawable(run, run.get("columns") or {})
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


def items_page(root: Path, rel: str, run_id: str, offset: int, limit: int) -> dict:
    """Rows ``offset .. offset + limit`` of a run's items."""
    limits.check_range("limit", limit, 1, limits.MAX_PAGE_ROWS)
    with _open(root, rel) as store:
        run = _run(store, run_id)
        total = run.n_committed
        limits.check_range("offset", offset, 0, max(0, total))
        cols = run.item_rows(offset, offset + limit)
        names = list(cols)
        n = len(next(iter(cols.values()))) if cols else 0
        rows = [[_cell(cols[c][i]) for c in names] for i in range(n)]
        return {"columns": names, "rows": rows, "offset": offset, "total": total}


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


def solution(root: Path, rel: str, run_id: str, row: int) -> dict:
    """Stored solution ``row`` (0-based) of a run, as the page draws it (``kind`` names the drawing)."""
    with _open(root, rel) as store:
        run = _run(store, run_id)
        attrs = run.attrs
        kind = drawable(attrs, run.column_info())
        if kind is None:
            raise NotFound(f"run {run_id}: {attrs.get('family')} {attrs.get('algorithm')} rows have no drawing")
        n = run.n_committed
        if kind != "cubes" and not 0 <= row < n:
            raise NotFound(f"row {row}: the run has rows 0..{n - 1}" if n else f"run {run_id} has no rows")
        doc = {"kind": kind, "run": run_id, "row": row, "rows": n, "family": attrs.get("family"),
               "algorithm": attrs.get("algorithm")}
        return doc | _DRAW[kind](run, attrs, row)


def _polyomino(run, attrs: dict, row: int) -> dict:
    inst = run.instances()
    size = [int(v) for v in inst["board_size"]]
    names = [n.decode() if isinstance(n, bytes) else str(n) for n in inst["piece_names"]]
    option_piece, option_cells = inst["option_piece"], inst["option_cells"]
    placements = []
    for k, cells in zip(inst["preplaced_piece"], inst["preplaced_cells"]):
        placements.append({"piece": names[int(k)], "cells": cells[cells[:, 0] >= 0].tolist(), "placed": True})
    for o in run.item_rows(row, row + 1)["solution"][0]:
        if o >= 0:
            cells = option_cells[int(o)]
            placements.append({"piece": names[int(option_piece[int(o)])], "cells": cells[cells[:, 0] >= 0].tolist(),
                               "placed": False})
    from puzzlebatch.results.colours import piece_colours

    return {"size": size, "pieces": names, "colours": piece_colours(names), "placements": placements}


def _snake(run, attrs: dict, row: int) -> dict:
    from puzzlebatch.puzzles.snake.model import Box

    inst = run.instances()
    box = Box(*(int(v) for v in inst["box"]))
    cells = run.item_rows(row, row + 1)["cells"][0]
    chain = "".join("J" if c else "F" for c in inst["chain"]) if "chain" in inst else None
    return {"box": list(box.dims), "cells": box.coords()[np.asarray(cells, np.int64)].tolist(), "chain": chain}


def _cubes(run, attrs: dict, row: int) -> dict:
    items = run.items()  # a solve run holds one assembly: a row per cube
    return {"assembly": [{"cell": items["cell"][i].tolist(), "cube": int(items["cube"][i]),
                          "faces": items["faces"][i].tolist()} for i in range(len(items["cube"]))],
            "rows": 1, "row": 0}


def _sliding(run, attrs: dict, row: int) -> dict:
    from puzzlebatch.puzzles.sliding.model import Board, replay

    tiles = [int(v) for v in run.instances()["boards"][row]]
    params = attrs.get("params") or {}
    rows, cols = _sliding_shape(len(tiles), params.get("size"))
    moves = [int(m) for m in str(run.item_rows(row, row + 1)["moves"][0]).split()]
    replay(Board(rows, cols, tuple(tiles)), moves)  # a stored path must be legal before it is animated
    return {"size": [rows, cols], "tiles": tiles, "moves": moves, "goal": params.get("goal", "blank-last")}


def _sliding_shape(n: int, size: str | None) -> tuple[int, int]:
    if size:
        r, c = (int(v) for v in str(size).lower().split("x"))
        if r * c == n:
            return r, c
    side = int(round(n ** 0.5))
    if side * side == n:
        return side, side
    rows = max(r for r in range(2, side + 1) if n % r == 0)  # 12 tiles: 3x4, the BFS-sized board
    return rows, n // rows


def _hextris(run, attrs: dict, row: int) -> dict:
    r = run.item_rows(row, row + 1)
    text = str(r["solution"][0])
    return {"problemId": int(r["problemId"][0]), "seed": int(r["seed"][0]), "solution_chars": len(text)}


_DRAW = {"polyomino": _polyomino, "snake": _snake, "cubes": _cubes, "sliding": _sliding, "hextris": _hextris}


def stored_hextris_solution(root: Path, rel: str, run_id: str, row: int) -> dict:
    """Problem, seed and commands of a stored hex Tetris game (for the replay)."""
    with _open(root, rel) as store:
        run = _run(store, run_id)
        if drawable(run.attrs, run.column_info()) != "hextris":
            raise NotFound(f"run {run_id}: not a hex Tetris play")
        n = run.n_committed
        if not 0 <= row < n:
            raise NotFound(f"row {row}: the run has rows 0..{n - 1}" if n else f"run {run_id} has no rows")
        r = run.item_rows(row, row + 1)
        return {"problem": int(r["problemId"][0]), "seed": int(r["seed"][0]), "solution": str(r["solution"][0])}
