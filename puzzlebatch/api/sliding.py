"""Sliding puzzles (8/15/24-puzzle): optimal solutions by IDA*, whole state spaces by breadth-first search,
pattern databases.

Boards are text as on the command line (``"8 6 7 2 5 4 3 0 1"``, 0 the blank, tiles in row order), a sequence
of tile numbers (flat or a grid) or a :class:`~puzzlebatch.puzzles.sliding.model.Board`.  Two goals:
``"blank-last"`` (``1 .. n-1`` then the blank, the default) and ``"blank-first"`` (Korf's).

Long because it is the family's whole API: four verbs (one board, a file of boards, a whole state space, pattern
databases), their result classes and their documentation.

Examples
--------
>>> import puzzlebatch as pb
>>> r = pb.sliding.solve("8 6 7 2 5 4 3 0 1", backend="cpu")  # doctest: +SKIP
>>> r.length, r.moves[:4]  # doctest: +SKIP
(31, [...])
>>> pb.sliding.bfs("2x3").depth_counts  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import sys
from pathlib import Path
from typing import Any, Callable, ClassVar, Sequence

import numpy as np

from puzzlebatch.api.common import Result, backend_of, internal, options_of
from puzzlebatch.errors import Interrupted, PuzzleInputError
from puzzlebatch.puzzles.sliding.model import GOALS, Board, goal_board, parse_board, parse_size, read_instances, \
    replay, solvability
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.session import RunOptions, Session

__all__ = ["solve", "solve_file", "bfs", "build_pdb", "board_of", "SlidingSolution", "SlidingFileSolution",
           "SlidingBFS", "SlidingPDB", "GOALS", "HEURISTICS"]

#: the heuristics ``solve`` takes (``auto``: pattern databases for 4x4 and 5x5, linear conflicts otherwise)
HEURISTICS = ("auto", "manhattan", "linear-conflict", "pdb")
DEFAULT_MAX_LEN = 250


def _say(message: str) -> None:
    print(f"puzzlebatch: {message}", file=sys.stderr)


class _DropsNone(Result):
    """A result whose optional keys (:attr:`optional`) are left out of :meth:`to_dict` when they are None, as the
    command line leaves them out of its document."""

    optional: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON values: the command line's ``--json`` document."""
        return {k: v for k, v in super().to_dict().items() if v is not None or k not in self.optional}


@dataclasses.dataclass
class SlidingSolution(_DropsNone):
    """One board's optimal solution (IDA*), or the proof that it has none.

    Attributes
    ----------
    board, size, goal
        The start board (tiles in row order), its size ``"RxC"`` and the goal.
    solvable, explanation
        Whether the goal can be reached, and why (the parity argument).
    solved
        A solution was found (the same as ``solvable``: every solvable board is solved optimally).
    moves, length, directions
        The tiles that slide, in order (empty when unsolvable), their number (optimal), and the blank's moves as
        ``U``/``D``/``L``/``R``.
    nodes, iterations, initial_h
        IDA*'s nodes, its iterations and the heuristic's value at the start (None when unsolvable).
    seconds, heuristic, backend, device
        The search time (compiling excluded), the heuristic used, where it ran.
    h2d_bytes, d2h_bytes, launches
        The traffic with the device and the kernel launches.
    partition
        The pattern databases' partition (heuristic ``pdb`` only).
    out, run_id
        The results file and run when stored (``out=``).
    picture
        The drawing of the path (``png=``).
    """

    optional: ClassVar[tuple[str, ...]] = ("partition", "out", "run_id", "picture")

    board: str
    size: str
    goal: str
    solvable: bool
    explanation: str
    length: int
    moves: list[int]
    directions: str
    nodes: int
    iterations: int
    initial_h: int | None
    seconds: float
    heuristic: str
    backend: str
    solved: bool
    device: str
    h2d_bytes: int = 0
    d2h_bytes: int = 0
    launches: int = 0
    partition: str | None = None
    out: str | None = None
    run_id: str | None = None
    picture: str | None = None

    def boards(self) -> list[Board]:
        """The boards along the solution, the start first and the goal last (the start alone when unsolvable)."""
        rows, cols = parse_size(self.size)
        return replay(Board(rows, cols, tuple(int(t) for t in self.board.split())), self.moves)


@dataclasses.dataclass
class SlidingFileSolution(Result):
    """Optimal solutions of every board of an instance file.

    Attributes
    ----------
    instances, solved_count
        The boards in the file, and how many were solved (the others are unsolvable, or not reached yet when
        ``complete`` is False).
    nodes, seconds, backend, device
        IDA*'s nodes over every board, the time of this call (compiling excluded), where it ran.
    out, run_id
        The results file and run (None when nothing was stored).
    results
        One document per board solved, in file order: the keys of :class:`SlidingSolution` without ``device``
        and the traffic.
    h2d_bytes, d2h_bytes, launches
        The traffic with the device and the kernel launches.
    complete
        False when stopped early (``max_batches``); ``resume=True`` continues from ``out``.
    """

    instances: int
    solved_count: int
    nodes: int
    seconds: float
    backend: str
    device: str
    out: str | None
    run_id: str | None
    results: list[dict]
    h2d_bytes: int = 0
    d2h_bytes: int = 0
    launches: int = 0
    complete: bool = True
    work: dict | None = internal()


