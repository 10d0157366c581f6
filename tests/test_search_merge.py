"""Symmetric merging stopped early (``merge_target``, as the CUDA defaults do) and the expansion carried on
without it: the same counts, distinct counts and oracle answers as merging all the way."""

import pytest

from puzzlebatch.puzzles.cubes import model
from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.puzzles.snake.generate import random_chain
from puzzlebatch.puzzles.snake.model import Box
from puzzlebatch.runners.cubes import solver as cubes
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.engine.search import SearchSettings, default_settings
from puzzlebatch.runners.polyomino import solver as polyomino
from puzzlebatch.runners.snake import solver as snake
from tests.reference import snake_oracle

WHOLE = SearchSettings(budget=256, batch_size=64, frontier_target=512)  # merged up to 512 items
EARLY = SearchSettings(budget=256, batch_size=64, frontier_target=512, merge_target=8)


def test_the_cuda_defaults_merge_only_as_far_as_the_cpu():
    cuda = default_settings(Backend("cuda", "a GPU"))
    assert cuda.merge_target == SearchSettings().frontier_target < cuda.frontier_target
    assert default_settings(Backend("cpu", "a CPU")).merge_target is None


@pytest.mark.parametrize("seed", [0, 3])
def test_snake_counts_agree(cpu, seed):
    box = Box(2, 3, 3)
    chain = random_chain(box, seed)[0]
    whole, early = (snake.count(chain, box, cpu, s)[0] for s in (WHOLE, EARLY))
    assert (early.embeddings, early.distinct) == (whole.embeddings, whole.distinct)
    oracle = snake_oracle.count(chain.letters, (box.a, box.b, box.c))
    assert (early.embeddings, early.distinct) == (oracle["embeddings"], oracle["distinct"])


def test_polyomino_counts_agree(cpu):
    pk = P.build(P.parse_board("5x4"), S.load_pieces("tetrominoes", unlimited=True))
    whole, early = (polyomino.count_packing(pk, cpu, settings=s) for s in (WHOLE, EARLY))
    assert (early.solutions, early.distinct) == (whole.solutions, whole.distinct) and whole.solutions > 0


def test_cubes_counts_agree(cpu):
    c = model.load_cubes()
    figure, subset = model.box(2, 2, 1), c.subset(c.numbers[:8])
    whole, early = (cubes.count(figure, subset, cpu, s)[0] for s in (WHOLE, EARLY))
    assert (early.assemblies, early.distinct) == (whole.assemblies, whole.distinct) and whole.assemblies > 0
