"""Where a batch job's work items run: in this process (the default), or on a Dask cluster.

Long because it holds both sides of every distributed job (the ``--scheduler`` value, the pools, the worker
tasks and the client loops that resubmit and re-split them): kept together since the tasks (:func:`count_chunk`,
:func:`first_chunk`) and their clients (:func:`count_on_pool`, :func:`first_on_pool`) share the payload
(:class:`DFSPayload`) and the shape of each task's result.

``--scheduler`` on a batch command chooses (:func:`parse_scheduler`):

* absent: the embedded default; the work runs in this process on every local core (numba ``prange`` or the
  GPU).  Dask is not imported.
* ``local:N``: a Dask ``LocalCluster`` of N worker processes on this machine (each worker's numba threads get
  an equal share of the cores).
* ``tcp://host:8786`` (any Dask address) or ``FILE.json`` (a ``dask scheduler --scheduler-file``): an existing
  cluster; start one with ``dask scheduler`` and ``dask worker`` (or ``dask cuda worker`` for one GPU per
  worker, see README).

Work items are the independent subproblems the batch DFS already cuts a job into (frontier items).  On a cluster
they travel in chunks; a worker counts its chunk for at most ``item_seconds`` and hands back what it did not
finish, which is re-split across the cluster.  Counts are exact sums over items, so the answer does not depend
on the cluster, the number of workers, or a worker dying mid-item: Dask reschedules a lost task, and the client
resubmits one that keeps failing.  What every worker did is summed up in a :class:`WorkSummary`.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import logging
import math
import os
import signal
import sys
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np

from puzzlebatch import limits as L
from puzzlebatch.limits import DEFAULT_ITEM_SECONDS
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.runners.engine.search import BatchDFS, Frontier, SearchProblem, SearchSettings, SearchTotals

ITEMS_PER_WORKER = 1024  # frontier items to expand the root into, per worker
CHUNKS_PER_WORKER = 8  # chunks in the first wave, per worker: small enough to balance, big enough to amortise
MAX_RESUBMITS = 3  # a chunk whose task failed this many times is an error, not a retry


# ----------------------------------------------------------------------------- the --scheduler option

@dataclass(frozen=True)
class SchedulerSpec:
    """A parsed ``--scheduler`` value: ``embedded``, ``local`` (``workers`` processes) or ``address``."""

    kind: str
    workers: int = 0
    address: str = ""

    @property
    def distributed(self) -> bool:
        return self.kind != "embedded"

    def __str__(self) -> str:
        return {"embedded": "embedded", "local": f"local:{self.workers}"}.get(self.kind, self.address)


def parse_scheduler(text: str | None) -> SchedulerSpec:
    """Parse ``--scheduler``: None, ``local:N``, a Dask address (``tcp://host:port``, ``tls://...``) or a
    scheduler file (``.json`` written by ``dask scheduler --scheduler-file``).  Bad values raise a one-line
    :class:`PuzzleInputError`."""
    if text is None or text == "embedded":
        return SchedulerSpec("embedded")
    if not text.strip():
        raise PuzzleInputError(f"--scheduler {text!r}: empty; give local:N, a Dask address such as "
                               "tcp://host:8786, or a scheduler file (.json)")
    if text.startswith("local:") or text == "local":
        n = text.partition(":")[2] or str(os.cpu_count() or 1)
        if not n.isdigit() or int(n) < 1:
            raise PuzzleInputError(f"--scheduler {text}: expected local:N with N a positive number of workers")
        L.WORKERS.check(int(n), f"--scheduler {text}")
        return SchedulerSpec("local", workers=int(n))
    if text.endswith(".json"):
        path = Path(text)
        if not path.exists():
            raise PuzzleInputError(f"--scheduler {text}: no such scheduler file")
        from puzzlebatch.outputs import read_text

        text_of_file = read_text(path, "--scheduler")
        try:
            address = json.loads(text_of_file)["address"]
        except (ValueError, KeyError, TypeError, RecursionError):
            raise PuzzleInputError(f"--scheduler {text}: not a Dask scheduler file (no \"address\")") from None
        return _address(str(address), text)
    if "://" in text or ":" in text:
        return _address(text, text)
    raise PuzzleInputError(f"--scheduler {text}: expected local:N, a Dask address such as tcp://host:8786, or a "
                           "scheduler file (.json)")


DASK_SCHEMES = ("tcp", "tls", "inproc", "ucx", "ws", "wss")  # the address schemes Dask's comm layer knows


def _address(address: str, given: str) -> SchedulerSpec:
    """A Dask address ``[scheme://]host:port``, its port checked (Dask's own error is a traceback)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(address if "://" in address else f"tcp://{address}")
        port = parts.port
    except ValueError:
        port = None
    if port is None or not parts.hostname:
        raise PuzzleInputError(f"--scheduler {given}: expected a Dask address such as tcp://host:8786 (host and "
                               "port number)")
    if parts.scheme not in DASK_SCHEMES:
        raise PuzzleInputError(f"--scheduler {given}: unknown address scheme {parts.scheme!r} (Dask knows: "
                               f"{', '.join(DASK_SCHEMES)})")
    return SchedulerSpec("address", address=address)


# ----------------------------------------------------------------------------- what workers did

@dataclass
class WorkerStats:
    items: int = 0
    nodes: int = 0
    seconds: float = 0.0  # searching
    backend: str = ""
    compile_seconds: float = 0.0  # building the search on the worker (numba compilation)

    def to_json(self) -> dict:
        rate = self.nodes / self.seconds if self.seconds > 0 else 0.0
        return {"items": self.items, "nodes": self.nodes, "seconds": round(self.seconds, 3),
                "nodes_per_second": round(rate), "backend": self.backend,
                "compile_seconds": round(self.compile_seconds, 3)}


@dataclass
class WorkSummary:
    """The end-of-run summary (printed, and stored in the run's result): time, nodes, per worker."""

    scheduler: str = "embedded"
    dashboard: str | None = None
    workers: dict[str, WorkerStats] = field(default_factory=dict)
    resubmitted: int = 0

    def add(self, worker: str, items: int, nodes: int, seconds: float, backend: str,
            compile_seconds: float = 0.0) -> None:
        w = self.workers.setdefault(worker, WorkerStats())
        w.items += items
        w.nodes += nodes
        w.seconds += seconds
        w.backend = backend
        w.compile_seconds += compile_seconds

    def to_json(self) -> dict:
        doc = {"scheduler": self.scheduler, "workers": {k: v.to_json() for k, v in sorted(self.workers.items())}}
        if self.dashboard:
            doc["dashboard"] = self.dashboard
        if self.resubmitted:
            doc["resubmitted"] = self.resubmitted
        return doc

    def lines(self) -> list[str]:
        out = [f"scheduler {self.scheduler}" + (f" (dashboard {self.dashboard})" if self.dashboard else "")]
        for name, w in sorted(self.workers.items()):
            j = w.to_json()
            out.append(f"  {name}: {w.items} items, {w.nodes} nodes in {w.seconds:.2f} s "
                       f"({j['nodes_per_second']:,} nodes/s) on {w.backend}, +{w.compile_seconds:.1f} s compiling")
        if self.resubmitted:
            out.append(f"  {self.resubmitted} work item(s) resubmitted after a failure")
        return out


# ----------------------------------------------------------------------------- pools

class Pool:
    """Where work items run.  The embedded pool is this process.

    ``work`` collects what each worker did (a :class:`WorkSummary`); ``item_seconds`` bounds a work item's time on
    a cluster worker; ``backend_request`` is what each worker selects (``auto|cpu|cuda``).
    """

    spec = SchedulerSpec("embedded")
    n_workers = 1

    def __init__(self, backend_request: str = "auto", item_seconds: float = DEFAULT_ITEM_SECONDS) -> None:
        self.backend_request = backend_request
        self.item_seconds = item_seconds
        self.work = self.summary()

    @property
    def distributed(self) -> bool:
        return self.spec.distributed

    def close(self) -> None:
        pass

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def summary(self) -> WorkSummary:
        return WorkSummary(scheduler=str(self.spec))


@contextlib.contextmanager
def _children_ignore_ctrl_c():
    """Start worker processes with SIGINT ignored (they inherit it): Ctrl-C at the terminal reaches the whole
    process group, and only this process answers it (it checkpoints, closes the cluster and says how to resume)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


class DaskPool(Pool):
    """A Dask client on a ``LocalCluster`` it starts, or on a running cluster.

    Parameters
    ----------
    spec
        From :func:`parse_scheduler` (``local`` or ``address``).
    backend_request
        ``auto|cpu|cuda``: what each worker selects for itself (a GPU worker runs the CUDA kernels).
    say
        Where to print the dashboard address (default: stderr).
    """

    def __init__(self, spec: SchedulerSpec, backend_request: str = "auto",
                 item_seconds: float = DEFAULT_ITEM_SECONDS, say: Callable[[str], None] | None = None):
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as exc:
            raise PuzzleInputError(f"--scheduler {spec}: Dask is not available ({exc}); pip install "
                                   "'puzzlebatch[dist]'") from None
        self.spec = spec
        self.cluster = None
        say = say or (lambda s: print(f"puzzlebatch: {s}", file=sys.stderr))
        if spec.kind == "local":
            threads = max(1, (os.cpu_count() or 1) // spec.workers)
            with _children_ignore_ctrl_c():  # Ctrl-C is this process's to handle: one line, not a traceback a worker
                self.cluster = LocalCluster(n_workers=spec.workers, threads_per_worker=1, processes=True,
                                            dashboard_address=":0", env={"NUMBA_NUM_THREADS": str(threads)},
                                            silence_logs=logging.ERROR)  # no warnings as Ctrl-C stops workers
            warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(spec.address, timeout="20s")
            except OSError as exc:
                raise PuzzleInputError(f"--scheduler {spec.address}: cannot reach the Dask scheduler ({exc})") \
                    from None
        self.n_workers = max(1, len(self.client.scheduler_info().get("workers", {})))
        self.dashboard = self.client.dashboard_link
        super().__init__(backend_request, item_seconds)
        say(f"Dask scheduler {self.client.scheduler.address} with {self.n_workers} worker(s); dashboard "
            f"{self.dashboard}")

    def summary(self) -> WorkSummary:
        return WorkSummary(scheduler=str(self.spec), dashboard=self.dashboard)

    # The batch DFS hands its items to a distributed pool through these two (it never imports this module).
    items_per_worker = ITEMS_PER_WORKER

    def count(self, dfs, frontier, totals, on_batch=None, max_batches: int | None = None, sink=None):
        """``BatchDFS.count`` on the cluster: see :func:`count_on_pool`."""
        return count_on_pool(dfs, self, frontier, totals, on_batch, max_batches, item_seconds=self.item_seconds,
                             summary=self.work, sink=sink)

    def first(self, dfs, frontier, totals):
        """``BatchDFS.first`` on the cluster: see :func:`first_on_pool`."""
        return first_on_pool(dfs, self, frontier, totals, item_seconds=self.item_seconds, summary=self.work)

    def workers(self) -> list[str]:
        return sorted(self.client.scheduler_info().get("workers", {}))

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def open_pool(scheduler: str | None, backend_request: str = "auto",
              item_seconds: float = DEFAULT_ITEM_SECONDS) -> Pool:
    """The pool for a ``--scheduler`` value (None: embedded)."""
    if not item_seconds > 0:
        raise PuzzleInputError(f"--item-seconds {item_seconds}: must be positive")
    spec = parse_scheduler(scheduler)
    if not spec.distributed:
        return Pool(backend_request, item_seconds)
    return DaskPool(spec, backend_request, item_seconds)


# ----------------------------------------------------------------------------- the worker side of a count

@dataclass(frozen=True)
class DFSPayload:
    """Everything a worker needs to rebuild a family's batch DFS: picklable, hashed once."""

    rules: str  # the rules module, by import name
    tables: np.ndarray
    root: np.ndarray
    goal: int
    backend: str  # auto|cpu|cuda, selected by each worker
    settings: tuple  # SearchSettings fields: budget, batch_size, frontier_target, first_batch_size, cuda_lanes
    key: str  # identifies the problem in the per-process cache

    @classmethod
    def of(cls, dfs, backend_request: str) -> "DFSPayload":
        p, s = dfs.problem, dfs.settings
        h = hashlib.sha1()
        for part in (p.rules.__name__.encode(), p.tables.tobytes(), p.root.tobytes(), str(p.goal).encode(),
                     backend_request.encode(), repr(s).encode()):
            h.update(part)
        return cls(p.rules.__name__, p.tables, p.root, int(p.goal), backend_request,
                   (s.budget, s.batch_size, s.frontier_target, s.first_batch_size, s.cuda_lanes), h.hexdigest())


_WORKER_DFS: dict = {}


def _worker_dfs(payload: DFSPayload):
    """This process's batch DFS for ``payload`` (built once per worker process: the first call runs one tiny launch
    from the root, whose result is thrown away, so that compiling or loading the compiled code from the shared disk
    cache happens before the task's time starts)."""
    if payload.key in _WORKER_DFS:
        return _WORKER_DFS[payload.key]
    from puzzlebatch.runners.engine.backend import select_backend

    problem = SearchProblem(importlib.import_module(payload.rules), payload.tables, payload.root, payload.goal)
    backend = select_backend(payload.backend)
    budget, batch, frontier, first, lanes = payload.settings
    dfs = BatchDFS(problem, backend, SearchSettings(budget, batch, frontier, first, cuda_lanes=lanes))
    tiny = SearchSettings(budget=1, batch_size=1, frontier_target=1, first_batch_size=1)
    BatchDFS(problem, backend, tiny).count(Frontier.root(problem), max_batches=1)
    _WORKER_DFS.clear()  # one problem at a time per worker
    _WORKER_DFS[payload.key] = dfs
    return dfs


def worker_name() -> str:
    try:
        from distributed import get_worker

        w = get_worker()
        return str(w.name) if w.name is not None and not str(w.name).isdigit() else w.address
    except (ImportError, ValueError):
        return "local"


def count_chunk(payload: DFSPayload, states, depths, los, weights, seconds: float, solutions: bool = False) -> dict:
    """A worker's task: count below a chunk of frontier items for about ``seconds``; hand back the rest (and,
    with ``solutions``, every solution state found with its weight)."""

    from puzzlebatch.jit import Stopwatch

    watch = Stopwatch()
    dfs = _worker_dfs(payload)
    t0 = time.perf_counter()
    frontier = Frontier(states, depths, los, weights)
    totals = SearchTotals()
    found: list = []
    sink = (lambda s, w: found.append((s.copy(), w.copy()))) if solutions else None
    while len(frontier):
        totals, frontier = dfs.count(frontier, totals, max_batches=totals.batches + 1, sink=sink)
        if time.perf_counter() - t0 >= seconds:
            break
    width = states.shape[1]
    sol_states = np.concatenate([s for s, _ in found]) if found else np.zeros((0, width), np.int64)
    sol_weights = np.concatenate([w for _, w in found]) if found else np.zeros(0, np.int64)
    return {"count": totals.count, "nodes": totals.nodes, "items": totals.items, "rest": frontier.arrays(),
            "solution_states": sol_states, "solution_weights": sol_weights,
            "worker": worker_name(), "backend": dfs.backend.name, **watch.timings()}


# ----------------------------------------------------------------------------- the client side of a count

def chunks(frontier, n: int) -> list:
    """Cut ``frontier`` into at most ``n`` contiguous chunks of near-equal size."""
    k = len(frontier)
    if k == 0:
        return []
    size = math.ceil(k / max(1, min(n, k)))
    return [frontier.take(slice(i, i + size)) for i in range(0, k, size)]


def count_on_pool(dfs, pool: DaskPool, frontier, totals, on_batch=None, max_batches: int | None = None,
                  item_seconds: float = DEFAULT_ITEM_SECONDS, summary: WorkSummary | None = None,
                  on_result: Callable[[dict], None] | None = None, sink: Callable | None = None):
    """:meth:`BatchDFS.count` with the work items on a Dask cluster; same return value ``(totals, rest)``.

    ``on_batch(pending, totals)`` is called after each finished task with every item not counted yet (the
    queued and running chunks and the leftovers): a checkpoint of it resumes the count exactly.  ``max_batches``
    stops after that many tasks.  ``on_result(result)`` sees each task's result (tests use it).
    """
    from dask.distributed import as_completed


    totals = totals or SearchTotals()
    if frontier is None:
        frontier = dfs.initial_frontier(totals, sink=sink)
    payload = DFSPayload.of(dfs, pool.backend_request)
    summary = summary if summary is not None else pool.summary()
    client = pool.client
    pending: dict = {}  # future -> (chunk, failures)

    def submit(chunk, failures=0):
        fut = client.submit(count_chunk, payload, chunk.states, chunk.depths, chunk.los, chunk.weights,
                            item_seconds, sink is not None, pure=False)
        pending[fut] = (chunk, failures)
        return fut

    def left():
        parts = [c for c, _ in pending.values()]
        return Frontier.concat(parts) if parts else frontier.take(slice(0, 0))

    ac = as_completed([submit(c) for c in chunks(frontier, CHUNKS_PER_WORKER * pool.n_workers)])
    tasks = 0
    try:
        for fut in ac:
            chunk, failures = pending.pop(fut)
            if fut.status != "finished":
                if failures + 1 >= MAX_RESUBMITS:
                    raise RuntimeError(f"a work item failed {MAX_RESUBMITS} times: {fut.exception()!r}")
                summary.resubmitted += 1
                ac.add(submit(chunk, failures + 1))
                continue
            res = fut.result()
            if on_result is not None:
                on_result(res)
            if sink is not None and len(res["solution_weights"]):
                sink(res["solution_states"], res["solution_weights"])
            totals.count += int(res["count"])
            totals.nodes += int(res["nodes"])
            totals.items += int(res["items"])
            totals.batches += 1
            tasks += 1
            summary.add(res["worker"], int(res["items"]), int(res["nodes"]), float(res["seconds"]), res["backend"],
                        float(res["compile_seconds"]))
            rest = Frontier(**res["rest"])
            if len(rest):  # over its budget: re-split the rest across the cluster
                for c in chunks(rest, pool.n_workers):
                    ac.add(submit(c))
            if on_batch is not None:
                on_batch(left(), totals)
            if max_batches is not None and tasks >= max_batches:
                break
    finally:
        rest = left()
        for fut in list(pending):
            fut.cancel()
    return totals, rest


# ----------------------------------------------------------------------------- independent jobs

def map_jobs(pool: Pool, fn: Callable, jobs: Iterable, progress: Callable[[int], None] | None = None
             ) -> Iterator[tuple[int, object]]:
    """Run ``fn(job)`` for every job; yield ``(index, result)`` as they finish (in order when embedded).

    On a cluster each job is one task; a task lost with its worker is rescheduled by Dask, and a failing one is
    resubmitted up to :data:`MAX_RESUBMITS` times."""
    jobs = list(jobs)
    if not pool.distributed:
        for i, job in enumerate(jobs):
            yield i, fn(job)
        return
    from dask.distributed import as_completed

    index: dict = {}
    futs = []
    for i, job in enumerate(jobs):
        fut = pool.client.submit(fn, job, pure=False)
        index[fut] = (i, 0)
        futs.append(fut)
    ac = as_completed(futs)
    for fut in ac:
        i, failures = index.pop(fut)
        if fut.status != "finished":
            if failures + 1 >= MAX_RESUBMITS:
                raise RuntimeError(f"job {i} failed {MAX_RESUBMITS} times: {fut.exception()!r}")
            new = pool.client.submit(fn, jobs[i], pure=False)
            index[new] = (i, failures + 1)
            ac.add(new)
            continue
        yield i, fut.result()


def map_ordered(pool: Pool, fn: Callable, jobs: Iterable) -> Iterator[object]:
    """:func:`map_jobs`, its results yielded in job order (those that finish early wait in memory), so a
    client writing them to a store writes exactly what a single-process run writes."""
    waiting: dict[int, object] = {}
    nxt = 0
    for i, res in map_jobs(pool, fn, jobs):
        waiting[i] = res
        while nxt in waiting:
            yield waiting.pop(nxt)
            nxt += 1


def job_sizes(n: int, pool: Pool, requested: int | None) -> int:
    """How many instances one task takes: ``requested`` (``--batch``), else all of them in this process, or
    about four tasks per worker on a cluster."""
    if requested:
        return requested
    if not pool.distributed:
        return max(1, n)
    return max(1, math.ceil(n / (4 * pool.n_workers)))


# ----------------------------------------------------------------------------- first solutions

def first_chunk(payload: DFSPayload, states, depths, los, weights, seconds: float) -> dict:
    """A worker's task: the first solution (DFS order) below a chunk of items, searching for about ``seconds``;
    without one, the work left in order."""

    from puzzlebatch.jit import Stopwatch

    watch = Stopwatch()
    dfs = _worker_dfs(payload)
    t0 = time.perf_counter()
    frontier = Frontier(states, depths, los, weights)
    totals = SearchTotals()
    while len(frontier) and not totals.solutions:
        totals, frontier = dfs.first(frontier, totals, max_batches=1)
        if time.perf_counter() - t0 >= seconds:
            break
    found = totals.solutions[0] if totals.solutions else None
    return {"solution": found, "nodes": totals.nodes, "items": totals.items,
            "rest": None if found is not None else frontier.arrays(), "worker": worker_name(),
            "backend": dfs.backend.name, **watch.timings()}


def first_on_pool(dfs, pool: DaskPool, frontier, totals, item_seconds: float = DEFAULT_ITEM_SECONDS,
                  summary: WorkSummary | None = None):
    """:meth:`BatchDFS.first` with the work items on a Dask cluster, returning the same solution.

    The frontier is cut into chunks kept in DFS order; each chunk is searched by a task.  A chunk that finds a
    solution gives the first of its own items; one that runs out of time is replaced, in place, by the chunks of
    its rest.  The answer is the solution of the first chunk in order once every chunk before it is exhausted;
    the tasks after it are cancelled."""
    from dask.distributed import as_completed


    totals = totals or SearchTotals()
    if frontier is None:
        frontier = dfs.initial_frontier(totals, keep_solutions=1)
        if totals.solutions:  # met during expansion: first in DFS order
            totals.solutions = totals.solutions[:1]
            return totals, frontier
    payload = DFSPayload.of(dfs, pool.backend_request)
    summary = summary if summary is not None else pool.summary()
    segments: list[dict] = []  # in DFS order: {"chunk", "future", "state": pending|none|found, "solution"}

    def submit(chunk) -> dict:
        fut = pool.client.submit(first_chunk, payload, chunk.states, chunk.depths, chunk.los, chunk.weights,
                                 item_seconds, pure=False)
        return {"chunk": chunk, "future": fut, "state": "pending", "solution": None, "failures": 0}

    segments = [submit(c) for c in chunks(frontier, CHUNKS_PER_WORKER * pool.n_workers)]
    ac = as_completed([s["future"] for s in segments])
    answer = None
    try:
        for fut in ac:
            k = next(i for i, s in enumerate(segments) if s["future"] is fut)
            seg = segments[k]
            if fut.status != "finished":
                if seg["failures"] + 1 >= MAX_RESUBMITS:
                    raise RuntimeError(f"a work item failed {MAX_RESUBMITS} times: {fut.exception()!r}")
                new = submit(seg["chunk"]) | {"failures": seg["failures"] + 1}
                summary.resubmitted += 1
                segments[k] = new
                ac.add(new["future"])
                continue
            res = fut.result()
            totals.nodes += int(res["nodes"])
            totals.batches += 1
            summary.add(res["worker"], int(res["items"]), int(res["nodes"]), float(res["seconds"]),
                        res["backend"], float(res["compile_seconds"]))
            if res["solution"] is not None:
                seg.update(state="found", solution=res["solution"])
            elif len(res["rest"]["depths"]):
                subs = [submit(c) for c in chunks(Frontier(**res["rest"]), pool.n_workers)]
                segments[k:k + 1] = subs
                for s in subs:
                    ac.add(s["future"])
            else:
                seg["state"] = "none"
            head = next((s for s in segments if s["state"] != "none"), None)
            if head is None or head["state"] == "found":
                answer = head
                break
    finally:
        for s in segments:
            if s["state"] == "pending":
                s["future"].cancel()
    if answer is not None:
        totals.count = 1
        totals.solutions = [np.asarray(answer["solution"]).copy()]
    return totals, frontier.take(slice(0, 0))
