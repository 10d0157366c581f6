"""Bench of the searching phrase weaver: seconds and power of ``weave_search`` at several widths, on fixed plans.

    python bench/hextris_weave.py [--problems 0,3,14] [--beams 4,24,48,96] [--plan-beam 64] [--seeds 1]
        [--repeats 3] [--save-plans DIR]

Each problem's first ``--seeds`` seeds are planned once by the beam player at a fixed beam (``--plan-beam``, no time
limit: the same placements every run), then woven by ``weave_search`` at each ``--beams`` width, ``--repeats``
times (the least seconds are kept), and scored by the exact scorer.  Prints, per problem and width: seconds, the
power and total scores, and a digest of the strings (equal digests: the same strings, e.g. before and after a
change to the weaver; run the script at both commits on the same plans, ``--save-plans`` keeps them).  Power is
most of a qualifier score (problem 0: about 9,700 of 12,400), so the weaver's speed buys score wherever a
problem's time runs out before its widest search.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzlebatch.puzzles.hextris.encode import problem_tables  # noqa: E402
from puzzlebatch.puzzles.hextris.model import load_phrases, official_problem  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402
from puzzlebatch.runners.hextris.player import BeamPlayer, board_weights  # noqa: E402
from puzzlebatch.runners.hextris.playouts import score_solutions  # noqa: E402
from puzzlebatch.runners.hextris.weave_search import weave_search  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", default="0,3,14")
    ap.add_argument("--beams", default="4,24,48,96")
    ap.add_argument("--plan-beam", type=int, default=64)
    ap.add_argument("--seeds", type=int, default=1, help="the first N seeds of each problem")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--save-plans", help="a folder: plans are read from it if there, else written to it")
    args = ap.parse_args()
    backend = select_backend("cpu")
    phrases = load_phrases()
    print("| problem | games | weave beam | seconds | power | total | strings |\n|---:|---:|---:|---:|---:|---:|---|")
    for pid in (int(x) for x in args.problems.split(",")):
        problem = official_problem(pid)
        seeds = list(dict.fromkeys(problem.source_seeds))[: args.seeds]
        saved = None if args.save_plans is None else Path(args.save_plans) / f"plan_{pid}_{args.seeds}.pkl"
        if saved is not None and saved.exists():
            plans = pickle.loads(saved.read_bytes())
        else:
            player = BeamPlayer(problem, backend, board_weights(problem), args.plan_beam, 8, 256, None)
            plans = player.plan(seeds)
            if saved is not None:
                saved.parent.mkdir(parents=True, exist_ok=True)
                saved.write_bytes(pickle.dumps(plans))
        tab = problem_tables(problem).tolist()
        for beam in (int(x) for x in args.beams.split(",")):
            best = float("inf")
            for _ in range(args.repeats):
                t = time.perf_counter()
                texts = [weave_search(tab, g.seed, g.placements, phrases, beam=beam) for g in plans]
                best = min(best, time.perf_counter() - t)
            entries = [{"problemId": pid, "seed": g.seed, "tag": "bench", "solution": s} for g, s in zip(plans, texts)]
            scores = score_solutions({pid: problem}, entries, phrases, backend).scores
            digest = hashlib.sha256("|".join(texts).encode()).hexdigest()[:12]
            print(f"| {pid} | {len(plans)} | {beam} | {best:.2f} | {sum(s.power_score for s in scores):,} | "
                  f"{sum(s.total for s in scores):,} | {digest} |", flush=True)
    print(f"largest resident size: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
