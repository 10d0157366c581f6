"""The timed run as a contest judge runs it: ``play_icfp2015`` once, from an empty compile cache, on the qualifier.

    python bench/hextris_timed_run.py [--seconds 3000] [--cores N] [--megabytes MB] [--problems 0-24]
        [--save OUT.json] [--keep-cache]

One ``play_icfp2015 -f problem_0.json ... -f problem_24.json -t SECONDS [-c N] [-m MB]`` process, started with a
fresh, empty ``PUZZLEBATCH_CACHE_DIR`` (as on a new machine: the package's compiled code copied in where it has a
build for this machine and CPU, every kernel compiled inside ``-t`` otherwise; ``PUZZLEBATCH_PREBUILT=0`` in the
environment forces the latter); its stdout (the
official JSON, nothing else) is kept, every answer re-scored by the exact scorer, each problem's score ranked on the
published qualifying leaderboard with ours inserted, and the rank sum compared with the leader's (Unagi).  Prints the
wall time from the process's start to its exit, its maximum resident size, the cold start lines of stderr, the
per-problem table and the stored set's rank sum beside it (``bench/hextris/best_solutions.json``, which must stay
<= 35).  Targets: wall time <= 1 h, rank sum below the leader's.

A rehearsal that checks the whole pipeline in a minute: ``--problems 0,13 --seconds 30``.  Record ``uptime``'s load
with the figures; the full run wants a machine with nothing else running.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzlebatch.puzzles.hextris.model import DATA_DIR, load_phrases, official_problem  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402
from puzzlebatch.runners.hextris.playouts import parse_solutions, score_solutions  # noqa: E402
from puzzlebatch.runners.hextris.problems import parse_problem_range  # noqa: E402
from puzzlebatch.runners.hextris.rank import problem_scores, rank_scores, standing  # noqa: E402

STORED = ROOT / "bench" / "hextris" / "best_solutions.json"


def ranked(problems: dict, entries: list[dict], label: str) -> int:
    """Print the per-problem table of ``entries`` and return the rank sum."""
    run = score_solutions(problems, entries, load_phrases(), select_backend("cpu"))
    totals = {(s.problemId, s.seed): s.total for s in run.scores}
    scores = problem_scores(problems, totals)
    print(f"\n{label}\n| problem | score | rank | best published (team) |\n|---:|---:|---:|---:|")
    for r in rank_scores(scores):
        print(f"| {r.problem_id} | {r.score:,} | {r.rank} | {r.best:,} ({r.best_team}) |")
    st = standing(scores)
    print(f"rank sum {st.rank_sum}: place {st.place} of 316 with ours inserted ({st.leader}: {st.leader_sum}); "
          f"{'below' if st.rank_sum < st.leader_sum else 'not below'} the leader's")
    in_progress = sum(s.end == "in_progress" for s in run.scores)
    print(f"{len(run.scores)} games, {in_progress} left in progress, total {sum(totals.values()):,}")
    return st.rank_sum


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3000.0, help="-t (default 3000: 50 min, within the hour)")
    ap.add_argument("--cores", type=int, help="-c (default: play_icfp2015's own, every core it may run on)")
    ap.add_argument("--megabytes", type=float, help="-m")
    ap.add_argument("--problems", default="0-24")
    ap.add_argument("--save", help="write the answer (official JSON) here")
    ap.add_argument("--keep-cache", action="store_true", help="use the user's compile cache (a warm run)")
    args = ap.parse_args()
    ids = parse_problem_range(args.problems)
    cmd = [sys.executable, "-m", "puzzlebatch.cli.hextris.play_icfp2015"]
    for n in ids:
        cmd += ["-f", str(DATA_DIR / "problems" / f"problem_{n}.json")]
    cmd += ["-t", f"{args.seconds:g}"]
    if args.cores is not None:
        cmd += ["-c", str(args.cores)]
    if args.megabytes is not None:
        cmd += ["-m", f"{args.megabytes:g}"]
    print("load before:", os.getloadavg(), flush=True)
    with tempfile.TemporaryDirectory(prefix="puzzlebatch-empty-cache-") as empty:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        if not args.keep_cache:
            env["PUZZLEBATCH_CACHE_DIR"] = empty
        t = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
        wall = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"play_icfp2015 {'(warm cache)' if args.keep_cache else '(empty cache)'}: exit status {proc.returncode}, "
          f"{wall:.1f} s wall for -t {args.seconds:g} ({100 * wall / args.seconds:.1f} %), largest process "
          f"{rss:.0f} MB resident")
    for line in proc.stderr.splitlines():
        if line.startswith("play_icfp2015"):
            print("  " + line)
    entries = parse_solutions(json.loads(proc.stdout or "[]"), "play_icfp2015's stdout")
    if args.save:
        Path(args.save).write_text(json.dumps(entries) + "\n", encoding="utf-8")
    problems = {n: official_problem(n) for n in ids}
    expected = {(n, s) for n in ids for s in problems[n].source_seeds}
    got = {(e["problemId"], e["seed"]) for e in entries}
    print(f"answers: {len(entries)} for {len(expected)} games" + ("" if got == expected else
                                                                 f"; MISSING {sorted(expected - got)}"))
    ours = ranked(problems, entries, "timed run")
    stored = [e for e in json.loads(STORED.read_text(encoding="utf-8")) if e["problemId"] in problems]
    kept = ranked(problems, stored, f"stored set ({STORED.relative_to(ROOT)})")
    print(f"\ntimed run: rank sum {ours}, {wall:.0f} s; stored set: rank sum {kept} (must stay <= 35 on 0-24)")
    print("load after:", os.getloadavg())
    return 0 if proc.returncode == 0 and got == expected else 1


if __name__ == "__main__":
    raise SystemExit(main())
