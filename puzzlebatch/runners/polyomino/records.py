"""What the polyomino family's runs store, read back for ``show`` and the web app (the records protocol of
:mod:`puzzlebatch.results.show`).

``count --all`` (a run called ``enumerate``) and a kept ``solve`` store one row a solution: ``solution``, the ids of
the options (placements) it uses, sorted, padded with -1.  The instances say what an id means: ``option_piece``
and ``option_cells`` (cells padded with -1), the level's pieces already on the board (``preplaced_piece``,
``preplaced_cells``), ``board_size``, ``piece_names`` and ``glyphs``; so a stored solution is drawn from the file
alone.  The playable cells are those some option or placed piece covers (a solution covers every one).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from puzzlebatch import limits
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.xp import sorted_unique
from puzzlebatch.results.show import plural, size_text, text_of
from puzzlebatch.runners.polyomino import letters

KIND = "polyomino"  # the web page's drawing


def packing(run) -> SimpleNamespace:
    """A stand-in for the packing of a stored run, enough to print and draw its solutions: ``board`` (size,
    playable cells, label), ``pieces`` (names), ``glyphs``, ``preplaced`` and the options' pieces and cells."""
    from puzzlebatch.puzzles.polyomino.packing import Board

    inst = run.instances()
    if "option_cells" not in inst:
        raise PuzzleInputError(f"run {run.id}: the problem's arrays are not stored (an older file?)")
    size = tuple(int(v) for v in inst["board_size"])
    if not size or min(size) < 1:
        raise PuzzleInputError(f"run {run.id}: stored board size {size} has a side under 1")
    limits.CELLS.check(int(np.prod(size, dtype=object)), f"run {run.id}: stored board {size_text(size)}")
    names = [text_of(n) for n in inst["piece_names"]]
    glyphs = [text_of(g) for g in inst["glyphs"]]
    option_cells = [c[c[:, 0] >= 0] for c in inst["option_cells"]]
    pre = [(int(k), frozenset(tuple(int(v) for v in c) for c in cs if c[0] >= 0))
           for k, cs in zip(inst["preplaced_piece"], inst["preplaced_cells"])]
    playable = {tuple(int(v) for v in c) for cells in option_cells for c in cells}
    playable |= {c for _, cells in pre for c in cells}
    label = str((run.attrs.get("params") or {}).get("board") or size_text(size))
    return SimpleNamespace(board=Board(size, frozenset(playable), {}, label=label),
                           pieces=[SimpleNamespace(name=n) for n in names], glyphs=glyphs, preplaced=pre,
                           option_cells=option_cells, option_piece=inst["option_piece"])


def _placements(pk, row) -> list[tuple[int, np.ndarray]]:
    return [(int(pk.option_piece[int(o)]), pk.option_cells[int(o)]) for o in row if o >= 0]


def _labels(run, k: int):
    """A tiling stored as a label grid (``polyomino solve --method cut`` on a large board: the input piece of
    every cell), or None."""
    if "labels" not in run.column_info():
        return None
    rows = run.item_rows(k, k + 1).get("labels")
    if rows is None or not len(rows):
        raise PuzzleInputError(f"run {run.id} has no solution {k + 1}")
    return np.asarray(rows[0])


def _labels_solution(run, labels) -> dict:
    """A large tiling as the page shows it: a picture (overview and a window at full scale), not cells."""
    import base64

    from puzzlebatch.results.large_pictures import png_bytes

    h, w = labels.shape
    params = run.attrs.get("params") or {}
    n = int(len(sorted_unique(np, labels[labels >= 0].ravel())))
    text = f"{params.get('board', f'{w}x{h}')}: {n:,} pieces tiled in regions (stored as a label grid)"
    return {"board": params.get("board", f"{w}x{h}"), "size": size_text((w, h)), "pieces": [], "colours": [],
            "placements": [], "letters": [], "legend": "", "text": text, "n_pieces": n,
            "image": "data:image/png;base64," + base64.b64encode(png_bytes(labels)).decode("ascii")}


