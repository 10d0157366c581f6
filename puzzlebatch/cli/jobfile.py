"""Batch jobs described in a TOML file: ``puzzlebatch run JOB.toml``.

Long because it is the whole job-file format (loading with line-numbered errors, checking every instance with the
verb's own parser, the instance generators, the ledger behind ``--resume``): kept together since every part
works on the one :class:`Job` record and reports through its :meth:`Job.error`.

A job file names one family verb and the instances to run it on, so that a long campaign is one reviewable
file::

    family = "snake"                 # a family: `puzzlebatch --help` lists them
    verb = "count"                   # the command's verb ("pdb build" for nested verbs)
    backend = "auto"                 # optional: auto | cpu | cuda
    scheduler = "local:2"            # optional: Dask (see puzzlebatch.runners.engine.distributed)
    out = "results/campaign.h5"      # optional: the results store (the job's ledger goes there too)

    [options]                        # the verb's options, named as on the command line without "--"
    box = "4x4x4"
    all = true

    [instances]                      # exactly one of: list, file, generate
    list = ["FJJF...", "FJFJ..."]    # values of `key` (default: the verb's positional argument), or tables
    # file = "chains.txt"            # one value of `key` per line (# comments)
    # generate = { count = 10, seed = 1, box = "4x4x4" }   # the family's generator (its registry ``jobs`` hook)

Every instance is checked by the verb's own argument parser before anything runs; an error names the key and
its line.  ``--dry-run`` counts the instances without building them (it checks and shows the first
:data:`DRY_RUN_SHOWN`) and writes nothing.  A job has at most ``PUZZLEBATCH_MAX_INSTANCES`` instances
(:mod:`puzzlebatch.limits`).

Paths: ``name`` is a plain name (no folders).  Relative output paths (``out``, and output options such as ``png``)
are taken in the job file's folder and must stay inside it; their missing folders inside it are created when the
job runs.  An absolute ``out`` is used as given (its folder must exist).

Each instance then runs in this process exactly as the command line would run it; its JSON result goes into the
job's ledger (a ``job`` run in ``out``, one item row per instance), so ``--resume`` skips the instances already
done and resumes the one that was interrupted (with the verb's own ``--resume`` where it has one).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, NamedTuple

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_NO_SOLUTION, EXIT_OK, NothingToDo, \
    PuzzleInputError
from puzzlebatch.limits import CELLS, INSTANCES

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

TOP_KEYS = ("family", "verb", "backend", "scheduler", "out", "options", "instances", "name", "description")
OUTPUT_OPTIONS = ("out", "png", "svg", "gif", "text", "save-weights", "cache-dir", "out-dir")  # paths written to
MAX_JOB_FILE_BYTES = 1 << 20  # a job file is read whole: larger ones are refused before parsing
MAX_KEYS = 100_000  # tables and keys in a job file (a dotted-key bomb is refused before it is used)
MAX_KEY_PARTS = 64  # parts of a dotted key or table name (the TOML reader's time grows with their square)
DRY_RUN_SHOWN = 20  # instances a dry run builds, checks and shows
INSTANCE_KEYS = ("list", "file", "generate", "key")
COMMON = ("backend", "scheduler", "out")  # top-level keys passed to the verb as --backend, --scheduler, --out


class JobError(PuzzleInputError):
    """A job file problem: one line naming the file, the line and the key."""


# ----------------------------------------------------------------------------- where keys are

class KeyLines:
    """Line numbers of the keys of a TOML file, as ``table.key`` (``key`` at top level).

    tomllib gives values, not positions; this scans the text for ``[table]`` headers and ``key =`` lines, which
    covers the job format (inline tables report the line of their key)."""

    _header_name = re.compile(r"[A-Za-z0-9_.\-\"' ]+")  # matched on its own (no backtracking over spaces)
    _key = re.compile(r"\s*(\"[^\"]+\"|'[^']+'|[A-Za-z0-9_\-]+)\s*=")

    def __init__(self, text: str) -> None:
        self.lines: dict[str, int] = {}
        table = ""
        for n, line in enumerate(text.splitlines(), start=1):
            name = self._header(line)
            if name is not None:
                table = name
                self.lines.setdefault(table, n)
                continue
            m = self._key.match(line)
            if m:
                key = m.group(1).strip("\"'")
                self.lines.setdefault(f"{table}.{key}" if table else key, n)

    @classmethod
    def _header(cls, line: str) -> str | None:
        """``table`` for a ``[table]`` line (a comment may follow), else None; linear in the line's length."""
        body = line.strip()
        if not body.startswith("["):
            return None
        if "#" in body:
            body = body.split("#", 1)[0].rstrip()
        if not body.endswith("]"):
            return None
        inner = body[1:-1].strip()
        if not inner or not cls._header_name.fullmatch(inner):
            return None
        return inner.replace('"', "").replace("'", "").replace(" ", "")

    def of(self, dotted: str) -> int | None:
        while dotted:
            if dotted in self.lines:
                return self.lines[dotted]
            dotted = dotted.rpartition(".")[0]
        return None


