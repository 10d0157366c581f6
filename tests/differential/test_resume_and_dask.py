"""Two more ways to compute a count, checked against the plain count of the same process: stopped after every
launch and resumed from the returned work (as a checkpoint would), and on a Dask ``local:2`` cluster whose two
workers run the families' counts one after another (jobs of several families on the same worker processes).

The plain counts themselves are checked against the independent oracles by the other tests of this folder.
"""

from __future__ import annotations

import random

import pytest

from puzzlebatch.runners.engine.search import SearchSettings

SPLIT = SearchSettings(budget=40, batch_size=6, frontier_target=4, first_batch_size=2)


def _snake_cases(n=4):
    from puzzlebatch.puzzles.snake.generate import random_chain
    from puzzlebatch.puzzles.snake.model import Box

    rng = random.Random(7)
    boxes = [Box(2, 2, 3), Box(2, 3, 3), Box(2, 2, 4), Box(3, 3, 2)]
    return [(b, random_chain(b, rng.randrange(1000))[0]) for b in boxes[:n]]


def snake_count(case, backend, settings=None, pool=None, frontier=None, totals=None, max_batches=None):
    from puzzlebatch.runners.snake import solver

    box, chain = case
    r, rest, tot = solver.count(chain, box, backend, settings, frontier=frontier, totals=totals,
                                max_batches=max_batches, pool=pool)
    return (r.embeddings, r.distinct), rest, tot


def _cubes_cases():
    from puzzlebatch.puzzles.cubes import model

    c = model.load_cubes()
    rng = random.Random(11)
    return [(model.box(*dims), c.subset(sorted(rng.sample(c.numbers, k))))
            for dims, k in (((2, 1, 1), 5), ((3, 1, 1), 6), ((2, 2, 1), 6), ((3, 1, 1), 8))]


def cubes_count(case, backend, settings=None, pool=None, frontier=None, totals=None, max_batches=None):
    from puzzlebatch.runners.cubes import solver

    figure, subset = case
    r, rest, tot = solver.count(figure, subset, backend, settings, frontier=frontier, totals=totals,
                                max_batches=max_batches, pool=pool)
    return (r.assemblies, r.distinct), rest, tot


def _polyomino_cases():
    return [("4x5", "tetrominoes", True), ("6x3", "L-trominoes", True), ("5x6", "dominoes", True),
            ("5x4", "tetrominoes", False), ("3x4", "trominoes", False)]


def polyomino_count(case, backend, settings=None, pool=None, frontier=None, totals=None, max_batches=None):
    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.puzzles.polyomino import shapes as S
    from puzzlebatch.runners.polyomino import solver

    board, pieces, unlimited = case
    pk = P.build(P.parse_board(board), S.load_pieces(pieces, unlimited=unlimited))
    r, rest, tot = solver.count_packing_run(pk, backend, settings=settings, frontier=frontier, totals=totals,
                                            max_batches=max_batches, pool=pool)
    return (r.solutions, r.distinct), rest, tot


FAMILIES = {"snake": (_snake_cases, snake_count), "cubes": (_cubes_cases, cubes_count),
            "polyomino": (_polyomino_cases, polyomino_count)}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_stopped_after_every_launch_and_resumed(family, cpu):
    cases, count = FAMILIES[family]
    for case in cases():
        plain, _, _ = count(case, cpu)
        answer, rest, totals = count(case, cpu, SPLIT, max_batches=1)
        stops = 0
        while len(rest):
            stops += 1
            answer, rest, totals = count(case, cpu, SPLIT, frontier=rest, totals=totals,
                                         max_batches=totals.batches + 1)
        assert answer == plain, f"{family} {case}: resumed {answer}, plain {plain}"


def test_families_one_after_another_on_a_local_cluster(cluster, cpu):
    from puzzlebatch.runners.engine.distributed import open_pool

    plain = {(f, i): FAMILIES[f][1](case, cpu)[0] for f in FAMILIES for i, case in enumerate(FAMILIES[f][0]())}
    pool = open_pool(cluster, "cpu", 0.05)
    try:
        for round_ in range(2):  # every family twice, interleaved: the workers run them in turn
            for f in sorted(FAMILIES, reverse=bool(round_)):
                cases, count = FAMILIES[f]
                for i, case in enumerate(cases()):
                    got = count(case, cpu, SPLIT, pool=pool)[0]
                    assert got == plain[(f, i)], f"{f} {case} on local:2: {got}, in this process {plain[(f, i)]}"
    finally:
        pool.close()
