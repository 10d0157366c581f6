"""``puzzlebatch cubes solve|count|ga``: connector cubes on the command line (parse, call
:mod:`puzzlebatch.api.cubes`, print)."""

from __future__ import annotations

from puzzlebatch.cli.cubes.args import add_common, assembly_lines, cube_inputs, layers_text
from puzzlebatch.cli.options import add_search_arguments
from puzzlebatch.errors import EXIT_NO_SOLUTION


def _knobs(args) -> dict:
    return {"budget": args.budget, "batch_size": args.batch_size, "frontier": args.frontier}


# -- solve -------------------------------------------------------------------------------------------------------
def run_solve(args) -> int:
    from puzzlebatch.api import cubes
    from puzzlebatch.cli.options import print_json, run_options

    r = cubes.solve(args.figure, cubes=args.cubes, backend=args.backend, order=args.order, png=args.png,
                    **_knobs(args), options=run_options(args))
    if args.json:
        print_json({k: v for k, v in r.to_dict().items() if v is not None or k == "assembly"})
    elif r.solved:
        print(f"figure {r.figure} ({r.n_cells} cells) from {r.cubes} cubes: one assembly")
        print(layers_text(r.assembly))
        print("\n".join(assembly_lines(r.assembly)))
        print(f"{r.nodes} nodes in {r.seconds:.3f} s on {r.backend} ({r.device})")
        if r.picture:
            print(f"picture: {r.picture}")
    else:
        print(f"figure {r.figure} cannot be built from these {r.cubes} cubes: the whole search tree "
              f"({r.nodes} nodes) holds no assembly (searched on {r.backend})")
    return 0 if r.solved else EXIT_NO_SOLUTION  # not solved: the whole tree was searched


# -- count -------------------------------------------------------------------------------------------------------
def run_count(args) -> int:
    from puzzlebatch.api import cubes
    from puzzlebatch.cli.options import print_json, run_options

    r = cubes.count(args.figure, cubes=args.cubes, backend=args.backend, order=args.order,
                    verify=bool(getattr(args, "verify", False)), **_knobs(args), options=run_options(args))
    doc = {k: v for k, v in r.to_dict().items() if v is not None or k in ("out", "run_id")}
    if args.json:
        print_json(doc)
    elif r.complete:
        print(f"figure {r.figure} from {r.cubes} cubes: {r.assemblies} assemblies, {r.distinct} "
              f"distinct up to the figure's {r.symmetries} rotations")
        print(f"{r.nodes} nodes in {r.seconds:.3f} s on {r.backend} ({r.device})")
        if r.verified:
            print(verify_line(doc))
        print(f"results: {r.out} (run {r.run_id})")
    else:
        print(f"stopped after {r.batches} batches with {r.items_left} work items left; {r.assemblies} "
              f"assemblies so far. Resume with --out {r.out} --resume")
    return 0


def _search_knobs(p) -> None:
    add_search_arguments(p)
    p.add_argument("--order", choices=["lookup", "exact", "fixed"], default="lookup",
                   help="branching cell: lookup = shortest candidate list (default), exact = fewest fitting "
                        "placements with forward checking, fixed = z, y, x order")


def register(verbs) -> None:
    """Add the ``cubes`` verbs to the family's sub-parsers (the registry's ``commands`` hook)."""
    from puzzlebatch.cli.options import add_count_arguments
    from puzzlebatch.cli.options import add_scheduler_arguments as add_scheduler

    p = verbs.add_parser("solve", help="one assembly of a figure, or a proof that none exists")
    add_common(p)
    _search_knobs(p)
    p.add_argument("--png", "--svg", dest="png", metavar="FILE", help="draw the assembly (.png or .svg)")
    p.add_argument("--out", help="also record the run in this results file (.h5)")
    add_scheduler(p)  # the first assembly in DFS order, searched by the cluster
    p.set_defaults(func=run_solve, check=cube_inputs)

    p = verbs.add_parser("count", help="count all assemblies and the distinct ones; store in HDF5")
    add_common(p)
    _search_knobs(p)
    p.add_argument("--out", help="results file (default: results/cubes.h5, one run a group)")
    add_count_arguments(p)
    p.set_defaults(func=run_count, check=cube_inputs)

    from puzzlebatch.cli.cubes import ga as cubes_ga_cli  # the GA verb lives in its own module

    cubes_ga_cli.register(verbs)


def verify_line(doc: dict) -> str:
    from puzzlebatch.runners.engine.verify import line

    return line(doc) or ""


def warmup_tasks(b: list[str], tmp) -> list[tuple[str, list[str]]]:
    """(what, argv) of the tiny commands (argv after the family's name) that compile everything this family uses
    (``puzzlebatch warmup``); ``b`` is the backend option, ``tmp`` a scratch folder."""
    out = str(tmp / "warmup.h5")
    return [("solve", ["solve", "--figure", "2x1x1", *b, "--json"]),
            ("count", ["count", "--figure", "2x1x1", *b, "--out", out, "--json"]),
            ("ga", ["ga", "--figure", "2x1x1", "--population", "8", "--generations", "2", *b,
                    "--out", out, "--json"])]
