"""``puzzlebatch snake solve|count|generate``."""

from __future__ import annotations



from puzzlebatch import limits as L
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.cli.options import add_search_arguments
from puzzlebatch.puzzles.snake.model import SOURCE_CHAIN, Box, Chain, check_fits, default_box, parse_box, \
    parse_chain
from puzzlebatch.cli.options import add_backend_argument
from puzzlebatch.errors import EXIT_NO_SOLUTION



def _chain_and_box(args) -> tuple[Chain, Box]:
    chain = parse_chain(args.chain)
    box = parse_box(args.box) if args.box else default_box(chain)
    check_fits(chain, box)
    return chain, box


# -- solve -------------------------------------------------------------------------------------------------------
def run_solve(args) -> int:
    from puzzlebatch.api import snake
    from puzzlebatch.cli.options import print_json, run_options

    result = snake.solve(args.chain, args.box, backend=args.backend, png=args.png,
                         settings=_settings(args), options=run_options(args))
    doc = result.to_dict()
    doc["cells"] = doc["cells"] or []  # (x, y, z) of cube 1..N; none when the chain does not fold
    if args.json:
        print_json({k: v for k, v in doc.items() if v is not None or k in ("cells",)})
    elif result.solved:
        chain, box = snake.problem_of(args.chain, args.box)
        print(f"chain {chain.letters} ({chain.length} cubes) folds into {box}:")
        from puzzlebatch.runners.snake.records import layers_text

        print(layers_text(result.cells, box))
        print("cells of cube 1..N (x, y, z): " + " ".join(f"({x},{y},{z})" for x, y, z in result.cells))
        print(f"{result.nodes} nodes in {result.seconds:.3f} s on {result.backend} ({result.device})")
        if result.picture:
            print(f"picture: {result.picture}")
        if result.out:
            print(f"results: {result.out} (run {result.run_id})")
    else:
        print(f"chain {result.chain} does not fold into {result.box} (searched {result.nodes} nodes on "
              f"{result.backend})")
    return 0 if result.solved else EXIT_NO_SOLUTION  # not solved: the whole tree was searched


def _settings(args):
    from puzzlebatch.api.common import backend_of, settings_of

    return settings_of(backend_of(args.backend), budget=args.budget, batch_size=args.batch_size,
                       frontier=args.frontier)


# -- count -------------------------------------------------------------------------------------------------------
def run_count(args) -> int:
    from puzzlebatch.api import snake
    from puzzlebatch.cli.options import print_json, run_options

    r = snake.count(args.chain, args.box, backend=args.backend, all=args.all, verify=args.verify,
                    settings=_settings(args), options=run_options(args))
    doc = {k: v for k, v in r.to_dict().items() if v is not None or k in ("out", "run_id")}
    if args.json:
        print_json(doc)
    elif r.complete:
        print(f"chain {r.chain} ({len(r.chain)} cubes) in {r.box}: {r.embeddings} embeddings, "
              f"{r.distinct} distinct up to the box's {r.symmetries} symmetries")
        print(f"{r.nodes} nodes in {r.seconds:.3f} s on {r.backend} ({r.device})")
        if r.verified:
            print(verify_line(doc))
        print(f"results: {r.out} (run {r.run_id})")
    else:
        print(f"stopped with work left; {r.embeddings} embeddings so far. Resume with --out {r.out} --resume")
    return 0


# -- generate ----------------------------------------------------------------------------------------------------
def run_generate(args) -> int:
    from puzzlebatch.cli.options import print_json
    from puzzlebatch.puzzles.snake.generate import random_chain

    box = parse_box(args.box)
    if box.volume < 2:
        raise PuzzleInputError(f"box {box}: needs at least 2 cells")
    L.GENERATED_CELLS.check(box.volume, f"--box {box}: drawing a random chain")
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


def register(verbs) -> None:
    """Add the ``snake`` verbs to the family's sub-parsers (the registry's ``commands`` hook)."""
    from puzzlebatch.cli.options import add_count_arguments

    p = verbs.add_parser("solve", help="the first folding of a chain (DFS order), or none")
    _common(p)
    p.add_argument("--png", "--svg", dest="png", metavar="FILE", help="draw the folding (.png or .svg)")
    p.add_argument("--out", help="also record the run and its folding in this results file (.h5)")
    from puzzlebatch.cli.options import add_scheduler_arguments as add_scheduler

    add_scheduler(p)
    p.set_defaults(func=run_solve, check=_chain_and_box)

    p = verbs.add_parser("count", help="count all embeddings and the distinct foldings; store in HDF5")
    _common(p)
    p.add_argument("--out", help="results file (default: results/snake.h5, one run a group)")
    p.add_argument("--all", action="store_true",
                   help="also store every folding searched: item rows `cells` (cell of cube 1..N) and `weight` "
                        "(embeddings it stands for, with its symmetric images)")
    add_count_arguments(p)
    p.set_defaults(func=run_count, check=_chain_and_box)

    p = verbs.add_parser("generate", help="random chains that fold into a box (random Hamiltonian paths)")
    p.add_argument("--box", default="3x3x3", help="the box LxWxH the chain must fill")
    p.add_argument("--seed", type=L.seed, default=0, help="random seed (chain k uses seed + k)")
    p.add_argument("--count", type=L.instances, default=1, help="how many chains")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run_generate)


def verify_line(doc: dict) -> str:
    from puzzlebatch.runners.engine.verify import line

    return line(doc) or ""


def warmup_tasks(b: list[str], tmp) -> list[tuple[str, list[str]]]:
    """(what, argv) of the tiny commands (argv after the family's name) that compile everything this family uses
    (``puzzlebatch warmup``); ``b`` is the backend option, ``tmp`` a scratch folder."""
    out = str(tmp / "warmup.h5")
    return [("solve", ["solve", *b, "--json"]),
            ("count", ["count", "--box", "3x3x3", *b, "--out", out, "--json"]),
            ("count --all", ["count", "3,2,3,2,3", "--box", "3x3x1", "--all", *b, "--out", out,
                             "--json"])]
