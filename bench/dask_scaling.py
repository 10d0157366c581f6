"""Scaling of one large count over Dask workers, side by side with the embedded (in-process) run.

Counts every embedding of a fully random 4x4x4 snake chain (`puzzlebatch snake generate --box 4x4x4 --seed S`)
three ways in one run: embedded (this process, numba prange over every core), then on a Dask LocalCluster of 1, 2,
... worker processes (each worker's numba threads get cores / workers).  Worker compilation is excluded by a
warm-up count on the same cluster; the cluster start-up is reported apart.  Every count must be equal.

    python bench/dask_scaling.py [--seed 0] [--workers 1 2] [--repeat 1] [--item-seconds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from puzzlebatch.puzzles.snake.generate import random_chain
from puzzlebatch.puzzles.snake.model import Box
from puzzlebatch.runners.snake import solver as snake
from puzzlebatch.runners.engine.backend import select_backend
from puzzlebatch.runners.engine.distributed import open_pool


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--box", default="4x4x4")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--item-seconds", type=float, default=5.0)
    args = ap.parse_args()
    box = Box(*map(int, args.box.split("x")))
    chain = random_chain(box, args.seed)[0]
    cpu = select_backend("cpu")
    warm = Box(3, 3, 4), random_chain(Box(3, 3, 4), 9)[0]
    print(f"chain {chain.letters} in {box} (seed {args.seed}); {os.cpu_count()} cores; load "
          f"{os.getloadavg()[0]:.1f}")
    snake.count(warm[1], warm[0], cpu)  # compile in this process
    rows = []
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        res, _, _ = snake.count(chain, box, cpu)
        times.append(time.perf_counter() - t)
    base = statistics.median(times)
    rows.append({"where": "embedded", "workers": 1, "seconds": base, "embeddings": res.embeddings,
                 "nodes": res.nodes})
    print(f"embedded: {res.embeddings} embeddings, {res.nodes:,} nodes, median {base:.2f} s")
    for n in args.workers:
        t = time.perf_counter()
        with open_pool(f"local:{n}", "cpu", args.item_seconds) as pool:
            start = time.perf_counter() - t
            snake.count(warm[1], warm[0], cpu, pool=pool)  # compile on the workers
            times = []
            for _ in range(args.repeat):
                pool.work = pool.summary()
                t = time.perf_counter()
                r, rest, _ = snake.count(chain, box, cpu, pool=pool)
                times.append(time.perf_counter() - t)
                assert r.embeddings == res.embeddings and len(rest) == 0, (r.embeddings, res.embeddings)
            med = statistics.median(times)
            rows.append({"where": f"local:{n}", "workers": n, "seconds": med, "embeddings": r.embeddings,
                         "nodes": r.nodes, "startup_seconds": start, "work": pool.work.to_json()})
            print(f"local:{n}: median {med:.2f} s (cluster start {start:.1f} s), {base / med:.2f}x the embedded run")
            for line in pool.work.lines()[1:]:
                print(line)
    print(json.dumps({"bench": "distributed", "chain": chain.letters, "box": str(box), "rows": rows}))


if __name__ == "__main__":
    main()
