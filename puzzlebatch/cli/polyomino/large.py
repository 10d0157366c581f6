"""Command line for large boards: the options of ``polyomino count --method transfer`` and of ``polyomino solve``'s
methods for huge rectangles with ``--unlimited`` (band by band), shape classes and cut puzzles, the
``polyomino generate --random-cut`` verb, and how their results are printed.

:func:`extend` is called at the end of :func:`puzzlebatch.cli.polyomino.commands.register`: it adds options to the
existing ``count`` and ``solve`` verbs (whose functions read them) and the new ``generate`` verb.
"""

from __future__ import annotations

import sys

from puzzlebatch import limits


def print_transfer(r, args) -> None:
    """A transfer-matrix count (or Kasteleyn's) as text."""
    print(f"{args.board} with {args.pieces} (unlimited): {r.solutions} tilings")
    if r.method == "kasteleyn":
        print(f"{r.digits} digits; Kasteleyn's product formula; {r.seconds:.3f} s on cpu")
        return
    print(f"{r.digits} digits; {r.profiles} profiles, {r.edges} edges, window {r.window} cells; "
          f"{r.seconds:.3f} s on {r.backend}" + (f" with {r.moduli} moduli" if r.moduli else ""))


def print_band(r, args) -> None:
    """A band-by-band tiling as text (the letters when the board is at most 20,000 cells)."""
    w, h = (int(v) for v in r.board.split("x"))
    if r.solved:
        if w * h <= 20000:
            print(r.letters)
        print(f"{r.n_placements} pieces in {len(r.bands)} bands of heights {sorted(set(r.bands))}; validated; "
              f"{r.seconds:.3f} s on cpu" + (f"; drawing: {r.text}" if r.text else ""))
    else:
        heights = [int(v) for v in args.band_heights.split(",")] if args.band_heights else None
        print(f"no band split found for {w}x{h} (bands of heights {heights or '1..8'}); this does not prove "
              "that no tiling exists")


# -- generate --random-cut -----------------------------------------------------------------------------------------
def run_generate(args) -> int:
    from puzzlebatch.api import polyomino as api
    from puzzlebatch.cli.options import print_json

    if args.hdf5 or _streamed(args):
        return _run_generate_streamed(args)
    r = api.generate(args.random_cut, args.sizes, seed=args.seed, text=args.text)
    if args.json:
        print_json(r.to_dict())
    else:
        from puzzlebatch.outputs import is_stream

        a, b = r.sizes
        say = sys.stderr if args.text and is_stream(args.text) else sys.stdout  # the pieces went to stdout
        print(f"{len(r.pieces)} pieces of {a}-{b} cells cut from {args.random_cut} (seed {args.seed}): {r.out}"
              + (f"; the cut itself: {r.cut}" if r.cut else ""), file=say)
        if r.cut:
            print(f"solve it back: puzzlebatch polyomino solve --board {args.random_cut} --pieces {r.out} "
                  "--method cut", file=say)
    return 0


def _streamed(args) -> bool:
    """Large ``WxH`` boards written to a file are cut straight to files (no JSON cut, no objects per piece)."""
    import re

    from puzzlebatch.outputs import is_stream
    from puzzlebatch.runners.polyomino.bigcut import STREAM_CELLS

    m = re.match(r"^(\d+)x(\d+)$", str(args.random_cut))
    return bool(m and int(m.group(1)) * int(m.group(2)) > STREAM_CELLS and not args.json
                and not is_stream(args.text))


def _run_generate_streamed(args) -> int:
    from puzzlebatch.runners.polyomino.bigcut import generate_files, parse_sizes

    from puzzlebatch.outputs import is_stream

    a, b = parse_sizes(args.sizes)
    r = generate_files(args.random_cut, a, b, args.seed, args.text, args.hdf5)
    say = sys.stderr if is_stream(args.text) else sys.stdout  # the pieces went to stdout
    from puzzlebatch.jit.clock import command_compile_seconds

    compiled = command_compile_seconds()
    print(f"{r.n_pieces} pieces of {a}-{b} cells cut from {args.random_cut} (seed {args.seed}) in "
          f"{r.seconds:.2f} s on cpu" + (f" (+{compiled:.1f} s compiling, first run)" if compiled >= 0.05 else "")
          + f", written in {r.write_seconds:.2f} s: {r.text}"
          + (f"; the cut itself: {r.hdf5}" if r.hdf5 else ""), file=say)
    print(f"solve it back: puzzlebatch polyomino solve --board {args.random_cut} --pieces {r.text} --method cut",
          file=say)
    return 0


