"""Re-weave stored solutions with the searching phrase weaver: each game's lock placements are read back from its
solution (``phrases.placements_of``), woven again by ``weave_search.weave_search`` (a beam search over phrases and
moves per unit), both strings are scored by the exact scorer and the better is kept.

    python bench/hextris_reweave.py IN.json OUT.json [--problems 0-24] [--beam 64] [--keep 4] [--openings]
        [--backend cpu]

With ``--openings``, a solution that spells a long phrase (40 characters or more) is also re-woven after keeping
its start up to the end of the first occurrence of its last long phrase (an opening, as the player's
``phrases.opening`` finds them, which a re-weave of the placements alone may not spell again).

``OUT.json`` gets every game of ``IN.json`` (the better of the old and the new solution), written again after each
problem, so an interrupted run keeps what it has done; merge it with ``bench/hextris_merge.py``.
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
from puzzlebatch.runners.hextris.phrases import opening_of, placements_of  # noqa: E402
from puzzlebatch.runners.hextris.playouts import score_solutions  # noqa: E402
from puzzlebatch.runners.hextris.weave_search import weave_search  # noqa: E402


def parse_range(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--problems", default="0-24", help="problems re-woven, in this order (e.g. 1,10,0-9)")
    ap.add_argument("--beam", type=int, default=64)
    ap.add_argument("--keep", type=int, default=4)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--openings", action="store_true",
                    help="also keep each solution's start up to its long phrases (an opening) and re-weave the rest")
    args = ap.parse_args()
    backend = select_backend(args.backend)
    phrases = load_phrases()
    entries = json.loads(Path(args.src).read_text())
    keep = {(e["problemId"], e["seed"]): e for e in entries}
    t0 = time.perf_counter()
    for pid in dict.fromkeys(parse_range(args.problems)):
        games = [e for e in entries if e["problemId"] == pid]
        if not games:
            continue
        prob = official_problem(pid)
        tab = problem_tables(prob).tolist()
        t = time.perf_counter()
        new = []
        for e in games:
            starts = [("", placements_of(tab, e["seed"], e["solution"]))]
            if args.openings:
                got = opening_of(tab, e["seed"], e["solution"], phrases)
                starts += [got] if got else []
            for prefix, places in starts:
                try:
                    text = weave_search(tab, e["seed"], places, phrases, beam=args.beam, keep=args.keep,
                                        prefix=prefix)
                except ValueError as err:  # a game the search cannot re-weave keeps its solution
                    print(f"problem {pid} seed {e['seed']}: {err}", flush=True)
                    continue
                new.append(dict(e, solution=text))
        run = score_solutions({pid: prob}, games + new, phrases, backend)
        total = {}
        for k, (e, s) in enumerate(zip(games + new, run.scores)):
            key = (pid, e["seed"])
            got = total.setdefault(key, [0, 0])
            if k < len(games):
                got[0] = s.total
            elif s.total > max(got):
                keep[key] = e
                got[1] = s.total
        n = len(prob.source_seeds)
        before = sum(v[0] for v in total.values()) // n
        after = sum(max(v) for v in total.values()) // n
        better = sum(1 for v in total.values() if v[1] > v[0])
        print(f"problem {pid}: {len(games)} games in {time.perf_counter() - t:.1f} s, score {before} -> {after} "
              f"({better} games better)", flush=True)
        Path(args.dst).write_text(json.dumps([keep[k] for k in sorted(keep)], indent=0) + "\n")
    print(f"re-woven in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
