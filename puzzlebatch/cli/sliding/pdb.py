"""``puzzlebatch sliding pdb build``: additive pattern databases built ahead of time (resumable; one pattern per
task on a Dask cluster), through :func:`puzzlebatch.api.sliding.build_pdb`."""

from __future__ import annotations

from puzzlebatch import limits as L
from puzzlebatch.cli.options import say as _say
from puzzlebatch.cli.options import add_backend_argument


# -- pdb build ---------------------------------------------------------------------------------------------------------

def run_pdb_build(args) -> int:
    from puzzlebatch.api import sliding
    from puzzlebatch.cli.options import print_json, run_options

    r = sliding.build_pdb(args.partition, size=args.size, backend=args.backend, cache_dir=args.cache_dir,
                          force=args.force, checkpoint_every=args.checkpoint_every, max_layers=args.max_layers,
                          say=_say, options=run_options(args))
    if args.json:
        print_json(r.to_dict())
    elif not r.complete:
        pass  # the build said where it stopped, and how to resume
    elif args.scheduler:
        print(f"partition {r.partition}: {len(r.built)} pattern database(s) built in {r.cache_dir}")
    else:
        for p in r.patterns:
            print(f"tiles {','.join(map(str, p['tiles']))}: {p['entries']:,} entries ({p['bytes'] / 1e6:.1f} MB), "
                  f"max {p['max_value']}, mean {p['mean_value']:.2f}, built in {p['build_seconds']:.1f} s "
                  f"on {p['build_backend']}: {p['file']}")
    return 0


def register_pdb(verbs, parser_class) -> None:
    """``sliding pdb build``."""
    from puzzlebatch.cli.options import add_scheduler_arguments as add_scheduler

    p = verbs.add_parser("pdb", help="pattern databases")
    pv = p.add_subparsers(dest="pdb_verb", metavar="ACTION", parser_class=parser_class)
    pv.required = True
    b = pv.add_parser("build", help="build a partition's databases (resumes an interrupted build)")
    b.add_argument("partition", help="e.g. 6-6-3, 5-5-5, 7-8 (4x4), 6-6-6-6 (5x5), 4-4 (3x3)")
    b.add_argument("--size", default="4x4", help="board size RxC")
    add_backend_argument(b)
    b.add_argument("--cache-dir", help="folder of the databases (default: the puzzlebatch cache folder, "
                                       "$PUZZLEBATCH_CACHE_DIR or ~/.cache/puzzlebatch)")
    b.add_argument("--force", action="store_true", help="rebuild databases that exist")
    b.add_argument("--checkpoint-every", type=L.non_negative_seconds, default=60.0, metavar="SECONDS",
                   help="save a partial database this often")
    b.add_argument("--max-layers", type=L.positive_int,
                   help="stop after this many layers of one pattern (resume later)")
    b.add_argument("--json", action="store_true", help="print one JSON document")
    add_scheduler(b)  # one pattern per task
    b.set_defaults(func=run_pdb_build)
