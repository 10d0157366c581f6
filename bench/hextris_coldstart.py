"""Cold against warm compile cache: ``play_icfp2015 -t T`` on qualifier problems, each run a fresh process.

    python bench/hextris_coldstart.py --problems 0-9 --seconds 30

For each problem: once with an empty compile cache (a fresh ``PUZZLEBATCH_CACHE_DIR``, as on a new machine),
once with the user's cache warmed by ``puzzlebatch warmup hextris``; every answer is scored with the scalar scorer
(the organizers' rules) and the cold start line of stderr is kept.  Prints one row per problem and the totals, cold
as a share of warm (the target: at least 90 %).  Record ``uptime``'s load with the figures.
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

from puzzlebatch.puzzles.hextris.model import DATA_DIR, load_phrases, official_problem, score_solution  # noqa: E402
from puzzlebatch.runners.hextris.problems import parse_problem_range  # noqa: E402


def play(problem: int, seconds: float, env: dict) -> tuple[int, int, str]:
    """(exact total, games left in progress, the cold start line) of one ``play_icfp2015`` run."""
    proc = subprocess.run([sys.executable, "-m", "puzzlebatch.cli.hextris.play_icfp2015", "-f",
                           str(DATA_DIR / "problems" / f"problem_{problem}.json"), "-t", str(seconds)],
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
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-m", "puzzlebatch", "warmup", "hextris"], env=env, cwd=ROOT,
                   capture_output=True, check=True)
    cold_sum = warm_sum = 0
    for n in parse_problem_range(args.problems):
        with tempfile.TemporaryDirectory() as empty:
            cold = play(n, args.seconds, dict(env, PUZZLEBATCH_CACHE_DIR=empty))
        warm = play(n, args.seconds, env)
        cold_sum, warm_sum = cold_sum + cold[0], warm_sum + warm[0]
        print(f"problem {n}: cold {cold[0]:,} ({cold[1]} in progress) warm {warm[0]:,} ({warm[1]} in progress)"
              f"\n  cold: {cold[2]}\n  warm: {warm[2]}", flush=True)
    print(f"total: cold {cold_sum:,} warm {warm_sum:,}: cold is {100 * cold_sum / max(1, warm_sum):.1f} % of warm")
    print("load:", os.getloadavg())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
