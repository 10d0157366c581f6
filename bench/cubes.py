"""Connector cubes: puzzlebatch against plain-Python peers, side by side in one run.

1. Exact search: one 3x3x3 assembly from the 27 cubes (puzzlebatch ``cubes solve``) vs a plain-Python DFS.
2. Counting: every assembly of 2x2x1 from the 27 cubes (puzzlebatch ``cubes count``); the plain-Python count is
   run on the 2x2x1 from the first 12 cubes (both sides, counts checked equal) unless ``--python-count-full``.
3. Genetic algorithms: puzzlebatch's GA engine (document's scheme by default) and the document's GA re-implemented
   in plain Python with a correct compatibility test, on 2x2x2 and 3x3x1 from ten seeds each, then on the larger
   3x3x2 and 3x3x3 from a few seeds, beside the exact search on the same figures; ours with the document's
   operators, with ``--grow --ruin 1``, and with the memetic repair as well.

    python bench/cubes.py [--repeat 5] [--seeds 10] [--python-count-full] [--ga-cap 20] [--only-ga]

Prints a table per section and one JSON line at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cubes_peers import document_ga, python_count, python_solve  # noqa: E402

import puzzlebatch  # noqa: E402
from puzzlebatch.runners.engine.ga import GAConfig  # noqa: E402
from puzzlebatch.puzzles.cubes import model  # noqa: E402
from puzzlebatch.runners.cubes import solver as rc  # noqa: E402
from puzzlebatch.runners.cubes import ga as cubes_ga  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402


def timed(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, statistics.median(times), min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--python-count-full", action="store_true")
    ap.add_argument("--ga-cap", type=float, default=20.0, help="seconds per document-GA run on large figures")
    ap.add_argument("--population", type=int, default=256)
    ap.add_argument("--only-ga", action="store_true", help="only the genetic algorithms (part 3)")
    ap.add_argument("--large-seeds", type=int, default=3, help="seeds on 3x3x2 and 3x3x3 (default 3)")
    args = ap.parse_args()
    backend = select_backend(args.backend)
    cubes = model.load_cubes()
    plain = {n: f.tolist() for n, f in zip(cubes.numbers, cubes.faces)}
    report = {"version": puzzlebatch.__version__, "backend": backend.name, "device": backend.device}

    t0 = time.perf_counter()
    rc.solve(model.box(2, 2, 1), cubes, backend)
    rc.count(model.box(2, 1, 1), cubes, backend)
    cubes_ga.run_ga(model.box(2, 2, 1), cubes, backend, GAConfig(population=8, generations=2), cubes_ga.Operators(), 0)
    report["compile_s"] = time.perf_counter() - t0
    print(f"puzzlebatch {puzzlebatch.__version__}, backend {backend.name} ({backend.device}), Python "
          f"{platform.python_version()}, {os.cpu_count()} cores; compilation {report['compile_s']:.1f} s", flush=True)

    if not args.only_ga:
        exact_parts(args, backend, cubes, plain, report)
    ga_part(args, backend, cubes, plain, report)
    print(json.dumps(report))


def exact_parts(args, backend, cubes, plain, report) -> None:
    # 1. exact solve
    cube333 = model.box(3, 3, 3)
    r, med, lo = timed(lambda: rc.solve(cube333, cubes, backend), args.repeat)
    assert r.solved
    t0 = time.perf_counter()
    py = python_solve([tuple(c) for c in cube333.cells.tolist()], plain)
    py_s = time.perf_counter() - t0
    assert py is not None
    report["solve_3x3x3"] = {"puzzlebatch_median_s": med, "puzzlebatch_min_s": lo, "nodes": r.nodes,
                             "python_s": py_s, "ratio": py_s / med}
    print(f"\n[1] one 3x3x3 assembly: puzzlebatch median {med * 1e3:.1f} ms (min {lo * 1e3:.1f} ms, {r.nodes} "
          f"nodes), plain-Python DFS {py_s:.3f} s, ratio {py_s / med:.1f}x", flush=True)

    # 2. count
    box221 = model.box(2, 2, 1)
    c, med, lo = timed(lambda: rc.count(box221, cubes, backend)[0], max(1, args.repeat // 2))
    report["count_2x2x1"] = {"assemblies": c.assemblies, "distinct": c.distinct, "puzzlebatch_median_s": med,
                             "puzzlebatch_min_s": lo, "nodes": c.nodes}
    print(f"\n[2] count 2x2x1 from 27 cubes: {c.assemblies} assemblies, {c.distinct} distinct; puzzlebatch median "
          f"{med:.3f} s (min {lo:.3f} s)", flush=True)
    sub_numbers = cubes.numbers if args.python_count_full else cubes.numbers[:12]
    sub = cubes.subset(sub_numbers)
    cs, med_s, _ = timed(lambda: rc.count(box221, sub, backend)[0], args.repeat)
    t0 = time.perf_counter()
    n = python_count([tuple(x) for x in box221.cells.tolist()], {k: plain[k] for k in sub_numbers})
    py_s = time.perf_counter() - t0
    assert n == cs.assemblies, (n, cs.assemblies)
    report["count_2x2x1_subset"] = {"cubes": len(sub_numbers), "assemblies": n, "puzzlebatch_median_s": med_s,
                                    "python_s": py_s, "ratio": py_s / med_s}
    print(f"    same count from {len(sub_numbers)} cubes: {n} assemblies; puzzlebatch {med_s * 1e3:.1f} ms, "
          f"plain-Python {py_s:.2f} s, ratio {py_s / med_s:.0f}x", flush=True)



def ga_part(args, backend, cubes, plain, report) -> None:
    # 3. GA
    print("\n[3] genetic algorithms (success / seeds, median generations or iterations, median seconds)")
    print("ours = puzzlebatch GA, document's scheme (defaults); ext = puzzlebatch GA with --grow --ruin 1 "
          "--mutation 0.5; mem = ext with the memetic repair (--repair 300, most constrained cell first), population "
          "64; doc = the document's GA in plain Python (corrected)")
    print(f"{'figure':7s} {'ours: ok':>8s} {'gen':>5s} {'s':>7s} {'eval/s':>9s} | {'ext: ok':>8s} {'gen':>5s} "
          f"{'s':>7s} | {'mem: ok':>8s} {'gen':>5s} {'s':>7s} | {'doc: ok':>8s} {'iter':>7s} {'s':>7s} | "
          f"{'exact solve s':>13s}")
    ga_rows = []
    plan = [((2, 2, 2), args.seeds), ((3, 3, 1), args.seeds), ((3, 3, 2), args.large_seeds),
            ((3, 3, 3), args.large_seeds)]
    memetic = cubes_ga.Operators(p_ruin=1.0, grow=True, repair=300, radius=7, mrv=True)
    for dims, n_seeds in plan:
        fig = model.box(*dims)
        ours, ext, mem, docs = [], [], [], []
        for seed in range(n_seeds):
            res, _ = cubes_ga.run_ga(fig, cubes, backend, GAConfig(population=args.population, generations=1000),
                                     cubes_ga.Operators(), seed)
            ours.append(res)
            res, _ = cubes_ga.run_ga(fig, cubes, backend, GAConfig(population=args.population, generations=1000,
                                                                   p_mutation=0.5),
                                     cubes_ga.Operators(p_ruin=1.0, grow=True), seed)
            ext.append(res)
            res, _ = cubes_ga.run_ga(fig, cubes, backend, GAConfig(population=64, generations=1000, p_mutation=0.5),
                                     memetic, seed)
            mem.append(res)
            docs.append(document_ga(dims, plain, seed, max_seconds=args.ga_cap))
        ex, ex_med, _ = timed(lambda: rc.solve(fig, cubes, backend), 3)  # noqa: B023 (called here)
        ok = [r for r in ours if r.success]
        eok = [r for r in ext if r.success]
        mok = [r for r in mem if r.success]
        dok = [d for d in docs if d[0]]
        row = {"figure": str(fig), "seeds": n_seeds, "ours_solved": len(ok),
               "ours_median_generations": statistics.median([r.generation for r in ok]) if ok else None,
               "ours_median_s": statistics.median([r.seconds for r in ok]) if ok else None,
               "ours_best_cubes_when_failed": [r.best_cubes for r in ours if not r.success],
               "ours_evals_per_s": statistics.median([r.evaluations_per_second for r in ours]),
               "ext_solved": len(eok),
               "ext_median_generations": statistics.median([r.generation for r in eok]) if eok else None,
               "ext_median_s": statistics.median([r.seconds for r in eok]) if eok else None,
               "ext_best_cubes_when_failed": [r.best_cubes for r in ext if not r.success],
               "mem_solved": len(mok),
               "mem_median_generations": statistics.median([r.generation for r in mok]) if mok else None,
               "mem_median_s": statistics.median([r.seconds for r in mok]) if mok else None,
               "mem_best_cubes_when_failed": [r.best_cubes for r in mem if not r.success],
               "doc_solved": len(dok),
               "doc_median_iterations": statistics.median([d[1] for d in dok]) if dok else None,
               "doc_median_s": statistics.median([d[2] for d in dok]) if dok else None,
               "exact_solve_median_s": ex_med}
        ga_rows.append(row)

        def f(v, fmt):
            return format(v, fmt) if v is not None else "-"

        print(f"{str(fig):7s} {len(ok):>4d}/{n_seeds:<3d} {f(row['ours_median_generations'], '5.0f')} "
              f"{f(row['ours_median_s'], '7.3f')} {row['ours_evals_per_s']:9.0f} | {len(eok):>4d}/{n_seeds:<3d} "
              f"{f(row['ext_median_generations'], '5.0f')} {f(row['ext_median_s'], '7.3f')} | "
              f"{len(mok):>4d}/{n_seeds:<3d} {f(row['mem_median_generations'], '5.0f')} "
              f"{f(row['mem_median_s'], '7.3f')} | "
              f"{len(dok):>4d}/{n_seeds:<3d} "
              f"{f(row['doc_median_iterations'], '7.0f')} {f(row['doc_median_s'], '7.3f')} | {ex_med:13.3f}",
              flush=True)
    report["ga"] = ga_rows


if __name__ == "__main__":
    main()
