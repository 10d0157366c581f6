"""The contest player's kernels compiled in other processes, stage by stage, while the player answers.

On a machine whose compile cache is empty, numba builds the kernels on first use, inside ``-t``.  Compiling in a
thread of the player's own process shares the interpreter lock with the plain-Python player that answers meanwhile
(:mod:`puzzlebatch.runners.hextris.coldstart`), so both go at half speed or worse.  :class:`Precompiler` compiles in
separate processes instead (a second core when there is one), into the disk cache, exactly the kernels the player
calls and in the order it calls them (:data:`STAGES`); the player waits for a stage only when it needs it
(:meth:`Precompiler.wait`) and then loads it from the cache.  What it needs, measured per kernel
(``python bench/hextris_coldstart.py --compile-times``): the greedy player ``init_batch`` and ``policy_batch``, the
exact scorer ``commands_batch``, the beam player ``evaluate_batch``, ``placements_batch`` and ``lockable_batch`` and
the phrase weaver's ``reverse_distances`` and ``row_reachable``; ``board_eval_batch`` is never compiled for it.

Each stage is compiled by running it on a few units of a small qualifier problem, so every kernel gets exactly the
argument types the player gives it.  A stage's marker file (its compile seconds) is written into a scratch folder
once the stage is in the cache; ``<stage>.failed`` if it raised.  Processes that play (several with ``-c``) find the
folder in :data:`ENV_FOLDER` and wait on the same markers, so the kernels are compiled once.

A compiling process that dies by a signal writes nothing.  The process that started it sees that from its exit
status; the others see it from ``<stage>.lock``: the compiling process holds an exclusive lock on one such file a
stage (:func:`hold_locks`, before anything else), and the system releases a dead process's locks, so a lock file
that another process can lock, with no marker beside it, is a stage that will not come.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

#: the stages, in the order the contest player needs them, and the compiled functions each brings into the cache
STAGES = {"greedy": ("init_batch", "policy_batch"),
          "score": ("commands_batch",),
          "beam": ("evaluate_batch", "placements_batch", "lockable_batch", "reverse_distances", "row_reachable")}
#: the environment variable naming the markers' folder (set for the processes that play, by the one that compiles)
ENV_FOLDER = "PUZZLEBATCH_HEXTRIS_PRECOMPILE"
#: how often a waiting player looks for a marker (seconds)
POLL = 0.05


def cache_folder() -> Path:
    """The disk-cache folder of the hex Tetris CPU kernels (keyed on their sources)."""
    from puzzlebatch.cpu_fallback.hextris import drivers

    return Path(drivers().folder)


def cached(stages=tuple(STAGES)) -> bool:
    """True when every function of ``stages`` has an entry in the disk cache (a warm machine: nothing to compile
    in other processes)."""
    folder = cache_folder()
    if not folder.is_dir():
        return False
    names = {p.name for p in folder.iterdir() if p.suffix == ".nbi"}
    return all(any(f".{fn}-" in n for n in names) for s in stages for fn in STAGES[s])


def tiny_problem():
    """Qualifier problem 1 cut to three units of one seed: enough to call every kernel once."""
    from puzzlebatch.puzzles.hextris.model import official_problem

    p = official_problem(1)  # shipped with the package; a few units are enough to call every kernel
    return dataclasses.replace(p, source_length=3, source_seeds=p.source_seeds[:1])


def compile_stage(stage: str) -> float:
    """Compile (or load) the functions of ``stage`` for the CPU by running them on a small problem; wall seconds."""
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.hextris.playouts import GREEDY_WEIGHTS, Playouts

    t = time.perf_counter()
    backend = select_backend("cpu")
    p = tiny_problem()
    sim = Playouts([p], backend)
    games = sim.new_games(list(p.source_seeds))
    if stage == "greedy":
        sim.run_policy(games, GREEDY_WEIGHTS, max_units=1)
    elif stage == "score":
        sim.run_commands(games, ["l"])
    elif stage == "beam":
        from puzzlebatch.runners.hextris.player import play_problems

        sim.lockable(games)
        play_problems([p], backend, beam=1, keep=2, survival=False)  # plans, weaves phrases, scores
    else:
        raise ValueError(f"unknown stage {stage!r} (one of {', '.join(STAGES)})")
    return time.perf_counter() - t


def hold_locks(folder: Path, stages: list[str]) -> list:
    """Lock ``<stage>.lock`` in ``folder`` for each stage, for as long as this process lives (keep the returned
    files).  Each file is locked before it gets its name, so a lock file seen unlocked belongs to a process that has
    ended.  Nothing (an empty list) where the system has no ``fcntl``."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: the starting process's exit status is all there is
        return []
    held = []
    for stage in stages:
        tmp = folder / f".{stage}.lock.{os.getpid()}"
        f = open(tmp, "wb")  # noqa: SIM115 - held open (and locked) until the process ends
        fcntl.flock(f, fcntl.LOCK_EX)
        os.replace(tmp, folder / f"{stage}.lock")
        held.append(f)
    return held


