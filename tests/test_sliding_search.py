"""Sliding puzzles: whole-space BFS, IDA* and pattern databases against the oracles and published figures."""

import math
import random
from pathlib import Path

import numpy as np
import pytest

from puzzlebatch.puzzles.sliding import rules
from puzzlebatch.puzzles.sliding.model import Board, read_instances, replay, goal_board
from puzzlebatch.runners.sliding import solver as sliding
from puzzlebatch.runners.sliding import pdb as sliding_pdb
from tests.reference import sliding_oracle

DATA = Path(__file__).resolve().parent.parent / "puzzlebatch" / "data" / "sliding"

# Published figures (puzzlebatch/data/sliding/README.md: exhaustive BFS of the 8-puzzle, blank in a corner).
EIGHT_PUZZLE_DEPTHS = [1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638, 9529,
                       10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2]


@pytest.fixture(scope="module")
def oracle_3x3():
    graph = sliding_oracle.explicit_graph(3, 3)
    return {kind: sliding_oracle.dijkstra(graph, sliding_oracle.goal(3, 3, kind))
            for kind in ("blank-last", "blank-first")}


@pytest.fixture(scope="module")
def bfs_3x3(request):
    from puzzlebatch.runners.engine.backend import select_backend

    cpu = select_backend("cpu")
    return {kind: sliding.bfs(3, 3, kind, cpu) for kind in ("blank-last", "blank-first")}


@pytest.mark.parametrize("kind", ["blank-last", "blank-first"])
def test_8_puzzle_figures(kind, bfs_3x3):
    result, state = bfs_3x3[kind]
    assert result.states == 181_440 and result.max_depth == 31 and result.hardest_count == 2
    assert result.depth_counts == EIGHT_PUZZLE_DEPTHS
    assert round(result.mean_depth, 2) == 21.97
    assert sliding.bfs_done(state) and result.table_bytes == 90_720  # 4 bits a state


def test_8_puzzle_table_against_dijkstra(bfs_3x3, oracle_3x3):
    for kind in ("blank-last", "blank-first"):
        result, state = bfs_3x3[kind]
        dist = oracle_3x3[kind]
        assert result.depth_counts == sliding_oracle.depth_histogram(dist)
        for text in result.hardest:
            assert dist[tuple(map(int, text.split()))] == 31
        reachable = sorted(s for s, d in dist.items() if d != math.inf)
        for s in random.Random(1).sample(reachable, 400):
            r = sliding.rank(Board(3, 3, s))
            assert sliding.entry(state.packed, r) == dist[s] % 15
        for s in random.Random(2).sample(reachable, 25):
            assert sliding.table_distance(state.packed, Board(3, 3, s), kind) == dist[s]


@pytest.mark.parametrize("rows, cols", [(2, 2), (2, 3), (3, 2), (2, 4)])
def test_small_spaces_against_dijkstra(rows, cols, cpu):
    for kind in ("blank-last", "blank-first"):
        result, _ = sliding.bfs(rows, cols, kind, cpu)
        assert result.depth_counts == sliding_oracle.depth_histogram(sliding_oracle.distances(rows, cols, kind))
    if (rows, cols) == (2, 2):
        assert (result.states, result.max_depth) == (12, 6)  # README: 2x2, 12 states, maximum distance 6


def test_bfs_in_pieces_equals_bfs_at_once(cpu):
    whole, _ = sliding.bfs(2, 4, "blank-last", cpu)
    state = sliding.bfs_run(sliding.bfs_start(2, 4, "blank-last"), cpu, max_layers=5)
    assert len(state.depth_counts) == 6 and not sliding.bfs_done(state)
    state = sliding.bfs_run(state, cpu, chunk=7)
    assert sliding.bfs_result(state, cpu).depth_counts == whole.depth_counts


def test_bfs_refuses_too_large():
    from puzzlebatch.errors import PuzzleInputError

    with pytest.raises(PuzzleInputError, match="too many for a whole-space search"):
        sliding.bfs_start(4, 4, "blank-last")


@pytest.mark.parametrize("heuristic", ["manhattan", "linear-conflict", "pdb"])
def test_ida_star_is_optimal_on_the_8_puzzle(heuristic, oracle_3x3, cpu, tmp_path_factory):
    pdbs = None
    if heuristic == "pdb":
        pdbs = sliding_pdb.ensure(3, 3, "4-4", cpu, tmp_path_factory.mktemp("pdb"))
    rng = random.Random(8)
    for kind in ("blank-last", "blank-first"):
        dist = oracle_3x3[kind]
        states = rng.sample(sorted(s for s, d in dist.items() if d != math.inf), 25) + [(8, 6, 7, 2, 5, 4, 3, 0, 1)]
        boards = [Board(3, 3, s) for s in states]
        results = sliding.solve_batch(boards, kind, heuristic, cpu, pdbs=pdbs)
        for b, r in zip(boards, results):
            assert r.solvable and r.length == dist[b.tiles], (b, r)
            walk = replay(b, r.moves)
            assert walk[-1] == goal_board(3, 3, kind) and replay(b, list(r.directions))[-1] == walk[-1]
            assert r.backend == "cpu" and r.nodes >= r.length


def test_unsolvable_is_an_answer(cpu):
    r = sliding.solve(Board(3, 3, (1, 2, 3, 4, 5, 6, 8, 7, 0)), "blank-last", "manhattan", cpu)
    assert not r.solvable and r.length is None and r.explanation.startswith("unsolvable")


