"""``puzzlebatch hextris tune`` and ``puzzlebatch hextris rank`` (the beam player's ``play`` is in
:mod:`puzzlebatch.cli.hextris.commands`)."""

from __future__ import annotations

from puzzlebatch import limits as L
from puzzlebatch.cli.options import add_backend_argument


def run_tune(args) -> int:
    from puzzlebatch.api import hextris
    from puzzlebatch.cli.options import print_json, run_options

    r = hextris.tune(args.problems, seeds_per_problem=args.seeds_per_problem, generations=args.generations,
                     population=args.population, elite=args.elite, newcomers=args.newcomers, gene_low=args.gene_low,
                     gene_high=args.gene_high, p_major=args.p_major, beam=args.beam, keep=args.keep,
                     fitness=args.fitness, genes=args.genes, search_beam=args.search_beam, normalise=args.normalise,
                     seed=args.seed, held_out=args.held_out, save_weights=args.save_weights, png=args.png,
                     backend=args.backend, options=run_options(args))
    print_json(r.to_dict())
    return 0


def run_rank(args) -> int:
    from puzzlebatch.api import hextris
    from puzzlebatch.cli.options import print_json

    r = hextris.rank(args.results, backend=args.backend)
    if args.json:
        print_json(r.to_dict())
        return 0
    for row in r.problems:
        print(f"problem {row['problemId']:2d}: score {row['score']:7d}  rank {row['rank']:3d}/{row['teams']}  "
              f"best {row['best']} ({row['best_team']})  TaupeGoons {row['taupegoons']}")
    print(f"sum of ranks {r.rank_sum}: place {r.overall_place} of 316 on the qualifying leaderboard with ours inserted "
          f"({r.leader}: {r.leader_rank_sum})")
    return 0


def run_generate(args) -> int:
    import json
    from pathlib import Path

    from puzzlebatch.outputs import write_text
    from puzzlebatch.puzzles.hextris.generate import generate_problems

    docs = generate_problems(args.seed, args.count)
    if args.out is None:
        for d in docs:  # the official problem format, one document a line
            print(json.dumps(d))
        return 0
    for d in docs:
        path = Path(args.out) / f"problem_{d['id']}.json"
        write_text(path, json.dumps(d) + "\n", "--out")
        print(path)
    return 0


def register(verbs) -> None:
    p = verbs.add_parser("generate", help="random problems with the qualifier's statistics (official format)")
    p.add_argument("--seed", type=L.seed, default=0, help="the first problem's seed (problem id 1000 + seed)")
    p.add_argument("--count", type=L.positive_int, default=1, help="problems, of seeds seed, seed + 1, ...")
    p.add_argument("--out", metavar="DIR", help="write problem_<id>.json files there (default: one JSON a line on "
                                                "stdout)")
    p.set_defaults(func=run_generate)

    p = verbs.add_parser("tune", help="tune the beam player's weights with the document's genetic algorithm")
    p.add_argument("--problems", default="0-24", help="qualifier problems, e.g. 0-24 or 1,3,5-7 (default 0-24)")
    p.add_argument("--seeds-per-problem", type=L.positive_int, default=1, help="training seeds per problem (default 1)")
    p.add_argument("--generations", type=L.positive_int, default=5, help="generations of the genetic algorithm")
    p.add_argument("--population", type=L.population, default=12, help="genomes per generation")
    p.add_argument("--elite", type=L.non_negative_int, default=4, help="best genomes kept each generation")
    p.add_argument("--newcomers", type=L.non_negative_int, default=2, help="random genomes added each generation")
    p.add_argument("--gene-low", type=L.non_negative_int, default=0, help="smallest gene value")
    p.add_argument("--gene-high", type=L.non_negative_int, default=10, help="largest gene value")
    p.add_argument("--p-major", type=L.probability, default=0.1,
                   help="chance of a major mutation per gene (default 0.1)")
    p.add_argument("--beam", type=L.beam, default=1, help="beam of the player during tuning (default 1)")
    p.add_argument("--keep", type=L.beam, default=4, help="candidates per state during tuning (default 4)")
    p.add_argument("--fitness", choices=["move", "exact"], default="move",
                   help="move: planned move score; exact: move + power of the spelled solutions (default move)")
    p.add_argument("--genes", choices=["absolute", "relative"], default="absolute",
                   help="absolute: a weight is its gene times the feature's step (the document's); relative: steps "
                        "of x1.41 around the player's default weights, the middle gene being the default")
    p.add_argument("--search-beam", type=L.non_negative_int, default=None,
                   help="--fitness exact: the searching phrase weaver's states per row (0: the greedy weavings only; "
                        "default: the player's)")
    p.add_argument("--normalise", action="store_true",
                   help="the fitness sums each problem's total relative to the default weights' (10,000 = as "
                        "good), so that the large boards do not outweigh the small ones")
    p.add_argument("--seed", type=L.seed, default=0, help="the GA's random seed")
    add_backend_argument(p)
    p.add_argument("--out", metavar="FILE.h5", help="record every genome played and checkpoint every generation "
                                                    "(default: results/hextris.h5, one run a group)")
    p.add_argument("--resume", action="store_true", help="continue the unfinished tuning run in --out")
    from puzzlebatch.cli.options import add_scheduler_arguments as add_scheduler

    add_scheduler(p)  # one problem's games per task
    p.add_argument("--held-out", metavar="PROBLEMS",
                   help="after tuning, play every seed of these problems with the best genome and with the default "
                        "weights (the split: tune on --problems, judge here): qualifier numbers, generated boards "
                        "(g100-119: the seeds of `hextris generate`, boards no tuning saw) or both (3,g100-119)")
    p.add_argument("--save-weights", metavar="FILE", help="write the best weights (JSON, for play --weights)")
    p.add_argument("--png", metavar="FILE", help="plot best and mean fitness per generation")
    p.set_defaults(func=run_tune)

    p = verbs.add_parser("rank", help="rank solutions of the 25 problems on the 2015 qualifying leaderboard")
    p.add_argument("results", metavar="RESULTS.json", help="official solutions JSON")
    add_backend_argument(p)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run_rank)
