"""Snake cubes: puzzlebatch against straightforward recursive Python DFS counters, side by side in one run.

Counts every embedding of a set of 4x4x4 chains (and the source document's 3x3x3 chain) with
``puzzlebatch.runners.snake.solver.count`` and with the peers of ``bench/snake_peers.py``; checks the counts agree;
prints a table, the ratios, and one JSON line.

The 4x4x4 chains are random Hamiltonian paths of the box, made with few backbite moves (30) from a boustrophedon
path, so that the pure-Python peers finish in seconds to minutes; fully random 4x4x4 chains take the peers hours.

    python bench/snake.py [--seeds 1 2 4 5] [--repeat 5] [--skip-document-style]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from snake_peers import document_style, incremental  # noqa: E402

import puzzlebatch  # noqa: E402
from puzzlebatch.puzzles.snake.generate import chain_of_path, random_hamiltonian_path  # noqa: E402
from puzzlebatch.puzzles.snake.model import SOURCE_CHAIN, Box, parse_chain  # noqa: E402
from puzzlebatch.runners.snake import solver as snake  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402


def bench_chain(letters, box, backend, repeat, peers):
    chain = parse_chain(letters)
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result, _, _ = snake.count(chain, box, backend)
        times.append(time.perf_counter() - t0)
    row = {"chain": letters, "box": str(box), "embeddings": result.embeddings, "distinct": result.distinct,
           "puzzlebatch_median_s": statistics.median(times), "puzzlebatch_min_s": min(times)}
    for name, fn in peers.items():
        t0 = time.perf_counter()
        n = fn(letters, box.dims)
        row[f"{name}_s"] = time.perf_counter() - t0
        assert n == result.embeddings, f"{name} counted {n}, puzzlebatch {result.embeddings} for {letters}"
        row[f"ratio_{name}"] = row[f"{name}_s"] / row["puzzlebatch_median_s"]
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 4, 5])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--skip-document-style", action="store_true")
    args = ap.parse_args()
    backend = select_backend(args.backend)
    peers = {"incremental": incremental}
    if not args.skip_document_style:
        peers["document_style"] = document_style

    # Compile first, so that timings are after compilation.
    t0 = time.perf_counter()
    snake.count(parse_chain(SOURCE_CHAIN), Box(3, 3, 3), backend)
    compile_s = time.perf_counter() - t0

    rows = [bench_chain(SOURCE_CHAIN, Box(3, 3, 3), backend, args.repeat, peers)]
    box = Box(4, 4, 4)
    for seed in args.seeds:
        chain = chain_of_path(random_hamiltonian_path(box, np.random.default_rng(seed), steps=30))
        rows.append(bench_chain(chain.letters, box, backend, args.repeat, peers))

    print(f"puzzlebatch {puzzlebatch.__version__}, backend {backend.name} ({backend.device}), "
          f"Python {platform.python_version()}, {os.cpu_count()} cores; first call with compilation {compile_s:.2f} s")
    head = f"{'box':6s} {'embeddings':>10s} {'puzzlebatch':>12s}" + "".join(f" {p:>15s} {'ratio':>7s}" for p in peers)
    print(head)
    for r in rows:
        line = f"{r['box']:6s} {r['embeddings']:>10d} {r['puzzlebatch_median_s']:>11.4f}s"
        for p in peers:
            line += f" {r[p + '_s']:>14.3f}s {r['ratio_' + p]:>6.0f}x"
        print(line + f"  {r['chain']}")
    four = [r for r in rows if r["box"] == "4x4x4"]
    summary = {"bench": "snake", "backend": backend.name, "device": backend.device, "cores": os.cpu_count(),
               "compile_s": compile_s, "source_chain_count_s": rows[0]["puzzlebatch_median_s"], "rows": rows}
    for p in peers:
        total_peer = sum(r[p + "_s"] for r in four)
        total_ours = sum(r["puzzlebatch_median_s"] for r in four)
        summary[f"ratio_total_4x4x4_{p}"] = total_peer / total_ours
        summary[f"ratio_median_4x4x4_{p}"] = statistics.median(r["ratio_" + p] for r in four)
        print(f"4x4x4 set vs {p}: total {total_peer:.2f} s / {total_ours:.4f} s = "
              f"{summary[f'ratio_total_4x4x4_{p}']:.0f}x; median per-chain ratio "
              f"{summary[f'ratio_median_4x4x4_{p}']:.0f}x")
    print(f"source chain (3x3x3) counted in {rows[0]['puzzlebatch_median_s'] * 1000:.1f} ms (median of {args.repeat})")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
