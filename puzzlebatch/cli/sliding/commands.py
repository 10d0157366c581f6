"""``puzzlebatch sliding bfs|solve|replay`` (and ``pdb``, from :mod:`puzzlebatch.cli.sliding.pdb`): parse the
options, call :mod:`puzzlebatch.api.sliding`, print."""

from __future__ import annotations

from pathlib import Path

from puzzlebatch import limits as L
from puzzlebatch.errors import EXIT_NO_SOLUTION, PuzzleInputError
from puzzlebatch.cli.options import say as _say
from puzzlebatch.cli.sliding.pdb import register_pdb
from puzzlebatch.puzzles.sliding.model import GOALS, goal_board, parse_board, parse_size, replay
from puzzlebatch.cli.options import add_backend_argument


def _join_tiles(args) -> None:
    """``sliding solve 8 6 7 2 5 4 3 0 1`` as well as ``sliding solve "8 6 7 2 5 4 3 0 1"``: the words given are one
    board (a job file's string stays as it is)."""
    if isinstance(args.tiles, list):
        args.tiles = " ".join(args.tiles) or None


def _check_board(args) -> None:
    """The cheap checks of ``sliding solve`` (``run --dry-run``): the board parses (the file is read when solving)
    and ``--png`` can be drawn."""
    _join_tiles(args)
    _check_png(args)
    if args.tiles:
        parse_board(args.tiles, parse_size(args.size, "--size") if args.size else None, "TILES")


def _check_png(args) -> None:
    """``--png`` draws one board's solution path: refused with ``--file`` (never ignored) and for a suffix that
    cannot be drawn, before any search."""
    if not args.png:
        return
    if args.file:
        raise PuzzleInputError("--png: draws one board's solution; with --file the solutions go to --out")
    if Path(args.png).suffix.lower() not in (".png", ".svg"):
        raise PuzzleInputError(f"--png: cannot draw {args.png!r}: unsupported suffix "
                               f"{Path(args.png).suffix or '(none)'!r}, use .png or .svg")


# -- bfs ---------------------------------------------------------------------------------------------------------

def _check_bfs(args) -> tuple[int, int]:
    """The cheap checks of ``sliding bfs`` (also ``run --dry-run``): the size, and a space small enough."""
    from puzzlebatch.api import sliding

    return sliding.check_bfs(args.size, args.goal)


def run_bfs(args) -> int:
    from puzzlebatch.api import sliding
    from puzzlebatch.cli.options import print_json, run_options

    r = sliding.bfs(args.size, goal=args.goal, backend=args.backend, max_layers=args.max_layers,
                    options=run_options(args))
    if args.json:
        print_json(r.to_dict())
    elif r.complete:
        print(f"{r.size} ({r.goal}): {r.states:,} states, maximum distance {r.max_depth} "
              f"({r.hardest_count} states), mean {r.mean_depth:.2f}")
        print("states per depth: " + " ".join(map(str, r.depth_counts)))
        print("hardest: " + " | ".join(r.hardest[:5]) + (" ..." if r.hardest_count > 5 else ""))
        print(f"{r.seconds:.2f} s on {r.backend} ({r.device}); table {r.table_bytes:,} bytes")
        print(f"results: {r.out} (run {r.run_id})")
    else:
        print(f"stopped at depth {r.max_depth}; resume with --out {r.out} --resume")
    return 0


# -- solve -------------------------------------------------------------------------------------------------------

def _moves(k: int) -> str:
    return f"{k} move" if k == 1 else f"{k} moves"


def _result_text(r: dict, timed: bool = True) -> str:
    """A board's answer; ``timed`` False for a board of a batch (the boards of a batch run together: only the
    batch's time is measured)."""
    if not r["solvable"]:
        return f"{r['board']}: {r['explanation']}"
    return (f"{r['board']}: {_moves(r['length'])} (optimal): {' '.join(map(str, r['moves']))}\n"
            f"  blank: {r['directions'] or '-'}; {r['nodes']:,} node{'' if r['nodes'] == 1 else 's'}, "
            + (f"{r['seconds']:.3f} s, " if timed else "") + f"{r['heuristic']}, {r['backend']}")


