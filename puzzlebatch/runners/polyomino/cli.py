"""``puzzlebatch polyomino solve|count|levels|dlx``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from puzzlebatch import limits as L
from puzzlebatch.jit.clock import command_compile_seconds
from puzzlebatch.jit.clock import work_clock
from puzzlebatch.errors import EXIT_INTERRUPTED, EXIT_NO_SOLUTION, PuzzleInputError
from puzzlebatch.runners.options import add_search_arguments, search_settings, size_text
from puzzlebatch.runners.polyomino.args import mirror
from puzzlebatch.runners.options import add_backend_argument



def default_out(verb: str) -> Path:
    from puzzlebatch.outputs import default_result_file

    return default_result_file(f"polyomino-{verb}")


def check_problem(args) -> None:
    """The cheap checks of a packing problem (``run --dry-run``): the board or level and the pieces parse, without
    building the exact-cover matrix."""
    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.puzzles.polyomino import shapes as S

    S.load_pieces(args.pieces, unlimited=args.unlimited, mirror=mirror(args), count=args.copies)
    P.parse_board(args.level, "--level") if args.level else P.parse_board(args.board)


def load_packing(args):
    """The packing problem named by --board, --pieces, --level and the piece options."""
    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.puzzles.polyomino import shapes as S

    pieces = S.load_pieces(args.pieces, unlimited=args.unlimited, mirror=mirror(args), count=args.copies)
    if args.level:
        board = P.parse_board(args.level, "--level")
    else:
        board = P.parse_board(args.board)
    return P.build(board, pieces)


def placements_json(pk, placements) -> list[dict]:
    return [{"piece": pk.pieces[k].name, "cells": sorted([int(v) for v in c] for c in cells)}
            for k, cells in sorted(list(pk.preplaced) + [(k, c) for k, c in placements],
                                   key=lambda kc: (kc[0], sorted(map(tuple, kc[1]))))]


def grid_text(pk, placements) -> str:
    """Letters on the board: one glyph per piece, ``.`` for an empty cell, a space for a hole."""
    board = pk.board
    size = board.size
    grid = np.full(size[::-1], " ", dtype="<U1")  # [z][y][x] or [y][x]
    for c in board.playable:
        grid[c[::-1]] = "."
    for k, cells in list(pk.preplaced) + list(placements):
        for c in cells:
            grid[tuple(int(v) for v in c)[::-1]] = pk.glyphs[k]
    if board.dim == 2:
        return "\n".join("".join(row) for row in grid)
    blocks = [["z=%d" % z + " " * (size[0] - 3)] + ["".join(r) for r in grid[z]] for z in range(size[2])]
    return "\n".join("   ".join(b[i].ljust(size[0]) for b in blocks) for i in range(size[1] + 1))


def legend(pk) -> str:
    return "  ".join(f"{g}={p.name}" for g, p in zip(pk.glyphs, pk.pieces) if g != p.name)


# -- solve -------------------------------------------------------------------------------------------------------
def run_solve(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.runners.polyomino import solver as RP
    from puzzlebatch.runners.engine.backend import select_backend

    pk = load_packing(args)
    args.branch = args.branch or RP.default_branch(pk)
    backend = select_backend(args.backend)
    from puzzlebatch.runners.engine.distributed import open_pool

    with open_pool(args.scheduler, args.backend, args.item_seconds) as pool:
        res = RP.solve_packing(pk, backend, args.branch, not args.no_prune, args.heuristic,
                               search_settings(args, backend), pool=pool)
    doc = {"solved": res.solved, "placements": placements_json(pk, res.placements) if res.solved else [],
           "board": size_text(pk.board.size), "pieces": [p.name for p in pk.pieces], "nodes": res.nodes,
           "seconds": res.seconds, "compile_seconds": command_compile_seconds(), "backend": res.backend,
           "device": backend.device}
    if args.png and res.solved:
        from puzzlebatch.results.pictures import draw_packing

        doc["picture"] = str(draw_packing(pk, res.placements, args.png))
    if args.json:
        print_json(doc)
    elif res.solved:
        print(grid_text(pk, res.placements))
        if legend(pk):
            print(legend(pk))
        print(f"{res.nodes} nodes in {res.seconds:.3f} s on {backend.name} ({backend.device}); "
              f"+{command_compile_seconds():.1f} s compiling")
        if "picture" in doc:
            print(f"picture: {doc['picture']}")
    else:
        print(f"no solution ({res.nodes} nodes searched in {res.seconds:.3f} s on {backend.name})")
    return 0 if res.solved else EXIT_NO_SOLUTION  # not solved: the whole tree was searched


# -- count -------------------------------------------------------------------------------------------------------
def run_count(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.runners.polyomino import solver as RP
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.count_session import CountSession
    from puzzlebatch.runners.options import count_options
    from puzzlebatch.runners.engine.progress import bar

    pk = load_packing(args)
    args.branch = args.branch or RP.default_branch(pk)
    backend = select_backend(args.backend)
    settings = search_settings(args, backend)
    params = {"board": pk.board.label, "pieces": args.pieces, "unlimited": bool(args.unlimited),
              "copies": args.copies or 0, "mirror": args.mirror, "branch": args.branch, "prune": not args.no_prune,
              "level": args.level or ""}
    verb = "enumerate" if args.all else "count"
    session = None
    if args.out or args.all or args.resume:  # without a file, a count is only printed
        session = CountSession(count_options(args), "polyomino", verb, params, backend, default_out(verb),
                               lambda p: p == params, label=f"polyomino {verb} {pk.board.label}",
                               describe="this board and pieces", instances=RP.problem_arrays(pk))
        on_batch = session.on_batch
    else:
        from puzzlebatch.runners.engine.distributed import open_pool

        pool = open_pool(args.scheduler, args.backend, args.item_seconds)
        progress = bar(f"polyomino count {pk.board.label}", unit="batch")

        def on_batch(front, tot):
            progress.update(1)
            progress.set_postfix(count=tot.count, items_left=len(front), nodes=tot.nodes)
    rest = totals = None
    ids = np.int16 if len(pk.cover.options) < 32767 else np.int32  # placement ids, compactly
    sink = (lambda rows: session.run.append_items(solution=rows.astype(ids))) if args.all else None
    try:
        res, rest, totals = RP.count_packing_run(
            pk, backend, args.branch, not args.no_prune, settings, on_batch=on_batch,
            frontier=session.frontier if session else None, totals=session.totals if session else None,
            max_batches=args.max_batches, elapsed=session.elapsed if session else 0.0,
            pool=session.pool if session else pool, sink=sink)
    except KeyboardInterrupt:
        if session is not None:
            return session.interrupted(f"the same command (puzzlebatch polyomino {verb} ...)")
        print("puzzlebatch: interrupted (give --out FILE.h5 to be able to resume)", file=sys.stderr)
        return EXIT_INTERRUPTED
    verified = None
    if getattr(args, "verify", False) and res.complete:
        from puzzlebatch.runners.engine import verify

        # the second count breaks no symmetry: every solution is searched (the distinct count is not re-derived)
        again = verify.second_split(settings)
        second = RP.count_packing_run(pk, backend, args.branch, not args.no_prune, again, distinct=False,
                                      pool=session.pool if session else pool)[0]
        verified = verify.compare(f"polyomino count --board {pk.board.label}", res.to_json(), second.to_json(),
                                  ("solutions",), verify.describe(again, symmetry=False))
    if session is None:
        progress.close()
        pool.close()
        if pool.distributed:
            print("\n".join(pool.work.lines()), file=sys.stderr)
    doc = res.to_json() | {"board": size_text(pk.board.size), "pieces": [p.name for p in pk.pieces],
                           "device": backend.device, "compile_seconds": command_compile_seconds()}
    if verified is not None:
        doc["verified"] = verified
    out = None
    if session is not None:
        doc |= session.finish(doc, res.complete, rest, totals, res.seconds)
        out = doc["out"]
    if args.json:
        print_json(doc)
    elif not res.complete:
        print(f"stopped after {totals.batches} batches with {len(rest)} work items left; resume with the "
              f"same command and --out {out} --resume")
    else:
        d = "" if res.distinct is None else f", {res.distinct} distinct up to the board's {res.symmetries} " \
                                            "symmetries"
        print(f"{pk.board.label} with {args.pieces}: {res.solutions} solutions{d}")
        print(f"{res.nodes} nodes in {res.seconds:.3f} s on {res.backend} (+{command_compile_seconds():.1f} s compiling)")
        if "verified" in doc:
            print(verify_line(doc))
        if out is not None:
            print(f"results: {out} (run {doc['run_id']})" + (" - draw one with: puzzlebatch show "
                                                             f"{out} --run {doc['run_id']} --solution K"
                                                             if args.all else ""))
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
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.results.store import ResultsStore

    path = Path(args.file)
    if not path.is_file():
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
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.runners.polyomino import solver as RP

    from puzzlebatch.runners.engine.distributed import open_pool

    pk = load_packing(args)
    with open_pool(args.scheduler, "cpu", args.item_seconds) as pool:  # one level per task
        levels = RP.generate_levels(pk, args.count, args.difficulty, args.seed, pool=pool)
    from puzzlebatch.outputs import make_output_dir, write_text

    out_dir = make_output_dir(args.out_dir, "--out-dir") if args.out_dir else None
    docs = []
    for k, lv in enumerate(levels):
        text = grid_text(pk, lv.placed)
        doc = {"level": k + 1, "pieces_left": lv.left, "grid": text.splitlines()}
        if out_dir is not None:
            path = write_text(out_dir / f"level-{k + 1:03d}.txt", text + "\n", "--out-dir")
            doc["file"] = str(path)
        docs.append(doc)
    if args.json:
        print_json({"board": size_text(pk.board.size), "pieces": args.pieces, "difficulty": args.difficulty,
                    "seed": args.seed, "levels": docs, "backend": "cpu"})
    else:
        for doc in docs:
            print(f"level {doc['level']} ({doc['pieces_left']} pieces to place; one solution)"
                  + (f" -> {doc['file']}" if "file" in doc else ""))
            print("\n".join(doc["grid"]))
            print()
    return 0


# -- dlx ---------------------------------------------------------------------------------------------------------
def run_dlx_export(args) -> int:
    from puzzlebatch.puzzles.polyomino.cover import write_dlx

    pk = load_packing(args)
    text = write_dlx(pk.cover, f"{pk.board.label} with {args.pieces} (puzzlebatch)")
    if args.text:
        from puzzlebatch.outputs import write_text

        write_text(args.text, text, "--text")
    else:
        sys.stdout.write(text)
    return 0


def run_dlx_solve(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.puzzles.polyomino.cover import option_words, read_dlx
    from puzzlebatch.runners.polyomino import solver as RP
    from puzzlebatch.runners.engine.backend import select_backend

    path = Path(args.file)
    if not path.is_file():
        raise PuzzleInputError(f"dlx: no such file {args.file}")
    from puzzlebatch.outputs import read_text

    ec = read_dlx(read_text(path, "dlx"), str(path))
    backend = select_backend(args.backend)
    t0 = work_clock()
    eng = RP.engine(ec, args.branch, False)
    doc = {"items": ec.n_items, "primary": ec.n_primary, "options": len(ec.options), "colors": len(ec.colors),
           "backend": backend.name, "branch": eng.mode}
    if args.count:
        totals, _ = RP.count_engine(eng, backend, search_settings(args, backend))
        doc |= {"solutions": totals.count, "nodes": totals.nodes}
    else:
        from puzzlebatch.runners.engine.search import BatchDFS

        if eng.dead:
            doc |= {"solved": False, "options_chosen": []}
        else:
            totals, _ = BatchDFS(eng.problem, backend, search_settings(args, backend)).first()
            chosen = []
            if totals.solutions:
                chosen = [option_words(ec, o) for o in eng.decode(totals.solutions[0])]
            doc |= {"solved": bool(chosen), "options_chosen": chosen, "nodes": totals.nodes}
    doc["seconds"] = work_clock() - t0
    if args.json:
        print_json(doc)
    elif args.count:
        print(f"{path}: {doc['solutions']} solutions ({doc['nodes']} nodes, {doc['seconds']:.3f} s on "
              f"{backend.name})")
    elif doc["solved"]:
        for opt in doc["options_chosen"]:
            print(" ".join(opt))
    else:
        print(f"{path}: no solution")
    # a count is done whatever it finds (as `polyomino count`); a solve that found none searched the whole tree
    return 0 if args.count or doc["solved"] else EXIT_NO_SOLUTION


# -- parser ------------------------------------------------------------------------------------------------------
def _problem_args(p, board_default: str | None = None) -> None:
    p.add_argument("--board", default=board_default,
                   help="WxH, WxHxD, or a board file (. cell, # hole, letters: placed pieces; layers for 3D)")
    p.add_argument("--pieces", required=True,
                   help="a piece set name (pentominoes, iq-puzzler-pro, soma, bedlam, ...), a piece file, "
                        "or several joined by +")
    p.add_argument("--level", help="a level file: the board with some pieces already placed (letters)")
    p.add_argument("--unlimited", action="store_true", help="any number of copies of every piece")
    p.add_argument("--copies", type=L.positive_int, help="this many copies of every piece")
    p.add_argument("--mirror", choices=["yes", "no", "default"], default="default",
                   help="may pieces be mirrored (turned over)? default: flat yes, solid no")


def _search_args(p) -> None:
    add_backend_argument(p)
    p.add_argument("--branch", choices=["first", "mrv", "enclosed", "auto"], default=None,
                   help="branch on the first empty cell (the default on flat boards), the most constrained item, "
                        "cell or piece, with incremental counts (mrv: the default on solid boards), the empty cell "
                        "with fewest empty neighbours (enclosed), or the one predicted fastest on this instance "
                        "(auto: Knuth's tree-size estimate x time per node)")
    p.add_argument("--no-prune", action="store_true", help="skip the dead-region (subset-sum) test")
    add_search_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON document")


def register(sub) -> None:
    from puzzlebatch.puzzles.polyomino.packing import HEURISTICS
    from puzzlebatch.runners.options import add_count_arguments

    poly = sub.add_parser("polyomino", help="pack polyominoes and polycubes: solve, count, enumerate, levels, DLX")
    verbs = poly.add_subparsers(dest="verb", metavar="VERB", parser_class=type(poly))
    verbs.required = True

    p = verbs.add_parser("solve", help="one solution (or none), drawn in letters and optionally as a picture")
    _problem_args(p)
    _search_args(p)
    p.add_argument("--heuristic", choices=HEURISTICS, default="none",
                   help="try pieces in this order (the IQ Puzzler Pro study's eight orderings)")
    p.add_argument("--png", "--svg", dest="png", metavar="FILE", help="draw the solution (.png or .svg)")
    from puzzlebatch.runners.options import add_scheduler_arguments as add_scheduler

    add_scheduler(p)  # the first solution in DFS order, searched by the cluster (--method search)
    p.set_defaults(func=run_solve, check=check_problem)

    p = verbs.add_parser("count", help="count every solution and the distinct ones; --all stores them all")
    _problem_args(p)
    _search_args(p)
    p.add_argument("--out", help="HDF5 results file (default with --all: results/polyomino-all-<time>.h5)")
    p.add_argument("--all", action="store_true", help="store every solution in --out (item rows of placement ids; resumable)")
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
    lverbs = lv.add_subparsers(dest="lverb", metavar="ACTION", parser_class=type(poly))
    lverbs.required = True
    p = lverbs.add_parser("generate", help="remove pieces from random solutions until one solution is left")
    _problem_args(p, board_default="11x5")
    p.add_argument("--count", type=L.positive_int, default=1, help="how many levels")
    p.add_argument("--difficulty", type=L.positive_int, default=4, help="pieces left to place")
    p.add_argument("--seed", type=L.seed, default=0, help="random seed")
    p.add_argument("--out-dir", metavar="DIR", help="directory for level-NNN.txt files (solve them with --level)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    from puzzlebatch.runners.options import add_scheduler_arguments as add_scheduler

    add_scheduler(p)
    p.set_defaults(func=run_levels)

    dl = verbs.add_parser("dlx", help="exact cover in Knuth's DLX text format")
    dverbs = dl.add_subparsers(dest="dverb", metavar="ACTION", parser_class=type(poly))
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

    from puzzlebatch.runners.polyomino.large_cli import extend  # large boards: transfer, band, generate

    extend(verbs)


def verify_line(doc: dict) -> str:
    from puzzlebatch.runners.engine.verify import line

    return line(doc) or ""