# ----------------------------------------------------------------------------- the job

class Application(NamedTuple):
    """The command line a job runs on, handed in by ``puzzlebatch run`` (this module never imports the
    application: it sits below it)."""

    build_parser: Callable[[], argparse.ArgumentParser]
    main: Callable[[list[str]], int]


@dataclass
class Job:
    path: Path
    family: str
    verb: list[str]
    common: dict[str, Any]
    options: dict[str, Any]
    instances: list[dict[str, Any]]
    name: str
    lines: KeyLines
    argvs: list[list[str]] = field(default_factory=list)
    count: int = 0  # instances in the job (a dry run builds only the first DRY_RUN_SHOWN)
    dry_run: bool = False
    make_dirs: list[Path] = field(default_factory=list)  # output folders inside the job folder, made on running
    generated: set[str] = field(default_factory=set)  # input files a generator makes on running (not on a dry run)
    app: Application | None = None

    def where(self, key: str) -> str:
        n = self.lines.of(key)
        return f"{self.path}, line {n}: {key}" if n else f"{self.path}: {key}"

    def error(self, key: str, message: str) -> JobError:
        return JobError(f"{self.where(key)}: {message}")


def _verb_parser(app: Application, family: str, verb: list[str]) -> argparse.ArgumentParser | None:
    parser = app.build_parser()
    for name in [family, *verb]:
        sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        if sub is None or name not in sub.choices:
            return None
        parser = sub.choices[name]
    if any(isinstance(a, argparse._SubParsersAction) for a in parser._actions):
        return None  # a group of verbs, not a verb
    return parser


def _flag(parser: argparse.ArgumentParser, key: str) -> argparse.Action | None:
    """The parser's action for option ``key`` (``checkpoint-every`` or ``checkpoint_every``), or None."""
    want = key.replace("_", "-")
    for a in parser._actions:
        if any(s.lstrip("-") == want for s in a.option_strings) or (not a.option_strings and a.dest == key):
            return a
    return None


def _positional(parser: argparse.ArgumentParser) -> str | None:
    return next((a.dest for a in parser._actions if not a.option_strings), None)


