"""Large boards: puzzlebatch against xcover, OR-Tools CP-SAT and the `polyomino` package, side by side.

    python bench/large.py                      # every section with the default sizes
    python bench/large.py --sections strips    # graphs | strips | bands | cuts | bigcuts | gencuts | regions
    python bench/large.py --timeout 60         # seconds allowed to each peer's run (killed after)
    python bench/large.py --peers xcover ortools polyomino   # which peers run in bands and cuts (all by default)

Peers (each in a child process, warmed up outside its timing, killed when it overruns): xcover (Knuth's dancing
cells in numba, first solution); OR-Tools CP-SAT (one Bool per placement, each cell / piece exactly once, first
feasible solution, ``--ortools-workers`` workers, model building timed); the PyPI ``polyomino`` package (dense 0/1
matrix and a C exact-cover solver, first solution, matrix building timed; not run where its matrix would exceed
~2e8 entries).

* graphs: the profile graph of a strip built from whole NumPy arrays beside the plain-Python walk it replaced, on
  seven strips (three refused for too many profiles: the time a refusal takes). Not in the default sections.
* strips: exact tiling counts of long strips with unlimited pieces (transfer matrix, both exact methods), each
  checked (dominoes against Kasteleyn's formula; CRT against big integers); xcover side by side on a strip small
  enough for it to enumerate every tiling.
* bands: one tiling of an N x N square with unlimited pentominoes (validated), the peers' first solutions beside it.
* cuts: random cuts into 4..6-cell pieces solved back (each piece once), the cut search (scan order, most
  constrained cell, local randomised restarts; :mod:`puzzlebatch.runners.polyomino.cutsolve`) against the peers' first
  solution (pieces as primary items), median of several cuts per size; xcover is not run where its matrix would
  hold more than ~3 M options (it builds every placement of every piece).
* bigcuts: the document's 55x121 and big squares, one cut each, solved back (not in the default sections).
* gencuts: the compiled cut generator on 400x400 and 1000x1000, seeds 1..3, the piece file and HDF5 streamed out
  (not in the default sections).
* regions: cuts of 400x400 and 1000x1000 (seeds 1..3) solved back region by region
  (:mod:`puzzlebatch.runners.polyomino.regions`), validated, each in a fresh process (its peak memory);
  ``--scheduler local:1`` / ``local:2`` runs the regions on a Dask cluster (not in the default sections).

Timings are wall seconds on whatever machine runs it; run both sides in the same run (the ratio survives load).
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing as mp
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from puzzlebatch.errors import PuzzleInputError  # noqa: E402
from puzzlebatch.puzzles.polyomino import cut as K  # noqa: E402
from puzzlebatch.puzzles.polyomino import packing as P  # noqa: E402
from puzzlebatch.puzzles.polyomino import shapes as S  # noqa: E402
from puzzlebatch.puzzles.polyomino import strip as ST  # noqa: E402
from puzzlebatch.runners.polyomino import large as L  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402


# -- peers, each in a child process (killed at the timeout) ------------------------------------------------------
# A child gets its arguments and a queue; it warms up (imports, compiles) outside its timing and puts
# (solutions found: a count, or 1/0 for a first solution; seconds).  ``run_child`` kills it when it has not
# answered within the timeout plus a grace for that warm-up.
def _xcover_child(options, primary, first, timeout, q):
    from xcover import covers

    covers([["a"]], primary=["a"]).__next__()  # compile outside the timing
    t0 = time.perf_counter()
    n = 0
    for _ in covers(options, primary=primary):
        n += 1
        if first:
            break
    q.put((n, time.perf_counter() - t0))


def _ortools_child(options, primary, first, timeout, q, workers=1):
    """CP-SAT: one Bool per option, each primary item covered exactly once (others at most once); the first
    feasible solution (no objective), stopped at the timeout.  Model building is inside the timing."""
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    m = cp_model.CpModel()
    x = [m.NewBoolVar("") for _ in options]
    by_item = {}
    for o, items in enumerate(options):
        for it in items:
            by_item.setdefault(it, []).append(x[o])
    prim = set(primary)
    for it in primary:
        m.AddExactlyOne(by_item.get(it, []))
    for it, xs in by_item.items():
        if it not in prim:
            m.AddAtMostOne(xs)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.max_time_in_seconds = max(1.0, timeout - (time.perf_counter() - t0))
    st = solver.Solve(m)
    t = time.perf_counter() - t0
    ok = st in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    if ok:  # validate: every primary item exactly once
        seen = [it for o, items in enumerate(options) if solver.BooleanValue(x[o]) for it in items]
        ok = len(set(seen)) == len(seen) and prim <= set(seen)
    q.put((1 if ok else 0, t))


def _polyomino_child(width, height, tiles, unlimited, reflections, first, timeout, q):
    """The PyPI ``polyomino`` package (dense 0/1 matrix, C exact-cover solver, first solution): ``tiles`` (cell
    lists) in any number or each exactly once on a width x height rectangle.  Matrix building is inside the
    timing."""
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [d for d in sys.path if d not in ("", ".", here)]  # bench/polyomino.py shadows the package
    sys.modules.pop("polyomino", None)
    from polyomino.board import Rectangle
    from polyomino.tileset import any_number_of, exactly

    t0 = time.perf_counter()
    ts = any_number_of(tiles) if unlimited else exactly(tiles)
    if reflections:
        ts = ts.with_reflections()
    sol = Rectangle(width, height).tile_with_set(ts).solve()
    t = time.perf_counter() - t0
    ok = sol is not None
    if ok:  # validate: the tiles cover the rectangle exactly
        cells = [tuple(c) for tile in sol.tiling for c in tile]
        ok = len(cells) == width * height == len(set(cells)) and all(
            0 <= a < width and 0 <= b < height for a, b in cells)
    q.put((1 if ok else 0, t))


def run_child(child, args, timeout: float, grace: float = 30):
    """Run ``child(*args, timeout, q)`` in a child process: (what it put) or (None, timeout) when it has not
    answered within ``timeout + grace`` (its imports / compile) and was killed."""
    q = mp.Queue()
    p = mp.Process(target=child, args=(*args, timeout, q))
    p.start()
    t0 = time.perf_counter()
    got = None
    while got is None and time.perf_counter() - t0 < timeout + grace:
        try:
            got = q.get(timeout=0.5)
        except Exception:
            if not p.is_alive() and q.empty():  # died without an answer (an error, out of memory)
                p.join()
                return f"failed (exit {p.exitcode})", None
    if p.is_alive():
        p.terminate()
    p.join()
    return got if got is not None else (None, timeout)


def xcover(options, primary, first: bool, timeout: float):
    """(count or 1/0 for first, seconds) or (None, timeout) when killed."""
    return run_child(_xcover_child, (options, primary, first), timeout)


def ortools(options, primary, timeout: float, workers: int = 1):
    """(1/0 for a first solution, seconds) or (None, timeout) when killed."""
    return run_child(functools.partial(_ortools_child, workers=workers), (options, primary, True), timeout)


def polyomino(n, pieces, unlimited: bool, timeout: float, max_entries: float = 2e8):
    """(1/0, seconds) or (None, timeout) when killed; ``"not run: ..."`` when the package cannot express the
    instance (mixed turns) or its dense matrix (options x (pieces + cells), int32) would exceed ``max_entries``."""
    turns = {p.turns for p in pieces}
    if turns not in ({"free"}, {"rotations"}):
        return "cannot express (mixed turns)", None
    tiles = [[tuple(int(v) for v in c) for c in sorted(p.cells)] for p in pieces]
    rows = sum(len(p.orientations()) for p in pieces) * n * n
    entries = rows * ((0 if unlimited else len(pieces)) + n * n)
    if entries > max_entries:
        return f"not run (dense matrix ~{entries / 1e9:.1f} G entries)", None
    return run_child(_polyomino_child, (n, n, tiles, unlimited, turns == {"free"}, True), timeout)


def fmt_peer(got, t, timeout):
    if isinstance(got, str):
        return got
    if got is None:
        return f"no solution within {timeout:.0f} s (killed)"
    return f"{t:.2f} s" if got else f"no solution within {timeout:.0f} s"


def packing_options(board, pieces, piece_items: bool):
    pk = P.build(board, pieces)
    opts = []
    for o, opt in enumerate(pk.cover.options):
        items = [f"c{i}" for i in opt]
        if piece_items:
            items.append(f"p{pk.cover.option_group[o]}")
        opts.append(items)
    primary = [f"c{i}" for i in range(pk.cover.n_items) if i not in set(pk.cover.precovered)]
    if piece_items:
        primary += [f"p{g}" for g in range(len(pieces))]
    return opts, primary


def cut_options(board, pieces):
    """xcover's matrix for a cut puzzle: one option per placement of each piece (its cells, and the piece as a
    primary item: each piece once); integer items (cells 0..n-1, pieces n..)."""
    cells = sorted(board.playable)
    index = {c: i for i, c in enumerate(cells)}
    n = len(cells)
    memo = {}
    opts = []
    for k, p in enumerate(pieces):
        if (p.cells, p.turns) not in memo:
            memo[(p.cells, p.turns)] = [sorted(o) for o in p.orientations()]
        for o in memo[(p.cells, p.turns)]:
            for (x0, y0) in cells:
                idx = []
                for dx, dy in o:
                    i = index.get((x0 + dx, y0 + dy))
                    if i is None:
                        break
                    idx.append(i)
                else:
                    opts.append(idx + [n + k])
    return opts, list(range(n + len(pieces)))


# -- sections -----------------------------------------------------------------------------------------------------
def strips(cpu, timeout):
    print("\n== strips: exact tiling counts (unlimited pieces) ==")
    print(f"{'board':>8} {'pieces':12} {'digits':>6} {'bigint s':>9} {'crt cpu s':>10} {'moduli':>6}  check")
    L.count_strip(S.load_pieces("dominoes", unlimited=True), 4, 4, cpu, "crt")  # compile the kernels first
    for name, w, h in [("dominoes", 10, 1000), ("L-trominoes", 8, 1000), ("L-trominoes", 9, 1000),
                       ("tetrominoes", 6, 1000), ("trominoes", 8, 1000), ("pentominoes", 5, 1000)]:
        pieces = S.load_pieces(name, unlimited=True)
        b = L.count_strip(pieces, w, h, cpu, "bigint")
        c = L.count_strip(pieces, w, h, cpu, "crt")
        check = "crt == bigint" if b.solutions == c.solutions else "MISMATCH"
        if name == "dominoes":
            check += ", == Kasteleyn" if ST.kasteleyn(w, h) == b.solutions else ", KASTELEYN MISMATCH"
        print(f"{w}x{h:<6} {name:12} {len(str(b.solutions)):>6} {b.seconds:>9.3f} {c.seconds:>10.3f} "
              f"{len(c.moduli):>6}  {check}")
    print("side by side with xcover enumerating every tiling (the only way it counts):")
    for name, w, h in [("dominoes", 6, 8), ("tetrominoes", 4, 10), ("L-trominoes", 6, 6)]:
        pieces = S.load_pieces(name, unlimited=True)
        t0 = time.perf_counter()
        ours = L.count_strip(pieces, w, h, cpu, "bigint").solutions
        t_ours = time.perf_counter() - t0
        n, t_x = xcover(*packing_options(P.parse_board(f"{w}x{h}"), pieces, False), first=False, timeout=timeout)
        ratio = f"{t_x / t_ours:.0f}x" if n is not None else f"> {timeout / t_ours:.0f}x (xcover killed)"
        print(f"  {w}x{h} {name}: {ours} tilings; puzzlebatch {t_ours:.4f} s, xcover "
              f"{'%.2f s' % t_x if n is not None else 'timeout %ds' % timeout} ({n}); ratio {ratio}")
        assert n is None or n == ours


def graphs(repeat=3):
    print("\n== graphs: the profile graph built from whole arrays against the plain-Python walk (median of "
          f"{repeat}) ==")
    print(f"{'strip':>6} {'pieces':12} {'profiles':>9} {'arrays s':>9} {'walk s':>9} {'ratio':>6}")
    for name, m, limit in [("dominoes", 18, ST.MAX_PROFILES), ("tetrominoes", 8, ST.MAX_PROFILES),
                           ("pentominoes", 6, ST.MAX_PROFILES), ("dominoes", 20, ST.MAX_PROFILES),
                           ("pentominoes", 10, ST.MAX_PROFILES), ("tetrominoes", 12, ST.MAX_PROFILES),
                           ("dominoes", 30, ST.MAX_PROFILES)]:
        pl = ST.anchored(S.load_pieces(name, unlimited=True))
        window = max(dx * m + dy for a in pl for dx, dy in a.cells) + 1
        times, sizes = {}, set()
        for build in (ST._profile_graph_arrays, ST._profile_graph_sets):
            runs = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                try:
                    sizes.add(build(pl, m, window, limit).n_states)
                except PuzzleInputError:
                    sizes.add("refused")
                runs.append(time.perf_counter() - t0)
            times[build] = statistics.median(runs)
        a, w = times[ST._profile_graph_arrays], times[ST._profile_graph_sets]
        got = sizes.pop() if len(sizes) == 1 else f"MISMATCH {sizes}"
        print(f"{m:>6} {name:12} {got:>9} {a:>9.2f} {w:>9.2f} {w / a:>5.1f}x", flush=True)


PEERS = ("xcover", "ortools", "polyomino")


def run_peer(name, options, primary, n, pieces, unlimited, timeout, workers=1):
    """One peer's first solution of an instance: (1/0 or None when killed or a 'not run' text, seconds)."""
    if name == "xcover":
        return xcover(options, primary, first=True, timeout=timeout)
    if name == "ortools":
        return ortools(options, primary, timeout, workers)
    return polyomino(n, pieces, unlimited, timeout)


