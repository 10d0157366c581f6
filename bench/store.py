"""What crash consistency costs: the results store (a transaction per change, rollback journal, fsync) against the
same HDF5 writes made directly with h5py (flush per change, no journal, no fsync: the store's protocol before it
had transactions), side by side in one process.

Three phases of a large run:

* rows: ``--commits`` appends of ``--rows`` rows (a 27-cell int16 row and an int64 weight, as ``snake count --all``);
* checkpoints: ``--checkpoints`` replacements of a frontier of ``--frontier`` items (int64 states of width 4,
  int32 depths and los, int64 weights);
* a table: one ``--table-mb`` MB uint8 table (a BFS distance table).

The store runs twice: as shipped (fsync at every commit) and with ``PUZZLEBATCH_STORE_FSYNC=0`` (journal order
only: safe against a killed process, not against a power cut), which separates the journal's cost from the disk's.

The rows phase also runs in the store's older order, side by side: the rows and the counter in one commit per
append, where the store commits the rows first and the counter after them (two commits per append, so that a
reader polling without a lock never sees a counter ahead of its rows); with and without fsync.

    python bench/store.py [--commits 2000] [--rows 500] [--checkpoints 20] [--frontier 200000] [--table-mb 200]
                          [--repeat 3] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import h5py
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import puzzlebatch  # noqa: E402
from puzzlebatch.results.store import ResultsStore  # noqa: E402


def _data(args):
    rng = np.random.default_rng(0)
    cells = rng.integers(0, 27, size=(args.rows, 27), dtype=np.int16)
    weight = np.full(args.rows, 48, np.int64)
    front = {"states": rng.integers(0, 2**40, size=(args.frontier, 4)), "depths": np.zeros(args.frontier, np.int32),
             "los": np.zeros(args.frontier, np.int32), "weights": np.ones(args.frontier, np.int64)}
    table = rng.integers(0, 255, size=args.table_mb << 20, dtype=np.uint8)
    return cells, weight, front, table


def run_store(path: Path, args, data, sync: bool = True, one_commit: bool = False) -> dict[str, float]:
    """The store's writes; ``one_commit``: the rows phase only, rows and counter in one commit (the older order)."""
    from puzzlebatch.results import journal
    from puzzlebatch.results import run as run_module

    journal.SYNC = sync
    cells, weight, front, table = data
    times = {}
    real = run_module.commit_rows
    if one_commit:  # no commit between the rows and the counter: the transaction's own commit covers both
        run_module.commit_rows = lambda owner, counter, columns, commit=None: real(owner, counter, columns, None)
    try:
        with ResultsStore(path, "w") as store:
            run = store.create_run("bench", "store", backend="cpu", device="cpu", seed=None, params={})
            t = time.perf_counter()
            for _ in range(args.commits):
                run.append_items(cells=cells, weight=weight)
            times["rows"] = time.perf_counter() - t
            if one_commit:
                return times
            times.update(_store_rest(run, args, front, table))
    finally:
        run_module.commit_rows = real
    return times


def _store_rest(run, args, front, table) -> dict[str, float]:
    """The checkpoints and table phases of :func:`run_store`."""
    times = {}
    t = time.perf_counter()
    for k in range(args.checkpoints):
        run.save_checkpoint(front, {"k": k})
    times["checkpoints"] = time.perf_counter() - t
    t = time.perf_counter()
    run.set_table("distances", table)
    times["table"] = time.perf_counter() - t
    return times


