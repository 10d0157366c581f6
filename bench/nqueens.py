"""N-queens: the example user family (``examples/nqueens``) against a hand-written C bitboard solver.

Counts Q(15) and Q(16) (``--quick``: Q(12) and Q(13)) with

- ``C``: ``bench/peers/nqueens.c`` (the classic recursive bit trick with the left-half symmetry, OpenMP over the
  placements of rows 0-1), built by ``bench/peers/build_nqueens.sh`` into ``~/.cache/puzzlebatch-bench/nqueens``
  (``--peer`` or ``$NQUEENS_PEER`` for another binary; built on first use when missing).  Its seconds are its own
  wall time of the count;
- ``ours``: ``BatchDFS(pb_nqueens.problem(n, leaf=LEAF), cpu, settings).count()``, one row per ``--ours`` spec:
  ``defaults`` (the CPU's default settings and the rules' default leaf count, n-3), ``batch=K`` (K items per
  launch, like ``--batch-size K``: fewer, longer items), ``leaf=n-2`` (where the rules count the last rows from the
  masks), comma-joined (default: ``defaults``, ``batch=256``, ``batch=256,leaf=n-2``).  ``seconds`` is the work time
  (``puzzlebatch.jit.clock.work_clock`` around ``count()``), after a warm-up count of Q(10) in the same process,
  so compiling and loading compiled code are excluded;

each on one thread (``-t 1``, ``NUMBA_NUM_THREADS=1``) and on every core, every run in a fresh process, ``--repeat``
times in turn (the runs of one repeat interleaved, so that a busy machine slows each side alike).  Prints a
markdown table of the medians (with min and max), the ratio ours / C at the same thread count, and one JSON line.

    python bench/nqueens.py                 # Q(15), Q(16), 5 repeats
    python bench/nqueens.py --quick         # Q(12), Q(13)
    python bench/nqueens.py --sizes 14 --repeat 3 --threads 1 --ours defaults batch=64
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "nqueens"
PEER_DEFAULT = Path.home() / ".cache" / "puzzlebatch-bench" / "nqueens" / "nqueens"
A000170 = {1: 1, 2: 0, 3: 0, 4: 2, 5: 10, 6: 4, 7: 40, 8: 92, 9: 352, 10: 724, 11: 2680, 12: 14200, 13: 73712,
           14: 365596, 15: 2279184, 16: 14772512, 17: 95815104, 18: 666090624}


def parse_spec(spec: str) -> dict:
    """``defaults`` / ``batch=K`` / ``leaf=L`` / ``symmetry=off``, comma-joined -> child arguments."""
    out = {"batch": 0, "leaf": "n-3", "symmetry": True}
    for part in filter(None, spec.split(",")):
        key, _, value = part.partition("=")
        if key == "defaults" and not value:
            continue
        if key == "batch":
            out["batch"] = int(value)
        elif key == "leaf" and value in ("n-3", "n-2", "n-1", "none"):
            out["leaf"] = value
        elif key == "symmetry" and value in ("on", "off"):
            out["symmetry"] = value == "on"
        else:
            raise SystemExit(f"--ours {spec!r}: expected defaults, batch=K, leaf=n-3|n-2|n-1|none, symmetry=on|off")
    return out


def label(spec: str) -> str:
    a = parse_spec(spec)
    parts = [f"--batch-size {a['batch']}" if a["batch"] else "default settings", f"leaf {a['leaf']}"]
    if not a["symmetry"]:
        parts.append("no symmetry")
    return "ours, " + ", ".join(parts)


def child(n: int, batch_size: int, leaf: str, symmetry: bool) -> None:
    """One timed count in this process (after a warm-up), as a JSON line."""
    sys.path.insert(0, str(EXAMPLE))
    import numba
    from pb_nqueens import problem

    from puzzlebatch.jit.clock import compile_seconds, work_clock
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.search import BatchDFS, default_settings

    cpu = select_backend("cpu")
    settings = default_settings(cpu)
    if batch_size:
        settings.batch_size = batch_size
    t0 = time.perf_counter()
    BatchDFS(problem(10, symmetry, leaf), cpu, settings).count()  # compiles (or loads) the unit
    warm = time.perf_counter() - t0
    t0 = work_clock()
    totals, _ = BatchDFS(problem(n, symmetry, leaf), cpu, settings).count()
    seconds = work_clock() - t0
    print(json.dumps({"n": n, "count": totals.count, "nodes": totals.nodes, "batches": totals.batches,
                      "items": totals.items, "seconds": seconds, "warmup_s": warm, "compile_s": compile_seconds(),
                      "threads": numba.get_num_threads(), "batch_size": settings.batch_size,
                      "budget": settings.budget}))


def run_ours(n: int, threads: int, spec: str, timeout: float) -> dict:
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads))
    cmd = [sys.executable, __file__, "--child", str(n), "--child-spec", spec]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"ours n={n} t={threads} {spec}: exit {proc.returncode}: {proc.stderr.strip()[-600:]}")
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["threads"] == threads, got
    return got


def run_peer(binary: Path, n: int, threads: int, timeout: float) -> dict:
    proc = subprocess.run([str(binary), str(n), "-t", str(threads)], capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"C n={n} t={threads}: exit {proc.returncode}: {proc.stderr.strip()}")
    _, count, seconds, _ = proc.stdout.split()
    return {"n": n, "count": int(count), "seconds": float(seconds)}


def ensure_peer(path: Path) -> Path:
    if path.is_file() and os.access(path, os.X_OK):
        return path
    if path != PEER_DEFAULT:
        sys.exit(f"no C solver at {path}")
    print(f"building the C solver: bench/peers/build_nqueens.sh -> {path}", file=sys.stderr)
    subprocess.run(["bash", str(ROOT / "bench" / "peers" / "build_nqueens.sh")], check=True,
                   stdout=subprocess.DEVNULL)
    return path


def summary(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": values}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", help="board sizes (default 15 16; --quick: 12 13)")
    ap.add_argument("--quick", action="store_true", help="Q(12) and Q(13)")
    ap.add_argument("--repeat", type=int, default=5, help="runs of each (default 5)")
    ap.add_argument("--threads", type=int, nargs="+", help=f"thread counts (default 1 and {os.cpu_count()})")
    ap.add_argument("--ours", nargs="+", default=["defaults", "batch=256", "batch=256,leaf=n-2"],
                    help="our variants, one row each: defaults, batch=K, leaf=n-3|n-2|n-1|none, symmetry=off, "
                         "comma-joined (default: defaults batch=256 batch=256,leaf=n-2)")
    ap.add_argument("--peer", type=Path, default=Path(os.environ.get("NQUEENS_PEER") or PEER_DEFAULT),
                    help="the C solver (default $NQUEENS_PEER or ~/.cache/puzzlebatch-bench/nqueens/nqueens)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per run before giving up")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--child-spec", default="defaults", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        a = parse_spec(args.child_spec)
        child(args.child, a["batch"], a["leaf"], a["symmetry"])
        return
    for spec in args.ours:
        parse_spec(spec)

    sizes = args.sizes or ([12, 13] if args.quick else [15, 16])
    threads = args.threads or sorted({1, os.cpu_count() or 1})
    peer = ensure_peer(args.peer)
    variants = [("C", None)] + [("ours", spec) for spec in args.ours]

    def who(kind, spec):
        return "C" if kind == "C" else label(spec)

    runs: dict[tuple, list[dict]] = {}
    for n in sizes:
        for _ in range(args.repeat):
            for t in threads:
                for kind, spec in variants:
                    got = (run_peer(peer, n, t, args.timeout) if kind == "C" else
                           run_ours(n, t, spec, args.timeout))
                    if n in A000170 and got["count"] != A000170[n]:
                        raise SystemExit(f"{who(kind, spec)} counted Q({n}) = {got['count']}, OEIS A000170 says "
                                         f"{A000170[n]}")
                    runs.setdefault((n, t, kind, spec), []).append(got)
                    print(json.dumps({"n": n, "threads": t, "who": who(kind, spec), **got}), file=sys.stderr,
                          flush=True)

    import numba

    import puzzlebatch
    from puzzlebatch.runners.engine.backend import cpu_description

    rows = []
    for n in sizes:
        for t in threads:
            c = summary([r["seconds"] for r in runs[(n, t, "C", None)]])
            for kind, spec in variants:
                rs = runs[(n, t, kind, spec)]
                s = summary([r["seconds"] for r in rs])
                row = {"n": n, "count": rs[0]["count"], "threads": t, "who": who(kind, spec), "seconds": s,
                       "ratio_to_c": s["median"] / c["median"]}
                if kind == "ours":
                    row.update(nodes=rs[0]["nodes"], mnodes_per_s=rs[0]["nodes"] / s["median"] / 1e6,
                               batches=statistics.median(r["batches"] for r in rs),
                               items=statistics.median(r["items"] for r in rs), batch_size=rs[0]["batch_size"],
                               budget=rs[0]["budget"], spec=spec)
                rows.append(row)

    print(f"puzzlebatch {puzzlebatch.__version__}, numba {numba.__version__}, Python {platform.python_version()}, "
          f"{cpu_description()}; C: {peer}; {args.repeat} runs each, seconds = median (min-max), each in a fresh "
          f"process; ours / C: medians at the same thread count\n")
    print("| n | Q(n) | threads | solver | seconds | ours / C | nodes | Mnodes/s | items |")
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    for r in rows:
        s = r["seconds"]
        ours = "nodes" in r
        print(f"| {r['n']} | {r['count']:,} | {r['threads']} | {r['who']} | {s['median']:.3f} ({s['min']:.3f}-"
              f"{s['max']:.3f}) | {r['ratio_to_c']:.2f} | {r['nodes']:,} | {r['mnodes_per_s']:.1f} | "
              f"{int(r['items']):,} |" if ours else
              f"| {r['n']} | {r['count']:,} | {r['threads']} | {r['who']} | {s['median']:.3f} ({s['min']:.3f}-"
              f"{s['max']:.3f}) | 1.00 | | | |")
    print()
    print(json.dumps({"bench": "nqueens", "cpu": cpu_description(), "cores": os.cpu_count(), "repeat": args.repeat,
                      "rows": rows}))


if __name__ == "__main__":
    main()
