"""`hextris tune --scheduler` and `hextris play --scheduler` split their work by problem: the per-problem task
gives the same fitness as one process (checked here through the embedded pool, which runs the task in-process;
the Dask path itself is tested in test_distributed.py)."""

from __future__ import annotations

import numpy as np

from puzzlebatch.puzzles.hextris.model import official_problem
from puzzlebatch.runners.engine.distributed import Pool
from puzzlebatch.runners.hextris.dist import pool_evaluator
from puzzlebatch.runners.hextris.tune import evaluate


def test_pool_evaluator_sums_problems_like_evaluate(cpu):
    games = [(official_problem(21), official_problem(21).source_seeds[0]),
             (official_problem(1), official_problem(1).source_seeds[0])]
    genomes = np.array([[2, 0, 0, 0, 0, 3, 3, 5, 3, 0, 3, 0, 0], [10, 1, 1, 10, 10, 5, 5, 3, 1, 5, 10, 4, 3]])
    pool = Pool("cpu")
    fit = pool_evaluator(pool)(genomes, games, cpu, beam=1, keep=2)
    assert fit.tolist() == evaluate(genomes, games, cpu, beam=1, keep=2).tolist()
    assert sum(w.items for w in pool.work.workers.values()) == 2 * len(genomes)  # two tasks, one per problem


def test_play_on_pool_takes_problems_given_as_objects(cpu):
    """A problem that has no file (a :class:`Problem` given to ``pb.hextris.play``) travels to a worker as its JSON
    object; the games are those of one process."""
    from puzzlebatch.puzzles.hextris.model import parse_problem
    from puzzlebatch.runners.hextris.dist import play_on_pool, problem_specs
    from puzzlebatch.runners.hextris.player import play_problems
    from puzzlebatch.runners.hextris.problems import problem_doc

    p = official_problem(21)
    assert parse_problem(problem_doc(p)) == p
    specs = problem_specs([p, "22"], None)
    assert specs[21] == problem_doc(p) and specs[22] == "22"
    pool = Pool("cpu")
    kwargs = dict(beam=1, keep=1, phrases=[], weave_phrases=False)
    here = play_problems([p], cpu, **kwargs)
    there = play_on_pool(pool, specs)([p], cpu, **kwargs)
    assert [s.entry for s in there] == [s.entry for s in here] and [s.total for s in there] == [s.total for s in here]
    # the fitted portfolio is chosen on the worker, from the same table: the same games
    here = play_problems([p], cpu, weights="fit", **kwargs)
    there = play_on_pool(pool, specs)([p], cpu, weights="fit", **kwargs)
    assert [(s.entry, s.total) for s in there] == [(s.entry, s.total) for s in here]
