"""``puzzlebatch hextris play`` (the beam player), ``puzzlebatch hextris tune`` and ``puzzlebatch hextris rank``."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from puzzlebatch import limits as L
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.jit.clock import work_clock
from puzzlebatch.puzzles.hextris.model import Problem
from puzzlebatch.runners.hextris import player as hextris_player
from puzzlebatch.runners.hextris.problems import parse_problem_range
from puzzlebatch.errors import EXIT_INTERRUPTED
from puzzlebatch.runners.options import add_backend_argument


def run_tune(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.puzzles.hextris.model import official_problem
    from puzzlebatch.results.store import ResultsStore
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.hextris.tune import TuneConfig, Tuner
    from puzzlebatch.runners.engine.progress import bar

    if args.resume and not args.out:
        raise PuzzleInputError("--resume needs --out FILE.h5 (the results file of the interrupted run)")
    if args.generations < 0 or args.seeds_per_problem < 1:
        raise PuzzleInputError("--generations must be >= 0 and --seeds-per-problem >= 1")
    ids = parse_problem_range(args.problems)
    if args.held_out:
        parse_problem_range(args.held_out)  # a bad range fails now, not after the tuning
    games = [(p, s) for p in map(official_problem, ids) for s in list(dict.fromkeys(p.source_seeds))
             [: args.seeds_per_problem]]
    cfg = TuneConfig(population=args.population, elite=args.elite, newcomers=args.newcomers,
                     gene_low=args.gene_low, gene_high=args.gene_high, p_major=args.p_major, coding=args.genes)
    cfg.check()
    backend = select_backend(args.backend)
    tuner = Tuner(games, backend, cfg, seed=args.seed, beam=args.beam, keep=args.keep, fitness=args.fitness,
                  search_beam=args.search_beam, normalise=args.normalise)
    store = run = None
    params = {"problems": ids, "seeds_per_problem": args.seeds_per_problem, "population": args.population,
              "elite": args.elite, "newcomers": args.newcomers, "genes": [args.gene_low, args.gene_high],
              "p_major": args.p_major, "beam": args.beam, "keep": args.keep, "fitness": args.fitness}
    if args.genes != "absolute" or args.search_beam is not None or args.normalise:  # older runs lack these keys
        params |= {"coding": args.genes, "search_beam": args.search_beam, "normalise": args.normalise}
    if args.out:
        out = Path(args.out)
        if args.resume and not out.exists():
            raise PuzzleInputError(f"--resume: {out} does not exist; give the --out file of the interrupted run")
        store = ResultsStore(out, "a")
        if args.resume:
            run = store.latest_run("hextris", "ga-tune", unfinished=True, where=lambda a: a["params"] == params)
            if run is None:
                store.close()
                raise PuzzleInputError(f"--resume: {out} has no unfinished tuning run with these settings")
            ck = run.load_checkpoint()
            if ck is not None:
                tuner.restore(*ck)
        else:
            run = store.create_run("hextris", "ga-tune", backend=backend.name, device=backend.device,
                                   seed=args.seed, params=params)

    def on_new(gen, genomes, fit):
        if run is not None:
            run.append_items(generation=np.full(len(genomes), gen, np.int64), genome=np.array(genomes, np.int64),
                             fitness=np.asarray(fit, np.int64))

    pool = None
    if args.scheduler:  # one problem's games per Dask task
        from puzzlebatch.runners.engine.distributed import open_pool
        from puzzlebatch.runners.hextris.dist import pool_evaluator

        pool = open_pool(args.scheduler, args.backend, args.item_seconds)
        tuner.evaluator = pool_evaluator(pool)
    t0 = work_clock()
    progress = bar("hextris tune", unit="generation", total=args.generations)
    progress.update(min(tuner.generation, args.generations))
    while tuner.generation < args.generations:
        rec = tuner.step(on_new)
        if run is not None:
            run.save_checkpoint(*tuner.checkpoint())
        progress.update(1)
        print(f"generation {rec['generation']}: best {rec['best']} {rec['genome']}, mean {rec['mean']:.0f}, "
              f"{rec['evaluated']} new genomes, {rec['seconds']:.1f} s", file=sys.stderr)
    progress.close()
    if pool is not None:
        pool.close()
        print("\n".join(pool.work.lines()), file=sys.stderr)
    genome, fitness = tuner.best() if tuner.cache else ([], 0)
    if run is not None:
        run.set_result({"best_genome": genome, "best_fitness": fitness, "history": tuner.history})
        run.finish("done", seconds=work_clock() - t0)
        store.close()
    held = None
    if args.held_out and genome:  # the best genome against the player's default on games the GA never saw
        from puzzlebatch.runners.hextris.tune import evaluate, hand_genes

        hand = hand_genes(cfg.coding, cfg.gene_low, cfg.gene_high).tolist()
        per_problem = {}
        for p in map(official_problem, parse_problem_range(args.held_out)):
            fit = evaluate(np.array([genome, hand]), [(p, s) for s in dict.fromkeys(p.source_seeds)], backend,
                           **dict(tuner.eval_kwargs(), scales=None))  # plain totals: these are other problems
            per_problem[p.id] = [int(fit[0]), int(fit[1])]
            print(f"held-out problem {p.id}: best genome {fit[0]}, default weights {fit[1]}", file=sys.stderr)
        held = {"problems": parse_problem_range(args.held_out), "best": sum(v[0] for v in per_problem.values()),
                "default": sum(v[1] for v in per_problem.values()),
                "better_on": sum(v[0] > v[1] for v in per_problem.values()),
                "worse_on": sum(v[0] < v[1] for v in per_problem.values()), "per_problem": per_problem}
        print(f"held-out {args.held_out}: best genome {held['best']}, default weights {held['default']} (better "
              f"on {held['better_on']} problems, worse on {held['worse_on']})", file=sys.stderr)
    if args.save_weights and genome:
        from puzzlebatch.outputs import write_text
        write_text(args.save_weights, json.dumps({"weights": tuner.weights(genome).tolist(), "genes": genome,
                                                  "coding": cfg.coding, "fitness": fitness, "held_out": held}) + "\n",
                   "--save-weights")
    if args.png and tuner.history:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        gens = [h["generation"] for h in tuner.history]
        ax.plot(gens, [h["best"] for h in tuner.history], "o-", label="best")
        ax.plot(gens, [h["mean"] for h in tuner.history], "s--", label="mean")
        ax.set_xlabel("generation")
        ax.set_ylabel(("move score" if args.fitness == "move" else "exact total") +
                      (" (10,000 a problem = default)" if args.normalise else ""))
        ax.set_title("hextris tune: fitness per generation")
        ax.legend()
        fig.tight_layout()
        from puzzlebatch.outputs import save_with

        save_with(args.png, fig.savefig, "--png")
        plt.close(fig)
    doc = {"backend": backend.name, "best_genes": genome, "best_fitness": fitness, "history": tuner.history,
           "games": len(games), "held_out": held}
    if run is not None:
        doc |= {"out": str(args.out), "run_id": run.id}
    print_json(doc)
    return 0


def run_rank(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.puzzles.hextris.model import load_json, load_phrases, official_problem
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.hextris.playouts import parse_solutions, score_solutions
    from puzzlebatch.runners.hextris.rank import problem_scores, rank_scores, standing

    entries = parse_solutions(load_json(args.results, "solutions"), args.results)
    problems = {i: official_problem(i) for i in range(25)}
    bad = [e["problemId"] for e in entries if e["problemId"] not in problems]
    if bad:
        raise PuzzleInputError(f"{args.results}: problemId {bad[0]} is not a qualifier problem (0..24)")
    run = score_solutions(problems, entries, load_phrases(), select_backend(args.backend))
    totals: dict = {}
    for s in run.scores:  # the best solution of each game counts
        totals[(s.problemId, s.seed)] = max(totals.get((s.problemId, s.seed), 0), s.total)
    scores = problem_scores(problems, totals)
    ranks = rank_scores(scores)
    table = standing(scores)
    rank_sum = table.rank_sum
    rows = [{"problemId": r.problem_id, "score": r.score, "rank": r.rank, "teams": r.teams, "best": r.best,
             "best_team": r.best_team, "gap_to_best": r.best - r.score, "taupegoons": r.taupegoons} for r in ranks]
    if args.json:
        print_json({"backend": run.backend, "problems": rows, "rank_sum": rank_sum, "overall_place": table.place,
                    "leader": table.leader, "leader_rank_sum": table.leader_sum, "first": table.first})
        return 0
    for r in rows:
        print(f"problem {r['problemId']:2d}: score {r['score']:7d}  rank {r['rank']:3d}/{r['teams']}  "
              f"best {r['best']} ({r['best_team']})  TaupeGoons {r['taupegoons']}")
    print(f"sum of ranks {rank_sum}: place {table.place} of 316 on the qualifying leaderboard with ours inserted "
          f"({table.leader}: {table.leader_sum})")
    return 0


def register(verbs) -> None:
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
    p.add_argument("--beam", type=L.positive_int, default=1, help="beam of the player during tuning (default 1)")
    p.add_argument("--keep", type=L.positive_int, default=4, help="candidates per state during tuning (default 4)")
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
    p.add_argument("--out", metavar="FILE.h5", help="record every genome played and checkpoint every generation")
    p.add_argument("--resume", action="store_true", help="continue the unfinished tuning run in --out")
    from puzzlebatch.runners.options import add_scheduler_arguments as add_scheduler

    add_scheduler(p)  # one problem's games per task
    p.add_argument("--held-out", metavar="PROBLEMS",
                   help="after tuning, play every seed of these problems with the best genome and with the default "
                        "weights (the split: tune on --problems, judge here)")
    p.add_argument("--save-weights", metavar="FILE", help="write the best weights (JSON, for play --weights)")
    p.add_argument("--png", metavar="FILE", help="plot best and mean fitness per generation")
    p.set_defaults(func=run_tune)

    p = verbs.add_parser("rank", help="rank solutions of the 25 problems on the 2015 qualifying leaderboard")
    p.add_argument("results", metavar="RESULTS.json", help="official solutions JSON")
    add_backend_argument(p)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run_rank)


# -- the `hextris play` command (beam player) -----------------------------------------------------------------------
def _phrases(args) -> list[str]:
    from puzzlebatch.puzzles.hextris.model import load_phrases

    if args.no_phrases:
        return []
    out = list(args.phrase or [])
    if args.phrases:
        out += load_phrases(args.phrases)
    return out or load_phrases()


def run_play_beam(args, problems: list[Problem]) -> int:
    """``puzzlebatch hextris play`` with the beam player: official solutions (or ``--json`` with scores) on
    stdout; ``--out`` stores each problem's solutions as it finishes and ``--resume`` skips those."""
    import sys

    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.progress import bar

    if args.resume and not args.out:
        raise PuzzleInputError("--resume needs --out FILE.h5 (the results file of the interrupted run)")
    if args.seed is not None and args.all_seeds:
        raise PuzzleInputError("--seed and --all-seeds: give one of them")
    if args.beam < 1 or args.keep < 1:
        raise PuzzleInputError(f"--beam {args.beam} --keep {args.keep}: both must be at least 1")
    seeds = None
    if args.seed is not None:
        for p in problems:
            if args.seed not in p.source_seeds:
                raise PuzzleInputError(f"--seed {args.seed}: not a seed of problem {p.id} "
                                       f"({', '.join(map(str, p.source_seeds))})")
        seeds = {p.id: [args.seed] for p in problems}
    weights = hextris_player.load_weights(args.weights) if args.weights else hextris_player.DEFAULT_WEIGHTS
    phrases = _phrases(args)
    backend = select_backend(args.backend)
    t0 = time.perf_counter()  # the time limit is wall time
    w0 = work_clock()  # reported seconds leave compiling out
    done: list[dict] = []
    store = run = None
    if args.out:
        from puzzlebatch.results.store import ResultsStore

        params = {"problems": [p.id for p in problems], "weights": np.asarray(weights).tolist(), "beam": args.beam,
                  "keep": args.keep, "seed": args.seed, "phrases": phrases, "tag": args.tag}
        out = Path(args.out)
        if args.resume and not out.exists():
            raise PuzzleInputError(f"--resume: {out} does not exist; give the --out file of the interrupted run")
        store = ResultsStore(out, "a")
        if args.resume:
            run = store.latest_run("hextris", "beam-play", unfinished=True, where=lambda a: a["params"] == params)
            if run is None:
                store.close()
                raise PuzzleInputError(f"--resume: {out} has no unfinished beam play with these settings")
            ck = run.load_checkpoint()
            if ck is not None:
                done = list(ck[1].get("done", []))
        else:
            run = store.create_run("hextris", "beam-play", backend=backend.name, device=backend.device, seed=None,
                                   params=params)
    finished = {d["entry"]["problemId"] for d in done}
    todo = [p for p in problems if p.id not in finished]
    progress = bar("hextris play", unit="problem", total=len(problems))
    progress.update(len(problems) - len(todo))

    import threading

    play, pool = hextris_player.play_problems, None  # looked up now: tests put a stand-in there
    if getattr(args, "scheduler", None):  # one problem per Dask task (hextris_dist)
        from puzzlebatch.runners.engine.distributed import open_pool
        from puzzlebatch.runners.hextris.dist import play_on_pool, problem_specs

        pool = open_pool(args.scheduler, args.backend, args.item_seconds)
        play = play_on_pool(pool, problem_specs(args.problems, problems))
    lock = threading.Lock()
    stopped = [False]  # set at the time limit: the worker thread records nothing more

    def on_problem(p, solved):
        with lock:
            if stopped[0]:
                return
            done.extend({"entry": s.entry, "move_score": s.move_score, "power_score": s.power_score,
                         "total": s.total, "end": s.end, "woven": s.woven} for s in solved)
            if run is not None:
                run.save_checkpoint({"problem_ids": np.array(sorted({d["entry"]["problemId"] for d in done}))},
                                    {"done": done})
            progress.update(1)

    def work():
        play(todo, backend, seeds=seeds, weights=weights, beam=args.beam, keep=args.keep, phrases=phrases,
             seconds=None if args.time is None else max(0.1, args.time - (time.perf_counter() - t0)),
             tag=args.tag, weave_phrases=bool(phrases), on_problem=on_problem)

    late = False
    try:
        if args.time is None:
            work()
        else:
            # in a worker thread, so that the limit holds even during a long step (numba compiling on first use,
            # one long weave): at the limit the problems finished so far are reported
            worker = threading.Thread(target=work, daemon=True)
            worker.start()
            worker.join(max(0.0, t0 + 0.95 * args.time - 0.3 - time.perf_counter()))
            late = worker.is_alive()
    except KeyboardInterrupt:
        progress.close()
        if run is not None:
            run.finish("interrupted", seconds=work_clock() - w0)
            store.close()
            print(f"puzzlebatch: interrupted; resume with --out {args.out} --resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    with lock:
        stopped[0] = True
    progress.close()
    if pool is not None:
        pool.close()
        print("\n".join(pool.work.lines()), file=sys.stderr)
    seconds = work_clock() - w0
    if late:
        more = f"; resume with --out {args.out} --resume" if args.out else ""
        print(f"puzzlebatch: time limit: {len({d['entry']['problemId'] for d in done})} of {len(problems)} problems "
              f"finished{more}", file=sys.stderr)
    code = _report(args, backend, weights, done, run, store, seconds, late)
    if late and _own_process():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # do not wait for the worker's current step (it holds no file: the store is closed)
    return code


def _own_process() -> bool:
    """True when this process is the ``puzzlebatch`` command itself (``python -m puzzlebatch`` or the console
    script), not a caller that imported it (a test): only then may a late worker thread be abandoned by exiting."""
    import sys

    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    return (spec is not None and spec.name.split(".")[0] == "puzzlebatch") or \
        os.path.basename(sys.argv[0] or "") == "puzzlebatch"


def _report(args, backend, weights, done, run, store, seconds, late) -> int:
    import sys

    from puzzlebatch.runners.options import print_json, write_json

    if run is not None:
        # a run stopped by the time limit and resumed later holds the first part's rows already
        have = run.items()
        stored = set(zip(have["problemId"].tolist(), have["seed"].tolist())) if have else set()
        new = [d for d in done if (d["entry"]["problemId"], d["entry"]["seed"]) not in stored]
        if new:
            run.append_items(problemId=np.array([d["entry"]["problemId"] for d in new], np.int64),
                             seed=np.array([d["entry"]["seed"] for d in new], np.int64),
                             total=np.array([d["total"] for d in new], np.int64),
                             solution=np.array([d["entry"]["solution"] for d in new], dtype=object))
        result = {"games": len(done), "total": int(sum(d["total"] for d in done))}
        # stopped by the time limit: "interrupted" (the store's status for an unfinished run), so that --resume
        # plays the problems left
        run.set_result(result | {"stopped": "time_limit"} if late else result)
        run.finish("interrupted" if late else "done", seconds=seconds)
        store.close()
    if args.json:
        doc = {"backend": backend.name, "device": backend.device, "seconds": seconds, "player": "beam",
               "beam": args.beam, "keep": args.keep, "weights": np.asarray(weights).tolist(),
               "stopped": "time_limit" if late else None,
               "entries": [d["entry"] for d in done],
               "scores": [{k: d[k] for k in ("move_score", "power_score", "total", "end", "woven")}
                          | {"problemId": d["entry"]["problemId"], "seed": d["entry"]["seed"]} for d in done]}
        if run is not None:
            doc |= {"out": str(args.out), "run_id": run.id}
        print_json(doc)
        return 0
    write_json([d["entry"] for d in done])  # the official solutions file
    print(f"{len(done)} games, total score {sum(d['total'] for d in done)} "
          f"(power {sum(d['power_score'] for d in done)}), {seconds:.2f} s on {backend.name}", file=sys.stderr)
    return 0
