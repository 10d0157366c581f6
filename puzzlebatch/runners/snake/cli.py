"""``puzzlebatch snake solve|count|generate``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from puzzlebatch import limits as L
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.runners.options import add_search_arguments, search_settings
from puzzlebatch.puzzles.snake.model import SOURCE_CHAIN, Box, Chain, check_fits, default_box, parse_box, \
    parse_chain
from puzzlebatch.runners.options import add_backend_argument
from puzzlebatch.errors import EXIT_NO_SOLUTION



def default_out(verb: str) -> Path:
    from puzzlebatch.outputs import default_result_file

    return default_result_file(f"snake-{verb}")


def _chain_and_box(args) -> tuple[Chain, Box]:
    chain = parse_chain(args.chain)
    box = parse_box(args.box) if args.box else default_box(chain)
    check_fits(chain, box)
    return chain, box


def _layers_text(cells: list[list[int]], box: Box) -> str:
    """The folding layer by layer: cube numbers (1-based) on each z layer, y growing downwards."""
    grid = np.zeros((box.c, box.b, box.a), dtype=int)
    for k, (x, y, z) in enumerate(cells):
        grid[z, y, x] = k + 1
    width = len(str(len(cells)))
    blocks = []
    for z in range(box.c):
        rows = [" ".join(f"{v:>{width}d}" for v in grid[z, y]) for y in range(box.b)]
        blocks.append([f"z={z}".ljust(len(rows[0]))] + rows)
    return "\n".join("   ".join(block[i] for block in blocks) for i in range(box.b + 1))


# -- solve -------------------------------------------------------------------------------------------------------
def run_solve(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.runners.snake import solver as snake
    from puzzlebatch.runners.engine.backend import select_backend

    chain, box = _chain_and_box(args)
    backend = select_backend(args.backend)
    from puzzlebatch.runners.engine.distributed import open_pool

    with open_pool(args.scheduler, args.backend, args.item_seconds) as pool:
        result = snake.solve(chain, box, backend, search_settings(args, backend), pool=pool)
    doc = result.to_json()
    doc["cells"] = result.cells or []  # (x, y, z) of cube 1..N; none when the chain does not fold
    doc["device"] = backend.device
    if args.png and result.solved:
        from puzzlebatch.results.pictures import draw_snake

        doc["picture"] = str(draw_snake(np.array(result.cells), box.dims, args.png,
                                        title=f"{chain.letters} in {box}"))
    if args.json:
        print_json(doc)
    elif result.solved:
        print(f"chain {chain.letters} ({chain.length} cubes) folds into {box}:")
        print(_layers_text(result.cells, box))
        print("cells of cube 1..N (x, y, z): " + " ".join(f"({x},{y},{z})" for x, y, z in result.cells))
        print(f"{result.nodes} nodes in {result.seconds:.3f} s on {backend.name} ({backend.device})")
        if "picture" in doc:
            print(f"picture: {doc['picture']}")
    else:
        print(f"chain {chain.letters} does not fold into {box} (searched {result.nodes} nodes on {backend.name})")
    return 0 if result.solved else EXIT_NO_SOLUTION  # not solved: the whole tree was searched


# -- count -------------------------------------------------------------------------------------------------------
def run_count(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.runners.snake import solver as snake
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.count_session import CountSession
    from puzzlebatch.runners.options import count_options

    chain, box = _chain_and_box(args)
    backend = select_backend(args.backend)
    settings = search_settings(args, backend)
    params = {"chain": chain.letters, "box": str(box), "budget": settings.budget,
              "batch_size": settings.batch_size, "frontier_target": settings.frontier_target, "all": args.all}
    session = CountSession(count_options(args), "snake", "count", params, backend, default_out("count"),
                           lambda p: p.get("chain") == chain.letters and p.get("box") == str(box)
                           and bool(p.get("all")) == args.all,
                           label=f"snake count {box}", describe=f"{chain.letters} in {box}", series="embeddings",
                           instances={"chain": np.array(chain.corners, dtype=np.int8),
                                      "box": np.array(box.dims, dtype=np.int64)})
    cell_dtype = np.int16 if box.volume < 2**15 else np.int32

    def store_rows(cells, weights):
        session.run.append_items(cells=cells.astype(cell_dtype), weight=weights.astype(np.int64))

    try:
        result, rest, totals = snake.count(chain, box, backend, settings, frontier=session.frontier,
                                           totals=session.totals, on_batch=session.on_batch,
                                           max_batches=args.max_batches, elapsed=session.elapsed,
                                           pool=session.pool, sink=store_rows if args.all else None)
    except KeyboardInterrupt:
        return session.interrupted(f"puzzlebatch snake count {chain.letters} --box {box}")
    doc = result.to_json() | {"device": backend.device}
    if getattr(args, "verify", False) and result.complete:
        from puzzlebatch.runners.engine import verify

        again = verify.second_split(settings)
        second = snake.count(chain, box, backend, again, pool=session.pool, symmetry=False)[0]
        doc["verified"] = verify.compare(f"snake count {chain.letters} --box {box}", result.to_json(),
                                         second.to_json(), ("embeddings", "distinct"),
                                         verify.describe(again, symmetry=False))
    doc |= session.finish(result.to_json(), result.complete, rest, totals, result.seconds)
    out = doc["out"]
    if args.json:
        print_json(doc)
    elif result.complete:
        print(f"chain {chain.letters} ({chain.length} cubes) in {box}: {result.embeddings} embeddings, "
              f"{result.distinct} distinct up to the box's {result.symmetries} symmetries")
        print(f"{result.nodes} nodes in {result.seconds:.3f} s on {backend.name} ({backend.device})")
        if "verified" in doc:
            print(verify_line(doc))
        print(f"results: {out} (run {doc['run_id']})")
    else:
        print(f"stopped after {totals.batches} batches with {len(rest)} work items left; "
              f"{result.embeddings} embeddings so far. Resume with --out {out} --resume")
    return 0


# -- generate ----------------------------------------------------------------------------------------------------
def run_generate(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.puzzles.snake.generate import random_chain

    box = parse_box(args.box)
    if box.volume < 2:
        raise PuzzleInputError(f"box {box}: needs at least 2 cells")
    chains = []
    for k in range(args.count):
        chain, path = random_chain(box, args.seed + k)
        chains.append({"seed": args.seed + k, "chain": chain.letters,
                       "segments": ",".join(map(str, chain.segments())), "path": path.tolist()})
    if args.json:
        print_json({"box": str(box), "chains": chains})
    else:
        for c in chains:
            print(c["chain"])
    return 0


def _common(p, backend=True) -> None:
    p.add_argument("chain", nargs="?", default=SOURCE_CHAIN,
                   help="letters F/J (one a cube) or segment lengths 3,2,2,...; default: the source document's "
                        "3x3x3 chain")
    p.add_argument("--box", help="AxBxC target box (default: the n x n x n cube of the chain's length)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    add_backend_argument(p)
    add_search_arguments(p)


def register(sub) -> None:
    from puzzlebatch.runners.options import add_count_arguments

    snake = sub.add_parser("snake", help="snake cubes: fold a chain of straight and corner cubes into a box")
    verbs = snake.add_subparsers(dest="verb", metavar="VERB", parser_class=type(snake))
    verbs.required = True

    p = verbs.add_parser("solve", help="the first folding of a chain (DFS order), or none")
    _common(p)
    p.add_argument("--png", "--svg", dest="png", metavar="FILE", help="draw the folding (.png or .svg)")
    from puzzlebatch.runners.options import add_scheduler_arguments as add_scheduler

    add_scheduler(p)
    p.set_defaults(func=run_solve, check=_chain_and_box)

    p = verbs.add_parser("count", help="count all embeddings and the distinct foldings; store in HDF5")
    _common(p)
    p.add_argument("--out", help="results file (default: results/snake-count-<time>.h5)")
    p.add_argument("--all", action="store_true",
                   help="also store every folding searched: item rows `cells` (cell of cube 1..N) and `weight` "
                        "(embeddings it stands for, with its symmetric images)")
    add_count_arguments(p)
    p.set_defaults(func=run_count, check=_chain_and_box)

    p = verbs.add_parser("generate", help="random chains that fold into a box (random Hamiltonian paths)")
    p.add_argument("--box", default="3x3x3", help="the box LxWxH the chain must fill")
    p.add_argument("--seed", type=L.seed, default=0, help="random seed (chain k uses seed + k)")
    p.add_argument("--count", type=L.positive_int, default=1, help="how many chains")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run_generate)


def verify_line(doc: dict) -> str:
    from puzzlebatch.runners.engine.verify import line

    return line(doc) or ""
