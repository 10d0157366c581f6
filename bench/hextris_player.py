"""Bench of the hex Tetris player: play the 25 qualifier problems (174 distinct games), re-score every solution
exactly, rank each problem's score on the published qualifying leaderboard, and keep the best solutions found.

    python bench/hextris_player.py [--seconds 3000] [--beam 4] [--keep 8]
        [--weights FILE] [--problems 0-24] [--backend cpu] [--save bench/hextris/best_solutions.json]

Prints the per-problem table (our score, rank among the teams, TaupeGoons' score, the best published score and
its gap) with the rank sum, the overall place it would give, and the wall time.  ``--save`` merges the solutions
into the file, keeping for each game the better of the old and the new (both scored by the exact scorer).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzlebatch.puzzles.hextris.model import load_phrases, official_problem  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402
from puzzlebatch.runners.hextris.playouts import score_solutions  # noqa: E402
from puzzlebatch.runners.hextris.player import load_weights, play_problems  # noqa: E402
from puzzlebatch.runners.hextris.rank import problem_scores, rank_scores, standing  # noqa: E402


def parse_range(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def table(problems, totals, label: str) -> int:
    scores = problem_scores(problems, totals)
    ranks = rank_scores(scores)
    print(f"\n{label}")
    print("| problem | our score | rank | TaupeGoons | best published (team) | gap to best |")
    print("|---:|---:|---:|---:|---:|---:|")
    for r in ranks:
        print(f"| {r.problem_id} | {r.score} | {r.rank} / {r.teams} | {r.taupegoons} | {r.best} ({r.best_team}) | "
              f"{r.best - r.score:+d} |")
    total = sum(r.rank for r in ranks)
    beat = sum(1 for r in ranks if r.taupegoons is None or r.score > r.taupegoons)
    place = standing(scores)
    print(f"rank sum {total} over {len(ranks)} problems -> place {place.place} of 316 with ours inserted "
          f"({place.leader}: {place.leader_sum}); beats TaupeGoons on {beat}/{len(ranks)}")
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--beam", type=int, default=4, help="starting beam (the fixed beam with --seconds 0)")
    ap.add_argument("--keep", type=int, default=8)
    ap.add_argument("--max-beam", type=int, default=256)
    ap.add_argument("--seconds", type=float, default=3000.0,
                    help="time for the whole run: shared among the problems by units x seeds x width, the beam "
                         "adapts to it (default 3000; 0: no limit, fixed beam)")
    ap.add_argument("--weights", help="JSON weights, or a list of them: a portfolio (default: the player's, "
                    "player.board_weights per problem)")
    ap.add_argument("--problems", default="0-24")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--save", help="merge the best solutions into this official-format JSON file")
    args = ap.parse_args()
    backend = select_backend(args.backend)
    ids = parse_range(args.problems)
    problems = {i: official_problem(i) for i in ids}
    weights = load_weights(args.weights) if args.weights else None
    t0 = time.perf_counter()

    def progress(p, solved):
        print(f"problem {p.id}: {len(solved)} games, total {sum(s.total for s in solved)} "
              f"(power {sum(s.power_score for s in solved)}), {time.perf_counter() - t0:.1f} s", flush=True)

    timings: list = []
    solved = play_problems([problems[i] for i in ids], backend, weights=weights, beam=args.beam, keep=args.keep,
                           on_problem=progress, seconds=args.seconds or None, max_beam=args.max_beam,
                           timings=timings)
    seconds = time.perf_counter() - t0
    for t in timings:
        print(f"problem {t['problem']}: planning {t['plan_s']:.1f} s (budget {t['budget_s'] or 0:.1f} s, mean beam "
              f"{t['mean_beam']:.1f}, max {t['max_beam']}), spelling {t['spell_s']:.1f} s"
              + (f", {t['survival_retries']} games retried for survival" if t.get("survival_retries") else ""))
    shown = "the player's default (per board)" if weights is None else np.asarray(weights).tolist()
    print(f"\n{len(solved)} games in {seconds:.1f} s on {backend.name} (time {args.seconds:g} s, beam "
          f"{args.beam}..{args.max_beam}, keep {args.keep}, weights {shown}); "
          "machine: 2-core CPU, shared")
    totals = {(s.entry["problemId"], s.entry["seed"]): s.total for s in solved}
    table(problems, totals, "this run")
    if args.save:
        path = Path(args.save)
        entries = [s.entry for s in solved]
        if path.exists():
            entries += json.loads(path.read_text())
        run = score_solutions(problems, entries, load_phrases(), backend)
        best = {}
        for e, sc in zip(entries, run.scores):
            key = (e["problemId"], e["seed"])
            if e["problemId"] in problems and sc.total > 0 and (key not in best or sc.total > best[key][1]):
                best[key] = (e, sc.total)
        keep = [best[k][0] for k in sorted(best)]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(keep, indent=0) + "\n")
        table(problems, {k: v[1] for k, v in best.items()}, f"best kept in {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
