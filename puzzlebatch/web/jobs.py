"""Long work off the event loop: warm worker processes, progress, cancellation and time limits.

Each worker is a process started once (``spawn``) that compiles the kernels it is told to warm and then runs jobs
one at a time, reporting its phase and progress through a pipe.  On the server side one driver thread per worker
hands it the next queued job, copies its messages into the job record (which the API reads and streams), and
enforces the time limit.  Cancelling sets the worker's cancel event: searches check it between batches and stop
while the worker stays warm; a worker that has not stopped after a grace period, or runs past the job's time limit,
is terminated and replaced by a fresh one, so a cancelled search always stops.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
import time
import traceback
import uuid
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzlebatch.web import limits
from puzzlebatch.web.tasks import Context

ACTIVE = ("queued", "running")
TERMINAL = ("done", "failed", "cancelled")


class JobRefused(Exception):
    """A job that may not start now: ``status`` is the HTTP status (429 one at a time, 503 queue full)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


@dataclass
class Job:
    """One unit of long work and what is known about it (read under the manager's lock)."""

    id: str
    kind: str
    client: str
    params: dict
    time_limit: float
    status: str = "queued"
    phase: str = "waiting for a worker"
    progress: dict = field(default_factory=dict)
    result: Any = None
    error: str | None = None
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    version: int = 0
    cancel_requested: bool = False
    worker: int | None = None

    def public(self, with_result: bool = True) -> dict:
        """The JSON the API returns (the result only once done, and only if asked for)."""
        end = self.finished or time.time()
        doc = {"id": self.id, "kind": self.kind, "status": self.status, "phase": self.phase,
               "progress": dict(self.progress), "error": self.error, "time_limit": self.time_limit,
               "seconds": round(end - self.started, 3) if self.started else 0.0, "worker": self.worker}
        if with_result and self.status == "done":
            doc["result"] = self.result
        return doc


# -- the worker process ----------------------------------------------------------------------------------------------
def _one_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return lines[0] if lines else "unknown error"


def _worker_main(conn, cancel, warm: tuple[str, ...], results_dir: str) -> None:
    """A worker process: warm the kernels, then run jobs until told to stop (``None``)."""
    from puzzlebatch.errors import BackendUnavailableError, PuzzleInputError
    from puzzlebatch.web import tasks

    ctx = tasks.Context(conn, cancel, Path(results_dir))
    parent = os.getppid()

    def orphaned() -> None:  # the server died without stopping us (SIGKILL): do not search on alone
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=orphaned, daemon=True).start()
    t0 = time.perf_counter()
    try:
        tasks.warm(warm)
    except Exception:  # a worker that cannot compile still runs jobs (they compile, or fail, on their own)
        traceback.print_exc()
    conn.send(("ready", {"warm_seconds": time.perf_counter() - t0}))
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        kind, params = msg
        ctx.begin()
        try:
            conn.send(("done", run_task(kind, params, ctx)))
        except tasks.Cancelled:
            conn.send(("cancelled", None))
        except (PuzzleInputError, BackendUnavailableError) as exc:
            conn.send(("failed", _one_line(str(exc))))
        except Exception as exc:  # a bug: the page gets one line, the server's log the traceback
            traceback.print_exc()
            conn.send(("failed", _one_line(f"internal error: {type(exc).__name__}: {exc}")))


