"""``puzzlebatch hextris score|show|play``: the ICFP 2015 game on the command line."""

from __future__ import annotations

import json
import os
import sys

from puzzlebatch import limits as L
from puzzlebatch.cli.options import add_backend_argument
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.runners.hextris.problems import resolve_problems


# -- score ---------------------------------------------------------------------------------------------------------
def run_score(args) -> int:
    from puzzlebatch.api import hextris
    from puzzlebatch.cli.options import print_json

    r = hextris.score(args.problems, args.solutions, phrases=args.phrases, backend=args.backend)
    if args.json:
        print_json(r.to_dict())
        return 0
    print(f"{'problem':>7} {'seed':>6} {'move':>7} {'power':>6} {'total':>7}  end{'':21} tag")
    for s in r.scores:
        print(f"{s['problemId']:>7} {s['seed']:>6} {s['move_score']:>7} {s['power_score']:>6} {s['total']:>7}  "
              f"{s['end']:<24} {s['tag'] or ''}")
    print(f"{len(r.scores)} solution{'' if len(r.scores) == 1 else 's'}, "
          f"{r.commands} commands, total {r.total}; {r.seconds:.3f} s on "
          f"{r.backend} ({r.device})")
    return 0


# -- show ----------------------------------------------------------------------------------------------------------
def run_show(args) -> int:
    from puzzlebatch.api import hextris
    from puzzlebatch.cli.options import print_json
    from puzzlebatch.results.hextris_pictures import render_text

    r = hextris.show(args.problem, seed=args.seed, solution=args.solution, phrases=args.phrases, png=args.png,
                     max_frames=args.max_frames, fps=args.fps)
    if args.gif:  # the game is valid: now the long step, said first
        from puzzlebatch.cli.options import say
        from puzzlebatch.results.hextris_pictures import draw_animation

        frames = r.frames[: args.max_frames - 1] + [r.final]
        say(f"drawing the animation {args.gif} ({len(frames)} frames: a few seconds)…")
        r.animation = str(draw_animation(r.problem.width, r.problem.height, frames, args.gif,
                                         initial=r.problem.filled, fps=args.fps))
    if args.json:
        print_json(r.to_dict())
        return 0
    problem, final = r.problem, r.final
    if args.steps:
        for f in r.frames[1:]:
            print(f.caption)
            print(render_text(problem.width, problem.height, f.filled, f.unit, f.pivot, problem.filled))
            print()
    print(render_text(problem.width, problem.height, final.filled, final.unit, final.pivot if final.unit else None,
                      problem.filled))
    print(f"problem {problem.id} ({problem.width}x{problem.height}, {len(problem.units)} units, source length "
          f"{problem.source_length}), seed {r.seed}")
    if args.solution:
        print(f"{r.commands} commands, {r.units_locked} units locked, move score {r.move_score}, "
              f"power score {r.power_score}, total {r.total}, end {r.end}")
    for key in ("picture", "animation"):
        if getattr(r, key):
            print(f"{key}: {getattr(r, key)}")
    return 0


# -- play ----------------------------------------------------------------------------------------------------------
def _phrases(args) -> list[str] | None:
    """The phrases of ``-p`` and ``--phrases`` ([] with ``--no-phrases``; None: the 18 official)."""
    from puzzlebatch.puzzles.hextris.model import load_phrases

    if args.no_phrases:
        return []
    out = list(args.phrase or [])
    if args.phrases:
        out += load_phrases(args.phrases)
    return out or None


def run_play(args) -> int:
    from puzzlebatch.api import hextris
    from puzzlebatch.cli.options import print_json, run_options, write_json

    problems = hextris.problems_of(args.problems)  # a bad problem is said first
    if args.player == "beam":
        if args.seed is not None and args.all_seeds:
            raise PuzzleInputError("--seed and --all-seeds: give one of them")
    r = hextris.play(args.problems, player=args.player, time_limit=args.time, seed=args.seed,
                     weights=args.weights, beam=args.beam, keep=args.keep,
                     phrases=_phrases(args) if args.player == "beam" else None, tag=args.tag, backend=args.backend,
                     options=run_options(args))
    late = args.player == "beam" and r.stopped == "time_limit"
    if late:
        more = f"; resume with --out {r.out} --resume" if r.out else ""
        print(f"puzzlebatch: time limit: {len({e['problemId'] for e in r.entries})} of {len(problems)} problems "
              f"finished{more}", file=sys.stderr)
    if args.json:
        print_json(r.to_dict())
    else:
        write_json(r.entries)  # the official solutions file
        stored = f"; results {r.out} (run {r.run_id})" if r.out else ""
        if args.player == "beam":
            print(f"{len(r.entries)} games, total score {sum(x['total'] for x in r.scores)} "
                  f"(power {sum(x['power_score'] for x in r.scores)}), {r.seconds:.2f} s on {r.backend}{stored}",
                  file=sys.stderr)
        else:
            print(f"{len(r.entries)} games, move scores {sum(r.move_scores)} in total, {r.seconds:.2f} s on "
                  f"{r.backend}{stored}", file=sys.stderr)
    if late and _own_process():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)  # do not wait for the worker's current step (it holds no file: the store is closed)
    return 0


