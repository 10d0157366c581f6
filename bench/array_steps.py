"""The layer deduplication of a BFS, three ways side by side: the serial compiled host step, the array-namespace
step on numpy, and (where CuPy finds a GPU) the same step on CuPy.

Why the CPU keeps its serial step: it marks a 3x4 layer chunk's children in one pass over the children; the
namespace step sorts them (what a GPU does well, a CPU core less so).  Same table either way (checked here).

    python bench/array_steps.py [--layers 40] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from puzzlebatch import xp as X  # noqa: E402
from puzzlebatch.cpu_fallback.sliding import drivers  # noqa: E402
from puzzlebatch.runners.sliding import solver as sliding  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=40, help="3x4 BFS layers to run first (the chunk is the next)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    d = drivers()
    state = sliding.bfs_run(sliding.bfs_start(3, 4, "blank-last"), select_backend("cpu"), max_layers=args.layers)
    n, fact = 12, sliding.factorials(12)
    cls = int(sliding.rules.state_class(np.array(sliding.goal_board(3, 4, "blank-last").tiles, np.int64), n, 4))
    ranks = state.frontier[: 1 << 19]
    children = np.empty((len(ranks), 4), np.int64)
    d.bfs_expand_batch(ranks, 3, 4, cls, fact, children)
    value = (state.depth + 1) % 15
    times = {"serial (njit)": [], "namespace (numpy)": []}
    cp = X.cupy_module()
    if cp is not None:
        times["namespace (cupy)"] = []
    for _ in range(args.repeat):
        p1, p2 = state.packed.copy(), state.packed.copy()
        buf = np.empty(children.size, np.int64)
        t0 = time.perf_counter()
        m = d.bfs_mark(children, p1, value, buf)
        times["serial (njit)"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        new = X.mark_new_nibbles(np, children, p2, value)
        times["namespace (numpy)"].append(time.perf_counter() - t0)
        assert np.array_equal(p1, p2) and np.array_equal(np.sort(buf[:m]), new)
        if cp is not None:
            dp, dc = cp.asarray(state.packed), cp.asarray(children)
            cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            dnew = X.mark_new_nibbles(cp, dc, dp, value)
            cp.cuda.Device().synchronize()
            times["namespace (cupy)"].append(time.perf_counter() - t0)
            assert np.array_equal(dnew.get(), new) and np.array_equal(dp.get(), p1)
    print(f"3x4 BFS, depth {state.depth + 1}: a chunk of {len(ranks):,} states, {children.size:,} children, "
          f"{len(new):,} new; load average {os.getloadavg()[0]:.2f}")
    base = statistics.median(times["serial (njit)"])
    rows = {}
    for name, ts in times.items():
        med = statistics.median(ts)
        rows[name] = {"median_s": med, "vs_serial": med / base}
        print(f"  {name:20s} median {med * 1e3:8.1f} ms  ({med / base:.2f}x the serial step)")
    print(json.dumps({"bench": "array_steps", "states": len(ranks), "children": int(children.size), "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