def load(path: str | Path, app: Application, dry_run: bool = False) -> Job:
    """Read and check a job file (every instance is parsed by the verb's own parser).

    With ``dry_run`` the instances are counted, and only the first :data:`DRY_RUN_SHOWN` are built and checked;
    nothing is written."""
    from puzzlebatch.outputs import read_text

    path = Path(path)
    if not path.exists():
        raise JobError(f"{path}: no such job file")
    with contextlib.suppress(OSError):
        if path.is_file() and path.stat().st_size > MAX_JOB_FILE_BYTES:
            raise JobError(f"{path}: job file too large ({path.stat().st_size} bytes; at most "
                           f"{MAX_JOB_FILE_BYTES}: list many instances in an `instances.file`)")
    try:
        text = read_text(path, "job file")
    except PuzzleInputError as exc:
        raise JobError(str(exc)) from None
    if len(text) > MAX_JOB_FILE_BYTES:  # a pipe or a file that grew
        raise JobError(f"{path}: job file too large (at most {MAX_JOB_FILE_BYTES} bytes)")
    for n, line in enumerate(text.splitlines(), start=1):  # before parsing: a dotted-key bomb takes minutes
        if line.split("=", 1)[0].count(".") >= MAX_KEY_PARTS:
            raise JobError(f"{path}, line {n}: key or table name of more than {MAX_KEY_PARTS} dotted parts")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise JobError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise JobError(f"{path}: not valid TOML: arrays or tables nested too deeply") from None
    if _size(doc) > MAX_KEYS:
        raise JobError(f"{path}: too many keys and values (at most {MAX_KEYS})")
    lines = KeyLines(text)
    job = Job(path, "", [], {}, {}, [], path.stem, lines, dry_run=dry_run, app=app)
    for key in doc:
        if key not in TOP_KEYS:
            raise job.error(key, f"unknown key (expected one of: {', '.join(TOP_KEYS)})")
    for key in ("family", "verb"):
        if not isinstance(doc.get(key), str) or not doc[key].strip():
            raise JobError(f"{path}: missing `{key} = \"...\"`" if key not in doc
                           else f"{job.where(key)}: must be a string")
    job.family, job.verb = doc["family"], doc["verb"].split()
    job.name = _check_job_name(job, doc.get("name", path.stem))
    parser = _verb_parser(app, job.family, job.verb)
    if parser is None:
        key = "family" if _verb_parser(app, job.family, []) is None and job.family not in _families(app) else "verb"
        raise job.error(key, f"no such command `puzzlebatch {job.family} {' '.join(job.verb)}`")
    for key in COMMON:
        if key in doc:
            if _flag(parser, key) is None:
                raise job.error(key, f"`{job.family} {doc['verb']}` has no --{key}")
            if not isinstance(doc[key], str):
                raise job.error(key, "must be a string")
            job.common[key] = _output_path(job, key, doc[key]) if key == "out" else doc[key]
    options = doc.get("options", {})
    if not isinstance(options, dict):
        raise job.error("options", "must be a table: [options]")
    for key in options:
        if _flag(parser, key) is None:
            known = sorted({s for a in parser._actions for s in a.option_strings if s.startswith("--")} - {"--help"})
            raise job.error(f"options.{key}", f"not an option of `{job.family} {doc['verb']}` "
                                              f"(options: {' '.join(known)})")
    job.options = {k: _output_value(job, f"options.{k}", k, v) for k, v in options.items()}
    job.count, build = _instances(job, doc.get("instances"), parser)
    try:
        INSTANCES.check(job.count, "instances")
    except PuzzleInputError as exc:
        raise job.error("instances", str(exc).removeprefix("instances: ")) from None
    job.instances = build(min(job.count, DRY_RUN_SHOWN) if dry_run else job.count)
    job.argvs = [_argv(job, inst, parser) for inst in job.instances]
    return job


def _size(doc, limit: int = MAX_KEYS) -> int:
    """Keys, tables and values in ``doc`` (without recursion; counting stops past ``limit``)."""
    n, stack = 0, [doc]
    while stack and n <= limit:
        x = stack.pop()
        n += 1
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return n


