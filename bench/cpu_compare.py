"""The CPU path of two checkouts side by side in one run: is this one at least as fast as another?

Runs the same CPU workloads with ``puzzlebatch`` imported from each checkout in turn (a child process per
checkout and repetition, interleaved, so a busy machine slows both alike), checks that both give the same answers,
and prints the medians and their ratio.  The other checkout is any earlier commit, e.g.::

    git worktree add /tmp/puzzlebatch-base main
    python bench/cpu_compare.py --other /tmp/puzzlebatch-base --repeat 5

Workloads (on ``cpu``): the 4x4x4 snake set of bench/snake.py, pentominoes 6x10, connector cubes 2x2x1 from the
first 12 cubes, the 3x3 and 2x5 BFS, 2,000 random 8-puzzles by IDA* with the 4-4 pattern databases, the 175
reference hex-Tetris solutions x 8 as playouts, and 30 generations of a 1,024-individual connector-cube GA on
3x3x1.  Compilation (each checkout's own, from the shared disk cache after the first time) is not timed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

WORKER = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import puzzlebatch
assert puzzlebatch.__file__.startswith(sys.argv[1]), puzzlebatch.__file__
from puzzlebatch.runners.engine.backend import select_backend

cpu = select_backend("cpu")


def snake():
    from puzzlebatch.puzzles.snake.generate import chain_of_path, random_hamiltonian_path
    from puzzlebatch.puzzles.snake.model import Box
    from puzzlebatch.runners.snake import solver as S
    box = Box(4, 4, 4)
    chains = [chain_of_path(random_hamiltonian_path(box, np.random.default_rng(s), steps=30)) for s in (1, 2, 4, 5)]
    return [S.count(c, box, cpu)[0].embeddings for c in chains]


def polyomino():
    from puzzlebatch.puzzles.polyomino import packing as P, shapes as S
    from puzzlebatch.runners.polyomino import solver as RP
    r = RP.count_packing(P.build(P.parse_board("10x6"), S.load_pieces("pentominoes")), cpu)
    return [r.solutions, r.distinct]


def cubes():
    from puzzlebatch.puzzles.cubes import model
    from puzzlebatch.runners.cubes import solver as rc
    cs = model.load_cubes()
    return rc.count(model.box(2, 2, 1), cs.subset(cs.numbers[:12]), cpu)[0].assemblies


def bfs():
    from puzzlebatch.runners.sliding import solver as sliding
    return [sliding.bfs(r, c, "blank-last", cpu)[0].depth_counts for r, c in ((3, 3), (2, 5))]


def ida():
    from puzzlebatch.puzzles.sliding.model import Board, goal_board, solvability
    from puzzlebatch.runners.sliding import solver as sliding
    from puzzlebatch.runners.sliding import pdb as sliding_pdb
    pdbs = sliding_pdb.ensure(3, 3, "4-4", cpu, sliding_pdb.cache_dir(None), say=lambda m: None)
    rng = np.random.default_rng(11)
    boards = []
    while len(boards) < 2000:
        b = Board(3, 3, tuple(int(v) for v in rng.permutation(9)))
        if solvability(b, goal_board(3, 3, "blank-first"))[0]:
            boards.append(b)
    return sum(r.length for r in sliding.solve_batch(boards, "blank-first", "pdb", cpu, pdbs=pdbs))


def hextris():
    from puzzlebatch.puzzles.hextris import model
    from puzzlebatch.puzzles.hextris.encode import encode_commands
    from puzzlebatch.runners.hextris.playouts import Playouts, parse_solutions
    problems = [model.official_problem(i) for i in range(25)]
    entries = parse_solutions(json.loads((model.DATA_DIR / "reference_scores.json").read_text()), "ref") * 8
    sim = Playouts(problems, cpu)
    games = sim.new_games([e["seed"] for e in entries], [e["problemId"] for e in entries])
    sim.run_commands(games, encode_commands([e["solution"] for e in entries]))
    return int(games.move_scores.sum())


def ga():
    from puzzlebatch.runners.engine.ga import GAConfig, GeneticAlgorithm
    from puzzlebatch.puzzles.cubes import model
    from puzzlebatch.runners.cubes import ga as cubes_ga
    problem = cubes_ga.ga_problem(model.box(3, 3, 1), model.load_cubes(), cubes_ga.Operators())
    problem.target = None
    _, state = GeneticAlgorithm(problem, cpu, GAConfig(1024, 30), seed=3).run()
    return [float(np.asarray(state.fitness).sum()), int(np.asarray(state.population).sum())]


CASES = dict(snake=snake, polyomino=polyomino, cubes=cubes, bfs=bfs, ida=ida, hextris=hextris, ga=ga)
out = {}
for name in sys.argv[2].split(","):
    CASES[name]()  # compile or load from the disk cache: not timed
    t0 = time.perf_counter()
    answer = CASES[name]()
    out[name] = {"seconds": time.perf_counter() - t0, "answer": answer}
print(json.dumps(out))
'''

CASES = ["snake", "polyomino", "cubes", "bfs", "ida", "hextris", "ga"]


def run_tree(tree: Path, cases: list[str]) -> dict:
    proc = subprocess.run([sys.executable, "-c", WORKER, str(tree), ",".join(cases)], capture_output=True,
                          text=True, env={k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"})
    if proc.returncode:
        raise SystemExit(f"{tree}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--other", type=Path, required=True, help="the other checkout (e.g. a worktree of main)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cases", nargs="+", choices=CASES, default=CASES)
    args = ap.parse_args()
    trees = {"this": HERE, "other": args.other.resolve()}
    times: dict[str, dict[str, list[float]]] = {t: {c: [] for c in args.cases} for t in trees}
    answers: dict[str, dict] = {}
    for k in range(args.repeat):
        for label in (list(trees) if k % 2 == 0 else list(trees)[::-1]):  # alternate who goes first
            res = run_tree(trees[label], args.cases)
            for c, r in res.items():
                times[label][c].append(r["seconds"])
                answers.setdefault(c, {}).setdefault(label, r["answer"])
    print(f"load average before the summary: {os.getloadavg()[0]:.2f}; {args.repeat} runs per checkout; "
          f"this = {trees['this']}, other = {trees['other']}")
    print("| workload | this (median) | other (median) | other / this | same answer |")
    print("|---|---:|---:|---:|---|")
    rows = {}
    for c in args.cases:
        a, b = statistics.median(times["this"][c]), statistics.median(times["other"][c])
        same = answers[c]["this"] == answers[c]["other"]
        rows[c] = {"this_median_s": a, "other_median_s": b, "ratio_other_over_this": b / a, "same_answer": same,
                   "this_s": times["this"][c], "other_s": times["other"][c]}
        print(f"| {c} | {a:.3f} s | {b:.3f} s | {b / a:.2f} | {'yes' if same else 'NO'} |")
    print(json.dumps({"bench": "cpu_compare", "time": time.strftime("%Y-%m-%d %H:%M"), "rows": rows}))
    return 0 if all(r["same_answer"] for r in rows.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
