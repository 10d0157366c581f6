"""Child process of tests/test_compile_isolation.py and tests/test_family_sequence.py: run small jobs of several
families one after another in this process and print their answers as JSON.

``--same-uids`` makes numba give every function of the package the same counter value in every process (numba's
symbol names end in a per-process counter): two processes compiling two families then produce the symbols that,
without a name of the unit's own in each symbol, collide when a third process loads both from the disk cache.
"""

from __future__ import annotations

import json
import sys
import zlib


def same_uids() -> None:
    from numba.core import bytecode

    original = bytecode.FunctionIdentity.from_function.__func__

    def from_function(cls, pyfunc):
        fid = original(cls, pyfunc)
        if fid.modname.startswith("puzzlebatch"):
            base = pyfunc.__qualname__.rsplit(".", 1)[-1]
            fid.unique_id = 1_000_000 + zlib.crc32(base.encode()) % 1000
            fid.unique_name = f"{fid.func_qualname}${fid.unique_id}"
        return fid

    bytecode.FunctionIdentity.from_function = classmethod(from_function)


def _tiny(backend):
    """Tiny search settings on the simulator (every simulated thread is a Python thread), the defaults elsewhere."""
    from puzzlebatch.runners.engine.search import SearchSettings

    return SearchSettings(budget=64, batch_size=16, frontier_target=8, first_batch_size=4) \
        if backend.name == "cudasim" else None


def snake(backend):
    from puzzlebatch.puzzles.snake.generate import random_chain
    from puzzlebatch.puzzles.snake.model import Box, parse_chain
    from puzzlebatch.runners.snake import solver

    if backend.name == "cudasim":
        chain, box = parse_chain("FJJJJJJF"), Box(2, 2, 2)
    else:
        box = Box(2, 2, 4)
        chain = random_chain(box, 1)[0]
    r = solver.count(chain, box, backend, _tiny(backend))[0]
    return [r.embeddings, r.distinct]


def cubes(backend):
    from puzzlebatch.puzzles.cubes import model
    from puzzlebatch.runners.cubes import solver

    c = model.load_cubes()
    figure, subset = (model.box(2, 1, 1), c.numbers[:4]) if backend.name == "cudasim" else \
        (model.box(3, 1, 1), c.numbers[:6])
    r = solver.count(figure, c.subset(subset), backend, _tiny(backend))[0]
    return [r.assemblies, r.distinct]


def polyomino(backend):
    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.puzzles.polyomino import shapes as S
    from puzzlebatch.runners.polyomino import solver

    board, pieces = ("4x3", "trominoes") if backend.name == "cudasim" else ("5x4", "tetrominoes")
    r = solver.count_packing(P.build(P.parse_board(board), S.load_pieces(pieces, unlimited=True)), backend,
                             settings=_tiny(backend))
    return [r.solutions, r.distinct]


def sliding(backend):
    from puzzlebatch.runners.sliding import solver

    r, _ = solver.bfs(2, 3, "blank-last", backend)
    return list(map(int, r.depth_counts))


def hextris(backend):
    import json as _json

    from puzzlebatch.puzzles.hextris import model
    from puzzlebatch.puzzles.hextris.encode import encode_commands
    from puzzlebatch.runners.hextris.playouts import Playouts, parse_solutions

    ref = _json.loads((model.DATA_DIR / "reference_scores.json").read_text())
    entries = [dict(e, solution=e["solution"][:12]) for e in parse_solutions(ref, "reference")[:3]]
    ids = sorted({e["problemId"] for e in entries})
    sim = Playouts([model.official_problem(p) for p in ids], backend)
    codes, offsets = encode_commands([e["solution"] for e in entries])
    games = sim.new_games([e["seed"] for e in entries], [ids.index(e["problemId"]) for e in entries])
    sim.run_commands(games, (codes, offsets))
    return [int(v) for v in games.move_scores]


def ga(backend):
    from puzzlebatch.puzzles.cubes import model
    from puzzlebatch.runners.cubes import ga as cubes_ga
    from puzzlebatch.runners.engine.ga import GAConfig, GeneticAlgorithm

    c = model.load_cubes()
    problem = cubes_ga.ga_problem(model.box(2, 2, 1), c.subset(c.numbers[:8]), cubes_ga.Operators())
    problem.target = None  # a fixed number of generations
    _, state = GeneticAlgorithm(problem, backend, GAConfig(16, 2), seed=1).run()
    a = state.arrays()
    return [float(a["fitness"].sum()), int(a["population"].sum()), int(a["rngs"][0])]


FAMILIES = {"snake": snake, "cubes": cubes, "polyomino": polyomino, "sliding": sliding, "hextris": hextris,
            "ga": ga}


def every_ordered_pair(names: list[str]) -> list[str]:
    """A sequence of the names in which every ordered pair of two different names stands side by side once (an
    Eulerian circuit of the complete directed graph, Hierholzer's algorithm): n(n-1) + 1 runs."""
    out_edges = {a: [b for b in names if b != a] for a in names}
    stack, circuit = [names[0]], []
    while stack:
        v = stack[-1]
        if out_edges[v]:
            stack.append(out_edges[v].pop(0))
        else:
            circuit.append(stack.pop())
    return circuit[::-1]


def main(argv: list[str]) -> None:
    """``[--same-uids] [--backends cpu,cuda] [--sequence] FAMILY ...``: the answers of the families run in this order
    (each on every backend named, in that order), as JSON: ``{"family/backend": answer}``, or with ``--sequence``
    ``[["family/backend", answer], ...]`` (a family may come back)."""
    if argv and argv[0] == "--same-uids":
        same_uids()
        argv = argv[1:]
    names = ["cpu"]
    if argv[:1] == ["--backends"]:
        names, argv = argv[1].split(","), argv[2:]
    from puzzlebatch.runners.engine.backend import select_backend

    backends = [select_backend(n) for n in names]
    sequence = argv[:1] == ["--sequence"]
    runs = [[f"{f}/{b.name}", FAMILIES[f](b)] for f in argv[sequence:] for b in backends]
    print(json.dumps(runs if sequence else dict(runs)))


if __name__ == "__main__":
    main(sys.argv[1:])