class _Worker:
    """The server side of one worker process: a driver thread that feeds it jobs and watches it."""

    def __init__(self, manager: "JobManager", index: int):
        self.manager = manager
        self.index = index
        self.state = "starting"
        self.proc = None
        self.conn = None
        self.cancel = None
        self.job: Job | None = None
        self.spawned = 0
        self.thread = threading.Thread(target=self._drive, name=f"puzzlebatch-web-worker-{index}", daemon=True)

    def info(self) -> dict:
        return {"index": self.index, "state": self.state, "pid": self.proc.pid if self.proc else None,
                "job": self.job.id if self.job else None, "started": self.spawned}

    # process life -------------------------------------------------------------------------------------------------
    def _spawn(self) -> None:
        ctx = mp.get_context("spawn")  # a fresh interpreter: no threads or event loop inherited from the server
        parent, child = ctx.Pipe()
        self.cancel = ctx.Event()
        self.proc = ctx.Process(target=_worker_main, name=f"puzzlebatch-web-worker-{self.index}",
                                args=(child, self.cancel, self.manager.warm, str(self.manager.results_dir)),
                                daemon=True)
        self.proc.start()
        child.close()
        self.conn = parent
        self.state = "warming"
        self.spawned += 1

    def _stop_process(self) -> None:
        """Terminate the process (SIGTERM, then SIGKILL): a search in compiled code stops at once."""
        if self.proc is None:
            return
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(1.0)
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join(1.0)
        if self.conn is not None:
            self.conn.close()
        self.proc = self.conn = None
        self.state = "stopped"

    def _wait_ready(self) -> bool:
        """Wait for the worker's ``ready``; False if it died or the manager is closing."""
        deadline = time.monotonic() + limits.COMPILE_SECONDS
        while not self.manager.closing:
            if self.conn.poll(0.2):
                try:
                    kind, _ = self.conn.recv()
                except (EOFError, OSError):
                    return False
                if kind == "ready":
                    self.state = "idle"
                    return True
            elif not self.proc.is_alive() or time.monotonic() > deadline:
                return False
        return False

    # driving ------------------------------------------------------------------------------------------------------
    def _drive(self) -> None:
        failures = 0
        while not self.manager.closing:
            try:
                if self.proc is None:
                    self._spawn()
                ready = self._wait_ready()
            except Exception:  # could not start a process at all: say so in the log, try again later
                traceback.print_exc()
                self.proc, ready = None, False
            if not ready:
                self._stop_process()
                failures += 1
                time.sleep(min(30.0, 0.5 * 2 ** failures))  # a worker that cannot start: do not spin
                continue
            failures = 0
            while self.proc is not None and not self.manager.closing:
                job = self.manager._next_job(self)
                if job is None:
                    if self.proc is not None and not self.proc.is_alive():
                        self._stop_process()
                    continue
                self._run(job)
        if self.conn is not None and self.proc is not None and self.proc.is_alive():
            try:
                self.conn.send(None)
                self.proc.join(2.0)
            except (OSError, ValueError):
                pass
        self._stop_process()

    def _run(self, job: Job) -> None:
        m = self.manager
        self.job = job
        self.state = "busy"
        self.cancel.clear()
        try:
            self.conn.send((job.kind, job.params))
        except (OSError, ValueError):
            self._lost(job)
            return
        deadline = time.monotonic() + job.time_limit
        cancel_at = None
        while True:
            if self.conn.poll(0.05):
                try:
                    kind, payload = self.conn.recv()
                except (EOFError, OSError):
                    self._lost(job)
                    return
                if kind == "phase":
                    # compiling has its own, longer limit; the job's limit counts from the search's start
                    deadline = time.monotonic() + (limits.COMPILE_SECONDS if payload == "compiling"
                                                   else job.time_limit)
                    m._update(job, phase=payload)
                elif kind == "progress":
                    m._update(job, progress=payload)
                else:
                    m._finish(job, kind, payload)
                    self.job = None
                    self.state = "idle"
                    return
                continue
            now = time.monotonic()
            if not self.proc.is_alive():
                self._lost(job)
                return
            if (job.cancel_requested or m.closing) and cancel_at is None:
                self.cancel.set()  # searches stop at their next batch
                cancel_at = now
            if cancel_at is not None and now - cancel_at > limits.CANCEL_GRACE_SECONDS:
                self._stop_process()
                m._finish(job, "cancelled", None)
                break
            if now > deadline:
                self._stop_process()
                m._finish(job, "failed", f"time limit: {job.kind} stopped after {job.time_limit:.0f} s")
                break
        self.job = None

    def _lost(self, job: Job) -> None:
        code = self.proc.exitcode if self.proc is not None else None
        self._stop_process()
        self.manager._finish(job, "failed", f"the worker process stopped unexpectedly (exit code {code})")
        self.job = None