def run_plain(path: Path, args, data) -> dict[str, float]:
    """The same writes with h5py alone: resize, write, flush, bump the counter, flush (no journal, no fsync)."""
    cells, weight, front, table = data
    times = {}
    with h5py.File(path, "w", libver=("v108", "latest")) as f:
        run = f.create_group("runs/bench-store-0000")
        run.attrs["n_committed"] = np.int64(0)
        items = run.create_group("items")
        cols = {"cells": cells, "weight": weight}
        for name, arr in cols.items():
            items.create_dataset(name, shape=(0,) + arr.shape[1:], maxshape=(None,) + arr.shape[1:],
                                 chunks=(max(1, (256 << 10) // (arr.itemsize * max(1, arr[0].size))),)
                                 + arr.shape[1:], dtype=arr.dtype, fletcher32=True)
        f.flush()
        t = time.perf_counter()
        for _ in range(args.commits):
            n = int(run.attrs["n_committed"])
            for name, arr in cols.items():
                items[name].resize(n + len(arr), axis=0)
                items[name][n:] = arr
            f.flush()
            run.attrs.modify("n_committed", np.int64(n + len(cells)))
            f.flush()
        times["rows"] = time.perf_counter() - t
        t = time.perf_counter()
        for k in range(args.checkpoints):
            new = run.create_group("checkpoint_new")
            for name, arr in front.items():
                new.create_dataset(name, data=arr, chunks=(min(len(arr), 1 << 15),) + arr.shape[1:], fletcher32=True)
            new.attrs["meta_json"] = json.dumps({"k": k})
            f.flush()
            if "checkpoint" in run:
                del run["checkpoint"]
            run.move("checkpoint_new", "checkpoint")
            f.flush()
        times["checkpoints"] = time.perf_counter() - t
        t = time.perf_counter()
        run.create_group("tables").create_dataset("distances", data=table)
        f.flush()
        times["table"] = time.perf_counter() - t
    return times


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--commits", type=int, default=2000)
    p.add_argument("--rows", type=int, default=500)
    p.add_argument("--checkpoints", type=int, default=20)
    p.add_argument("--frontier", type=int, default=200_000)
    p.add_argument("--table-mb", type=int, default=200)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--dir", help="where the files go (default: a temporary folder)")
    args = p.parse_args()
    data = _data(args)
    runs: dict[str, list[dict[str, float]]] = {"store": [], "store_nosync": [], "plain": [], "one_commit": [],
                                               "one_commit_nosync": []}
    nosync = lambda path, args, data: run_store(path, args, data, sync=False)  # noqa: E731
    one = lambda path, args, data: run_store(path, args, data, one_commit=True)  # noqa: E731
    one_nosync = lambda path, args, data: run_store(path, args, data, sync=False, one_commit=True)  # noqa: E731
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for _ in range(args.repeat):
            for name, fn in (("store", run_store), ("store_nosync", nosync), ("plain", run_plain),
                             ("one_commit", one), ("one_commit_nosync", one_nosync)):
                path = Path(tmp) / f"{name}.h5"
                runs[name].append(fn(path, args, data))
                if name == "store":
                    size = path.stat().st_size
                path.unlink()
    print(f"puzzlebatch {puzzlebatch.__version__}, h5py {h5py.__version__} (HDF5 {h5py.version.hdf5_version}), "
          f"numpy {np.__version__}, {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}; medians of {args.repeat}")
    doc = {"rows": args.commits * args.rows, "file_mb": round(size / 2**20, 1)}
    print(f"{'phase':<12}{'store':>10}{'no fsync':>10}{'plain h5py':>12}{'ratio':>8}{'no fsync':>10}")
    for phase in ("rows", "checkpoints", "table"):
        a, c, b = (statistics.median(r[phase] for r in runs[k]) for k in ("store", "store_nosync", "plain"))
        print(f"{phase:<12}{a:>9.2f}s{c:>9.2f}s{b:>11.2f}s{a / b:>7.2f}x{c / b:>9.2f}x")
        doc[phase] = {"store_s": round(a, 3), "store_nosync_s": round(c, 3), "plain_s": round(b, 3),
                      "ratio": round(a / b, 2), "ratio_nosync": round(c / b, 2)}
    two, one, two_ns, one_ns = (statistics.median(r["rows"] for r in runs[k])
                                for k in ("store", "one_commit", "store_nosync", "one_commit_nosync"))
    print(f"rows, the counter committed after the rows (2 commits per append) against one commit per append: "
          f"{two:.2f}s / {one:.2f}s = {two / one:.2f}x; without fsync {two_ns:.2f}s / {one_ns:.2f}s = "
          f"{two_ns / one_ns:.2f}x")
    doc["rows_commit_order"] = {"two_commits_s": round(two, 3), "one_commit_s": round(one, 3),
                                "ratio": round(two / one, 2), "two_commits_nosync_s": round(two_ns, 3),
                                "one_commit_nosync_s": round(one_ns, 3), "ratio_nosync": round(two_ns / one_ns, 2)}
    print(json.dumps(doc))


if __name__ == "__main__":
    main()
