"""What a worker process runs: the job kinds, their warm-up, and the context a task reports through.

A task is ``fn(params, ctx) -> JSON-ready result``; ``params`` were checked by the route that queued the job.  It
raises :class:`~puzzlebatch.errors.PuzzleInputError` with the command line's one-line message for bad input, and
:class:`Cancelled` (via :meth:`Context.check`) when asked to stop.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from puzzlebatch.web import limits


class Cancelled(Exception):
    """The job was cancelled; raised inside the search's progress callback, so it stops between batches."""


class Context:
    """A task's line back to the server: phase, progress, cancellation, and where kept results go.

    Built by the worker process on its pipe; ``conn=None`` gives a local context (tests, or running a task in
    the caller's process) that keeps the last phase and progress in attributes.
    """

    def __init__(self, conn=None, cancel=None, results_dir: Path = Path("results")):
        self.conn = conn
        self.cancel = cancel
        self.results_dir = Path(results_dir)
        self.last_phase: str | None = None
        self.last_progress: dict | None = None
        self._sent = 0.0

    def begin(self) -> None:
        self._sent = 0.0

    def phase(self, name: str) -> None:
        self.last_phase = name
        if self.conn is not None:
            self.conn.send(("phase", name))

    def progress(self, doc: dict, force: bool = False) -> None:
        """Report progress, at most every ``limits.PROGRESS_EVERY_SECONDS`` unless ``force``."""
        self.last_progress = doc
        now = time.monotonic()
        if self.conn is not None and (force or now - self._sent >= limits.PROGRESS_EVERY_SECONDS):
            self._sent = now
            self.conn.send(("progress", doc))

    def check(self) -> None:
        """Raise :class:`Cancelled` if the job was asked to stop."""
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled()


_warmed: set[str] = set()


def warm(families: tuple[str, ...] | list[str]) -> dict[str, float]:
    """Compile the kernels of ``families`` in this process (seconds per family; 0 when already done)."""
    out = {}
    for family in families:
        t0 = time.perf_counter()
        if family not in _warmed:
            _warmer(family)()
            _warmed.add(family)
        out[family] = time.perf_counter() - t0
    return out


def ensure_warm(family: str, ctx: Context) -> float:
    """Compile ``family`` if this process has not yet (saying so through the phase), then enter the search."""
    seconds = 0.0
    if family not in _warmed:
        ctx.phase("compiling")
        seconds = warm([family])[family]
    ctx.phase("searching")
    return seconds


def warm_polyomino() -> None:
    from puzzlebatch.runners.polyomino import solver as RP
    from puzzlebatch.runners.engine.backend import select_backend

    RP.warm_up(select_backend("auto"), enumerate=True)


def warm_sliding() -> None:
    from puzzlebatch.puzzles.sliding.model import goal_board
    from puzzlebatch.runners.sliding import solver as sliding
    from puzzlebatch.runners.engine.backend import select_backend

    sliding.solve(goal_board(3, 3), "blank-last", "linear-conflict", select_backend("auto"))


def warm_hextris() -> None:
    """Nothing to compile: the replay runs the plain-Python model."""


def _warmer(family: str) -> Callable[[], None]:
    from puzzlebatch import registry

    return registry.get(family).hook("web_warm") or (lambda: None)
