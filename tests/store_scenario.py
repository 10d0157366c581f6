"""A small resumable run written through the results store, for the fault-injection tests.

Batch ``b`` appends rows ``10*b .. 10*b+9``, a series point and a checkpoint ``{"batch": b + 1, "rows": n}``;
the run ends with a result.  :func:`resume` continues whatever a killed writer left, exactly as the count
commands do: from the last checkpoint, rows past it dropped.  Run as a script (``python store_scenario.py PATH``)
it resumes or starts the run at PATH, so a test can kill it with ``PUZZLEBATCH_STORE_FAULT=exit:N``.
"""

from __future__ import annotations

import sys

import numpy as np

from puzzlebatch.results.store import ResultsStore

BATCHES = 4
ROWS = 10


def expected_rows() -> np.ndarray:
    return np.arange(BATCHES * ROWS)


def resume(path) -> None:
    """Finish the run at ``path`` (start it if the file holds none)."""
    with ResultsStore(path, "a") as store:
        run = store.latest_run()
        if run is not None and run.attrs["status"] == "done":
            return
        if run is None:
            run = store.create_run("test", "scenario", backend="cpu", device="cpu", seed=None, params={"b": 4},
                                   instances={"sizes": np.arange(BATCHES)})
        start, rows = 0, 0
        ck = run.load_checkpoint()
        if ck is not None:
            arrays, meta = ck
            assert np.array_equal(arrays["done"], np.arange(meta["batch"])), "checkpoint arrays and meta disagree"
            start, rows = meta["batch"], meta["rows"]
        run.rewind(rows)
        for b in range(start, BATCHES):
            run.append_items(value=np.arange(ROWS * b, ROWS * b + ROWS), grid=np.full((ROWS, 2, 3), b, np.int16))
            run.append_series("progress", b, run.n_committed)
            run.save_checkpoint({"done": np.arange(b + 1)}, {"batch": b + 1, "rows": run.n_committed})
        run.finish("done", seconds=1.0, result={"rows": run.n_committed})


if __name__ == "__main__":
    resume(sys.argv[1])
