"""Large boards (issue 4): puzzlebatch against xcover (Knuth's dancing cells in numba), side by side.

    python bench/large.py                      # every section with the default sizes
    python bench/large.py --sections strips    # strips | bands | cuts | bigcuts
    python bench/large.py --timeout 60         # seconds allowed to each xcover run (killed after)

* strips: exact tiling counts of long strips with unlimited pieces (transfer matrix, both exact methods), each
  checked (dominoes against Kasteleyn's formula; CRT against big integers); xcover side by side on a strip small
  enough for it to enumerate every tiling.
* bands: one tiling of an N x N square with unlimited pentominoes (validated), xcover's first solution beside it.
* cuts: random cuts into 4..6-cell pieces solved back (each piece once), the cut search (scan order, most
  constrained cell, local randomised restarts; :mod:`puzzlebatch.runners.polyomino_cutsolve`) against xcover's first
  solution (pieces as primary items), median of several cuts per size; xcover is not run where its matrix would
  hold more than ~3 M options (it builds every placement of every piece).
* bigcuts: the document's 55x121 and big squares, one cut each, solved back (not in the default sections).

Timings are wall seconds on whatever machine runs it; run both sides in the same run (the ratio survives load).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from puzzlebatch.puzzles.polyomino import cut as K  # noqa: E402
from puzzlebatch.puzzles.polyomino import packing as P  # noqa: E402
from puzzlebatch.puzzles.polyomino import shapes as S  # noqa: E402
from puzzlebatch.puzzles.polyomino import strip as ST  # noqa: E402
from puzzlebatch.runners import polyomino_large as L  # noqa: E402
from puzzlebatch.runners.backend import select_backend  # noqa: E402


# -- xcover in a child process (killed at the timeout) ------------------------------------------------------------
def _xcover_child(options, primary, first, q):
    from xcover import covers

    covers([["a"]], primary=["a"]).__next__()  # compile outside the timing
    t0 = time.perf_counter()
    n = 0
    for _ in covers(options, primary=primary):
        n += 1
        if first:
            break
    q.put((n, time.perf_counter() - t0))


def xcover(options, primary, first: bool, timeout: float):
    """(count or 1/0 for first, seconds) or (None, timeout) when killed."""
    q = mp.Queue()
    p = mp.Process(target=_xcover_child, args=(options, primary, first, q))
    p.start()
    t0 = time.perf_counter()
    while p.is_alive() and time.perf_counter() - t0 < timeout + 30:  # + its compile
        try:
            return q.get(timeout=0.5)
        except Exception:
            pass
        if time.perf_counter() - t0 > timeout + 30:
            break
    if p.is_alive():
        p.terminate()
    p.join()
    if not q.empty():
        return q.get()
    return None, timeout


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


def bands(cpu, timeout, sizes):
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
        if n <= 60:
            got, t_x = xcover(*packing_options(P.parse_board(f"{n}x{n}"), pieces, False), first=True,
                              timeout=timeout)
            line += f"; xcover first solution {'%.2f s' % t_x if got else 'none in %d s' % timeout}"
        print(line, flush=True)


def cuts(cpu, timeout, sizes, reps=3, max_options=3_000_000):
    print(f"\n== cuts: random cuts into 4..6-cell pieces solved back (each piece once); median of {reps} cuts ==")
    from puzzlebatch.runners import polyomino_cutsolve as CS

    warm = K.random_cut(P.parse_board("8x8").playable, 4, 6, seed=0)  # compile outside the timing
    CS.solve_pieces(P.parse_board("8x8"), warm.piece_objects(), cpu)
    print(f"{'board':>8} {'pieces':>6} {'ours s (median)':>16} {'xcover s (median)':>18} {'ratio':>7}  per cut")
    for n in sizes:
        board = P.parse_board(f"{n}x{n}")
        ours, theirs, lines = [], [], []
        for rep in range(reps):
            cut = K.random_cut(board.playable, 4, 6, seed=1000 * n + rep)
            pieces = cut.piece_objects()
            r = CS.solve_pieces(board, pieces, cpu, seed=rep, time_limit=600)
            assert r.solved and r.validated
            ours.append(r.seconds)
            n_opts = len(pieces) * 8 * n * n  # about how many options xcover's matrix would hold
            if n_opts <= max_options:
                got, t_x = xcover(*cut_options(board, pieces), first=True, timeout=timeout)
                theirs.append(t_x if got else float("inf"))
                lines.append(f"{r.seconds:.3f}/{'%.2f' % t_x if got else '>%d' % timeout}")
            else:
                lines.append(f"{r.seconds:.3f}/-")
        mo = statistics.median(ours)
        if theirs:
            mx = statistics.median(theirs)
            ratio = f"{mx / mo:.1f}x" if mx != float("inf") else "inf"
            xs = f"{mx:.3f}" if mx != float("inf") else f">{timeout:.0f}"
        else:
            ratio, xs = "-", f"not run (~{len(pieces) * 8 * n * n / 1e6:.0f} M options)"
        print(f"{n}x{n:<5} {len(pieces):>6} {mo:>16.3f} {xs:>18} {ratio:>7}  {' '.join(lines)}", flush=True)


def big_cuts(cpu, specs):
    print("\n== big cuts: one cut each (4..6 cells), solved back, validated ==")
    from puzzlebatch.runners import polyomino_cutsolve as CS

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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sections", nargs="+", default=["strips", "bands", "cuts"])
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--band-sizes", type=int, nargs="+", default=[20, 40, 60, 100, 200, 400])
    ap.add_argument("--cut-sizes", type=int, nargs="+", default=[16, 24, 32, 48, 64])
    ap.add_argument("--cut-reps", type=int, default=3, help="cuts per size (median)")
    ap.add_argument("--big-cuts", nargs="+", default=["55x121", "100x100", "200x200"])
    args = ap.parse_args(argv)
    cpu = select_backend("cpu")
    print(f"machine: {cpu.device}")
    if "strips" in args.sections:
        strips(cpu, args.timeout)
    if "bands" in args.sections:
        bands(cpu, args.timeout, args.band_sizes)
    if "cuts" in args.sections:
        cuts(cpu, args.timeout, args.cut_sizes, args.cut_reps)
    if "bigcuts" in args.sections:
        big_cuts(cpu, args.big_cuts)


if __name__ == "__main__":
    main()
