"""The hex Tetris GA with every gene, trained on generated boards and judged on other generated boards.

    python bench/hextris_ga_generated.py [--train 0-11] [--held-out 100-119] [--generations 8] [--max-units 200]
        [--beam 4] [--keep 4] [--seed 1] [--save bench/hextris/tuned_generated.json]

``puzzlebatch hextris tune`` trains on qualifier problems; this trains the same GA (:class:`Tuner`, the 13 genes
coded ``relative`` around the default weights, the exact fitness with the greedy weavers, each board's total over
the default weights' there) on boards of :func:`~puzzlebatch.puzzles.hextris.generate.generate_problem` (seeds
``--train``, first seed of each, the first ``--max-units`` units), then plays the best genome and the default
weights on the boards of seeds ``--held-out`` (never trained on; the same settings) and on the 25 qualifier
problems, and counts the boards where the tuned weights score more.  Prints a line per generation and a summary;
``--save`` writes the weights with the results (``play --weights`` takes the file).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from puzzlebatch.puzzles.hextris.generate import generate_problem  # noqa: E402
from puzzlebatch.puzzles.hextris.model import official_problem, parse_problem  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402
from puzzlebatch.runners.hextris.tune import TuneConfig, Tuner, evaluate, hand_genes  # noqa: E402
from hextris_fit import _ids  # noqa: E402  (bench/hextris_fit.py: "0-11,20" -> numbers)


def boards(kind: str, ids: list[int], max_units: int):
    made = [official_problem(i) if kind == "qualifier" else parse_problem(generate_problem(i)) for i in ids]
    return [dataclasses.replace(p, source_length=min(p.source_length, max_units)) for p in made]


def judge(genome, hand, problems, be, kwargs, label) -> dict:
    rows = {}
    for p in problems:
        t0 = time.perf_counter()
        fit = evaluate(np.array([genome, hand]), [(p, p.source_seeds[0])], be, **kwargs)
        rows[str(p.id)] = [int(fit[0]), int(fit[1])]
        print(f"{label} {p.id}: tuned {fit[0]}, default {fit[1]} ({time.perf_counter() - t0:.1f} s)", flush=True)
    more = sum(a > b for a, b in rows.values())
    less = sum(a < b for a, b in rows.values())
    return {"boards": rows, "more": more, "equal": len(rows) - more - less, "less": less,
            "tuned_total": sum(a for a, _ in rows.values()), "default_total": sum(b for _, b in rows.values())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", default="0-11")
    ap.add_argument("--held-out", default="100-119")
    ap.add_argument("--qualifier", default="0-24", help="qualifier problems judged too ('' for none)")
    ap.add_argument("--generations", type=int, default=8)
    ap.add_argument("--max-units", type=int, default=200)
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--keep", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--save", type=Path)
    args = ap.parse_args(argv)
    train, held = _ids(args.train), _ids(args.held_out)
    if set(train) & set(held):
        ap.error("--held-out: overlaps --train")
    be = select_backend(args.backend)
    games = [(p, p.source_seeds[0]) for p in boards("generated", train, args.max_units)]
    cfg = TuneConfig(coding="relative")
    tuner = Tuner(games, be, cfg, seed=args.seed, beam=args.beam, keep=args.keep, fitness="exact", search_beam=0,
                  normalise=True)
    t0 = time.perf_counter()
    while tuner.generation < args.generations:
        rec = tuner.step()
        print(f"generation {rec['generation']}: best {rec['best']} {rec['genome']}, mean {rec['mean']:.0f}, "
              f"{rec['evaluated']} new, {rec['seconds']:.1f} s", flush=True)
    genome, best = tuner.best()
    hand = hand_genes(cfg.coding, cfg.gene_low, cfg.gene_high).tolist()
    kwargs = dict(tuner.eval_kwargs(), scales=None)
    out = {"how": "python bench/hextris_ga_generated.py " + " ".join(sys.argv[1:] if argv is None else argv),
           "train": train, "genome": genome, "fitness": best, "default_fitness": tuner.history[0]["best"]
           if tuple(hand) == tuple(tuner.history[0]["genome"]) else None,
           "weights": tuner.weights(genome).tolist(), "tune_seconds": time.perf_counter() - t0,
           "history": tuner.history}
    print(f"best genome {genome} (fitness {best}; the default weights score {len(train) * 10_000} by "
          f"construction), weights {out['weights']}", flush=True)
    if genome == hand:
        print("the GA kept the default weights: nothing to judge", flush=True)
    else:
        out["held_out"] = judge(genome, hand, boards("generated", held, args.max_units), be, kwargs, "held-out")
        q = _ids(args.qualifier)
        if q:
            out["qualifier"] = judge(genome, hand, boards("qualifier", q, args.max_units), be, kwargs, "qualifier")
        for k in ("held_out", "qualifier"):
            if k in out:
                r = out[k]
                print(f"{k}: tuned more on {r['more']}, equal {r['equal']}, less {r['less']} of {len(r['boards'])}; "
                      f"totals {r['tuned_total']:,} against {r['default_total']:,}", flush=True)
    if args.save:
        args.save.write_text(json.dumps(out, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