@dataclasses.dataclass
class SlidingBFS(Result):
    """A breadth-first search of a whole state space: every board's distance from the goal.

    Attributes
    ----------
    size, goal
        The board size ``"RxC"`` and the goal.
    states, max_depth, depth_counts, mean_depth
        The states reached, the largest distance, the number of states at each distance, the mean distance.
    hardest_count, hardest
        How many states are at the largest distance, and (up to ten of) them.
    seconds, backend, device, table_bytes
        The search time, where it ran, the distance table's size (4 bits a state).
    h2d_bytes, d2h_bytes, launches
        The traffic with the device and the kernel launches.
    complete
        False when stopped early (``max_layers``): ``resume=True`` continues from ``out``.
    out, run_id
        The results file and run (None when nothing was stored).
    table
        The distance table (``uint8``, two 4-bit entries a byte: depth mod 15); see :meth:`distance`.
    """

    size: str
    goal: str
    states: int
    max_depth: int
    depth_counts: list[int]
    mean_depth: float
    hardest_count: int
    hardest: list[str]
    seconds: float
    backend: str
    table_bytes: int
    h2d_bytes: int
    d2h_bytes: int
    launches: int
    complete: bool
    device: str
    out: str | None = None
    run_id: str | None = None
    table: np.ndarray | None = internal()

    def distance(self, tiles: str | Sequence | Board) -> int:
        """A board's exact distance from the goal, read from the finished table.

        Raises
        ------
        PuzzleInputError
            The board is malformed, of another size, or cannot reach the goal; or the search was not complete.
        """
        from puzzlebatch.runners.sliding.solver import table_distance

        if not self.complete or self.table is None:
            raise PuzzleInputError("distance: the breadth-first search did not finish (resume it first)")
        return table_distance(self.table, board_of(tiles, self.size), self.goal)


@dataclasses.dataclass
class SlidingPDB(_DropsNone):
    """A partition's pattern databases, built (or found built) in the cache folder.

    Attributes
    ----------
    partition, size, goal
        The partition's name (``"6-6-3"``), the board size and the goal the tables are for (``blank-first``).
    complete
        Every table is built (False: stopped by ``max_layers``; the same call resumes the ``partial`` files).
    cache_dir
        The folder of the tables.
    built
        The tables this call built (those that existed are reused).
    partial
        The partial files left by ``max_layers``.
    patterns
        Each table: its tiles, entries, bytes, largest and mean value, build time and backend, file.
    backend
        Where the tables were built.
    h2d_bytes, d2h_bytes, launches
        The traffic of the builds this call ran.
    """

    optional: ClassVar[tuple[str, ...]] = ("goal", "patterns", "h2d_bytes", "d2h_bytes", "launches")

    partition: str
    size: str
    goal: str | None
    complete: bool
    cache_dir: str
    built: list[str]
    partial: list[str]
    patterns: list[dict] | None
    backend: str
    h2d_bytes: int | None = None
    d2h_bytes: int | None = None
    launches: int | None = None


# -- inputs ------------------------------------------------------------------------------------------------------

def _size(size: str | Sequence[int] | None, where: str = "--size") -> tuple[int, int] | None:
    if size is None or isinstance(size, str) and not size:
        return None
    if isinstance(size, str):
        return parse_size(size, where)
    try:
        rows, cols = (int(v) for v in size)
    except (TypeError, ValueError):
        raise PuzzleInputError(f"{where}: {size!r} is not a board size like 3x3 or (3, 4)") from None
    return parse_size(f"{rows}x{cols}", where)


def board_of(tiles: str | Sequence | Board, size: str | Sequence[int] | None = None, where: str = "TILES") -> Board:
    """A :class:`~puzzlebatch.puzzles.sliding.model.Board` from text, tile numbers (flat, or a grid of rows) or a
    board.

    Parameters
    ----------
    tiles
        ``"8 6 7 2 5 4 3 0 1"`` (0, ``.`` or ``_`` the blank; a grid of lines gives its own size), a sequence of
        ints, a list of rows, or a Board.
    size
        ``"RxC"`` or ``(rows, cols)`` when the tiles do not make a square.
    where
        What the error messages call the board.

    Returns
    -------
    Board

    Raises
    ------
    PuzzleInputError
        A malformed board: a tile twice or out of range, a count that is not the size, a size outside 2x2..6x6.
    """
    shape = _size(size)
    if isinstance(tiles, Board):
        if shape is not None and shape != (tiles.rows, tiles.cols):
            raise PuzzleInputError(f"{where}: a {tiles.rows}x{tiles.cols} board, not {shape[0]}x{shape[1]}")
        return parse_board(tiles.text(), (tiles.rows, tiles.cols), where)
    if isinstance(tiles, str):
        return parse_board(tiles, shape, where)
    try:
        arr = np.asarray(tiles)
    except (TypeError, ValueError):  # rows of different lengths
        arr = np.empty((0, 0, 0))
    if arr.ndim == 2 and shape is None:
        shape = arr.shape
    if arr.ndim not in (1, 2) or arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise PuzzleInputError(f"{where}: give the tiles as text, a list of ints or a grid of rows")
    return parse_board(" ".join(str(int(v)) for v in arr.ravel()), shape, where)


