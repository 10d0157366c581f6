"""One owner for every run: the results file and the run in it, the pool of workers, progress, checkpoints,
Ctrl-C, and the finished run's document.

A family says *what* to compute; a :class:`Session` says *how*.  Every verb that computes (a count, a solve, a
breadth-first search, a genetic algorithm, a game) opens one::

    with Session(RunOptions(out=path), "snake", "count", params, backend, same_problem=...) as s:
        result, rest, totals = snake.count(..., frontier=s.frontier, totals=s.totals, on_batch=s.on_batch,
                                           pool=s.pool)
        doc = s.finish(result.to_json(), complete=not len(rest), rest=rest, totals=totals)

- **Where results go.** ``options.out``, or with ``keep`` (counts, searches, games: whatever is costly to redo)
  the family's default file ``results/<family>.h5``, one file a family with each run a group in it; a default
  file another process is writing is never waited for: the next free ``results/<family>-2.h5``, ... is used and
  named.  Without ``out`` and without ``keep`` (a solve) nothing is written: the same code runs with no store.
- **Resume.** ``options.resume`` finds the unfinished run of the same problem (``same_problem(stored_params)``)
  and restores its checkpoint: the frontier and totals of a count (:attr:`frontier`, :attr:`totals`), or the
  arrays and values a verb saved with :meth:`checkpoint` (:attr:`restored`), and the seconds spent.
- **Progress and checkpoints.** :meth:`on_batch` is the batch DFS's hook (a progress bar, the running count,
  a checkpoint every ``checkpoint_every`` seconds); other verbs call :meth:`progress` and :meth:`checkpoint`.
- **Ctrl-C** (the only handler outside the application): the work left after the last finished step is
  checkpointed, the run marked interrupted, the file and the pool closed, and
  :class:`~puzzlebatch.errors.Interrupted` raised (a ``KeyboardInterrupt`` naming the file and run), which the
  command line turns into exit status 130 and the command that resumes.  Any other error closes the run as
  ``failed`` and propagates.
- **Isolation.** A session owns everything its run fills (the store, the pool, the progress bar, the latest
  checkpoint); nothing of it outlives :meth:`close`, so runs of different families in one process share nothing
  but what is immutable and keyed by its content (compiled units, :mod:`puzzlebatch.jit.unit`).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from puzzlebatch.errors import Interrupted, PuzzleInputError
from puzzlebatch.jit.clock import work_clock


@dataclass(frozen=True)
class RunOptions:
    """How a run is stored and where it runs: plain values (the command line builds them from its flags,
    :func:`puzzlebatch.cli.options.run_options`; the Python API from its keyword arguments).

    Parameters
    ----------
    out
        The results file (None: the family's default file when the verb keeps its results, else none).
    resume
        Continue the unfinished run of the same problem in ``out``.
    checkpoint_every
        Seconds between checkpoints.
    scheduler
        A Dask cluster (``local:N``, an address or a scheduler file; see
        :func:`~puzzlebatch.runners.engine.distributed.open_pool`); None runs in this process.
    backend_request
        What each cluster worker selects (``auto``, ``cpu``, ``cuda``).
    item_seconds
        A work item's time on a cluster worker before the rest is re-split.
    max_batches
        Stop after this many launches (the run stays resumable); None: run to the end.
    progress
        Show a progress bar on stderr.
    keep
        Whether a run without ``out`` goes to the family's default file: None lets the verb decide (the command
        line keeps counts, searches and games); False never writes a file without ``out`` (the Python API's
        default).
    """

    out: Path | str | None = None
    resume: bool = False
    checkpoint_every: float = 30.0
    scheduler: str | None = None
    backend_request: str = "auto"
    item_seconds: float = 20.0
    max_batches: int | None = None
    progress: bool = True
    keep: bool | None = None


#: the older name of :class:`RunOptions`
CountOptions = RunOptions

DEFAULT_FOLDER = Path("results")


def default_file(family: str, folder: Path = DEFAULT_FOLDER) -> Path:
    """The family's default results file, ``results/<family>.h5`` (the folder made here if needed)."""
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise PuzzleInputError(f"cannot create the default results folder {folder}/ "
                               f"({exc.strerror or exc}); give --out FILE.h5") from None
    return folder / f"{family}.h5"


