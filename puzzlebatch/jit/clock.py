"""How long this process spent compiling, so that results can report the work alone.

numba announces every real compilation (a cache hit is not one) with a ``numba:compile`` event; nested events (a
function compiling the functions it calls) are counted once, by their outermost event.  CUDA kernels are timed by
the cache class between the miss and the save.  :class:`Stopwatch` turns that into the two numbers every result
carries: ``seconds`` (the work, compiling excluded) and ``compile_seconds`` (0 when everything came from the cache).

Loading compiled code from the disk cache (and numba's one-time set-up that comes with the first load) is not work
either: it is timed by the cache classes and left out of ``seconds`` too.

The first compilation of a unit prints one line to stderr (``compiling polyomino kernels (first run, cached
afterwards)…``) so that a first run is not a silent minute: on a terminal always (above a progress bar, never
inside its line), and from the command line always (with ``--json`` or into a pipe too; see :func:`announce_always`).
"""

from __future__ import annotations

import sys
import threading
import time

_state = threading.local()
_total = [0.0]  # seconds compiled in this process (outermost events only)
_loading = [0.0]  # seconds spent loading compiled code from the disk cache (outside compilations)
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


def add_load(seconds: float) -> None:
    """Time spent loading compiled code from the disk cache (numba's one-time set-up included): not work, and not
    compiling either.  A load inside a compilation (a callee) is already part of that compilation's time."""
    if _depth() == 0:
        with _total_lock:
            _loading[0] += seconds


def load_seconds() -> float:
    """Seconds this process has spent loading compiled code from the disk cache so far."""
    with _total_lock:
        return _loading[0]


def _overhead() -> float:
    with _total_lock:
        return _total[0] + _loading[0]


def _default_note() -> str:
    return "first run, cached afterwards"


#: what the announcement says about caching; :mod:`puzzlebatch.jit.cache` replaces it with its own state
cache_note = _default_note


_always = [False]  # announce where stderr is not a terminal too (the command line sets it)


def announce_always(on: bool = True) -> None:
    """Announce compilations on stderr even where it is not a terminal (a pipe, a log file): the command line's
    choice; a library caller's stderr is left alone unless it is a terminal."""
    _always[0] = on


def announce(label: str | None) -> None:
    """Say once per unit label that its code is being compiled (one line on stderr)."""
    if not label or label in _announced:
        return
    _announced.add(label)
    if not (_always[0] or _stderr_is_terminal()):
        return
    line = f"compiling {label} kernels ({cache_note()})…"
    try:
        from tqdm import tqdm

        tqdm.write(line, file=sys.stderr)  # clears a progress bar's line first, then draws it again below
    except Exception:  # noqa: BLE001 - the notice must never break a run
        print(line, file=sys.stderr, flush=True)
    sys.stderr.flush()


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

    ``seconds`` is the wall time minus the time that fell inside it spent compiling or loading compiled code from
    the disk cache; ``compile_seconds`` is the compiling alone (0 when everything came from the cache).  Both are
    read at any moment (a stopwatch keeps running).
    """

    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.c0 = compile_seconds()
        self.o0 = _overhead()

    @property
    def compile_seconds(self) -> float:
        return compile_seconds() - self.c0

    @property
    def wall_seconds(self) -> float:
        return time.perf_counter() - self.t0

    @property
    def seconds(self) -> float:
        """The work: wall time less compiling and loading compiled code."""
        return max(0.0, self.wall_seconds - (_overhead() - self.o0))

    def timings(self) -> dict:
        """``{"seconds": ..., "compile_seconds": ...}``, rounded for reports."""
        return {"seconds": round(self.seconds, 6), "compile_seconds": round(self.compile_seconds, 3)}


def work_clock() -> float:
    """``time.perf_counter()`` less the seconds spent so far compiling and loading compiled code: the difference
    of two readings is the work done in between.  Use it for reported durations and rates, and the plain
    ``time.perf_counter()`` for deadlines (a user's time limit is wall time)."""
    return time.perf_counter() - _overhead()


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
