"""``polyomino solve --method cut``: random-cut puzzles (every piece once) solved back by the scan-order search with
local randomised restarts (:mod:`puzzlebatch.runners.polyomino.cutsolve`).  ``--method auto`` picks it for cut
puzzles of at least :data:`CUT_AUTO_PIECES` pieces (each piece once, covering the board exactly)."""

from __future__ import annotations

import numpy as np

from puzzlebatch.errors import EXIT_NO_SOLUTION, PuzzleInputError

CUT_AUTO_PIECES = 30


def wants_cut(args) -> bool:
    """For ``--method auto``: is this a cut puzzle big enough for the cut search?"""
    if args.level or args.unlimited or args.copies:
        return False
    try:
        from puzzlebatch.puzzles.polyomino import packing as P
        from puzzlebatch.runners.polyomino import cutsolve as CS
        from puzzlebatch.runners.polyomino.args import pieces as _load_pieces

        pieces = _load_pieces(args)
        if len(pieces) < CUT_AUTO_PIECES:
            return False
        return CS.is_cut_puzzle(P.parse_board(args.board), pieces)
    except PuzzleInputError:
        return False  # the usual path reports the error


def run_solve_cut(args) -> int:
    from puzzlebatch.runners.options import print_json, size_text
    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.runners.polyomino import cutsolve as CS
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.polyomino.args import pieces_once_on_a_board

    board, pieces = pieces_once_on_a_board(args, "cut")
    if not CS.is_cut_puzzle(board, pieces):
        area = sum(p.size * max(p.count, 1) for p in pieces)
        raise PuzzleInputError(f"--pieces: --method cut needs every piece once covering the board exactly "
                               f"(pieces: {area} cells, board: {board.n_cells})")
    backend = select_backend(args.backend)
    from puzzlebatch.runners.engine.progress import bar

    limit = getattr(args, "time_limit", None)
    progress = bar(f"polyomino solve {args.board} (cut, {len(pieces)} pieces)", unit="round")
    res = CS.solve_pieces(board, pieces, backend, seed=args.seed, time_limit=limit,
                          on_round=lambda r, b, n: progress.update(1))
    progress.close()
    doc = {"solved": res.solved, "validated": res.validated, "method": "cut", "board": size_text(board.size),
           "pieces": [p.name for p in pieces], "classes": res.classes, "nodes": res.nodes, "restarts": res.rounds,
           "proved_none": res.proved_none, "seconds": res.seconds, "backend": res.backend, "device": backend.device,
           "seed": args.seed,
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
        for k, cells in res.placements:
            for x, y in cells:
                grid[y, x] = glyphs[k % len(glyphs)]
        if w * h <= 20000:
            print("\n".join("".join(r) for r in grid))
        print(f"{len(pieces)} pieces in {res.classes} shape classes placed, validated; {res.nodes} nodes, "
              f"{res.rounds} restart rounds in {res.seconds:.3f} s on {res.backend} (numba compile included)")
    elif res.proved_none:
        print(f"no solution: the whole search tree was exhausted ({res.nodes} nodes, {res.seconds:.3f} s)")
    else:
        print(f"no solution found within --time-limit ({res.nodes} nodes in {res.seconds:.3f} s on {res.backend}); "
              "this does not prove that none exists")
    return EXIT_NO_SOLUTION if res.proved_none else 0  # not found in time proves nothing: 0 with solved false