def _check_job_name(job: Job, name) -> str:
    """``name`` names files in the job's folder: a plain name, never a path."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._\-]{0,99}", name) or ".." in name:
        raise job.error("name", f"{name!r} is not a plain name (letters, digits, '.', '_', '-'; no folders)")
    return name


def _output_value(job: Job, key: str, option: str, value):
    """``value`` of the option ``option`` with its output paths checked (a string, or each string of a list)."""
    if option.replace("_", "-") not in OUTPUT_OPTIONS:
        return value
    if isinstance(value, list):
        return [_output_path(job, key, x) if isinstance(x, str) else x for x in value]
    return _output_path(job, key, value) if isinstance(value, str) else value


def _output_path(job: Job, key: str, value: str) -> str:
    """An output path of the job: relative ones are taken in the job's folder and must stay inside it, links
    followed (a link out of the folder is refused); an absolute top-level ``out`` is the user's choice (its
    folder must exist)."""
    base = Path(os.path.realpath(job.path.parent))
    if value == "-":
        return value  # standard output
    if Path(value).is_absolute():
        if key != "out":
            raise job.error(key, f"{value}: give a path relative to the job's folder (only `out` may be absolute)")
        if not Path(value).parent.is_dir():
            raise job.error(key, f"{value}: directory {Path(value).parent} does not exist")
        return value
    target = Path(os.path.realpath(base / value))  # every link on the way resolved
    if target != base and base not in target.parents:
        raise job.error(key, f"{value}: leaves the job's folder {base} (give an absolute `out` to write elsewhere)")
    if not target.parent.is_dir():
        job.make_dirs.append(target.parent)
    return str(target)


def _families(app: Application) -> list[str]:
    sub = next(a for a in app.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


def _instances(job: Job, spec, parser) -> tuple[int, Callable[[int], list[dict[str, Any]]]]:
    """``(count, build)``: how many instances the job has, and ``build(n)`` making the first ``n`` of them."""
    if spec is None:
        return 1, lambda n: [{}][:n]  # one run with the options alone
    if not isinstance(spec, dict):
        raise job.error("instances", "must be a table: [instances]")
    for key in spec:
        if key not in INSTANCE_KEYS:
            raise job.error(f"instances.{key}", f"unknown key (expected one of: {', '.join(INSTANCE_KEYS)})")
    given = [k for k in ("list", "file", "generate") if k in spec]
    if len(given) != 1:
        raise job.error("instances", "give exactly one of list, file, generate")
    key = spec.get("key") or _positional(parser)
    if key is not None and _flag(parser, key) is None:
        raise job.error("instances.key", f"`{key}` is not an argument of `{job.family} {' '.join(job.verb)}`")
    how = given[0]
    if how == "list":
        values = spec["list"]
        if not isinstance(values, list) or not values:
            raise job.error("instances.list", "must be a non-empty list")
        count, make = len(values), values.__getitem__
    elif how == "file":
        f = Path(spec["file"]) if isinstance(spec["file"], str) else None
        if f is None:
            raise job.error("instances.file", "must be a string (a file of one instance a line)")
        f = f if f.is_absolute() else job.path.parent / f
        from puzzlebatch.outputs import read_text

        try:
            values = [ln.strip() for ln in read_text(f).splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        except PuzzleInputError as exc:
            raise job.error("instances.file", str(exc)) from None
        if not values:
            raise job.error("instances.file", f"{f} lists no instance")
        count, make = len(values), values.__getitem__
    else:
        gen = spec["generate"]
        if not isinstance(gen, dict):
            raise job.error("instances.generate", "must be a table: generate = { count = N, seed = S, ... }")
        generator = _generator(job.family)
        if generator is None:
            raise job.error("instances.generate", f"family {job.family} has no generator; use list or file")
        try:
            count, make_range = generator(job, dict(gen))
        except (PuzzleInputError, TypeError, ValueError) as exc:
            raise job.error("instances.generate", str(exc)) from None
        make = None

    def build(n: int) -> list[dict[str, Any]]:
        """The first ``n`` instances as option tables."""
        if make is None:
            try:
                values = make_range(n)
            except (PuzzleInputError, TypeError, ValueError) as exc:
                raise job.error("instances.generate", str(exc)) from None
        else:
            values = [make(i) for i in range(n)]
        out = []
        for i, v in enumerate(values):
            if isinstance(v, dict):
                for k in v:
                    if _flag(parser, k) is None:
                        raise job.error(f"instances.{how}", f"instance {i + 1}: `{k}` is not an argument of "
                                                            f"`{job.family} {' '.join(job.verb)}`")
                out.append({k: _output_value(job, f"instances.{how}", k, x) for k, x in v.items()})
            elif key is None:
                raise job.error(f"instances.{how}", "plain values need `key` (the option they set)")
            else:
                out.append({key: _output_value(job, f"instances.{how}", key, v)})
        return out

    return count, build


def _argv(job: Job, instance: dict, parser) -> list[str]:
    """The command line of one instance, checked by the verb's parser."""
    merged = {**job.common, **job.options, **instance}
    argv = [job.family, *job.verb]
    positionals: list[str] = []  # after "--": a value such as "--png=/x" stays a value, never an option
    last = any(str(x).startswith("-") for k, v in merged.items() if not _flag(parser, k).option_strings
               for x in (v if isinstance(v, list) else [v]))  # else in place, as the user wrote them
    for key, value in merged.items():
        action = _flag(parser, key)
        if not action.option_strings:  # positional
            (positionals if last else argv).extend([str(x) for x in value] if isinstance(value, list)
                                                   else [str(value)])
            continue
        want = key.replace("_", "-")
        flag = next((s for s in action.option_strings if s.lstrip("-") == want), action.option_strings[-1])
        if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
            if not isinstance(value, bool):
                raise job.error(_key_of(job, key, instance), "must be true or false")
            if value:
                argv.append(flag)
        else:
            for x in value if isinstance(value, list) else [value]:
                x = str(x)  # "--flag=-x": a value that looks like an option stays a value
                argv += [f"{flag}={x}"] if x.startswith("-") else [flag, x]
    argv += _positional_words(positionals)
    parsed = _check(job, parser, argv, merged, instance)
    if getattr(parsed, "json", None) is False and _flag(parser, "json") is not None:
        argv = _with_option(argv, "--json")  # the ledger stores each instance's JSON result
    return argv