def _check_goal(goal: str) -> str:
    if goal not in GOALS:
        raise PuzzleInputError(f"--goal: {goal!r} is not one of {', '.join(GOALS)}")
    return goal


def _heuristic(heuristic: str, rows: int, cols: int) -> str:
    """``auto``: pattern databases for 4x4 and 5x5, linear conflicts otherwise."""
    if heuristic not in HEURISTICS:
        raise PuzzleInputError(f"--heuristic: {heuristic!r} is not one of {', '.join(HEURISTICS)}")
    if heuristic != "auto":
        return heuristic
    from puzzlebatch.runners.sliding.pdb import PARTITIONS

    return "pdb" if (rows, cols) in PARTITIONS and rows * cols >= 16 else "linear-conflict"


def _check_max_len(max_len: int, backend: Backend) -> int:
    if int(max_len) < 1:
        raise PuzzleInputError(f"--max-len {max_len}: must be at least 1")
    if backend.kind == "cuda":
        from puzzlebatch.gpu_kernels.sliding import MAX_LEN as CUDA_MAX_LEN  # imports numba.cuda: only when used

        if max_len > CUDA_MAX_LEN:
            raise PuzzleInputError(f"--max-len {max_len}: the CUDA backend handles at most {CUDA_MAX_LEN} moves")
    return int(max_len)


def _check_png(png) -> None:
    if png and Path(png).suffix.lower() not in (".png", ".svg"):
        raise PuzzleInputError(f"--png: cannot draw {str(png)!r}: unsupported suffix "
                               f"{Path(png).suffix or '(none)'!r}, use .png or .svg")


def _missing_tables(rows: int, cols: int, heuristic: str, partition: str | None, cache_dir) -> list:
    """The patterns of heuristic ``pdb`` whose tables are not built yet (none for another heuristic)."""
    if heuristic != "pdb":
        return []
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    return sliding_pdb.missing(rows, cols, partition, sliding_pdb.cache_dir(cache_dir))


def _databases(rows: int, cols: int, heuristic: str, partition: str | None, cache_dir, backend: Backend, say,
               build: bool = False):
    """The pattern databases of heuristic ``pdb`` (built first when missing, after saying so), and their folder.

    Tables that would take long or much disk to build are built only with ``build``: without it, a one-line
    error gives the estimate and the command that builds them."""
    if heuristic != "pdb":
        return None, None
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    folder = sliding_pdb.cache_dir(cache_dir)
    name, _ = sliding_pdb.partition(rows, cols, partition)  # one-line error for an unknown partition
    absent = sliding_pdb.missing(rows, cols, name, folder)
    if absent:
        cost = sliding_pdb.estimate(rows, cols, absent)
        if cost.large and not build:
            where = f" --cache-dir {folder}" if cache_dir else ""
            raise PuzzleInputError(f"pattern databases {name} for {rows}x{cols} are not built in {folder} "
                                   f"({cost.text()}): build them once with `puzzlebatch sliding pdb build {name} "
                                   f"--size {rows}x{cols}{where}`, or add --build")
        (say or _say)(f"pattern databases {name} for {rows}x{cols}: building {cost.text()}")
    return sliding_pdb.ensure(rows, cols, name, backend, folder, say=say or _say), folder


#: nodes of the first, quick try of a board whose pattern databases are not built (linear conflicts)
QUICK_NODES = 2_000_000


def _check_max_nodes(max_nodes) -> int | None:
    if max_nodes is not None and int(max_nodes) < 1:
        raise PuzzleInputError(f"--max-nodes {max_nodes}: must be at least 1")
    return None if max_nodes is None else int(max_nodes)


def _answer(r) -> dict:
    """A board's answer in the JSON contract: ``solved``, ``moves`` (the tiles moved; empty when unsolvable) and
    ``length`` (their number)."""
    moves = list(r.moves or [])
    return r.to_json() | {"solved": bool(r.solvable), "moves": moves, "length": len(moves),
                           "directions": r.directions or ""}


def _rows(rs) -> dict:
    """Item rows of solved boards (``length`` -1 when unsolvable)."""
    return {"length": np.array([r.length if r.solvable else -1 for r in rs], np.int64),
            "nodes": np.array([r.nodes for r in rs], np.int64),
            "seconds": np.array([r.seconds for r in rs], np.float64),
            "moves": np.array([" ".join(map(str, r.moves or [])) for r in rs], dtype=object)}


# -- solve -------------------------------------------------------------------------------------------------------

