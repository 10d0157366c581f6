"""The store side of a resumable batch-DFS count, shared by every family's ``count`` command.

A :class:`CountSession` opens the results store and the run (or, with ``--resume``, finds the unfinished run of
the same problem and restores its checkpoint: the frontier, the running totals and the seconds spent), reports
progress and checkpoints every ``--checkpoint-every`` seconds from the search's ``on_batch`` hook, and closes the
run: done with its result, or interrupted with the work left so that ``--resume`` finishes it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Callable

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.errors import PuzzleInputError


def add_arguments(p, what: str = "count") -> None:
    """``--resume``, ``--checkpoint-every``, ``--max-batches``, ``--scheduler`` and ``--item-seconds`` for a
    resumable command."""
    from puzzlebatch.runners.distributed import add_arguments as add_scheduler

    p.add_argument("--resume", action="store_true", help=f"continue the unfinished {what} in --out")
    p.add_argument("--checkpoint-every", type=float, default=30.0, metavar="SECONDS",
                   help="save the work left this often (default 30)")
    p.add_argument("--max-batches", type=int, help="stop after this many launches (resume later)")
    add_scheduler(p)


class CountSession:
    """One resumable count in a results store.

    Parameters
    ----------
    args
        The command's arguments (``out``, ``resume``, ``checkpoint_every``).
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
    """

    def __init__(self, args, family: str, verb: str, params: dict, backend, default_out: Path,
                 same_problem: Callable[[dict], bool], label: str, describe: str, series: str | None = None):
        from puzzlebatch.results.store import ResultsStore
        from puzzlebatch.runners.distributed import open_pool
        from puzzlebatch.runners.search import Frontier, SearchTotals

        self.args = args
        self.out = Path(args.out) if args.out else default_out
        if args.resume and not self.out.exists():
            raise PuzzleInputError(f"--resume: {self.out} does not exist; give the --out file of the interrupted run")
        self.store = ResultsStore(self.out, "a")
        try:
            self.pool = open_pool(getattr(args, "scheduler", None), getattr(args, "backend", "auto"),
                                  getattr(args, "item_seconds", 20.0))
        except BaseException:
            self.store.close()
            raise
        self.run = None
        if args.resume:
            for run_id in reversed(self.store.run_ids()):
                run = self.store.run(run_id)
                a = run.attrs
                if a.get("family") == family and a.get("algorithm") == verb and a.get("status") != "done" \
                        and same_problem(a["params"]):
                    self.run = run
                    break
            if self.run is None:
                self.store.close()
                raise PuzzleInputError(f"--resume: {self.out} has no unfinished {verb} of {describe}")
        else:
            self.run = self.store.create_run(family, verb, backend=backend.name, device=backend.device, seed=None,
                                             params=params)
        self.frontier = self.totals = None
        self.elapsed = 0.0
        if args.resume:
            ck = self.run.load_checkpoint()
            rows = 0  # no checkpoint: start again from nothing
            if ck is not None:
                arrays, meta = ck
                self.frontier = Frontier(arrays["states"], arrays["depths"], arrays["los"], arrays["weights"])
                self.totals = SearchTotals(count=meta["count"], nodes=meta["nodes"], batches=meta["batches"],
                                           items=meta["items"])
                self.elapsed = float(meta.get("seconds", 0.0))
                rows = int(meta.get("rows", 0))
            # Rows committed after the checkpoint belong to work the checkpoint still holds: drop them, the
            # resumed run finds them again (no duplicated, no missing row).
            if self.run.n_committed > rows:
                self.run.truncate_items(rows)
        self.series = series
        self.label = label
        self._t0 = work_clock()
        self._last = time.perf_counter()
        self._bar = None
        self._latest = None  # (frontier, totals) after the last batch: what Ctrl-C saves

    @property
    def resumed(self) -> bool:
        return bool(self.args.resume)

    def seconds(self) -> float:
        return self.elapsed + work_clock() - self._t0

    def _meta(self, tot) -> dict:
        # The rows committed so far are part of the checkpoint: everything the frontier has not covered yet.
        return tot.meta() | {"seconds": self.seconds(), "rows": self.run.n_committed}

    def on_batch(self, front, tot) -> None:
        """The search's per-batch hook: progress, the running count, periodic checkpoints."""
        from puzzlebatch.runners.progress import bar

        if self._bar is None:
            self._bar = bar(self.label, unit="batch")
        self._bar.update(1)
        rate = tot.nodes / max(1e-9, work_clock() - self._t0)
        self._bar.set_postfix(count=tot.count, items_left=len(front), nodes=tot.nodes, nodes_per_s=f"{rate:.3g}")
        if self.series:
            self.run.append_series(self.series, tot.batches, tot.count)
        # A snapshot: the totals object keeps changing during the next launch, before its frontier is known.
        self._latest = (front, self._meta(tot))
        now = time.perf_counter()
        if now - self._last >= self.args.checkpoint_every:
            self.run.save_checkpoint(front.arrays(), self._latest[1])
            self._last = now

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def interrupted(self, resume_command: str) -> int:
        """Ctrl-C: checkpoint the work left after the last finished batch, mark the run interrupted and say how to
        resume; exit status 130.  (The batch that was running is searched again on resume.)"""
        self._close_bar()
        if self._latest is not None:
            front, meta = self._latest
            self.run.save_checkpoint(front.arrays(), meta | {"seconds": self.seconds()})
        self.run.finish("interrupted", seconds=self.seconds())
        self.store.close()
        self.pool.close()
        print(f"puzzlebatch: interrupted; resume with: {resume_command} --out {self.out} --resume", file=sys.stderr)
        return 130

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
            self.run.set_result({k: v for k, v in result.items() if v is not None} | {"work": work})
            self.run.finish("done", seconds=seconds)
        else:
            self.run.save_checkpoint(rest.arrays(), totals.meta() | {"seconds": seconds, "rows": self.run.n_committed})
            self.run.finish("interrupted", seconds=seconds)
        doc = {"out": str(self.out), "run_id": self.run.id, "work": work}
        self.store.close()
        return doc
