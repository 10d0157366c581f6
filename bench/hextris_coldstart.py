"""Cold against warm compile cache: ``play_icfp2015 -t T`` on qualifier problems, each run a fresh process.

    python bench/hextris_coldstart.py --problems 0-9 --seconds 30

For each problem: once with an empty compile cache (a fresh ``PUZZLEBATCH_CACHE_DIR``, as on a new machine),
once with the user's cache warmed by ``puzzlebatch warmup hextris``; every answer is scored with the scalar scorer
(the organizers' rules) and the cold start line of stderr is kept.  Prints one row per problem and the totals, cold
as a share of warm (the target: at least 90 %).  Record ``uptime``'s load with the figures.

    python bench/hextris_coldstart.py --compile-times

compiles, on an empty cache in a fresh process, each kernel the contest player calls, one after another in the
order it calls them, and prints the seconds of each (a kernel's rules compiled by an earlier one are not counted
again), then each stage of ``runners/hextris/precompile.py`` alone, each in its own fresh process.

    python bench/hextris_coldstart.py --problems 0-9 --quick

plays every game of the problems to its end with the plain-Python player alone, its full policy against its cheap
one (the earlier policy, which it falls back to when time is short), and prints the exact totals and CPU seconds.

    python bench/hextris_coldstart.py --problems 0-9 --seconds 30 --no-prebuilt

runs the cold side without the compiled code that comes with the package (``PUZZLEBATCH_PREBUILT=0``: the kernels
compiled in other processes while the plain-Python player plays), as on a machine the package has no build for.

    python bench/hextris_coldstart.py --problems 0-9 --seconds 30 --cores 2

passes ``-c 2`` to both runs (the games split over two processes).

    python bench/hextris_coldstart.py --problems 0-9 --warm-seconds 12,30

plays warm only, at each ``-t``: how the warm player's total grows with its time, i.e. what a cold start that
leaves the beam part of ``-t`` can score at best.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzlebatch.puzzles.hextris.model import DATA_DIR, IN_PROGRESS, load_phrases, official_problem, score_solution  # noqa: E402, E501
from puzzlebatch.runners.hextris.problems import parse_problem_range  # noqa: E402


KERNELS = """
import time
t = time.perf_counter()
from puzzlebatch.puzzles.hextris.model import official_problem
from puzzlebatch.runners.engine.backend import select_backend
from puzzlebatch.runners.hextris.playouts import GREEDY_WEIGHTS, Playouts
b = select_backend("cpu")
p = official_problem(6)
sim = Playouts([p], b)
print(f"imports and tables: {time.perf_counter() - t:.2f} s", flush=True)
def T(name, f):
    t = time.perf_counter()
    r = f()
    print(f"{name}: {time.perf_counter() - t:.2f} s", flush=True)
    return r
