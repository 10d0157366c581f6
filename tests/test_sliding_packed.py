"""4-bit pattern databases (value less the tiles' Manhattan distance, halved): every entry decodes to the byte
table's value, IDA* with them expands the same nodes, on the CPU and on the CUDA twin in the simulator."""

import numpy as np
import pytest

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.sliding import rules
from puzzlebatch.puzzles.sliding.model import parse_board
from puzzlebatch.runners.sliding import pdb as sliding_pdb
from puzzlebatch.runners.sliding import solver as sliding
from puzzlebatch.runners.sliding import split as split_search
from tests.backends import GPU

BOARDS = ("4 1 3 7 2 6 0 5 8", "2 3 6 1 5 0 4 7 8", "8 6 7 2 5 4 3 0 1", "6 4 7 8 5 0 3 2 1")


def _decode(packed, entries, tiles, rows, cols):
    n, k = rows * cols, len(tiles)
    out = np.empty(entries, np.int64)
    pos = np.empty(k, np.int64)
    for e in range(entries):
        rules.pattern_unrank(e, k, n, pos)
        md = sum(abs(int(c) // cols - t // cols) + abs(int(c) % cols - t % cols) for c, t in zip(pos, tiles))
        out[e] = md + 2 * ((int(packed[e >> 1]) >> (4 * (e & 1))) & 15)
    return out


def test_packed_tables_decode_to_the_byte_tables(cpu, tmp_path):
    full = sliding_pdb.ensure(3, 3, "4-4", cpu, tmp_path)
    packed = sliding_pdb.load(3, 3, "4-4", tmp_path, packed=True)
    assert sliding_pdb.packed_file(3, 3, "4-4", tmp_path).exists()
    assert not packed.kernel_arrays()[0].flags.owndata  # the mapped file itself, nothing concatenated
    for tiles, table, small in zip(full.patterns, full.tables, packed.tables):
        assert small.nbytes == (len(table) + 1) // 2
        assert np.array_equal(_decode(small, len(table), tiles, 3, 3), np.asarray(table))
    # an odd number of entries (2x3, one tile: 6 cells... 5 entries given): the last byte's high nibble pads
    assert len(sliding_pdb.pack_table(np.full(5, 9, np.uint8), 2, 3, (1,))) == 3


def test_packed_ida_expands_the_same_nodes(cpu, tmp_path):
    sliding_pdb.ensure(3, 3, "4-4", cpu, tmp_path)
    runs = [sliding.solve_batch([parse_board(t) for t in BOARDS], "blank-last", "pdb", cpu,
                                pdbs=sliding_pdb.load(3, 3, "4-4", tmp_path, packed=p)) for p in (False, True)]
    for a, b in zip(*runs):
        assert (a.length, a.moves, a.nodes, a.iterations, a.initial_h) == \
               (b.length, b.moves, b.nodes, b.iterations, b.initial_h)
    split = split_search.solve_split(parse_board(BOARDS[2]), "blank-last", "pdb", cpu, items=8,
                                pdbs=sliding_pdb.load(3, 3, "4-4", tmp_path, packed=True))
    assert split.length == runs[0][2].length == 31


def test_packed_ida_resumed_launch_after_launch_expands_the_same_nodes(cpu, tmp_path, monkeypatch):
    """Launches of 64 nodes: every board stops and replays its path many times (the pattern's Manhattan distance
    carried move by move through the replay), with the same nodes and moves as one unbounded launch."""
    from puzzlebatch.runners.engine.launch import LaunchPlanner

    sliding_pdb.ensure(3, 3, "4-4", cpu, tmp_path)
    packed = sliding_pdb.load(3, 3, "4-4", tmp_path, packed=True)
    boards = [parse_board(t) for t in BOARDS]
    whole = sliding.solve_batch(boards, "blank-last", "pdb", cpu, pdbs=packed)
    real = sliding.ida_launches
    monkeypatch.setattr(sliding, "ida_launches", lambda *a, **k: real(
        *a, planner=LaunchPlanner(64, 2, 1.0, min_budget=64, first_nodes=64), **k))
    cut = sliding.solve_batch(boards, "blank-last", "pdb", cpu, pdbs=packed)
    assert [(r.length, r.moves, r.nodes, r.iterations) for r in cut] == \
           [(r.length, r.moves, r.nodes, r.iterations) for r in whole]
    assert max(r.nodes for r in whole) > 64 * 4  # several launches at least


def test_packed_file_is_rewritten_when_a_table_changes(cpu, tmp_path):
    import os

    pdbs = sliding_pdb.ensure(3, 3, "4-4", cpu, tmp_path)
    args = (3, 3, "4-4", pdbs.patterns, pdbs.files, tmp_path)
    first = sliding_pdb.ensure_packed(*args)
    stamp = first.stat().st_mtime_ns
    assert sliding_pdb.ensure_packed(*args).stat().st_mtime_ns == stamp
    os.utime(pdbs.files[0], (1, 1))
    assert sliding_pdb.ensure_packed(*args).stat().st_mtime_ns != stamp


@pytest.mark.gpu
def test_packed_ida_on_the_simulator_equals_cpu(cpu, gpu, tmp_path):
    sliding_pdb.ensure(3, 3, "4-4", cpu, tmp_path)
    pdbs = sliding_pdb.load(3, 3, "4-4", tmp_path, packed=True)
    boards = [parse_board(t) for t in BOARDS[:2]]
    runs = {b.name: sliding.solve_batch(boards, "blank-last", "pdb", b, pdbs=pdbs) for b in (cpu, gpu)}
    for a, b in zip(runs["cpu"], runs[GPU]):
        assert b.backend == GPU
        assert (a.length, a.moves, a.nodes, a.iterations) == (b.length, b.moves, b.nodes, b.iterations)


def test_5x5_tables_are_read_in_4_bits_and_split_solves_with_them(cpu, tmp_path, monkeypatch):
    """A 5x5 partition of small patterns (the 6-6-6-6 takes a quarter of an hour to build): loaded in 4 bits by
    default, the batch IDA* with them finds the optimal length (the linear-conflict search's)."""
    from puzzlebatch.puzzles.sliding.model import goal_board, replay

    threes = [tuple(range(k, k + 3)) for k in range(1, 25, 3)]
    monkeypatch.setitem(sliding_pdb.PARTITIONS, (5, 5), {"3x8": threes})
    pdbs = sliding_pdb.ensure(5, 5, "3x8", cpu, tmp_path)
    assert pdbs.packed and sliding_pdb.packed_file(5, 5, "3x8", tmp_path).exists()
    assert not sliding_pdb.load(5, 5, "3x8", tmp_path, packed=False).packed
    est = sliding_pdb.estimate(5, 5, pdbs.patterns)
    assert est.disk_bytes == est.entries + (est.entries + 1) // 2  # the byte tables and the 4-bit file
    b = goal_board(5, 5, "blank-first")
    for d in "RRDDLURDLU":  # ten blank moves from the goal
        b = replay(b, [d])[1]
    r = split_search.solve_split(b, "blank-first", "pdb", cpu, pdbs=pdbs, items=16)
    assert r.length == sliding.solve(b, "blank-first", "linear-conflict", cpu).length


def test_a_partition_must_hold_every_tile_once(monkeypatch):
    """The databases' sum is admissible only for disjoint patterns, and zero only on the goal when they hold
    every tile: a partition that misses a tile or repeats one is refused by name."""
    for bad in ([(1, 2, 3, 4), (5, 6, 7)], [(1, 2, 3, 4), (4, 5, 6, 7, 8)]):
        monkeypatch.setitem(sliding_pdb.PARTITIONS, (3, 3), {"bad": bad})
        with pytest.raises(PuzzleInputError, match="partition 'bad' for 3x3: .*every tile 1 to 8 exactly once"):
            sliding_pdb.partition(3, 3, "bad")


def test_tables_beyond_the_caches_are_read_in_4_bits_by_default():
    """5x5 partitions and the 4x4's 7-8 (577 M entries) default to the 4-bit file; the 4x4's smaller partitions
    and the 3x3's stay in bytes; the build estimate counts the 4-bit file's disk where it is made."""
    parts = sliding_pdb.PARTITIONS
    assert sliding_pdb.packs(4, 4, parts[(4, 4)]["7-8"])
    assert not any(sliding_pdb.packs(4, 4, parts[(4, 4)][name]) for name in ("6-6-3", "5-5-5"))
    assert not sliding_pdb.packs(3, 3, parts[(3, 3)]["4-4"])
    assert all(sliding_pdb.packs(5, 5, p) for p in parts[(5, 5)].values())
    est = sliding_pdb.estimate(4, 4, parts[(4, 4)]["7-8"])
    assert est.disk_bytes == est.entries + (est.entries + 1) // 2
    est = sliding_pdb.estimate(4, 4, parts[(4, 4)]["6-6-3"])
    assert est.disk_bytes == est.entries
