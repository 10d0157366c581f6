"""Every family's headline benchmark on CUDA and on the CPU, side by side in one run, with the device traffic.

On a CUDA machine (``pip install -e ".[gpu]"``)::

    python bench/gpu.py                      # the full table: prints markdown, writes bench/gpu-results.json
    python bench/gpu.py --cases snake sliding-bfs --repeat 3

Each case runs on ``cuda`` and on ``cpu`` (after a first, compiling run that is not timed), checks that both give
the same answer, and reports the median time, the ratio (cpu / cuda), and what the CUDA run moved to and from the
device and how many kernels it launched.  ``--quick`` runs the same pipeline on tiny sizes; with
``NUMBA_ENABLE_CUDASIM=1`` it needs no GPU (the test suite runs it that way, so this script cannot rot), and its
times then say nothing about a GPU.

Cases (full size / quick size):

- ``snake``: count every embedding of four 4x4x4 chains (bench/snake.py's seeds 1 2 4 5) / one 2x2x4 chain;
- ``polyomino-6x10``: pentominoes on 6x10 (9,356 solutions) / tetrominoes (any number of each) on 4x5;
- ``polyomino-6x10-warp``: the same with a warp an item on CUDA (``cuda_lanes=32``, ``--cuda-lanes 32``): against
  ``polyomino-6x10``, a thread or a warp an item / the L tetromino and a domino on 3x2, the root in the kernel;
- ``polyomino-iq``: IQ Puzzler Pro 5x11, every solution (4,331,140) / trominoes (any number) on 3x6;
- ``polyomino-iq-tree``: the same counted as a tree (``merge="no"``: every node in the kernel, 70,535,285 nodes);
- ``polyomino-bedlam``: the Bedlam cube 4x4x4 (19,186 distinct; incremental MRV) / tetracubes (any number) on
  3x2x2;

(the polyomino counts use the branching rule the CLI uses by default: the one-word bitboard on the first two,
``mrv`` on Bedlam; the case's ``branch`` says which)
- ``cubes``: 2x2x1 figures from the 27 connector cubes (36,755,872 assemblies) / 3x1x1 from 6 cubes;
- ``sliding-korf100``: Korf's 100 fifteen-puzzles, IDA* with the 7-8 pattern databases (built on first use, on the
  GPU when there is one: 576 MB) / five 8-puzzles with the 4-4 databases;
- ``sliding-bfs``: the whole 3x4 state space (239,500,800 states) / 2x3;
- ``hextris``: playouts of the 175 reference solutions x 8 copies, commands per second / three short games;
- ``ga``: connector-cube GA, 20 generations of 4096 individuals on 3x3x3, evaluations per second / 2 of 16.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import puzzlebatch  # noqa: E402
from puzzlebatch.runners.engine.backend import select_backend  # noqa: E402


# -- the cases: each returns (answer, work) where answer must agree between backends -------------------------------

def case_snake(backend, quick):
    from puzzlebatch.puzzles.snake.generate import chain_of_path, random_chain, random_hamiltonian_path
    from puzzlebatch.puzzles.snake.model import Box
    from puzzlebatch.runners.snake import solver as snake

    if quick:
        chains = [(random_chain(Box(2, 2, 4), 1)[0], Box(2, 2, 4))]
    else:
        box = Box(4, 4, 4)
        chains = [(chain_of_path(random_hamiltonian_path(box, np.random.default_rng(s), steps=30)), box)
                  for s in (1, 2, 4, 5)]
    results = [snake.count(c, b, backend)[0] for c, b in chains]
    return [(r.embeddings, r.distinct) for r in results], {"nodes": sum(r.nodes for r in results)}


def _count_packing(backend, quick, full, small, merge=None):
    """Count a packing: ``full`` = (board, piece set) with every solution and the distinct ones; ``small`` =
    (board, piece set) with unlimited copies, every solution (no symmetry classes: the quick board's symmetric
    leaves would be enumerated on the host, and the kernel would not run)."""
    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.puzzles.polyomino import shapes as S
    from puzzlebatch.runners.polyomino import solver as RP

    board, pieces = small if quick else full
    pk = P.build(P.parse_board(board), S.load_pieces(pieces, unlimited=quick))
    branch = RP.default_branch(P.build(P.parse_board(full[0]), S.load_pieces(full[1])))
    settings = None
    if merge is not None:  # the backend's defaults (as bench/gpu_sweep.py sets them), merging as asked
        import dataclasses

        from puzzlebatch.runners.engine import search

        settings = dataclasses.replace(search.default_settings(backend), merge=merge)
    r = RP.count_packing(pk, backend, mode=branch, distinct=not quick, settings=settings)
    return (r.solutions, r.distinct), {"nodes": r.nodes, "branch": r.branch}


def case_polyomino_6x10(backend, quick):
    return _count_packing(backend, quick, ("10x6", "pentominoes"), ("5x4", "tetrominoes"))


def case_polyomino_6x10_warp(backend, quick):
    """The 6x10 count with a warp an item on CUDA (``cuda_lanes=32``: the lanes share each node's candidate tests),
    a thread an item on the CPU; quick: the L tetromino and a domino on 3x2, every solution."""
    import dataclasses

    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.puzzles.polyomino import shapes as S
    from puzzlebatch.runners.engine import search
    from puzzlebatch.runners.polyomino import solver as RP

    board, pieces = ("3x2", "tetrominoes+dominoes") if quick else ("10x6", "pentominoes")
    pk = P.build(P.parse_board(board), S.load_pieces(pieces))
    settings = dataclasses.replace(search.default_settings(backend), cuda_lanes=1 if backend.kind == "cpu" else 32)
    if quick:
        settings.frontier_target = 1  # the root is the kernel's work item (the tree is too small to expand)
    r = RP.count_packing(pk, backend, mode="bitboard", distinct=not quick, settings=settings)
    return (r.solutions, r.distinct), {"nodes": r.nodes, "branch": r.branch}


def case_polyomino_iq(backend, quick):
    return _count_packing(backend, quick, ("11x5", "iq-puzzler-pro"), ("3x6", "trominoes"))


def case_polyomino_iq_tree(backend, quick):
    return _count_packing(backend, quick, ("11x5", "iq-puzzler-pro"), ("3x6", "trominoes"), merge="no")


def case_polyomino_bedlam(backend, quick):
    return _count_packing(backend, quick, ("4x4x4", "bedlam"), ("3x2x2", "tetracubes"))


def case_cubes(backend, quick):
    from puzzlebatch.puzzles.cubes import model
    from puzzlebatch.runners.cubes import solver as rc

    cubes = model.load_cubes()
    if quick:
        c = rc.count(model.box(3, 1, 1), cubes.subset(cubes.numbers[:6]), backend)[0]
    else:
        c = rc.count(model.box(2, 2, 1), cubes, backend)[0]
    return (c.assemblies, c.distinct), {"nodes": c.nodes}


def _pdbs(rows, cols, partition, backend):
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    folder = sliding_pdb.cache_dir(os.environ.get("PUZZLEBATCH_BENCH_PDB_DIR"))
    return sliding_pdb.ensure(rows, cols, partition, backend, folder, say=lambda m: print(m, flush=True))


def case_sliding_korf100(backend, quick):
    from puzzlebatch.puzzles.sliding.model import read_instances
    from puzzlebatch.runners.sliding import solver as sliding

    if quick:
        rng = np.random.default_rng(5)
        from puzzlebatch.puzzles.sliding.model import Board, goal_board, solvability

        boards = []
        while len(boards) < 5:
            b = Board(3, 3, tuple(int(v) for v in rng.permutation(9)))
            if solvability(b, goal_board(3, 3, "blank-first"))[0]:
                boards.append(b)
        pdbs = _pdbs(3, 3, "4-4", select_backend("cpu"))
    else:
        boards = [b for b, _ in read_instances(ROOT / "puzzlebatch" / "data" / "sliding" / "korf100.txt")]
        pdbs = _pdbs(4, 4, "7-8", select_backend("auto"))  # built once, on the GPU when there is one
    rs = sliding.solve_batch(boards, "blank-first", "pdb", backend, pdbs=pdbs)
    return [r.length for r in rs], {"nodes": sum(r.nodes for r in rs)}


def case_sliding_bfs(backend, quick):
    from puzzlebatch.runners.sliding import solver as sliding

    r, _ = sliding.bfs(2, 3, "blank-last", backend) if quick else sliding.bfs(3, 4, "blank-last", backend)
    return r.depth_counts, {"states": r.states}


def case_hextris(backend, quick):
    from puzzlebatch.puzzles.hextris import model
    from puzzlebatch.puzzles.hextris.encode import encode_commands
    from puzzlebatch.runners.hextris.playouts import Playouts, parse_solutions

    problems = {i: model.official_problem(i) for i in range(25)}
    ref = json.loads((model.DATA_DIR / "reference_scores.json").read_text())
    entries = parse_solutions(ref, "reference")
    if quick:
        entries = [dict(e, solution=e["solution"][:12]) for e in entries[:3]]
    else:
        entries = entries * 8
    ids = sorted(problems)
    index = {p: i for i, p in enumerate(ids)}
    sim = Playouts([problems[p] for p in ids], backend)
    codes, offsets = encode_commands([e["solution"] for e in entries])
    games = sim.new_games([e["seed"] for e in entries], [index[e["problemId"]] for e in entries])
    sim.run_commands(games, (codes, offsets))
    return [int(s) for s in games.move_scores], {"commands": int(games.commands.sum())}


def case_ga(backend, quick):
    from puzzlebatch.runners.engine.ga import GAConfig, GeneticAlgorithm
    from puzzlebatch.puzzles.cubes import model
    from puzzlebatch.runners.cubes import ga as cubes_ga

    cubes = model.load_cubes()
    if quick:
        figure, cubes, config = model.box(2, 2, 1), cubes.subset(cubes.numbers[:8]), GAConfig(16, 2)
    else:
        figure, config = model.box(3, 3, 3), GAConfig(4096, 20)
    problem = cubes_ga.ga_problem(figure, cubes, cubes_ga.Operators())
    problem.target = None  # a fixed number of generations: the same work on both backends
    result, state = GeneticAlgorithm(problem, backend, config, seed=1).run()
    arrays = state.arrays()
    digest = (float(arrays["fitness"].sum()), int(arrays["population"].sum()), int(arrays["rngs"][0]))
    return digest, {"evaluations": result.evaluations}


CASES = {"snake": case_snake, "polyomino-6x10": case_polyomino_6x10, "polyomino-6x10-warp": case_polyomino_6x10_warp,
         "polyomino-iq": case_polyomino_iq,
         "polyomino-iq-tree": case_polyomino_iq_tree,
         "polyomino-bedlam": case_polyomino_bedlam,
         "cubes": case_cubes, "sliding-korf100": case_sliding_korf100, "sliding-bfs": case_sliding_bfs,
         "hextris": case_hextris, "ga": case_ga}
RATES = {"hextris": "commands", "ga": "evaluations"}  # reported per second too


# -- the run ------------------------------------------------------------------------------------------------------

def device_description() -> dict:
    """The GPU's name and driver, or what stands in for it."""
    from puzzlebatch.runners.engine.backend import gpu_info, simulator_enabled

    if simulator_enabled():
        return {"name": "numba CUDA simulator (no GPU)", "driver": None, "compute_capability": None}
    g = gpu_info()
    if g is None:
        return {"name": "no GPU", "driver": None, "compute_capability": None}
    from numba.cuda.cudadrv.driver import driver

    v = driver.get_version()
    return {"name": g["name"], "driver": f"CUDA driver API {v[0]}.{v[1]}",
            "compute_capability": ".".join(map(str, g["compute_capability"]))}


def measure(case: str, backend, quick: bool, repeat: int) -> dict:
    from puzzlebatch import transfers

    fn = CASES[case]
    fn(backend, quick)  # compiles (or loads from the disk cache); not timed
    times, answer, work, traffic = [], None, {}, {}
    for _ in range(repeat):
        before = transfers.snapshot()
        t0 = time.perf_counter()
        answer, work = fn(backend, quick)
        times.append(time.perf_counter() - t0)
        traffic = transfers.since(before)
    row = {"backend": backend.name, "median_s": statistics.median(times), "min_s": min(times), "repeat": repeat,
           **work, **traffic}
    if case in RATES:
        row["per_second"] = work[RATES[case]] / row["median_s"]
    return {"answer": answer, "row": row}


def run(cases: list[str], quick: bool, repeat: int, cpu_repeat: int | None = None) -> dict:
    gpu, cpu = select_backend("cuda"), select_backend("cpu")
    import numba

    doc = {"device": device_description(), "quick": quick, "puzzlebatch": puzzlebatch.__version__,
           "python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
           "cpu": cpu.device, "cpu_threads": numba.get_num_threads(), "cases": {}}
    for case in cases:
        got = {b.name: measure(case, b, quick, repeat if b is gpu or cpu_repeat is None else cpu_repeat)
               for b in (gpu, cpu)}
        a, b = got[gpu.name], got["cpu"]
        agree = a["answer"] == b["answer"]
        doc["cases"][case] = {"agree": agree, "answer": b["answer"] if agree else None, "cuda": a["row"],
                              "cpu": b["row"], "ratio_cpu_over_cuda": b["row"]["median_s"] / a["row"]["median_s"]}
        print(json.dumps({"case": case, **doc["cases"][case]}, default=str), flush=True)
        if not agree:
            raise SystemExit(f"{case}: the answers differ: {gpu.name} {a['answer']!r}, cpu {b['answer']!r}")
    return doc


def table(doc: dict) -> str:
    d = doc["device"]
    lines = [f"Device: {d['name']}" + (f", {d['driver']}, compute capability {d['compute_capability']}"
                                        if d["driver"] else "") + f"; CPU: {doc['cpu']} ({doc['cpu_threads']} "
             f"threads); puzzlebatch {doc['puzzlebatch']}, Python {doc['python']}, numpy {doc['numpy']}, numba "
             f"{doc['numba']}" + ("; --quick sizes" if doc["quick"] else ""),
             "",
             "| case | cuda (median) | cpu (median) | cpu / cuda | cuda → device | device → host | launches | "
             "rate (cuda / cpu) |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for case, c in doc["cases"].items():
        g, p = c["cuda"], c["cpu"]
        rate = f"{g['per_second']:.3g} / {p['per_second']:.3g} per s" if "per_second" in g else ""
        lines.append(f"| {case} | {g['median_s']:.3f} s | {p['median_s']:.3f} s | {c['ratio_cpu_over_cuda']:.2f}× | "
                     f"{g['h2d_bytes']:,} B | {g['d2h_bytes']:,} B | {g['launches']} | {rate} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes (the test suite runs this in the simulator)")
    ap.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    ap.add_argument("--repeat", type=int, help="timed runs per case and backend (default 3, --quick 1)")
    ap.add_argument("--cpu-repeat", type=int, help="timed runs on the CPU (default: --repeat); the slow side of a "
                    "long case can be timed once")
    ap.add_argument("--out", type=Path, help="JSON results (default bench/gpu-results.json; --quick: none)")
    args = ap.parse_args(argv)
    from puzzlebatch.runners.engine.backend import simulator_enabled

    if not args.quick and simulator_enabled():
        ap.error("full sizes in the simulator would take days: add --quick, or run on a GPU without "
                 "NUMBA_ENABLE_CUDASIM")
    if simulator_enabled() and "PUZZLEBATCH_THREADS_PER_BLOCK" not in os.environ:
        # Every simulated thread is a Python thread: blocks of 128 made the quick snake case take minutes (461 s
        # on the 2-core machine), blocks of 8 under a second.  The answers do not depend on the block size.
        from puzzlebatch.config import launch

        launch.threads_per_block = 8
    doc = run(args.cases, args.quick, args.repeat or (1 if args.quick else 3), args.cpu_repeat)
    out = args.out or (None if args.quick else ROOT / "bench" / "gpu-results.json")
    if out is not None:
        out.write_text(json.dumps(doc, indent=2, default=str) + "\n")
    print()
    print(table(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
