"""Writer process for the SIGKILL test in test_store.py: appends item batches until killed.

Usage: ``python store_writer_proc.py PATH [BATCH]``.  Batch ``b`` holds the values ``b*BATCH ..
b*BATCH+BATCH-1`` in column ``value`` and, in the 2-D column ``grid``, rows filled with the same value.
After each ``append_items`` returns it prints ``committed N`` (flushed), so the parent knows that at
least N rows are committed when it kills this process.  If the file already holds a run, the writer
continues it from its committed count.
"""

import sys

import numpy as np

from puzzlebatch.results.store import ResultsStore


def main() -> None:
    path = sys.argv[1]
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    with ResultsStore(path, "a") as store:
        run = store.latest_run() or store.create_run("test", "writer", backend="cpu", device="cpu",
                                                     seed=None, params={"batch": batch})
        start = run.n_committed
        while True:
            values = np.arange(start, start + batch, dtype=np.int64)
            grid = np.broadcast_to(values[:, None, None], (batch, 3, 4)).astype(np.int32)
            run.append_items(value=values, grid=grid)
            start += batch
            print(f"committed {run.n_committed}", flush=True)


if __name__ == "__main__":
    main()
