"""The store side of a resumable batch-DFS count, shared by every family's ``count`` command.

A :class:`CountSession` opens the results store and the run (or, with ``--resume``, finds the unfinished run of
the same problem and restores its checkpoint: the frontier, the running totals and the seconds spent), reports
progress and checkpoints every ``--checkpoint-every`` seconds from the search's ``on_batch`` hook, and closes the
run: done with its result, or interrupted with the work left so that ``--resume`` finishes it.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.errors import EXIT_INTERRUPTED


@dataclass(frozen=True)
class CountOptions:
    """How a count is stored and where it runs: plain values (the command line builds them from its flags:
    :func:`puzzlebatch.runners.options.count_options`)."""

    out: Path | None = None  # the results file (None: the verb's default)
    resume: bool = False  # continue the unfinished run of the same problem in ``out``
    checkpoint_every: float = 30.0  # seconds between checkpoints
    scheduler: str | None = None  # a Dask cluster (see :func:`~puzzlebatch.runners.engine.distributed.open_pool`)
    backend_request: str = "auto"  # what each cluster worker selects
    item_seconds: float = 20.0  # a work item's time on a cluster worker


class CountSession:
    """One resumable count in a results store.

    Parameters
    ----------
    options
        Where the run is stored, whether it resumes, how often it checkpoints, where it runs
        (:class:`CountOptions`).
    family, verb
        The run's family and algorithm attributes.
    params
        The run's parameters (stored with it).
    backend
        The backend that runs the search (recorded in the run).
    default_out
        The file to use when ``--out`` is not given.
    same_problem
        ``f(stored_params) -> bool``: whether an unfinished run is this problem (for ``--resume``).
    label
        Progress-bar label; ``describe`` names the problem in error messages.
    series
        Name of the running-count series stored after each batch (None: none).
    instances
        The input arrays stored with a new run (in the same transaction as the run).
    """

    def __init__(self, options: CountOptions, family: str, verb: str, params: dict, backend, default_out: Path,
                 same_problem: Callable[[dict], bool], label: str, describe: str, series: str | None = None,
                 instances: dict | None = None):
        from puzzlebatch.results.store import ResultsStore
        from puzzlebatch.runners.engine.distributed import open_pool

        self.options = options
        self.out = Path(options.out) if options.out else default_out
        if options.resume and not self.out.exists():
            raise PuzzleInputError(f"--resume: {self.out} does not exist; give the --out file of the interrupted run")
        self.store = ResultsStore(self.out, "a")
        try:
            self.pool = open_pool(options.scheduler, options.backend_request, options.item_seconds)
        except BaseException:
            self.store.close()
            raise
        try:
            self._open_run(options.resume, family, verb, params, backend, same_problem, describe, instances)
        except BaseException:
            self.store.close()
            self.pool.close()
            raise
        self.series = series
        self.label = label
        self._t0 = work_clock()
        self._last = time.perf_counter()
        self._bar = None
        self._latest = None  # (frontier, totals) after the last batch: what Ctrl-C saves

    def _open_run(self, resume: bool, family, verb, params, backend, same_problem, describe, instances) -> None:
        """Find the run to resume (and restore its checkpoint), or create the run."""
        from puzzlebatch.runners.engine.search import Frontier, SearchTotals

        self.run = None
        self.frontier = self.totals = None
        self.elapsed = 0.0
        if not resume:
            self.run = self.store.create_run(family, verb, backend=backend.name, device=backend.device, seed=None,
                                             params=params, instances=instances)
            return
        damaged = []  # a damaged run is not resumed, nor does it stop the search
        self.run = self.store.latest_run(family, verb, unfinished=True, where=lambda a: same_problem(a["params"]),
                                         on_damaged=damaged.append)
        damaged = damaged[0] if damaged else None
        if self.run is None:
            raise PuzzleInputError(f"--resume: {self.out} has no unfinished {verb} of {describe}"
                                   + (f" ({damaged})" if damaged else ""))
        ck = self.run.load_checkpoint()
        rows = 0  # no checkpoint: start again from nothing
        if ck is not None:
            arrays, meta = ck
            try:
                self.frontier = Frontier(arrays["states"], arrays["depths"], arrays["los"], arrays["weights"])
                self.totals = SearchTotals(count=int(meta["count"]), nodes=int(meta["nodes"]),
                                           batches=int(meta["batches"]), items=int(meta["items"]))
                self.elapsed = float(meta.get("seconds", 0.0))
                rows = int(meta.get("rows", 0))
                n = len(self.frontier)
                if self.frontier.states.ndim != 2 or any(a.shape != (n,) for a in (
                        self.frontier.depths, self.frontier.los, self.frontier.weights)) or rows < 0:
                    raise ValueError("arrays of different lengths")
            except (KeyError, TypeError, ValueError) as exc:
                raise PuzzleInputError(f"--resume: {self.out}: run {self.run.id}: the checkpoint is damaged "
                                       f"({exc})") from None
        # Rows (and series points) committed after the checkpoint belong to work the checkpoint still holds:
        # drop them, the resumed run finds them again (no duplicated, no missing row).
        self.run.rewind(min(rows, self.run.n_committed))

    @property
    def resumed(self) -> bool:
        return bool(self.options.resume)

    def seconds(self) -> float:
        return self.elapsed + work_clock() - self._t0

    def _meta(self, tot) -> dict:
        # The rows committed so far are part of the checkpoint: everything the frontier has not covered yet.
        return tot.meta() | {"seconds": self.seconds(), "rows": self.run.n_committed}

    def on_batch(self, front, tot) -> None:
        """The search's per-batch hook: progress, the running count, periodic checkpoints."""
        from puzzlebatch.runners.engine.progress import bar

        if self._bar is None:
            self._bar = bar(self.label, unit="batch")
        self._bar.update(1)
        rate = tot.nodes / max(1e-9, work_clock() - self._t0)
        self._bar.set_postfix(count=tot.count, items_left=len(front), nodes=tot.nodes, nodes_per_s=f"{rate:.3g}")
        # A snapshot first (the totals object keeps changing during the next launch, before its frontier is
        # known), with the series points it stands for: a Ctrl-C seen at the end of the next store commit then
        # checkpoints exactly this, and resuming stores no point twice.
        points = {self.series: self.run.series_length(self.series) + 1} if self.series else {}
        self._latest = (front, self._meta(tot), points)
        if self.series:
            self.run.append_series(self.series, tot.batches, tot.count)
        now = time.perf_counter()
        if now - self._last >= self.options.checkpoint_every:
            self.run.save_checkpoint(front.arrays(), self._latest[1], series=points)
            self._last = now

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def interrupted(self, resume_command: str) -> int:
        """Ctrl-C: checkpoint the work left after the last finished batch, mark the run interrupted and say how to
        resume; exit status 130.  (The batch that was running is searched again on resume.)"""
        self._close_bar()
        if self._latest is not None:
            front, meta, points = self._latest
            self.run.save_checkpoint(front.arrays(), meta | {"seconds": self.seconds()}, series=points)
        self.run.finish("interrupted", seconds=self.seconds())
        self.store.close()
        self.pool.close()
        print(f"puzzlebatch: interrupted; resume with: {resume_command} --out {self.out} --resume", file=sys.stderr)
        return EXIT_INTERRUPTED

    def finish(self, result: dict, complete: bool, rest, totals, seconds: float) -> dict:
        """Close the run: done with ``result``, or (stopped by ``--max-batches``) interrupted with the work left.

        Returns ``{"out": ..., "run_id": ..., "work": ...}`` for the command's JSON document; ``work`` (what each
        worker did: items, nodes, seconds, nodes/s, backend) is stored with the result too."""
        self._close_bar()
        work = self.pool.work.to_json()
        self.pool.close()
        if self.pool.distributed:
            print("\n".join(self.pool.work.lines()), file=sys.stderr)
        if complete:
            self.run.finish("done", seconds=seconds,  # the result and the status in one transaction
                            result={k: v for k, v in result.items() if v is not None} | {"work": work})
        else:
            self.run.save_checkpoint(rest.arrays(), totals.meta() | {"seconds": seconds, "rows": self.run.n_committed})
            self.run.finish("interrupted", seconds=seconds)
        doc = {"out": str(self.out), "run_id": self.run.id, "work": work}
        self.store.close()
        return doc