def bands(cpu, timeout, sizes, peers=PEERS, workers=1):
    print("\n== bands: one tiling of N x N with unlimited pentominoes ==")
    pieces = S.load_pieces("pentominoes", unlimited=True)
    L.solve_bands(pieces, 10, 10)  # compile
    for n in sizes:
        runs = []
        for seed in range(3):
            t0 = time.perf_counter()
            r = L.solve_bands(pieces, n, n, seed=seed)
            L.validate_tiling(pieces, n, n, r.placements)
            runs.append(time.perf_counter() - t0)
        line = f"{n}x{n}: puzzlebatch median {statistics.median(runs):.3f} s over 3 seeds (validated)"
        if n <= 60 and peers:
            opts, primary = packing_options(P.parse_board(f"{n}x{n}"), pieces, False)
            for name in peers:
                got, t = run_peer(name, opts, primary, n, pieces, True, timeout, workers)
                line += f"; {name} first solution: {fmt_peer(got, t, timeout)}"
        print(line, flush=True)


def cuts(cpu, timeout, sizes, reps=3, max_options=3_000_000, peers=PEERS, workers=1):
    print(f"\n== cuts: random cuts into 4..6-cell pieces solved back (each piece once); median of {reps} cuts ==")
    from puzzlebatch.runners.polyomino import cutsolve as CS

    warm = K.random_cut(P.parse_board("8x8").playable, 4, 6, seed=0)  # compile outside the timing
    CS.solve_pieces(P.parse_board("8x8"), warm.piece_objects(), cpu)
    print(f"{'board':>8} {'pieces':>6} {'ours s (median)':>16} " + " ".join(f"{p + ' s (median)':>20}" for p in peers)
          + "  per cut (ours/" + "/".join(peers) + ")")
    for n in sizes:
        board = P.parse_board(f"{n}x{n}")
        ours, lines = [], []
        theirs = {p: [] for p in peers}
        for rep in range(reps):
            cut = K.random_cut(board.playable, 4, 6, seed=1000 * n + rep)
            pieces = cut.piece_objects()
            r = CS.solve_pieces(board, pieces, cpu, seed=rep, time_limit=600)
            assert r.solved and r.validated
            ours.append(r.seconds)
            n_opts = len(pieces) * 8 * n * n  # about how many options an exact-cover matrix would hold
            opts = primary = None
            parts = [f"{r.seconds:.3f}"]
            for name in peers:
                if name != "polyomino" and n_opts > max_options:
                    got, t = f"not run (~{n_opts / 1e6:.0f} M options)", None
                else:
                    if name != "polyomino" and opts is None:
                        opts, primary = cut_options(board, pieces)
                    got, t = run_peer(name, opts, primary, n, pieces, False, timeout, workers)
                if isinstance(got, str):
                    theirs[name].append(got)
                    parts.append("-")
                else:
                    theirs[name].append(t if got else float("inf"))
                    parts.append(f"{t:.2f}" if got else f">{timeout:.0f}")
            lines.append("/".join(parts))
        mo = statistics.median(ours)
        cols = []
        for name in peers:
            v = theirs[name]
            if any(isinstance(x, str) for x in v):
                cols.append(next(x for x in v if isinstance(x, str)))
                continue
            mx = statistics.median(v)
            cols.append(f"{mx:.3f} ({mx / mo:.1f}x)" if mx != float("inf") else f">{timeout:.0f} (inf)")
        print(f"{n}x{n:<5} {len(pieces):>6} {mo:>16.3f} " + " ".join(f"{c:>20}" for c in cols)
              + f"  {' '.join(lines)}", flush=True)


