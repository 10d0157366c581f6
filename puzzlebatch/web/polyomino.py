"""The level workshop's engine side: levels as JSON <-> the command line's packings, and the worker tasks.

A level in JSON::

    {"board": "11x5", "pieces": "iq-puzzler-pro", "pieces_text": null, "unlimited": false, "copies": null,
     "mirror": "default", "holes": [[x, y], ...], "placed": [{"piece": "blue", "cells": [[x, y], ...]}, ...]}

is turned into the level file the command line reads (``.`` a cell, ``#`` a hole, a piece's letter where it lies)
and parsed by the same code (:func:`puzzlebatch.puzzles.polyomino.packing.parse_board_text` and ``build``), so a
wrong level fails with the command line's one-line message.  Pieces come from the shipped sets by name or from a
piece file's text; never from a path on the server.
"""

from __future__ import annotations

import re
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.web import limits
from puzzlebatch.web.tasks import Context, ensure_warm

_SIZE = re.compile(r"^\s*(\d+)\s*x\s*(\d+)\s*(?:x\s*(\d+))?\s*$", re.I)
_MIRROR = {"yes": True, "no": False, "default": None}


# -- pieces and boards -------------------------------------------------------------------------------------------
def load_pieces(spec: dict) -> list:
    """The pieces of a request: ``pieces_text`` (a piece file's text) or ``pieces`` (shipped set names joined by
    ``+``), with the ``unlimited``, ``copies`` and ``mirror`` options of the command line."""
    from puzzlebatch.puzzles.polyomino import shapes as S

    text = spec.get("pieces_text")
    if text:
        if len(text) > limits.MAX_PIECES_TEXT:
            raise PuzzleInputError(f"pieces: the piece file has {len(text):,} characters, more than the "
                                   f"{limits.MAX_PIECES_TEXT:,} allowed")
        pieces = S.parse_pieces(text, "pieces")
    else:
        pieces = []
        names = S.set_names()
        for part in str(spec.get("pieces") or "").split("+"):
            part = part.strip()
            if part not in names:  # a name only: never a file on the server
                raise PuzzleInputError(f"--pieces: unknown piece set {part!r} (known: {', '.join(names)}; "
                                       "or a piece file's text)")
            S.add_set(pieces, S.named_set(part), shipped=True)
    if len(pieces) > limits.MAX_PIECES:
        raise PuzzleInputError(f"pieces: {len(pieces)} pieces, more than the {limits.MAX_PIECES} allowed")
    copies = spec.get("copies")
    if copies is not None:
        limits.check_range("--copies", int(copies), 1, limits.MAX_COPIES)
    mirror = spec.get("mirror") or "default"
    if mirror not in _MIRROR:
        raise PuzzleInputError(f"--mirror: {mirror!r} is not one of yes, no, default")
    return S.with_options(pieces, bool(spec.get("unlimited")), _MIRROR[mirror], copies)


def board_size(text: str) -> tuple[int, ...]:
    """``WxH`` or ``WxHxD`` within the limits."""
    m = _SIZE.match(str(text))
    if not m:
        raise PuzzleInputError(f"--board: {text!r} is not WxH or WxHxD")
    size = tuple(int(v) for v in m.groups() if v is not None)
    if min(size) < 1 or max(size[:2]) > limits.MAX_BOARD_SIDE or (len(size) == 3 and size[2] > limits.MAX_BOARD_DEPTH):
        raise PuzzleInputError(f"--board: {text} must have sides 1..{limits.MAX_BOARD_SIDE} and depth "
                               f"1..{limits.MAX_BOARD_DEPTH}")
    if int(np.prod(size)) > limits.MAX_BOARD_CELLS:
        raise PuzzleInputError(f"--board: {text} has {int(np.prod(size))} cells, more than the "
                               f"{limits.MAX_BOARD_CELLS} allowed")
    return size


def _cell(c, size: tuple[int, ...], where: str) -> tuple[int, ...]:
    try:
        cell = tuple(int(v) for v in c)
    except (TypeError, ValueError):
        raise PuzzleInputError(f"{where}: {c!r} is not a cell") from None
    if len(cell) != len(size) or any(not 0 <= v < s for v, s in zip(cell, size)):
        raise PuzzleInputError(f"{where}: cell {list(cell)} is outside the {'x'.join(map(str, size))} board")
    return cell