def _positional_words(values: list[str]) -> list[str]:
    """Positional values last, after ``--`` if one looks like an option (``--png=/x`` is a value, not an option)."""
    return ["--", *values] if any(v.startswith("-") for v in values) else values


def _with_option(argv: list[str], word: str) -> list[str]:
    """``argv`` with the option ``word`` added before any ``--``."""
    if "--" in argv:
        i = argv.index("--")
        return [*argv[:i], word, *argv[i:]]
    return [*argv, word]


def _key_of(job: Job, key: str, instance: dict) -> str:
    if key in instance:
        return "instances"
    if key in job.options:
        return f"options.{key}"
    return key


def _check(job: Job, parser, argv: list[str], merged: dict, instance: dict):
    """Parse ``argv`` with the verb's parser (and, on a dry run, run the verb's cheap input checks: a bad instance
    is found before anything runs); an error names the job key it came from."""
    messages: list[str] = []

    def error(message):
        messages.append(message)
        raise SystemExit(EXIT_BAD_INPUT)

    old = parser.error
    parser.error = error
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            ns = parser.parse_args(argv[1 + len(job.verb):])
    except SystemExit:
        message = messages[0] if messages else "invalid arguments"
        key = next((k for k in merged if f"--{k.replace('_', '-')}" in message or f"{k}" in message.split(":")[0]),
                   None)
        raise job.error(_key_of(job, key, instance) if key else "options", message) from None
    finally:
        parser.error = old
    check = getattr(ns, "check", None)  # a dry run also runs the verb's cheap input checks (no search)
    if job.generated and any(str(v) in job.generated for v in instance.values()):
        check = None  # its input files are made when the job runs
    if job.dry_run and check is not None:
        try:
            check(ns)
        except PuzzleInputError as exc:  # at the line of the job option it names first (``--png: ...``)
            flag = (str(exc).split(":")[0].split() or [""])[0]
            key = next((k for k in merged if k not in instance and flag == f"--{k.replace('_', '-')}"), None)
            raise job.error(_key_of(job, key, instance) if key else "instances",
                            f"`{shlex.join(argv)}`: {exc}") from None
    return ns


# ----------------------------------------------------------------------------- generators

Generated = tuple  # (count, make(n) -> the first n instances as option tables)


def _take(gen: dict, key: str, default=None, kind=int):
    if key not in gen and default is None:
        raise ValueError(f"needs `{key}`")
    value = gen.pop(key, default)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ValueError(f"`{key}` must be {'an integer' if kind is int else 'a string'}")
    return value


def _count(gen: dict) -> int:
    count = _take(gen, "count")
    if count < 1:
        raise ValueError(f"`count` {count}: must be at least 1")
    return count


def _seed(gen: dict) -> int:
    seed = _take(gen, "seed", 0)
    if seed < 0:
        raise ValueError(f"`seed` {seed}: must be 0 or more")
    return seed


def snake_chains(job: Job, gen: dict) -> Generated:
    """Random chains that fold into ``box`` (random Hamiltonian paths), seeds ``seed .. seed+count-1``."""
    from puzzlebatch.puzzles.snake.generate import random_chain
    from puzzlebatch.puzzles.snake.model import parse_box

    count, seed, box = _count(gen), _seed(gen), _take(gen, "box", "3x3x3", str)
    _no_more(gen)
    b = parse_box(box)
    return count, lambda n: [{"chain": random_chain(b, seed + k)[0].letters, "box": box} for k in range(n)]


