"""``puzzlebatch show FILE.h5``: the runs of a results store."""

from __future__ import annotations

from pathlib import Path

from puzzlebatch import limits as L
from puzzlebatch.errors import PuzzleInputError


def run(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.results.show import describe, format_text

    if not Path(args.file).exists():
        raise PuzzleInputError(f"{args.file}: no such file")
    if args.solution is None:  # what only a stored solution uses is refused, never ignored
        for flag, value in (("--png", args.png), ("--run", args.run)):
            if value is not None:
                raise PuzzleInputError(f"{flag}: only with --solution K (a stored solution to draw)")
    else:  # draw one stored solution (polyomino enumerations)
        from puzzlebatch.runners.polyomino.cli import run_show

        return run_show(args)
    desc = describe(args.file)
    if args.json:  # the file's format version, apart from this document's own schema_version
        print_json({("store_" + k if k in ("schema", "schema_version") else k): v for k, v in desc.items()})
    else:
        print(format_text(desc))
    return 0


def register(sub) -> None:
    p = sub.add_parser("show", help="list the runs of a results file")
    p.add_argument("file", help="an .h5 results store")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--run", help="with --solution: the run (default: the latest enumeration)")
    p.add_argument("--solution", type=L.positive_int, metavar="K",
                   help="draw stored solution K (1-based) of an enumeration")
    p.add_argument("--png", "--svg", dest="png", metavar="FILE", help="with --solution: also draw it as a picture")
    p.set_defaults(func=run)