def big_cuts(cpu, specs):
    print("\n== big cuts: one cut each (4..6 cells), solved back, validated ==")
    from puzzlebatch.runners.polyomino import cutsolve as CS

    for spec in specs:
        board = P.parse_board(spec)
        t0 = time.perf_counter()
        cut = K.random_cut(board.playable, 4, 6, seed=board.size[0])
        t_cut = time.perf_counter() - t0
        pieces = cut.piece_objects()
        r = CS.solve_pieces(board, pieces, cpu, time_limit=600)
        print(f"{spec}: {len(pieces)} pieces, {r.classes} classes; cut {t_cut:.1f} s; solved back "
              f"{'and validated ' if r.validated else 'NOT '}in {r.seconds:.2f} s ({r.nodes} nodes, "
              f"{r.rounds} restart rounds)", flush=True)


def gen_cuts(specs, seeds=(1, 2, 3), sizes=(4, 6)):
    """Compiled cut generation (first attempt, every seed), piece file and HDF5 written, medians of the seeds."""
    import tempfile

    import numpy as np

    from puzzlebatch.runners.polyomino import bigcut as BC

    print(f"\n== cut generation: {sizes[0]}..{sizes[1]} cells, seeds {list(seeds)}, compiled, streamed out ==")
    BC.cut_mask(np.ones((8, 8), bool), *sizes, seed=0)  # compile outside the timing
    with tempfile.TemporaryDirectory() as tmp:
        for spec in specs:
            w, h = (int(v) for v in spec.split("x"))
            cut_s, write_s, pieces = [], [], []
            for seed in seeds:
                t0 = time.perf_counter()
                cut = BC.cut_mask(np.ones((h, w), bool), *sizes, seed=seed)
                t1 = time.perf_counter()
                BC.write_text(cut, Path(tmp) / "p.txt")
                BC.write_hdf5(cut, Path(tmp) / "c.h5")
                cut_s.append(t1 - t0)
                write_s.append(time.perf_counter() - t1)
                pieces.append(cut.n_pieces)
            print(f"{spec}: pieces {pieces}; cut {[round(t, 2) for t in cut_s]} s (median "
                  f"{statistics.median(cut_s):.2f} s); text + HDF5 written in median "
                  f"{statistics.median(write_s):.2f} s", flush=True)