def polyomino_cuts(job: Job, gen: dict) -> Generated:
    """Random-cut puzzles: ``board`` cut into pieces of ``sizes`` cells (``polyomino generate --random-cut``),
    seeds ``seed ..``; the piece files go beside the job file, in ``<name>-pieces/`` (not on a dry run)."""
    cli_main = job.app.main
    count, seed = _count(gen), _seed(gen)
    board, sizes = _take(gen, "board", None, str), _take(gen, "sizes", "4-6", str)
    _no_more(gen)
    outdir = job.path.parent / f"{job.name}-pieces"

    def make(n: int) -> list[dict]:
        out = []
        if not job.dry_run:
            from puzzlebatch.outputs import make_output_dir

            make_output_dir(outdir, "piece folder")
        for k in range(n):
            f = outdir / f"cut-{board}-{sizes}-seed{seed + k}.txt"
            if job.dry_run and not f.exists():
                job.generated.add(str(f))  # made when the job runs: a dry run does not check it
            elif not f.exists():
                err = io.StringIO()
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                    status = cli_main(["polyomino", "generate", "--random-cut", board, "--sizes", sizes, "--seed",
                                       str(seed + k), "--text", str(f)])
                if status != EXIT_OK:
                    raise ValueError(err.getvalue().strip().removeprefix("puzzlebatch: error: "))
            out.append({"pieces": str(f), "board": board})
        return out

    return count, make


def hextris_problems(job: Job, gen: dict) -> Generated:
    """The packaged ICFP 2015 qualifier problems ``problems`` ("A-B" or "N"), one instance each."""
    spec = _take(gen, "problems", "0-24", str)
    _no_more(gen)
    lo, _, hi = spec.partition("-")
    if not lo.isdigit() or (hi and not hi.isdigit()) or int(hi or lo) < int(lo):
        raise ValueError(f"problems {spec!r}: expected N or A-B with A <= B")
    first = int(lo)
    return int(hi or lo) - first + 1, lambda n: [{"problems": [str(first + k)]} for k in range(n)]


def sliding_boards(job: Job, gen: dict) -> Generated:
    """Random solvable boards of ``size`` (e.g. "3x3"), seeds ``seed ..``."""
    import numpy as np

    from puzzlebatch.puzzles.sliding.model import Board, goal_board, solvability

    count, seed, size = _count(gen), _seed(gen), _take(gen, "size", "3x3", str)
    _no_more(gen)
    r, _, c = size.partition("x")
    if not (r.isdigit() and c.isdigit()) or int(r) < 2 or int(c) < 2:
        raise ValueError(f"size {size!r}: expected RxC with R, C >= 2")
    rows, cols = int(r), int(c)
    CELLS.check(rows * cols, f"size {size}")
    goal = goal_board(rows, cols)  # 1..n-1 then the blank

    def make(n: int) -> list[dict]:
        out = []
        for k in range(n):
            rng = np.random.default_rng(seed + k)
            while True:
                tiles = rng.permutation(rows * cols)
                if solvability(Board(rows, cols, tuple(tiles.tolist())), goal)[0]:
                    break
            out.append({"tiles": " ".join(map(str, tiles.tolist())), "size": size})
        return out

    return count, make


def _no_more(gen: dict) -> None:
    if gen:
        raise ValueError(f"unknown generator key(s): {', '.join(sorted(gen))}")




def _generator(family: str) -> Callable[[Job, dict], Generated] | None:
    """The family's instance generator for ``[instances.generate]`` (its registry ``jobs`` hook), or None."""
    from puzzlebatch import registry

    return registry.get(family).hook("jobs") if family in registry.names() else None


# ----------------------------------------------------------------------------- running

def _ledger_path(job: Job) -> Path:
    out = job.common.get("out")
    return Path(out) if out else Path(os.path.abspath(job.path.parent)) / "results" / f"job-{job.name}.h5"


def _make_output_dirs(job: Job) -> None:
    """Create the job's missing output folders (all inside the job's folder: checked when it was loaded)."""
    for d in [*job.make_dirs, _ledger_path(job).parent]:
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JobError(f"{job.path}: cannot create the output folder {d} ({exc.strerror})") from None


