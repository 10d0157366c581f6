"""What puzzlebatch accepts: the ranges of every number and the limits on sizes, in one place.

Used at every edge — the command line (``type=`` functions for argparse), job files, the model parsers, and any
other front end such as a web API (:func:`check_value` works on plain values, without argparse).  Every refusal is
a :class:`LimitError`, a one-line :class:`~puzzlebatch.errors.PuzzleInputError` naming the value, the limit and how
to raise it.

Size limits (each can be raised with its environment variable):

=====================  =================================  ================================================
limit                  default                            what it bounds
=====================  =================================  ================================================
``cells``              1,000,000                          cells of a board, figure, box or chain
``chain``              4,096                              cubes of a snake chain (one search state each)
``items``              100,000                            primary items (columns) of an exact-cover problem
``options``            1,000,000                          options (rows) of an exact-cover problem
``instances``          1,000,000                          instances of one job file, or of one ``--file``
``population``         1,000,000                          individuals of a genetic algorithm
``workers``            256                                ``--scheduler local:N`` worker processes
``source_length``      1,000,000                          units of one hex-Tetris game
``cubes``              10,000                             cubes of one connector-cube set
``generated_cells``    343                                cells of a box a random snake chain is drawn in
``seeds``              10,000                             random seeds of one hex-Tetris problem
``phrase``             1,000                              characters of one phrase of power
``input_bytes``        512 MiB                            bytes of one input file (a board, pieces, a job...)
``memory``             half the machine's memory          bytes one request may allocate (estimated first)
=====================  =================================  ================================================
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from puzzlebatch.errors import PuzzleInputError


class LimitError(PuzzleInputError):
    """A value out of its range, or a request beyond a size limit (one line: the value, the limit, the remedy)."""


# ----------------------------------------------------------------------------- size limits

def _machine_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 8 << 30


@dataclass(frozen=True)
class Limit:
    """A size limit: ``default`` unless the environment variable ``env`` says otherwise."""

    name: str
    default: int
    env: str
    unit: str

    @property
    def value(self) -> int:
        text = os.environ.get(self.env, "").strip().replace("_", "")
        if not text:
            return self.default
        if not text.isdigit() or int(text) < 1:
            raise LimitError(f"{self.env}={os.environ[self.env]!r}: expected a positive whole number")
        return int(text)

    def check(self, amount: int, what: str) -> int:
        """``amount`` if within the limit, else a one-line :class:`LimitError` naming ``what``."""
        limit = self.value
        if amount > limit:
            raise LimitError(f"{what}: {amount:,} {self.unit} is over the limit of {limit:,} (set {self.env} "
                             "to raise it)")
        return amount


CELLS = Limit("cells", 1_000_000, "PUZZLEBATCH_MAX_CELLS", "cells")
CHAIN = Limit("chain", 4_096, "PUZZLEBATCH_MAX_CHAIN", "cubes")
ITEMS = Limit("items", 100_000, "PUZZLEBATCH_MAX_ITEMS", "items")
OPTIONS = Limit("options", 1_000_000, "PUZZLEBATCH_MAX_OPTIONS", "options")
INSTANCES = Limit("instances", 1_000_000, "PUZZLEBATCH_MAX_INSTANCES", "instances")
POPULATION = Limit("population", 1_000_000, "PUZZLEBATCH_MAX_POPULATION", "individuals")
WORKERS = Limit("workers", 256, "PUZZLEBATCH_MAX_WORKERS", "workers")
SOURCE_LENGTH = Limit("source_length", 1_000_000, "PUZZLEBATCH_MAX_SOURCE_LENGTH", "units")
CUBES = Limit("cubes", 10_000, "PUZZLEBATCH_MAX_CUBES", "cubes")
GENERATED_CELLS = Limit("generated_cells", 343, "PUZZLEBATCH_MAX_GENERATED_CELLS", "cells")  # O(cells^3) work
SEEDS = Limit("seeds", 10_000, "PUZZLEBATCH_MAX_SEEDS", "seeds")
PHRASE = Limit("phrase", 1_000, "PUZZLEBATCH_MAX_PHRASE", "characters")
INPUT_BYTES = Limit("input_bytes", 512 << 20, "PUZZLEBATCH_MAX_INPUT_BYTES", "bytes")  # /dev/zero ends here
MEMORY = Limit("memory", _machine_memory() // 2, "PUZZLEBATCH_MAX_MEMORY", "bytes")

LIMITS = {lim.name: lim for lim in (CELLS, CHAIN, ITEMS, OPTIONS, INSTANCES, POPULATION, WORKERS, SOURCE_LENGTH,
                                    CUBES, GENERATED_CELLS, SEEDS, PHRASE, INPUT_BYTES,
                                    MEMORY)}


def check_memory(n_bytes: float, what: str) -> None:
    """Refuse a request whose estimated allocation is over :data:`MEMORY` (before allocating anything)."""
    limit = MEMORY.value
    if n_bytes > limit:
        raise LimitError(f"{what}: needs about {_size(n_bytes)}, over the limit of {_size(limit)} (set "
                         f"{MEMORY.env} to a number of bytes to raise it)")


def _size(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


# ----------------------------------------------------------------------------- ranges of single values

@dataclass(frozen=True)
class Range:
    """The accepted values of a number: its kind (``int``/``float``) and bounds (None: unbounded)."""

    kind: type
    low: float | None = None
    high: float | None = None
    low_open: bool = False  # low itself excluded (e.g. a positive float)

    def describe(self) -> str:
        if self.low is not None and self.high is not None:
            if self.kind is int:
                return f"between {self.low:,} and {self.high:,}"
            return f"between {self.low:g} and {self.high:g}"
        if self.low is not None:
            if self.low_open:
                return f"greater than {self.low:g}"
            return "at least 1" if self.low == 1 else f"at least {self.low:g}" if self.low else "0 or more"
        if self.high is not None:
            return f"at most {self.high:g}"
        return "a finite number"


POSITIVE = Range(int, 1)
NON_NEGATIVE = Range(int, 0)
SEED = Range(int, 0)
BUDGET = Range(int, 1, 1 << 62)  # nodes per work item per launch: an int64 in the kernels
REPAIR = Range(int, 0, 1 << 40)  # GA repair nodes / cubes taken out: held exactly in a float64 operator parameter
WORK_ITEMS = Range(int, 1, 1 << 24)  # --batch-size, --frontier: work items held at once
MEMO_ENTRIES = Range(int, 0, 1 << 26)  # --memo: entries of a count's memo a CPU thread (32 bytes each), a power of two
BEAM = Range(int, 1, 1 << 16)  # hex Tetris beam player: states kept per game, candidates per state
REGION_SIDE = Range(int, 0, 1 << 16)  # polyomino cut --region: cells a side of a region (0: one search)
POSITIVE_SECONDS = Range(float, 0.0, None, low_open=True)
NON_NEGATIVE_SECONDS = Range(float, 0.0)
PROBABILITY = Range(float, 0.0, 1.0)
FINITE = Range(float)


def check_value(name: str, value, rng: Range):
    """``value`` converted to ``rng.kind`` if it is in range, else a one-line :class:`LimitError` that names
    ``name`` (an option such as ``--budget`` or a key such as ``options.budget``)."""
    if isinstance(value, bool):
        raise LimitError(f"{name} {value!r}: must be {_kind(rng)}")
    if isinstance(value, str):
        text = value.strip()
        try:
            number = int(text) if rng.kind is int else float(text)
        except ValueError:
            raise LimitError(f"{name} {value!r}: must be {_kind(rng)}") from None
    elif rng.kind is int and isinstance(value, int):
        number = value
    elif rng.kind is float and isinstance(value, (int, float)):
        number = float(value)
    else:
        raise LimitError(f"{name} {value!r}: must be {_kind(rng)}")
    if rng.kind is float and not math.isfinite(number):
        raise LimitError(f"{name} {value}: must be a finite number, {rng.describe()}")
    below = rng.low is not None and (number <= rng.low if rng.low_open else number < rng.low)
    above = rng.high is not None and number > rng.high
    if below or above:
        raise LimitError(f"{name} {value}: must be {rng.describe()}")
    return number


def _kind(rng: Range) -> str:
    what = "a whole number" if rng.kind is int else "a number"
    return f"{what} {rng.describe()}"


def arg(rng: Range):
    """A ``type=`` function for ``rng``: ``p.add_argument("--budget", type=arg(POSITIVE))``.

    It raises :class:`LimitError`; the command line's parser names the option, so the error reads
    ``argument --budget: -5: must be at least 1``."""

    def convert(text: str):
        return check_value("", text, rng)

    convert.__name__ = "whole number" if rng.kind is int else "number"
    return convert


positive_int = arg(POSITIVE)
non_negative_int = arg(NON_NEGATIVE)
seed = arg(SEED)
budget = arg(BUDGET)
work_items = arg(WORK_ITEMS)


def check_memo(name: str, value) -> int:
    """A count's memo size (``--memo``, the API's ``memo=``): 0, or a power of two from 2 (a bucket) within
    :data:`MEMO_ENTRIES`."""
    n = check_value(name, value, MEMO_ENTRIES)
    if n & (n - 1) or n == 1:
        raise LimitError(f"{name} {value}: must be 0 or a power of two from 2 (e.g. 65536)".lstrip())
    return n


def memo_entries(text: str) -> int:
    """``--memo`` for argparse (the parser names the option)."""
    return check_memo("", text)


memo_entries.__name__ = "whole number"
beam = arg(BEAM)
region_side = arg(REGION_SIDE)
positive_seconds = arg(POSITIVE_SECONDS)
non_negative_seconds = arg(NON_NEGATIVE_SECONDS)
probability = arg(PROBABILITY)
finite_float = arg(FINITE)


def env_float(name: str, default: float, low: float, high: float) -> float:
    """A float setting from the environment, checked like an option."""
    text = os.environ.get(name, "").strip()
    return default if not text else check_value(name, text, Range(float, low, high))


def limited(limit: Limit):
    """A ``type=`` function: a whole number from 1 to ``limit`` (read when the option is parsed; raises
    :class:`LimitError`)."""

    def convert(text: str) -> int:
        n = check_value("", text, POSITIVE)
        return limit.check(n, str(n))

    convert.__name__ = "whole number"
    return convert


population = limited(POPULATION)
instances = limited(INSTANCES)


def check_copies(n: int, what: str) -> int:
    """``n`` copies of a piece, if no more than the cells limit (more could never all be placed)."""
    if n > CELLS.value:
        raise LimitError(f"{what}: {n:,} copies of a piece is over the limit of {CELLS.value:,} (one a cell; set "
                         f"{CELLS.env} to raise it, or use unlimited copies)")
    return n


def copies(text: str) -> int:
    """A ``type=`` function: a number of copies of a piece, from 1 to the cells limit."""
    return check_copies(check_value("", text, POSITIVE), text.strip())


copies.__name__ = "whole number"

DEFAULT_ITEM_SECONDS = 20.0  # a chunk's time on a worker before it hands back the rest to be re-split