def level_text(spec: dict, pieces: list) -> str:
    """The level file of a JSON level: ``.`` cells, ``#`` holes, the glyph of each placed piece."""
    from puzzlebatch.puzzles.polyomino.packing import glyphs_for

    size = board_size(spec.get("board", "11x5"))
    grid = np.full(size[::-1] if len(size) == 3 else (1,) + size[::-1], ".", dtype="<U1")  # [z][y][x]

    def at(cell):
        return (cell[2] if len(cell) == 3 else 0, cell[1], cell[0])

    for c in spec.get("holes") or []:
        grid[at(_cell(c, size, "holes"))] = "#"
    glyph = dict(zip((p.name for p in pieces), glyphs_for(pieces)))
    for k, pl in enumerate(spec.get("placed") or []):
        name = pl.get("piece")
        if name not in glyph:
            raise PuzzleInputError(f"placed[{k}]: {name!r} is not a piece of this set")
        for c in pl.get("cells") or []:
            cell = at(_cell(c, size, f"placed[{k}] ({name})"))
            if grid[cell] != ".":
                what = "a hole" if grid[cell] == "#" else "taken by another piece"
                raise PuzzleInputError(f"placed[{k}] ({name}): cell {list(c)} is {what}")
            grid[cell] = glyph[name]
    return "\n\n".join("\n".join("".join(row) for row in layer) for layer in grid) + "\n"


def packing(spec: dict):
    """The :class:`~puzzlebatch.puzzles.polyomino.packing.Packing` of a JSON level."""
    from puzzlebatch.puzzles.polyomino import packing as P

    pieces = load_pieces(spec)
    board = P.parse_board_text(level_text(spec, pieces), "level")
    board.label = str(spec.get("board", "11x5")).strip().lower()
    return P.build(board, pieces)


def set_info(spec: dict) -> dict:
    """The pieces of a set for the palette: name, glyph, colour, copies, turns and every allowed orientation."""
    from puzzlebatch.puzzles.polyomino.packing import glyphs_for
    from puzzlebatch.results.colours import piece_colours

    pieces = load_pieces(spec)
    colours = piece_colours(p.name for p in pieces)
    return {"dim": pieces[0].dim, "pieces": [
        {"name": p.name, "glyph": g, "colour": colour, "size": p.size, "count": p.count, "turns": p.turns,
         "dim": p.dim, "cells": sorted(list(c) for c in p.cells),
         "orientations": [sorted(list(c) for c in o) for o in p.orientations()]}
        for p, g, colour in zip(pieces, glyphs_for(pieces), colours)]}


def import_level(text: str, spec: dict) -> dict:
    """A level file (the command line's format) as a JSON level of the pieces in ``spec``."""
    from puzzlebatch.puzzles.polyomino import packing as P

    if len(text) > limits.MAX_LEVEL_TEXT:
        raise PuzzleInputError(f"level file: {len(text):,} characters, more than the {limits.MAX_LEVEL_TEXT:,} "
                               "allowed")
    pieces = load_pieces(spec)
    board = P.parse_board_text(text, "level file")
    label = "x".join(map(str, board.size))
    board_size(label)
    board.label = "level file"
    pk = P.build(board, pieces)  # the command line's checks: letters, shapes, copies
    holes = [list(c) for c in np.ndindex(*board.size) if tuple(c) not in board.playable]
    return {"board": label, "holes": holes, "placed": _placements(pk, pk.preplaced)}


def export_level(spec: dict) -> str:
    """The level file of a JSON level (checked first): rows of ``.``, ``#`` and letters, layers separated by a
    blank line; for a flat board what ``polyomino levels generate`` writes, with ``#`` for holes."""
    pk = packing(spec)
    return level_text(spec, pk.pieces)


def _placements(pk, placements) -> list[dict]:
    return [{"piece": pk.pieces[k].name, "cells": sorted([int(v) for v in c] for c in cells)}
            for k, cells in placements]


def level_json(spec: dict, pk, placed) -> dict:
    """A JSON level with ``placed`` (pairs of piece index and cells) as its pieces."""
    keep = {k: spec.get(k) for k in ("board", "pieces", "pieces_text", "unlimited", "copies", "mirror", "holes")}
    return keep | {"placed": _placements(pk, placed)}