def run_solve(args) -> int:
    from puzzlebatch.api import sliding
    from puzzlebatch.cli.options import print_json, run_options

    _join_tiles(args)
    if args.file and args.tiles:
        raise PuzzleInputError("solve: give TILES or --file, not both")
    if not args.file and not args.tiles:
        raise PuzzleInputError("solve: give TILES (e.g. \"8 6 7 2 5 4 3 0 1\") or --file INSTANCES.txt")
    _check_png(args)  # before a long search
    if args.file and args.split is not None:
        raise PuzzleInputError("--split: splits one board's search (TILES), not --file")
    common = dict(size=args.size, goal=args.goal, heuristic=args.heuristic, partition=args.partition,
                  cache_dir=args.cache_dir, backend=args.backend, max_len=args.max_len, say=_say,
                  options=run_options(args), build=args.build, max_nodes=args.max_nodes)
    if args.file:
        return _print_file(sliding.solve_file(args.file, batch=args.batch, **common), args.json)
    if args.split is None and args.from_bound is not None:
        raise PuzzleInputError(f"--from-bound {args.from_bound}: needs --split")
    r = sliding.solve(args.tiles, png=args.png, split=args.split, from_bound=args.from_bound, **common)
    if args.json:
        print_json(r.to_dict())
    else:
        print(r.boards()[0].pretty())
        print(_result_text(r.to_dict()))
        if r.picture:
            print(f"picture: {r.picture}")
        if r.out:
            print(f"stored: {r.out} (run {r.run_id})")
    return 0 if r.solvable else EXIT_NO_SOLUTION  # unsolvable: the parity argument proves it


def _print_file(r, json: bool) -> int:
    from puzzlebatch.cli.options import print_json

    if json:
        print_json(r.to_dict())
        return 0
    for doc in r.results:
        print(_result_text(doc, timed=False))
    if not r.complete:
        print(f"stopped with {r.instances} of the boards solved; resume with --out {r.out} --resume")
        return 0
    print(f"{r.solved_count}/{r.instances} solved optimally, {r.nodes:,} nodes, {r.seconds:.2f} s on {r.backend} "
          f"({r.device}); results: {r.out} (run {r.run_id})")
    print(f"transfers: {r.h2d_bytes:,} bytes to the device, {r.d2h_bytes:,} back, {r.launches} launches")
    return 0


# -- replay ------------------------------------------------------------------------------------------------------

def run_replay(args) -> int:
    from puzzlebatch.cli.options import print_json

    size = parse_size(args.size, "--size") if args.size else None
    board = parse_board(args.tiles, size, "TILES")
    toks = args.moves.replace(",", " ").split()
    if len(toks) == 1 and not toks[0].isdigit():
        toks = list(toks[0])  # "UDLR..." written together
    moves = []
    for k, tok in enumerate(toks, 1):
        if tok.upper() in ("U", "D", "L", "R"):
            moves.append(tok.upper())
        elif tok.isdigit():
            moves.append(int(tok))
        else:
            raise PuzzleInputError(f"MOVES: move {k} {tok!r} is neither a tile number nor U/D/L/R")
    try:
        walk = replay(board, moves)
    except PuzzleInputError as exc:
        done = len(moves)
        for k in range(len(moves)):  # find the first illegal move for the message
            try:
                replay(board, moves[:k + 1])
            except PuzzleInputError:
                done = k
                break
        raise PuzzleInputError(f"MOVES: move {done + 1}: {exc}") from None
    end = walk[-1]
    solved = end == goal_board(board.rows, board.cols, args.goal)
    if args.json:  # the moves as tile numbers (as `solve` prints them) and as the blank's U/D/L/R
        tiles = [a.tiles[b.blank] for a, b in zip(walk, walk[1:])]
        dirs = "".join("UDLR"[[-board.cols, board.cols, -1, 1].index(b.blank - a.blank)]
                       for a, b in zip(walk, walk[1:]))
        print_json({"board": end.text(), "size": f"{board.rows}x{board.cols}", "goal": args.goal, "solved": solved,
                    "moves": tiles, "length": len(tiles), "directions": dirs})
    else:
        print(end.pretty())
        print(f"{_moves(len(moves))}; {'solved' if solved else 'not the goal'} ({args.goal})")
    return 0


def _goal(p) -> None:
    p.add_argument("--goal", choices=GOALS, default="blank-last",
                   help="blank-last: 1..n-1 then the blank (default, the source document's); blank-first: Korf's")


