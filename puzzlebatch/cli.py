"""The ``puzzlebatch`` command: one entry point, a subcommand per family and verb (DESIGN.md §6).

Bad input is one line on stderr and exit status 2; ``--json`` prints one JSON document on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from puzzlebatch.errors import BackendUnavailableError, PuzzleInputError

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump): ``puzzlebatch snake count: error: ...``."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see --help)\n")


def print_json(doc) -> None:
    """Print the command's JSON document.  Every object carries ``seconds`` (the work, compiling excluded; the
    verb's own measure when it has one) and ``compile_seconds`` (this command's compiling: 0 when every function
    came from the disk cache)."""
    if isinstance(doc, dict):
        from puzzlebatch.jit.clock import command_timings

        timings = command_timings()
        doc.setdefault("seconds", timings["seconds"])
        doc["compile_seconds"] = timings["compile_seconds"]
    json.dump(doc, sys.stdout, indent=2, default=_json_default)
    sys.stdout.write("\n")


def _json_default(obj):
    import numpy as np

    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def build_parser() -> argparse.ArgumentParser:
    from puzzlebatch import __version__
    from puzzlebatch.runners import cubes_cli, hextris_cli, info_cli, job_cli, polyomino_cli, show_cli, \
        sliding_cli, snake_cli, warmup

    parser = _Parser(prog="puzzlebatch", description="Batch search for combinatorial puzzles on GPU and CPU.")
    parser.add_argument("--version", action="version", version=f"puzzlebatch {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    info_cli.register(sub)
    show_cli.register(sub)
    snake_cli.register(sub)
    polyomino_cli.register(sub)
    hextris_cli.register(sub)
    sliding_cli.register(sub)
    cubes_cli.register(sub)
    job_cli.register(sub)
    warmup.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from puzzlebatch.jit.clock import end_command, start_command

    start_command()
    try:
        return _run(argv)
    finally:
        end_command()


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (PuzzleInputError, BackendUnavailableError) as exc:
        print(f"puzzlebatch: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("puzzlebatch: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
