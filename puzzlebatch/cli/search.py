"""``puzzlebatch <family> count|solve`` for a search family (a :class:`~puzzlebatch.registry.SearchSpec`): the
family's parameters as positional arguments, the framework's options (backend, search knobs, results file,
resume, checkpoints, Dask) as flags."""

from __future__ import annotations

from puzzlebatch.errors import EXIT_NO_SOLUTION


def _params(args, family) -> dict:
    return {p.name: getattr(args, p.name) for p in family.search.params}


def run_count(args) -> int:
    from puzzlebatch.api import search
    from puzzlebatch.api.common import backend_of, settings_of
    from puzzlebatch.cli.options import print_json, run_options

    family = args.family_descriptor
    settings = settings_of(backend_of(args.backend), budget=args.budget, batch_size=args.batch_size,
                           frontier=args.frontier)
    r = search.count(family, backend=args.backend, settings=settings, options=run_options(args),
                     **_params(args, family))
    if args.json:
        print_json(r.to_dict())
    elif r.complete:
        what = " ".join(f"{k}={v}" for k, v in r.params.items())
        print(f"{family.name} {what}: {r.solutions} solution{'' if r.solutions == 1 else 's'}")
        print(f"{r.nodes} nodes in {r.seconds:.3f} s on {r.backend} ({r.device})")
        print(f"results: {r.out} (run {r.run_id})")
    else:
        print(f"stopped with work left; {r.solutions} solution{'' if r.solutions == 1 else 's'} so far."
              f" Resume with --out {r.out} --resume")
    return 0


def run_solve(args) -> int:
    from puzzlebatch.api import search
    from puzzlebatch.api.common import backend_of, settings_of
    from puzzlebatch.cli.options import print_json, run_options

    family = args.family_descriptor
    settings = settings_of(backend_of(args.backend), budget=args.budget, batch_size=args.batch_size,
                           frontier=args.frontier)
    r = search.solve(family, backend=args.backend, png=args.png, settings=settings, options=run_options(args),
                     **_params(args, family))
    if args.json:
        print_json(r.to_dict())
    elif r.solved:
        print(f"{family.name}: {r.solution}")
        print(f"{r.nodes} nodes in {r.seconds:.3f} s on {r.backend} ({r.device})")
        if r.picture:
            print(f"picture: {r.picture}")
    else:
        print(f"{family.name}: no solution (searched {r.nodes} nodes on {r.backend})")
    return 0 if r.solved else EXIT_NO_SOLUTION


def register(verbs, family) -> None:
    """Add ``count`` and ``solve`` for ``family`` (its parameters first, then the framework's options)."""
    from puzzlebatch.cli.options import add_backend_argument, add_count_arguments, add_scheduler_arguments, \
        add_search_arguments

    def common(p) -> None:
        for param in family.search.params:
            if param.default is None:
                p.add_argument(param.name, type=param.type, help=param.help)
            else:
                p.add_argument(param.name, type=param.type, nargs="?", default=param.default, help=param.help)
        p.add_argument("--json", action="store_true", help="print one JSON document")
        add_backend_argument(p)
        add_search_arguments(p)
        p.set_defaults(family_descriptor=family)

    p = verbs.add_parser("count", help="count every solution; store the run in HDF5")
    common(p)
    p.add_argument("--out", help=f"results file (default: results/{family.name}.h5, one run a group)")
    add_count_arguments(p)
    p.set_defaults(func=run_count)

    p = verbs.add_parser("solve", help="the first solution in depth-first order, or none")
    common(p)
    p.add_argument("--out", help="also record the run and its solution in this results file (.h5)")
    p.add_argument("--png", "--svg", dest="png", metavar="FILE", help="draw the solution (when the family draws)")
    add_scheduler_arguments(p)
    p.set_defaults(func=run_solve)