def _open_ledger(job: Job, resume: bool):
    """The job's ledger run in its store: (path, run id, instances already done, instance interrupted or -1)."""
    from puzzlebatch.results.store import ResultsStore

    path = _ledger_path(job)
    if not resume:
        _make_output_dirs(job)
    if resume and not path.exists():
        raise JobError(f"--resume: {path} does not exist; run the job without --resume first")
    store = ResultsStore(path, "a")
    params = {"job": job.name, "argvs": job.argvs}
    if resume:
        run = store.latest_run("job", unfinished=True, where=lambda a: a.get("params") == params)
        if run is not None:
            done = {int(i) for i in run.items().get("instance", [])}
            stopped = int((run.attrs.get("result") or {}).get("interrupted_at", -1))
            store.close()
            return path, run.id, done, stopped
        finished = store.latest_run("job", status="done", where=lambda a: a.get("params") == params)
        store.close()
        if finished is not None:
            raise NothingToDo(f"nothing to do: --resume: job {job.name} already finished (results in {path}, run "
                              f"{finished.id})", path=str(path), run_id=finished.id)
        raise JobError(f"--resume: {path} has no unfinished run of job {job.name} with these instances")
    run = store.create_run("job", job.name, backend=job.common.get("backend", "auto"),
                           device=job.common.get("scheduler", "embedded"), seed=None, params=params)
    store.close()  # each instance opens the store itself
    return path, run.id, set(), -1


def run(job: Job, resume: bool = False, say: Callable[[str], None] | None = None) -> dict:
    """Run every instance of ``job`` in turn (in this process); returns the job summary."""
    say = say or (lambda s: print(f"puzzlebatch run: {s}", file=sys.stderr))
    path, run_id, done, interrupted_at = _open_ledger(job, resume)
    results, t0 = [], work_clock()
    with contextlib.ExitStack() as stack:
        argvs = job.argvs
        sched = job.common.get("scheduler", "")
        if sched.startswith("local"):  # one cluster for the whole job: its workers stay warm between instances
            from puzzlebatch.runners.engine.distributed import open_pool

            pool = stack.enter_context(open_pool(sched, job.common.get("backend", "auto")))
            address = pool.client.scheduler.address
            argvs = [[address if a == sched and k and v[k - 1] == "--scheduler" else a for k, a in enumerate(v)]
                     for v in argvs]
        _run_instances(job, argvs, path, run_id, done, interrupted_at, results, t0, say)
    summary = {"job": job.name, "family": job.family, "verb": " ".join(job.verb), "instances": len(job.argvs),
               "ran": len(results), "skipped": len(done), "seconds": work_clock() - t0,
               "out": str(path), "run_id": run_id}
    from puzzlebatch.results.store import ResultsStore

    with ResultsStore(path, "a") as st:
        lg = st.run(run_id)
        lg.set_result(summary)
        lg.finish("done", seconds=summary["seconds"])
    summary["results"] = results
    return summary


def _run_instances(job, argvs, path, run_id, done, interrupted_at, results, t0, say) -> None:
    from puzzlebatch.results.store import ResultsStore, dumps

    cli_main = job.app.main

    for i, argv in enumerate(argvs):
        if i in done:
            continue
        argv = list(argv)
        if i == interrupted_at and "--resume" not in argv and _accepts_resume(job) and "--out" in argv:
            argv = _with_option(argv, "--resume")
        say(f"instance {i + 1}/{len(job.argvs)}: {shlex.join(['puzzlebatch', *argv])}")
        out = io.StringIO()
        t = work_clock()
        with contextlib.redirect_stdout(out):
            status = cli_main(argv)
        text = out.getvalue()
        try:
            doc = json.loads(text)
        except ValueError:
            doc = {"output": text}
        with ResultsStore(path, "a") as st:
            lg = st.run(run_id)
            if status not in (EXIT_OK, EXIT_NO_SOLUTION):  # "no solution" is an instance's answer, kept as such
                lg.set_result({"interrupted_at": i, "status": status})
                lg.finish("interrupted" if status == EXIT_INTERRUPTED else "failed", seconds=work_clock() - t0)
                if status == EXIT_INTERRUPTED:  # Ctrl-C: the instance checkpointed itself; --resume continues it
                    say(f"interrupted at instance {i + 1}; continue with: puzzlebatch run {job.path} --resume")
                    raise KeyboardInterrupt
                raise JobError(f"{job.path}: instance {i + 1} ({shlex.join(argv)}) stopped with status {status}; "
                               f"the {len(done) + len(results)} instance(s) before it are stored in {path}; "
                               "fix it and rerun with --resume")
            lg.append_items(instance=[i], status=[status], seconds=[work_clock() - t], result=[dumps(doc)])
        results.append(doc)


def _accepts_resume(job: Job) -> bool:
    parser = _verb_parser(job.app, job.family, job.verb)
    return parser is not None and _flag(parser, "resume") is not None
