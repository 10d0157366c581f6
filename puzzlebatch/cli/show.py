"""``puzzlebatch show FILE.h5``: the runs of a results store; ``--run ID`` a run's rows; ``--solution K`` one
stored solution (``--png`` draws it).  Each family's records module decodes what its runs stored."""

from __future__ import annotations

from pathlib import Path

from puzzlebatch import limits as L
from puzzlebatch.errors import PuzzleInputError


def run(args) -> int:
    from puzzlebatch.cli.options import print_json
    from puzzlebatch.results import show

    if not Path(args.file).exists():
        raise PuzzleInputError(f"{args.file}: no such file")
    # what only a stored solution, or a run's rows, uses is refused, never ignored
    if args.solution is None and args.png is not None:
        raise PuzzleInputError("--png: only with --solution K (a stored solution to draw)")
    if args.rows is not None and (args.run is None or args.solution is not None):
        raise PuzzleInputError("--rows: only with --run ID and without --solution (the rows to list)")
    if args.solution is not None:
        doc = show.run_solution(args.file, args.run, args.solution, args.png)
        if args.json:
            print_json({k: v for k, v in doc.items() if k != "text"})
        else:
            print(show.format_solution(doc))
        return 0
    if args.run is not None:
        start, stop = show.parse_rows(args.rows)
        doc = show.run_items(args.file, args.run, start, stop)
        if args.json:
            print_json(doc)
        else:
            print(show.format_items(doc))
        return 0
    desc = show.describe(args.file)
    if args.json:  # the file's format version, apart from this document's own schema_version
        print_json({("store_" + k if k in ("schema", "schema_version") else k): v for k, v in desc.items()})
    else:
        print(show.format_text(desc))
    return 0


def register(sub) -> None:
    p = sub.add_parser("show", help="list the runs of a results file, a run's rows, or a stored solution")
    p.add_argument("file", help="an .h5 results store")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--run", metavar="ID", help="list the rows of this run (with --solution: the run to read; "
                                               "default the latest run that stores solutions)")
    p.add_argument("--rows", metavar="A:B", help="with --run: rows A to B (from 1, both included; default the "
                                                 "first 20)")
    p.add_argument("--solution", type=L.positive_int, metavar="K",
                   help="stored solution K (from 1) of a run: a folding, an assembly, a path, a game, a packing")
    p.add_argument("--png", "--svg", dest="png", metavar="FILE", help="with --solution: also draw it as a picture")
    p.set_defaults(func=run)
