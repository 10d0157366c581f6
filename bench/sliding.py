"""Sliding puzzles: puzzlebatch against a peer, side by side in one process, plus our own targets.

Parts (``--part``, default ``all``):

``peer``
    Optimal solving with Manhattan distance: ours (IDA*, numba) against ``slidingpuzzle`` 0.1.5 (PyPI, pure
    Python + numpy; its ``search(board, "a*", heuristic=manhattan_distance)``) on the same boards: random 8-puzzles and
    an easy instance of Korf's 100.  Its own IDA* is not optimal (26 moves for the 24-move board
    ``4 1 5 2 0 7 6 3 8``, Manhattan; 27 for the 25-move ``8 0 1 2 7 6 5 3 4`` with its linear conflicts), so its
    A* is the peer; the count of its IDA* answers that are too long is printed too.  Both must return optimal
    lengths (checked against the data file or our
    BFS table); the ratio of median times is printed.  The strongest public C++ solver the issue names cannot be
    fetched on this machine (no network beyond package registries), so it is not run here.
``bfs``
    Whole 8-puzzle BFS (and 2x4) on the CPU backend.
``korf100``
    Korf's 100 fifteen-puzzle instances with the 6-6-3 databases (mirrored lookup), all at once on the CPU
    backend: total time including loading the databases (not building them), nodes, every length checked.
    ``--compress 0,1`` runs the full tables and the tables compressed by minimum over pairs side by side;
    ``--format byte,4bit`` the byte tables and the 4-bit ones (default ``auto``: the format ``solve`` reads, 4-bit
    for tables beyond the caches such as 7-8's); ``--load map,copy`` memory-mapped files and tables
    read into memory; ``--repeat N`` every variant N times, in turn.
    Marked slow: about 10 s here once the databases exist (building them takes about a minute, once).

``korf24``
    Korf & Felner's 50 twenty-four-puzzles, one at a time, with the 6-6-6-6 databases and their reflection
    (``--partition24``; built first only with ``--build``): the ``--korf24-count`` instances whose databases' value of
    the start is nearest the published optimum (``--korf24-order gap``: the fewest IDA* iterations; ``length``: the
    shortest optima), by batch IDA* on both cores (``--korf24-split`` items; 0 for the sequential IDA*), with the
    bound of each finished iteration: each instance's length against the published one, nodes, seconds and nodes
    per second; ``--korf24-max-nodes`` bounds each.  Hours; only run when asked.
``split``
    Batch IDA* for one board (the root split into ``--split-items`` work items, both cores) against the
    sequential IDA* on one core, Korf instances (``--split-instances``) one at a time with ``--partition``;
    ``--split-scheduler local:2`` also runs each on a Dask cluster (the same node count, checked).
``build``
    Build a partition's databases (``--build-partition``, ``--build-size``; default the 5x5's 6-6-6-6, about a
    quarter of an hour on 2 cores) into ``--cache-dir``: the estimate printed first, then the measured time, peak
    resident memory and bytes on disk.  Only run when asked.

Prints a table and one JSON line.  Run: ``PYTHONPATH=. python bench/sliding.py [--part ...]``
(install the peer with ``pip install --no-deps slidingpuzzle==0.1.5``: it pins an old numpy it does not need).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzlebatch.puzzles.sliding.model import Board, read_instances  # noqa: E402
from puzzlebatch.runners.sliding import solver as sliding  # noqa: E402
from puzzlebatch.runners.sliding import pdb as sliding_pdb  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402

DATA = ROOT / "puzzlebatch" / "data" / "sliding"


def peer_solve(board: Board, alg: str = "a*") -> tuple[int, float]:
    import slidingpuzzle as sp

    rows = [list(board.tiles[r * board.cols:(r + 1) * board.cols]) for r in range(board.rows)]
    b = sp.from_rows(*rows)
    t0 = time.perf_counter()
    res = sp.search(b, alg, heuristic=sp.manhattan_distance)
    return len(res.solution), time.perf_counter() - t0


def peer_goal_is_blank_last() -> bool:
    import slidingpuzzle as sp

    return list(np.asarray(sp.new_board(3, 3)).ravel()) == [1, 2, 3, 4, 5, 6, 7, 8, 0]


def part_peer(cpu, n8: int, korf_ids: list[int]) -> dict:
    rng = random.Random(2024)
    bfs_result, state = sliding.bfs(3, 3, "blank-last", cpu)
    boards = []
    while len(boards) < n8:
        t = list(range(9))
        rng.shuffle(t)
        b = Board(3, 3, tuple(t))
        if sliding.solvability(b, sliding.goal_board(3, 3, "blank-last"))[0]:
            boards.append(b)
    sliding.solve(boards[0], "blank-last", "manhattan", cpu)  # compile outside the timings
    rows = []
    peer_ida_too_long = 0
    for b in boards:
        t0 = time.perf_counter()
        ours = sliding.solve(b, "blank-last", "manhattan", cpu)
        t_ours = time.perf_counter() - t0
        theirs, t_theirs = peer_solve(b)
        truth = sliding.table_distance(state.packed, b, "blank-last")
        peer_ida_too_long += peer_solve(b, "ida*")[0] > truth
        assert ours.length == theirs == truth, (b, ours.length, theirs, truth)
        rows.append(("8-puzzle", b.text(), truth, ours.nodes, t_ours, t_theirs))
    korf = read_instances(DATA / "korf100.txt")
    for i in korf_ids:
        b, known = korf[i]
        # the peer's goal is blank-last: give it the blank-first instance seen from that goal
        from puzzlebatch.puzzles.sliding.model import to_blank_first

        b_last = to_blank_first(b, "blank-last")  # the same map is its own inverse up to relabelling
        assert sliding.solvability(b_last, sliding.goal_board(4, 4, "blank-last"))[0]
        t0 = time.perf_counter()
        ours = sliding.solve(b, "blank-first", "manhattan", cpu)
        t_ours = time.perf_counter() - t0
        theirs, t_theirs = peer_solve(b_last)
        assert ours.length == theirs == known, (i, ours.length, theirs, known)
        rows.append((f"korf100 #{i + 1}", b.text(), known, ours.nodes, t_ours, t_theirs))
    print(f"{'instance':<14} {'length':>6} {'our nodes':>10} {'ours s':>9} {'peer s':>9} {'ratio':>7}")
    for name, _, n, nodes, a, b in rows:
        print(f"{name:<14} {n:>6} {nodes:>10,} {a:>9.4f} {b:>9.3f} {b / a:>7.1f}")
    r8 = [r for r in rows if r[0] == "8-puzzle"]
    rk = [r for r in rows if r[0] != "8-puzzle"]
    out = {"8puzzle_median_ours_s": statistics.median(r[4] for r in r8),
           "8puzzle_median_peer_s": statistics.median(r[5] for r in r8),
           "8puzzle_n": len(r8), "peer_ida_star_too_long": peer_ida_too_long}
    out["8puzzle_ratio_of_medians"] = out["8puzzle_median_peer_s"] / out["8puzzle_median_ours_s"]
    if rk:
        out["korf_ids"] = [i + 1 for i in korf_ids]
        out["korf_median_ours_s"] = statistics.median(r[4] for r in rk)
        out["korf_median_peer_s"] = statistics.median(r[5] for r in rk)
        out["korf_ratio_of_medians"] = out["korf_median_peer_s"] / out["korf_median_ours_s"]
    print(f"8-puzzle: median ours {out['8puzzle_median_ours_s'] * 1e3:.2f} ms, peer "
          f"{out['8puzzle_median_peer_s'] * 1e3:.1f} ms, ratio {out['8puzzle_ratio_of_medians']:.0f}x; "
          f"the peer's IDA* was too long on {peer_ida_too_long}/{len(r8)}")
    if rk:
        print(f"Korf easy: median ours {out['korf_median_ours_s']:.3f} s, peer {out['korf_median_peer_s']:.1f} s, "
              f"ratio {out['korf_ratio_of_medians']:.0f}x")
    return out


def part_bfs(cpu) -> dict:
    sliding.bfs(2, 2, "blank-last", cpu)  # compile
    out = {}
    for rows, cols in ((3, 3), (2, 4)):
        t0 = time.perf_counter()
        r, _ = sliding.bfs(rows, cols, "blank-last", cpu)
        out[f"{rows}x{cols}"] = {"states": r.states, "max_depth": r.max_depth, "seconds": time.perf_counter() - t0}
        seconds = out[f'{rows}x{cols}']['seconds']
        print(f"bfs {rows}x{cols}: {r.states:,} states, max depth {r.max_depth}, {seconds:.2f} s")
    return out


def part_korf100(cpu, partition: str, cache: Path | None, compress: int = 0, packed: bool | None = None,
                 copy: bool = False) -> dict:
    folder = sliding_pdb.cache_dir(cache)
    t0 = time.perf_counter()
    missing = sliding_pdb.missing(4, 4, partition, folder)
    if missing:
        print(f"building {partition} databases (once) in {folder} ...", flush=True)
    sliding_pdb.ensure(4, 4, partition, cpu, folder)
    build_s = time.perf_counter() - t0 if missing else None
    korf = read_instances(DATA / "korf100.txt")
    boards = [b for b, _ in korf]
    # compile on a solved board first: the timing below is loading + searching
    def load():
        p = sliding_pdb.load(4, 4, partition, folder, packed=packed)
        p = p.compressed(compress) if compress else p
        return p.in_memory() if copy else p

    warm = load()  # the 4-bit files are written here the first time (not timed)
    sliding.solve_batch([Board(4, 4, tuple(range(16)))], "blank-first", "pdb", cpu, pdbs=warm)
    t0 = time.perf_counter()
    pdbs = load()
    pdbs.kernel_arrays()  # the compressed tables are made here: counted as loading
    t_load = time.perf_counter() - t0
    results = sliding.solve_batch(boards, "blank-first", "pdb", cpu, pdbs=pdbs)
    total = time.perf_counter() - t0
    wrong = [i + 1 for i, (r, (_, n)) in enumerate(zip(results, korf)) if r.length != n]
    nodes = [r.nodes for r in results]
    info = pdbs.info()
    packed = pdbs.packed
    out = {"partition": partition, "compress": compress, "packed": packed, "copy": copy,
           "total_seconds_incl_load": total, "load_seconds": t_load, "search_seconds": total - t_load,
           "solved": len(results) - len(wrong), "wrong": wrong, "nodes_total": int(sum(nodes)),
           "nodes_mean": float(np.mean(nodes)), "nodes_max": int(max(nodes)), "build_seconds_this_run": build_s,
           "databases": [{k: p[k] for k in ("tiles", "entries", "bytes", "build_seconds", "build_backend")}
                         for p in info]}
    print(f"Korf 100 with {partition}" + (f" compressed by 2**{compress}" if compress else "")
          + (" (4-bit)" if packed else "") + (" (read into memory)" if copy else "") + f": "
          f"{out['solved']}/100 optimal, {total:.2f} s including {t_load:.3f} s loading; "
          f"{out['nodes_total']:,} nodes (mean {out['nodes_mean']:,.0f})")
    for p in out["databases"]:
        print(f"  tiles {p['tiles']}: {p['entries']:,} entries, {p['bytes'] / 1e6:.1f} MB, built in "
              f"{p['build_seconds']:.1f} s on {p['build_backend']}")
    return out


def part_build(cpu, partition: str, size: str, cache: Path | None) -> dict:
    """Build ``partition``'s missing tables for ``size`` (resuming partial ones); time, peak memory, disk."""
    rows, cols = (int(v) for v in size.lower().split("x"))
    folder = sliding_pdb.cache_dir(cache)
    name, pats = sliding_pdb.partition(rows, cols, partition)
    todo = sliding_pdb.missing(rows, cols, name, folder)
    est = sliding_pdb.estimate(rows, cols, todo)
    print(f"build {name} {size}: {len(todo)} of {len(pats)} tables to build in {folder}; estimate: {est.text()}",
          flush=True)
    t0 = time.perf_counter()

    def layer(p, depth, size_, seconds):
        print(f"  pattern {','.join(map(str, p))}: layer {depth}, {size_:,} new, {seconds:.0f} s", flush=True)

    pdbs = sliding_pdb.ensure(rows, cols, name, cpu, folder, progress=layer)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    disk = sum(f.stat().st_size for f in pdbs.files)
    print(f"built {name} {size} in {seconds:.0f} s (estimate {est.seconds:.0f} s), peak resident "
          f"{peak / 2**30:.2f} GiB, {disk / 2**20:.0f} MiB on disk")
    return {"partition": name, "size": size, "built": len(todo), "seconds": seconds, "estimate_seconds": est.seconds,
            "peak_rss_bytes": peak, "disk_bytes": disk}


