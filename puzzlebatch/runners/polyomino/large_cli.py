"""CLI for large boards: ``polyomino count --method transfer``, ``polyomino solve`` on huge rectangles with
``--unlimited`` (band by band), and ``polyomino generate --random-cut``.

:func:`extend` is called at the end of :func:`puzzlebatch.runners.polyomino.cli.register`: it adds options to the
existing ``count`` and ``solve`` verbs (wrapping their functions) and the new ``generate`` verb.
"""

from __future__ import annotations

import json
import re
import sys

import numpy as np

from puzzlebatch import limits
from puzzlebatch.jit.clock import command_compile_seconds
from puzzlebatch.errors import EXIT_NO_SOLUTION, PuzzleInputError
from puzzlebatch.runners.options import size_text

from puzzlebatch.runners.polyomino.args import pieces as piece_set, pieces_once_on_a_board, rect

BAND_AUTO_CELLS = 2500  # solve --unlimited on a plain rectangle of more cells than this goes band by band


# -- count --method transfer --------------------------------------------------------------------------------------
def run_count_transfer(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.runners.polyomino import large as L
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.progress import bar

    if args.level or args.all or args.resume:
        raise PuzzleInputError("--method transfer: counts a plain WxH rectangle (no --level, --all or --resume)")
    if not args.unlimited:
        raise PuzzleInputError("--method transfer: needs --unlimited (any number of copies of every piece)")
    wh = rect(args.board)
    if wh is None:
        raise PuzzleInputError(f"--board: --method transfer takes a WxH rectangle, not {args.board!r}")
    pieces = piece_set(args)
    backend = select_backend(args.backend)
    exact = args.exact
    if exact == "auto":  # measured: on a CPU the big-int steps beat the prime lanes (numba compile included)
        exact = "crt" if backend.kind == "cuda" else "bigint"
    if exact == "bigint" and backend.kind == "cuda":
        raise PuzzleInputError("--exact bigint: runs on the CPU only; use --exact crt (or auto) with --backend cuda")
    progress = bar(f"polyomino count {args.board} (transfer)", unit="step", total=wh[0] * wh[1])
    last = [0]

    def on_progress(done, total):
        progress.update(done - last[0])
        last[0] = done

    res = L.count_strip(pieces, wh[0], wh[1], backend, exact, on_progress=on_progress)
    progress.close()
    sys.set_int_max_str_digits(0)
    doc = res.to_json() | {"board": size_text(res.board), "pieces": [p.name for p in pieces],
                           "device": backend.device}
    if args.json:
        print_json(doc)
    else:
        print(f"{args.board} with {args.pieces} (unlimited): {res.solutions} tilings")
        print(f"{doc['digits']} digits; {res.profiles} profiles, {res.edges} edges, window {res.window} cells; "
              f"{res.seconds:.3f} s on {res.backend}" + (f" with {len(res.moduli)} moduli" if res.moduli else ""))
    return 0


# -- solve --method band -------------------------------------------------------------------------------------------
def run_solve_band(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.runners.polyomino import large as L
    from puzzlebatch.runners.engine.progress import bar

    wh = rect(args.board)
    if wh is None or args.level:
        raise PuzzleInputError(f"--board: --method band takes a WxH rectangle, not {args.level or args.board!r}")
    if not args.unlimited:
        raise PuzzleInputError("--method band: needs --unlimited (any number of copies of every piece)")
    w, h = wh
    pieces = piece_set(args)
    heights = [int(v) for v in args.band_heights.split(",")] if args.band_heights else None
    progress = bar(f"polyomino solve {args.board} (bands)", unit="band")
    res = L.solve_bands(pieces, w, h, seed=args.seed, heights=heights,
                        on_band=lambda i, n: (setattr(progress, "total", n), progress.update(1)))
    if not res.solved and heights is None:  # thin bands too (1 and 2 rows), then taller ones
        res = L.solve_bands(pieces, w, h, seed=args.seed, heights=list(range(1, 9)))
    progress.close()
    if res.solved:
        L.validate_tiling(pieces, w, h, res.placements)
        res.validated = True
    glyphs = P.glyphs_for(pieces)
    doc = {"solved": res.solved, "validated": res.validated, "method": "band", "board": size_text((w, h)),
           "pieces": [p.name for p in pieces], "bands": res.bands, "n_placements": len(res.placements),
           "seconds": res.seconds, "graph_seconds": res.graph_seconds, "backend": "cpu", "seed": args.seed}
    grid = None
    if res.solved:
        grid = np.full((h, w), ".", dtype="<U1")
        for k, cells in res.placements:
            for x, y in cells:
                grid[y, x] = glyphs[k]
        grid = "\n".join("".join(r) for r in grid)
    if args.text and grid is not None:
        from puzzlebatch.outputs import write_text

        write_text(args.text, grid + "\n", "--text")
        doc["text"] = args.text
    if args.json:
        doc["placements"] = [{"piece": pieces[k].name, "cells": sorted([int(x), int(y)] for x, y in cells)}
                             for k, cells in res.placements]
        print_json(doc)
    elif res.solved:
        if w * h <= 20000:
            print(grid)
        print(f"{len(res.placements)} pieces in {len(res.bands)} bands of heights {sorted(set(res.bands))}; "
              f"validated; {res.seconds:.3f} s on cpu" + (f"; drawing: {args.text}" if args.text else ""))
    else:
        print(f"no band split found for {w}x{h} (bands of heights {heights or '1..8'}); this does not prove "
              "that no tiling exists")
    return 0


# -- solve --method classes ----------------------------------------------------------------------------------------
def run_solve_classes(args) -> int:
    """Each piece once, identical shapes merged into classes with counts (random-cut puzzles)."""
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.runners.polyomino import large as L
    from puzzlebatch.runners.engine.backend import select_backend

    board, pieces = pieces_once_on_a_board(args, "classes")
    backend = select_backend(args.backend)
    # measured on random cuts: the most constrained cell is 3x (12x12) to 20x (16x16) faster than the first cell
    res = L.solve_cut(board, pieces, backend, "mrv" if args.branch in (None, "first") else args.branch)
    doc = {"solved": res.solved, "validated": res.solved, "method": "classes", "board": size_text(board.size),
           "pieces": [p.name for p in pieces], "classes": res.classes, "nodes": res.nodes, "seconds": res.seconds,
           "compile_seconds": command_compile_seconds(), "backend": res.backend, "device": backend.device,
           "placements": [{"piece": pieces[k].name, "cells": sorted([int(x), int(y)] for x, y in cells)}
                          for k, cells in res.placements]}
    if args.json:
        print_json(doc)
    elif res.solved:
        w, h = board.size
        grid = np.full((h, w), " ", dtype="<U1")
        for x, y in board.playable:
            grid[y, x] = "."
        glyphs = P.GLYPHS
        for i, (k, cells) in enumerate(res.placements):
            for x, y in cells:
                grid[y, x] = glyphs[k % len(glyphs)]
        if w * h <= 20000:
            print("\n".join("".join(r) for r in grid))
        print(f"{len(pieces)} pieces in {res.classes} shape classes placed, validated; {res.nodes} nodes in "
              f"{res.seconds:.3f} s on {res.backend} (+{command_compile_seconds():.1f} s compiling)")
    else:
        print(f"no solution ({res.nodes} nodes searched in {res.seconds:.3f} s on {res.backend})")
    return 0 if res.solved else EXIT_NO_SOLUTION  # the exact-cover search over the classes ran to the end


# -- generate --random-cut -----------------------------------------------------------------------------------------
def _sizes(spec: str) -> tuple[int, int]:
    m = re.match(r"^\s*(\d+)\s*(?:-\s*(\d+))?\s*$", spec or "")
    if not m:
        raise PuzzleInputError(f"--sizes: {spec!r} is not A-B (like 4-6)")
    a = int(m.group(1))
    b = int(m.group(2) or a)
    if a < 1 or b < a:
        raise PuzzleInputError(f"--sizes: {spec} must satisfy 1 <= A <= B")
    return a, b


def run_generate(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.puzzles.polyomino import cut as K
    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.puzzles.polyomino import shapes as S

    board = P.parse_board(args.random_cut, "--random-cut")
    if board.dim != 2:
        raise PuzzleInputError("--random-cut: flat boards only")
    a, b = _sizes(args.sizes)
    cut = K.random_cut(board.playable, a, b, args.seed, board.size)
    K.check_cut(cut, board.playable, a, b)
    pieces = cut.piece_objects()
    from puzzlebatch.outputs import check_output, write_text

    out = check_output(args.text, "--text")
    header = f"; origin: random cut of {args.random_cut} into {a}-{b} cells, seed {args.seed} (puzzlebatch)\n"
    write_text(out, header + S.write_pieces(pieces), "--text")
    cut_path = out.with_suffix(out.suffix + ".cut.json") if out.suffix != ".json" else out.with_suffix(".cut.json")
    cut_doc = {"board": list(board.size), "sizes": [a, b], "seed": args.seed,
               "pieces": [{"name": p.name, "cells": [list(c) for c in cells]}
                          for p, cells in zip(pieces, cut.pieces)]}
    write_text(cut_path, json.dumps(cut_doc), "--text")
    if args.json:
        print_json({"pieces": [{"name": p.name, "cells": sorted(list(c) for c in p.cells)} for p in pieces],
                    "board": size_text(board.size), "out": str(out), "cut": str(cut_path)})
    else:
        print(f"{len(pieces)} pieces of {a}-{b} cells cut from {args.random_cut} (seed {args.seed}): {out}; "
              f"the cut itself: {cut_path}")
        print(f"solve it back: puzzlebatch polyomino solve --board {args.random_cut} --pieces {out} "
              "--method cut")
    return 0


# -- hooking into the polyomino verbs ------------------------------------------------------------------------------
#: the options of ``polyomino solve`` that one method reads and the others would ignore (so they refuse them)
_METHOD_OPTIONS = (("scheduler", "--scheduler", ("search",)), ("png", "--png", ("search",)),
                   ("text", "--text", ("band",)), ("band_heights", "--band-heights", ("band",)),
                   ("time_limit", "--time-limit", ("cut",)))


def solve_method(a) -> str:
    """The method ``polyomino solve`` runs (``--method``, or what ``auto`` picks), once every option given is
    one it reads: an option of another method is refused in one line before any work, never ignored."""
    from puzzlebatch.runners.polyomino import cutsolve_cli as CC

    wh = rect(a.board) if not a.level else None
    band = a.method == "band" or (a.method == "auto" and a.unlimited and wh is not None
                                  and wh[0] * wh[1] > BAND_AUTO_CELLS)
    method = "classes" if a.method == "classes" else "cut" if a.method == "cut" or (
        a.method == "auto" and not band and CC.wants_cut(a)) else "band" if band else "search"
    for dest, flag, methods in _METHOD_OPTIONS:
        if getattr(a, dest, None) and method not in methods:
            readers = " and ".join(f"--method {m}" for m in methods)
            if flag == "--png":
                why = f"--method {method} prints its tiling as letters" + (
                    " (--text FILE writes it)" if method == "band" else "") + f"; pictures are drawn by {readers}"
            else:
                why = f"read by {readers} only; this puzzle is solved by --method {method}"
            raise PuzzleInputError(f"{flag}: {why}")
    return method


def extend(verbs) -> None:
    """Add ``--method`` to ``count`` and ``solve`` and the ``generate`` verb (called from ``register``)."""
    count = verbs.choices["count"]
    count.add_argument("--method", choices=["search", "transfer"], default="search",
                       help="search: the exact-cover engine (default); transfer: transfer matrix over column "
                            "profiles for WxH strips with --unlimited pieces (exact, big counts)")
    count.add_argument("--exact", choices=["auto", "crt", "bigint"], default="auto",
                       help="transfer: residues modulo 62-bit primes on the backend, combined by CRT, or Python "
                            "big integers on the CPU; auto (default): crt on CUDA, bigint on the CPU")
    base_count = count.get_default("func")
    count.set_defaults(func=lambda a: run_count_transfer(a) if a.method == "transfer" else base_count(a))

    solve = verbs.choices["solve"]
    solve.add_argument("--method", choices=["auto", "search", "band", "classes", "cut"], default="auto",
                       help="band: one tiling of a WxH rectangle with --unlimited pieces, band by band (time and "
                            f"memory linear in the area); auto: band for such rectangles over {BAND_AUTO_CELLS} "
                            "cells, else search; classes: each piece once, identical shapes searched as one "
                            "class with a count (random-cut puzzles); cut: scan-order search with local randomised "
                            "restarts for cut puzzles (auto picks it for 30+ pieces, each once, covering the board)")
    solve.add_argument("--time-limit", type=limits.positive_seconds,
                       help="cut: give up after this many seconds (no proof)")
    solve.add_argument("--band-heights", help="band: comma-separated band heights to try (default 3,4,5)")
    solve.add_argument("--seed", type=limits.seed, default=0, help="band, cut: random seed")
    solve.add_argument("--text", metavar="FILE", help="band: write the tiling as letters to FILE")
    base_solve, base_check = solve.get_default("func"), solve.get_default("check")

    def solve_dispatch(a):
        method = solve_method(a)
        if method == "classes":
            return run_solve_classes(a)
        if method == "cut":
            from puzzlebatch.runners.polyomino import cutsolve_cli as CC

            return CC.run_solve_cut(a)
        return run_solve_band(a) if method == "band" else base_solve(a)

    def solve_check(a):  # ``run --dry-run``: the problem parses and no option is one the method would ignore
        base_check(a)
        solve_method(a)

    solve.set_defaults(func=solve_dispatch, check=solve_check)

    p = verbs.add_parser("generate", help="random-cut puzzles: cut a board into random pieces (a piece file)")
    p.add_argument("--random-cut", required=True, metavar="WxH|BOARD", help="the board (or a mask file) to cut")
    p.add_argument("--sizes", default="4-6", metavar="A-B", help="piece sizes in cells (default 4-6)")
    p.add_argument("--seed", type=limits.seed, default=0, help="random seed of the cut")
    p.add_argument("--text", required=True, metavar="PIECES.txt",
                   help="piece file for --pieces; the cut itself goes to PIECES.txt.cut.json")
    p.add_argument("--json", action="store_true", help="also print the pieces as JSON")
    p.set_defaults(func=run_generate)
