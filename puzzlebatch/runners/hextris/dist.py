"""``hextris play --scheduler``: the beam player with one problem (all its seeds) per Dask task.

Each task plays one problem exactly as :func:`puzzlebatch.runners.hextris.player.play_problems` does in this
process (the same player, weights, phrases and exact re-scoring), so the games and scores do not depend on where
they ran; the client gets them back in problem order and stores them as the single-process run does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from puzzlebatch.jit.clock import work_clock


@dataclass(frozen=True)
class PlayTask:
    """Play one problem on a worker (the problem travels as its JSON file or qualifier number)."""

    backend: str
    seeds: dict | None
    weights: list | str | None  # rows, "fit" (chosen per problem on the worker), or None (player.board_weights)
    beam: int
    keep: int
    phrases: list
    tag: str
    weave: bool

    def __call__(self, job: tuple) -> dict:
        from puzzlebatch.runners.engine.backend import select_backend
        from puzzlebatch.runners.engine.distributed import worker_name
        from puzzlebatch.runners.hextris.problems import problem_from
        from puzzlebatch.runners.hextris.player import play_problems

        spec, seconds = job
        t0 = work_clock()
        backend = select_backend(self.backend)
        problems = [problem_from(spec)]
        weights = self.weights if self.weights is None or isinstance(self.weights, str) else \
            np.asarray(self.weights)
        solved = play_problems(problems, backend, seeds=self.seeds, weights=weights,
                               beam=self.beam, keep=self.keep, phrases=self.phrases, seconds=seconds, tag=self.tag,
                               weave_phrases=self.weave)
        return {"solved": solved, "worker": worker_name(), "backend": backend.name,
                "seconds": work_clock() - t0}


def play_on_pool(pool, specs: dict[int, str]):
    """A drop-in for ``play_problems`` that sends each problem to ``pool``; ``specs`` maps a problem id to what
    names it on a worker (its file path, its qualifier number, or its JSON object)."""
    from puzzlebatch.runners.engine.distributed import map_ordered

    def play(problems, backend, *, seeds=None, weights=None, beam=4, keep=8, phrases=None, seconds=None,
             tag="puzzlebatch-beam", weave_phrases=True, on_problem=None):
        w = weights if weights is None or isinstance(weights, str) else np.asarray(weights).tolist()
        task = PlayTask(pool.backend_request, seeds, w, beam, keep, phrases, tag, weave_phrases)
        work = np.array([p.source_length * len(set(p.source_seeds)) * p.width for p in problems], np.float64)
        # With a time limit, a problem gets its share of the cluster's time (workers play side by side).
        share = [None if seconds is None else min(seconds, seconds * pool.n_workers * x / max(work.sum(), 1.0))
                 for x in work]
        out = []
        for p, res in zip(problems, map_ordered(pool, task, [(specs[p.id], s) for p, s in zip(problems, share)])):
            pool.work.add(res["worker"], len(res["solved"]), 0, res["seconds"], res["backend"])
            out.extend(res["solved"])
            if on_problem is not None:
                on_problem(p, res["solved"])
        return out

    return play


def problem_specs(args_problems: list, problems) -> dict[int, str | dict]:
    """How each problem is named on a worker: the qualifier number, the absolute path of its JSON file, or (a
    problem given as an object) its JSON object."""
    from puzzlebatch.puzzles.hextris.model import Problem
    from puzzlebatch.runners.hextris.problems import problem_doc, resolve_problems

    specs: dict[int, str | dict] = {}
    for spec in args_problems:
        if isinstance(spec, Problem):
            specs[spec.id] = problem_doc(spec)
            continue
        if isinstance(spec, dict):
            specs[int(spec.get("id", -1))] = dict(spec)
            continue
        spec = str(spec)
        for p in resolve_problems([spec]):
            specs[p.id] = str(p.id) if spec == "all" or (spec.isdigit() and not Path(spec).exists()) \
                else str(Path(spec).resolve())
    return specs


@dataclass(frozen=True)
class EvalTask:
    """Fitness of every genome on the seeds of one qualifier problem (one Dask task of ``hextris tune``)."""

    backend: str
    kwargs: tuple  # evaluate()'s keyword arguments, as sorted (name, value) pairs

    def __call__(self, job: tuple) -> dict:
        from puzzlebatch.puzzles.hextris.model import official_problem
        from puzzlebatch.runners.engine.backend import select_backend
        from puzzlebatch.runners.engine.distributed import worker_name
        from puzzlebatch.runners.hextris.tune import evaluate

        problem_id, seeds, genomes = job
        t0 = work_clock()
        backend = select_backend(self.backend)
        p = official_problem(problem_id)
        fit = evaluate(np.asarray(genomes), [(p, s) for s in seeds], backend, **dict(self.kwargs))
        return {"fitness": fit, "worker": worker_name(), "backend": backend.name,
                "seconds": work_clock() - t0}


def pool_evaluator(pool):
    """A stand-in for :func:`hextris_tune.evaluate` that plays each problem's games as one task on ``pool``; the
    fitness is the same sum over problems (each problem's games are played as in one process)."""
    from puzzlebatch.runners.engine.distributed import map_ordered

    def evaluate(genomes, games, backend, **kwargs):
        by_problem: dict[int, list[int]] = {}
        for p, s in games:
            by_problem.setdefault(p.id, []).append(s)
        task = EvalTask(pool.backend_request, tuple(sorted(kwargs.items())))
        jobs = [(pid, seeds, np.asarray(genomes).tolist()) for pid, seeds in by_problem.items()]
        fit = np.zeros(len(genomes), dtype=np.int64)
        for res in map_ordered(pool, task, jobs):
            pool.work.add(res["worker"], len(genomes), 0, res["seconds"], res["backend"])
            fit += np.asarray(res["fitness"], dtype=np.int64)
        return fit

    return evaluate
