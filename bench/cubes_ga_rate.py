"""Connector cubes: GA evaluations per second at a large population (breeding and replacement, compilation
excluded), one line per operator setting.

    python bench/cubes_ga_rate.py --population 100000 --generations 5 --figure 3x3x3

Side by side with an earlier revision: ``git archive REV | tar -x -C /tmp/base`` and run this file again with
``PYTHONPATH=/tmp/base`` (``--settings document,grow+ruin``: the memetic setting is newer).

Settings: the document's scheme (single-cube crossover and move mutation), the same with ``--grow --ruin 1``,
and the memetic repair (most constrained cell first, budget 30, radius 7).  Nothing here stops at a solution:
every run breeds ``--generations`` generations (``target`` removed).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

from puzzlebatch.puzzles.cubes import model
from puzzlebatch.runners.cubes import ga as cubes_ga
from puzzlebatch.runners.engine.backend import select_backend
from puzzlebatch.runners.engine.ga import GAConfig, GeneticAlgorithm

SETTINGS = {  # made when used: ``--settings document`` also runs on revisions without the newer operators
    "document": lambda: (cubes_ga.Operators(), 0.1),
    "grow+ruin": lambda: (cubes_ga.Operators(grow=True, p_ruin=1.0), 0.5),
    "memetic": lambda: (cubes_ga.Operators(grow=True, p_ruin=1.0, repair=30, radius=7, mrv=True), 0.5),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--population", type=int, default=100_000)
    ap.add_argument("--generations", type=int, default=5)
    ap.add_argument("--figure", default="3x3x3")
    ap.add_argument("--settings", default=",".join(SETTINGS))
    ap.add_argument("--backend", default="cpu")
    args = ap.parse_args()
    backend, cubes = select_backend(args.backend), model.load_cubes()
    figure = model.box(*(int(v) for v in args.figure.split("x")))
    for name in args.settings.split(","):
        ops, p_mut = SETTINGS[name]()
        problem = dataclasses.replace(cubes_ga.ga_problem(figure, cubes, ops), target=None)
        ga = GeneticAlgorithm(problem, backend, GAConfig(population=args.population, p_mutation=p_mut), seed=0)
        state = ga.start()
        rates, bests = [], []
        for _ in range(args.generations):
            t0 = time.perf_counter()
            rec = ga.step(state)
            rates.append(args.population / (time.perf_counter() - t0))
            bests.append(rec["best"])
        print(f"{name}: population {args.population:,}, {args.generations} generations on {backend.name}: "
              f"median {statistics.median(rates):,.0f} evaluations/s (min {min(rates):,.0f}, max "
              f"{max(rates):,.0f}); best {bests[-1]:.0f}/{figure.n_cells}", flush=True)


if __name__ == "__main__":
    main()