def lock_released(folder: Path, stage: str) -> bool:
    """True when ``<stage>.lock`` exists and no process holds it (its compiling process has ended)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover
        return False
    try:
        f = open(folder / f"{stage}.lock", "rb")  # noqa: SIM115
    except OSError:  # not there yet (the process is starting) or the folder is gone
        return False
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # held: the process is alive
        fcntl.flock(f, fcntl.LOCK_UN)
        return True


def main(argv: list[str]) -> int:
    """The compiling process: ``FOLDER STAGE [STAGE ...]``; each stage's marker written when it is done."""
    folder, stages = Path(argv[0]), argv[1:]
    held = hold_locks(folder, stages)  # noqa: F841 - released by the system when this process ends
    for stage in stages:
        try:
            seconds = compile_stage(stage)
        except Exception as exc:  # noqa: BLE001 - reported to the waiting players, who then compile themselves
            # this stage and the ones after it in this process will not come: a player waits for none of them
            for rest in stages[stages.index(stage):]:
                (folder / f"{rest}.failed").write_text(f"{type(exc).__name__}: {exc}\n", encoding="utf-8")
            return 1
        tmp = folder / f".{stage}.tmp"
        tmp.write_text(f"{seconds:.3f}\n", encoding="utf-8")
        tmp.replace(folder / stage)  # whole or not at all
    return 0


def groups(processes: int) -> list[list[str]]:
    """The stages each compiling process takes: one process all of them in order; two the compiled greedy
    player and the scorer in one, the beam player in the other."""
    return [list(STAGES)] if processes <= 1 else [["greedy", "score"], ["beam"]]


class Precompiler:
    """Stages compiled in other processes (:meth:`start`) or by another playing process (:meth:`join`)."""

    def __init__(self, folder: Path, procs: list[subprocess.Popen] | None = None, owner: bool = False):
        self.folder, self.procs, self.owner = folder, procs or [], owner
        self.t0 = time.perf_counter()
        #: seconds each stage was waited for by this process
        self.waited: dict[str, float] = {}

    @classmethod
    def start(cls, processes: int = 1) -> "Precompiler | None":
        """Compile the player's stages in ``processes`` (1 or 2) other processes, unless the cache has them all
        already or caching is off (None then: the player compiles in its own process, on first use)."""
        import tempfile

        from puzzlebatch.jit.cache import caching_disabled

        if caching_disabled() or cached():
            return None
        folder = Path(tempfile.mkdtemp(prefix="puzzlebatch-hextris-compile-"))
        env = dict(os.environ, NUMBA_NUM_THREADS="1", **{ENV_FOLDER: str(folder)})
        procs = []
        for k, stages in enumerate(groups(processes)):
            with open(folder / f"compile-{k}.log", "wb") as log:
                procs.append(subprocess.Popen(
                    [sys.executable, "-c", "import sys; from puzzlebatch.runners.hextris.precompile import main; "
                     "raise SystemExit(main(sys.argv[1:]))", str(folder), *stages],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=env))
        return cls(folder, procs, owner=True)

    @classmethod
    def join(cls) -> "Precompiler | None":
        """The stages another process compiles for this one (:data:`ENV_FOLDER`), if any."""
        folder = os.environ.get(ENV_FOLDER)
        return cls(Path(folder)) if folder and Path(folder).is_dir() else None

    def _gone(self, stage: str) -> bool:
        """True when no process will bring ``stage`` any more (it failed, or its process exited without it)."""
        if (self.folder / f"{stage}.failed").exists():
            return True
        if not self.procs:  # a process that joined: the compiling process's lock tells
            return lock_released(self.folder, stage) and not (self.folder / stage).exists()
        k = next(i for i, g in enumerate(groups(len(self.procs))) if stage in g)
        gone = self.procs[k].poll() is not None and not (self.folder / stage).exists()
        if gone:  # it died without a word (a signal): say so for the players that joined and cannot see it
            for rest in groups(len(self.procs))[k]:
                if not (self.folder / rest).exists():
                    (self.folder / f"{rest}.failed").write_text("the compiling process ended\n", encoding="utf-8")
        return gone

    def wait(self, stage: str, deadline: float | None = None) -> bool:
        """Wait until ``stage`` is in the cache (True), it failed (False: the caller compiles it on first use) or
        ``time.perf_counter()`` passes ``deadline`` (False)."""
        t = time.perf_counter()
        try:
            while True:
                if (self.folder / stage).exists():
                    return True
                if self._gone(stage) or (deadline is not None and time.perf_counter() > deadline):
                    return False
                time.sleep(POLL)
        finally:
            self.waited[stage] = self.waited.get(stage, 0.0) + time.perf_counter() - t

    def compile_seconds(self) -> dict[str, float]:
        """Each finished stage's compile seconds, as its process measured them."""
        out = {}
        for stage in STAGES:
            f = self.folder / stage
            if f.exists():
                try:
                    out[stage] = float(f.read_text(encoding="utf-8"))
                except (OSError, ValueError):  # pragma: no cover - a marker is written whole
                    pass
        return out

    def summary(self) -> str:
        """One line's worth: what was compiled where, and for how long."""
        done = self.compile_seconds()
        parts = [f"{s} {done[s]:.1f} s" if s in done else f"{s} not ready" for s in STAGES]
        where = f"{len(self.procs)} other process{'es' if len(self.procs) > 1 else ''}" if self.owner else \
            "another process"
        return f"compiled in {where}: {', '.join(parts)}"

    def close(self) -> None:
        """Stop the compiling processes this one started (a stage still compiling is left out of the cache) and
        remove the markers' folder."""
        import shutil

        if not self.owner:
            return
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:  # pragma: no cover - terminate is enough
                p.kill()
                p.wait()
        shutil.rmtree(self.folder, ignore_errors=True)
