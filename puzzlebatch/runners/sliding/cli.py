"""``puzzlebatch sliding bfs|solve|replay`` (and ``pdb``, from :mod:`.pdb_cli`)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from puzzlebatch import limits as L
from puzzlebatch import transfers
from puzzlebatch.jit.clock import work_clock
from puzzlebatch.errors import EXIT_INTERRUPTED, EXIT_NO_SOLUTION, PuzzleInputError
from puzzlebatch.runners.options import say as _say
from puzzlebatch.runners.sliding.dist import SolveTask
from puzzlebatch.runners.sliding.pdb_cli import register_pdb
from puzzlebatch.transfers import transfers_of
from puzzlebatch.puzzles.sliding.model import GOALS, Board, goal_board, parse_board, parse_size, read_instances, \
    replay, solvability
from puzzlebatch.runners.options import add_backend_argument



def _check_board(args) -> None:
    """The cheap checks of ``sliding solve`` (``run --dry-run``): the board parses (the file is read when solving)
    and ``--png`` can be drawn."""
    _check_png(args)
    if args.tiles:
        parse_board(args.tiles, parse_size(args.size, "--size") if args.size else None, "TILES")


def _check_png(args) -> None:
    """``--png`` draws one board's solution path: refused with ``--file`` (never ignored) and for a suffix that
    cannot be drawn, before any search."""
    if not args.png:
        return
    if args.file:
        raise PuzzleInputError("--png: draws one board's solution; with --file the solutions go to --out")
    if Path(args.png).suffix.lower() not in (".png", ".svg"):
        raise PuzzleInputError(f"--png: cannot draw {args.png!r}: unsupported suffix "
                               f"{Path(args.png).suffix or '(none)'!r}, use .png or .svg")


def default_out(verb: str) -> Path:
    from puzzlebatch.outputs import default_result_file

    return default_result_file(f"sliding-{verb}")


# -- bfs ---------------------------------------------------------------------------------------------------------

def _open_bfs_run(args, rows, cols, backend):
    from puzzlebatch.results.store import ResultsStore

    out = Path(args.out) if args.out else default_out(f"bfs-{rows}x{cols}")
    if args.resume and not out.exists():
        raise PuzzleInputError(f"--resume: {out} does not exist; give the --out file of the interrupted run")
    store = ResultsStore(out, "a")
    params = {"size": f"{rows}x{cols}", "goal": args.goal}
    if args.resume:
        run = store.latest_run("sliding", "bfs", unfinished=True, where=lambda a: a["params"] == params)
        if run is not None:
            return store, run, out
        store.close()
        raise PuzzleInputError(f"--resume: {out} has no unfinished bfs of {rows}x{cols} ({args.goal})")
    run = store.create_run("sliding", "bfs", backend=backend.name, device=backend.device, seed=None, params=params)
    return store, run, out


def _check_bfs(args) -> tuple[int, int]:
    """The cheap checks of ``sliding bfs`` (also ``run --dry-run``): the size, and a space small enough."""
    from puzzlebatch.runners.sliding import solver as sliding

    rows, cols = parse_size(args.size, "bfs size")
    if rows * cols > sliding.BFS_MAX_CELLS:
        sliding.bfs_start(rows, cols, args.goal)  # raises the one-line error
    return rows, cols


def run_bfs(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.runners.sliding import solver as sliding
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.progress import bar

    rows, cols = _check_bfs(args)
    backend = select_backend(args.backend)
    store, run, out = _open_bfs_run(args, rows, cols, backend)
    state = None
    if args.resume:
        ck = run.load_checkpoint()
        if ck is not None:
            arrays, meta = ck
            state = sliding.BFSState(rows, cols, args.goal, arrays["packed"], arrays["frontier"],
                                     [int(v) for v in arrays["depth_counts"]], float(meta["seconds"]))
    if state is None:
        state = sliding.bfs_start(rows, cols, args.goal)
    total = int(np.prod(np.arange(1, rows * cols + 1, dtype=np.float64)) // 2)
    progress = bar(f"sliding bfs {rows}x{cols}", unit="state", total=total)
    progress.update(sum(state.depth_counts))
    last_ck = [time.perf_counter()]

    def on_layer(st) -> None:
        progress.update(st.depth_counts[-1])
        progress.set_postfix(depth=st.depth, layer=st.depth_counts[-1])
        run.append_series("layer_states", st.depth, st.depth_counts[-1])
        if time.perf_counter() - last_ck[0] >= args.checkpoint_every:
            run.save_checkpoint(st.checkpoint_arrays(), {"seconds": st.seconds})
            last_ck[0] = time.perf_counter()

    try:
        state = sliding.bfs_run(state, backend, on_layer=on_layer, max_layers=args.max_layers)
    except KeyboardInterrupt:
        progress.close()
        run.finish("interrupted", seconds=state.seconds)
        store.close()
        _say(f"interrupted; resume with: puzzlebatch sliding bfs {rows}x{cols} --goal {args.goal} --out {out} "
             f"--resume")
        return EXIT_INTERRUPTED
    progress.close()
    complete = sliding.bfs_done(state)
    result = sliding.bfs_result(state, backend)
    doc = result.to_json() | {"complete": complete, "device": backend.device, "out": str(out), "run_id": run.id}
    if complete:
        run.set_table("distances", state.packed, {
            "encoding": ("4 bits a state: (depth mod 15), 0xF unreached; rank r in the low nibble of byte "
                         "r>>1 when r is even, the high nibble when odd"),
            "rank": "blank cell * (n-1)!/2 + (lexicographic rank of the tiles in row order, blank left out) // 2",
            "rows": rows, "cols": cols, "goal": args.goal})
        run.drop_checkpoint()  # the finished table replaces it (h5repack reclaims the file space)
        run.set_result(result.to_json())
        run.finish("done", seconds=state.seconds)
    else:
        run.save_checkpoint(state.checkpoint_arrays(), {"seconds": state.seconds})
        run.finish("interrupted", seconds=state.seconds)
    store.close()
    if args.json:
        print_json(doc)
    elif complete:
        print(f"{rows}x{cols} ({args.goal}): {result.states:,} states, maximum distance {result.max_depth} "
              f"({result.hardest_count} states), mean {result.mean_depth:.2f}")
        print("states per depth: " + " ".join(map(str, result.depth_counts)))
        print("hardest: " + " | ".join(result.hardest[:5]) + (" ..." if result.hardest_count > 5 else ""))
        print(f"{result.seconds:.2f} s on {backend.name} ({backend.device}); table {result.table_bytes:,} bytes")
        print(f"results: {out} (run {run.id})")
    else:
        print(f"stopped at depth {state.depth}; resume with --out {out} --resume")
    return 0


# -- solve -------------------------------------------------------------------------------------------------------

def _heuristic(args, rows, cols) -> str:
    if args.heuristic != "auto":
        return args.heuristic
    from puzzlebatch.runners.sliding.pdb import PARTITIONS

    return "pdb" if (rows, cols) in PARTITIONS and rows * cols >= 16 else "linear-conflict"


def _pdbs(args, rows, cols, heuristic, backend):
    if heuristic != "pdb":
        return None
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    folder = sliding_pdb.cache_dir(args.cache_dir)
    sliding_pdb.partition(rows, cols, args.partition)  # one-line error for an unknown partition
    return sliding_pdb.ensure(rows, cols, args.partition, backend, folder, say=_say)


def _result_text(r) -> str:
    if not r.solvable:
        return f"{r.board}: {r.explanation}"
    return (f"{r.board}: {r.length} moves (optimal): {' '.join(map(str, r.moves))}\n"
            f"  blank: {r.directions or '-'}; {r.nodes:,} nodes, {r.seconds:.3f} s, {r.heuristic}, {r.backend}")


def _solve_json(r) -> dict:
    """A board's answer in the JSON contract: ``solved``, ``moves`` (the tiles moved; empty when unsolvable) and
    ``length`` (their number)."""
    moves = list(r.moves or [])
    return r.to_json() | {"solved": bool(r.solvable), "moves": moves, "length": len(moves),
                           "directions": r.directions or ""}


def _check_max_len(args) -> None:
    if args.max_len < 1:
        raise PuzzleInputError(f"--max-len {args.max_len}: must be at least 1")
    if args.backend != "cuda":
        return
    from puzzlebatch.gpu_kernels.sliding import MAX_LEN as CUDA_MAX_LEN  # imports numba.cuda: only when asked

    if args.max_len > CUDA_MAX_LEN:
        raise PuzzleInputError(f"--max-len {args.max_len}: the CUDA backend handles at most {CUDA_MAX_LEN} moves")


def run_solve(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.runners.sliding import solver as sliding
    from puzzlebatch.runners.engine.backend import select_backend

    _check_max_len(args)
    size = parse_size(args.size, "--size") if args.size else None
    if args.file and args.tiles:
        raise PuzzleInputError("solve: give TILES or --file, not both")
    if not args.file and not args.tiles:
        raise PuzzleInputError("solve: give TILES (e.g. \"8 6 7 2 5 4 3 0 1\") or --file INSTANCES.txt")
    _check_png(args)  # before a long search
    if args.file:
        return _solve_file(args, size)
    board = parse_board(args.tiles, size, "TILES")
    backend = select_backend(args.backend)
    heuristic = _heuristic(args, board.rows, board.cols)
    ok, _ = solvability(board, goal_board(board.rows, board.cols, args.goal))
    pdbs = _pdbs(args, board.rows, board.cols, heuristic, backend) if ok else None
    kernels = sliding.drivers(backend)
    r = sliding.solve(board, args.goal, heuristic, backend, pdbs=pdbs, max_len=args.max_len, kernels=kernels)
    doc = _solve_json(r) | {"device": backend.device} | transfers_of(kernels)
    if pdbs is not None:
        doc["partition"] = pdbs.name
    if args.out:  # one board, stored as a run of one item (rows as `--file` stores them)
        doc |= _store_one(args, board, r, heuristic, pdbs, backend, doc)
    if args.png and r.solvable:
        from puzzlebatch.results.sliding_pictures import draw_path

        boards = replay(board, r.moves)
        doc["picture"] = str(draw_path(boards, args.png, goal=args.goal, moves=r.moves,
                                       title=f"{board.rows}x{board.cols}: {r.length} moves (optimal)"))
    if args.json:
        print_json(doc)
    else:
        print(board.pretty())
        print(_result_text(r))
        if "picture" in doc:
            print(f"picture: {doc['picture']}")
        if "out" in doc:
            print(f"stored: {doc['out']} (run {doc['run_id']})")
    return 0 if r.solvable else EXIT_NO_SOLUTION  # unsolvable: the parity argument proves it


def _store_one(args, board, r, heuristic, pdbs, backend, doc) -> dict:
    """Store one board's optimal solution in ``--out``: a ``sliding solve`` run with the board as its instance
    and one item row (``length`` -1 when unsolvable, ``nodes``, ``seconds``, ``moves``)."""
    from puzzlebatch.results.store import ResultsStore

    params = {"board": board.text(), "size": f"{board.rows}x{board.cols}", "goal": args.goal, "heuristic": heuristic,
              "partition": pdbs.name if pdbs else None, "max_len": args.max_len}
    with ResultsStore(args.out, "a") as store:
        run = store.create_run("sliding", "solve", backend=backend.name, device=backend.device, seed=None,
                               params=params, instances={"boards": np.array([board.tiles], np.int8)})
        run.append_items(length=np.array([r.length if r.solvable else -1], np.int64),
                         nodes=np.array([r.nodes], np.int64), seconds=np.array([r.seconds], np.float64),
                         moves=np.array([" ".join(map(str, r.moves or []))], dtype=object))
        run.set_result({k: doc[k] for k in ("solved", "length", "nodes", "seconds") if k in doc})
        run.finish("done", seconds=r.seconds)
        return {"out": str(args.out), "run_id": run.id}


def _solve_file(args, size) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.results.store import ResultsStore
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.progress import bar

    if args.batch is not None and args.batch < 1:
        raise PuzzleInputError(f"--batch {args.batch}: must be at least 1")
    instances = read_instances(args.file, size)
    shapes = {(b.rows, b.cols) for b, _ in instances}
    if len(shapes) != 1:
        raise PuzzleInputError(f"{args.file}: boards of several sizes ({', '.join(f'{r}x{c}' for r, c in shapes)})")
    rows, cols = shapes.pop()
    backend = select_backend(args.backend)
    heuristic = _heuristic(args, rows, cols)
    pdbs = _pdbs(args, rows, cols, heuristic, backend)
    out = Path(args.out) if args.out else default_out("solve")
    from puzzlebatch.runners.engine.distributed import job_sizes, map_ordered, open_pool

    pool = open_pool(args.scheduler, args.backend, args.item_seconds)
    store = ResultsStore(out, "a")
    import hashlib

    boards_digest = hashlib.sha256(np.array([b.tiles for b, _ in instances], np.int8).tobytes()).hexdigest()
    params = {"file": str(args.file), "goal": args.goal, "heuristic": heuristic,
              "partition": pdbs.name if pdbs else None, "max_len": args.max_len, "boards_sha256": boards_digest}
    run = None
    done_rows: dict = {}
    if args.resume:
        run = store.latest_run("sliding", "solve", unfinished=True, where=lambda a: a["params"] == params)
        if run is not None:
            done_rows = run.items()
        if run is None:
            store.close()
            pool.close()
            raise PuzzleInputError(f"--resume: {out} has no unfinished solve of {args.file}")
    else:
        run = store.create_run("sliding", "solve", backend=backend.name, device=backend.device, seed=None,
                               params=params, instances={"boards": np.array([b.tiles for b, _ in instances], np.int8)})
    start = int(run.n_committed)
    batch = job_sizes(len(instances) - start, pool, args.batch)
    progress = bar(f"sliding solve {rows}x{cols}", unit="instance", total=len(instances))
    progress.update(start)
    results = []
    if start:  # rebuild the committed results from the store
        for j in range(start):
            results.append(_from_row(done_rows, j, instances[j][0], args.goal, heuristic, backend.name))
    t0 = work_clock()
    traffic = transfers.zero()
    try:
        chunks = [instances[lo:lo + batch] for lo in range(start, len(instances), batch)]
        task = SolveTask(args.goal, heuristic, args.backend if pool.distributed else backend.name,
                         args.partition, str(sliding_pdb_dir(args)) if pdbs else None, args.max_len, rows, cols)
        for chunk, done in zip(chunks, map_ordered(pool, task, [[b.tiles for b, _ in c] for c in chunks])):
            rs = done["results"]
            traffic = transfers.add(traffic, done["transfers"])
            pool.work.add(done["worker"], len(rs), sum(r.nodes for r in rs), done["seconds"], done["backend"])
            for r, (b, known) in zip(rs, chunk):
                if known is not None and r.solvable and r.length != known:
                    raise AssertionError(f"{b.text()}: found {r.length} moves, the file says {known}")
            run.append_items(length=np.array([r.length if r.solvable else -1 for r in rs], np.int64),
                             nodes=np.array([r.nodes for r in rs], np.int64),
                             seconds=np.array([r.seconds for r in rs], np.float64),
                             moves=np.array([" ".join(map(str, r.moves or [])) for r in rs], dtype=object))
            results.extend(rs)
            progress.update(len(rs))
    except KeyboardInterrupt:
        progress.close()
        run.finish("interrupted", seconds=work_clock() - t0)
        store.close()
        pool.close()
        _say(f"interrupted; resume with the same command and --out {out} --resume")
        return EXIT_INTERRUPTED
    progress.close()
    pool.close()
    total_s = work_clock() - t0
    summary = {"instances": len(results), "solved": sum(r.solvable for r in results),
               "nodes": sum(r.nodes for r in results), "seconds": total_s,
               "load_seconds": pdbs.load_seconds if pdbs else 0.0, "work": pool.work.to_json(), **traffic}
    run.set_result(summary)
    run.finish("done", seconds=total_s)
    store.close()
    if pool.distributed:
        _say("\n".join(pool.work.lines()))
    if args.json:
        print_json({"instances": summary["instances"], "solved_count": summary["solved"], "nodes": summary["nodes"],
                    "seconds": total_s, "backend": backend.name, "device": backend.device, "out": str(out),
                    "run_id": run.id, "results": [_solve_json(r) for r in results], **traffic})
    else:
        for r in results:
            print(_result_text(r))
        print(f"{summary['solved']}/{summary['instances']} solved optimally, {summary['nodes']:,} nodes, "
              f"{total_s:.2f} s on {backend.name} ({backend.device}); results: {out} (run {run.id})")
        print(f"transfers: {traffic['h2d_bytes']:,} bytes to the device, {traffic['d2h_bytes']:,} back, "
              f"{traffic['launches']} launches")
    return 0


def sliding_pdb_dir(args) -> Path:
    from puzzlebatch.runners.sliding import pdb as sliding_pdb

    return sliding_pdb.cache_dir(args.cache_dir)


def _from_row(rows: dict, j: int, board: Board, goal: str, heuristic: str, backend: str):
    from puzzlebatch.runners.sliding.solver import SolveResult

    length = int(rows["length"][j])
    moves_text = rows["moves"][j]
    moves_text = moves_text.decode() if isinstance(moves_text, bytes) else str(moves_text)
    if length < 0:
        _, why = solvability(board, goal_board(board.rows, board.cols, goal))
        return SolveResult(board.text(), f"{board.rows}x{board.cols}", goal, False, why, None, None, None, 0, 0,
                           None, 0.0, heuristic, backend)
    moves = [int(t) for t in moves_text.split()]
    walk = replay(board, moves)
    dirs = "".join("UDLR"[[(-board.cols), board.cols, -1, 1].index(b.blank - a.blank)] for a, b in zip(walk, walk[1:]))
    return SolveResult(board.text(), f"{board.rows}x{board.cols}", goal, True, "solvable (from the store)", length,
                       moves, dirs, int(rows["nodes"][j]), 0, None, float(rows["seconds"][j]), heuristic, backend)


# -- replay ------------------------------------------------------------------------------------------------------

def run_replay(args) -> int:
    from puzzlebatch.runners.options import print_json

    size = parse_size(args.size, "--size") if args.size else None
    board = parse_board(args.tiles, size, "TILES")
    toks = args.moves.replace(",", " ").split()
    if len(toks) == 1 and not toks[0].isdigit():
        toks = list(toks[0])  # "UDLR..." written together
    moves = []
    for k, tok in enumerate(toks, 1):
        if tok.upper() in ("U", "D", "L", "R"):
            moves.append(tok.upper())
        elif tok.isdigit():
            moves.append(int(tok))
        else:
            raise PuzzleInputError(f"MOVES: move {k} {tok!r} is neither a tile number nor U/D/L/R")
    try:
        walk = replay(board, moves)
    except PuzzleInputError as exc:
        done = len(moves)
        for k in range(len(moves)):  # find the first illegal move for the message
            try:
                replay(board, moves[:k + 1])
            except PuzzleInputError:
                done = k
                break
        raise PuzzleInputError(f"MOVES: move {done + 1}: {exc}") from None
    end = walk[-1]
    solved = end == goal_board(board.rows, board.cols, args.goal)
    if args.json:  # the moves as tile numbers (as `solve` prints them) and as the blank's U/D/L/R
        tiles = [a.tiles[b.blank] for a, b in zip(walk, walk[1:])]
        dirs = "".join("UDLR"[[-board.cols, board.cols, -1, 1].index(b.blank - a.blank)]
                       for a, b in zip(walk, walk[1:]))
        print_json({"board": end.text(), "size": f"{board.rows}x{board.cols}", "goal": args.goal, "solved": solved,
                    "moves": tiles, "length": len(tiles), "directions": dirs})
    else:
        print(end.pretty())
        print(f"{len(moves)} moves; {'solved' if solved else 'not the goal'} ({args.goal})")
    return 0


def _goal(p) -> None:
    p.add_argument("--goal", choices=GOALS, default="blank-last",
                   help="blank-last: 1..n-1 then the blank (default, the source document's); blank-first: Korf's")


def register(sub) -> None:
    sl = sub.add_parser("sliding", help="sliding puzzles (8/15/24-puzzle): BFS, IDA*, pattern databases")
    verbs = sl.add_subparsers(dest="verb", metavar="VERB", parser_class=type(sl))
    verbs.required = True

    p = verbs.add_parser("bfs", help="breadth-first search of a whole state space (up to 12 cells)")
    p.add_argument("size", help="RxC board, e.g. 3x3 or 3x4")
    _goal(p)
    add_backend_argument(p)
    p.add_argument("--out", help="results file (default: results/sliding-bfs-RxC-<time>.h5)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--resume", action="store_true", help="continue the unfinished bfs in --out")
    p.add_argument("--checkpoint-every", type=L.non_negative_seconds, default=60.0, metavar="SECONDS",
                   help="save the search this often")
    p.add_argument("--max-layers", type=L.positive_int, help="stop after this many layers (resume later)")
    p.set_defaults(func=run_bfs, check=_check_bfs)

    p = verbs.add_parser("solve", help="optimal solutions by IDA*: one board, or a file of instances")
    p.add_argument("tiles", nargs="?", help="tiles in row order, 0 the blank, e.g. \"8 6 7 2 5 4 3 0 1\"")
    p.add_argument("--file", help="instances, one a line (optionally the optimal length last)")
    p.add_argument("--size", help="RxC when the tiles do not make a square")
    _goal(p)
    p.add_argument("--heuristic", choices=["auto", "manhattan", "linear-conflict", "pdb"], default="auto",
                   help="auto: pattern databases for 4x4 and 5x5, linear conflicts otherwise")
    p.add_argument("--partition", help="pattern-database partition, e.g. 6-6-3, 5-5-5, 7-8 (4x4), 6-6-6-6 (5x5)")
    p.add_argument("--cache-dir", help="where pattern databases are kept (default $PUZZLEBATCH_CACHE or "
                                       "~/.cache/puzzlebatch)")
    add_backend_argument(p)
    p.add_argument("--max-len", type=L.positive_int, default=250, help="give up beyond this many moves (default 250)")
    p.add_argument("--batch", type=L.positive_int, help="instances per launch with --file (default: all at once)")
    p.add_argument("--out", metavar="FILE.h5", help="results file: the board's solution, or with --file every "
                   "instance's (default with --file: results/sliding-solve-<time>.h5; one board: not stored)")
    p.add_argument("--resume", action="store_true", help="with --file: continue the unfinished run in --out")
    from puzzlebatch.runners.options import add_scheduler_arguments as add_scheduler

    add_scheduler(p)
    p.add_argument("--png", "--svg", dest="png", metavar="FILE", help="draw the board's solution path (.png or .svg; not with --file)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run_solve, check=_check_board)

    register_pdb(verbs, type(sl))

    p = verbs.add_parser("replay", help="check a move sequence (tile numbers or U/D/L/R of the blank)")
    p.add_argument("tiles", help="the start board, tiles in row order, 0 for the blank")
    p.add_argument("moves", help="e.g. \"5 6 7 4\" or UDLR")
    p.add_argument("--size", help="RxC when the tile count does not say it (default: the square it makes)")
    _goal(p)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run_replay)
