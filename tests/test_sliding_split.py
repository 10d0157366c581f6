"""Batch IDA* (the root split into work items, one bounded iteration a launch): optimal lengths against the
sequential IDA* and the BFS table, and the CUDA twin in the simulator against the CPU, node for node."""

import random

import numpy as np
import pytest

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.sliding.model import goal_board, parse_board, replay
from puzzlebatch.runners.sliding import pdb as sliding_pdb
from puzzlebatch.runners.sliding import solver as sliding
from puzzlebatch.runners.sliding import split as split_search
from tests.backends import GPU


def _scrambled(rows, cols, steps, seed):
    """A board ``steps`` random blank moves (never undoing the last) from the blank-first goal."""
    rng = random.Random(seed)
    b = goal_board(rows, cols, "blank-first")
    last = None
    for _ in range(steps):
        options = []
        for d in "UDLR":
            if last is not None and {d, last} in ({"U", "D"}, {"L", "R"}):
                continue
            try:
                options.append((replay(b, [d])[1], d))
            except PuzzleInputError:
                pass
        b, last = rng.choice(options)
    return b


EIGHTS = ["8 6 7 2 5 4 3 0 1", "4 1 3 7 2 6 0 5 8", "2 3 6 1 5 0 4 7 8", "6 4 7 8 5 0 3 2 1"]


@pytest.mark.parametrize("items", [1, 7, 64])
def test_split_lengths_equal_the_bfs_distances(cpu, items):
    res, state = sliding.bfs(3, 3, "blank-last", cpu)
    for text in EIGHTS:
        b = parse_board(text)
        r = split_search.solve_split(b, "blank-last", "manhattan", cpu, items=items)
        assert r.length == sliding.table_distance(state.packed, b, "blank-last")
        assert replay(b, r.moves)[-1] == goal_board(3, 3) and r.backend == "cpu"


def test_split_against_sequential_ida_on_15_puzzles(cpu):
    seq, split = [], []
    for seed in range(4):
        b = _scrambled(4, 4, 40, seed)
        seq.append(sliding.solve(b, "blank-first", "linear-conflict", cpu))
        split.append(split_search.solve_split(b, "blank-first", "linear-conflict", cpu, items=50))
    assert [r.length for r in seq] == [r.length for r in split]
    # nothing is cut off above the split, so a bound may be skipped there, never one added
    assert all(b.iterations <= a.iterations for a, b in zip(seq, split))
    assert all(s.nodes > 0 for s in split)


def test_split_progress_resume_and_limits(cpu):
    b = parse_board("8 6 7 2 5 4 3 0 1")
    seen = []
    r = split_search.solve_split(b, "blank-last", "manhattan", cpu, items=16, on_iteration=seen.append)
    assert [s.bound for s in seen] == sorted({s.bound for s in seen}) and seen[-1].solved
    assert seen[-1].bound == r.length == 31 and seen[-1].nodes == r.nodes
    resumed = split_search.solve_split(b, "blank-last", "manhattan", cpu, items=16, start_bound=seen[-2].bound)
    assert resumed.moves == r.moves and resumed.iterations == 2
    with pytest.raises(sliding.NodeLimit, match="bound"):
        split_search.solve_split(b, "blank-last", "manhattan", cpu, items=16, max_nodes=100)
    with pytest.raises(PuzzleInputError, match="split depth"):
        split_search.solve_split(b, "blank-last", "manhattan", cpu, depth=40)
    unsolvable = split_search.solve_split(parse_board("1 2 3 4 5 6 8 7 0"), "blank-last", "manhattan", cpu)
    assert not unsolvable.solvable and unsolvable.length is None


def _same(a, b):
    return (a.length, a.moves, a.nodes, a.iterations, a.initial_h) == (b.length, b.moves, b.nodes, b.iterations,
                                                                        b.initial_h)


