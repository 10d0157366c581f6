"""Connector cubes: the GA with the memetic repair on a figure (the 3x3x3) from the 27 cubes, one line per seed.

    python bench/cubes_memetic.py --repair 300 --radius 7 --mrv --population 64 --mutation 0.5 \
        --seeds 0,1,2,3,4,5,6,7,8,9 --generations 60 [--islands 4 --migrate-every 10]

Every run uses ``--grow --ruin 1``; ``--repair 0`` is the GA without the repair (the ablation's baseline). A
solution is checked by the exact-search family's validator (``runners.cubes.ga.finish``).
"""

from __future__ import annotations

import argparse
import statistics
import time

from puzzlebatch.puzzles.cubes import model
from puzzlebatch.runners.cubes import ga as cubes_ga
from puzzlebatch.runners.engine.backend import select_backend
from puzzlebatch.runners.engine.ga import GAConfig


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repair", type=int, default=3000)
    ap.add_argument("--radius", type=int, default=27)
    ap.add_argument("--population", type=int, default=64)
    ap.add_argument("--mutation", type=float, default=0.5)
    ap.add_argument("--generations", type=int, default=60)
    ap.add_argument("--seeds", default="0,1,2,3,4,5,6,7,8,9")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--figure", default="3x3x3", help="a box LxWxH or a voxel file (default 3x3x3)")
    ap.add_argument("--exact", action="store_true",
                    help="also time the exact search's first assembly of the figure (median of 3), for comparison")
    ap.add_argument("--mrv", action="store_true", help="the repair branches on the most constrained cell first")
    ap.add_argument("--islands", type=int, default=1)
    ap.add_argument("--migrate-every", type=int, default=10)
    args = ap.parse_args()
    backend, cubes, figure = select_backend(args.backend), model.load_cubes(), model.parse_figure(args.figure)
    ops = cubes_ga.Operators(grow=True, p_ruin=1.0, repair=args.repair, radius=args.radius,
                                 mrv=args.mrv)
    times = []
    for seed in (int(s) for s in args.seeds.split(",")):
        config = GAConfig(population=args.population, generations=args.generations, p_mutation=args.mutation,
                          islands=args.islands, migrate_every=args.migrate_every)
        t0 = time.perf_counter()
        r, _ = cubes_ga.run_ga(figure, cubes, backend, config, ops, seed)
        wall = time.perf_counter() - t0
        times.append(r.seconds if r.success else float("inf"))
        print(f"seed {seed}: solved {r.success}, generation {r.generation}, best {r.best_cubes}/{figure.n_cells}, "
              f"{r.seconds:.2f} s (wall {wall:.2f} s), {r.evaluations_per_second:,.0f} evaluations/s", flush=True)
    if args.exact:
        from puzzlebatch.runners.cubes import solver as rc

        rc.solve(figure, cubes, backend)  # compilation
        runs = []
        for _ in range(3):
            t0 = time.perf_counter()
            s = rc.solve(figure, cubes, backend)
            runs.append(time.perf_counter() - t0)
        print(f"exact search: {'an assembly' if s.solved else 'no assembly'}, {s.nodes:,} nodes, median "
              f"{statistics.median(runs):.3f} s")
    solved = sum(t < float("inf") for t in times)
    print(f"solved {solved}/{len(times)}; median time to solution {statistics.median(times):.2f} s "
          f"(unsolved runs count as infinite)")


if __name__ == "__main__":
    main()
