"""Polyomino and polycube packings: solve, count (and store every solution), random-cut puzzles, levels, DLX.

Long because it is the family's whole public API: the batch-DFS count and solve, the methods for large boards
(transfer-matrix counts, band-by-band tilings, shape classes, the cut search), the generators and the DLX bridge,
each with its result class.

A problem is a board and pieces, given as on the command line or as objects:

- ``board``: ``"WxH"``, ``"WxHxD"``, a board file (``.`` a cell, ``#`` a hole, letters: placed pieces; layers for
  3D), or a :class:`~puzzlebatch.puzzles.polyomino.packing.Board`; ``level``: a level file (or ``Board``) instead;
- ``pieces``: a shipped set's name (``"pentominoes"``, ``"soma"``, ...), a piece file, several joined by ``+``, or
  a list of :class:`~puzzlebatch.puzzles.polyomino.shapes.Piece`; ``unlimited``, ``copies`` and ``mirror``
  (``True``/``False``/``None`` or ``"yes"``/``"no"``/``"default"``) as the command line's options.

Examples
--------
>>> import puzzlebatch as pb
>>> r = pb.polyomino.count("6x10", "pentominoes", backend="cpu")  # doctest: +SKIP
>>> r.solutions, r.distinct  # doctest: +SKIP
(9356, 2339)
>>> print(pb.polyomino.solve("3x3x3", "soma").letters)  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from pathlib import Path
from typing import Any, Sequence

from puzzlebatch import limits
from puzzlebatch.api.common import Result, backend_of, internal, options_of, settings_of
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.puzzles.polyomino import strip as ST
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.search import SearchSettings
from puzzlebatch.runners.engine.session import RunOptions, Session

__all__ = ["count", "solve", "generate", "levels", "dlx_export", "dlx_solve", "packing_of", "pieces_of",
           "board_of", "choose_method", "search_estimate", "PolyominoCount", "PolyominoStripCount",
           "PolyominoSolution", "PolyominoCut", "PolyominoLevels", "PolyominoDLX", "Piece"]

#: ``solve`` with ``method="auto"`` tiles a plain rectangle of more cells than this band by band (``--unlimited``)
BAND_AUTO_CELLS = 2500
#: ``method="auto"`` solves a cut puzzle (each piece once, covering the board) of at least this many pieces by the
#: cut search
CUT_AUTO_PIECES = 30
METHODS = ("auto", "search", "band", "classes", "cut")
_MIRROR = {"yes": True, "no": False, "default": None}
_RECT = re.compile(r"^\s*(\d+)x(\d+)\s*$")

Board = P.Board
Piece = S.Piece


def _without_none(doc: dict, keep: Sequence[str] = ()) -> dict:
    return {k: v for k, v in doc.items() if v is not None or k in keep}


def _size_text(size) -> str:
    return "x".join(str(int(v)) for v in size)


# -- results -------------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class PolyominoCount(Result):
    """Every packing of the pieces on the board, and the distinct ones.

    Attributes
    ----------
    solutions
        Every packing (each image under the board's symmetries counted).
    distinct
        The packings up to the board's symmetries (None when counted with ``distinct=False``).
    symmetries
        The order of the board's symmetry group used (1 with ``distinct=False``).
    leaves
        Subproblems of the symmetry breaking.
    nodes, seconds, backend, device
        The search's size, its work time (compiling excluded), where it ran.
    branch, prune
        The branching rule and whether the dead-region test ran.
    complete
        False when stopped early (``max_batches``): the counts so far; the run resumes from ``out``.
    note
        What else happened (subproblems that kept symmetries and were enumerated).
    merged_layers
        Layers counted by merged states on the CPU before any tree search (0: a plain tree search; see
        ``merge``).  ``nodes`` counts the children those layers made and the tree search's nodes.
    board, pieces
        The board's size (``"6x10"``) and the pieces' names.
    verified
        With ``verify``: how the second count split the work (the counts agreed).
    out, run_id, work
        The results file and run (None when nothing was stored), and what each worker did.
    """

    solutions: int
    distinct: int | None
    symmetries: int
    leaves: int
    nodes: int
    seconds: float
    backend: str
    branch: str
    prune: bool
    complete: bool
    note: str
    board: str
    pieces: list[str]
    device: str
    merged_layers: int = 0
    verified: dict | None = None
    out: str | None = None
    run_id: str | None = None
    work: Any = None
    label: str = internal("")  # the board as given (WxH, a file's name)
    batches: int = internal(0)  # launches so far
    items_left: int = internal(0)  # work items left when stopped early

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON values, without the keys that do not apply (None)."""
        return _without_none(super().to_dict(), ("distinct", "out", "run_id"))


@dataclasses.dataclass
class PolyominoStripCount(Result):
    """The tilings of a ``W x H`` rectangle with unlimited pieces, by the transfer matrix (exact, any size).

    Attributes
    ----------
    solutions
        The number of tilings (a Python integer of any size).
    digits, log2_estimate
        Its decimal digits, and log2 of it by a float run (None when there is no tiling).
    method
        ``crt`` (residues modulo 62-bit primes on the backend), ``bigint`` (Python integers on the CPU) or
        ``kasteleyn`` (the domino's product formula; no profile graph: ``profiles``, ``edges`` and ``window`` 0).
    profiles, edges, window, moduli
        The profile graph's size, its window in cells, and how many moduli the CRT combined.
    board, pieces, seconds, graph_seconds, backend, device
        The rectangle, the pieces' names, the time (and the graph's share of it), where it ran.
    """

    solutions: int
    board: str
    method: str
    backend: str
    seconds: float
    graph_seconds: float
    profiles: int
    edges: int
    window: int
    moduli: int
    digits: int
    log2_estimate: float | None
    pieces: list[str]
    device: str
    extra: dict = internal(None)  # the device traffic of the count (h2d_bytes, d2h_bytes, launches)


@dataclasses.dataclass
class PolyominoSolution(Result):
    """One packing of the pieces on the board, or none.

    Attributes
    ----------
    solved
        Whether a packing was found (False for ``search`` and ``classes``: the whole tree was searched; for ``band``
        and a ``cut`` search that ran out of time this proves nothing, see ``proved_none``).
    placements
        ``{"piece": name, "cells": [[x, y(, z)], ...]}`` per piece (a level's pieces included).
    board, pieces
        The board's size and the pieces' names.
    method
        ``search``, ``band``, ``classes`` or ``cut`` (what ``method="auto"`` chose).
    nodes, seconds, backend, device
        The search's size and time, where it ran.
    validated
        ``band``, ``classes``, ``cut``: the tiling was checked from scratch.
    classes, restarts, proved_none
        ``classes``, ``cut``: the shape classes searched; ``cut``: restart rounds, and whether the whole tree was
        exhausted without a solution.
    bands, n_placements, graph_seconds
        ``band``: the band heights stacked, the pieces placed, the profile graphs' time.
    seed
        ``band``, ``cut``: the random seed.
    regions, regions_done, repairs, region_size
        ``cut`` on a large board: the regions solved as independent work items, those tiled, the repairs where
        they meet (a region tiled again with a neighbour), and a region's box (width, height).
    picture, text
        The picture drawn (``png``) and the letters file written (``text``), if asked for.
    out, run_id
        ``search`` with ``out``: the results file and the run that holds the solution.
    note
        ``search``: why nothing was searched, when the pieces cannot cover the free cells whatever their places
        (their sizes add up to no total equal to the board's free cells).
    letters
        The solution as letters on the board (not in :meth:`to_dict`); ``legend`` names the letters.
    """

    solved: bool
    placements: list[dict]
    board: str
    pieces: list[str]
    method: str
    nodes: int | None = None
    seconds: float = 0.0
    backend: str | None = None
    device: str | None = None
    validated: bool | None = None
    classes: int | None = None
    restarts: int | None = None
    proved_none: bool | None = None
    bands: list[int] | None = None
    n_placements: int | None = None
    graph_seconds: float | None = None
    seed: int | None = None
    regions: int | None = None
    regions_done: int | None = None
    repairs: int | None = None
    region_size: list[int] | None = None
    picture: str | None = None
    text: str | None = None
    out: str | None = None
    run_id: str | None = None
    note: str | None = None
    letters: str | None = internal(None)
    legend: str = internal("")

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON values, without the keys that do not apply (None)."""
        return _without_none(super().to_dict())


@dataclasses.dataclass
class PolyominoCut(Result):
    """A random-cut puzzle: a board cut into random pieces (solve it back with ``solve(board, cut.piece_list)``).

    Attributes
    ----------
    board, sizes, seed
        The board's size, the piece sizes (smallest, largest) and the seed of the cut.
    pieces
        ``{"name", "cells"}`` of each piece, normalised.
    out, cut
        The piece file and the cut itself (``.cut.json``), when written (``text``).
    piece_list
        The pieces as :class:`~puzzlebatch.puzzles.polyomino.shapes.Piece` (not in :meth:`to_dict`);
        ``regions`` the board cells of each piece.
    """

    board: str
    sizes: list[int]
    seed: int
    pieces: list[dict]
    out: str | None = None
    cut: str | None = None
    piece_list: list = internal(None)
    regions: list = internal(None)


@dataclasses.dataclass
class PolyominoLevels(Result):
    """Puzzle levels with exactly one solution: random solutions with all but ``difficulty`` pieces left in place.

    Attributes
    ----------
    board, pieces, difficulty, seed
        The board's size, the pieces (as given), the pieces to place in each level, the seed.
    levels
        ``{"level": k, "pieces_left", "grid": rows of letters, "file"}`` of each level (``file`` when written).
    backend
        ``cpu``.
    found
        Each level's pieces in place and its unique solution (not in :meth:`to_dict`).
    """

    board: str
    pieces: Any
    difficulty: int
    seed: int
    levels: list[dict]
    backend: str = "cpu"
    found: list = internal(None)


@dataclasses.dataclass
class PolyominoDLX(Result):
    """An exact-cover problem in DLX format, solved (``options_chosen``) or counted (``solutions``).

    Attributes
    ----------
    items, primary, options, colors
        The problem's size.
    backend, branch, seconds
        Where and how it was searched.
    note
        What the reader should know (``backend="auto"`` ran the ``mrv`` branch on the CPU), or empty.
    solutions, nodes
        Counted: the number of solutions; both: the nodes searched.
    solved, options_chosen
        Solved: whether a solution exists, and its options (each a list of its item names).
    """

    items: int
    primary: int
    options: int
    colors: int
    backend: str
    branch: str
    seconds: float = 0.0
    note: str = ""
    solutions: int | None = None
    nodes: int | None = None
    solved: bool | None = None
    options_chosen: list | None = None

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON values, without the keys that do not apply (None)."""
        return _without_none(super().to_dict())


# -- inputs --------------------------------------------------------------------------------------------------------
def _mirror(mirror) -> bool | None:
    if mirror is None or isinstance(mirror, bool):
        return mirror
    if isinstance(mirror, str) and mirror in _MIRROR:
        return _MIRROR[mirror]
    raise PuzzleInputError(f"--mirror: {mirror!r} is not one of yes, no, default")


def _mirror_word(mirror) -> str:
    return {True: "yes", False: "no", None: "default"}[_mirror(mirror)]


def _name(x) -> str:
    """A board, level or piece set as text (for messages and stored parameters)."""
    if x is None:
        return ""
    if isinstance(x, (str, Path)):
        return str(x)
    if isinstance(x, P.Board):
        return x.label
    return "+".join(p.name for p in x)


def pieces_of(pieces: str | Path | Sequence[S.Piece], *, unlimited: bool = False, copies: int | None = None,
              mirror: bool | str | None = None) -> list[S.Piece]:
    """The pieces of a problem with the piece options applied.

    Parameters
    ----------
    pieces
        A set name, a piece file, several joined by ``+``, or :class:`~puzzlebatch.puzzles.polyomino.shapes.Piece`
        objects.
    unlimited, copies, mirror
        Any number of copies of every piece; this many copies of every piece; may pieces be turned over
        (``None``/``"default"``: flat yes, solid no).

    Returns
    -------
    list of Piece

    Raises
    ------
    PuzzleInputError
        An unknown set, an unreadable or malformed piece file, a bad option.
    """
    if copies is not None:
        copies = limits.check_copies(limits.check_value("--copies", copies, limits.POSITIVE), "--copies")
        if unlimited:
            raise PuzzleInputError(f"--copies {copies} and --unlimited: give one of them (unlimited means any "
                                   "number of copies)")
    m = _mirror(mirror)
    if isinstance(pieces, (str, Path)):
        return S.load_pieces(str(pieces), unlimited=bool(unlimited), mirror=m, count=copies)
    if isinstance(pieces, S.Piece):
        pieces = [pieces]
    try:
        given = list(pieces)
    except TypeError:
        given = None
    if not given or not all(isinstance(p, S.Piece) for p in given):
        raise PuzzleInputError("--pieces: give a piece set's name, a piece file or a list of pieces")
    seen: set[str] = set()
    for p in given:
        if p.name in seen:
            raise PuzzleInputError(f"--pieces: piece name {p.name} appears twice")
        seen.add(p.name)
    return S.with_options(given, bool(unlimited), m, copies)


def board_of(board: str | Path | P.Board | None = None, level: str | Path | P.Board | None = None) -> P.Board:
    """The board of a problem: ``level`` if given, else ``board``.

    Parameters
    ----------
    board
        ``"WxH"``, ``"WxHxD"``, a board file (``.`` a cell, ``#`` a hole, letters: placed pieces; layers for 3D) or a
        :class:`~puzzlebatch.puzzles.polyomino.packing.Board`.
    level
        A level file (the board with some pieces placed) or a ``Board``; it wins over ``board``.

    Returns
    -------
    Board
        :class:`~puzzlebatch.puzzles.polyomino.packing.Board`.

    Raises
    ------
    PuzzleInputError
        Neither given, a malformed size or file, a board over the cell limit.
    """
    if level is not None and level != "":
        return level if isinstance(level, P.Board) else P.parse_board(str(level), "--level")
    if isinstance(board, P.Board):
        return board
    if board is None or board == "":
        raise PuzzleInputError("--board: give the board (WxH, WxHxD or a board file) or a --level")
    return P.parse_board(str(board))


def packing_of(board: str | Path | P.Board | None, pieces: str | Path | Sequence[S.Piece], *,
               level: str | Path | P.Board | None = None, unlimited: bool = False, copies: int | None = None,
               mirror: bool | str | None = None) -> P.Packing:
    """The packing problem of the inputs: board, pieces and its exact cover.

    Parameters
    ----------
    board, level
        The board, or a level instead (read by :func:`board_of`).
    pieces, unlimited, copies, mirror
        The pieces and the piece options (read by :func:`pieces_of`).

    Returns
    -------
    puzzlebatch.puzzles.polyomino.packing.Packing

    Raises
    ------
    PuzzleInputError
        Bad pieces or board, flat pieces on a solid board (or the other way), a level's letters that are no piece.
    """
    ps = pieces_of(pieces, unlimited=unlimited, copies=copies, mirror=mirror)
    return P.build(board_of(board, level), ps)


def check_problem(board, pieces, *, level=None, unlimited: bool = False, copies: int | None = None,
                  mirror=None) -> None:
    """The cheap checks of a problem (a job's dry run).

    The pieces and the board or level parse; the exact cover is not built.

    Parameters
    ----------
    board, pieces, level, unlimited, copies, mirror
        As for :func:`packing_of`.

    Raises
    ------
    PuzzleInputError
        What :func:`packing_of` would raise for the pieces or the board.
    """
    pieces_of(pieces, unlimited=unlimited, copies=copies, mirror=mirror)
    board_of(board, level)


def rectangle(board, where: str = "--board") -> tuple[int, int] | None:
    """``WxH`` as ``(w, h)``, None when the board is not a plain rectangle (sides and cells checked).

    Raises
    ------
    PuzzleInputError
        A side of 0, or more cells than the limit.
    """
    if not isinstance(board, (str, Path)):
        return None
    m = _RECT.match(str(board).lower())
    if not m:
        return None
    w, h = int(m.group(1)), int(m.group(2))
    if w < 1 or h < 1:
        raise PuzzleInputError(f"{where}: board {board} must have sides >= 1")
    limits.CELLS.check(w * h, f"{where} {board}")
    return w, h


def search_estimate(board: str | Path | P.Board | None, pieces: str | Path | Sequence[S.Piece], *,
                    level: str | Path | P.Board | None = None, unlimited: bool = False, copies: int | None = None,
                    mirror: bool | str | None = None, branch: str | None = None, prune: bool = True,
                    probes: int = 48, depth: int | None = None) -> float:
    """Knuth's estimate of the nodes of the search tree a count by ``method="search"`` walks, from ``probes``
    random root-to-leaf paths (milliseconds): every symmetry searched, so an estimate from above of a count
    that breaks them.  0 when the problem is dead at the root (no search at all).

    Parameters
    ----------
    board, pieces, level, unlimited, copies, mirror
        The problem, as for :func:`count`.
    branch, prune
        The branching rule and the dead-region test, as for :func:`count` (default: the count's own rule).
    probes
        Random paths; the estimate's spread falls as one over their square root.
    depth
        Walk each path this many levels at most: the estimate of the tree's top levels only (from below for the
        whole tree), at a cost bounded whatever the board (a path through a board of thousands of cells
        otherwise takes a move per piece placed).

    Returns
    -------
    float
        The estimated number of nodes.

    Raises
    ------
    PuzzleInputError
        Bad pieces, board or branch.
    """
    from puzzlebatch.runners.polyomino import solver as RP

    pk = packing_of(board, pieces, level=level, unlimited=unlimited, copies=copies, mirror=mirror)
    if RP.area_gap(pk):
        return 0.0
    return RP.estimate_nodes(RP.engine(pk.cover, branch or RP.default_branch(pk), prune), probes, depth=depth)


def _params(pk, pieces, unlimited, copies, mirror, branch, prune, level) -> dict:
    """The stored parameters of a run (what ``--resume`` compares)."""
    spec = str(pieces) if isinstance(pieces, (str, Path)) else S.write_pieces(pieces_of(pieces))
    return {"board": pk.board.label, "pieces": spec, "unlimited": bool(unlimited), "copies": copies or 0,
            "mirror": _mirror_word(mirror), "branch": branch, "prune": bool(prune), "level": _name(level)}


def _progress(opts: RunOptions, label: str, unit: str, total: int | None = None):
    from puzzlebatch.runners.engine.progress import bar

    return bar(label, unit=unit, total=total, enabled=None if opts.progress else False)


# -- count ---------------------------------------------------------------------------------------------------------
def count(board: str | Path | P.Board | None, pieces: str | Path | Sequence[S.Piece], *,
          level: str | Path | P.Board | None = None, unlimited: bool = False, copies: int | None = None,
          mirror: bool | str | None = None, distinct: bool = True, all: bool = False, method: str = "search",
          exact: str = "auto", branch: str | None = None, prune: bool = True, verify: bool = False,
          backend: str | Backend = "auto", out: str | Path | None = None, resume: bool | None = None,
          scheduler: str | None = None, max_batches: int | None = None, merge: str | None = None,
          memo: int | None = None, settings: SearchSettings | None = None,
          options: RunOptions | None = None) -> PolyominoCount | PolyominoStripCount:
    """Count every packing of ``pieces`` on ``board``, and the distinct ones up to the board's symmetries.

    Parameters
    ----------
    board, pieces, level, unlimited, copies, mirror
        The problem (see the module's documentation).
    distinct
        Also count the packings up to the board's symmetries (by symmetry breaking: every class searched once);
        False searches every packing and leaves ``distinct`` None.
    all
        Store every solution (item rows ``solution``: sorted option ids) as an ``enumerate`` run, resumable; in the
        command line's default file ``results/polyomino.h5`` when no ``out`` is given there.
    method
        ``"search"`` (the exact-cover engine), ``"transfer"``: the transfer matrix over column profiles for a
        ``WxH`` rectangle with ``unlimited`` pieces (exact, huge counts; returns a :class:`PolyominoStripCount`),
        or ``"kasteleyn"``: the same count for the domino alone by Kasteleyn's product formula, wide boards too (the
        transfer matrix refuses strips over about 20 cells wide).
    exact
        ``transfer``: ``"crt"`` (residues on the backend), ``"bigint"`` (CPU) or ``"auto"`` (crt on CUDA).
    branch
        ``"bitboard"`` (first empty cell on a bitboard of one word, or of two where cells and pieces together
        number 65 to 128; each piece once; the default where it applies, except solid boards of over 32
        cells), ``"first"`` (first empty cell, any board; the default where the bitboard does not apply),
        ``"mrv"`` (most constrained; the default on solid boards of over 32 cells), ``"enclosed"`` or ``"auto"``
        (predicted fastest).
    prune
        Run the dead-region (subset-sum) test.
    verify
        Count a second time along another split of the work; a mismatch raises
        :class:`~puzzlebatch.errors.CountMismatchError`.
    backend
        ``"auto"``, ``"cpu"`` or ``"cuda"`` (``"cuda"`` without a GPU raises; never a silent fallback).
        ``"auto"`` counts on the CPU where the branch is ``"mrv"`` (measured far slower on a GPU), and the result's
        ``note`` says so.
    out
        Store the run in this HDF5 file (default: nothing stored).
    resume
        Continue the unfinished count of the same problem in ``out``.
    scheduler
        Run on a Dask cluster (``"local:N"``, an address or a scheduler file).
    max_batches
        Stop after this many launches (``complete`` is then False; ``resume=True`` continues).
    merge
        ``"auto"`` (the default), ``"yes"`` or ``"no"``: count by merged states first (the bitboard's nodes that
        cover the same cells with the same pieces searched once, weighted by how many ways reach them; on the
        CPU, whatever the backend), then search what is left as a tree.  ``"auto"`` merges where Knuth's estimate
        of the tree is over 20 million nodes; ``merged_layers`` in the result says how many layers were merged.
        Never with ``all`` (every solution's moves are needed).
    memo
        Entries of the count's memo of searched subtrees, a table a CPU thread (a power of two, 32 bytes an entry;
        0: none; default 65,536): a node of the bitboard engine met again, by another order of the same pieces,
        adds the solutions and nodes it had without a search.  Counts and node counts do not depend on it.
    settings, options
        The batch DFS's knobs and the run's options, for full control (keyword arguments above override them).

    Returns
    -------
    PolyominoCount
        (:class:`PolyominoStripCount` with ``method="transfer"`` or ``"kasteleyn"``.)

    Raises
    ------
    PuzzleInputError
        Bad pieces, board or options.
    puzzlebatch.errors.CountMismatchError
        ``verify`` found another count.
    puzzlebatch.errors.Interrupted
        Ctrl-C: a stored run was checkpointed first (``resume=True`` continues it).
    """
    from puzzlebatch.jit.clock import command_compile_seconds
    from puzzlebatch.runners.polyomino import letters as T
    from puzzlebatch.runners.polyomino import solver as RP

    opts = options_of(options, backend, out=out, resume=resume, scheduler=scheduler, max_batches=max_batches)
    if method in ("transfer", "kasteleyn"):
        return _count_transfer(board, pieces, level=level, all=all, unlimited=unlimited, copies=copies,
                               mirror=mirror, exact=exact, backend=backend, opts=opts, method=method)
    if method != "search":
        raise PuzzleInputError(f"--method: {method!r} is not one of search, transfer, kasteleyn")
    pk = packing_of(board, pieces, level=level, unlimited=unlimited, copies=copies, mirror=mirror)
    branch = branch or RP.default_branch(pk)
    be, backend_note = _auto_backend(backend, branch)
    settings = settings_of(be, settings, merge=merge, memo=memo)
    params = _params(pk, pieces, unlimited, copies, mirror, branch, prune, level)
    if not distinct:
        params["distinct"] = False
    elif not all:
        params["symmetry"] = "orbit-weighted"  # a count's items are weighted by their orbits (Burnside's lemma)
    verb = "enumerate" if all else "count"
    stores = opts.out is not None or (True if opts.keep is None else opts.keep)
    names = [p.name for p in pk.pieces]
    with Session(opts, "polyomino", verb, params, be, keep=True, label=f"polyomino {verb} {pk.board.label}",
                 describe="this board and pieces", instances=RP.problem_arrays(pk) if stores else None,
                 sort_rows=all) as s:
        ids = T.option_dtype(pk)
        sink = (lambda rows: s.append_items(solution=rows.astype(ids))) if all else None
        res, rest, totals = RP.count_packing_run(pk, be, branch, prune, settings, distinct, on_batch=s.on_batch,
                                                 frontier=s.frontier, totals=s.totals, max_batches=opts.max_batches,
                                                 elapsed=s.elapsed, pool=s.pool, sink=sink)
        if backend_note:
            res = dataclasses.replace(res, note="; ".join(n for n in (res.note, backend_note) if n))
        verified = None
        if verify and res.complete:
            from puzzlebatch.runners.engine import verify as check

            # the second count breaks no symmetry: every solution is searched (the distinct count is not re-derived)
            again = check.second_split(settings)
            second = RP.count_packing_run(pk, be, branch, prune, again, distinct=False, pool=s.pool)[0]
            verified = check.compare(f"polyomino count --board {pk.board.label}", res.to_json(), second.to_json(),
                                     ("solutions",), check.describe(again, symmetry=False))
        doc = res.to_json() | {"board": _size_text(pk.board.size), "pieces": names, "device": be.device,
                               "compile_seconds": command_compile_seconds()}
        if verified is not None:
            doc["verified"] = verified
        stored = s.finish(doc, res.complete, rest, totals, res.seconds)
    return PolyominoCount(**res.to_json(), board=_size_text(pk.board.size), pieces=names, device=be.device,
                          verified=verified, **stored, label=pk.board.label, batches=int(totals.batches),
                          items_left=len(rest))


def _auto_backend(request: str | Backend, branch: str) -> tuple[Backend, str]:
    """The backend of a count and a note for the result (empty when there is nothing to say).

    ``"auto"`` with the ``mrv`` branch runs on the CPU even where there is a GPU: the incremental MRV engine's
    states are about 16 KB and its nodes serial, and on an NVIDIA H200 the Bedlam cube's count did not finish in
    70 s, where 2 CPU cores take 16 s (bench/log/gpu.md).  ``"cuda"`` asked for by name runs on the GPU."""
    be = backend_of(request)
    if request == "auto" and branch == "mrv" and be.name == "cuda":
        from puzzlebatch.runners.engine.backend import select_backend

        return select_backend("cpu"), ("--backend auto chose the cpu: the mrv engine is far slower on a GPU "
                                       "(--backend cuda runs it there)")
    return be, ""


def _count_transfer(board, pieces, *, level, all, unlimited, copies, mirror, exact, backend,
                    opts: RunOptions, method: str = "transfer") -> PolyominoStripCount:
    from puzzlebatch.runners.polyomino import large as L

    if level or all or opts.resume:
        raise PuzzleInputError(f"--method {method}: counts a plain WxH rectangle (no --level, --all or --resume)")
    if not unlimited:
        raise PuzzleInputError(f"--method {method}: needs --unlimited (any number of copies of every piece)")
    wh = rectangle(board)
    if wh is None:
        raise PuzzleInputError(f"--board: --method {method} takes a WxH rectangle, not {_name(board)!r}")
    ps = pieces_of(pieces, unlimited=unlimited, copies=copies, mirror=mirror)
    be = backend_of(backend)
    if method == "kasteleyn":  # a formula: evaluated on the CPU, which "auto" accepts and "cuda" is told
        if be.kind == "cuda" and backend != "auto":
            raise PuzzleInputError("--method kasteleyn: a formula evaluated on the CPU; use --backend cpu or auto")
        if exact != "auto":
            raise PuzzleInputError(f"--exact {exact}: only with --method transfer")
        progress = _progress(opts, f"polyomino count {_name(board)} (kasteleyn)", "row", (min(wh) + 1) // 2)
        try:
            res = L.count_kasteleyn(ps, wh[0], wh[1], on_progress=lambda done, total: progress.update(1))
        finally:
            progress.close()
        return _strip_result(res, ps, backend_of("cpu"))
    if exact == "auto":  # measured: on a CPU the big-int steps beat the prime lanes (numba compile included)
        exact = "crt" if be.kind == "cuda" else "bigint"
    if exact not in ("crt", "bigint"):
        raise PuzzleInputError(f"--exact: {exact!r} is not one of auto, crt, bigint")
    if exact == "bigint" and be.kind == "cuda":
        raise PuzzleInputError("--exact bigint: runs on the CPU only; use --exact crt (or auto) with --backend cuda")
    progress = _progress(opts, f"polyomino count {_name(board)} (transfer)", "step", wh[0] * wh[1])
    last = [0]

    def on_progress(done, total):
        progress.update(done - last[0])
        last[0] = done

    try:
        res = L.count_strip(ps, wh[0], wh[1], be, exact, on_progress=on_progress)
    except ST.TooManyProfiles as exc:
        if L.is_domino_set(ps):
            raise PuzzleInputError(f"{exc}; for dominoes, --method kasteleyn counts boards up to about 400x400") \
                from None
        raise
    finally:
        progress.close()
    return _strip_result(res, ps, be)


def _strip_result(res, ps, be) -> PolyominoStripCount:
    sys.set_int_max_str_digits(0)  # counts of thousands of digits are printed whole
    doc = res.to_json()
    fields = {f.name for f in dataclasses.fields(PolyominoStripCount)} - {"extra"}
    doc["board"] = _size_text(res.board)
    return PolyominoStripCount(**{k: v for k, v in doc.items() if k in fields}, pieces=[p.name for p in ps],
                               device=be.device, extra={k: v for k, v in doc.items() if k not in fields})


# -- solve ---------------------------------------------------------------------------------------------------------
def _wants_cut(board, pieces, level, unlimited, copies, mirror) -> bool:
    """Whether ``method="auto"`` should take the cut search: a cut puzzle big enough for it."""
    if level or unlimited or copies:
        return False
    from puzzlebatch.runners.polyomino import cutsolve as CS

    try:
        ps = pieces_of(pieces, mirror=mirror)
        if len(ps) < CUT_AUTO_PIECES:
            return False
        return CS.is_cut_puzzle(board_of(board), ps)
    except PuzzleInputError:
        return False  # the method's own path reports the error


#: the options of ``solve`` that one method reads and the others would ignore (so they refuse them)
_METHOD_OPTIONS = (("scheduler", "--scheduler", ("search", "cut")), ("out", "--out", ("search", "cut")),
                   ("png", "--png", ("search", "cut")), ("text", "--text", ("band",)),
                   ("band_heights", "--band-heights", ("band",)), ("time_limit", "--time-limit", ("cut",)))


def choose_method(board, pieces, *, level=None, unlimited: bool = False, copies: int | None = None, mirror=None,
                  method: str = "auto", **given) -> str:
    """The method :func:`solve` runs: ``method``, or what ``"auto"`` picks.

    ``auto`` picks ``band`` for a plain rectangle of over :data:`BAND_AUTO_CELLS` cells with ``unlimited`` pieces,
    ``cut`` for a cut puzzle of at least :data:`CUT_AUTO_PIECES` pieces (each once, covering the board), else
    ``search``.

    Parameters
    ----------
    board, pieces, level, unlimited, copies, mirror
        The problem, as for :func:`solve`.
    method
        ``"auto"``, ``"search"``, ``"band"``, ``"classes"`` or ``"cut"``.
    **given
        The method-specific options of :func:`solve` with their values (``scheduler``, ``out``, ``png``, ``text``,
        ``band_heights``, ``time_limit``): each one set (not None, empty or zero) must be one the chosen method reads.

    Returns
    -------
    str
        ``"search"``, ``"band"``, ``"classes"`` or ``"cut"``.

    Raises
    ------
    PuzzleInputError
        An unknown method, or an option the method would ignore (refused in one line before any work).
    """
    if method not in METHODS:
        raise PuzzleInputError(f"--method: {method!r} is not one of {', '.join(METHODS)}")
    wh = rectangle(board) if not level else None
    band = method == "band" or (method == "auto" and unlimited and wh is not None and wh[0] * wh[1] > BAND_AUTO_CELLS)
    chosen = "classes" if method == "classes" else "cut" if method == "cut" or (
        method == "auto" and not band and _wants_cut(board, pieces, level, unlimited, copies, mirror)) \
        else "band" if band else "search"
    for dest, flag, methods in _METHOD_OPTIONS:
        if given.get(dest) and chosen not in methods:
            readers = " and ".join(f"--method {m}" for m in methods)
            if flag == "--png":
                why = f"--method {chosen} prints its tiling as letters" + (
                    " (--text FILE writes it)" if chosen == "band" else "") + f"; pictures are drawn by {readers}"
            else:
                why = f"read by {readers} only; this puzzle is solved by --method {chosen}"
            raise PuzzleInputError(f"{flag}: {why}")
    return chosen


def solve(board: str | Path | P.Board | None, pieces: str | Path | Sequence[S.Piece], *,
          level: str | Path | P.Board | None = None, unlimited: bool = False, copies: int | None = None,
          mirror: bool | str | None = None, method: str = "auto", branch: str | None = None, prune: bool = True,
          heuristic: str = "none", seed: int = 0, time_limit: float | None = None,
          band_heights: str | Sequence[int] | None = None, backend: str | Backend = "auto",
          out: str | Path | None = None, scheduler: str | None = None, png: str | Path | None = None,
          text: str | Path | None = None, settings: SearchSettings | None = None,
          options: RunOptions | None = None, region: int | None = None) -> PolyominoSolution:
    """One packing of ``pieces`` on ``board``, or none.

    Parameters
    ----------
    board, pieces, level, unlimited, copies, mirror
        The problem (see the module's documentation).
    method
        ``"search"``: the exact-cover engine (the first solution in depth-first order); ``"band"``: a ``WxH``
        rectangle with ``unlimited`` pieces tiled band by band (time and memory linear in the area);
        ``"classes"``: each piece once, identical shapes searched as one class with a count; ``"cut"``: the
        scan-order search with randomised restarts for random-cut puzzles; ``"auto"``: see :func:`choose_method`.
    branch, prune
        ``search``, ``classes``: the branching rule (see :func:`count`) and the dead-region test.
    heuristic
        ``search``: try pieces in this order (one of :data:`puzzlebatch.puzzles.polyomino.packing.HEURISTICS`).
    seed
        ``band``, ``cut``: the random seed.
    time_limit
        ``cut``: give up after this many seconds (``solved`` False proves nothing then).
    band_heights
        ``band``: the band heights to try (``"3,4,5"`` or a list; default 3..5, then 1..8).
    backend
        ``"auto"``, ``"cpu"`` or ``"cuda"``.
    out
        ``search``: also record the run and its solution in this HDF5 file (default: nothing stored).
    scheduler
        ``search``: search on a Dask cluster.
    png
        ``search``: draw the solution (``.png`` or ``.svg``); ``cut``: a picture of a large tiling (an overview
        of the whole board and a window at full scale, ``.png``).
    text
        ``band``: write the tiling as letters to this file.
    settings, options
        The batch DFS's knobs and the run's options (``cut`` on a large board: ``out``, ``resume``, ``scheduler``).
    region
        ``cut``: the side of the regions a large board is split into (solved as independent work items, repaired
        where they meet); None: regions of :data:`puzzlebatch.runners.polyomino.regions.REGION` cells a side on
        boards of at least :data:`puzzlebatch.runners.polyomino.regions.REGION_AUTO_CELLS` cells, one search
        below; 0: one search.

    Returns
    -------
    PolyominoSolution

    Raises
    ------
    PuzzleInputError
        Bad pieces, board or options, or an option the method would ignore.
    """
    opts = options_of(options, backend, out=out, scheduler=scheduler)
    problem = dict(level=level, unlimited=unlimited, copies=copies, mirror=mirror)
    chosen = choose_method(board, pieces, **problem, method=method, scheduler=opts.scheduler, out=opts.out, png=png,
                           text=text, band_heights=band_heights, time_limit=time_limit)
    if chosen == "band":
        return _solve_band(board, pieces, **problem, seed=seed, band_heights=band_heights, text=text, opts=opts)
    if chosen in ("classes", "cut"):
        return _solve_once(chosen, board, pieces, **problem, branch=branch, seed=seed, time_limit=time_limit,
                           backend=backend, opts=opts, region=region, png=png)
    return _solve_search(board, pieces, **problem, branch=branch, prune=prune, heuristic=heuristic,
                         backend=backend, png=png, settings=settings, opts=opts)


def _solve_search(board, pieces, *, level, unlimited, copies, mirror, branch, prune, heuristic, backend, png,
                  settings, opts: RunOptions) -> PolyominoSolution:
    from puzzlebatch.runners.polyomino import letters as T
    from puzzlebatch.runners.polyomino import solver as RP

    if heuristic not in P.HEURISTICS:
        raise PuzzleInputError(f"--heuristic: {heuristic!r} is not one of {', '.join(P.HEURISTICS)}")
    pk = packing_of(board, pieces, level=level, unlimited=unlimited, copies=copies, mirror=mirror)
    branch = branch or RP.default_branch(pk)
    be = backend_of(backend)
    settings = settings or settings_of(be)
    params = _params(pk, pieces, unlimited, copies, mirror, branch, prune, level) | {"heuristic": heuristic}
    names = [p.name for p in pk.pieces]
    stores = opts.out is not None or bool(opts.keep)
    with Session(opts, "polyomino", "solve", params, be, keep=False, label=f"polyomino solve {pk.board.label}",
                 instances=RP.problem_arrays(pk) if stores else None) as s:
        res = RP.solve_packing(pk, be, branch, prune, heuristic, settings, pool=s.pool)
        if res.solved:
            s.append_items(solution=T.option_row(pk, res.placements)[None].astype(T.option_dtype(pk)))
        stored = s.finish({"solved": res.solved, "nodes": int(res.nodes), "seconds": res.seconds,
                           "board": _size_text(pk.board.size), "pieces": names, "device": be.device}, True,
                          seconds=res.seconds)
    picture = None
    if png and res.solved:
        from puzzlebatch.results.pictures import draw_packing

        picture = str(draw_packing(pk, res.placements, png))
    return PolyominoSolution(solved=res.solved, placements=T.placements_json(pk, res.placements) if res.solved
                             else [], board=_size_text(pk.board.size), pieces=names, method="search",
                             nodes=int(res.nodes), seconds=res.seconds, backend=res.backend, device=be.device,
                             picture=picture, out=stored["out"], run_id=stored["run_id"], note=res.note or None,
                             letters=T.grid_text(pk, res.placements) if res.solved else None, legend=T.legend(pk))


def _heights(spec) -> list[int] | None:
    if spec is None or spec == "":
        return None
    try:
        heights = [int(v) for v in spec.split(",")] if isinstance(spec, str) else [int(v) for v in spec]
    except (TypeError, ValueError):
        raise PuzzleInputError(f"--band-heights: {spec!r} is not comma-separated heights like 3,4,5") from None
    if not heights or min(heights) < 1:
        raise PuzzleInputError(f"--band-heights: {spec!r}: every height must be at least 1")
    return heights


def _solve_band(board, pieces, *, level, unlimited, copies, mirror, seed, band_heights, text,
                opts: RunOptions) -> PolyominoSolution:
    from puzzlebatch.runners.polyomino import large as L
    from puzzlebatch.runners.polyomino import letters as T

    wh = rectangle(board)
    if wh is None or level:
        raise PuzzleInputError(f"--board: --method band takes a WxH rectangle, not {_name(level or board)!r}")
    if not unlimited:
        raise PuzzleInputError("--method band: needs --unlimited (any number of copies of every piece)")
    seed = limits.check_value("--seed", seed, limits.SEED)
    w, h = wh
    ps = pieces_of(pieces, unlimited=unlimited, copies=copies, mirror=mirror)
    heights = _heights(band_heights)
    if heights and max(heights) > max(w, h):
        raise PuzzleInputError(f"--band-heights: a band of height {max(heights)} does not fit in {w}x{h} (bands are "
                               f"stacked along the longer side, {max(w, h)} cells)")
    progress = _progress(opts, f"polyomino solve {_name(board)} (bands)", "band")
    try:
        res = L.solve_bands(ps, w, h, seed=seed, heights=heights,
                            on_band=lambda i, n: (setattr(progress, "total", n), progress.update(1)))
        if not res.solved and heights is None:  # thin bands too (1 and 2 rows), then taller ones
            res = L.solve_bands(ps, w, h, seed=seed, heights=list(range(1, 9)))
    finally:
        progress.close()
    if res.solved:
        L.validate_tiling(ps, w, h, res.placements)
        res.validated = True
    letters = T.flat_grid((w, h), res.placements, P.glyphs_for(ps)) if res.solved else None
    written = None
    if text and letters is not None:
        from puzzlebatch.outputs import write_text

        write_text(text, letters + "\n", "--text")
        written = str(text)
    return PolyominoSolution(solved=res.solved, placements=T.pieces_json(ps, res.placements),
                             board=_size_text((w, h)), pieces=[p.name for p in ps], method="band",
                             seconds=res.seconds, backend="cpu", validated=res.validated, bands=res.bands,
                             n_placements=len(res.placements), graph_seconds=res.graph_seconds, seed=seed,
                             text=written, letters=letters)


def _solve_once(method, board, pieces, *, level, unlimited, copies, mirror, branch, seed, time_limit, backend,
                opts: RunOptions, region: int | None = None, png=None) -> PolyominoSolution:
    """``classes`` and ``cut``: each piece once on a flat board."""
    from puzzlebatch.runners.polyomino import letters as T

    if level or unlimited or copies:
        raise PuzzleInputError(f"--method {method}: each piece once on a board (no --level, --unlimited, --copies)")
    b = board_of(board)
    if b.dim != 2:
        raise PuzzleInputError(f"--method {method}: flat boards only")
    ps = pieces_of(pieces, mirror=mirror)
    common = dict(board=_size_text(b.size), pieces=[p.name for p in ps], method=method)
    if method == "classes":
        from puzzlebatch.runners.polyomino import large as L

        be = backend_of(backend)
        # measured on random cuts: the most constrained cell is 3x (12x12) to 20x (16x16) faster than the first cell
        res = L.solve_cut(b, ps, be, "mrv" if branch in (None, "first") else branch)
        extra = {}
    else:
        from puzzlebatch.runners.polyomino import cutsolve as CS

        if not CS.is_cut_puzzle(b, ps):
            area = sum(p.size * max(p.count, 1) for p in ps)
            raise PuzzleInputError(f"--pieces: --method cut needs every piece once covering the board exactly "
                                   f"(pieces: {area} cells, board: {b.n_cells})")
        seed = limits.check_value("--seed", seed, limits.SEED)
        if time_limit is not None:
            time_limit = limits.check_value("--time-limit", time_limit, limits.POSITIVE_SECONDS)
        from puzzlebatch.runners.polyomino import regions as RG

        if region is not None:
            region = limits.check_value("--region", region, limits.REGION_SIDE)
        if region or (region is None and b.n_cells >= RG.REGION_AUTO_CELLS):
            return _solve_regions(b, ps, seed=seed, time_limit=time_limit, backend=backend, opts=opts,
                                  region=region or RG.REGION, png=png, board_name=_name(board))
        if opts.out is not None or opts.scheduler is not None or opts.resume:
            raise PuzzleInputError("--out, --resume, --scheduler: --method cut reads them on boards solved region "
                                   f"by region (at least {RG.REGION_AUTO_CELLS:,} cells, or --region N)")
        be = backend_of(backend)
        progress = _progress(opts, f"polyomino solve {_name(board)} (cut, {len(ps)} pieces)", "round")
        try:
            res = CS.solve_pieces(b, ps, be, seed=seed, time_limit=time_limit,
                                  on_round=lambda r, bb, n: progress.update(1))
        finally:
            progress.close()
        extra = dict(restarts=res.rounds, proved_none=res.proved_none, seed=seed)
        if png and res.solved:
            from puzzlebatch.results.large_pictures import draw_labels

            import numpy as np

            labels = np.zeros((b.size[1], b.size[0]), np.int32)
            for n, (_k, cells) in enumerate(res.placements):
                for x, y in cells:
                    labels[y, x] = n
            extra["picture"] = str(draw_labels(labels, png))
    return PolyominoSolution(solved=res.solved, placements=T.pieces_json(ps, res.placements), **common,
                             nodes=int(res.nodes), seconds=res.seconds, backend=res.backend, device=be.device,
                             validated=bool(res.solved), classes=res.classes, **extra,
                             letters=T.flat_grid(b.size, res.placements, P.GLYPHS, b.playable) if res.solved
                             else None)


def _pieces_digest(ps) -> str:
    """A digest of the pieces (names, cells, turns): a resumed solve must have the very same pieces."""
    import hashlib

    h = hashlib.sha256()
    for p in ps:
        h.update(f"{p.name}:{p.turns}:{sorted(p.cells)};".encode())
    return h.hexdigest()[:32]


def _solve_regions(b, ps, *, seed, time_limit, backend, opts: RunOptions, region: int, png,
                   board_name: str) -> PolyominoSolution:
    """``cut`` on a large board: regions solved as independent work items (the Session: progress with the time
    left, checkpoints, Ctrl-C, ``resume``, a Dask pool), validated from scratch."""
    import numpy as np

    from puzzlebatch.runners.polyomino import large as L
    from puzzlebatch.runners.polyomino import letters as T
    from puzzlebatch.runners.polyomino import regions as RG

    w, h = b.size
    limits.check_memory(RG.memory_bytes(w, h, len(ps), region), f"--method cut: a {w}x{h} board in regions")
    mask = np.zeros((h, w), bool)
    xy = np.array(sorted(b.playable), np.int64).reshape(-1, 2)
    mask[xy[:, 1], xy[:, 0]] = True
    be = backend_of(backend)
    params = {"board": _size_text(b.size), "cells": int(b.n_cells), "pieces": _pieces_digest(ps), "seed": seed,
              "region": region, "method": "cut"}
    label = f"polyomino solve {board_name} (cut, {len(ps)} pieces, regions)"
    with Session(opts, "polyomino", "solve", params, be, keep=False, label=label, pool=True) as s:
        labels = done = comp = None
        if s.restored is not None:
            arrays, _ = s.restored
            try:
                labels, done, comp = arrays["labels"], arrays["done"], arrays["comp"]
            except KeyError as exc:
                raise PuzzleInputError(f"--resume: {s.out}: the checkpoint has no {exc}") from None
        bar = s.progress(label, unit="region")

        def progress(k: int, n: int) -> None:
            bar.total = n
            bar.n = k
            bar.refresh()

        def checkpoint(lab, dn, cp) -> None:
            s.checkpoint({"labels": lab.copy(), "done": dn.copy(), "comp": cp.copy()}, {"regions": int(len(dn))})

        res = RG.solve_regions(mask, ps, be, seed=seed, region=region, time_limit=time_limit, pool=s.pool,
                               labels=labels, done=done, comp=comp, on_progress=progress, on_checkpoint=checkpoint)
        placements = RG.placements_of(res.labels) if res.solved else []
        if res.solved:
            L.validate_tiling(ps, w, h, placements, mask)
            s.append_items(labels=res.labels[None])
        else:  # out of time: what is tiled stays in the checkpoint, for --resume
            s.checkpoint({"labels": res.labels, "done": res.done, "comp": res.comp}, {"regions": res.boxes},
                         force=True)
        seconds = s.seconds()
        stored = s.finish({"solved": res.solved, "nodes": int(res.nodes), "seconds": seconds,
                           "board": _size_text(b.size), "regions": res.boxes, "regions_done": int(res.done.sum()),
                           "repairs": res.repairs, "backend": res.backend}, complete=res.solved, seconds=seconds)
    picture = None
    if png and res.solved:
        from puzzlebatch.results.large_pictures import draw_labels

        picture = str(draw_labels(res.labels, png))
    return PolyominoSolution(solved=res.solved, placements=T.pieces_json(ps, placements), board=_size_text(b.size),
                             pieces=[p.name for p in ps], method="cut", nodes=int(res.nodes), seconds=seconds,
                             backend=res.backend, device=be.device, validated=res.solved, classes=None,
                             restarts=res.rounds, proved_none=False, seed=seed, regions=res.boxes,
                             regions_done=int(res.done.sum()), repairs=res.repairs,
                             region_size=list(res.box_size), out=stored["out"], run_id=stored["run_id"],
                             picture=picture,
                             letters=T.flat_grid(b.size, placements, P.GLYPHS, b.playable)
                             if res.solved and w * h <= 20000 else None)


# -- generate: random-cut puzzles ----------------------------------------------------------------------------------
def _sizes(spec) -> tuple[int, int]:
    if isinstance(spec, int) and not isinstance(spec, bool):
        spec = str(spec)
    if isinstance(spec, (tuple, list)) and len(spec) == 2:
        spec = f"{spec[0]}-{spec[1]}"
    m = re.match(r"^\s*(\d+)\s*(?:-\s*(\d+))?\s*$", spec if isinstance(spec, str) else "")
    if not m:
        raise PuzzleInputError(f"--sizes: {spec!r} is not A-B (like 4-6)")
    a = int(m.group(1))
    b = int(m.group(2) or a)
    if a < 1 or b < a:
        raise PuzzleInputError(f"--sizes: {spec} must satisfy 1 <= A <= B")
    limits.CELLS.check(b, f"--sizes {spec}: a piece")  # a piece is never larger than a board
    return a, b


def generate(board: str | Path | P.Board, sizes: str | tuple[int, int] = "4-6", *, seed: int = 0,
             text: str | Path | None = None) -> PolyominoCut:
    """Cut a flat board into random pieces of ``sizes`` cells: a puzzle with at least one solution.

    Parameters
    ----------
    board
        ``"WxH"``, a mask file (``.`` cells, ``#`` holes) or a :class:`~puzzlebatch.puzzles.polyomino.packing.Board`.
    sizes
        ``"A-B"`` (like ``"4-6"``), ``"A"``, or ``(A, B)``: the piece sizes in cells.
    seed
        The cut's random seed.
    text
        Write the pieces to this piece file (for ``pieces=``/``--pieces``) and the cut itself to
        ``<text>.cut.json`` (default: nothing written).

    Returns
    -------
    PolyominoCut

    Raises
    ------
    PuzzleInputError
        A bad board or sizes, a solid board, a file that cannot be written.
    """
    from puzzlebatch.puzzles.polyomino import cut as K

    b = board if isinstance(board, P.Board) else P.parse_board(str(board), "--random-cut")
    if b.dim != 2:
        raise PuzzleInputError("--random-cut: flat boards only")
    a, z = _sizes(sizes)
    seed = limits.check_value("--seed", seed, limits.SEED)
    import numpy as np

    from puzzlebatch.runners.polyomino import bigcut as BC

    w, h = b.size
    limits.check_memory(BC.cut_memory_bytes(w, h), f"--random-cut: a cut of {w}x{h}")
    mask = np.zeros((h, w), bool)
    for x, y in b.playable:
        mask[y, x] = True
    big = BC.cut_mask(mask, a, z, seed)  # compiled: a million cells in seconds
    cut = K.Cut(b.size, [big.piece_cells(p) for p in range(big.n_pieces)])
    K.check_cut(cut, b.playable, a, z)
    ps = cut.piece_objects()
    out = cut_path = None
    if text is not None:
        from puzzlebatch.outputs import check_output, is_stream, write_text

        out = Path(text) if is_stream(text) else check_output(text, "--text")
        header = f"; origin: random cut of {_name(board)} into {a}-{z} cells, seed {seed} (puzzlebatch)\n"
        write_text(text, header + S.write_pieces(ps), "--text")
    if out is not None and not is_stream(text):  # no sidecar beside standard output or a device
        cut_path = out.with_suffix(out.suffix + ".cut.json") if out.suffix != ".json" else out.with_suffix(".cut.json")
        cut_doc = {"board": list(b.size), "sizes": [a, z], "seed": seed,
                   "pieces": [{"name": p.name, "cells": [list(c) for c in cells]} for p, cells in zip(ps, cut.pieces)]}
        write_text(cut_path, json.dumps(cut_doc), "--text")
    return PolyominoCut(board=_size_text(b.size), sizes=[a, z], seed=seed,
                        pieces=[{"name": p.name, "cells": sorted(list(c) for c in p.cells)} for p in ps],
                        out=None if out is None else str(out), cut=None if cut_path is None else str(cut_path),
                        piece_list=ps, regions=[[tuple(c) for c in cells] for cells in cut.pieces])


# -- levels --------------------------------------------------------------------------------------------------------
def levels(board: str | Path | P.Board | None, pieces: str | Path | Sequence[S.Piece], *,
           level: str | Path | P.Board | None = None, unlimited: bool = False, copies: int | None = None,
           mirror: bool | str | None = None, count: int = 1, difficulty: int = 4, seed: int = 0,
           out_dir: str | Path | None = None, scheduler: str | None = None,
           options: RunOptions | None = None) -> PolyominoLevels:
    """Puzzle levels with exactly one solution: random solutions with all but ``difficulty`` pieces left in place.

    Parameters
    ----------
    board, pieces, level, unlimited, copies, mirror
        The problem (the pieces must exactly fill the board).
    count
        How many levels.
    difficulty
        Pieces left to place in each level.
    seed
        Level ``k`` draws from its own stream of ``seed``, so the levels do not depend on where they are made.
    out_dir
        Write ``level-NNN.txt`` files here (solve them with ``level=``).
    scheduler, options
        Make the levels on a Dask cluster, one a task.

    Returns
    -------
    PolyominoLevels

    Raises
    ------
    PuzzleInputError
        Bad inputs, pieces that do not fill the board, no level found.
    """
    from puzzlebatch.runners.engine.distributed import open_pool
    from puzzlebatch.runners.polyomino import letters as T
    from puzzlebatch.runners.polyomino import solver as RP

    count = limits.check_value("--count", count, limits.POSITIVE)
    difficulty = limits.check_value("--difficulty", difficulty, limits.POSITIVE)
    seed = limits.check_value("--seed", seed, limits.SEED)
    pk = packing_of(board, pieces, level=level, unlimited=unlimited, copies=copies, mirror=mirror)
    opts = options_of(options, "cpu", scheduler=scheduler)
    with open_pool(opts.scheduler, "cpu", opts.item_seconds) as pool:  # one level per task
        found = RP.generate_levels(pk, count, difficulty, seed, pool=pool)
    folder = None
    if out_dir:
        from puzzlebatch.outputs import make_output_dir

        folder = make_output_dir(out_dir, "--out-dir")
    docs = []
    for k, lv in enumerate(found):
        grid = T.grid_text(pk, lv.placed)
        doc = {"level": k + 1, "pieces_left": lv.left, "grid": grid.splitlines()}
        if folder is not None:
            from puzzlebatch.outputs import write_text

            doc["file"] = str(write_text(folder / f"level-{k + 1:03d}.txt", grid + "\n", "--out-dir"))
        docs.append(doc)
    shown = str(pieces) if isinstance(pieces, (str, Path)) else [p.name for p in pk.pieces]
    return PolyominoLevels(board=_size_text(pk.board.size), pieces=shown, difficulty=difficulty, seed=seed,
                           levels=docs, found=found)


# -- DLX -----------------------------------------------------------------------------------------------------------
def dlx_export(board: str | Path | P.Board | None, pieces: str | Path | Sequence[S.Piece], *,
               level: str | Path | P.Board | None = None, unlimited: bool = False, copies: int | None = None,
               mirror: bool | str | None = None, text: str | Path | None = None) -> str:
    """The packing as an exact-cover problem in Knuth's DLX text format (for ``dlx1`` and friends).

    Parameters
    ----------
    board, pieces, level, unlimited, copies, mirror
        The problem.
    text
        Also write it to this file.

    Returns
    -------
    str
        The DLX text.

    Raises
    ------
    PuzzleInputError
        Bad inputs, or a file that cannot be written.
    """
    from puzzlebatch.puzzles.polyomino.cover import write_dlx

    pk = packing_of(board, pieces, level=level, unlimited=unlimited, copies=copies, mirror=mirror)
    dlx = write_dlx(pk.cover, f"{pk.board.label} with {_name(pieces)} (puzzlebatch)")
    if text is not None:
        from puzzlebatch.outputs import write_text

        write_text(text, dlx, "--text")
    return dlx


def dlx_solve(file: str | Path, *, count: bool = False, branch: str = "mrv", backend: str | Backend = "auto",
              settings: SearchSettings | None = None) -> PolyominoDLX:
    """Solve (the first solution) or count (``count=True``) any exact-cover problem in DLX format.

    Parameters
    ----------
    file
        The DLX file.
    count
        Count every solution instead of finding one.
    branch
        ``"mrv"`` (the most constrained item), ``"first"``, ``"enclosed"`` or ``"auto"``.
    backend, settings
        Where it runs and the batch DFS's knobs (``"auto"`` runs the ``mrv`` branch on the CPU, as
        :func:`count` does, and the result's ``note`` says so).

    Returns
    -------
    PolyominoDLX

    Raises
    ------
    PuzzleInputError
        No such file, a malformed file, a problem over the limits.
    """
    from puzzlebatch.jit.clock import work_clock
    from puzzlebatch.outputs import read_text
    from puzzlebatch.puzzles.polyomino.cover import option_words, read_dlx
    from puzzlebatch.runners.polyomino import solver as RP

    path = Path(file)
    if not path.exists():
        raise PuzzleInputError(f"dlx: no such file {file}")  # a directory or a device: read_text says what it is
    ec = read_dlx(read_text(path, "dlx"), str(path))
    t0 = work_clock()
    eng = RP.engine(ec, branch, False)
    be, note = _auto_backend(backend, eng.mode)
    settings = settings or settings_of(be)
    r = PolyominoDLX(items=ec.n_items, primary=ec.n_primary, options=len(ec.options), colors=len(ec.colors),
                     backend=be.name, branch=eng.mode, note=note)
    if count:
        totals, _ = RP.count_engine(eng, be, settings)
        r.solutions, r.nodes = int(totals.count), int(totals.nodes)
    elif eng.dead:
        r.solved, r.options_chosen = False, []
    else:
        from puzzlebatch.runners.engine.search import BatchDFS

        totals, _ = BatchDFS(eng.problem, be, settings).first()
        chosen = [option_words(ec, o) for o in eng.decode(totals.solutions[0])] if totals.solutions else []
        r.solved, r.options_chosen, r.nodes = bool(chosen), chosen, int(totals.nodes)
    r.seconds = work_clock() - t0
    return r
