"""What the snake family's runs store, read back for ``show`` and the web app (the records protocol of
:mod:`puzzlebatch.results.show`).

``count --all`` and ``solve --out`` store one row a folding: ``cells``, the cell index (``x + a*(y + b*z)``) of
cubes 1..N, and ``weight``, how many embeddings the row stands for (itself and its images under the symmetries
merged into its work item; a solve's one row has weight 1).  The instances are ``chain`` (1 where a cube turns)
and ``box`` (its three sides).
"""

from __future__ import annotations

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.snake.model import Box
from puzzlebatch.results.show import plural, size_text

KIND = "snake"  # the web page's drawing


def _problem(run) -> tuple[Box, str | None]:
    inst = run.instances()
    params = run.attrs.get("params") or {}
    if "box" in inst:
        box = Box(*(int(v) for v in inst["box"]))
    else:
        from puzzlebatch.puzzles.snake.model import parse_box

        box = parse_box(str(params["box"]))
    chain = "".join("J" if c else "F" for c in inst["chain"]) if "chain" in inst else params.get("chain")
    _check_sizes(run, box, chain)
    return box, chain


def _check_sizes(run, box: Box, chain: str | None) -> None:
    """Sizes read from a file are checked like sizes typed on the command line (``puzzlebatch.limits``)."""
    from puzzlebatch import limits

    if min(box.dims) < 1:
        raise PuzzleInputError(f"run {run.id}: stored box {size_text(box.dims)} has a side under 1")
    limits.CELLS.check(box.a * box.b * box.c, f"run {run.id}: stored box {size_text(box.dims)}")
    if chain is not None:
        limits.CHAIN.check(len(chain), f"run {run.id}: stored chain")


def _stores_foldings(run) -> bool:
    a = run.attrs
    return "cells" in run.column_info() or a.get("algorithm") == "solve" or bool((a.get("params") or {}).get("all"))


def describe(run) -> dict:
    a = run.attrs
    n = run.n_committed if "cells" in run.column_info() else 0
    result = a.get("result") or {}
    params = a.get("params") or {}
    what = f"{params.get('chain', '?')} in {params.get('box', '?')}"
    if a.get("algorithm") == "solve":
        summary = f"{what}: " + ("one folding (cells of cubes 1..N)" if n else "no folding")
    elif n:
        summary = (f"{what}: {plural(n, 'folding')}, each with its weight (the embeddings it stands for: "
                   f"{result.get('embeddings', '?')} in all)")
    else:
        summary = f"{what}: counts only" + ("" if not params.get("all") else " (no folding stored yet)")
    return {"summary": summary, "stored_solutions": n, "drawing": KIND if _stores_foldings(run) else None,
            "rows_per_solution": 1}


def _coords(box: Box, cells) -> list[list[int]]:
    return box.coords()[np.asarray(cells, np.int64)].tolist()


def items(run, start: int, stop: int) -> list[dict]:
    cols = run.item_rows(start, stop)
    if "cells" not in cols:
        return []
    box, _ = _problem(run)
    return [{"cells": _coords(box, cells), "weight": int(w)} for cells, w in zip(cols["cells"], cols["weight"])]


def layers_text(cells: list[list[int]], box: Box) -> str:
    """The folding layer by layer: cube numbers (1-based) on each z layer, y growing downwards."""
    grid = np.zeros((box.c, box.b, box.a), dtype=int)
    for k, (x, y, z) in enumerate(cells):
        grid[z, y, x] = k + 1
    width = len(str(len(cells)))
    blocks = []
    for z in range(box.c):
        rows = [" ".join(f"{v:>{width}d}" for v in grid[z, y]) for y in range(box.b)]
        blocks.append([f"z={z}".ljust(len(rows[0]))] + rows)
    return "\n".join("   ".join(block[i] for block in blocks) for i in range(box.b + 1))


def solution(run, k: int) -> dict:
    """Folding ``k``: ``chain``, ``box`` (``AxBxC``), ``cells`` (the ``[x, y, z]`` of cubes 1..N, as ``snake solve
    --json`` prints them) and ``weight``."""
    box, chain = _problem(run)
    row = run.item_rows(k, k + 1)
    if not len(row.get("cells", ())):
        raise PuzzleInputError(f"run {run.id} has no folding {k + 1}")
    cells = _coords(box, row["cells"][0])
    weight = int(row["weight"][0]) if "weight" in row else 1
    counts = run.attrs.get("algorithm") != "solve"  # a count's row stands for `weight` embeddings
    text = f"{chain or 'chain'} in {box}" + (f" (weight {weight})" if counts else "") + "\n" + layers_text(cells, box)
    return {"chain": chain, "box": size_text(box.dims), "cells": cells, "weight": weight, "text": text}


def draw(run, k: int, path):
    from puzzlebatch.results.pictures import draw_snake

    doc = solution(run, k)
    box, _ = _problem(run)
    title = f"{doc['chain']} in {box}" if doc["chain"] else f"a folding in {box}"
    return draw_snake(np.array(doc["cells"]), box.dims, path, title=title)