def test_korf_easy_subset_with_linear_conflicts(cpu):
    """The fastest instances of Korf's 100 with linear conflicts: lengths equal to the published optimum."""
    instances = read_instances(DATA / "korf100.txt")
    picked = [instances[i] for i in (8, 41, 46, 54, 70, 96)]
    results = sliding.solve_batch([b for b, _ in picked], "blank-first", "linear-conflict", cpu)
    assert [r.length for r in results] == [n for _, n in picked]


def test_heuristics_are_admissible_and_ordered(bfs_3x3, oracle_3x3, cpu, tmp_path):
    """Manhattan <= Manhattan + conflicts <= true distance; the 4-4 databases never overestimate either."""
    pdbs = sliding_pdb.ensure(3, 3, "4-4", cpu, tmp_path)
    arrays = pdbs.kernel_arrays()
    dist = oracle_3x3["blank-first"]
    for s in random.Random(4).sample(sorted(s for s, d in dist.items() if d != math.inf), 120):
        b = np.array(s, np.int64)
        h = {}
        for name in ("manhattan", "linear-conflict", "pdb"):
            tables = arrays if name == "pdb" else sliding._tables(name, 3, 3)
            stats = np.zeros((1, rules.STATS_WIDTH), np.int64)
            from puzzlebatch.cpu_fallback.sliding import drivers

            drivers().ida_batch(b[None, :], 3, 3, sliding.HEURISTICS[name], 0, *tables,
                                np.zeros((1, 1), np.int64), stats)
            h[name] = int(stats[0, 4])
        assert h["manhattan"] == rules.manhattan(b, 3, 3)
        assert h["manhattan"] <= h["linear-conflict"] <= dist[s]
        assert h["pdb"] <= dist[s]


@pytest.mark.parametrize("rows, cols, tiles", [(3, 3, (1, 2, 3)), (3, 3, (5, 6, 7, 8)), (2, 4, (1, 5, 6)),
                                               (4, 4, (13, 14, 15))])
def test_pattern_database_against_01_bfs_oracle(rows, cols, tiles, cpu, tmp_path):
    path = sliding_pdb.build_pattern(rows, cols, tiles, cpu, tmp_path)
    table = np.asarray(sliding_pdb.load_table(path))
    assert isinstance(sliding_pdb.load_table(path), np.memmap)
    expected = sliding_oracle.pattern_database(rows, cols, tiles)
    n = rows * cols
    got = {}
    for cells, _d in expected.items():
        got[cells] = int(table[rules.pattern_rank(np.array(cells, np.int64), len(tiles), n)])
    assert got == expected
    import h5py

    with h5py.File(path, "r") as f:
        assert f.attrs["goal"] == "blank-first" and list(f.attrs["tiles"]) == list(tiles)
        assert f["distances"].shape == (math.perm(n, len(tiles)),)


def test_pattern_build_resumes(cpu, tmp_path):
    fresh = sliding_pdb.build_pattern(3, 3, (1, 2, 3, 4), cpu, tmp_path / "a")
    partial = sliding_pdb.build_pattern(3, 3, (1, 2, 3, 4), cpu, tmp_path / "b", max_layers=4)
    assert partial.name.endswith(".partial.h5") and partial.exists()
    final = sliding_pdb.build_pattern(3, 3, (1, 2, 3, 4), cpu, tmp_path / "b")
    assert not partial.exists()
    assert np.array_equal(np.asarray(sliding_pdb.load_table(fresh)), np.asarray(sliding_pdb.load_table(final)))


def test_pattern_unrank_inverts_rank():
    n, k = 16, 5
    pos = np.zeros(k, np.int64)
    for r in random.Random(5).sample(range(math.perm(n, k)), 200):
        rules.pattern_unrank(r, k, n, pos)
        assert len(set(pos.tolist())) == k and rules.pattern_rank(pos, k, n) == r


@pytest.mark.slow
def test_korf_100_with_6_6_3(cpu, tmp_path):
    """All of Korf's 100 optimally with the 6-6-3 databases (building them takes about a minute)."""
    pdbs = sliding_pdb.ensure(4, 4, "6-6-3", cpu, tmp_path)
    instances = read_instances(DATA / "korf100.txt")
    results = sliding.solve_batch([b for b, _ in instances], "blank-first", "pdb", cpu, pdbs=pdbs)
    assert [r.length for r in results] == [n for _, n in instances]


@pytest.mark.parametrize("shift", [1, 2])
def test_compressed_databases_stay_optimal_and_admissible(shift, oracle_3x3, cpu, tmp_path):
    """Tables compressed by minimum (entry i the least of 2**shift entries): every length still the BFS
    oracle's, the start heuristic never above the full tables', and no fewer nodes."""
    full = sliding_pdb.ensure(3, 3, "4-4", cpu, tmp_path)
    small = full.compressed(shift)
    assert len(small.kernel_arrays()[0]) == sum(-(-len(t) // 2 ** shift) for t in full.tables)
    assert small.kernel_arrays()[6] == 1 | (shift << 1)
    dist = oracle_3x3["blank-first"]
    rng = random.Random(5)
    states = rng.sample(sorted(s for s, d in dist.items() if d != math.inf), 30)
    boards = [Board(3, 3, s) for s in states]
    exact = sliding.solve_batch(boards, "blank-first", "pdb", cpu, pdbs=full)
    loose = sliding.solve_batch(boards, "blank-first", "pdb", cpu, pdbs=small)
    for b, a, c in zip(boards, exact, loose):
        assert c.length == a.length == dist[b.tiles] and c.initial_h <= a.initial_h
        assert replay(b, c.moves)[-1] == goal_board(3, 3, "blank-first")
    assert sum(c.nodes for c in loose) >= sum(a.nodes for a in exact)
    assert sum(c.initial_h for c in loose) < sum(a.initial_h for a in exact)  # the compression does lose
