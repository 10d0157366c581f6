"""The ``puzzlebatch`` command: one entry point, a subcommand per family and verb (ARCHITECTURE.md, "The life of
one command"; each family's ``runners/<family>/cli.py`` adds its verbs with ``register``).

Bad input is one line on stderr and exit status 2; ``--json`` prints one JSON document on stdout.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from puzzlebatch.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_MISMATCH, BackendUnavailableError, \
    CountMismatchError, NothingToDo, PuzzleInputError
from puzzlebatch.cli import options
from puzzlebatch.cli.parser import Parser


def build_parser() -> argparse.ArgumentParser:
    from puzzlebatch import __version__
    from puzzlebatch.cli import info, job, serve, show, warmup
    from puzzlebatch import registry

    parser = Parser(prog="puzzlebatch", description="Batch search for combinatorial puzzles on GPU and CPU.")
    parser.add_argument("--version", action="version", version=f"puzzlebatch {__version__}")
    # what the app verbs (``run``, ``warmup``) run commands with: handed down, never imported back
    parser.set_defaults(app_parser=build_parser, app_main=main)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    info.register(sub)
    show.register(sub)
    for family in registry.families():  # the package's, the plug-ins', register_family's
        add_family(sub, family)
    job.register(sub)
    serve.register(sub)
    warmup.register(sub)
    return parser


def add_family(sub, family) -> None:
    """``puzzlebatch <family> VERB ...``: the family's own verbs (its ``commands`` hook), or the generic ``count``
    and ``solve`` of a search family (:mod:`puzzlebatch.cli.search`)."""
    p = sub.add_parser(family.name, help=family.help)
    verbs = p.add_subparsers(dest="verb", metavar="VERB", parser_class=Parser)
    verbs.required = True
    if family.commands:
        family.hook("commands")(verbs)
    else:
        from puzzlebatch.cli import search

        search.register(verbs, family)


EXIT_BROKEN_PIPE = 141  # as a shell reports a command ended by SIGPIPE


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status (0, 2 for bad input or an I/O error, 130 for Ctrl-C).

    Errors are one line on stderr, never a traceback: bad input and limits (:class:`PuzzleInputError`), a
    missing backend, a failed read or write (``OSError``), memory exhausted despite the limits.  A closed
    stdout (``--json | head -1``) ends the command quietly."""
    from puzzlebatch import transfers
    from puzzlebatch.jit.clock import end_command, start_command

    if sys.stderr is None:  # started with stderr closed (``2>&-``): its messages go nowhere
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the whole process
    if sys.stdout is None:  # started with stdout closed (``>&-``): the result could not be shown
        print("puzzlebatch: error: standard output is closed (redirect it, e.g. >/dev/null)", file=sys.stderr)
        return EXIT_BAD_INPUT
    start_command()
    transfers.start_command()
    try:
        return _run(argv)
    finally:
        transfers.end_command()
        end_command()


def _run(argv: Sequence[str] | None) -> int:
    args = None
    try:
        parser = build_parser()  # a broken plug-in family is one line too
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # a bad option (already said in one line), --help or --version
            return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
        from puzzlebatch.jit.clock import announce_always
        from puzzlebatch.outputs import check_cli_outputs

        if argv is None:  # run as a program, not called from Python: nothing compiled yet
            _portable_code(command_name(parser, args), args)

        announce_always()  # a cold compile is said on stderr, with --json or into a pipe too
        check_cli_outputs(args)
        before = options.set_command(command_name(parser, args))
        try:
            code = int(args.func(args) or 0)
        finally:
            options.set_command(before)  # a job file's instance hands the name back to the job
        sys.stdout.flush()  # a closed pipe shows here, inside the handlers, not at exit
        return code
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except NothingToDo as done:  # --resume of a finished run or job: said, and not an error
        if getattr(args, "json", False):
            import json

            print(json.dumps({"nothing_to_do": True, "out": done.path, "run_id": done.run_id, "message": str(done)}))
        else:
            print(str(done))
        return 0
    except (PuzzleInputError, BackendUnavailableError) as exc:
        print(f"puzzlebatch: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except CountMismatchError as exc:
        print(f"puzzlebatch: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_MISMATCH
    except KeyboardInterrupt as exc:  # the one handler: a stored run was checkpointed by its session first
        out = getattr(exc, "out", None)
        if out is not None:
            print(f"puzzlebatch: interrupted; resume with: {resume_command(argv, out)}", file=sys.stderr)
        elif getattr(exc, "hint", None):
            print(f"puzzlebatch: interrupted; {exc.hint}", file=sys.stderr)
        else:
            print("puzzlebatch: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError:
        print("puzzlebatch: error: out of memory (lower the sizes, or the limit PUZZLEBATCH_MAX_MEMORY)",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:  # a read or write the checks above could not foresee (disk full, I/O error)
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"puzzlebatch: error: {where}{_one_line(exc.strerror or exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT


def resume_command(argv: Sequence[str] | None, out) -> str:
    """The command line that resumes an interrupted run: the same words, ``--out`` the run's file, ``--resume``."""
    import shlex

    words = list(sys.argv[1:] if argv is None else argv)
    kept, skip = [], False
    for w in words:
        if skip:
            skip = False
            continue
        if w == "--out":
            skip = True
            continue
        if w.startswith("--out=") or w == "--resume":
            continue
        kept.append(w)
    return shlex.join(["puzzlebatch", *kept, "--out", str(out), "--resume"])


def _portable_code(command: str, args: argparse.Namespace) -> None:
    """A family whose compiled code ships with the package (``jit.prebuilt``) compiles for the same portable CPU
    level, so that its own cache, ``warmup`` and the shipped code agree (``warmup`` of that family alone too)."""
    from puzzlebatch.jit import prebuilt

    words = command.split()
    families = list(getattr(args, "families", None) or []) if words[:1] == ["warmup"] else words[:1]
    if families and all(f in prebuilt.FAMILIES for f in families):
        prebuilt.activate()


def command_name(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """The words that chose the command, e.g. ``"snake solve"`` or ``"sliding pdb build"``: the ``command`` of its
    JSON document."""
    words = []
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        word = getattr(args, subs[0].dest, None) if subs else None
        if word is None:
            return " ".join(words)
        words.append(word)
        parser = subs[0].choices[word]


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush does not complain about the pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    raise SystemExit(main())