class _RootBound(Exception):
    pass


def root_bound(board: Board, cpu, pdbs) -> int:
    """The heuristic value of ``board`` (the first batch IDA* bound), without searching past it."""
    from puzzlebatch.runners.sliding.split import solve_split

    def stop(it):
        raise _RootBound(it.bound)

    try:
        solve_split(board, "blank-first", "pdb", cpu, pdbs=pdbs, items=1, on_iteration=stop)
    except _RootBound as got:
        return int(got.args[0])
    raise AssertionError("no iteration ran")


def part_korf24(cpu, partition: str, cache: Path | None, count: int, build: bool = False,
                max_nodes: int | None = None, order_by: str = "gap", split_items: int = 0,
                only: list[int] | None = None, projected_cap: float | None = None,
                skip: list[int] | None = None, scheduler: str | None = None) -> dict:
    """``count`` instances of korf24_50.txt, one at a time (slow): those with the smallest gap between the
    published optimum and the databases' value of the start (``order_by="gap"``: the fewest IDA* iterations) or the
    shortest optima (``"length"``); ``only``: these 0-based instances.  ``split_items`` > 0 runs the batch IDA*
    (the root split into that many work items, both cores); 0 the sequential IDA* (one core).  ``projected_cap``:
    give an instance up when its next iteration would take more nodes than this (the last iteration's growth
    taken again), so that a long list is screened in bounded time.  ``scheduler``: solve each solved instance again
    on that Dask cluster (batch IDA*) and check the same path and node count."""
    from puzzlebatch.runners.sliding.split import solve_split

    folder = sliding_pdb.cache_dir(cache)
    absent = sliding_pdb.missing(5, 5, partition, folder)
    if absent and not build:
        raise SystemExit(f"korf24: the {partition} databases are not built in {folder} "
                         f"({sliding_pdb.estimate(5, 5, absent).text()}); run --part build first, or add --build")
    sliding_pdb.ensure(5, 5, partition, cpu, folder)
    korf = read_instances(DATA / "korf24_50.txt")
    pdbs = sliding_pdb.load(5, 5, partition, folder)
    sliding.solve_batch([Board(5, 5, tuple(range(25)))], "blank-first", "pdb", cpu, pdbs=pdbs)  # compile
    h0 = {i: root_bound(korf[i][0], cpu, pdbs) for i in range(len(korf))}
    pool = [i for i in range(len(korf)) if i not in set(skip or ())]
    if only:
        order = list(only)
    elif order_by == "gap":
        order = sorted(pool, key=lambda i: (korf[i][1] - h0[i], korf[i][1], i))[:count]
    else:
        order = sorted(pool, key=lambda i: (korf[i][1], i))[:count]
    print("korf24: start values (published - heuristic): " + ", ".join(
        f"#{i + 1} {korf[i][1]}-{h0[i]}={korf[i][1] - h0[i]}" for i in order), flush=True)
    out = {"partition": partition, "order": order_by, "split_items": split_items, "instances": []}
    t0 = time.perf_counter()
    for i in order:  # one at a time: per-instance times
        b, known = korf[i]

        seen = []

        def say(it, i=i, seen=seen):
            print(f"  #{i + 1}: bound {it.bound} done, {it.nodes:,} nodes, {it.seconds:.1f} s", flush=True)
            seen.append(it.nodes)
            if projected_cap and len(seen) >= 2 and not it.solved:
                last, before = seen[-1] - seen[-2], seen[-2] - (seen[-3] if len(seen) >= 3 else 0)
                projected = last * last / max(before, 1)
                if projected > projected_cap:
                    raise sliding.NodeLimit(f"the next iteration would take about {projected:,.0f} nodes")
        try:
            if split_items:
                r = solve_split(b, "blank-first", "pdb", cpu, pdbs=pdbs, items=split_items, max_nodes=max_nodes,
                                on_iteration=say)
            else:
                r = sliding.solve(b, "blank-first", "pdb", cpu, pdbs=pdbs, max_nodes=max_nodes)
        except sliding.NodeLimit as stop:
            out["instances"].append({"instance": i + 1, "published": known, "h0": h0[i], "solved": False,
                                     "nodes": seen[-1] if seen else max_nodes, "why": str(stop)})
            print(f"korf24 #{i + 1}: given up (published {known}): {stop}", flush=True)
            continue
        row = {"instance": i + 1, "length": r.length, "published": known, "h0": h0[i], "nodes": r.nodes,
               "seconds": r.seconds, "nodes_per_second": r.nodes / max(r.seconds, 1e-9), "solved": True}
        out["instances"].append(row)
        print(f"korf24 #{i + 1}: {r.length} moves (published {known}), {r.nodes:,} nodes, {r.seconds:.1f} s, "
              f"{row['nodes_per_second']:,.0f} nodes/s", flush=True)
        assert r.length == known
        if scheduler and split_items:
            from puzzlebatch.runners.engine.distributed import open_pool

            with open_pool(scheduler, "cpu") as pool:
                t0 = time.perf_counter()
                dk = solve_split(b, "blank-first", "pdb", cpu, pdbs=pdbs, items=split_items, pool=pool)
                row |= {"dask_nodes": dk.nodes, "dask_seconds": time.perf_counter() - t0}
            assert (dk.length, dk.moves, dk.nodes) == (r.length, r.moves, r.nodes), (i, dk.nodes, r.nodes)
            print(f"  on {scheduler}: {dk.nodes:,} nodes, the same path, {row['dask_seconds']:.1f} s "
                  "(the workers' compile and table loading included)", flush=True)
    out["total_seconds"] = time.perf_counter() - t0
    return out