def solve(tiles: str | Sequence | Board, *, size: str | Sequence[int] | None = None, goal: str = "blank-last",
          heuristic: str = "auto", partition: str | None = None, cache_dir: str | Path | None = None,
          backend: str | Backend = "auto", max_len: int = DEFAULT_MAX_LEN, out: str | Path | None = None,
          png: str | Path | None = None, say: Callable[[str], None] | None = None,
          options: RunOptions | None = None, build: bool = False, max_nodes: int | None = None,
          split: int | None = None, from_bound: int | None = None) -> SlidingSolution:
    """An optimal solution of one board (IDA*), or the proof by parity that it has none.

    Parameters
    ----------
    tiles
        The board: ``"8 6 7 2 5 4 3 0 1"``, tile numbers, a grid of rows or a Board (:func:`board_of`).
    size
        ``"RxC"`` when the tiles do not make a square.
    goal
        ``"blank-last"`` (``1 .. n-1`` then the blank) or ``"blank-first"`` (Korf's).
    heuristic
        ``"auto"`` (pattern databases for 4x4 and 5x5, linear conflicts otherwise), ``"manhattan"``,
        ``"linear-conflict"`` or ``"pdb"``.  With ``"auto"`` and tables not built yet, a short search with
        linear conflicts comes first: a board close to the goal is solved at once, without building anything.
    partition
        The pattern databases' partition (``"6-6-3"``, ``"7-8"``, ...; default: the size's); missing tables are
        built first (once; they are kept in ``cache_dir``), large ones only with ``build``.
    cache_dir
        The folder of the pattern databases (default: the puzzlebatch cache folder, ``$PUZZLEBATCH_CACHE_DIR``).
    backend
        ``"auto"``, ``"cpu"`` or ``"cuda"``.
    max_len
        Give up beyond this many moves (an error).
    out
        Also store the solution in this HDF5 file: a ``solve`` run of one item (default: nothing stored).
    png
        Draw the path (``.png`` or ``.svg``).
    say
        Where news goes (a pattern database being built); default: a line on stderr.
    options
        The run's options (the command line's); ``out`` above overrides its file.
    build
        Build missing pattern databases even when that takes long (the 5x5's 6-6-6-6, the 4x4's 7-8);
        without it such a request is an error giving the estimate.
    max_nodes
        Give up (an error) after this many IDA* nodes; default: no limit up to 4x4 or with pattern databases,
        a hundred million for larger boards.
    split
        Batch IDA*: the nodes a few moves below the start, at least this many, are the work items of every
        iteration, searched together on the backend (both cores, or one CUDA thread each); a line per iteration
        through ``say`` gives its bound and the nodes so far.  The same solution and node count on every backend
        (close to, not equal to, the sequential search's).
    from_bound
        With ``split``: start at this bound (an iteration's bound from an interrupted run; the default is the
        start's heuristic value).

    Returns
    -------
    SlidingSolution
        ``solvable`` False (and no moves) when the parity argument proves the goal out of reach.

    Raises
    ------
    PuzzleInputError
        A malformed board, size, goal, heuristic, partition, ``max_len`` or picture suffix, large pattern
        databases not built (without ``build``), or no solution within ``max_len`` moves or ``max_nodes`` nodes.
    """
    from puzzlebatch.runners.sliding import solver as sliding
    from puzzlebatch.transfers import transfers_of

    board = board_of(tiles, size, "TILES")
    goal = _check_goal(goal)
    _check_png(png)
    requested = heuristic
    heuristic = _heuristic(heuristic, board.rows, board.cols)
    be = backend_of(backend)
    max_len = _check_max_len(max_len, be)
    max_nodes = _check_max_nodes(max_nodes)
    if split is not None and int(split) < 1:
        raise PuzzleInputError(f"--split {split}: must be at least 1")
    if from_bound is not None and (split is None or int(from_bound) < 0):
        raise PuzzleInputError(f"--from-bound {from_bound}: " + ("needs --split" if split is None else
                                                                 "must be at least 0"))
    opts = dataclasses.replace(options_of(options, backend, out=out), resume=False)  # one board never resumes
    ok, _ = solvability(board, goal_board(board.rows, board.cols, goal))
    quick = kernels = None
    if ok and requested == "auto" and _missing_tables(board.rows, board.cols, heuristic, partition, cache_dir):
        kernels = sliding.drivers(be)  # a board close to the goal needs no database
        try:
            quick = sliding.solve(board, goal, "linear-conflict", be, max_len=max_len, kernels=kernels,
                                  max_nodes=min(QUICK_NODES, max_nodes or QUICK_NODES))
            heuristic = "linear-conflict"
        except sliding.NodeLimit:
            pass
    pdbs = None
    if ok and quick is None:
        pdbs, _ = _databases(board.rows, board.cols, heuristic, partition, cache_dir, be, say, build)
    if max_nodes is None:
        max_nodes = sliding.default_max_nodes(board.rows, board.cols, heuristic)
    params = {"board": board.text(), "size": f"{board.rows}x{board.cols}", "goal": goal, "heuristic": heuristic,
              "partition": pdbs.name if pdbs else None, "max_len": max_len}
    with Session(opts, "sliding", "solve", params, be, keep=False, pool=False,
                 instances={"boards": np.array([board.tiles], np.int8)}) as s:
        kernels = kernels or sliding.drivers(be)
        if quick is None and split is not None:
            tell = say or _say

            searching = [from_bound]  # the bound of the iteration under way, when known

            def progress(it) -> None:
                searching[0] = it.next_bound
                tell(f"iteration {it.iteration}: bound {it.bound}, {it.nodes:,} nodes, {it.items:,} work items, "
                     f"{it.seconds:.1f} s" + (" (solved)" if it.solved else f"; next bound {it.next_bound}"))

            from puzzlebatch.runners.sliding import split as split_search

            try:
                r = split_search.solve_split(board, goal, heuristic, be, pdbs=pdbs, max_len=max_len,
                                             items=int(split), kernels=kernels, start_bound=from_bound,
                                             on_iteration=progress, max_nodes=max_nodes)
            except KeyboardInterrupt as exc:
                if isinstance(exc, Interrupted) or searching[0] is None:
                    raise
                raise Interrupted(hint=f"the iterations below bound {searching[0]} are done: the same command "
                                       f"with --from-bound {searching[0]} goes on from there") from None
        else:
            r = quick or sliding.solve(board, goal, heuristic, be, pdbs=pdbs, max_len=max_len, kernels=kernels,
                                       max_nodes=max_nodes)
        doc = _answer(r) | {"device": be.device} | transfers_of(kernels)
        s.append_items(**_rows([r]))
        stored = s.finish({k: doc[k] for k in ("solved", "length", "nodes", "seconds")}, True, seconds=r.seconds)
    picture = None
    if png and r.solvable:
        from puzzlebatch.results.sliding_pictures import draw_path

        picture = str(draw_path(replay(board, r.moves), png, goal=goal, moves=r.moves,
                                title=f"{board.rows}x{board.cols}: {r.length} moves (optimal)"))
    return SlidingSolution(**doc, partition=pdbs.name if pdbs else None, out=stored["out"], run_id=stored["run_id"],
                           picture=picture)


