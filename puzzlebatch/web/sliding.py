"""Sliding puzzles in the web app: boards from JSON, the parity check, shuffles and the optimal-solve task.

Boards are checked by :func:`puzzlebatch.puzzles.sliding.model.parse_board` (the command line's messages), the
solvability explanation is :func:`~puzzlebatch.puzzles.sliding.model.solvability`'s, and the solve is the IDA*
runner's (:func:`puzzlebatch.runners.sliding.solver.solve`), whose path is replayed and checked before it is reported.
"""

from __future__ import annotations

import random
from datetime import datetime, timezone

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.web import limits
from puzzlebatch.web.tasks import Context, ensure_warm


def board_of(params: dict):
    """The :class:`~puzzlebatch.puzzles.sliding.model.Board` of ``{"rows", "cols", "tiles"}``."""
    from puzzlebatch.puzzles.sliding.model import parse_board

    rows, cols = int(params.get("rows", 3)), int(params.get("cols", 3))
    for name, v in (("rows", rows), ("cols", cols)):
        limits.check_range(name, v, limits.SLIDING_MIN_SIDE, limits.SLIDING_MAX_SIDE)
    tiles = params.get("tiles")
    if not isinstance(tiles, list) or len(tiles) > rows * cols + 1:
        raise PuzzleInputError(f"board: give the {rows * cols} tiles as a list")
    return parse_board(" ".join(str(t) for t in tiles), (rows, cols), "board")


def goal_of(params: dict) -> str:
    from puzzlebatch.puzzles.sliding.model import GOALS

    goal = params.get("goal", "blank-last")
    if goal not in GOALS:
        raise PuzzleInputError(f"--goal: {goal!r} is not one of {', '.join(GOALS)}")
    return goal


def check(params: dict) -> dict:
    """Solvability at once, by the parity argument (the command line's explanation)."""
    from puzzlebatch.puzzles.sliding.model import goal_board, solvability

    board, goal = board_of(params), goal_of(params)
    ok, why = solvability(board, goal_board(board.rows, board.cols, goal))
    return {"solvable": ok, "explanation": why, "board": board.text(), "goal": goal,
            "solved": board == goal_board(board.rows, board.cols, goal)}


def shuffle(params: dict) -> dict:
    """A board ``moves`` random blank moves away from the goal (never straight back), reproducible from ``seed``."""
    from puzzlebatch.puzzles.sliding.model import DELTAS, OPPOSITE, goal_board, move_blank

    rows, cols = int(params.get("rows", 3)), int(params.get("cols", 3))
    for name, v in (("rows", rows), ("cols", cols)):
        limits.check_range(name, v, limits.SLIDING_MIN_SIDE, limits.SLIDING_MAX_SIDE)
    moves = limits.check_range("moves", int(params.get("moves", 40)), 0, limits.MAX_SHUFFLE_MOVES)
    seed = limits.check_range("seed", int(params.get("seed", 0)), 0, limits.MAX_SEED)
    goal = goal_of(params)
    rng = random.Random(seed)
    board = goal_board(rows, cols, goal)
    last = None
    for _ in range(moves):
        r, c = divmod(board.blank, cols)
        legal = [d for d, (dr, dc) in DELTAS.items()
                 if 0 <= r + dr < rows and 0 <= c + dc < cols and (last is None or d != OPPOSITE[last])]
        last = rng.choice(legal)
        board, _ = move_blank(board, last)
    return {"rows": rows, "cols": cols, "tiles": list(board.tiles), "goal": goal, "moves": moves, "seed": seed}


def heuristic_for(rows: int, cols: int) -> tuple[str, object]:
    """Pattern databases when they are already built for this size (never built by a request), else linear
    conflicts."""
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    if (rows, cols) in sliding_pdb.DEFAULT_PARTITION and rows * cols >= 16:
        folder = sliding_pdb.cache_dir()
        if not sliding_pdb.missing(rows, cols, None, folder):
            return "pdb", sliding_pdb.load(rows, cols, None, folder)
    return "linear-conflict", None


def solve_task(params: dict, ctx: Context) -> dict:
    """An optimal solution (IDA*), the moves checked by replaying them; stored when ``keep``."""
    from puzzlebatch.puzzles.sliding.model import goal_board, solvability
    from puzzlebatch.runners.sliding import solver as sliding
    from puzzlebatch.runners.engine.backend import select_backend

    board, goal = board_of(params), goal_of(params)
    ok, why = solvability(board, goal_board(board.rows, board.cols, goal))
    backend = select_backend("auto")
    if not ok:
        return {"board": board.text(), "solvable": False, "explanation": why, "moves": None, "directions": None,
                "length": None, "backend": backend.name}
    compile_s = ensure_warm("sliding", ctx)
    heuristic, pdbs = heuristic_for(board.rows, board.cols)
    r = sliding.solve(board, goal, heuristic, backend, pdbs=pdbs)
    doc = r.to_json() | {"device": backend.device, "compile_seconds": compile_s,
                         "partition": pdbs.name if pdbs is not None else None}
    if params.get("keep"):
        doc["stored"] = _keep(ctx, board, goal, r, backend, doc["partition"])
    return doc


def _keep(ctx: Context, board, goal: str, r, backend, partition) -> dict:
    """A run as ``sliding solve --file`` stores one: the board as an instance, one item row."""
    from puzzlebatch.runners.engine.session import RunOptions, Session

    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-%f")
    path = ctx.results_dir / f"sliding-solve-{stamp}.h5"
    params = {"file": "web", "goal": goal, "heuristic": r.heuristic, "partition": partition, "max_len": 250,
              "size": f"{board.rows}x{board.cols}"}
    with Session(RunOptions(out=path, progress=False), "sliding", "solve", params, backend, keep=False, pool=False,
                 instances={"boards": np.array([board.tiles], np.int8)}) as s:
        s.append_items(length=np.array([r.length], np.int64), nodes=np.array([r.nodes], np.int64),
                       seconds=np.array([r.seconds], np.float64),
                       moves=np.array([" ".join(map(str, r.moves or []))], dtype=object))
        doc = s.finish({"instances": 1, "solved": 1, "nodes": r.nodes, "seconds": r.seconds}, seconds=r.seconds)
    return {"file": path.name, "run": doc["run_id"]}
