"""``play_icfp2015``: the contest's command-line interface, with the beam player (and the greedy batch player).

    play_icfp2015 -f FILE [-f FILE ...] [-t SECONDS] [-m MEGABYTES] [-c CORES] [-p PHRASE ...]

prints the official JSON solutions (``[{"problemId", "seed", "tag", "solution"}]``) for every seed of every problem
on stdout.  All seeds of all problems are played together as batch playouts (``runners.hextris.Playouts``), a
few units at a time, round robin over the problems, so that when the time limit comes every game has a legal
partial solution (a partial game is scored normally, RULES.md §8).

``main`` (the console script; the players are in :mod:`puzzlebatch.runners.hextris.greedy`: :class:`BeamRun`)
first plays every game with :class:`GreedyPlayer` (the simple greedy policy, a chunk of units at a time: seconds
for the whole qualifier), then the beam player of :mod:`puzzlebatch.runners.hextris.player` (beam search over
placements, phrases of power from ``-p`` or the 18 known ones woven into the paths, every solution re-scored by the
exact scorer), one problem after another with a share of the time left; a game keeps the greedy solution unless
the beam player's scores more, so the answer is never below the greedy player's under the same limits.  At the time
limit every game's best so far is printed.  With ``-t`` the beam widens to use each problem's share of the time (up
to 256 states per game).  ``-m MB``: the beam player holds at most as many game copies as fit in half of MB
(``player.games_for_memory``; the beam and its candidates per state shrink to fit); the other half is left for the
interpreter, numba's compiled code and the output.  The process needs about 300 MB before any game (numba and its
compiled kernels: 310-360 MB maximum resident size measured for problems 21 and 13 with ``-m 200``), so a limit
below ~400 MB cannot be honoured.

``-t`` counts from the process's start.  ``-c N`` (default: the cores the process may run on): with N >= 2 the
games are split into N shards of about equal work, each played by a ``play_icfp2015 -c 1`` process
(:mod:`puzzlebatch.runners.hextris.shards`); with one core numba's threads are limited to it.

On a fresh machine the kernels must be compiled inside ``-t``: they are compiled in other processes, into the disk
cache (:mod:`puzzlebatch.runners.hextris.precompile`: only those the player calls, stage by stage in the order it
needs them), while the main thread plays every game with the plain-Python player of
:mod:`puzzlebatch.runners.hextris.coldstart` (nothing to compile), until the first compiled move; each game keeps
whichever answer scores more, and stderr's last line says what the cold start cost.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from typing import Sequence

from puzzlebatch import limits as L
from puzzlebatch.cli.options import add_backend_argument
from puzzlebatch.errors import EXIT_BAD_INPUT, BackendUnavailableError, PuzzleInputError
from puzzlebatch.puzzles.hextris.model import load_json, parse_problem
# the players (GreedyPlayer and play_problems are named here too, for those who import them from here)
from puzzlebatch.runners.hextris.greedy import CHUNK_UNITS, BeamRun, GreedyPlayer, PlayResult, answer_time, \
    deadline, play_problems

#: set in the processes of ``-c``'s shards: they play their games themselves
ENV_SHARD = "PUZZLEBATCH_HEXTRIS_SHARD"
SHARD_MEGABYTES = 400  # -m below this a process cannot be honoured: -c plays with fewer processes
#: with -c N, the share of -t the parent waits for its shards (each answers a margin before: shards.shard_seconds)
SHARDS_END = 0.93
#: and the share by which a failed shard's games, played by the plain-Python player after that, are answered
FALLBACK_END = 0.975

__all__ = ["main", "build_parser", "BeamRun", "GreedyPlayer", "PlayResult", "CHUNK_UNITS", "deadline",
           "play_problems"]


def build_parser() -> argparse.ArgumentParser:
    from puzzlebatch.cli.parser import Parser

    p = Parser(prog="play_icfp2015", description="ICFP 2015 player: official JSON solutions on stdout.")
    p.add_argument("-f", dest="files", action="append", required=True, metavar="FILE", help="a problem file")
    p.add_argument("-t", dest="seconds", type=L.positive_seconds, metavar="SECONDS", help="time limit")
    p.add_argument("-m", dest="megabytes", type=L.positive_seconds, metavar="MEGABYTES", help="memory limit")
    p.add_argument("-c", dest="cores", type=L.positive_int, metavar="CORES",
                   help="processor cores to use (default: every core this process may run on; 2 or more: the games "
                        "are split over that many processes, at most one for each 400 MB of -m)")
    p.add_argument("-p", dest="phrases", action="append", default=[], metavar="PHRASE", help="a phrase of power")
    add_backend_argument(p)
    p.add_argument("--tag", default="puzzlebatch-beam", help="the tag of every solution")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from puzzlebatch.runners.hextris.coldstart import process_start

    t0 = process_start()  # -t counts from the process's start
    args = build_parser().parse_args(argv)
    if argv is None:  # run as a program: the compiled code shipped with the package serves (jit.prebuilt)
        from puzzlebatch.jit import prebuilt

        prebuilt.activate()
    try:
        if args.seconds is not None and args.seconds <= 0:
            raise PuzzleInputError(f"-t {args.seconds:g}: the time limit must be positive")
        if args.megabytes is not None and args.megabytes <= 0:
            raise PuzzleInputError(f"-m {args.megabytes:g}: the memory limit must be positive")
        if args.cores is not None and args.cores < 1:
            raise PuzzleInputError(f"-c {args.cores}: needs at least one core")
        cores = usable_cores() if args.cores is None else args.cores
        import numba

        numba.set_num_threads(max(1, min(cores, numba.config.NUMBA_NUM_THREADS)))
        docs = [load_json(f, "problem") for f in args.files]
        problems = [parse_problem(d, where=str(f)) for d, f in zip(docs, args.files)]
        from puzzlebatch.runners.engine.backend import select_backend

        backend = select_backend(args.backend)
        games = sum(len(set(p.source_seeds)) for p in problems)
        shards = min(cores, games)
        if args.megabytes is not None and shards >= 2 and args.megabytes / shards < SHARD_MEGABYTES:
            # each process needs about 300 MB before its first game: fewer processes, each within -m's share
            fewer = max(1, int(args.megabytes // SHARD_MEGABYTES))
            print(f"play_icfp2015: -m {args.megabytes:g}: {fewer} process{'es' if fewer > 1 else ''} instead of "
                  f"{shards} (each needs about {SHARD_MEGABYTES} MB)", file=sys.stderr)
            shards = fewer
        if shards >= 2 and backend.kind == "cpu" and not os.environ.get(ENV_SHARD):
            return play_shards(args, docs, shards, t0)
        player = BeamRun(problems, backend, args.seconds, args.phrases or None, args.tag, args.megabytes)
        player.t0 = t0
    except (PuzzleInputError, BackendUnavailableError) as exc:
        print(f"play_icfp2015: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    compiler = None
    if backend.kind == "cpu":
        from puzzlebatch.runners.hextris.precompile import Precompiler

        compiler = Precompiler.join() or Precompiler.start(1 if cores < 2 else 2)
    # The player runs in a worker thread so that the time limit holds even during a long step (numba compiling
    # the kernels on first use): at the limit the problems finished so far are printed and the process exits.
    try:
        return play(player, args.seconds, compiler=compiler)
    finally:  # an error or Ctrl-C in the player: no compiling process or folder is left behind
        if compiler is not None:
            compiler.close()


def _prebuilt_note() -> str:
    from puzzlebatch.jit import prebuilt

    note = prebuilt.report()
    return f"; {note}" if note else ""


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), the default of ``-c``."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def shard_command(args) -> list[str]:
    """The command line of one shard's process, before its time and memory limits and its problem files."""
    return [sys.executable, "-m", "puzzlebatch.cli.hextris.play_icfp2015", "-c", "1", "--tag", args.tag,
            "--backend", args.backend] + [a for p in args.phrases for a in ("-p", p)]


