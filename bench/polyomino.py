"""Polyomino and polycube packing: puzzlebatch against xcover (Knuth's dancing cells in numba), side by side.

For each case the same exact-cover problem (pieces as primary items, cells as primary items) is counted by
``xcover.covers`` (every solution, as xcover finds them) and by ``puzzlebatch`` (``solutions`` and ``distinct``
by symmetry breaking); the counts must agree.  Compilation is excluded on both sides (a warm-up run first).

    python bench/polyomino.py                      # 6x10 pentominoes and the Soma cube (minutes)
    python bench/polyomino.py --cases iq bedlam    # the long ones (xcover: several minutes each)
    python bench/polyomino.py --no-peer --cases iq # puzzlebatch alone

Peers: ``pip install xcover`` (the bench extra).  Knuth's dlx1 is not on PyPI; export a problem with
``puzzlebatch polyomino dlx export`` to run it by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import puzzlebatch
from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.runners import polyomino as RP
from puzzlebatch.runners.backend import select_backend

CASES = {
    "6x10": ("10x6", "pentominoes", 5),
    "5x12": ("12x5", "pentominoes", 5),
    "soma": ("3x3x3", "soma", 20),
    "iq": ("11x5", "iq-puzzler-pro", 1),
    "bedlam": ("4x4x4", "bedlam", 1),
}


def xcover_options(pk: P.Packing, fix_piece: str | None = None):
    """The packing as xcover input: each option = its cells + its piece (pieces primary: each used once).

    ``fix_piece``: keep only the placements of that piece in its first orientation (the usual way to count
    distinct solutions with a plain solver: it breaks the rotations, not every symmetry)."""
    ec = pk.cover
    options = []
    for o, opt in enumerate(ec.options):
        g = ec.option_group[o]
        name = pk.pieces[g].name
        if fix_piece is not None and name == fix_piece:
            first = pk.pieces[g].orientations()[0]
            if S.normalize(map(tuple, pk.option_cells[o])) != first:
                continue
        options.append([f"c{i}" for i in opt] + [f"p:{name}"])
    primary = [f"c{i}" for i in range(ec.n_items) if i not in set(ec.precovered)] + \
        [f"p:{p.name}" for p in pk.pieces]
    return options, primary


def run_xcover(options, primary) -> tuple[int, float]:
    from xcover import covers

    t0 = time.process_time()
    n = sum(1 for _ in covers(options, primary=primary))
    return n, time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", default=["6x10", "soma"], choices=sorted(CASES))
    ap.add_argument("--repeat", type=int, help="puzzlebatch repetitions (default per case)")
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--backend", default="cpu")
    args = ap.parse_args()
    backend = select_backend(args.backend)
    rows = []
    for case in args.cases:
        board, pieces, repeat = CASES[case]
        repeat = args.repeat or repeat
        pk = P.build(P.parse_board(board), S.load_pieces(pieces))
        RP.count_packing(P.build(P.parse_board("5x4"), S.load_pieces("tetrominoes")), backend)  # compile
        walls, cpus, res = [], [], None
        for _ in range(repeat):
            c0, t0 = time.process_time(), time.perf_counter()
            res = RP.count_packing(pk, backend)
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        row = {"case": case, "board": board, "pieces": pieces, "solutions": res.solutions,
               "distinct": res.distinct, "nodes": res.nodes, "puzzlebatch_wall_median_s": statistics.median(walls),
               "puzzlebatch_cpu_median_s": statistics.median(cpus), "repeat": repeat}
        if not args.no_peer:
            options, primary = xcover_options(pk)
            # warm-up: xcover compiles its numba kernels on the first call
            run_xcover(*xcover_options(P.build(P.parse_board("5x4"), S.load_pieces("tetrominoes"))))
            n, cpu = run_xcover(options, primary)
            assert n == res.solutions, f"xcover counted {n}, puzzlebatch {res.solutions} on {case}"
            row["xcover_cpu_s"] = cpu
            row["ratio_cpu"] = cpu / row["puzzlebatch_cpu_median_s"]
            row["ratio_wall"] = cpu / row["puzzlebatch_wall_median_s"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    print()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}, puzzlebatch {puzzlebatch.__version__}, backend {backend.name}")
    print(f"{'case':8} {'solutions':>10} {'distinct':>9} {'pb wall s':>10} {'pb cpu s':>9} {'xcover cpu s':>13} "
          f"{'ratio(wall)':>11}")
    for r in rows:
        print(f"{r['case']:8} {r['solutions']:>10} {r['distinct']:>9} {r['puzzlebatch_wall_median_s']:>10.3f} "
              f"{r['puzzlebatch_cpu_median_s']:>9.3f} {r.get('xcover_cpu_s', float('nan')):>13.2f} "
              f"{r.get('ratio_wall', float('nan')):>11.1f}")


if __name__ == "__main__":
    sys.exit(main())
