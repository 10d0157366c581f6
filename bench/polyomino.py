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
from puzzlebatch.runners.polyomino import solver as RP
from puzzlebatch.runners.engine.backend import select_backend

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


def bench_levels(n: int, difficulty: int, backend) -> dict:
    """First solution of IQ Puzzler Pro levels (unique-solution levels made by ``levels generate``)."""
    pk = P.build(P.parse_board("11x5"), S.load_pieces("iq-puzzler-pro"))
    RP.warm_up(backend)
    levels = RP.generate_levels(pk, n, difficulty, seed=2026)
    times = []
    for lv in levels:
        board = P.Board(pk.board.size, pk.board.playable, {})
        for k, cells in lv.placed:
            board.placed.setdefault(pk.glyphs[k], []).append(frozenset(tuple(int(v) for v in c) for c in cells))
        level = P.build(board, pk.pieces)
        t0 = time.perf_counter()
        res = RP.solve_packing(level, backend)
        times.append(time.perf_counter() - t0)
        assert res.solved
    # the empty board too (the hardest "level": nothing placed)
    t0 = time.perf_counter()
    assert RP.solve_packing(pk, backend).solved
    empty = time.perf_counter() - t0
    return {"case": f"levels-d{difficulty}", "levels": n, "median_ms": 1000 * statistics.median(times),
            "max_ms": 1000 * max(times), "empty_board_ms": 1000 * empty}


def bench_heuristics(backend) -> list[dict]:
    """The IQ Puzzler Pro study's eight piece orderings: nodes and time to the first solution of the empty board
    and of 20 generated levels (difficulty 8), first-cell branching."""
    pk = P.build(P.parse_board("11x5"), S.load_pieces("iq-puzzler-pro"))
    RP.warm_up(backend)
    levels = []
    for lv in RP.generate_levels(pk, 20, 8, seed=7):
        board = P.Board(pk.board.size, pk.board.playable, {})
        for k, cells in lv.placed:
            board.placed.setdefault(pk.glyphs[k], []).append(frozenset(tuple(int(v) for v in c) for c in cells))
        levels.append(P.build(board, pk.pieces))
    rows = []
    for h in P.HEURISTICS:
        t0 = time.perf_counter()
        empty = RP.solve_packing(pk, backend, heuristic=h)
        t_empty = time.perf_counter() - t0
        nodes, times = [], []
        for level in levels:
            t0 = time.perf_counter()
            r = RP.solve_packing(level, backend, heuristic=h)
            times.append(time.perf_counter() - t0)
            nodes.append(r.nodes)
        rows.append({"heuristic": h, "empty_nodes": empty.nodes, "empty_ms": 1000 * t_empty,
                     "levels_median_nodes": statistics.median(nodes), "levels_median_ms": 1000 * statistics.median(times)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="*", default=["6x10", "soma"], choices=sorted(CASES))
    ap.add_argument("--repeat", type=int, help="puzzlebatch repetitions (default per case)")
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--levels", type=int, default=0, help="also time the first solution of N generated levels")
    ap.add_argument("--heuristics", action="store_true", help="also compare the eight piece orderings")
    args = ap.parse_args()
    backend = select_backend(args.backend)
    if args.heuristics:
        bench_heuristics(backend)
    if args.levels:
        for d in (4, 6, 8):
            print(json.dumps(bench_levels(args.levels, d, backend)), flush=True)
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