def _regions_child(w, h, seed, region, scheduler, q):
    """One cut solved back region by region in a fresh process: (pieces, solve s, validate s, boxes, repairs,
    peak MiB).  Warmed up (compiled, a small board solved) outside the timing."""
    import resource

    import numpy as np

    from puzzlebatch.runners.engine.distributed import open_pool
    from puzzlebatch.runners.polyomino import bigcut as BC
    from puzzlebatch.runners.polyomino import regions as RG

    cpu = select_backend("cpu")

    def puzzle(w, h, seed):
        cut = BC.cut_mask(np.ones((h, w), bool), 4, 6, seed)
        return K.Cut((w, h), [cut.piece_cells(p) for p in range(cut.n_pieces)]).piece_objects()

    RG.solve_regions(np.ones((40, 40), bool), puzzle(40, 40, 0), cpu, region=20)  # compile outside the timing
    pieces = puzzle(w, h, seed)
    pool = open_pool(scheduler, "cpu", 20.0) if scheduler else None
    if pool is not None:  # warm the workers (each compiles or loads the rules) outside the timing
        RG.solve_regions(np.ones((80, 80), bool), puzzle(80, 80, 0), cpu, region=20, pool=pool)
        pool.work = pool.summary()
    mask = np.ones((h, w), bool)
    t0 = time.perf_counter()
    r = RG.solve_regions(mask, pieces, cpu, seed=seed, region=region, pool=pool)
    t1 = time.perf_counter()
    ok = r.solved
    if ok:
        L.validate_tiling(pieces, w, h, RG.placements_of(r.labels), mask)
    t2 = time.perf_counter()
    if pool is not None:
        pool.close()
    q.put((len(pieces), t1 - t0, t2 - t1, r.boxes, r.repairs, ok,
           resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def region_cuts(specs, seeds=(1, 2, 3), region=100, scheduler=None):
    """Cuts solved back region by region (every core, or a Dask cluster), validated; medians of the seeds."""
    import os

    ctx = mp.get_context("spawn")
    print(f"\n== random cuts (4..6) solved back in regions of {region}, seeds {list(seeds)}, "
          f"{scheduler or 'this process, every core'}; load {os.getloadavg()[0]:.1f} ==", flush=True)
    for spec in specs:
        w, h = (int(v) for v in spec.split("x"))
        rows = []
        for seed in seeds:
            q = ctx.Queue()
            p = ctx.Process(target=_regions_child, args=(w, h, seed, region, scheduler, q))
            p.start()
            got = q.get()
            p.join()
            rows.append(got)
            print(f"  {spec} seed {seed}: {got[0]} pieces, {got[3]} regions, {got[4]} repairs, "
                  f"{'solved' if got[5] else 'NOT solved'} in {got[1]:.1f} s, validated in {got[2]:.1f} s, "
                  f"peak {got[6]:.0f} MiB (load {os.getloadavg()[0]:.1f})", flush=True)
        tot = [r[1] + r[2] for r in rows]
        print(f"{spec}: solve + validate median {statistics.median(tot):.1f} s "
              f"({[round(t, 1) for t in tot]}), peak memory median {statistics.median([r[6] for r in rows]):.0f} "
              "MiB", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sections", nargs="+", default=["strips", "bands", "cuts"])
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--band-sizes", type=int, nargs="+", default=[20, 40, 60, 100, 200, 400])
    ap.add_argument("--cut-sizes", type=int, nargs="+", default=[16, 24, 32, 48, 64])
    ap.add_argument("--cut-reps", type=int, default=3, help="cuts per size (median)")
    ap.add_argument("--peers", nargs="*", default=list(PEERS), choices=PEERS,
                    help="peers run side by side in bands and cuts (xcover also runs in strips)")
    ap.add_argument("--ortools-workers", type=int, default=1, help="CP-SAT num_workers")
    ap.add_argument("--big-cuts", nargs="+", default=["55x121", "100x100", "200x200"])
    ap.add_argument("--gen-cuts", nargs="+", default=["400x400", "1000x1000"], help="gencuts: boards to cut")
    ap.add_argument("--region-cuts", nargs="+", default=["400x400", "1000x1000"],
                    help="regions: boards solved back region by region")
    ap.add_argument("--region", type=int, default=100, help="regions: side of a region")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3], help="regions: the cuts' seeds")
    ap.add_argument("--scheduler", help="regions: a Dask cluster (local:N) instead of this process")
    args = ap.parse_args(argv)
    cpu = select_backend("cpu")
    print(f"machine: {cpu.device}")
    if "graphs" in args.sections:
        graphs()
    if "strips" in args.sections:
        strips(cpu, args.timeout)
    if "bands" in args.sections:
        bands(cpu, args.timeout, args.band_sizes, args.peers, args.ortools_workers)
    if "cuts" in args.sections:
        cuts(cpu, args.timeout, args.cut_sizes, args.cut_reps, peers=args.peers,
             workers=args.ortools_workers)
    if "bigcuts" in args.sections:
        big_cuts(cpu, args.big_cuts)
    if "gencuts" in args.sections:
        gen_cuts(args.gen_cuts)
    if "regions" in args.sections:
        region_cuts(args.region_cuts, args.seeds, args.region, args.scheduler)


if __name__ == "__main__":
    main()