# -- worker tasks ------------------------------------------------------------------------------------------------
def solve_task(params: dict, ctx: Context) -> dict:
    """The first solution of a level (``polyomino solve``); stored in the results folder when ``keep``."""
    from puzzlebatch.runners.polyomino import solver as RP
    from puzzlebatch.runners.engine.backend import select_backend

    pk = packing(params)
    compile_s = ensure_warm("polyomino", ctx)
    backend = select_backend("auto")
    res = RP.solve_packing(pk, backend)
    doc = {"solved": res.solved, "placements": _placements(pk, res.placements), "level": _placements(pk, pk.preplaced),
           "nodes": int(res.nodes), "seconds": res.seconds, "backend": res.backend, "device": backend.device,
           "compile_seconds": compile_s}
    if params.get("keep") and res.solved:
        doc["stored"] = _keep_solution(ctx.results_dir, pk, params, res, backend)
    return doc


def _keep_solution(folder: Path, pk, params: dict, res, backend) -> dict:
    """A run like ``polyomino count --all`` stores (the problem and one solution row), so it draws the same."""
    from puzzlebatch.runners.engine.session import RunOptions, Session
    from puzzlebatch.runners.polyomino.letters import option_row
    from puzzlebatch.runners.polyomino.solver import problem_arrays

    row = option_row(pk, res.placements)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-%f")
    path = folder / f"polyomino-solve-{stamp}.h5"
    pieces = params.get("pieces_text") and "pieces file" or params.get("pieces")
    run_params = {"board": pk.board.label, "pieces": pieces, "level": "", "level_text": level_text(params, pk.pieces),
                  "source": "web"}
    with Session(RunOptions(out=path, progress=False), "polyomino", "solve", run_params, backend, keep=False,
                 instances=problem_arrays(pk)) as s:
        s.append_items(solution=row[None].astype(np.int32))
        doc = s.finish({"solved": True, "nodes": int(res.nodes), "seconds": res.seconds}, True, seconds=res.seconds)
    return {"file": path.name, "run": doc["run_id"]}


def count_task(params: dict, ctx: Context) -> dict:
    """Every solution and the distinct ones (``polyomino count``), with progress after every batch."""
    from puzzlebatch.runners.polyomino import solver as RP
    from puzzlebatch.runners.engine.backend import select_backend

    pk = packing(params)
    compile_s = ensure_warm("polyomino", ctx)
    backend = select_backend("auto")
    t0 = time.perf_counter()

    def on_batch(front, totals) -> None:
        from puzzlebatch.runners.engine.progress import eta_seconds

        seconds = time.perf_counter() - t0
        eta = eta_seconds(totals.done, 0.0, seconds)
        ctx.progress({"classes": int(totals.count), "nodes": int(totals.nodes), "items_left": len(front),
                      "batches": int(totals.batches), "seconds": round(seconds, 2),
                      "done": round(float(totals.done), 4), "eta_seconds": None if eta is None else round(eta, 1)})
        ctx.check()

    res, _, _ = RP.count_packing_run(pk, backend, on_batch=on_batch)
    return res.to_json() | {"board": list(pk.board.size), "pieces": [p.name for p in pk.pieces],
                            "device": backend.device, "compile_seconds": compile_s}


def generate_task(params: dict, ctx: Context) -> dict:
    """A level with a unique solution (``polyomino levels generate``): ``pieces_left`` pieces to place."""
    from puzzlebatch.runners.polyomino import solver as RP

    spec = dict(params, placed=[])  # made from the empty board (its holes kept)
    pk = packing(spec)
    difficulty = int(params.get("pieces_left", 4))
    seed = limits.check_range("seed", int(params.get("seed", 0)), 0, limits.MAX_SEED)
    compile_s = ensure_warm("polyomino", ctx)
    t0 = time.perf_counter()
    [level] = RP.generate_levels(pk, 1, difficulty, seed)
    out: dict[str, Any] = level_json(spec, pk, level.placed)
    return {"level": out, "pieces_left": level.left, "seed": seed, "text": export_level(out),
            "seconds": time.perf_counter() - t0, "compile_seconds": compile_s}