def play_shards(args, docs: list[dict], shards: int, t0: float, out=None, err=None) -> int:
    """``-c N``: the games split into ``N`` shards (``runners.hextris.shards``), each played by a ``play_icfp2015
    -c 1`` process with the time left; the kernels compiled once for all of them in other processes when the
    cache is cold.  A shard that fails is played by the plain-Python player in the time left."""
    import shutil
    import tempfile
    from pathlib import Path

    from puzzlebatch.puzzles.hextris.model import load_phrases
    from puzzlebatch.runners.hextris import shards as S
    from puzzlebatch.runners.hextris.coldstart import QuickPlayer
    from puzzlebatch.runners.hextris.precompile import ENV_FOLDER, Precompiler

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    parts = S.split(docs, shards)
    compiler = folder = None
    try:
        compiler = Precompiler.start(2)
        folder = Path(tempfile.mkdtemp(prefix="puzzlebatch-hextris-shards-"))
        command = shard_command(args)
        end = None
        if args.seconds is not None:
            # shards late past `end` are stopped; their games are then played by the plain-Python player until
            # `last`, which leaves it a share of the time (it is handed no time already past)
            end = t0 + SHARDS_END * args.seconds - 0.3
            last = t0 + FALLBACK_END * args.seconds - 0.3
            command += ["-t", f"{S.shard_seconds(end, args.seconds, time.perf_counter()):.3f}"]
        if args.megabytes is not None:
            command += ["-m", f"{args.megabytes / len(parts):.3f}"]
        env = dict(os.environ, **{ENV_SHARD: "1"})
        if compiler is not None:
            env[ENV_FOLDER] = str(compiler.folder)
        workers = S.launch(command, docs, parts, folder, env)
        S.wait_all(workers, float("inf") if end is None else end)
        answers = []
        phrases = list(args.phrases) or load_phrases()
        for k, w in enumerate(workers):
            got = w.answer()
            for line in w.stderr_lines():
                if line.strip():
                    print(f"play_icfp2015 [shard {k + 1}/{len(workers)}, {w.shard.games} games]: "
                          f"{line.removeprefix('play_icfp2015: ')}", file=err)
            if got is None:  # the shard's process failed: the plain-Python player, in the time left
                mine = [parse_problem(dict(docs[i], sourceSeeds=s)) for i, s in w.shard.seeds.items()]
                quick = QuickPlayer(mine, phrases, args.tag)
                quick.run(deadline=None if end is None else max(last, time.perf_counter() + 0.05))
                got = [e for e, _ in quick.best().values()]
                print(f"play_icfp2015: shard {k + 1}'s process failed (exit status {w.proc.returncode}); its "
                      f"{w.shard.games} games were played by the plain-Python player ({quick.units} units)",
                      file=err)
            answers.append(got)
        json.dump(S.merge(docs, answers), out)
        out.write("\n")
        out.flush()
        print(f"play_icfp2015: -c {args.cores or shards}: {len(workers)} processes played "
              f"{' + '.join(str(w.shard.games) for w in workers)} games"
              + ("" if compiler is None else f"; {compiler.summary()}") + _prebuilt_note(), file=err)
        err.flush()
    finally:
        for w in locals().get("workers", []):  # Ctrl-C or an error: no shard process outlives the player
            if w.proc.poll() is None:
                w.proc.kill()
                w.proc.wait()
        if compiler is not None:
            compiler.close()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


