"""How ``polyomino solve --method classes|cut`` prints its result: each piece once on a flat board, solved by the
shape-class exact cover or by the scan-order search with local randomised restarts
(:mod:`puzzlebatch.runners.polyomino.cutsolve`).  ``--method auto`` picks the cut search for cut puzzles of at least
:data:`puzzlebatch.api.polyomino.CUT_AUTO_PIECES` pieces (each piece once, covering the board exactly)."""

from __future__ import annotations

from puzzlebatch.jit.clock import command_compile_seconds


def print_once(r) -> None:
    """A ``classes`` or ``cut`` solution as text (the letters when the board is at most 20,000 cells)."""
    w, h = (int(v) for v in r.board.split("x"))
    if r.regions is not None:
        print_regions(r)
        return
    if r.solved:
        if w * h <= 20000:
            print(r.letters)
        if r.method == "cut":
            print(f"{len(r.pieces)} pieces in {r.classes} shape classes placed, validated; {r.nodes} nodes, "
                  f"{r.restarts} restart rounds in {r.seconds:.3f} s on {r.backend} "
                  f"(+{command_compile_seconds():.1f} s compiling)")
        else:
            print(f"{len(r.pieces)} pieces in {r.classes} shape classes placed, validated; {r.nodes} nodes in "
                  f"{r.seconds:.3f} s on {r.backend} (+{command_compile_seconds():.1f} s compiling)")
    elif r.method == "classes":
        print(f"no solution ({r.nodes} nodes searched in {r.seconds:.3f} s on {r.backend})")
    elif r.proved_none:
        print(f"no solution: the whole search tree was exhausted ({r.nodes} nodes, {r.seconds:.3f} s)")
    else:
        print(f"no solution found within --time-limit ({r.nodes} nodes in {r.seconds:.3f} s on {r.backend}); "
              "this does not prove that none exists")


def print_regions(r) -> None:
    """A ``cut`` solved region by region: what was tiled, the repairs, where the picture and the run went."""
    if r.solved:
        if r.letters:
            print(r.letters)
        print(f"{len(r.pieces)} pieces placed in {r.regions} regions of {r.region_size[0]}x{r.region_size[1]} "
              f"cells ({r.repairs} repair{'' if r.repairs == 1 else 's'} where regions meet), validated; "
              f"{r.nodes} nodes in {r.seconds:.1f} s on {r.backend} (+{command_compile_seconds():.1f} s compiling)")
        if r.picture:
            print(f"picture: {r.picture}")
    else:
        print(f"not solved within --time-limit: {r.regions_done} of {r.regions} regions tiled ({r.nodes} nodes in "
              f"{r.seconds:.1f} s on {r.backend}); this does not prove that none exists")
    if r.out:
        print(f"results: {r.out} (run {r.run_id})" + ("" if r.solved else
              "; continue with the same command and --resume"))