def describe(run) -> dict:
    a = run.attrs
    params = a.get("params") or {}
    result = a.get("result") or {}
    if "labels" in run.column_info():
        n = run.n_committed
        return {"summary": f"{params.get('board', '?')}: " + ("one tiling stored (regions)" if n else
                                                              "no tiling stored"),
                "stored_solutions": n, "drawing": KIND, "rows_per_solution": 1}
    stores = "solution" in run.column_info() or a.get("algorithm") in ("enumerate", "solve")
    n = run.n_committed if "solution" in run.column_info() else 0
    what = f"{params.get('board', '?')} with {params.get('pieces', '?')}"
    if a.get("algorithm") == "enumerate":
        total = result.get("solutions")
        summary = f"{what}: {plural(n, 'solution')} stored" + (
            f" of {total:,}" if isinstance(total, int) and total != n else "")
    elif a.get("algorithm") == "solve":
        summary = f"{what}: " + ("one solution stored" if n else "no solution stored")
    else:
        summary = f"{what}: counts only"
    return {"summary": summary, "stored_solutions": n, "drawing": KIND if stores else None, "rows_per_solution": 1}


def items(run, start: int, stop: int) -> list[dict]:
    if "labels" in run.column_info():
        return [{"tiling": f"{len(sorted_unique(np, lab[lab >= 0].ravel())):,} pieces on {lab.shape[1]}x{lab.shape[0]}"}
                for lab in run.item_rows(start, stop).get("labels", [])]
    rows = run.item_rows(start, stop).get("solution")
    if rows is None or not len(rows):
        return []
    pk = packing(run)
    out = []
    for row in rows:
        placed = _placements(pk, row)
        out.append({"letters": letters.grid_text(pk, placed).splitlines(),
                    "placements": letters.placements_json(pk, placed)})
    return out


def solution(run, k: int) -> dict:
    """Solution ``k``: ``board`` (its label), ``size`` (``WxH[xD]``), ``pieces`` (names), ``colours`` (one a piece,
    as the pictures and the web page colour them), ``placements`` (``{"piece", "cells", "placed"}``, ``placed``
    for a level's pieces already on the board; as ``polyomino solve --json`` prints them), ``letters`` (the
    board as letters, one line a row) and ``legend``."""
    from puzzlebatch.results.colours import piece_colours

    labels = _labels(run, k)
    if labels is not None:
        return _labels_solution(run, labels)
    pk = packing(run)
    rows = run.item_rows(k, k + 1).get("solution")
    if rows is None or not len(rows):
        raise PuzzleInputError(f"run {run.id} has no solution {k + 1}")
    placed = _placements(pk, rows[0])
    names = [p.name for p in pk.pieces]
    pieces = [(i, sorted([int(v) for v in c] for c in cells), True) for i, cells in pk.preplaced]
    pieces += [(i, sorted([int(v) for v in c] for c in cells), False) for i, cells in placed]
    placements = [{"piece": names[i], "cells": cells, "placed": pre}  # as letters.placements_json orders them
                  for i, cells, pre in sorted(pieces, key=lambda p: (p[0], p[1]))]
    grid = letters.grid_text(pk, placed)
    legend = letters.legend(pk)
    return {"board": pk.board.label, "size": size_text(pk.board.size), "pieces": names,
            "colours": piece_colours(names), "placements": placements, "letters": grid.splitlines(),
            "legend": legend, "text": grid + (f"\n{legend}" if legend else "")}


def draw(run, k: int, path):
    from puzzlebatch.results.pictures import draw_packing

    labels = _labels(run, k)
    if labels is not None:
        from puzzlebatch.results.large_pictures import draw_labels

        return draw_labels(labels, path, title=f"{(run.attrs.get('params') or {}).get('board')}: the tiling")
    pk = packing(run)
    rows = run.item_rows(k, k + 1).get("solution")
    if rows is None or not len(rows):
        raise PuzzleInputError(f"run {run.id} has no solution {k + 1}")
    return draw_packing(pk, _placements(pk, rows[0]), path, title=f"{pk.board.label}: solution {k + 1} of "
                                                                 f"{run.n_committed}")