def solve_file(path: str | Path, *, size: str | Sequence[int] | None = None, goal: str = "blank-last",
               heuristic: str = "auto", partition: str | None = None, cache_dir: str | Path | None = None,
               backend: str | Backend = "auto", max_len: int = DEFAULT_MAX_LEN, batch: int | None = None,
               out: str | Path | None = None, resume: bool | None = None, scheduler: str | None = None,
               max_batches: int | None = None, say: Callable[[str], None] | None = None,
               options: RunOptions | None = None, build: bool = False,
               max_nodes: int | None = None) -> SlidingFileSolution:
    """Optimal solutions of every board of an instance file, in batches (on a Dask cluster with ``scheduler``).

    Parameters
    ----------
    path
        The instances: one board a line, tiles in row order, optionally its optimal length last (checked);
        ``#`` comments and blank lines are skipped.  Every board the same size.
    size, goal, heuristic, partition, cache_dir, backend, max_len, say, build, max_nodes
        As for :func:`solve` (``max_nodes`` a board; no quick first try: a file's boards are solved together).
    batch
        Boards per launch (default: all at once here, about four tasks per worker on a cluster).
    out
        Store every board's solution in this HDF5 file (default: nothing stored; the command line's default is
        ``results/sliding.h5``).
    resume
        Continue the unfinished run of the same file in ``out``: the boards stored are not solved again.
    scheduler
        Solve on a Dask cluster (``"local:N"``, an address or a scheduler file).
    max_batches
        Stop after this many batches (``complete`` is then False; ``resume=True`` continues).
    options
        The run's options (the command line's); the keyword arguments above override them.

    Returns
    -------
    SlidingFileSolution

    Raises
    ------
    PuzzleInputError
        An unreadable or malformed file, boards of several sizes, a bad option, or ``resume`` without an
        unfinished run of this file in ``out``.
    AssertionError
        A board's optimal length differs from the one the file gives.
    puzzlebatch.errors.Interrupted
        Ctrl-C: the boards solved so far were stored first (``resume=True`` continues).
    """
    from puzzlebatch import transfers
    from puzzlebatch.jit.clock import work_clock
    from puzzlebatch.runners.engine.distributed import job_sizes, map_ordered
    from puzzlebatch.runners.sliding.dist import SolveTask

    if batch is not None and int(batch) < 1:
        raise PuzzleInputError(f"--batch {batch}: must be at least 1")
    goal = _check_goal(goal)
    instances = read_instances(path, _size(size))
    shapes = {(b.rows, b.cols) for b, _ in instances}
    if len(shapes) != 1:
        raise PuzzleInputError(f"{path}: boards of several sizes ({', '.join(f'{r}x{c}' for r, c in shapes)})")
    rows, cols = shapes.pop()
    heuristic = _heuristic(heuristic, rows, cols)
    be = backend_of(backend)
    max_len = _check_max_len(max_len, be)
    max_nodes = _check_max_nodes(max_nodes)
    opts = options_of(options, backend, out=out, resume=resume, scheduler=scheduler, max_batches=max_batches)
    pdbs, folder = _databases(rows, cols, heuristic, partition, cache_dir, be, say, build)
    if max_nodes is None:
        from puzzlebatch.runners.sliding.solver import default_max_nodes

        max_nodes = default_max_nodes(rows, cols, heuristic)
    boards = np.array([b.tiles for b, _ in instances], np.int8)
    params = {"file": str(path), "goal": goal, "heuristic": heuristic, "partition": pdbs.name if pdbs else None,
              "max_len": max_len, "boards_sha256": hashlib.sha256(boards.tobytes()).hexdigest()}
    with Session(opts, "sliding", "solve", params, be, label=f"sliding solve {rows}x{cols}", describe=str(path),
                 instances={"boards": boards}) as s:
        start = s.run.n_committed if s.run is not None else 0
        results = []
        if start:  # the boards solved before: rebuilt from the store
            done_rows = s.run.item_rows(0, start)
            results = [_from_row(done_rows, j, instances[j][0], goal, heuristic, be.name) for j in range(start)]
        progress = s.progress(total=len(instances), unit="instance")
        progress.update(start)
        size_of = job_sizes(len(instances) - start, s.pool, batch)
        chunks = [instances[lo:lo + size_of] for lo in range(start, len(instances), size_of)]
        if opts.max_batches is not None:
            chunks = chunks[:opts.max_batches]
        task = SolveTask(goal, heuristic, opts.backend_request if s.pool.distributed else be.name, partition,
                         str(folder) if pdbs else None, max_len, rows, cols, max_nodes)
        t0 = work_clock()
        traffic = transfers.zero()
        for chunk, done in zip(chunks, map_ordered(s.pool, task, [[b.tiles for b, _ in c] for c in chunks])):
            rs = done["results"]
            traffic = transfers.add(traffic, done["transfers"])
            s.pool.work.add(done["worker"], len(rs), sum(r.nodes for r in rs), done["seconds"], done["backend"])
            for r, (b, known) in zip(rs, chunk):
                if known is not None and r.solvable and r.length != known:
                    raise AssertionError(f"{b.text()}: found {r.length} moves, the file says {known}")
            s.append_items(**_rows(rs))
            results.extend(rs)
            s.checkpoint({}, {"boards": len(results)}, force=True)  # the rows stored so far are the progress
            progress.update(len(rs))
        seconds = work_clock() - t0
        complete = len(results) == len(instances)
        summary = {"instances": len(results), "solved": sum(r.solvable for r in results),
                   "nodes": sum(r.nodes for r in results), "seconds": seconds,
                   "load_seconds": pdbs.load_seconds if pdbs else 0.0, **traffic}
        stored = s.finish(summary, complete)
    return SlidingFileSolution(instances=len(results), solved_count=summary["solved"], nodes=summary["nodes"],
                               seconds=seconds, backend=be.name, device=be.device, out=stored["out"],
                               run_id=stored["run_id"], results=[_answer(r) for r in results], **traffic,
                               complete=complete, work=stored["work"])