def _open_store(path: Path, default: bool):
    """The store at ``path``; a default file that another process is writing moves on to ``<stem>-2.h5``, ..."""
    from puzzlebatch.results.store import ResultsStore, StoreBusyError

    if not default:
        return path, ResultsStore(path, "a")
    for k in range(1, 100):
        candidate = path if k == 1 else path.with_name(f"{path.stem}-{k}{path.suffix}")
        try:
            store = ResultsStore(candidate, "a")
        except StoreBusyError:
            continue
        if k > 1:
            print(f"puzzlebatch: {path} is being written by another process; this run goes to {candidate}",
                  file=sys.stderr)
        return candidate, store
    raise PuzzleInputError(f"{path}: it and 98 more default files are being written by other processes; "
                           "give --out FILE.h5")


class Session:
    """One run of one verb of one family.

    Parameters
    ----------
    options
        Where it is stored, whether it resumes, checkpoints, the cluster (:class:`RunOptions`).
    family, verb
        The run's family and algorithm attributes.
    params
        The run's parameters (stored with it, and what ``same_problem`` compares on resume).
    backend
        The backend that runs it (recorded in the run), or None for a verb that runs no kernels.
    keep
        Store the run in the family's default file when ``options.out`` is not given.
    same_problem
        ``f(stored_params) -> bool``: whether an unfinished run is this problem (``--resume``); default: the same
        ``params``.
    label
        Progress-bar label; ``describe`` names the problem in error messages.
    series
        Name of the running-count series stored after each batch (None: none).
    instances
        The input arrays stored with a new run (in the same transaction as the run).
    pool
        Open a pool of workers (this process, or the cluster of ``options.scheduler``).
    seed
        The run's random seed, if it has one.
    sort_rows
        Store the item rows of a finished run in lexicographic order (:meth:`Run.finish
        <puzzlebatch.results.run.Run.finish>`): the rows a count finds (``--all``) come in an order that depends
        on how the work was cut (launch sizes, workers); sorted, every run of the problem stores the same file
        rows, resumed or not.  An unfinished run keeps them in the order found.
    """

    def __init__(self, options: RunOptions, family: str, verb: str, params: dict, backend=None, *,
                 keep: bool = True, same_problem: Callable[[dict], bool] | None = None, label: str | None = None,
                 describe: str | None = None, series: str | None = None, instances: dict | None = None,
                 pool: bool = True, seed: int | None = None, sort_rows: bool = False):
        from puzzlebatch.runners.engine.distributed import open_pool

        self.options = options
        self.family, self.verb, self.params = family, verb, params
        self.backend = backend
        self.series = series
        self.sort_rows = sort_rows
        self.label = label or f"{family} {verb}"
        self.describe = describe or self.label
        self.store = self.run = None
        self.out: Path | None = None
        self.frontier = self.totals = None
        self.restored: tuple[dict, dict] | None = None  # (arrays, values) a verb's own checkpoint held
        self.elapsed = 0.0
        self._bar = None
        self._latest = None  # (frontier, meta, series points) after the last batch: what Ctrl-C saves
        self._done0: float | None = None
        self.eta: float | None = None  # seconds left, estimated after each batch of a count (None: unknown)
        self._closed = False
        keep = keep if options.keep is None else options.keep
        if options.out is not None or keep:
            default = options.out is None
            path = Path(options.out) if options.out is not None else default_file(family)
            if options.resume and not path.exists():
                raise PuzzleInputError(f"--resume: {path} does not exist; give the --out file of the interrupted run")
            self.out, self.store = _open_store(path, default and not options.resume)
        elif options.resume:
            raise PuzzleInputError("--resume: give the --out file of the interrupted run")
        try:
            self.pool = open_pool(options.scheduler if pool else None, options.backend_request,
                                  options.item_seconds)
        except BaseException:
            self._close_store()
            raise
        try:
            if self.store is not None:
                self._open_run(same_problem or (lambda p: p == params), instances, seed)
        except BaseException:
            self._close_store()
            self.pool.close()
            raise
        self._t0 = work_clock()
        self._last = time.perf_counter()

    # -- opening ------------------------------------------------------------------------------------------------
    def _open_run(self, same_problem, instances, seed) -> None:
        """Find the run to resume (and restore its checkpoint), or create the run."""
        backend = self.backend
        if not self.options.resume:
            self.run = self.store.create_run(self.family, self.verb, backend=getattr(backend, "name", None),
                                             device=getattr(backend, "device", None), seed=seed,
                                             params=self.params, instances=instances)
            return
        damaged = []  # a damaged run is not resumed, nor does it stop the search
        self.run = self.store.latest_run(self.family, self.verb, unfinished=True,
                                         where=lambda a: same_problem(a["params"]), on_damaged=damaged.append)
        damaged = damaged[0] if damaged else None
        if self.run is None:
            from puzzlebatch.errors import NothingToDo

            done = self.store.latest_run(self.family, self.verb, status="done",
                                         where=lambda a: same_problem(a["params"]), on_damaged=lambda _: None)
            if done is not None:
                raise NothingToDo(f"nothing to do: --resume: {self.out} has no unfinished {self.verb} of "
                                  f"{self.describe}; run {done.id} finished it (see it with: puzzlebatch show "
                                  f"{self.out} --run {done.id})", path=str(self.out), run_id=done.id)
            raise PuzzleInputError(f"--resume: {self.out} has no unfinished {self.verb} of {self.describe}"
                                   + (f" ({damaged})" if damaged else ""))
        ck = self.run.load_checkpoint()
        rows: int | None = 0  # no checkpoint: start again from nothing
        if ck is not None:
            arrays, meta = ck
            try:
                self.elapsed = float(meta.get("seconds", 0.0))
                # the rows the checkpoint covers (an earlier version's checkpoint does not say: the store knows)
                rows = None if meta.get("rows") is None else int(meta["rows"])
                if "states" in arrays:  # a batch DFS's frontier
                    self._restore_frontier(arrays, meta)
                else:
                    self.restored = (arrays, meta)
                if rows is not None and rows < 0:
                    raise ValueError("a negative row count")
            except (KeyError, TypeError, ValueError) as exc:
                raise PuzzleInputError(f"--resume: {self.out}: run {self.run.id}: the checkpoint is damaged "
                                       f"({exc})") from None
        # Rows (and series points) committed after the checkpoint belong to work the checkpoint still holds:
        # drop them, the resumed run finds them again (no duplicated, no missing row).
        self.run.rewind(None if rows is None else min(rows, self.run.n_committed))

    def _restore_frontier(self, arrays: dict, meta: dict) -> None:
        from puzzlebatch.runners.engine.search import Frontier, SearchTotals

        self.frontier = Frontier(arrays["states"], arrays["depths"], arrays["los"], arrays["weights"])
        self.totals = SearchTotals(count=int(meta["count"]), nodes=int(meta["nodes"]), batches=int(meta["batches"]),
                                   items=int(meta["items"]), done=min(1.0, max(0.0, float(meta.get("done", 0.0)))))
        n = len(self.frontier)
        if self.frontier.states.ndim != 2 or any(a.shape != (n,) for a in (
                self.frontier.depths, self.frontier.los, self.frontier.weights)):
            raise ValueError("arrays of different lengths")

    # -- while it runs ------------------------------------------------------------------------------------------
    @property
    def resumed(self) -> bool:
        return bool(self.options.resume)

    @property
    def stored(self) -> bool:
        return self.run is not None

    def seconds(self) -> float:
        """The run's work so far, sessions before a resume included."""
        return self.elapsed + work_clock() - self._t0

    def progress(self, label: str | None = None, *, total: int | None = None, unit: str = "step"):
        """This run's progress bar (on stderr, closed with the session; a silent one with ``progress=False``)."""
        from puzzlebatch.runners.engine.progress import bar

        if self._bar is None:
            self._bar = bar(label or self.label, unit=unit, total=total,
                            enabled=None if self.options.progress else False)
        return self._bar

    def _meta(self, tot) -> dict:
        # The rows committed so far are part of the checkpoint: everything the frontier has not covered yet.
        return tot.meta() | {"seconds": self.seconds(), "rows": self.run.n_committed if self.run else 0}

    def on_batch(self, front, tot) -> None:
        """The batch DFS's per-batch hook: progress, the running count, periodic checkpoints."""
        from puzzlebatch.runners.engine.progress import eta_seconds, eta_text

        b = self.progress(unit="batch")
        b.update(1)
        seconds = work_clock() - self._t0
        rate = tot.nodes / max(1e-9, seconds)
        if self._done0 is None:  # the share done when this process started (a resumed run's)
            self._done0 = self.totals.done if self.totals is not None else 0.0
        # a cluster's work items come back split by the workers: no share follows them (unknown there)
        known = not getattr(self.pool, "distributed", False)
        self.eta = eta_seconds(tot.done, self._done0, seconds) if known else None
        b.set_postfix(count=tot.count, items_left=len(front), nodes=tot.nodes, nodes_per_s=f"{rate:.3g}",
                      done=f"{100 * tot.done:.1f}%" if known else "?", eta=eta_text(self.eta))
        if self.run is None:
            return
        # A snapshot first (the totals object keeps changing during the next launch, before its frontier is
        # known), with the series points it stands for: a Ctrl-C seen at the end of the next store commit then
        # checkpoints exactly this, and resuming stores no point twice.
        points = {self.series: self.run.series_length(self.series) + 1} if self.series else {}
        self._latest = (front.arrays(), self._meta(tot), points)
        if self.series:
            self.run.append_series(self.series, tot.batches, tot.count)
        now = time.perf_counter()
        if now - self._last >= self.options.checkpoint_every:
            self.run.save_checkpoint(*self._latest[:2], series=points)
            self._last = now

    def checkpoint(self, arrays: dict, values: dict, *, force: bool = False) -> None:
        """A verb's own checkpoint (a population, games in progress): kept as what Ctrl-C saves, and written
        every ``checkpoint_every`` seconds (at once with ``force``).  :attr:`restored` gives it back on resume."""
        if self.run is None:
            return
        self._latest = (arrays, values | {"seconds": self.seconds(), "rows": self.run.n_committed}, {})
        now = time.perf_counter()
        if force or now - self._last >= self.options.checkpoint_every:
            self.run.save_checkpoint(*self._latest[:2])
            self._last = now

    def append_items(self, **columns) -> None:
        """Rows of the run's items (one array a column, the same length); nothing without a store."""
        if self.run is not None:
            self.run.append_items(**columns)

    def append_series(self, name: str, step, value) -> None:
        if self.run is not None:
            self.run.append_series(name, step, value)

    # -- closing ------------------------------------------------------------------------------------------------
    def finish(self, result: dict, complete: bool = True, rest=None, totals=None,
               seconds: float | None = None) -> dict:
        """Close the run: done with ``result``, or (stopped early: ``--max-batches``) interrupted with the work
        left (``rest`` and ``totals`` of a count; a verb's own :meth:`checkpoint` otherwise).

        Returns the keys the command's document adds: ``out`` and ``run_id`` (None when nothing is stored) and
        ``work`` (what each worker did; stored with the result too)."""
        seconds = self.seconds() if seconds is None else seconds
        self._close_bar()
        work = self.pool.work.to_json()
        self.pool.close()
        if self.pool.distributed:
            print("\n".join(self.pool.work.lines()), file=sys.stderr)
        doc = {"out": None if self.out is None else str(self.out), "run_id": None, "work": work}
        if self.run is not None:
            doc["run_id"] = self.run.id
            if complete:
                self.run.finish("done", seconds=seconds,  # the result and the status in one transaction
                                result={k: v for k, v in result.items() if v is not None} | {"work": work},
                                sort_rows=self.sort_rows)
                if self.sort_rows and self.run.attrs.get("row_order") == "found":
                    print(f"puzzlebatch: {self.out}: run {self.run.id}: {self.run.n_committed:,} rows are too many "
                          "to sort in memory; they stay in the order found", file=sys.stderr)
            else:
                if rest is not None:
                    self.run.save_checkpoint(rest.arrays(), totals.meta() | {"seconds": seconds,
                                                                             "rows": self.run.n_committed})
                elif self._latest is not None:
                    self.run.save_checkpoint(*self._latest[:2])
                self.run.finish("interrupted", seconds=seconds)
        self._closed = True
        self._close_store()
        return doc

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def _close_store(self) -> None:
        if self.store is not None:
            self.store.close()

    def close(self, status: str = "failed") -> None:
        """Close without a result (an error): the run is marked ``status``; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._close_bar()
        try:
            if self.run is not None:
                self.run.finish(status, seconds=self.seconds())
        finally:
            self._close_store()
            self.pool.close()

    def interrupted(self) -> Interrupted:
        """Ctrl-C: checkpoint the work left after the last finished step, mark the run interrupted, close.
        (The step that was running is done again on resume.)"""
        self._close_bar()
        if self.run is not None and self._latest is not None:
            arrays, meta, points = self._latest
            self.run.save_checkpoint(arrays, meta | {"seconds": self.seconds()}, series=points)
        self.close("interrupted")
        return Interrupted(self.out, self.run.id if self.run is not None else None)

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None or self._closed:
            self.close()
            return False
        if issubclass(exc_type, KeyboardInterrupt) and not isinstance(exc, Interrupted):
            raise self.interrupted() from None
        self.close("interrupted" if issubclass(exc_type, KeyboardInterrupt) else "failed")
        return False

