"""How long this process spent compiling, so that results can report the work alone.

numba announces every real compilation (a cache hit is not one) with a ``numba:compile`` event; nested events (a
function compiling the functions it calls) are counted once, by their outermost event.  CUDA kernels are timed by
the cache class between the miss and the save.  :class:`Stopwatch` turns that into the two numbers every result
carries: ``seconds`` (the work, compiling excluded) and ``compile_seconds`` (0 when everything came from the cache).

On a terminal, the first compilation of a unit prints one line to stderr (``compiling polyomino kernels (first
run, cached afterwards)…``) so that a first run is not a silent minute.
"""

from __future__ import annotations

import sys
import threading
import time

_state = threading.local()
_total = [0.0]  # seconds compiled in this process (outermost events only)
_total_lock = threading.Lock()
_announced: set[str] = set()
_installed = [False]


def _depth() -> int:
    return getattr(_state, "depth", 0)


def _on_start(event) -> None:
    d = _depth()
    if d == 0:
        _state.t0 = time.perf_counter()
        disp = (event.data or {}).get("dispatcher")
        announce(getattr(getattr(disp, "py_func", None), "__puzzlebatch_label__", None))
    _state.depth = d + 1


def _on_end(event) -> None:
    d = _depth() - 1
    _state.depth = max(d, 0)
    if d == 0:
        add(time.perf_counter() - getattr(_state, "t0", time.perf_counter()))


def install() -> None:
    """Start listening to numba's compile events (idempotent; called when the first unit is built)."""
    if _installed[0]:
        return
    from numba.core import event

    class CompileListener(event.Listener):
        def on_start(self, ev):
            _on_start(ev)

        def on_end(self, ev):
            _on_end(ev)

    event.register("numba:compile", CompileListener())
    _installed[0] = True


def add(seconds: float) -> None:
    with _total_lock:
        _total[0] += seconds


def compile_seconds() -> float:
    """Seconds this process has spent compiling so far."""
    with _total_lock:
        return _total[0]


def _default_note() -> str:
    return "first run, cached afterwards"


#: what the announcement says about caching; :mod:`puzzlebatch.jit.cache` replaces it with its own state
cache_note = _default_note


def announce(label: str | None) -> None:
    """Say once per unit label, on a terminal, that its code is being compiled."""
    if not label or label in _announced:
        return
    _announced.add(label)
    if _stderr_is_terminal():
        print(f"compiling {label} kernels ({cache_note()})…", file=sys.stderr, flush=True)


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def note_miss(py_func, timed: bool = False) -> None:
    """Called by the cache classes when an entry is missing: the compilation that follows is announced.  CUDA
    kernel compilations fire no numba event, so with ``timed`` they are timed from here to :func:`note_saved`."""
    announce(getattr(py_func, "__puzzlebatch_label__", None))
    if timed:
        _state.kernel_t0 = time.perf_counter()


def note_saved() -> None:
    """The end of a CUDA kernel compilation started at :func:`note_miss` (``timed``)."""
    t0 = getattr(_state, "kernel_t0", None)
    if t0 is not None:
        add(time.perf_counter() - t0)
        _state.kernel_t0 = None


class Stopwatch:
    """Wall time since creation, split into work and compiling.

    ``seconds`` is the wall time minus the compile time that fell inside it; ``compile_seconds`` is that compile
    time.  Both are read at any moment (a stopwatch keeps running).
    """

    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.c0 = compile_seconds()

    @property
    def compile_seconds(self) -> float:
        return compile_seconds() - self.c0

    @property
    def wall_seconds(self) -> float:
        return time.perf_counter() - self.t0

    @property
    def seconds(self) -> float:
        return max(0.0, self.wall_seconds - self.compile_seconds)

    def timings(self) -> dict:
        """``{"seconds": ..., "compile_seconds": ...}``, rounded for reports."""
        return {"seconds": round(self.seconds, 6), "compile_seconds": round(self.compile_seconds, 3)}


def work_clock() -> float:
    """``time.perf_counter()`` less the seconds compiled so far in this process: the difference of two readings is
    the work done in between, compiling excluded.  Use it for reported durations and rates, and the plain
    ``time.perf_counter()`` for deadlines (a user's time limit is wall time)."""
    return time.perf_counter() - compile_seconds()


_command: list[Stopwatch] = []  # a stack: a command may run others in process (a job file, ``warmup``)


def start_command() -> Stopwatch:
    """Start the stopwatch of a command (the CLI calls it before parsing the verb's input); :func:`end_command`
    stops it.  Commands run by a command (a job file's instances) get their own, on top."""
    watch = Stopwatch()
    _command.append(watch)
    return watch


def end_command() -> None:
    if _command:
        _command.pop()


def command_compile_seconds() -> float:
    """Seconds compiled since the current command started (since this process started, without a command)."""
    return round(_command[-1].compile_seconds if _command else compile_seconds(), 3)


def command_timings() -> dict:
    """``{"seconds", "compile_seconds"}`` of the current command so far (see :class:`Stopwatch`)."""
    watch = _command[-1] if _command else Stopwatch()
    return watch.timings()
