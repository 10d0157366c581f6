"""``puzzlebatch cubes solve|count|ga``: connector cubes on the command line."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.runners.options import add_search_arguments, search_settings
from puzzlebatch.runners.cubes.args import add_common, assembly_lines, contract, cube_inputs, default_out, layers_text
from puzzlebatch.errors import EXIT_NO_SOLUTION



# -- solve -------------------------------------------------------------------------------------------------------
def run_solve(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.runners.cubes import solver as cubes
    from puzzlebatch.runners.engine.backend import select_backend

    figure, cube_set = cube_inputs(args)
    if args.png and Path(args.png).suffix.lower() not in (".png", ".svg"):  # fail before the search
        raise PuzzleInputError(f"--png: cannot draw {args.png!r}: use a .png or .svg file name")
    backend = select_backend(args.backend)
    settings = search_settings(args, backend, cubes.solve_settings(backend))
    from puzzlebatch.runners.engine.distributed import open_pool

    with open_pool(args.scheduler, args.backend, args.item_seconds) as pool:
        result = cubes.solve(figure, cube_set, backend, settings, order=args.order, pool=pool)
    doc = contract(result.to_json()) | {"device": backend.device}
    if args.out:
        from puzzlebatch.results.store import ResultsStore

        with ResultsStore(args.out, "a") as store:
            run = store.create_run("cubes", "solve", backend=backend.name, device=backend.device, seed=None,
                                   params={"figure": str(figure), "cubes": cube_set.source},
                                   instances={"cells": figure.cells, "cube_numbers": np.array(cube_set.numbers),
                                              "cube_faces": cube_set.faces})
            if result.solved:
                run.append_items(cell=np.array([a["cell"] for a in result.assembly]),
                                 cube=np.array([a["cube"] for a in result.assembly]),
                                 rotation=np.array([a["rotation"] for a in result.assembly]),
                                 faces=np.array([a["faces"] for a in result.assembly]))
            run.set_result(result.to_json())
            run.finish("done", seconds=result.seconds)
            doc |= {"out": str(args.out), "run_id": run.id}
    if args.png and result.solved:
        from puzzlebatch.results.cubes_pictures import draw_assembly

        doc["picture"] = str(draw_assembly(result.assembly, args.png, title=f"{figure} from {len(cube_set)} cubes"))
    if args.json:
        print_json(doc)
    elif result.solved:
        print(f"figure {figure} ({figure.n_cells} cells) from {len(cube_set)} cubes: one assembly")
        print(layers_text(result.assembly))
        print("\n".join(assembly_lines(result.assembly)))
        print(f"{result.nodes} nodes in {result.seconds:.3f} s on {backend.name} ({backend.device})")
        if "picture" in doc:
            print(f"picture: {doc['picture']}")
    else:
        print(f"figure {figure} cannot be built from these {len(cube_set)} cubes: the whole search tree "
              f"({result.nodes} nodes) holds no assembly (searched on {backend.name})")
    return 0 if result.solved else EXIT_NO_SOLUTION  # not solved: the whole tree was searched


# -- count -------------------------------------------------------------------------------------------------------
def run_count(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.runners.cubes import solver as cubes
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.count_session import CountSession
    from puzzlebatch.runners.options import count_options

    figure, cube_set = cube_inputs(args)
    backend = select_backend(args.backend)
    settings = search_settings(args, backend)
    params = {"figure": str(figure), "figure_cells": figure.cells.tolist(), "cubes": cube_set.source,
              "cubes_text": cube_set.to_text(), "order": args.order, "budget": settings.budget,
              "batch_size": settings.batch_size, "frontier_target": settings.frontier_target}

    def same_problem(p: dict) -> bool:
        return all(p.get(k) == params[k] for k in ("figure_cells", "cubes_text", "order"))

    session = CountSession(count_options(args), "cubes", "count", params, backend, default_out("count"), same_problem,
                           label=f"cubes count {figure}", describe=f"figure {figure} with these cubes",
                           series="assemblies", instances={"cells": figure.cells,
                                                           "cube_numbers": np.array(cube_set.numbers),
                                                           "cube_faces": cube_set.faces})
    try:
        result, rest, totals = cubes.count(figure, cube_set, backend, settings, frontier=session.frontier,
                                           totals=session.totals, on_batch=session.on_batch,
                                           max_batches=args.max_batches, elapsed=session.elapsed, pool=session.pool,
                                           order=args.order)
    except KeyboardInterrupt:
        return session.interrupted(f"puzzlebatch cubes count --figure {args.figure}")
    doc = contract(result.to_json()) | {"device": backend.device}
    if getattr(args, "verify", False) and result.complete:
        from puzzlebatch.runners.engine import verify

        again = verify.second_split(settings)
        second = cubes.count(figure, cube_set, backend, again, pool=session.pool, symmetry=False,
                             order=args.order)[0]
        doc["verified"] = verify.compare(f"cubes count --figure {args.figure}", result.to_json(), second.to_json(),
                                         ("assemblies", "distinct"), verify.describe(again, symmetry=False))
    doc |= session.finish(result.to_json(), result.complete, rest, totals, result.seconds)
    out = doc["out"]
    if args.json:
        print_json(doc)
    elif result.complete:
        print(f"figure {figure} from {len(cube_set)} cubes: {result.assemblies} assemblies, {result.distinct} "
              f"distinct up to the figure's {result.symmetries} rotations")
        print(f"{result.nodes} nodes in {result.seconds:.3f} s on {backend.name} ({backend.device})")
        if "verified" in doc:
            print(verify_line(doc))
        print(f"results: {out} (run {doc['run_id']})")
    else:
        print(f"stopped after {totals.batches} batches with {len(rest)} work items left; {result.assemblies} "
              f"assemblies so far. Resume with --out {out} --resume")
    return 0


def _search_knobs(p) -> None:
    add_search_arguments(p)
    p.add_argument("--order", choices=["lookup", "exact", "fixed"], default="lookup",
                   help="branching cell: lookup = shortest candidate list (default), exact = fewest fitting "
                        "placements with forward checking, fixed = z, y, x order")


def register(sub) -> None:
    from puzzlebatch.runners.options import add_count_arguments

    cubes = sub.add_parser("cubes", help="connector cubes: build figures from cubes with male/female connectors")
    verbs = cubes.add_subparsers(dest="verb", metavar="VERB", parser_class=type(cubes))
    verbs.required = True

    p = verbs.add_parser("solve", help="one assembly of a figure, or a proof that none exists")
    add_common(p)
    _search_knobs(p)
    p.add_argument("--png", "--svg", dest="png", metavar="FILE", help="draw the assembly (.png or .svg)")
    p.add_argument("--out", help="also record the run in this results file (.h5)")
    from puzzlebatch.runners.options import add_scheduler_arguments as add_scheduler

    add_scheduler(p)  # the first assembly in DFS order, searched by the cluster
    p.set_defaults(func=run_solve, check=cube_inputs)

    p = verbs.add_parser("count", help="count all assemblies and the distinct ones; store in HDF5")
    add_common(p)
    _search_knobs(p)
    p.add_argument("--out", help="results file (default: results/cubes-count-<time>.h5)")
    add_count_arguments(p)
    p.set_defaults(func=run_count, check=cube_inputs)

    from puzzlebatch.runners.cubes import ga_cli as cubes_ga_cli  # the GA verb lives in its own module

    cubes_ga_cli.register(verbs)


def verify_line(doc: dict) -> str:
    from puzzlebatch.runners.engine.verify import line

    return line(doc) or ""
