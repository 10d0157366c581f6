"""``puzzlebatch cubes ga``: the genetic algorithm on a figure, history and checkpoints in the store (parse, call
:func:`puzzlebatch.api.cubes.ga`, print)."""

from __future__ import annotations

from puzzlebatch import limits as L


def _settings(args) -> dict:
    """The GA's settings and operators as the API's keyword arguments."""
    return {"population": args.population, "generations": args.generations, "mutation": args.mutation,
            "parents": args.parents, "selection": args.selection, "tournament": args.tournament,
            "replacement": args.replacement, "block": args.block, "plane": args.plane, "ruin": args.ruin,
            "grow": args.grow, "repair": args.repair, "radius": args.radius, "repair_order": args.repair_order,
            "islands": args.islands, "migrate_every": args.migrate_every}


def _check_ga(args) -> None:
    """The cheap checks of ``cubes ga`` (``run --dry-run``): the figure and cube set fit, the GA settings hold."""
    from puzzlebatch.api.cubes import ga_config
    from puzzlebatch.cli.cubes.args import cube_inputs

    cube_inputs(args)
    ga_config(**_settings(args))


def run_ga_cmd(args) -> int:
    from puzzlebatch.api import cubes
    from puzzlebatch.cli.cubes.args import assembly_lines, layers_text
    from puzzlebatch.cli.options import print_json, run_options

    r = cubes.ga(args.figure, cubes=args.cubes, backend=args.backend, seed=args.seed, seed_layers=args.seed_layers,
                 **_settings(args), png=args.png, options=run_options(args))
    if args.json:
        print_json(r.to_dict())
    elif r.solved:
        print(f"GA built figure {r.figure} ({r.n_cells} cells) at generation {r.generation} "
              f"(seed {r.seed}, population {args.population}) in {r.seconds:.3f} s, "
              f"{r.evaluations_per_second:,.0f} evaluations/s on {r.backend}")
        print(layers_text(r.assembly))
        print("\n".join(assembly_lines(r.assembly)))
        print(f"history: {r.out} (run {r.run_id})")
        if r.picture:
            print(f"picture: {r.picture}")
    else:
        print(f"GA did not build figure {r.figure} in {r.generation} generations: best {r.best_cubes} of "
              f"{r.n_cells} cubes ({r.evaluations_per_second:,.0f} evaluations/s on {r.backend}); "
              f"history: {r.out} (run {r.run_id})" + (f"; picture of the best: {r.picture}" if r.picture else ""))
    return 0


def register(verbs) -> None:
    from puzzlebatch.cli.cubes.args import add_common

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
    p.add_argument("--repair", type=L.arg(L.REPAIR), default=0, metavar="NODES",
                   help="memetic repair: every mutation takes cubes out around a hole and refills the figure by a "
                        "backtracking search of at most NODES nodes (default 0: off; --grow --ruin 1 --mutation 0.5 "
                        "--repair 300 builds the 3x3x3)")
    p.add_argument("--radius", type=L.arg(L.REPAIR), default=7,
                   help="cubes the repair takes out around a hole (default 7)")
    p.add_argument("--islands", type=L.positive_int, default=1,
                   help="split the population into this many islands (carrier and donors from the child's own "
                        "island; default 1)")
    p.add_argument("--migrate-every", type=L.positive_int, default=10, metavar="GENERATIONS",
                   help="with --islands: each island's best replaces the next island's worst this often (default 10)")
    p.add_argument("--repair-order", choices=["constrained", "scan"], default="constrained",
                   help="the repair fills the most constrained cell first (default) or cells in scan order")
    p.add_argument("--seed-layers", action="store_true",
                   help="seed the population with GA-built bottom layers (e.g. 2x2x1 layers for 2x2x2)")
    p.add_argument("--png", "--svg", dest="png", metavar="FILE",
                   help="draw the best individual (.png or .svg): the assembly, or the cubes it placed")
    p.add_argument("--out", help="results file (default: results/cubes.h5, one run a group)")
    p.add_argument("--resume", action="store_true", help="continue the unfinished GA run in --out")
    p.add_argument("--checkpoint-every", type=L.non_negative_seconds, default=30.0, metavar="SECONDS",
                   help="commit history and save the population this often (default 30)")
    p.set_defaults(func=run_ga_cmd, check=_check_ga)