# -- the manager -----------------------------------------------------------------------------------------------------
class JobManager:
    """Queue, run, follow and cancel jobs on ``workers`` warm worker processes.

    Parameters
    ----------
    workers : int
        Worker processes (each compiles the kernels once, then serves job after job).
    warm : tuple of str
        Families whose kernels a worker compiles before its first job (see :func:`puzzlebatch.web.tasks.warm`).
    results_dir : pathlib.Path
        Where jobs asked to keep their result write their ``.h5`` file.
    """

    def __init__(self, workers: int = 1, warm: tuple[str, ...] = ("polyomino",),
                 results_dir: str | Path = "results"):
        if workers < 1:
            raise ValueError("at least one worker")
        self.warm = tuple(warm)
        self.results_dir = Path(results_dir)
        self.closing = False
        self._cond = threading.Condition()
        self._jobs: dict[str, Job] = {}
        self._queue: deque[str] = deque()
        self._workers = [_Worker(self, i) for i in range(workers)]
        self._started = False

    def start(self) -> "JobManager":
        """Start the worker processes (idempotent); they warm up in the background."""
        with self._cond:
            if self._started:
                return self
            self._started = True
        for w in self._workers:
            w.thread.start()
        return self

    def close(self) -> None:
        """Cancel what runs, stop the workers and wait for them."""
        with self._cond:
            self.closing = True
            for jid in list(self._queue):
                self._finish_locked(self._jobs[jid], "cancelled", None)
            self._queue.clear()
            self._cond.notify_all()
        for w in self._workers:
            if w.thread.is_alive():
                w.thread.join(limits.CANCEL_GRACE_SECONDS + 5.0)

    # API side -----------------------------------------------------------------------------------------------------
    def submit(self, kind: str, params: dict, client: str) -> dict:
        """Queue a job for ``client``; refuses a second active job of the same client, or a full queue."""
        seconds = limits.job_seconds()
        if kind not in seconds:
            raise ValueError(f"unknown job kind {kind!r}")
        with self._cond:
            if self.closing:
                raise JobRefused(503, "the server is shutting down")
            mine = [j for j in self._jobs.values() if j.client == client and j.status in ACTIVE]
            if mine:
                j = mine[0]
                raise JobRefused(429, f"one job at a time: {j.kind} job {j.id} is still {j.status}; "
                                      "wait for it or cancel it")
            if len(self._queue) >= limits.MAX_QUEUED_JOBS:
                raise JobRefused(503, f"the job queue is full ({len(self._queue)} jobs waiting); try again later")
            job = Job(uuid.uuid4().hex, kind, client, params, seconds[kind])
            if not any(w.state in ("idle", "busy") for w in self._workers):
                job.phase = "waiting for a worker (compiling the kernels on first start)"
            self._jobs[job.id] = job
            self._queue.append(job.id)
            self._prune_locked()
            self._cond.notify_all()
            return job.public()

    def get(self, job_id: str, with_result: bool = True) -> dict | None:
        """The job's public record, or None."""
        with self._cond:
            job = self._jobs.get(job_id)
            return None if job is None else job.public(with_result)

    def version(self, job_id: str) -> int | None:
        with self._cond:
            job = self._jobs.get(job_id)
            return None if job is None else job.version

    def cancel(self, job_id: str) -> dict | None:
        """Ask a job to stop: a queued job is dropped at once, a running one stops within the grace period."""
        with self._cond:
            job = self._jobs.get(job_id)
            if job is None:
                return None
            if job.status == "queued":
                self._queue.remove(job.id)
                self._finish_locked(job, "cancelled", None)
            elif job.status == "running":
                job.cancel_requested = True
                job.phase = "cancelling"
                job.version += 1
            return job.public(False)

    def jobs_of(self, client: str) -> list[dict]:
        with self._cond:
            return [j.public(False) for j in self._jobs.values() if j.client == client]

    def workers(self) -> list[dict]:
        with self._cond:
            return [w.info() for w in self._workers]

    # driver side --------------------------------------------------------------------------------------------------
    def _next_job(self, worker: _Worker) -> Job | None:
        with self._cond:
            while not self.closing and not self._queue:
                self._cond.wait(1.0)
                if worker.proc is not None and not worker.proc.is_alive():
                    return None
            if self.closing:
                return None
            job = self._jobs[self._queue.popleft()]
            job.status, job.phase, job.started, job.worker = "running", "starting", time.time(), worker.index
            job.version += 1
            return job

    def _update(self, job: Job, phase: str | None = None, progress: dict | None = None) -> None:
        with self._cond:
            if phase is not None:
                job.phase = phase if not job.cancel_requested else "cancelling"
            if progress is not None:
                job.progress = progress
            job.version += 1

    def _finish(self, job: Job, status: str, payload: Any) -> None:
        with self._cond:
            self._finish_locked(job, status, payload)

    def _finish_locked(self, job: Job, status: str, payload: Any) -> None:
        if job.status in TERMINAL:
            return
        job.status = status
        job.phase = status
        job.finished = time.time()
        if status == "done":
            job.result = payload
        elif status == "failed":
            job.error = payload
        elif status == "cancelled":
            job.error = "cancelled"
        job.version += 1
        self._cond.notify_all()

    def _prune_locked(self) -> None:
        done = [j for j in self._jobs.values() if j.status in TERMINAL]
        for j in sorted(done, key=lambda j: j.finished or 0)[:max(0, len(done) - limits.KEPT_JOBS)]:
            del self._jobs[j.id]


def run_task(kind: str, params: dict, ctx: Context) -> Any:
    """Run job ``kind`` (``"<family>.<verb>"``, a family's ``WebTask``) in this worker process."""
    import importlib

    from puzzlebatch import registry

    family, _, verb = kind.partition(".")
    task = next(t for t in registry.get(family).web_tasks if t.verb == verb)
    module, _, attr = task.run.partition(":")
    return getattr(importlib.import_module(module), attr)(params, ctx)