def _own_process() -> bool:
    """True when this process is the ``puzzlebatch`` command itself (``python -m puzzlebatch`` or the console
    script), not a caller that imported it (a test): only then may a late worker thread be abandoned by exiting."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    return (spec is not None and spec.name.split(".")[0] == "puzzlebatch") or \
        os.path.basename(sys.argv[0] or "") == "puzzlebatch"


def register(verbs) -> None:
    """Add the ``hextris`` verbs to the family's sub-parsers (the registry's ``commands`` hook)."""

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
    p.add_argument("--weights", metavar="FILE|fit|default", help="beam player weights: a JSON list of 13 numbers "
                   "(the features of the evaluation), or a list of such lists (a portfolio); 'fit': per problem, a "
                   "portfolio chosen from its board's features; 'default' (the default): the tuned weights, with "
                   "rows part full weighed 1 on boards whose rows take 30 units or more to fill")
    p.add_argument("--beam", type=L.beam, default=4, help="beam player: states kept per game (default 4)")
    p.add_argument("--keep", type=L.beam, default=8, help="beam player: candidates per state (default 8)")
    p.add_argument("-p", "--phrase", action="append", metavar="PHRASE", help="a phrase of power (repeatable)")
    p.add_argument("--phrases", metavar="FILE", help="phrases of power, one a line (default: the 18 official)")
    p.add_argument("--no-phrases", action="store_true", help="do not weave phrases of power")
    p.add_argument("--tag", default=None, help="solution tag (default puzzlebatch-beam / puzzlebatch-greedy)")
    add_backend_argument(p)
    p.add_argument("--json", action="store_true", help="also report the backend, time and move scores")
    p.add_argument("--out", metavar="FILE.h5", help="results file: checkpoints while playing, the games at the end "
                                                    "(default: results/hextris.h5, one run a group)")
    p.add_argument("--resume", action="store_true", help="continue the unfinished play in --out")
    p.add_argument("--checkpoint-every", type=L.non_negative_seconds, default=30.0, metavar="SECONDS",
                   help="save the games this often (default 30)")
    from puzzlebatch.cli.options import add_scheduler_arguments as add_scheduler

    add_scheduler(p)  # beam player: one problem per task
    p.set_defaults(func=run_play, check=lambda a: resolve_problems(a.problems))

    from puzzlebatch.cli.hextris.player import register as register_player_verbs

    register_player_verbs(verbs)  # tune, rank


def warmup_tasks(b: list[str], tmp) -> list[tuple[str, list[str]]]:
    """(what, argv) of the tiny commands (argv after the family's name) that compile everything this family uses
    (``puzzlebatch warmup``); ``b`` is the backend option, ``tmp`` a scratch folder."""
    from puzzlebatch.runners.hextris.problems import resolve_problems

    problem = "1"  # qualifier problem 1, shipped with the package
    seed = resolve_problems([problem])[0].source_seeds[0]
    sol = tmp / "solution.json"
    sol.write_text(json.dumps([{"problemId": 1, "seed": seed, "tag": "warmup", "solution": "Ei! ia! ia!"}]),
                   encoding="utf-8")
    from puzzlebatch.puzzles.hextris.model import DATA_DIR

    doc = json.loads((DATA_DIR / "problems" / "problem_1.json").read_text(encoding="utf-8"))
    short = tmp / "problem_1_short.json"
    short.write_text(json.dumps(dict(doc, sourceLength=3, sourceSeeds=[seed])), encoding="utf-8")
    return [("score", ["score", problem, str(sol), *b, "--json"]),
            ("greedy play", ["play", problem, "--player", "greedy", "--seed", str(seed), *b,
                             "--json"]),
            ("beam play", ["play", problem, "--seed", str(seed), "--beam", "1", "--keep", "2", *b,
                           "--json"]),
            # a timed play compiles the narrowed search's kernel first (``player._warm_up``): a limit it does not
            # reach, so that nothing stops it before that kernel is in the cache, on the problem cut to three units
            # (a timed beam widens to use the time left)
            ("timed beam play", ["play", str(short), "--beam", "1", "--keep", "2", "-t", "600", *b, "--json"])]
