"""``puzzlebatch cubes ga``: the genetic algorithm on a figure, history and checkpoints in the store."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from puzzlebatch import limits as L
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.errors import EXIT_INTERRUPTED


def _config(args):
    from puzzlebatch.runners.engine.ga import GAConfig

    return GAConfig(population=args.population, generations=args.generations, p_mutation=args.mutation,
                    n_parents=args.parents, selection=args.selection, tournament_size=args.tournament,
                    replacement=args.replacement)


def _ops(args):
    from puzzlebatch.runners.cubes.ga import Operators

    for name in ("block", "plane", "ruin"):
        v = getattr(args, name)
        if not 0.0 <= v <= 1.0:
            raise PuzzleInputError(f"--{name} {v}: a probability in [0, 1]")
    return Operators(p_block=args.block, p_plane=args.plane, p_ruin=args.ruin, grow=args.grow)


def _check_ga(args) -> None:
    """The cheap checks of ``cubes ga`` (``run --dry-run``): the figure and cube set fit, the GA settings hold."""
    from puzzlebatch.runners.cubes.args import cube_inputs

    cube_inputs(args)
    _config(args).check()


def run_ga_cmd(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.runners.engine.ga_history import GARecorder, load_state
    from puzzlebatch.results.store import ResultsStore
    from puzzlebatch.runners.cubes import ga as cubes_ga
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.cubes.args import assembly_lines, cube_inputs, default_out, layers_text
    from puzzlebatch.runners.engine.progress import bar

    figure, cube_set = cube_inputs(args)
    config, ops = _config(args), _ops(args)
    config.check()
    backend = select_backend(args.backend)
    params = {"figure": str(figure), "figure_cells": figure.cells.tolist(), "cubes": cube_set.source,
              "cubes_text": cube_set.to_text(), "config": config.__dict__, "operators": ops.__dict__,
              "seed_layers": args.seed_layers}
    out = Path(args.out) if args.out else default_out("ga")
    if args.resume and not out.exists():
        raise PuzzleInputError(f"--resume: {out} does not exist; give the --out file of the interrupted run")
    store = ResultsStore(out, "a")
    run, state, seeding = None, None, None
    if args.resume:
        run = store.latest_run("cubes", "ga", unfinished=True, where=lambda a: a.get("seed") == args.seed and all(
            a["params"].get(k) == params[k] for k in ("figure_cells", "cubes_text", "config", "operators",
                                                      "seed_layers")))
        if run is not None:
            state = load_state(run)
            seeding = (run.attrs.get("result") or {}).get("seeding")
        if run is None:
            store.close()
            raise PuzzleInputError(f"--resume: {out} has no unfinished GA run of figure {figure} with seed "
                                   f"{args.seed} and these settings")
    else:
        run = store.create_run("cubes", "ga", backend=backend.name, device=backend.device, seed=args.seed,
                               params=params, instances={"cells": figure.cells, "cube_numbers":
                                                         np.array(cube_set.numbers), "cube_faces": cube_set.faces})
    progress = bar(f"cubes ga {figure}", unit="gen", total=config.generations)
    recorder = GARecorder(run, args.checkpoint_every, progress)
    if state is None and args.seed_layers:
        from puzzlebatch.runners.engine.ga import GeneticAlgorithm

        if len({int(z) for z in figure.cells[:, 2]}) > 1:
            seeds, seeding = cubes_ga.layer_seeds(figure, cube_set, backend, config, ops, args.seed,
                                                  wanted=max(2, config.population // 4))
            run.set_result({"seeding": seeding})
            state = GeneticAlgorithm(cubes_ga.ga_problem(figure, cube_set, ops), backend, config,
                                     args.seed).start(seeds)
    try:
        result, state = cubes_ga.run_ga(figure, cube_set, backend, config, ops, args.seed, state=state,
                                        on_generation=recorder, seeding=seeding)
    except KeyboardInterrupt:
        progress.close()
        run.finish("interrupted")
        store.close()
        print(f"puzzlebatch: interrupted; resume with the same arguments and --out {out} --resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    progress.close()
    recorder.commit(state)
    from puzzlebatch.runners.cubes.args import contract

    doc = contract(result.to_json()) | {"device": backend.device, "out": str(out), "run_id": run.id}
    doc["solved"] = doc.pop("success")  # the shared name of a first-solution verb's answer
    run.set_result(result.to_json())
    run.finish("done" if result.success or state.generation >= config.generations else "interrupted",
               seconds=result.seconds)
    store.close()
    if args.json:
        print_json(doc)
    elif result.success:
        print(f"GA built figure {figure} ({figure.n_cells} cells) at generation {result.generation} "
              f"(seed {args.seed}, population {config.population}) in {result.seconds:.3f} s, "
              f"{result.evaluations_per_second:,.0f} evaluations/s on {backend.name}")
        print(layers_text(result.assembly))
        print("\n".join(assembly_lines(result.assembly)))
        print(f"history: {out} (run {run.id})")
    else:
        print(f"GA did not build figure {figure} in {result.generation} generations: best {result.best_cubes} of "
              f"{figure.n_cells} cubes ({result.evaluations_per_second:,.0f} evaluations/s on {backend.name}); "
              f"history: {out} (run {run.id})")
    return 0


def register(verbs) -> None:
    from puzzlebatch.runners.cubes.args import add_common

    p = verbs.add_parser("ga", help="build a figure with the genetic algorithm (the document's method, extended)")
    add_common(p)
    p.add_argument("--seed", type=L.seed, default=0, help="random seed (default 0)")
    p.add_argument("--population", type=L.population, default=256, help="individuals (default 256)")
    p.add_argument("--generations", type=L.positive_int, default=1000, help="generation limit (default 1000)")
    p.add_argument("--mutation", type=L.probability, default=0.1, help="mutation probability per child (default 0.1)")
    p.add_argument("--parents", type=L.positive_int, default=2,
                   help="carrier + donors per child (default 2; more is multi-parent crossover)")
    p.add_argument("--selection", choices=["roulette", "tournament"], default="roulette",
                   help="carrier choice: fitness-proportional (the document's) or tournament")
    p.add_argument("--tournament", type=L.positive_int, default=2, help="tournament size (with --selection tournament)")
    p.add_argument("--replacement", choices=["carrier", "plus"], default="carrier",
                   help="carrier: a child replaces its carrier if not worse (the document's elitism); "
                        "plus: the best of parents and children survive")
    p.add_argument("--block", type=L.probability, default=0.0,
                   help="probability that a crossover moves a whole row or plane of the donor (default 0)")
    p.add_argument("--plane", type=L.probability, default=0.5, help="given a block move, probability of a plane (0.5)")
    p.add_argument("--ruin", type=L.probability, default=0.0,
                   help="probability that a mutation empties a hole's neighbourhood and refills the figure from "
                        "every unused cube (ruin and recreate) instead of moving one cube (default 0)")
    p.add_argument("--grow", action="store_true", help="place cubes next to placed ones first")
    p.add_argument("--seed-layers", action="store_true",
                   help="seed the population with GA-built bottom layers (e.g. 2x2x1 layers for 2x2x2)")
    p.add_argument("--out", help="results file (default: results/cubes-ga-<time>.h5)")
    p.add_argument("--resume", action="store_true", help="continue the unfinished GA run in --out")
    p.add_argument("--checkpoint-every", type=L.non_negative_seconds, default=30.0, metavar="SECONDS",
                   help="commit history and save the population this often (default 30)")
    p.set_defaults(func=run_ga_cmd, check=_check_ga)
