"""How the CUDA search's work cutting (frontier, batch, budget) sets each count's time, on one GPU.

    python bench/gpu_sweep.py [--cases polyomino-6x10 cubes snake] [--grid 18,17,16 14,13,16 ...]
                              [--repeat 2] [--limit 60] [--out sweep.json]

The CUDA defaults (:func:`puzzlebatch.runners.engine.search.default_settings`) were set before any GPU ran
them.  For each case of ``bench/gpu.py`` and each grid point ``F,B,U`` (powers of two: the frontier the host
expands the root to, the items per launch, the moves an item may apply per launch) this runs the count on
``cuda`` ``--repeat`` times after one untimed compiling run, checks that every point gives the same answer, and
reports the fastest time with the launches and the traffic.  A point that takes over ``--limit`` seconds stops
there (the answer is then not checked) and the case's other points go on.  ``--quick`` runs the tiny sizes, in
numba's simulator where there is no GPU (the times then say nothing about a GPU).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import gpu  # noqa: E402  (bench/gpu.py: the cases)

from puzzlebatch.runners.engine import search  # noqa: E402

DEFAULT_GRID = ["18,17,16", "20,19,16", "16,15,16", "14,13,16", "12,11,16", "16,15,12", "14,13,12", "12,11,12"]


class _Late(Exception):
    pass


def _with_settings(overrides: dict):
    """Make the CUDA default settings ``overrides`` (every module that asks :func:`default_settings`)."""
    import puzzlebatch.runners.cubes.solver as cubes_solver

    base = _with_settings.original

    def patched(backend):
        s = base(backend)
        return dataclasses.replace(s, **overrides) if backend.name in ("cuda", "cudasim") else s

    search.default_settings = patched
    cubes_solver.default_settings = patched


_with_settings.original = search.default_settings


def point(spec: str) -> dict:
    f, b, u = (int(x) for x in spec.split(","))
    return {"frontier_target": 1 << f, "batch_size": 1 << b, "budget": 1 << u}


def sweep(cases: list[str], grid: list[str], repeat: int, limit: float, quick: bool) -> dict:
    from puzzlebatch import transfers
    from puzzlebatch.runners.engine.backend import select_backend

    be = select_backend("cuda")

    def late(*_):
        raise _Late

    signal.signal(signal.SIGALRM, late)
    doc = {"device": gpu.device_description(), "quick": quick, "grid": grid, "cases": {}}
    for case in cases:
        fn = gpu.CASES[case]
        rows, answers = [], set()
        for spec in grid:
            _with_settings(point(spec))
            row = {"point": spec}
            try:
                signal.alarm(int(limit))
                t0 = time.perf_counter()
                fn(be, quick)  # compiles on the first point; the settings' first run otherwise
                first = time.perf_counter() - t0
                times = []
                for _ in range(repeat):
                    before = transfers.snapshot()
                    t0 = time.perf_counter()
                    answer, work = fn(be, quick)
                    times.append(time.perf_counter() - t0)
                    traffic = transfers.since(before)
                signal.alarm(0)
                answers.add(json.dumps(answer))
                row.update(first_s=first, best_s=min(times), answer=answer, **work, **traffic)
            except _Late:
                row.update(best_s=None, note=f"over {limit:g} s")
            finally:
                signal.alarm(0)
            rows.append(row)
            print(json.dumps({"case": case, **row}, default=str), flush=True)
        doc["cases"][case] = {"rows": rows, "agree": len(answers) <= 1}
        if len(answers) > 1:
            print(f"{case}: the grid points' answers differ: {sorted(answers)}", file=sys.stderr)
    _with_settings({})
    return doc


def table(doc: dict) -> str:
    out = [f"Device: {doc['device']['name']}" + ("; --quick sizes" if doc["quick"] else ""), "",
           "| case | frontier, batch, budget (log2) | best | launches | host → device | device → host |",
           "|---|---|---:|---:|---:|---:|"]
    for case, c in doc["cases"].items():
        for r in c["rows"]:
            if r["best_s"] is None:
                out.append(f"| {case} | {r['point']} | {r['note']} | | | |")
            else:
                out.append(f"| {case} | {r['point']} | {r['best_s']:.3f} s | {r.get('launches', 0)} | "
                           f"{r.get('h2d_bytes', 0):,} B | {r.get('d2h_bytes', 0):,} B |")
        if not c["agree"]:
            out.append(f"| {case} | **the answers differ** | | | | |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", choices=list(gpu.CASES),
                    default=["polyomino-6x10", "cubes", "snake", "polyomino-iq"])
    ap.add_argument("--grid", nargs="+", default=DEFAULT_GRID, help="log2 of frontier, batch, budget per point")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--limit", type=float, default=60.0, help="seconds a point may take, its runs together")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    for spec in args.grid:
        try:
            point(spec)
        except ValueError:
            ap.error(f"--grid: {spec!r} is not three integers F,B,U")
    doc = sweep(args.cases, args.grid, args.repeat, args.limit, args.quick)
    if args.out:
        args.out.write_text(json.dumps(doc, indent=2, default=str) + "\n")
    print(table(doc))
    return 0 if all(c["agree"] for c in doc["cases"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