def part_split(cpu, partition: str, cache: Path | None, ids: list[int], items: int,
               scheduler: str | None = None) -> dict:
    """Batch IDA* (the root split into work items, both cores on one board) against the sequential IDA* (one
    core), the same Korf instances one at a time, side by side: lengths, nodes, seconds.  With ``scheduler``
    (``local:2``), each instance also on that Dask cluster: its node count must equal the embedded run's."""
    from puzzlebatch.runners.sliding import split as split_search

    folder = sliding_pdb.cache_dir(cache)
    pdbs = sliding_pdb.ensure(4, 4, partition, cpu, folder)
    korf = read_instances(DATA / "korf100.txt")
    warm = Board(4, 4, (1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
    sliding.solve(warm, "blank-first", "pdb", cpu, pdbs=pdbs)  # compile both outside the timings
    split_search.solve_split(warm, "blank-first", "pdb", cpu, pdbs=pdbs)
    pool = None
    if scheduler:
        from puzzlebatch.runners.engine.distributed import open_pool

        pool = open_pool(scheduler, "cpu")
        split_search.solve_split(warm, "blank-first", "pdb", cpu, pdbs=pdbs, pool=pool)  # the workers compile
    rows = []
    for i in ids:
        b, known = korf[i]
        t0 = time.perf_counter()
        a = sliding.solve(b, "blank-first", "pdb", cpu, pdbs=pdbs)
        ta = time.perf_counter() - t0
        t0 = time.perf_counter()
        c = split_search.solve_split(b, "blank-first", "pdb", cpu, pdbs=pdbs, items=items)
        tc = time.perf_counter() - t0
        assert a.length == c.length == known, (i, a.length, c.length, known)
        rows.append({"instance": i + 1, "length": known, "seq_nodes": a.nodes, "split_nodes": c.nodes,
                     "seq_s": ta, "split_s": tc})
        print(f"korf #{i + 1}: {known} moves; sequential {a.nodes:,} nodes {ta:.3f} s; split {c.nodes:,} nodes "
              f"{tc:.3f} s", flush=True)
        if pool is not None:
            t0 = time.perf_counter()
            dk = split_search.solve_split(b, "blank-first", "pdb", cpu, pdbs=pdbs, items=items, pool=pool)
            rows[-1] |= {"dask_nodes": dk.nodes, "dask_s": time.perf_counter() - t0}
            assert (dk.length, dk.moves, dk.nodes) == (c.length, c.moves, c.nodes), (i, dk.nodes, c.nodes)
            print(f"  on {scheduler}: {dk.nodes:,} nodes (the same), {rows[-1]['dask_s']:.2f} s", flush=True)
    if pool is not None:
        pool.close()
    seq, spl = sum(r["seq_s"] for r in rows), sum(r["split_s"] for r in rows)
    print(f"total: sequential {seq:.2f} s, split {spl:.2f} s, ratio {seq / spl:.2f}; nodes "
          f"{sum(r['seq_nodes'] for r in rows):,} / {sum(r['split_nodes'] for r in rows):,}")
    return {"partition": partition, "items": items, "instances": rows, "seq_seconds": seq, "split_seconds": spl}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=["all", "peer", "bfs", "korf100", "korf24", "build", "split"], default="all",
                    help="all = peer, bfs and korf100; korf24 and build (hours) only when asked")
    ap.add_argument("--korf24-count", type=int, default=10)
    ap.add_argument("--korf24-max-nodes", type=int, help="give up on an instance after this many nodes")
    ap.add_argument("--korf24-order", choices=["gap", "length"], default="gap",
                    help="korf24: the instances whose start value is nearest the optimum first, or the shortest")
    ap.add_argument("--korf24-split", type=int, default=1024,
                    help="korf24: batch IDA* work items on both cores (0: the sequential IDA*, one core)")
    ap.add_argument("--korf24-instances", default="", help="korf24: these 1-based instances instead")
    ap.add_argument("--korf24-skip", default="", help="korf24: leave out these 1-based instances")
    ap.add_argument("--korf24-next-cap", type=float,
                    help="korf24: give an instance up when its next iteration would pass this many nodes")
    ap.add_argument("--partition24", default="6-6-6-6")
    ap.add_argument("--build", action="store_true", help="korf24: build missing databases first")
    ap.add_argument("--build-partition", default="6-6-6-6")
    ap.add_argument("--build-size", default="5x5")
    ap.add_argument("--n8", type=int, default=20, help="random 8-puzzles for the peer comparison")
    ap.add_argument("--korf", default="55", help="1-based Korf instances for the peer comparison ('' for none)")
    ap.add_argument("--partition", default="6-6-3")
    ap.add_argument("--compress", default="0", help="korf100: table compressions to run side by side, e.g. 0,1 "
                    "(entries merged by 2**c, the least kept)")
    ap.add_argument("--format", default="auto", help="korf100: table formats side by side, auto (what solve "
                    "reads: 4-bit for 7-8), byte and/or 4bit (e.g. byte,4bit)")
    ap.add_argument("--load", default="map", help="korf100: map (memory-mapped files) and/or copy (read into "
                    "memory, huge pages where the system gives them), side by side")
    ap.add_argument("--repeat", type=int, default=1, help="korf100: run every variant this many times, in turn")
    ap.add_argument("--split-instances", default="1,2,3,4,5,6,7,8,9,10", help="split: 1-based Korf instances")
    ap.add_argument("--split-items", type=int, default=256, help="split: work items at least")
    ap.add_argument("--split-scheduler", help="split and korf24: also run each instance on this Dask cluster "
                    "(local:2)")
    ap.add_argument("--cache-dir")
    args = ap.parse_args()
    cpu = select_backend("cpu")
    doc = {"machine": cpu.device, "numba_threads": __import__("numba").get_num_threads(),
           "load_before": os.getloadavg()}
    if args.part in ("all", "bfs"):
        doc["bfs"] = part_bfs(cpu)
    if args.part in ("all", "peer"):
        ids = [int(x) - 1 for x in args.korf.split(",") if x.strip()]
        doc["peer"] = part_peer(cpu, args.n8, ids)
    if args.part in ("all", "korf100"):
        doc["korf100"] = [part_korf100(cpu, args.partition, args.cache_dir, int(c),
                                        {"auto": None, "byte": False, "4bit": True}[f], ld == "copy")
                          for _ in range(args.repeat) for c in args.compress.split(",")
                          for f in args.format.split(",") for ld in args.load.split(",")]
    if args.part == "korf24":
        doc["korf24"] = part_korf24(cpu, args.partition24, args.cache_dir, args.korf24_count, args.build,
                                    args.korf24_max_nodes, args.korf24_order, args.korf24_split,
                                    [int(x) - 1 for x in args.korf24_instances.split(",") if x.strip()],
                                    args.korf24_next_cap,
                                    [int(x) - 1 for x in args.korf24_skip.split(",") if x.strip()],
                                    args.split_scheduler)
    if args.part == "split":
        doc["split"] = part_split(cpu, args.partition, args.cache_dir,
                                  [int(x) - 1 for x in args.split_instances.split(",")], args.split_items,
                                  args.split_scheduler)
    if args.part == "build":
        doc["build"] = part_build(cpu, args.build_partition, args.build_size, args.cache_dir)
    doc["load_after"] = os.getloadavg()
    print(json.dumps(doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
