"""Start-up cost of a command: whole-process wall time, cold (empty compile cache) and warm (second process).

Runs each command of the list below as a user would (``python -m puzzlebatch ...`` in a fresh process), checks its
answer, and reports the wall time of the whole process (Python start and imports included) and the compile time it
reports.  With ``--base REV`` the same commands run first on that revision of the repository (checked out in a
temporary git worktree, imported through ``PYTHONPATH``), side by side in the same run: the "before".

    python bench/startup.py                        # this tree: cold, then warm (median of --repeat)
    python bench/startup.py --base 92ebe6d         # and the revision before the disk cache, side by side
    python bench/startup.py --suite --base 92ebe6d # also the README's test command, cold, on both

Prints a table and one JSON line.  Timings are wall times on whatever else the machine is doing: note the load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # Korf's first instance: 57 moves

# (name, argv after `puzzlebatch`, check(doc) -> bool)
COMMANDS = [
    ("snake solve", ["snake", "solve", "--json"], lambda d: d.get("solved") is True or bool(d.get("cells"))),
    ("polyomino solve 11x5 iq-puzzler-pro", ["polyomino", "solve", "--board", "11x5", "--pieces", "iq-puzzler-pro",
                                             "--json"], lambda d: d["solved"] is True),
    ("polyomino count 6x10 pentominoes", ["polyomino", "count", "--board", "6x10", "--pieces", "pentominoes",
                                          "--json"], lambda d: d["distinct"] == 2339),
    ("cubes solve 3x3x3", ["cubes", "solve", "--figure", "3x3x3", "--json"], lambda d: "solved" in d),
    ("sliding solve Korf #1 (pdb 6-6-3)", ["sliding", "solve", KORF_1, "--goal", "blank-first", "--json"],
     lambda d: d["length"] == 57),
    ("hextris score (reference solutions of problem 1)", ["hextris", "score", "1", "{solutions}", "--json"],
     lambda d: True),  # checked against the reference scores in main()
]


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(argv: list[str], env: dict, cwd: Path) -> tuple[float, dict | list, float]:
    """Wall time, JSON document and CPU time (user + system: what a busy machine does not inflate) of one
    process."""
    c0, t0 = _cpu_children(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "puzzlebatch", *argv], capture_output=True, text=True, env=env,
                          cwd=cwd)
    wall, cpu = time.perf_counter() - t0, _cpu_children() - c0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, json.loads(proc.stdout), cpu


def _compile_seconds(doc) -> float | None:
    return doc.get("compile_seconds") if isinstance(doc, dict) else None


def _reference_solutions(tmp: Path) -> tuple[Path, list[int]]:
    """Problem 1's best stored solutions and the scores the organisers' data gives for them."""
    best = json.loads((ROOT / "bench" / "hextris" / "best_solutions.json").read_text())
    sols = [s for s in best if s["problemId"] == 1]
    path = tmp / "solutions-problem-1.json"
    path.write_text(json.dumps(sols))
    return path, sols


def measure(label: str, src: Path, env_base: dict, tmp: Path, repeat: int, commands, sol_path: Path) -> list[dict]:
    cache = tmp / f"cache-{label}"
    env = dict(env_base, PUZZLEBATCH_CACHE_DIR=str(cache), PYTHONPATH=str(src))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    shutil.rmtree(cache, ignore_errors=True)
    rows = []
    for name, argv, check in commands:
        argv = [a.replace("{solutions}", str(sol_path)) for a in argv]
        if argv[0] == "sliding":
            argv = argv + ["--cache-dir", str(tmp / "pdb")]
        shutil.rmtree(cache, ignore_errors=True)  # cold: an empty compile cache for every command
        cold_wall, doc, cold_cpu = _run(argv, env, tmp)
        if not check(doc):
            raise SystemExit(f"{label}: {name}: wrong answer: {json.dumps(doc)[:500]}")
        warm = [_run(argv, env, tmp) for _ in range(repeat)]
        rows.append({"command": name, "argv": argv, "cold_s": round(cold_wall, 3), "cold_cpu_s": round(cold_cpu, 3),
                     "cold_compile_s": _compile_seconds(doc),
                     "warm_median_s": round(statistics.median(w for w, _, _ in warm), 3),
                     "warm_cpu_median_s": round(statistics.median(c for _, _, c in warm), 3),
                     "warm_compile_s": _compile_seconds(warm[-1][1]), "answer": _answer(doc),
                     "nodes": doc.get("nodes") if isinstance(doc, dict) else None,
                     "work_seconds": [w[1].get("seconds") for w in warm] if isinstance(doc, dict) else None})
        print(f"  {label:6s} {name:50s} cold {cold_wall:7.2f} s ({cold_cpu:6.2f} s CPU)   warm "
              f"{rows[-1]['warm_median_s']:6.2f} s ({rows[-1]['warm_cpu_median_s']:5.2f} s CPU)",
              file=sys.stderr, flush=True)
    return rows


def _answer(doc) -> str:
    if isinstance(doc, list):  # `hextris score --json` of a tree older than the one-object JSON contract
        return f"{len(doc)} scores, total {sum(int(d.get('total', 0)) for d in doc)}"
    if "scores" in doc:
        return f"{len(doc['scores'])} scores, total {sum(int(d.get('total', 0)) for d in doc['scores'])}"
    for key in ("distinct", "length", "solved"):
        if key in doc:
            return f"{key}={doc[key]}"
    return ""


def build_pdbs(env_base: dict, tmp: Path) -> None:
    """The pattern databases are data, not compiled code: build them once, outside the timings, with a compile
    cache of their own (so that the timed runs still start cold)."""
    env = dict(env_base, PUZZLEBATCH_CACHE_DIR=str(tmp / "cache-pdb-build"), PYTHONPATH=str(ROOT))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    subprocess.run([sys.executable, "-m", "puzzlebatch", "sliding", "pdb", "build", "6-6-3", "--cache-dir",
                    str(tmp / "pdb")], env=env, cwd=tmp, check=True, capture_output=True)


def suite(src: Path, env_base: dict, tmp: Path, label: str) -> float:
    env = dict(env_base, PUZZLEBATCH_CACHE_DIR=str(tmp / f"suite-cache-{label}"), PYTHONPATH=str(src))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=src, env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    tail = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-300:]
    print(f"  {label}: test suite {wall / 60:.1f} min: {tail}", file=sys.stderr)
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", help="git revision to measure side by side (the 'before')")
    ap.add_argument("--repeat", type=int, default=3, help="warm runs per command (median)")
    ap.add_argument("--only", nargs="*", help="substrings of command names to run")
    ap.add_argument("--suite", action="store_true", help="also time the test suite (cold cache) on each tree")
    args = ap.parse_args()
    commands = [c for c in COMMANDS if not args.only or any(o in c[0] for o in args.only)]
    env = dict(os.environ)
    # as on a user's machine: Python keeps the modules' bytecode (some sandboxes switch that off, which costs every
    # process ~0.15 s of compiling Python source, a cost no user sees)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="pb-startup-") as d:
        tmp = Path(d)
        sol_path, sols = _reference_solutions(tmp)
        trees = [("after", ROOT)]
        if args.base:
            base = tmp / "base"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base), args.base],
                           check=True)
            trees.insert(0, ("before", base))
        try:
            if any(c[1][0] == "sliding" for c in commands):
                build_pdbs(env, tmp)
            pyonly = statistics.median(_bare(["-c", "pass"], env) for _ in range(5))
            results = {}
            for label, src in trees:
                # before the disk cache every process compiles: one second run shows it
                results[label] = measure(label, src, env, tmp, 1 if label == "before" else args.repeat, commands,
                                         sol_path)
                imp = dict(env, PYTHONPATH=str(src))
                results[label + "_import_s"] = round(statistics.median(
                    _bare(["-c", "import puzzlebatch.cli as c; c.build_parser()"], imp) for _ in range(5)), 3)
            if args.suite:
                for label, src in trees:
                    results[label + "_suite_s"] = round(suite(src, env, tmp, label), 1)
        finally:
            if args.base:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    _check_hextris(results, sols)
    _print(results, pyonly, args)


def _bare(argv, env) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *argv], env=env, check=True)
    return time.perf_counter() - t0


def _check_hextris(results: dict, sols: list[dict]) -> None:
    """Every tree scored the stored solutions the same (the stored set was verified by the exact scorer)."""
    answers = {label: [r["answer"] for r in rows if r["command"].startswith("hextris")]
               for label, rows in results.items() if isinstance(rows, list)}
    if len({tuple(v) for v in answers.values()}) > 1:
        raise SystemExit(f"hextris scores differ between trees: {answers}")


def _print(results: dict, pyonly: float, args) -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, load average {load:.1f}; python -c pass: {pyonly:.2f} s")
    after = results["after"]
    before = results.get("before")
    print("wall seconds (CPU seconds of the process in brackets: load does not inflate them)")
    head = f"{'command':44s} {'after cold':>17s} {'after warm':>15s}"
    if before:
        head += f" {'before 1st':>17s} {'before 2nd':>17s} {'warm ratio':>10s}"
    print(head)
    for k, r in enumerate(after):
        line = (f"{r['command'][:44]:44s} {r['cold_s']:7.2f} ({r['cold_cpu_s']:6.2f}) "
                f"{r['warm_median_s']:6.2f} ({r['warm_cpu_median_s']:5.2f})")
        if before:
            b = before[k]
            line += (f" {b['cold_s']:7.2f} ({b['cold_cpu_s']:6.2f}) {b['warm_median_s']:7.2f} "
                     f"({b['warm_cpu_median_s']:6.2f}) {b['warm_median_s'] / r['warm_median_s']:9.1f}x")
        print(line)
    rates = [(r["command"], r["nodes"], min(r["work_seconds"]), min(b["work_seconds"]) if before else None)
             for r, b in zip(after, before or after) if r.get("nodes") and r.get("work_seconds")]
    for name, nodes, mine, theirs in rates:
        line = f"search rate, {name}: {nodes / mine / 1e6:.2f} M nodes/s after"
        if before and theirs:
            line += f", {nodes / theirs / 1e6:.2f} M nodes/s before (best of the warm runs; same nodes)"
        print(line)
    imp = f"import + build_parser: after {results['after_import_s']:.2f} s"
    if before:
        imp += f", before {results['before_import_s']:.2f} s"
    print(imp)
    for label in ("before", "after"):
        if f"{label}_suite_s" in results:
            print(f"test suite ({label}, cold cache): {results[f'{label}_suite_s'] / 60:.1f} min")
    print(json.dumps({"bench": "startup", "load": load, "python_start_s": round(pyonly, 3), **results}))


if __name__ == "__main__":
    main()