def _from_row(rows: dict, j: int, board: Board, goal: str, heuristic: str, backend: str):
    """A stored board's answer, as the solver gave it (iterations and the start heuristic are not stored)."""
    from puzzlebatch.runners.sliding.solver import SolveResult

    size = f"{board.rows}x{board.cols}"
    length = int(rows["length"][j])
    if length < 0:
        _, why = solvability(board, goal_board(board.rows, board.cols, goal))
        return SolveResult(board.text(), size, goal, False, why, None, None, None, 0, 0, None, 0.0, heuristic, backend)
    text = rows["moves"][j]
    moves = [int(t) for t in (text.decode() if isinstance(text, bytes) else str(text)).split()]
    walk = replay(board, moves)
    dirs = "".join("UDLR"[[-board.cols, board.cols, -1, 1].index(b.blank - a.blank)] for a, b in zip(walk, walk[1:]))
    return SolveResult(board.text(), size, goal, True, "solvable (from the store)", length, moves, dirs,
                       int(rows["nodes"][j]), 0, None, float(rows["seconds"][j]), heuristic, backend)


# -- bfs ---------------------------------------------------------------------------------------------------------

def _bfs_size(size: str | Sequence[int]) -> tuple[int, int]:
    from puzzlebatch.runners.sliding import solver as sliding

    if isinstance(size, str) and not size.strip():
        raise PuzzleInputError("bfs size: empty (write a board size like 3x3 or 3x4)")
    rows, cols = _size(size, "bfs size") or (0, 0)
    if rows * cols > sliding.BFS_MAX_CELLS:
        sliding.bfs_start(rows, cols, "blank-last")  # raises the one-line error
    return rows, cols


def check_bfs(size: str | Sequence[int], goal: str = "blank-last") -> tuple[int, int]:
    """The cheap checks of :func:`bfs` (a job's dry run): the size parses and its space is small enough.

    Parameters
    ----------
    size
        ``"RxC"`` or ``(rows, cols)``.
    goal
        ``"blank-last"`` or ``"blank-first"``.

    Returns
    -------
    (int, int)
        ``(rows, cols)``.

    Raises
    ------
    PuzzleInputError
        A malformed size or goal, or more than 12 cells.
    """
    _check_goal(goal)
    return _bfs_size(size)


def _snapshot(state) -> dict:
    """The BFS's arrays at a layer boundary, the table copied (the next layer marks it in place; a GPU run's
    table is copied to the host anyway)."""
    arrays = state.checkpoint_arrays()
    if arrays["packed"] is state.packed:
        arrays["packed"] = state.packed.copy()
    return arrays


