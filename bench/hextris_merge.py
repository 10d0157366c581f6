"""Merge official solution files: per game (problem, seed) the solution with the best total by the exact scorer is
kept (a solution that errs scores 0 and is never kept), then the rank table of the merged set is printed.

    python bench/hextris_merge.py OUT.json IN.json [IN.json ...] [--backend cpu]

``OUT.json`` may be one of the inputs (e.g. ``bench/hextris/best_solutions.json``): it is read before it is written.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzlebatch.puzzles.hextris.model import load_phrases, official_problem  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402
from puzzlebatch.runners.hextris.playouts import parse_solutions, score_solutions  # noqa: E402
from puzzlebatch.runners.hextris.rank import problem_scores, rank_scores, standing  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--backend", default="cpu")
    args = ap.parse_args()
    entries = []
    for f in args.inputs:
        entries += parse_solutions(json.loads(Path(f).read_text()), f)
    problems = {i: official_problem(i) for i in sorted({e["problemId"] for e in entries})}
    run = score_solutions(problems, entries, load_phrases(), select_backend(args.backend))
    best: dict = {}
    for e, s in zip(entries, run.scores):
        key = (e["problemId"], e["seed"])
        if s.total > 0 and (key not in best or s.total > best[key][1]):
            best[key] = (e, s.total)
    Path(args.out).write_text(json.dumps([best[k][0] for k in sorted(best)], indent=0) + "\n")
    scores = problem_scores(problems, {k: v[1] for k, v in best.items()})
    print("| problem | ours | rank | best published (team) | gap |")
    print("|---:|---:|---:|---:|---:|")
    for r in rank_scores(scores):
        print(f"| {r.problem_id} | {r.score} | {r.rank} | {r.best} ({r.best_team}) | {r.best - r.score:+d} |")
    table = standing(scores)
    print(f"{len(best)} games; rank sum {table.rank_sum}, place {table.place} with ours inserted "
          f"({table.leader}: {table.leader_sum})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
