"""Connector cubes: the GA with the memetic repair on the 3x3x3 from the 27 cubes, one line per seed.

    python bench/cubes_memetic.py --repair 3000 --radius 27 --population 64 --mutation 0.5 \
        --seeds 0,1,2,3,4,5,6,7,8,9 --generations 60

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
    args = ap.parse_args()
    backend, cubes, figure = select_backend(args.backend), model.load_cubes(), model.box(3, 3, 3)
    ops = cubes_ga.Operators(grow=True, p_ruin=1.0, repair=args.repair, radius=args.radius)
    times = []
    for seed in (int(s) for s in args.seeds.split(",")):
        config = GAConfig(population=args.population, generations=args.generations, p_mutation=args.mutation)
        t0 = time.perf_counter()
        r, _ = cubes_ga.run_ga(figure, cubes, backend, config, ops, seed)
        wall = time.perf_counter() - t0
        times.append(r.seconds if r.success else float("inf"))
        print(f"seed {seed}: solved {r.success}, generation {r.generation}, best {r.best_cubes}/27, "
              f"{r.seconds:.2f} s (wall {wall:.2f} s), {r.evaluations_per_second:,.0f} evaluations/s", flush=True)
    solved = sum(t < float("inf") for t in times)
    print(f"solved {solved}/{len(times)}; median time to solution {statistics.median(times):.2f} s "
          f"(unsolved runs count as infinite)")


if __name__ == "__main__":
    main()