def play(player: BeamRun, seconds: float | None, out=None, err=None, compiler=None) -> int:
    """Run ``player`` with the cold start covered; print the solutions on ``out`` and the cold start's cost on
    ``err`` (stdout and stderr by default).  ``compiler``: the kernels being compiled in other processes
    (``precompile.Precompiler``; the player waits for each stage before its first use)."""
    from puzzlebatch.puzzles.hextris.model import load_phrases
    from puzzlebatch.runners.hextris.coldstart import QuickPlayer

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    player.compiler = compiler
    worker = threading.Thread(target=player.run, daemon=True)
    worker.start()
    # (the margin covers the interpreter start before t0 and writing the output)
    end = None if seconds is None else answer_time(player.t0, seconds)
    # While the compiled players are built (numba compiling on first use, the whole cold start on a fresh
    # machine), this thread plays every game in plain Python: no game waits for the compiler.
    quick = QuickPlayer(player.problems, load_phrases() if player.phrases is None else list(player.phrases),
                        player.tag)
    player.quick = quick
    # it stops at the first compiled move: from there on the compiled players need the interpreter lock
    quick.run(stop=lambda: player.first_move_at is not None or player.greedy_done.is_set(), deadline=end)
    worker.join(None if end is None else max(0.0, end - time.perf_counter()))
    json.dump(player.solutions(), out)
    out.write("\n")
    out.flush()
    first = player.first_move_at
    waited = (time.perf_counter() if first is None else first) - player.t0
    share = f" ({100 * waited / seconds:.0f} % of -t {seconds:g})" if seconds else ""
    print(f"play_icfp2015: cold start {waited:.1f} s{share} before the first compiled move"
          f"{' (none was made)' if first is None else ''}; meanwhile the plain-Python player placed {quick.units} "
          f"units" + ("" if compiler is None else f"; {compiler.summary()}") + _prebuilt_note(), file=err)
    err.flush()
    if compiler is not None:
        compiler.close()
    if worker.is_alive():
        os._exit(0)  # do not wait for the worker's current step
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
