"""``puzzlebatch hextris score|show|play``: the ICFP 2015 game on the command line."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from puzzlebatch import limits as L
from puzzlebatch.jit.clock import work_clock
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.runners.hextris.problems import resolve_problems
from puzzlebatch.puzzles.hextris.model import (END_NAMES, IN_PROGRESS, Game, Problem, decode, load_json,
                                               load_phrases, power_score)
from puzzlebatch.errors import EXIT_INTERRUPTED
from puzzlebatch.runners.options import add_backend_argument


# -- score ---------------------------------------------------------------------------------------------------------
def run_score(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.hextris.playouts import parse_solutions, score_solutions

    problems = {p.id: p for p in resolve_problems(args.problems)}
    entries = parse_solutions(load_json(args.solutions, "solutions"), args.solutions)
    phrases = load_phrases(args.phrases)
    backend = select_backend(args.backend)
    run = score_solutions(problems, entries, phrases, backend)
    if args.json:
        print_json({"backend": run.backend, "device": backend.device, "seconds": run.seconds,
                    "commands": run.commands, "scores": [s.to_json() for s in run.scores],
                    "total": sum(s.total for s in run.scores)})
        return 0
    print(f"{'problem':>7} {'seed':>6} {'move':>7} {'power':>6} {'total':>7}  end{'':21} tag")
    for s in run.scores:
        print(f"{s.problemId:>7} {s.seed:>6} {s.move_score:>7} {s.power_score:>6} {s.total:>7}  {s.end:<24} "
              f"{s.tag or ''}")
    total = sum(s.total for s in run.scores)
    print(f"{len(run.scores)} solutions, {run.commands} commands, total {total}; {run.seconds:.3f} s on "
          f"{run.backend} ({backend.device})")
    return 0


# -- show ----------------------------------------------------------------------------------------------------------
def _solution_text(path: str, problem: Problem, seed: int) -> str:
    """A solution file: an official solutions JSON (the entry for this problem and seed) or raw command text."""
    from puzzlebatch.outputs import read_text

    text = read_text(path, "--solution")
    if text.lstrip().startswith(("[", "{")):
        from puzzlebatch.runners.hextris.playouts import parse_solutions

        entries = parse_solutions(load_json(path, "solutions"), path)
        for e in entries:
            if e["problemId"] == problem.id and e["seed"] == seed:
                return e["solution"]
        raise PuzzleInputError(f"{path}: no solution for problem {problem.id} seed {seed}")
    return text.rstrip("\n")


def run_show(args) -> int:
    from puzzlebatch.runners.options import print_json
    from puzzlebatch.results.hextris_pictures import Frame, draw_animation, draw_board, render_text

    [problem] = resolve_problems([args.problem])
    seed = problem.source_seeds[0] if args.seed is None else args.seed
    if args.seed is not None and seed not in problem.source_seeds:
        raise PuzzleInputError(f"--seed {seed}: not a seed of problem {problem.id} "
                               f"({', '.join(map(str, problem.source_seeds))})")
    game = Game(problem, seed)
    frames = [Frame(set(game.filled), game.members, game.pivot, f"problem {problem.id} seed {seed}: start")]
    solution = _solution_text(args.solution, problem, seed) if args.solution else ""
    commands = decode(solution)
    if commands is None:
        bad = next(ch for ch in solution if ch.lower() not in "p'!.03bcefy2aghij4lmno 5dqrvz1kstuwx\t\n\r")
        raise PuzzleInputError(f"{args.solution}: character {bad!r} is not a command (the game would score 0)")
    for c in commands:
        before = game.units_locked
        game.step(c)
        if game.errored:
            break
        if game.units_locked > before:
            frames.append(Frame(set(game.filled), game.members, game.pivot,
                                f"units {game.units_locked}  move score {game.move_score}"))
    ps = 0 if game.errored else power_score(solution, load_phrases(args.phrases))
    total = 0 if game.errored else game.move_score + ps
    doc = {"problemId": problem.id, "seed": seed, "size": f"{problem.width}x{problem.height}",
           "width": problem.width, "height": problem.height,
           "units_locked": game.units_locked, "commands": game.commands, "move_score": game.move_score,
           "power_score": ps, "total": total, "end": END_NAMES[game.end]}
    caption = f"problem {problem.id} seed {seed}: {game.units_locked} units, score {total} ({END_NAMES[game.end]})"
    final = Frame(set(game.filled), game.members if game.end == IN_PROGRESS else frozenset(), game.pivot, caption)
    if args.png:
        doc["picture"] = str(draw_board(problem.width, problem.height, final, args.png, initial=problem.filled))
    if args.gif:
        doc["animation"] = str(draw_animation(problem.width, problem.height, frames[: args.max_frames - 1] + [final],
                                              args.gif, initial=problem.filled, fps=args.fps))
    if args.json:
        print_json(doc)
        return 0
    if args.steps:
        for f in frames[1:]:
            print(f.caption)
            print(render_text(problem.width, problem.height, f.filled, f.unit, f.pivot, problem.filled))
            print()
    print(render_text(problem.width, problem.height, final.filled, final.unit, final.pivot if final.unit else None,
                      problem.filled))
    print(f"problem {problem.id} ({problem.width}x{problem.height}, {len(problem.units)} units, source length "
          f"{problem.source_length}), seed {seed}")
    if args.solution:
        print(f"{game.commands} commands, {game.units_locked} units locked, move score {game.move_score}, "
              f"power score {ps}, total {total}, end {END_NAMES[game.end]}")
    for key in ("picture", "animation"):
        if key in doc:
            print(f"{key}: {doc[key]}")
    return 0


# -- play ----------------------------------------------------------------------------------------------------------
def _open_play_run(args, problems: list[Problem], backend, params: dict):
    """The store and run for ``play --out``; with ``--resume``, the unfinished run of the same problems."""
    from puzzlebatch.results.store import ResultsStore

    out = Path(args.out)
    if args.resume and not out.exists():
        raise PuzzleInputError(f"--resume: {out} does not exist; give the --out file of the interrupted run")
    store = ResultsStore(out, "a")
    if args.resume:
        run = store.latest_run("hextris", "greedy-play", unfinished=True,
                               where=lambda a: a["params"].get("problems") == params["problems"])
        if run is not None:
            return store, run
        store.close()
        raise PuzzleInputError(f"--resume: {out} has no unfinished play of problems {params['problems']}")
    run = store.create_run("hextris", "greedy-play", backend=backend.name, device=backend.device, seed=None,
                           params=params, instances={"problem_ids": np.array(params["problems"], dtype=np.int64)})
    return store, run


def run_play(args) -> int:
    import time

    from puzzlebatch.runners.options import print_json, write_json
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.hextris.playouts import GREEDY_WEIGHTS
    from puzzlebatch.runners.hextris.play_icfp2015 import GreedyPlayer, deadline
    from puzzlebatch.runners.engine.progress import bar

    problems = resolve_problems(args.problems)
    if args.player == "beam":
        from puzzlebatch.runners.hextris.player_cli import run_play_beam

        args.tag = args.tag or "puzzlebatch-beam"
        return run_play_beam(args, problems)
    args.tag = args.tag or "puzzlebatch-greedy"
    if args.resume and not args.out:
        raise PuzzleInputError("--resume needs --out FILE.h5 (the results file of the interrupted run)")
    backend = select_backend(args.backend)
    player = GreedyPlayer(problems, backend, tag=args.tag)
    store = run = None
    if args.out:
        params = {"problems": [p.id for p in problems], "weights": GREEDY_WEIGHTS.tolist(), "tag": args.tag}
        store, run = _open_play_run(args, problems, backend, params)
        ck = run.load_checkpoint() if args.resume else None
        if ck is not None:
            player.restore(*ck)
    units = sum(p.source_length * len(set(p.source_seeds)) for p in problems)
    progress = bar("hextris play", unit="unit", total=units)
    progress.update(sum(int(g.units_locked.sum()) for g in player._games if g is not None))
    last = [time.perf_counter()]

    def on_chunk(n: int) -> None:
        progress.update(n)
        if run is not None and time.perf_counter() - last[0] >= args.checkpoint_every:
            run.save_checkpoint(*player.checkpoint())
            last[0] = time.perf_counter()

    try:
        player.run(deadline(player.t0, args.time), on_chunk)
    except KeyboardInterrupt:
        progress.close()
        if run is not None:
            run.save_checkpoint(*player.checkpoint())
            run.finish("interrupted", seconds=work_clock() - player.w0)
            store.close()
            print(f"puzzlebatch: interrupted; resume with --out {args.out} --resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    progress.close()
    result = player.result()
    if run is not None:
        if result.complete:
            run.append_items(problemId=np.array([s["problemId"] for s in result.solutions], np.int64),
                             seed=np.array([s["seed"] for s in result.solutions], np.int64),
                             move_score=np.array(result.move_scores, np.int64),
                             end=np.array(result.ends, dtype=object),
                             solution=np.array([s["solution"] for s in result.solutions], dtype=object))
            run.set_result({"games": len(result.solutions), "move_scores": int(sum(result.move_scores))})
            run.finish("done", seconds=result.seconds)
        else:  # stopped by the time limit: keep the games so --resume can finish them
            run.save_checkpoint(*player.checkpoint())
            run.finish("interrupted", seconds=result.seconds)
        store.close()
    if args.json:
        doc = {"backend": backend.name, "device": backend.device, "seconds": result.seconds,
               "complete": result.complete, "entries": result.solutions, "move_scores": result.move_scores,
               "ends": result.ends}
        if run is not None:
            doc |= {"out": str(args.out), "run_id": run.id}
        print_json(doc)
        return 0
    write_json(result.solutions)  # the official solutions file
    print(f"{len(result.solutions)} games, move scores {sum(result.move_scores)} in total, "
          f"{result.seconds:.2f} s on {backend.name}", file=sys.stderr)
    return 0


def register(sub) -> None:
    hx = sub.add_parser("hextris", help="hex Tetris (ICFP 2015): score solutions, show games, play")
    verbs = hx.add_subparsers(dest="verb", metavar="VERB", parser_class=type(hx))
    verbs.required = True

    p = verbs.add_parser("score", help="score official solutions exactly as the organizers' evaluator")
    p.add_argument("problems", nargs="+", metavar="PROBLEM",
                   help="problem JSON files, qualifier numbers 0..24, or 'all'")
    p.add_argument("solutions", metavar="SOLUTIONS.json", help='[{"problemId", "seed", "tag", "solution"}, ...]')
    p.add_argument("--phrases", metavar="FILE", help="phrases of power, one a line (default: the 18 official)")
    add_backend_argument(p)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run_score, check=lambda a: resolve_problems(a.problems))

    p = verbs.add_parser("show", help="draw a board, or replay a solution (terminal, PNG, GIF)")
    p.add_argument("problem", metavar="PROBLEM", help="a problem JSON file or a qualifier number 0..24")
    p.add_argument("--seed", type=L.seed, help="the seed (default: the problem's first)")
    p.add_argument("--solution", metavar="FILE", help="official solutions JSON or a text file of commands")
    p.add_argument("--phrases", metavar="FILE", help="phrases of power (default: the 18 official)")
    p.add_argument("--png", "--svg", dest="png", metavar="FILE", help="draw the final board (.png or .svg)")
    p.add_argument("--gif", metavar="FILE", help="animate the game, one frame per locked unit")
    p.add_argument("--max-frames", type=L.positive_int, default=200, help="at most this many GIF frames (default 200)")
    p.add_argument("--fps", type=L.positive_int, default=8, help="frames per second of the GIF")
    p.add_argument("--steps", action="store_true", help="print the board after every locked unit")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run_show)

    p = verbs.add_parser("play", help="play every seed (beam player with phrases of power, or the greedy batch "
                                      "player); print official solutions")
    p.add_argument("problems", nargs="+", metavar="PROBLEM", help="problem JSON files, numbers 0..24, or 'all'")
    p.add_argument("-t", "--time", "--time-limit", dest="time", type=L.positive_seconds, metavar="SECONDS",
                   help="time limit in seconds")
    p.add_argument("--player", choices=["beam", "greedy"], default="beam",
                   help="beam: beam search + phrases (default); greedy: the kernel's greedy policy, no phrases")
    p.add_argument("--seed", type=L.seed, help="play only this seed (default: every seed)")
    p.add_argument("--all-seeds", action="store_true", help="play every seed of every problem (the default)")
    p.add_argument("--weights", metavar="FILE", help="beam player weights: JSON list of 6 numbers "
                                                     "(score, holes, height, bumpiness, row_transitions, max_height)")
    p.add_argument("--beam", type=L.positive_int, default=4, help="beam player: states kept per game (default 4)")
    p.add_argument("--keep", type=L.positive_int, default=8, help="beam player: candidates per state (default 8)")
    p.add_argument("-p", "--phrase", action="append", metavar="PHRASE", help="a phrase of power (repeatable)")
    p.add_argument("--phrases", metavar="FILE", help="phrases of power, one a line (default: the 18 official)")
    p.add_argument("--no-phrases", action="store_true", help="do not weave phrases of power")
    p.add_argument("--tag", default=None, help="solution tag (default puzzlebatch-beam / puzzlebatch-greedy)")
    add_backend_argument(p)
    p.add_argument("--json", action="store_true", help="also report the backend, time and move scores")
    p.add_argument("--out", metavar="FILE.h5", help="store the games (checkpoints while playing, results at the end)")
    p.add_argument("--resume", action="store_true", help="continue the unfinished play in --out")
    p.add_argument("--checkpoint-every", type=L.non_negative_seconds, default=30.0, metavar="SECONDS",
                   help="save the games this often (default 30)")
    from puzzlebatch.runners.options import add_scheduler_arguments as add_scheduler

    add_scheduler(p)  # beam player: one problem per task
    p.set_defaults(func=run_play, check=lambda a: resolve_problems(a.problems))

    from puzzlebatch.runners.hextris.player_cli import register as register_player_verbs

    register_player_verbs(verbs)  # tune, rank