def bfs(size: str | Sequence[int], *, goal: str = "blank-last", backend: str | Backend = "auto",
        max_layers: int | None = None, out: str | Path | None = None, resume: bool | None = None,
        options: RunOptions | None = None) -> SlidingBFS:
    """Breadth-first search of a whole state space (up to 12 cells: 3x4, 2x6): every board's distance from the
    goal.

    Parameters
    ----------
    size
        ``"RxC"`` or ``(rows, cols)``.
    goal
        ``"blank-last"`` or ``"blank-first"``.
    backend
        ``"auto"``, ``"cpu"`` or ``"cuda"``.
    max_layers
        Stop after this many layers (``complete`` is then False; ``resume=True`` continues from ``out``).
    out
        Store the run (the distance table, the states per layer) in this HDF5 file (default: nothing stored;
        the command line's default is ``results/sliding.h5``).
    resume
        Continue the unfinished search of the same size and goal in ``out``.
    options
        The run's options (the command line's: checkpoints every ``checkpoint_every`` seconds); the keyword
        arguments above override them.

    Returns
    -------
    SlidingBFS

    Raises
    ------
    PuzzleInputError
        A malformed size or goal, more than 12 cells, or ``resume`` without an unfinished search in ``out``.
    puzzlebatch.errors.Interrupted
        Ctrl-C: the search was checkpointed at its last saved layer (``resume=True`` continues).
    """
    from puzzlebatch.runners.sliding import solver as sliding

    goal = _check_goal(goal)
    rows, cols = _bfs_size(size)
    be = backend_of(backend)
    opts = options_of(options, backend, out=out, resume=resume)
    params = {"size": f"{rows}x{cols}", "goal": goal}
    with Session(opts, "sliding", "bfs", params, be, pool=False, label=f"sliding bfs {rows}x{cols}",
                 describe=f"{rows}x{cols} ({goal})") as s:
        state = None
        if s.restored is not None:
            arrays, meta = s.restored
            state = sliding.BFSState(rows, cols, goal, arrays["packed"], arrays["frontier"],
                                     [int(v) for v in arrays["depth_counts"]],
                                     float(meta.get("bfs_seconds", meta.get("seconds", 0.0))))
        if state is None:
            state = sliding.bfs_start(rows, cols, goal)
        progress = s.progress(total=math.factorial(rows * cols) // 2, unit="state")
        progress.update(sum(state.depth_counts))
        # Every finished layer is the checkpoint Ctrl-C saves (written to the file every checkpoint_every
        # seconds); its series point is stored first, and a checkpoint records how many points it covers, so a
        # resumed search adds each point once.

        def on_layer(st) -> None:
            progress.update(st.depth_counts[-1])
            progress.set_postfix(depth=st.depth, layer=st.depth_counts[-1])
            if not s.stored:
                return
            s.append_series("layer_states", np.array([st.depth], np.int64), np.array([st.depth_counts[-1]], np.int64))
            s.checkpoint(_snapshot(st), {"bfs_seconds": st.seconds})

        state = sliding.bfs_run(state, be, on_layer=on_layer, max_layers=max_layers)
        complete = sliding.bfs_done(state)
        result = sliding.bfs_result(state, be)
        if s.stored and complete:
            s.run.set_table("distances", state.packed, _TABLE_ATTRS | {"rows": rows, "cols": cols, "goal": goal})
            s.run.drop_checkpoint()  # the finished table replaces it (h5repack reclaims the file space)
        elif s.stored:
            s.checkpoint(state.checkpoint_arrays(), {"bfs_seconds": state.seconds})  # what finish saves
        stored = s.finish(result.to_json(), complete, seconds=state.seconds)
    return SlidingBFS(**result.to_json(), complete=complete, device=be.device, out=stored["out"],
                      run_id=stored["run_id"], table=state.packed)


_TABLE_ATTRS = {
    "encoding": ("4 bits a state: (depth mod 15), 0xF unreached; rank r in the low nibble of byte r>>1 when r is "
                 "even, the high nibble when odd"),
    "rank": "blank cell * (n-1)!/2 + (lexicographic rank of the tiles in row order, blank left out) // 2",
}


# -- pattern databases -------------------------------------------------------------------------------------------

def build_pdb(partition: str, *, size: str | Sequence[int] = "4x4", backend: str | Backend = "auto",
              cache_dir: str | Path | None = None, force: bool = False, checkpoint_every: float = 60.0,
              max_layers: int | None = None, scheduler: str | None = None, say: Callable[[str], None] | None = None,
              options: RunOptions | None = None) -> SlidingPDB:
    """Build a partition's additive pattern databases (Korf & Felner) into the cache folder, where
    :func:`solve` finds them; tables already built are reused.

    A build checkpoints into ``<table>.partial.h5`` every ``checkpoint_every`` seconds; an interrupted build
    (Ctrl-C, or ``max_layers``) resumes from there when called again.

    Parameters
    ----------
    partition
        ``"6-6-3"``, ``"5-5-5"``, ``"7-8"`` (4x4), ``"6-6-6-6"``, ``"5-5-5-5-4"`` (5x5), ``"4-4"`` (3x3).
    size
        The board size (default 4x4).
    backend
        ``"auto"``, ``"cpu"`` or ``"cuda"``.
    cache_dir
        The folder (default: the puzzlebatch cache folder, ``$PUZZLEBATCH_CACHE_DIR``); made when named here.
    force
        Rebuild tables that exist.
    checkpoint_every
        Seconds between checkpoints of a table being built.
    max_layers
        Stop a table after this many layers (``complete`` is then False; call again to resume).
    scheduler
        Build one table per task on a Dask cluster (the cache folder must be shared with the workers).
    say
        Where news goes (each table started); default: a line on stderr.
    options
        The run's options (the command line's: the cluster, progress bars).

    Returns
    -------
    SlidingPDB

    Raises
    ------
    PuzzleInputError
        An unknown partition or size, or a folder that cannot be made or written.
    KeyboardInterrupt
        Ctrl-C (:class:`~puzzlebatch.errors.Interrupted`): the table resumes from its last checkpoint.
    """
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    say = say or _say
    rows, cols = _size(size, "--size")
    name, pats = sliding_pdb.partition(rows, cols, partition)
    be = backend_of(backend)
    folder = sliding_pdb.cache_dir(cache_dir)
    if cache_dir:  # the folder the user named: made here (its parent must exist), before any work
        from puzzlebatch.outputs import make_output_dir

        make_output_dir(folder, "--cache-dir")
    opts = dataclasses.replace(options_of(options, backend, scheduler=scheduler), out=None, resume=False,
                               keep=False)  # the tables are files of their own, not a run
    with Session(opts, "sliding", "pdb", {"partition": name, "size": f"{rows}x{cols}"}, be, keep=False) as s:
        if s.pool.distributed:
            doc = _build_on_pool(s, rows, cols, name, pats, folder, force, checkpoint_every, max_layers, say)
        else:
            doc = _build_here(s, rows, cols, name, pats, folder, be, force, checkpoint_every, max_layers, say)
        s.finish({}, True)
    return SlidingPDB(**doc)


def _build_here(s, rows, cols, name, pats, folder, be, force, checkpoint_every, max_layers, say) -> dict:
    from puzzlebatch import transfers
    from puzzlebatch.runners.engine.progress import bar
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    built = []
    base = {"partition": name, "size": f"{rows}x{cols}", "cache_dir": str(folder), "backend": be.name}
    todo = [p for p in pats if force or not sliding_pdb.pattern_file(rows, cols, p, folder).exists()]
    if todo:  # the estimate first: the 5x5's 6-6-6-6 takes about a quarter of an hour
        say(f"partition {name} for {rows}x{cols}: {sliding_pdb.estimate(rows, cols, todo).text()} (estimated)")
    for p in pats:
        f = sliding_pdb.pattern_file(rows, cols, p, folder)
        if f.exists() and not force:
            continue
        if f.exists():
            f.unlink()
        resumed = f.with_suffix(".partial.h5").exists()
        say(f"{'resuming' if resumed else 'building'} {rows}x{cols} pattern {','.join(map(str, p))} "
            f"({sliding_pdb.n_entries(rows * cols, len(p)):,} entries) on {be.name} (resumable: building again "
            f"continues from the last checkpoint)")
        progress = bar(f"pattern {','.join(map(str, p))}", unit="layer", enabled=None if s.options.progress else False)

        def layer(depth, size, seconds, progress=progress):
            progress.update(1)
            progress.set_postfix(depth=depth, layer=size)

        try:  # Ctrl-C goes through: the table resumes from its last checkpoint
            res = sliding_pdb.build_pattern(rows, cols, p, be, folder, partition_name=name, progress=layer,
                                            checkpoint_every=checkpoint_every, max_layers=max_layers)
        finally:
            progress.close()
        built.append(str(res))
        if res.name.endswith(".partial.h5"):
            say(f"stopped after --max-layers; run again to resume ({res})")
            return base | {"goal": None, "complete": False, "built": built[:-1], "partial": [str(res)],
                           "patterns": None}
    info = sliding_pdb.load(rows, cols, name, folder, packed=False).info()
    # the traffic of the builds this call ran (each table file keeps its own build's)
    return base | {"goal": "blank-first", "complete": True, "built": built, "partial": [], "patterns": info} | {
        k: sum(p[k] for p in info if p["file"] in built) for k in transfers.KEYS}


def _build_on_pool(s, rows, cols, name, pats, folder, force, checkpoint_every, max_layers, say) -> dict:
    from puzzlebatch.runners.engine.distributed import map_ordered
    from puzzlebatch.runners.sliding import pdb as sliding_pdb
    from puzzlebatch.runners.sliding.dist import PdbTask

    todo = []
    for p in pats:
        f = sliding_pdb.pattern_file(rows, cols, p, folder)
        if f.exists() and force:
            f.unlink()
        if not f.exists():
            todo.append(tuple(p))
    task = PdbTask(rows, cols, name, str(folder), s.options.backend_request, checkpoint_every, max_layers)
    built, partial = [], []
    for p, res in zip(todo, map_ordered(s.pool, task, todo)):
        s.pool.work.add(res["worker"], 1, 0, res["seconds"], res["backend"])
        (partial if res["file"].endswith(".partial.h5") else built).append(res["file"])
        say(f"pattern {','.join(map(str, p))}: {res['file']} ({res['seconds']:.1f} s on {res['worker']})")
    if partial:
        say(f"stopped after --max-layers; run again to resume ({', '.join(partial)})")
    return {"partition": name, "size": f"{rows}x{cols}", "goal": None if partial else "blank-first",
            "complete": not partial, "cache_dir": str(folder), "built": built, "partial": partial,
            "patterns": None if partial else sliding_pdb.load(rows, cols, name, folder, packed=False).info(),
            "backend": s.options.backend_request}