# -- hooking into the polyomino verbs ------------------------------------------------------------------------------
def extend(verbs) -> None:
    """Add ``--method`` to ``count`` and ``solve`` and the ``generate`` verb (called from ``register``)."""
    from puzzlebatch.api.polyomino import BAND_AUTO_CELLS

    count = verbs.choices["count"]
    count.add_argument("--method", choices=["search", "transfer", "kasteleyn"], default="search",
                       help="search: the exact-cover engine (default); transfer: transfer matrix over column "
                            "profiles for WxH strips with --unlimited pieces (exact, big counts); kasteleyn: "
                            "domino tilings of a WxH rectangle up to about 400x400, by Kasteleyn's formula")
    count.add_argument("--exact", choices=["auto", "crt", "bigint"], default="auto",
                       help="transfer: residues modulo 62-bit primes on the backend, combined by CRT, or Python "
                            "big integers on the CPU; auto (default): crt on CUDA, bigint on the CPU")

    solve = verbs.choices["solve"]
    solve.add_argument("--method", choices=["auto", "search", "band", "classes", "cut"], default="auto",
                       help="band: one tiling of a WxH rectangle with --unlimited pieces, band by band (time and "
                            f"memory linear in the area); auto: band for such rectangles over {BAND_AUTO_CELLS} "
                            "cells, else search; classes: each piece once, identical shapes searched as one "
                            "class with a count (random-cut puzzles); cut: scan-order search with local randomised "
                            "restarts for cut puzzles (auto picks it for 30+ pieces, each once, covering the board)")
    solve.add_argument("--time-limit", type=limits.positive_seconds,
                       help="cut: give up after this many seconds of search (grouping the pieces into classes "
                            "included; no proof; on a board solved in regions, the regions tiled are kept for "
                            "--resume with --out)")
    solve.add_argument("--region", type=limits.region_side, metavar="N",
                       help="cut: split the board into regions of about NxN cells, solved as independent work "
                            "items on every core (or --scheduler) and repaired where they meet; default 100 on "
                            "boards of 40,000 cells or more, else 0 (one search)")
    solve.add_argument("--resume", action="store_true",
                       help="cut in regions: continue the unfinished solve in --out (the regions tiled are kept)")
    solve.add_argument("--checkpoint-every", type=limits.non_negative_seconds, default=30.0, metavar="SECONDS",
                       help="cut in regions with --out: seconds between checkpoints (default 30)")
    solve.add_argument("--band-heights", help="band: comma-separated band heights to try (default 3,4,5)")
    solve.add_argument("--seed", type=limits.seed, default=0, help="band, cut: random seed")
    solve.add_argument("--text", metavar="FILE", help="band: write the tiling as letters to FILE")

    p = verbs.add_parser("generate", help="random-cut puzzles: cut a board into random pieces (a piece file)")
    p.add_argument("--random-cut", required=True, metavar="WxH|BOARD", help="the board (or a mask file) to cut")
    p.add_argument("--sizes", default="4-6", metavar="A-B", help="piece sizes in cells (default 4-6)")
    p.add_argument("--seed", type=limits.seed, default=0, help="random seed of the cut")
    p.add_argument("--text", required=True, metavar="PIECES.txt",
                   help="piece file for --pieces; the cut itself goes to PIECES.txt.cut.json (boards over "
                        "100,000 cells: streamed, the cut only with --hdf5)")
    p.add_argument("--hdf5", metavar="CUT.h5",
                   help="also write the cut itself to HDF5, streamed (labels[y, x] = piece number; cells, starts)")
    p.add_argument("--json", action="store_true", help="also print the pieces as JSON")
    p.set_defaults(func=run_generate)
