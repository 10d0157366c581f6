"""What the sliding family's runs store, read back for ``show`` and the web app (the records protocol of
:mod:`puzzlebatch.results.show`).

``solve --out`` (one board or a ``--file`` of them) stores a row a board: ``length`` (-1 when the board is
unsolvable), ``nodes``, ``seconds`` and ``moves`` (the tiles moved, space-separated); the instance ``boards`` holds
the boards, row ``i`` answering board ``i``.  ``bfs`` stores its distance table (``tables/distances``) and a
series of the states a layer; ``pdb`` its pattern databases' description.
"""

from __future__ import annotations

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.sliding.model import DELTAS, Board, replay
from puzzlebatch.results.show import plain_rows, plural

KIND = "sliding"  # the web page's drawing


def shape(n: int, size: str | None) -> tuple[int, int]:
    """Rows and columns of a board of ``n`` cells: the run's ``size`` parameter, else the squarest shape."""
    if size:
        r, c = (int(v) for v in str(size).lower().split("x"))
        if r * c == n:
            return r, c
    side = int(round(n ** 0.5))
    if side * side == n:
        return side, side
    rows = max(r for r in range(2, side + 1) if n % r == 0)  # 12 tiles: 3x4, the BFS-sized board
    return rows, n // rows


def _boards(run, start: int, stop: int) -> list[Board]:
    boards = run.instances().get("boards")
    if boards is None:
        raise PuzzleInputError(f"run {run.id}: its boards are not stored")
    params = run.attrs.get("params") or {}
    out = []
    for tiles in boards[start:stop]:
        rows, cols = shape(len(tiles), params.get("size"))
        out.append(Board(rows, cols, tuple(int(t) for t in tiles)))
    return out


def _moves(text) -> list[int]:
    return [int(m) for m in str(text).split()]


def _directions(boards: list[Board]) -> str:
    """The blank's moves (U/D/L/R) along a path of boards."""
    step = {delta: d for d, delta in DELTAS.items()}
    out = []
    for before, after in zip(boards, boards[1:]):
        (r0, c0), (r1, c1) = divmod(before.blank, before.cols), divmod(after.blank, after.cols)
        out.append(step[(r1 - r0, c1 - c0)])
    return "".join(out)


def describe(run) -> dict:
    a = run.attrs
    params = a.get("params") or {}
    result = a.get("result") or {}
    algorithm = a.get("algorithm")
    if algorithm == "solve":
        n = run.n_committed if "moves" in run.column_info() else 0
        summary = f"{plural(n, 'board')}, a row each: its optimal moves, or length -1 (unsolvable)"
        return {"summary": summary, "stored_solutions": n, "drawing": KIND, "rows_per_solution": 1}
    if algorithm == "bfs":
        states = result.get("states", result.get("reached"))
        summary = f"{params.get('size', '?')} ({params.get('goal', '?')}): the distance table of every state" + (
            f", {states:,} states" if isinstance(states, int) else "") + " (tables/distances)"
    else:
        summary = None
    return {"summary": summary, "stored_solutions": 0, "drawing": None, "rows_per_solution": 1}


def items(run, start: int, stop: int) -> list[dict]:
    cols = run.item_rows(start, stop)
    if "moves" not in cols:
        return plain_rows(cols)
    boards = _boards(run, start, start + len(cols["moves"]))
    out = []
    for i, board in enumerate(boards):
        length = int(cols["length"][i])
        moves = _moves(cols["moves"][i]) if length >= 0 else []
        out.append({"board": board.text(), "solvable": length >= 0, "length": len(moves), "moves": moves,
                    "nodes": int(cols["nodes"][i]), "seconds": float(cols["seconds"][i])})
    return out


def solution(run, k: int) -> dict:
    """Board ``k`` and its stored answer: ``board``, ``size`` (``RxC``), ``goal``, ``tiles``, ``solvable``,
    ``length``, ``moves`` (the tiles moved, as ``sliding solve --json`` prints them), ``directions`` (the blank's
    moves) and ``nodes``; the path is replayed, so a stored path that breaks a rule is an error, never a picture."""
    [item] = items(run, k, k + 1) or [None]
    if item is None or "moves" not in item:
        raise PuzzleInputError(f"run {run.id} has no board {k + 1}")
    [board] = _boards(run, k, k + 1)
    path = replay(board, item["moves"])  # a stored path must be legal before it is shown
    goal = (run.attrs.get("params") or {}).get("goal", "blank-last")
    answer = (f"{plural(item['length'], 'move')} (optimal): {' '.join(map(str, item['moves']))}" if item["solvable"]
              else "unsolvable")
    return {"board": item["board"], "size": f"{board.rows}x{board.cols}", "goal": goal, "tiles": list(board.tiles),
            "solvable": item["solvable"], "length": item["length"], "moves": item["moves"],
            "directions": _directions(path), "nodes": item["nodes"],
            "text": f"{board.pretty()}\n{answer}" + (f"\nthe blank: {_directions(path)}" if item["moves"] else "")}


def draw(run, k: int, path):
    from puzzlebatch.results.sliding_pictures import draw_path

    doc = solution(run, k)
    [board] = _boards(run, k, k + 1)
    title = f"{doc['board']}: {plural(doc['length'], 'move')}" if doc["solvable"] else f"{doc['board']}: unsolvable"
    return draw_path(replay(board, doc["moves"]), path, goal=doc["goal"], moves=doc["moves"] or None, title=title)