g = T("init_batch", lambda: sim.new_games([0, 1]))
T("policy_batch", lambda: sim.run_policy(g.take([0]), GREEDY_WEIGHTS, max_units=2))
T("commands_batch", lambda: sim.run_commands(g.take([0]), ["l"]))
pl = T("evaluate_batch", lambda: sim.evaluate(g))
T("placements_batch", lambda: sim.run_placements(g.take([0]), pl[0][:1, :1, :]))
T("lockable_batch", lambda: sim.lockable(g))
from puzzlebatch.runners.hextris.player import play_problems
from puzzlebatch.runners.hextris.precompile import tiny_problem
q = tiny_problem()
T("the rest of a short beam game (weaver's rules)", lambda: play_problems([q], b, beam=1, keep=2, survival=False))
T("board_eval_batch (not used by the player)", lambda: sim.board_features(g.boards))
"""


def compile_times(env: dict) -> None:
    with tempfile.TemporaryDirectory() as empty:
        print(f"each kernel, in the order the player calls it (load {os.getloadavg()[0]:.1f}):", flush=True)
        subprocess.run([sys.executable, "-c", KERNELS], env=dict(env, PUZZLEBATCH_CACHE_DIR=empty), cwd=ROOT,
                       check=True)
    for stage in ("greedy", "score", "beam"):
        with tempfile.TemporaryDirectory() as empty:
            code = "from puzzlebatch.runners.hextris.precompile import compile_stage; " \
                   f"print('stage {stage} alone: %.2f s' % compile_stage('{stage}'))"
            subprocess.run([sys.executable, "-c", code], env=dict(env, PUZZLEBATCH_CACHE_DIR=empty), cwd=ROOT,
                           check=True)
    print("load:", os.getloadavg())


def quick(problems: list[int]) -> None:
    import time

    from puzzlebatch.runners.hextris.coldstart import QuickPlayer

    phrases = load_phrases()
    sums = {"full": 0, "cheap": 0}
    for n in problems:
        p, row = official_problem(n), []
        for name in ("full", "cheap"):
            q, t = QuickPlayer([p], phrases), time.process_time()
            while True:
                live = [g for gs in q.games for g in gs if g.game.end == IN_PROGRESS]
                if not live:
                    break
                for g in live:
                    q.step_game(g, cheap=name == "cheap")
            entries = [e for e, _ in q.best().values()]
            total = sum(score_solution(p, e["seed"], e["solution"], phrases).total for e in entries)
            sums[name] += total
            row.append(f"{name} {total:,} ({q.units} units, {time.process_time() - t:.1f} s CPU)")
        print(f"problem {n}: " + " | ".join(row), flush=True)
    gain = 100 * sums["full"] / max(1, sums["cheap"]) - 100
    print(f"total: full {sums['full']:,} cheap {sums['cheap']:,} ({gain:+.1f} %)")
    print("load:", os.getloadavg())


def play(problem: int, seconds: float, env: dict, cores: int | None = None) -> tuple[int, int, str]:
    """(exact total, games left in progress, the cold start line) of one ``play_icfp2015`` run."""
    proc = subprocess.run([sys.executable, "-m", "puzzlebatch.cli.hextris.play_icfp2015", "-f",
                           str(DATA_DIR / "problems" / f"problem_{problem}.json"), "-t", str(seconds)]
                          + ([] if cores is None else ["-c", str(cores)]),
                          capture_output=True, text=True, env=env, cwd=ROOT)
    doc = json.loads(proc.stdout or "[]")
    p, phrases = official_problem(problem), load_phrases()
    scores = [score_solution(p, e["seed"], e["solution"], phrases) for e in doc]
    line = next((ln for ln in proc.stderr.splitlines() if "cold start" in ln), "")
    return sum(s.total for s in scores), sum(s.end == "in_progress" for s in scores), line


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", default="0-9")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--cores", type=int, help="-c for play_icfp2015 (default: its own default, every core)")
    ap.add_argument("--compile-times", action="store_true", help="only the compile seconds per kernel")
    ap.add_argument("--quick", action="store_true", help="only the plain-Python player, full against cheap policy")
    ap.add_argument("--no-prebuilt", action="store_true",
                    help="cold runs without the package's compiled code (PUZZLEBATCH_PREBUILT=0)")
    ap.add_argument("--warm-seconds", help="comma-separated -t values: warm runs only, one total for each")
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if args.compile_times:
        compile_times(env)
        return 0
    if args.quick:
        quick(parse_problem_range(args.problems))
        return 0
    subprocess.run([sys.executable, "-m", "puzzlebatch", "warmup", "hextris"], env=env, cwd=ROOT,
                   capture_output=True, check=True)
    if args.warm_seconds:
        limits = [float(x) for x in args.warm_seconds.split(",")]
        sums = dict.fromkeys(limits, 0)
        for n in parse_problem_range(args.problems):
            got = {t: play(n, t, env, args.cores)[0] for t in limits}
            for t in limits:
                sums[t] += got[t]
            print(f"problem {n}: " + ", ".join(f"-t {t:g} {got[t]:,}" for t in limits), flush=True)
        top = sums[max(limits)]
        print("total: " + ", ".join(f"-t {t:g} {sums[t]:,} ({100 * sums[t] / max(1, top):.1f} %)" for t in limits))
        print("load:", os.getloadavg())
        return 0
    cold_sum = warm_sum = 0
    for n in parse_problem_range(args.problems):
        with tempfile.TemporaryDirectory() as empty:
            cold_env = dict(env, PUZZLEBATCH_CACHE_DIR=empty, **({"PUZZLEBATCH_PREBUILT": "0"} if args.no_prebuilt
                                                                 else {}))
            cold = play(n, args.seconds, cold_env, args.cores)
        warm = play(n, args.seconds, env, args.cores)
        cold_sum, warm_sum = cold_sum + cold[0], warm_sum + warm[0]
        print(f"problem {n}: cold {cold[0]:,} ({cold[1]} in progress) warm {warm[0]:,} ({warm[1]} in progress)"
              f"\n  cold: {cold[2]}\n  warm: {warm[2]}", flush=True)
    print(f"total: cold {cold_sum:,} warm {warm_sum:,}: cold is {100 * cold_sum / max(1, warm_sum):.1f} % of warm")
    print("load:", os.getloadavg())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
