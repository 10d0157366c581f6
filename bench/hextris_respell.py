"""Re-spell solutions with the current phrase weaver: each game's lock placements are read back from its solution
(``phrases.placements_of``), spelled again by ``hextris_player.spell`` (plain paths and both weavings, all scored
by the exact scorer), and the better of the old and the new solution is kept.

    python bench/hextris_respell.py IN.json OUT.json [--backend cpu]

Used when the weaver improved after a timed planning run (bench/RESULTS.md says which figures come from this).
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
from puzzlebatch.runners.hextris.phrases import placements_of  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402
from puzzlebatch.runners.hextris.playouts import score_solutions  # noqa: E402
from puzzlebatch.runners.hextris.player import GamePlan, spell  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--backend", default="cpu")
    args = ap.parse_args()
    backend = select_backend(args.backend)
    entries = json.loads(Path(args.src).read_text())
    phrases = load_phrases()
    problems = {e["problemId"]: official_problem(e["problemId"]) for e in entries}
    old = {(e["problemId"], e["seed"]): (e, s.total)
           for e, s in zip(entries, score_solutions(problems, entries, phrases, backend).scores)}
    t0 = time.perf_counter()
    out = []
    for pid, prob in sorted(problems.items()):
        tab = problem_tables(prob).tolist()
        plans = [GamePlan(prob, e["seed"], placements_of(tab, e["seed"], e["solution"]), 0, "")
                 for e in entries if e["problemId"] == pid]
        t = time.perf_counter()
        new = {(s.entry["problemId"], s.entry["seed"]): s for s in spell(plans, backend, phrases,
                                                                           tag=entries[0].get("tag", "puzzlebatch"))}
        gain = 0
        for pl in plans:
            key = (pid, pl.seed)
            e, total = old[key]
            if key in new and new[key].total > total:
                gain += new[key].total - total
                e = new[key].entry
            out.append(e)
        print(f"problem {pid}: {len(plans)} games re-spelled in {time.perf_counter() - t:.1f} s, +{gain}", flush=True)
    print(f"re-spelled {len(out)} games in {time.perf_counter() - t0:.1f} s")
    Path(args.dst).write_text(json.dumps(out, indent=0) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
