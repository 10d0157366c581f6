"""Insert the long phrases a stored solution misses in the middle of its game, plan the rest again, keep the better.

For every game of the problems named whose solution lacks one of the long phrases (the two of 51 characters),
``phrases.insertions`` plays the solution up to one of its locks (those after which the board is emptiest) and
spells the missing phrases from there; the beam player plans the rest of the game after each such prefix (one
batch per problem), ``spell`` weaves the plans (with ``--seconds`` per game for its wider searches) and the exact
scorer keeps, per game, the better of the stored solution and the new ones.

    python bench/hextris_insert.py SRC.json DST.json --problems 12,6 [--beam 64] [--points 4] [--seconds 30]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzlebatch.puzzles.hextris.encode import problem_tables  # noqa: E402
from puzzlebatch.puzzles.hextris.model import load_phrases, official_problem  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402
from puzzlebatch.runners.hextris.phrases import insertions  # noqa: E402
from puzzlebatch.runners.hextris.player import BeamPlayer, spell  # noqa: E402
from puzzlebatch.runners.hextris.playouts import score_solutions  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--problems", required=True, help="comma-separated problem ids, in this order")
    ap.add_argument("--beam", type=int, default=64, help="the planner's beam after each prefix")
    ap.add_argument("--points", type=int, default=4, help="locks tried per game")
    ap.add_argument("--seconds", type=float, default=30.0, help="spelling time per game (wider searches)")
    ap.add_argument("--backend", default="cpu")
    args = ap.parse_args()
    backend = select_backend(args.backend)
    phrases = load_phrases()
    entries = json.loads(Path(args.src).read_text())
    keep = {(e["problemId"], e["seed"]): e for e in entries}
    for pid in dict.fromkeys(int(p) for p in args.problems.split(",")):
        prob = official_problem(pid)
        tab = problem_tables(prob).tolist()
        games = [e for e in entries if e["problemId"] == pid]
        t0 = time.perf_counter()
        before = {e["seed"]: s.total for e, s in zip(games, score_solutions({pid: prob}, games, phrases,
                                                                             backend).scores)}
        seeds, prefixes = [], []
        for e in games:
            for prefix in insertions(tab, e["seed"], e["solution"], phrases, points=args.points):
                seeds.append(e["seed"])
                prefixes.append(prefix)
        if not prefixes:
            print(f"problem {pid}: no long phrase missing or none fits", flush=True)
            continue
        plans = BeamPlayer(prob, backend, beam=args.beam, keep=8).plan(seeds, prefixes=prefixes)
        solved = spell(plans, backend, phrases, deadline=time.perf_counter() + args.seconds * len(games))
        gain = 0
        for s in solved:
            key = (pid, s.entry["seed"])
            if s.total > before[key[1]]:
                gain += s.total - before[key[1]]
                before[key[1]] = s.total
                keep[key] = s.entry
        n = len(prob.source_seeds)
        print(f"problem {pid}: {len(prefixes)} insertions in {len(games)} games, {time.perf_counter() - t0:.1f} s, "
              f"score +{gain // n} ({sum(before.values()) // n})", flush=True)
        Path(args.dst).write_text(json.dumps([keep[k] for k in sorted(keep)], indent=0) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