def register(verbs) -> None:
    """Add the ``sliding`` verbs to the family's sub-parsers (the registry's ``commands`` hook)."""

    p = verbs.add_parser("bfs", help="breadth-first search of a whole state space (up to 12 cells)")
    p.add_argument("size", help="RxC board, e.g. 3x3 or 3x4")
    _goal(p)
    add_backend_argument(p)
    p.add_argument("--out", help="results file (default: results/sliding.h5, one run a group)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--resume", action="store_true", help="continue the unfinished bfs in --out")
    p.add_argument("--checkpoint-every", type=L.non_negative_seconds, default=60.0, metavar="SECONDS",
                   help="save the search this often")
    p.add_argument("--max-layers", type=L.positive_int, help="stop after this many layers (resume later)")
    p.set_defaults(func=run_bfs, check=_check_bfs)

    p = verbs.add_parser("solve", help="optimal solutions by IDA*: one board, or a file of instances")
    p.add_argument("tiles", nargs="*", help="tiles in row order, 0 the blank, e.g. 8 6 7 2 5 4 3 0 1 (one word or "
                                            "several)")
    p.add_argument("--file", help="instances, one a line (optionally the optimal length last)")
    p.add_argument("--size", help="RxC when the tiles do not make a square")
    _goal(p)
    p.add_argument("--heuristic", choices=["auto", "manhattan", "linear-conflict", "pdb"], default="auto",
                   help="auto: pattern databases for 4x4 and 5x5, linear conflicts otherwise")
    p.add_argument("--partition", help="pattern-database partition, e.g. 6-6-3, 5-5-5, 7-8 (4x4), 6-6-6-6 (5x5)")
    p.add_argument("--cache-dir", help="where pattern databases are kept (default: the puzzlebatch cache folder, "
                                       "$PUZZLEBATCH_CACHE_DIR or ~/.cache/puzzlebatch)")
    add_backend_argument(p)
    p.add_argument("--max-len", type=L.positive_int, default=250, help="give up beyond this many moves (default 250)")
    p.add_argument("--max-nodes", type=L.positive_int, metavar="N",
                   help="give up on a board after N nodes (default: no limit up to 4x4 or with pattern databases, "
                        "a hundred million for larger boards)")
    p.add_argument("--build", action="store_true",
                   help="build missing pattern databases even when that takes long (5x5 6-6-6-6: about 15 min); "
                        "without it such a request stops at once with the estimate")
    p.add_argument("--batch", type=L.positive_int, help="instances per launch with --file (default: all at once)")
    p.add_argument("--split", type=L.positive_int, metavar="ITEMS",
                   help="batch IDA* for one board: at least ITEMS work items a few moves below the start, searched "
                        "together every iteration (both cores, or one CUDA thread each); a line per iteration")
    p.add_argument("--from-bound", type=L.non_negative_int, metavar="B",
                   help="with --split: start at bound B (the last bound an interrupted run printed)")
    p.add_argument("--out", metavar="FILE.h5", help="results file: the board's solution, or with --file every "
                   "instance's (default with --file: results/sliding.h5, one run a group; one board: not stored)")
    p.add_argument("--resume", action="store_true", help="with --file: continue the unfinished run in --out")
    from puzzlebatch.cli.options import add_scheduler_arguments as add_scheduler

    add_scheduler(p)
    p.add_argument("--png", "--svg", dest="png", metavar="FILE",
                   help="draw the board's solution path (.png or .svg; not with --file)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run_solve, check=_check_board)

    from puzzlebatch.cli.parser import Parser

    register_pdb(verbs, Parser)

    p = verbs.add_parser("replay", help="check a move sequence (tile numbers or U/D/L/R of the blank)")
    p.add_argument("tiles", help="the start board, tiles in row order, 0 for the blank")
    p.add_argument("moves", help="e.g. \"5 6 7 4\" or UDLR")
    p.add_argument("--size", help="RxC when the tile count does not say it (default: the square it makes)")
    _goal(p)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run_replay)


def warmup_tasks(b: list[str], tmp) -> list[tuple[str, list[str]]]:
    """(what, argv) of the tiny commands (argv after the family's name) that compile everything this family uses
    (``puzzlebatch warmup``); ``b`` is the backend option, ``tmp`` a scratch folder."""
    out = str(tmp / "warmup.h5")
    pdb = str(tmp / "pdb")
    board = "1 2 3 4 5 6 0 7 8"
    return [("bfs", ["bfs", "2x3", *b, "--out", out, "--json"]),
            ("solve manhattan", ["solve", board, "--heuristic", "manhattan", *b, "--json"]),
            ("solve linear-conflict", ["solve", board, "--heuristic", "linear-conflict", *b,
                                       "--json"]),
            ("pdb build + solve", ["solve", board, "--heuristic", "pdb", "--cache-dir", pdb, *b,
                                   "--json"])]
