"""``puzzlebatch sliding pdb build``: additive pattern databases built ahead of time (resumable; one pattern per
task on a Dask cluster)."""

from __future__ import annotations

from puzzlebatch import limits as L
from puzzlebatch import transfers
from puzzlebatch.puzzles.sliding.model import parse_size
from puzzlebatch.runners.options import say as _say
from puzzlebatch.runners.sliding.dist import PdbTask
from puzzlebatch.errors import EXIT_INTERRUPTED
from puzzlebatch.runners.options import add_backend_argument


# -- pdb build ---------------------------------------------------------------------------------------------------------

def run_pdb_build(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.runners.sliding import pdb as sliding_pdb
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.progress import bar

    rows, cols = parse_size(args.size, "--size")
    name, pats = sliding_pdb.partition(rows, cols, args.partition)
    backend = select_backend(args.backend)
    folder = sliding_pdb.cache_dir(args.cache_dir)
    if args.cache_dir:  # the folder the user named: made here (its parent must exist), before any work
        from puzzlebatch.outputs import make_output_dir

        make_output_dir(folder, "--cache-dir")
    built = []
    if args.scheduler:  # one pattern per Dask task (the cache folder must be shared with the workers)
        return _pdb_build_on_pool(args, rows, cols, name, pats, folder)
    for p in pats:
        f = sliding_pdb.pattern_file(rows, cols, p, folder)
        if f.exists() and not args.force:
            continue
        if f.exists():
            f.unlink()
        resumed = f.with_suffix(".partial.h5").exists()
        _say(f"{'resuming' if resumed else 'building'} {rows}x{cols} pattern {','.join(map(str, p))} "
             f"({sliding_pdb.n_entries(rows * cols, len(p)):,} entries) on {backend.name}")
        progress = bar(f"pattern {','.join(map(str, p))}", unit="layer")

        def cb(depth, layer, seconds, progress=progress):
            progress.update(1)
            progress.set_postfix(depth=depth, layer=layer)

        try:
            res = sliding_pdb.build_pattern(rows, cols, p, backend, folder, partition_name=name, progress=cb,
                                            checkpoint_every=args.checkpoint_every, max_layers=args.max_layers)
        except KeyboardInterrupt:
            progress.close()
            _say("interrupted; run the same command again to resume from the last checkpoint")
            return EXIT_INTERRUPTED
        progress.close()
        built.append(str(res))
        if res.name.endswith(".partial.h5"):
            _say(f"stopped after --max-layers; run again to resume ({res})")
            if args.json:
                print_json({"partition": name, "size": f"{rows}x{cols}", "complete": False, "partial": str(res),
                            "backend": backend.name})
            return 0
    dbs = sliding_pdb.load(rows, cols, name, folder)
    info = dbs.info()
    doc = {"partition": name, "size": f"{rows}x{cols}", "goal": "blank-first", "complete": True,
           "cache_dir": str(folder), "built": built, "patterns": info, "backend": backend.name}
    # the traffic of the builds this command ran (each table file keeps its own build's)
    doc |= {k: sum(p[k] for p in info if p["file"] in built) for k in transfers.KEYS}
    if args.json:
        print_json(doc)
    else:
        for p in doc["patterns"]:
            print(f"tiles {','.join(map(str, p['tiles']))}: {p['entries']:,} entries ({p['bytes'] / 1e6:.1f} MB), "
                  f"max {p['max_value']}, mean {p['mean_value']:.2f}, built in {p['build_seconds']:.1f} s "
                  f"on {p['build_backend']}: {p['file']}")
    return 0


def _pdb_build_on_pool(args, rows, cols, name, pats, folder) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.runners.sliding import pdb as sliding_pdb
    from puzzlebatch.runners.engine.distributed import map_ordered, open_pool

    todo = []
    for p in pats:
        f = sliding_pdb.pattern_file(rows, cols, p, folder)
        if f.exists() and args.force:
            f.unlink()
        if not f.exists():
            todo.append(tuple(p))
    task = PdbTask(rows, cols, name, str(folder), args.backend, args.checkpoint_every, args.max_layers)
    built, partial = [], []
    with open_pool(args.scheduler, args.backend, args.item_seconds) as pool:
        for p, res in zip(todo, map_ordered(pool, task, todo)):
            pool.work.add(res["worker"], 1, 0, res["seconds"], res["backend"])
            (partial if res["file"].endswith(".partial.h5") else built).append(res["file"])
            _say(f"pattern {','.join(map(str, p))}: {res['file']} ({res['seconds']:.1f} s on {res['worker']})")
        _say("\n".join(pool.work.lines()))
    doc = {"partition": name, "size": f"{rows}x{cols}", "complete": not partial, "cache_dir": str(folder),
           "built": built, "partial": partial, "backend": args.backend}
    if not partial:
        doc["patterns"] = sliding_pdb.load(rows, cols, name, folder).info()
    if args.json:
        print_json(doc)
    elif partial:
        _say(f"stopped after --max-layers; run again to resume ({', '.join(partial)})")
    else:
        print(f"partition {name}: {len(built)} pattern database(s) built in {folder}")
    return 0


def register_pdb(verbs, parser_class) -> None:
    """``sliding pdb build``."""
    from puzzlebatch.runners.options import add_scheduler_arguments as add_scheduler

    p = verbs.add_parser("pdb", help="pattern databases")
    pv = p.add_subparsers(dest="pdb_verb", metavar="ACTION", parser_class=parser_class)
    pv.required = True
    b = pv.add_parser("build", help="build a partition's databases (resumes an interrupted build)")
    b.add_argument("partition", help="e.g. 6-6-3, 5-5-5, 7-8 (4x4), 6-6-6-6 (5x5), 4-4 (3x3)")
    b.add_argument("--size", default="4x4", help="board size RxC")
    add_backend_argument(b)
    b.add_argument("--cache-dir", help="folder of the databases (default: $PUZZLEBATCH_CACHE, else the puzzlebatch cache folder)")
    b.add_argument("--force", action="store_true", help="rebuild databases that exist")
    b.add_argument("--checkpoint-every", type=L.non_negative_seconds, default=60.0, metavar="SECONDS",
                   help="save a partial database this often")
    b.add_argument("--max-layers", type=L.positive_int,
                   help="stop after this many layers of one pattern (resume later)")
    b.add_argument("--json", action="store_true", help="print one JSON document")
    add_scheduler(b)  # one pattern per task
    b.set_defaults(func=run_pdb_build)
