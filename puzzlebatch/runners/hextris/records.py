"""What the hextris family's runs store, read back for ``show`` and the web app (the records protocol of
:mod:`puzzlebatch.results.show`).

``play --out`` stores a row a game: ``problemId``, ``seed`` and ``solution`` (the commands, as in the contest's
solutions format), with ``move_score`` and ``end`` (the greedy player) or ``total`` (the beam player).  ``tune``
stores a row a genome it tried (``generation``, ``genome``, ``fitness``).  A stored game is replayed with the exact
model of the game to show it: its final board, score and end.
"""

from __future__ import annotations

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.results.show import plain_rows, plural

KIND = "hextris"  # the web page's drawing
_GAME = ("problemId", "seed", "solution")


def _games(run) -> bool:
    return set(_GAME) <= set(run.column_info())


def describe(run) -> dict:
    a = run.attrs
    result = a.get("result") or {}
    params = a.get("params") or {}
    if _games(run) or a.get("algorithm", "").endswith("play"):
        n = run.n_committed if _games(run) else 0
        score = result.get("total", result.get("move_scores"))
        summary = (f"{plural(n, 'game')} of problems {params.get('problems', '?')}, a row a game (problem, seed, "
                   "commands)" + (f"; score {score:,}" if isinstance(score, int) else ""))
        return {"summary": summary, "stored_solutions": n, "drawing": KIND, "rows_per_solution": 1}
    if a.get("algorithm") == "ga-tune":
        summary = f"{plural(run.n_committed, 'genome')} tried (generation, genome, fitness)"
    else:
        summary = None
    return {"summary": summary, "stored_solutions": 0, "drawing": None, "rows_per_solution": 1}


def items(run, start: int, stop: int) -> list[dict]:
    rows = plain_rows(run.item_rows(start, stop))
    if not _games(run):
        return rows
    first = ("problemId", "seed", "total", "move_score", "end")
    return [{k: row[k] for k in first if k in row} | {k: v for k, v in row.items() if k not in first}
            for row in rows]


def _replay(problem_id: int, seed: int, commands: str):
    """The game replayed: ``(problem, game, power score, total)``; a problem that is not one of the shipped
    qualifier problems cannot be replayed (PuzzleInputError)."""
    from puzzlebatch.puzzles.hextris.model import decode, load_phrases, official_problem, play, power_score

    problem = official_problem(problem_id)
    if seed not in problem.source_seeds:
        raise PuzzleInputError(f"problem {problem_id} has no seed {seed}")
    if decode(commands) is None:
        raise PuzzleInputError(f"problem {problem_id} seed {seed}: the stored commands are not commands")
    game = play(problem, seed, commands)
    ps = 0 if game.errored else power_score(commands, load_phrases())
    return problem, game, ps, 0 if game.errored else game.move_score + ps


def solution(run, k: int) -> dict:
    """Game ``k``: ``problemId``, ``seed``, ``solution`` (the commands), ``solution_chars`` and, replayed with the
    game's model, ``size`` (``WxH``), ``units_locked``, ``commands`` (how many ran), ``move_score``,
    ``power_score``, ``total`` and ``end`` (the keys of ``hextris show --json``)."""
    from puzzlebatch.puzzles.hextris.model import END_NAMES

    row = run.item_rows(k, k + 1)
    if not _games(run) or not len(row["problemId"]):
        raise PuzzleInputError(f"run {run.id} has no game {k + 1}")
    pid, seed, commands = int(row["problemId"][0]), int(row["seed"][0]), str(row["solution"][0])
    doc = {"problemId": pid, "seed": seed, "tag": (run.attrs.get("params") or {}).get("tag"), "solution": commands,
           "solution_chars": len(commands)}
    try:
        problem, game, ps, total = _replay(pid, seed, commands)
    except PuzzleInputError as exc:
        return doc | {"text": f"problem {pid} seed {seed}: {len(commands):,} commands (not replayed: {exc})"}
    from puzzlebatch.results.hextris_pictures import render_text

    doc |= {"size": f"{problem.width}x{problem.height}", "width": problem.width, "height": problem.height,
            "units_locked": game.units_locked, "commands": game.commands, "move_score": game.move_score,
            "power_score": ps, "total": total, "end": END_NAMES[game.end]}
    board = render_text(problem.width, problem.height, game.filled, game.members, game.pivot if game.members else
                        None, problem.filled)
    line = (f"problem {pid} ({problem.width}x{problem.height}) seed {seed}: {game.commands} commands, "
            f"{game.units_locked} units locked, move score {game.move_score}, power score {ps}, total {total}, "
            f"end {END_NAMES[game.end]}")
    return doc | {"text": f"{board}\n{line}"}


def draw(run, k: int, path):
    """The final board of game ``k``, as ``hextris show --png`` draws it."""
    from puzzlebatch.puzzles.hextris.model import END_NAMES, IN_PROGRESS
    from puzzlebatch.results.hextris_pictures import Frame, draw_board

    row = run.item_rows(k, k + 1)
    if not _games(run) or not len(row["problemId"]):
        raise PuzzleInputError(f"run {run.id} has no game {k + 1}")
    pid, seed, commands = int(row["problemId"][0]), int(row["seed"][0]), str(row["solution"][0])
    problem, game, _, total = _replay(pid, seed, commands)
    caption = f"problem {pid} seed {seed}: {game.units_locked} units, score {total} ({END_NAMES[game.end]})"
    final = Frame(set(game.filled), game.members if game.end == IN_PROGRESS else frozenset(), game.pivot, caption)
    return draw_board(problem.width, problem.height, final, path, initial=problem.filled)