@pytest.mark.gpu
@pytest.mark.parametrize("heuristic", ["manhattan", "linear-conflict", "pdb"])
def test_split_on_the_simulator_equals_cpu_3x3(heuristic, cpu, gpu, tmp_path):
    pdbs = sliding_pdb.ensure(3, 3, "4-4", cpu, tmp_path) if heuristic == "pdb" else None
    for text in EIGHTS[1:3]:
        b = parse_board(text)
        a, g = (split_search.solve_split(b, "blank-last", heuristic, x, pdbs=pdbs, items=24) for x in (cpu, gpu))
        assert g.backend == GPU and _same(a, g)


@pytest.mark.gpu
def test_split_on_the_simulator_equals_cpu_4x4_and_5x5(cpu, gpu):
    for rows, cols, steps, h in ((4, 4, 24, "linear-conflict"), (5, 5, 16, "manhattan")):
        b = _scrambled(rows, cols, steps, 7)
        a, g = (split_search.solve_split(b, "blank-first", h, x, items=20) for x in (cpu, gpu))
        assert g.backend == GPU and _same(a, g) and a.length == sliding.solve(b, "blank-first", h, cpu).length
        assert np.all(np.array(a.moves) > 0)


def test_split_from_the_command_line(capsys):
    from puzzlebatch.cli import main

    assert main(["sliding", "solve", "8 6 7 2 5 4 3 0 1", "--heuristic", "manhattan", "--split", "16",
                 "--backend", "cpu", "--json"]) == 0
    out = capsys.readouterr()
    import json

    doc = json.loads(out.out)
    assert doc["length"] == 31 and "iteration 6: bound 31" in out.err and "(solved)" in out.err
    assert main(["sliding", "solve", "8 6 7 2 5 4 3 0 1", "--split", "16", "--from-bound", "29",
                 "--heuristic", "manhattan", "--backend", "cpu", "--json"]) == 0
    again = capsys.readouterr()
    assert json.loads(again.out)["moves"] == doc["moves"] and "iteration 1: bound 29" in again.err
    for argv, words in ((["--from-bound", "3"], "needs --split"), (["--split", "0"], "--split")):
        assert main(["sliding", "solve", "8 6 7 2 5 4 3 0 1", *argv]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0]


def test_ctrl_c_in_a_split_search_says_the_bound_to_go_on_from(capsys, monkeypatch):
    """Ctrl-C (injected as the third iteration's line is said): one line naming --from-bound, exit 130; the same
    command with it finds the same solution."""
    import json

    from puzzlebatch.cli import main
    from puzzlebatch.cli.sliding import commands

    said = []
    real_say = commands._say

    def say(line):
        said.append(line)
        real_say(line)
        if line.startswith("iteration 3:"):
            raise KeyboardInterrupt

    monkeypatch.setattr(commands, "_say", say)
    argv = ["sliding", "solve", "8 6 7 2 5 4 3 0 1", "--heuristic", "manhattan", "--split", "16", "--backend", "cpu"]
    assert main([*argv, "--json"]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    bound = int(said[-1].split("next bound ")[1])
    assert err[-1] == (f"puzzlebatch: interrupted; the iterations below bound {bound} are done: the same command "
                       f"with --from-bound {bound} goes on from there")
    monkeypatch.setattr(commands, "_say", real_say)
    assert main([*argv, "--from-bound", str(bound), "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["length"] == 31 and f"iteration 1: bound {bound}," in out.err


def test_split_on_a_dask_cluster_equals_the_embedded_run(cpu, cluster, tmp_path):
    """Every iteration's items in slices on a local:2 cluster (the workers read the databases from the folder):
    the same solution, node count and iterations as in this process."""
    from puzzlebatch.runners.engine.distributed import open_pool

    pdbs = sliding_pdb.ensure(3, 3, "4-4", cpu, tmp_path)
    b = parse_board(EIGHTS[0])
    here = split_search.solve_split(b, "blank-last", "pdb", cpu, pdbs=pdbs, items=24)
    with open_pool(cluster, "cpu") as pool:
        assert pool.distributed and pool.n_workers == 2
        there = split_search.solve_split(b, "blank-last", "pdb", cpu, pdbs=pdbs, items=24, pool=pool)
    assert _same(here, there) and there.length == 31
