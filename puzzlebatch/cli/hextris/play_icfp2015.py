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

On a fresh machine numba compiles the kernels on first use, inside ``-t``: meanwhile the main thread plays every
game with the plain-Python player of :mod:`puzzlebatch.runners.hextris.coldstart` (nothing to compile), until the
first compiled move; each game keeps whichever answer scores more, and stderr's last line says what the cold start
cost.
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
from puzzlebatch.puzzles.hextris.model import load_problem
# the players (GreedyPlayer and play_problems are named here too, for those who import them from here)
from puzzlebatch.runners.hextris.greedy import CHUNK_UNITS, BeamRun, GreedyPlayer, PlayResult, deadline, \
    play_problems

__all__ = ["main", "build_parser", "BeamRun", "GreedyPlayer", "PlayResult", "CHUNK_UNITS", "deadline",
           "play_problems"]


def build_parser() -> argparse.ArgumentParser:
    from puzzlebatch.cli.parser import Parser

    p = Parser(prog="play_icfp2015", description="ICFP 2015 player: official JSON solutions on stdout.")
    p.add_argument("-f", dest="files", action="append", required=True, metavar="FILE", help="a problem file")
    p.add_argument("-t", dest="seconds", type=L.positive_seconds, metavar="SECONDS", help="time limit")
    p.add_argument("-m", dest="megabytes", type=L.positive_seconds, metavar="MEGABYTES", help="memory limit")
    p.add_argument("-c", dest="cores", type=L.positive_int, metavar="CORES", help="processor cores to use")
    p.add_argument("-p", dest="phrases", action="append", default=[], metavar="PHRASE", help="a phrase of power")
    add_backend_argument(p)
    p.add_argument("--tag", default="puzzlebatch-beam", help="the tag of every solution")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.seconds is not None and args.seconds <= 0:
            raise PuzzleInputError(f"-t {args.seconds:g}: the time limit must be positive")
        if args.megabytes is not None and args.megabytes <= 0:
            raise PuzzleInputError(f"-m {args.megabytes:g}: the memory limit must be positive")
        if args.cores is not None:
            if args.cores < 1:
                raise PuzzleInputError(f"-c {args.cores}: needs at least one core")
            import numba

            numba.set_num_threads(min(args.cores, numba.config.NUMBA_NUM_THREADS))
        problems = [load_problem(f) for f in args.files]
        from puzzlebatch.runners.engine.backend import select_backend

        backend = select_backend(args.backend)
        player = BeamRun(problems, backend, args.seconds, args.phrases or None, args.tag, args.megabytes)
    except (PuzzleInputError, BackendUnavailableError) as exc:
        print(f"play_icfp2015: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    # The player runs in a worker thread so that the time limit holds even during a long step (numba compiling
    # the kernels on first use): at the limit the problems finished so far are printed and the process exits.
    return play(player, args.seconds)


def play(player: BeamRun, seconds: float | None, out=None, err=None) -> int:
    """Run ``player`` with the cold start covered; print the solutions on ``out`` and the cold start's cost on
    ``err`` (stdout and stderr by default)."""
    from puzzlebatch.puzzles.hextris.model import load_phrases
    from puzzlebatch.runners.hextris.coldstart import QuickPlayer

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    worker = threading.Thread(target=player.run, daemon=True)
    worker.start()
    # (the margin covers the interpreter start before t0 and writing the output)
    end = None if seconds is None else player.t0 + 0.9 * seconds - 0.7
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
          f"units", file=err)
    err.flush()
    if worker.is_alive():
        os._exit(0)  # do not wait for the worker's current step
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
