"""Snake counts and first solutions on the CPU backend, checked against the plain-Python oracle."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from puzzlebatch.puzzles.snake.generate import random_chain
from puzzlebatch.puzzles.snake.model import SOURCE_CHAIN, Box, is_valid_embedding, parse_chain
from puzzlebatch.runners.snake import solver as snake
from puzzlebatch.runners.engine.search import BatchDFS, Frontier, SearchSettings
from tests.reference import snake_oracle
from tests.snake_helpers import state_after_prefix

# (chain, box): the source document's chain, a hand-made one, and random Hamiltonian-path chains whose oracle
# runs in about a second (seeds picked for that).
CASES = [(SOURCE_CHAIN, (3, 3, 3)), ("FJJJJJJF", (2, 2, 2))] + [
    (random_chain(Box(*dims), seed)[0].letters, dims)
    for dims, seeds in [((3, 3, 3), (3, 4, 6)), ((2, 3, 4), (1, 3, 5)), ((2, 2, 4), (0, 1)), ((3, 3, 2), (1, 6))]
    for seed in seeds
]
TINY = SearchSettings(budget=40, batch_size=9, frontier_target=5)  # forces many launches and re-splits


@pytest.fixture(scope="module")
def oracle():
    cache = {}

    def get(letters, dims):
        if (letters, dims) not in cache:
            cache[letters, dims] = snake_oracle.count(letters, dims)
        return cache[letters, dims]

    return get


@pytest.mark.parametrize("letters, dims", CASES)
def test_count_matches_oracle(letters, dims, oracle, cpu):
    expected = oracle(letters, dims)
    for s in (None, TINY):
        result, rest, totals = snake.count(parse_chain(letters), Box(*dims), cpu, s)
        assert (result.embeddings, result.distinct) == (expected["embeddings"], expected["distinct"]), \
            f"{letters} in {dims} with {s}"
        assert result.complete and len(rest) == 0 and result.backend == "cpu"


@pytest.mark.parametrize("letters, dims", CASES)
def test_solve_returns_a_folding_the_oracle_knows(letters, dims, oracle, cpu):
    known = {tuple(map(tuple, p)) for p in snake_oracle.embeddings(letters, dims)}
    for s in (None, TINY):
        result = snake.solve(parse_chain(letters), Box(*dims), cpu, s)
        assert result.solved
        assert tuple(map(tuple, result.cells)) in known


def test_solve_without_symmetry_is_the_sequential_dfs_first(cpu):
    """With symmetry merging off, the batch search returns exactly what a sequential DFS finds first."""
    for letters, dims in CASES[:6]:
        chain, box = parse_chain(letters), Box(*dims)
        for s in (SearchSettings(), TINY):
            totals, _ = BatchDFS(snake.problem(chain, box), cpu, s).first()
            cells = box.coords()[totals.solutions[0][snake.encode.n_words(box.volume):][:box.volume]]
            assert list(map(tuple, cells.tolist())) == snake_oracle.count(letters, dims)["first"]


def test_source_chain_has_one_folding_up_to_symmetry(cpu):
    result, _, _ = snake.count(parse_chain(SOURCE_CHAIN), Box(3, 3, 3), cpu)
    assert (result.embeddings, result.distinct, result.symmetries) == (48, 1, 48)


def test_unsolvable_chain_reports_none(cpu):
    chain, box = parse_chain("FFJFJFJFJFJF"), Box(2, 2, 3)  # passes the quick checks, yet cannot fold
    assert snake_oracle.count(chain.letters, box.dims)["embeddings"] == 0
    assert not snake.solve(chain, box, cpu).solved
    result = snake.count(chain, box, cpu)[0]
    assert (result.embeddings, result.distinct, result.complete) == (0, 0, True)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_4x4x4_subtrees_match_oracle(seed, cpu):
    """Full 4x4x4 counts are too slow for the oracle; compare the subtree below a 40-cube prefix instead."""
    box = Box(4, 4, 4)
    chain, path = random_chain(box, seed)
    k = 40
    expected = snake_oracle.embeddings(chain.letters, box.dims, prefix=path[:k].tolist())
    assert tuple(map(tuple, path)) in expected  # the generating folding is among them
    problem = snake.problem(chain, box)
    item = Frontier(state_after_prefix(chain, box, path, k)[None, :], np.array([k], np.int32),
                    np.zeros(1, np.int32), np.ones(1, np.int64))
    for s in (SearchSettings(), SearchSettings(budget=25, batch_size=4)):
        totals, rest = BatchDFS(problem, cpu, s).count(frontier=item)
        assert totals.count == len(expected) and len(rest) == 0


@pytest.mark.parametrize("seed", [10, 11])
def test_4x4x4_random_chains_solve(seed, cpu):
    box = Box(4, 4, 4)
    chain, _ = random_chain(box, seed)
    result = snake.solve(chain, box, cpu)
    assert result.solved
    cells = box.index(*np.array(result.cells).T)
    assert is_valid_embedding(chain, box, cells)


@settings(max_examples=15, deadline=None)
@given(dims=st.sampled_from([(2, 2, 2), (1, 2, 4), (2, 2, 3), (1, 3, 4), (2, 3, 3)]), seed=st.integers(0, 10**6))
def test_random_chains_match_oracle(dims, seed):
    from puzzlebatch.runners.engine.backend import select_backend

    cpu = select_backend("cpu")
    chain, _ = random_chain(Box(*dims), seed)
    expected = snake_oracle.count(chain.letters, dims)
    result, _, _ = snake.count(chain, Box(*dims), cpu, TINY)
    assert expected["embeddings"] >= 1  # solvable by construction
    assert (result.embeddings, result.distinct) == (expected["embeddings"], expected["distinct"])
