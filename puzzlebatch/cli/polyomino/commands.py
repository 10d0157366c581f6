"""``puzzlebatch polyomino solve|count|show|levels|dlx`` (and, from :mod:`.large`, ``generate`` and the options of
the large-board methods): parse, call :mod:`puzzlebatch.api.polyomino`, print."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from puzzlebatch import limits as L
from puzzlebatch.jit.clock import command_compile_seconds
from puzzlebatch.errors import EXIT_NO_SOLUTION, PuzzleInputError
from puzzlebatch.cli.options import add_search_arguments
from puzzlebatch.cli.options import add_backend_argument
from puzzlebatch.cli.polyomino.args import problem, settings
from puzzlebatch.runners.polyomino.letters import grid_text, placements_json


def check_problem(args) -> None:
    """The cheap checks of a packing problem (``run --dry-run``): the board or level and the pieces parse, without
    building the exact-cover matrix."""
    from puzzlebatch.api import polyomino as api

    api.check_problem(args.board, args.pieces, **problem(args))


def check_solve(args) -> None:
    """``run --dry-run`` of a solve: the problem parses and no option is one the method would ignore."""
    from puzzlebatch.api import polyomino as api
    from puzzlebatch.cli.options import run_options

    check_problem(args)
    opts = run_options(args)
    api.choose_method(args.board, args.pieces, **problem(args), method=args.method, scheduler=opts.scheduler,
                      out=opts.out, png=args.png, text=args.text, band_heights=args.band_heights,
                      time_limit=args.time_limit)


# -- solve -------------------------------------------------------------------------------------------------------
def note_pieces_left_out(args) -> None:
    """Say on stderr when the pieces (one set, finite copies) cover more cells than the board has: a solution then
    packs only some of them."""
    from puzzlebatch.api import polyomino as api
    from puzzlebatch.cli.options import say
    from puzzlebatch.puzzles.polyomino.shapes import UNLIMITED

    if args.unlimited or args.level or getattr(args, "method", "auto") not in ("auto", "search"):
        return
    pieces = api.pieces_of(args.pieces, copies=args.copies, mirror=args.mirror)
    if any(p.count == UNLIMITED for p in pieces):
        return
    area = sum(p.size * p.count for p in pieces)
    board = api.board_of(args.board)
    if area > board.n_cells:
        n = sum(p.count for p in pieces)
        say(f"the {n} pieces cover {area} cells, more than the board's {board.n_cells}: a solution packs only "
            "some of them")


def _s(n: int) -> str:
    """The plural ending of a count: ``1 solution``, ``2 solutions``."""
    return "" if n == 1 else "s"


def run_solve(args) -> int:
    from puzzlebatch.api import polyomino as api
    from puzzlebatch.cli.options import print_json, run_options

    r = api.solve(args.board, args.pieces, **problem(args), method=args.method, branch=args.branch,
                  prune=not args.no_prune, heuristic=args.heuristic, seed=args.seed, time_limit=args.time_limit,
                  band_heights=args.band_heights, backend=args.backend, png=args.png, text=args.text,
                  settings=settings(args), options=run_options(args), region=args.region)
    note_pieces_left_out(args)  # after the solve: a problem it refuses is said in one line
    if args.json:
        print_json(r.to_dict())
    elif r.method == "band":
        from puzzlebatch.cli.polyomino.large import print_band

        print_band(r, args)
    elif r.method in ("classes", "cut"):
        from puzzlebatch.cli.polyomino.cutsolve import print_once

        print_once(r)
    elif r.solved:
        print(r.letters)
        if r.legend:
            print(r.legend)
        print(f"{r.nodes} nodes in {r.seconds:.3f} s on {r.backend} ({r.device}); "
              f"+{command_compile_seconds():.1f} s compiling")
        if r.picture:
            print(f"picture: {r.picture}")
        if r.out:
            print(f"results: {r.out} (run {r.run_id})")
    elif r.note:
        print(f"no solution: {r.note}")
    else:
        print(f"no solution ({r.nodes} nodes searched in {r.seconds:.3f} s on {r.backend})")
    if r.method == "band":
        return 0  # no band split proves nothing
    if r.method == "cut":  # not found in time proves nothing: 0 with solved false
        return EXIT_NO_SOLUTION if r.proved_none else 0
    return 0 if r.solved else EXIT_NO_SOLUTION  # not solved: the whole tree was searched


# -- count -------------------------------------------------------------------------------------------------------
LONG_SEARCH = 1e10  # nodes: hours on a CPU at tens of millions of nodes a second


def note_transfer(args) -> None:
    """Say on stderr, before a count by search of a rectangle by unlimited pieces that Knuth's estimate puts at
    hours or more, that ``--method transfer`` counts such tilings without a search."""
    from puzzlebatch.api import polyomino as api
    from puzzlebatch.cli.options import say

    if args.method != "search" or not args.unlimited or args.all or args.level or args.resume:
        return
    size = api.rectangle(args.board)
    if not size or size[0] * size[1] > api.BAND_AUTO_CELLS:
        return  # beyond, building the tables twice costs seconds
    api.backend_of(args.backend)  # a backend that cannot run is said first, without the hint
    # a few paths down the top levels, without the dead-region test: milliseconds on boards up to that size, long
    # strips included (the hint needs an order of magnitude)
    est = api.search_estimate(args.board, args.pieces, **problem(args), branch=args.branch, prune=False, probes=16,
                              depth=64)
    if est > LONG_SEARCH:
        say(f"this search's tree is estimated at {est:.1e} nodes (Knuth's estimate): hours or more; "
            "--method transfer counts a rectangle's tilings by unlimited pieces without a search where its shorter "
            "side is small enough (no distinct count)")


def run_count(args) -> int:
    from puzzlebatch.api import polyomino as api
    from puzzlebatch.cli.options import print_json, run_options

    note_transfer(args)
    r = api.count(args.board, args.pieces, **problem(args), all=args.all, method=args.method, exact=args.exact,
                  branch=args.branch, prune=not args.no_prune, verify=args.verify, backend=args.backend,
                  merge=args.merge, settings=settings(args), options=run_options(args))
    if args.json:
        print_json(r.to_dict())
    elif args.method in ("transfer", "kasteleyn"):
        from puzzlebatch.cli.polyomino.large import print_transfer

        print_transfer(r, args)
    elif not r.complete:
        print(f"stopped after {r.batches} batches with {r.items_left} work items left; "
              + (f"resume with the same command and --out {r.out} --resume" if r.out
                 else "give --out FILE.h5 to be able to resume"))
    else:
        d = "" if r.distinct is None else f", {r.distinct} distinct up to the board's {r.symmetries} symmetries"
        print(f"{r.label} with {args.pieces}: {r.solutions} solution{_s(r.solutions)}{d}")
        merged = f" ({r.merged_layers} layers by merged states on the cpu)" if r.merged_layers else ""
        print(f"{r.nodes} nodes{merged} in {r.seconds:.3f} s on {r.backend} (+{command_compile_seconds():.1f} s "
              "compiling)")
        if r.note:
            print(f"note: {r.note}")
        if r.verified:
            print(verify_line(r.to_dict()))
        if r.out is not None:
            print(f"results: {r.out} (run {r.run_id})" + (" - draw one with: puzzlebatch show "
                                                          f"{r.out} --run {r.run_id} --solution K"
                                                          if args.all and r.solutions else ""))
    return 0


def stored_packing(run):
    """A drawable stand-in for the packing of a stored run: pieces, glyphs, board and option cells."""
    from types import SimpleNamespace

    from puzzlebatch.puzzles.polyomino import packing as P

    inst = run.instances()
    size = tuple(int(v) for v in inst["board_size"])
    names = [n.decode() if isinstance(n, bytes) else str(n) for n in inst["piece_names"]]
    glyphs = [g.decode() if isinstance(g, bytes) else str(g) for g in inst["glyphs"]]
    cells = inst["option_cells"]
    option_cells = [c[c[:, 0] >= 0] for c in cells]
    pre = [(int(k), frozenset(tuple(int(v) for v in c) for c in cs if c[0] >= 0))
           for k, cs in zip(inst["preplaced_piece"], inst["preplaced_cells"])]
    params = run.attrs["params"]
    try:
        board = P.parse_board(params["level"] or params["board"])
        playable = board.playable
    except PuzzleInputError:
        playable = frozenset(tuple(int(v) for v in c) for c in np.ndindex(*size))
    board = P.Board(size, playable, {}, label=params["board"])
    pk = SimpleNamespace(board=board, pieces=[SimpleNamespace(name=n) for n in names], glyphs=glyphs,
                         preplaced=pre, option_cells=option_cells, option_piece=inst["option_piece"])
    return pk


def run_show(args) -> int:
    from puzzlebatch.cli.options import print_json
    from puzzlebatch.results.store import ResultsStore

    path = Path(args.file)
    if not path.exists():  # a directory or a device: the store says what it is
        raise PuzzleInputError(f"show: no such file {args.file}")
    with ResultsStore(path, "r") as store:
        ids = [r for r in store.run_ids() if store.run(r).attrs.get("family") == "polyomino"
               and store.run(r).attrs.get("algorithm") == "enumerate"]
        if args.run:
            if args.run not in ids:
                raise PuzzleInputError(f"--run: {path} has no polyomino enumeration {args.run!r}")
            run_id = args.run
        elif ids:
            run_id = ids[-1]
        else:
            raise PuzzleInputError(f"show: {path} holds no polyomino enumeration (count --all --out FILE)")
        run = store.run(run_id)
        rows = run.items().get("solution", [])  # a run with no solution stored has no rows at all
        if len(rows) == 0:
            raise PuzzleInputError(f"show: run {run_id} of {path} stored no solution (the board has none, or the "
                                   "enumeration stopped before the first)")
        if not 1 <= args.solution <= len(rows):
            raise PuzzleInputError(f"--solution: {args.solution} is not between 1 and {len(rows)}")
        pk = stored_packing(run)
        row = rows[args.solution - 1]
        placements = [(int(pk.option_piece[o]), pk.option_cells[o]) for o in row if o >= 0]
    doc = {"run_id": run_id, "solution": args.solution, "of": int(len(rows)),
           "placements": placements_json(pk, placements)}
    if args.png:
        from puzzlebatch.results.pictures import draw_packing

        doc["picture"] = str(draw_packing(pk, placements, args.png,
                                          title=f"solution {args.solution} of {len(rows)}"))
    if args.json:
        print_json(doc)
    else:
        print(f"solution {args.solution} of {len(rows)} (run {run_id}):")
        print(grid_text(pk, placements))
        if "picture" in doc:
            print(f"picture: {doc['picture']}")
    return 0


# -- levels ------------------------------------------------------------------------------------------------------
def run_levels(args) -> int:
    from puzzlebatch.api import polyomino as api
    from puzzlebatch.cli.options import print_json, run_options

    r = api.levels(args.board, args.pieces, **problem(args), count=args.count, difficulty=args.difficulty,
                   seed=args.seed, out_dir=args.out_dir, options=run_options(args))
    if args.json:
        print_json(r.to_dict())
    else:
        for doc in r.levels:
            print(f"level {doc['level']} ({doc['pieces_left']} pieces to place; one solution)"
                  + (f" -> {doc['file']}" if "file" in doc else ""))
            print("\n".join(doc["grid"]))
            print()
    return 0


# -- dlx ---------------------------------------------------------------------------------------------------------
def run_dlx_export(args) -> int:
    from puzzlebatch.api import polyomino as api

    text = api.dlx_export(args.board, args.pieces, **problem(args), text=args.text)
    if not args.text:
        sys.stdout.write(text)
    else:
        from puzzlebatch.outputs import is_stream

        lines = [x for x in text.splitlines() if x.strip() and not x.startswith("|")]
        items = len(lines[0].split()) if lines else 0
        print(f"DLX problem written to {args.text}: {items} items, {max(len(lines) - 1, 0)} options",
              file=sys.stderr if is_stream(args.text) else sys.stdout)
    return 0


def run_dlx_solve(args) -> int:
    from puzzlebatch.api import polyomino as api
    from puzzlebatch.cli.options import print_json

    r = api.dlx_solve(args.file, count=args.count, branch=args.branch, backend=args.backend,
                      settings=settings(args))
    path = Path(args.file)
    if args.json:
        print_json(r.to_dict())
    elif args.count:
        print(f"{path}: {r.solutions} solution{_s(r.solutions)} ({r.nodes} nodes, {r.seconds:.3f} s on {r.backend})")
    elif r.solved:
        for opt in r.options_chosen:
            print(" ".join(opt))
    else:
        print(f"{path}: no solution")
    if r.note and not args.json:
        print(f"note: {r.note}", file=sys.stderr)  # stdout holds the options chosen
    # a count is done whatever it finds (as `polyomino count`); a solve that found none searched the whole tree
    return 0 if args.count or r.solved else EXIT_NO_SOLUTION


# -- parser ------------------------------------------------------------------------------------------------------
def _problem_args(p, board_default: str | None = None) -> None:
    p.add_argument("--board", default=board_default,
                   help="WxH, WxHxD, or a board file (. cell, # hole, letters: placed pieces; layers for 3D)")
    p.add_argument("--pieces", required=True,
                   help="a piece set name (pentominoes, iq-puzzler-pro, soma, bedlam, ...), a piece file, "
                        "or several joined by +")
    p.add_argument("--level", help="a level file: the board with some pieces already placed (letters)")
    p.add_argument("--unlimited", action="store_true", help="any number of copies of every piece")
    p.add_argument("--copies", type=L.copies, help="this many copies of every piece")
    p.add_argument("--mirror", choices=["yes", "no", "default"], default="default",
                   help="may pieces be mirrored (turned over)? default: flat yes, solid no")


def _search_args(p) -> None:
    add_backend_argument(p)
    p.add_argument("--branch", choices=["bitboard", "first", "mrv", "enclosed", "auto"], default=None,
                   help="bitboard: the first empty cell on a bitboard of one word (up to 64 cells: pentomino "
                        "rectangles, IQ Puzzler Pro, Soma) or two (cells and pieces up to 128 together), each "
                        "piece once; the fastest there and the default "
                        "where it applies, except solid boards of over 32 cells); first: the first empty cell on "
                        "any board (the default where the bitboard does not apply); mrv: the most constrained "
                        "item, cell or piece, with incremental counts (the default on solid boards of over 32 "
                        "cells, e.g. Bedlam, where the first cell does not finish); enclosed: the empty cell "
                        "with fewest empty neighbours; auto: the one predicted fastest on this instance (Knuth's "
                        "tree-size estimate x time per node)")
    p.add_argument("--no-prune", action="store_true", help="skip the dead-region (subset-sum) test")
    p.add_argument("--cuda-lanes", type=int, choices=[1, 32], default=None,
                   help="CUDA: threads that search each work item together (32: a warp shares every node's "
                        "candidate tests, one candidate a lane; the bitboard branch only; default 1: a thread an "
                        "item; the same counts and nodes either way)")
    add_search_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON document")


def register(verbs) -> None:
    """Add the ``polyomino`` verbs to the family's sub-parsers (the registry's ``commands`` hook)."""
    from puzzlebatch.puzzles.polyomino.packing import HEURISTICS
    from puzzlebatch.cli.options import add_count_arguments

    p = verbs.add_parser("solve", help="one solution (or none), drawn in letters and optionally as a picture")
    _problem_args(p)
    _search_args(p)
    p.add_argument("--heuristic", choices=HEURISTICS, default="none",
                   help="try pieces in this order (the IQ Puzzler Pro study's eight orderings)")
    p.add_argument("--png", "--svg", dest="png", metavar="FILE", help="draw the solution (.png or .svg)")
    p.add_argument("--out", help="also record the run and its solution in this results file (.h5; --method search)")
    from puzzlebatch.cli.options import add_scheduler_arguments as add_scheduler

    add_scheduler(p)  # the first solution in DFS order, searched by the cluster (--method search)
    p.set_defaults(func=run_solve, check=check_solve)

    p = verbs.add_parser("count", help="count every solution and the distinct ones; --all stores them all")
    _problem_args(p)
    _search_args(p)
    p.add_argument("--out", help="HDF5 results file (default with --all: results/polyomino.h5, one run a group; "
                        "without --all a count is only printed unless --out is given)")
    p.add_argument("--all", action="store_true",
                   help="store every solution in --out (item rows of placement ids; resumable)")
    p.add_argument("--merge", choices=["auto", "yes", "no"], default=None,
                   help="count by merged states (the bitboard: placements that cover the same cells with the same "
                        "pieces are searched once, weighted), then search what is left as a tree; auto (the "
                        "default): where the tree is estimated over 20 million nodes (IQ Puzzler Pro: 16x fewer "
                        "nodes); no: the plain tree search (--all never merges: it needs every solution's moves)")
    p.add_argument("--memo", type=L.memo_entries, metavar="ENTRIES",
                   help="entries of the count's memo of searched subtrees, a table a CPU thread (32 bytes an "
                        "entry; a power of two; 0: none; default 65536): a node met again by another order of "
                        "the same pieces is not searched twice (the bitboard engine; counts and nodes unchanged)")
    add_count_arguments(p)
    p.set_defaults(func=run_count, check=check_problem)

    p = verbs.add_parser("show", help="draw a stored solution of a count --all run")
    p.add_argument("file", help="the results file (.h5) or DLX file to read")
    p.add_argument("--run", help="run id (default: the latest enumeration)")
    p.add_argument("--solution", type=L.positive_int, default=1, help="which solution, 1-based (default 1)")
    p.add_argument("--png", "--svg", dest="png", metavar="FILE", help="also draw it as a picture")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run_show)

    lv = verbs.add_parser("levels", help="puzzle levels with a unique solution")
    lverbs = lv.add_subparsers(dest="lverb", metavar="ACTION", parser_class=type(lv))
    lverbs.required = True
    p = lverbs.add_parser("generate", help="remove pieces from random solutions until one solution is left")
    _problem_args(p, board_default="11x5")
    p.add_argument("--count", type=L.instances, default=1, help="how many levels")
    p.add_argument("--difficulty", type=L.positive_int, default=4, help="pieces left to place")
    p.add_argument("--seed", type=L.seed, default=0, help="random seed")
    p.add_argument("--out-dir", metavar="DIR", help="directory for level-NNN.txt files (solve them with --level)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    from puzzlebatch.cli.options import add_scheduler_arguments as add_scheduler

    add_scheduler(p)
    p.set_defaults(func=run_levels)

    dl = verbs.add_parser("dlx", help="exact cover in Knuth's DLX text format")
    dverbs = dl.add_subparsers(dest="dverb", metavar="ACTION", parser_class=type(dl))
    dverbs.required = True
    p = dverbs.add_parser("export", help="write the packing as a DLX file (for dlx1 and friends)")
    _problem_args(p)
    p.add_argument("--text", metavar="FILE", help="write the DLX text to FILE (default: stdout)")
    p.set_defaults(func=run_dlx_export)
    p = dverbs.add_parser("solve", help="solve or count any exact-cover problem in DLX format")
    p.add_argument("file", help="the results file (.h5) or DLX file to read")
    p.add_argument("--count", action="store_true", help="count every solution instead of finding one")
    add_backend_argument(p)
    p.add_argument("--branch", choices=["first", "mrv", "enclosed", "auto"], default="mrv",
                   help="branching rule: the most constrained item (mrv), the first, or as for solve")
    add_search_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run_dlx_solve)

    from puzzlebatch.cli.polyomino.large import extend  # large boards: transfer, band, generate

    extend(verbs)


def verify_line(doc: dict) -> str:
    from puzzlebatch.runners.engine.verify import line

    return line(doc) or ""


def warmup_tasks(b: list[str], tmp) -> list[tuple[str, list[str]]]:
    """(what, argv) of the tiny commands (argv after the family's name) that compile everything this family uses
    (``puzzlebatch warmup``); ``b`` is the backend option, ``tmp`` a scratch folder."""
    out = str(tmp / "warmup.h5")
    pieces = tmp / "cut.txt"
    wide = tmp / "two-words.txt"  # 72 cells, of which a 4x5 corner is free: the two-word bitboard
    wide.write_text("\n".join(("...." if y < 5 else "####") + "#####" for y in range(8)) + "\n")
    tasks = [("solve", ["solve", "--board", "5x4", "--pieces", "tetrominoes", *b, "--json"]),
             ("count", ["count", "--board", "5x4", "--pieces", "tetrominoes", *b, "--json"]),
             # merged states: layers large enough to grow the hash table (a fraction of a second of search)
             ("count --merge yes", ["count", "--board", "12x5", "--pieces", "pentominoes", "--merge", "yes", *b,
                                    "--json"]),
             # the root in the kernel (--frontier 1): the host would search this small tree whole
             ("two-word count", ["count", "--board", str(wide), "--pieces", "pentominoes", "--frontier", "1", *b,
                                 "--json"]),
             ("two-word solve", ["solve", "--board", str(wide), "--pieces", "pentominoes", *b, "--json"]),
             ("count --all", ["count", "--board", "4x3", "--pieces", "trominoes", "--unlimited",
                              "--all", *b, "--out", out, "--json"]),
             ("count --branch auto", ["count", "--board", "5x4", "--pieces", "tetrominoes",
                                      "--branch", "auto", *b, "--json"]),
             ("3D count", ["count", "--board", "2x2x2", "--pieces", "tetracubes", "--unlimited",
                           *b, "--json"]),
             ("count --branch mrv", ["count", "--board", "3x2x2", "--pieces", "tetracubes",
                                     "--branch", "mrv", *b, "--json"]),
             ("strip count", ["count", "--board", "4x8", "--pieces", "dominoes", "--unlimited",
                              "--method", "transfer", "--exact", "crt", *b, "--json"]),
             ("band solve", ["solve", "--board", "60x60", "--pieces", "dominoes", "--unlimited",
                             "--method", "band", "--json"]),
             ("random cut", ["generate", "--random-cut", "8x8", "--sizes", "4-5", "--seed", "1",
                             "--text", str(pieces)]),
             ("cut solve", ["solve", "--board", "8x8", "--pieces", str(pieces), "--method", "cut",
                            *b, "--json"]),
             ("classes solve", ["solve", "--board", "8x8", "--pieces", str(pieces),
                                "--method", "classes", *b, "--json"])]
    if "cuda" in b:  # the kernels whose warps share an item (--cuda-lanes 32), one word and two, the root in them
        tasks += [("count --cuda-lanes 32", ["count", "--board", "5x4", "--pieces", "pentominoes", "--frontier", "1",
                                             "--cuda-lanes", "32", *b, "--json"]),
                  ("two-word count --cuda-lanes 32", ["count", "--board", str(wide), "--pieces", "pentominoes",
                                                      "--frontier", "1", "--cuda-lanes", "32", *b, "--json"])]
    return tasks
