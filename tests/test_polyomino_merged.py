"""Counting by merged states (the bitboard's ``MERGE_KEY``, :mod:`puzzlebatch.runners.engine.merge`).

A merged layer keeps each set of equal nodes once, weighted by how many paths reach it; the count is exact for
any cap on a layer's size, so every check here runs at several caps (every layer merged, a handover to the tree
search after a few layers, after the first): the published counts, the plain-Python Algorithm X oracle, the
layers against the plain expansion node by node, the simulator's kernel on the merged weighted items, a count
stopped and resumed after merging, enumeration (which must not merge), and the ``auto`` choice.
"""

import json
import random
from collections import Counter

import numpy as np
import pytest

from puzzlebatch.puzzles.polyomino import bitboard_rules as BR
from puzzlebatch.runners.engine import merge as EM
from puzzlebatch.runners.engine.search import BatchDFS, Frontier, SearchSettings, SearchTotals
from puzzlebatch.runners.polyomino import solver as RP
from tests.backends import GPU
from tests.test_polyomino_bitboard import PUBLISHED, _pack
from tests.test_polyomino_mrv import oracle_count, random_packing

CAPS = (1 << 21, 40, 3)  # every layer merged; a handover after a few layers; after the first (or none)


def _merged(cap: int, **kw) -> SearchSettings:
    return SearchSettings(merge="yes", merge_states=cap, **kw)


# The published counts of tests/test_polyomino_bitboard.py (Haselgrove, Scott, Conway and Guy).
@pytest.mark.parametrize("board, pieces, solutions, distinct", PUBLISHED)
def test_merged_counts_are_the_published_ones(cpu, board, pieces, solutions, distinct):
    pk = _pack(board, pieces)
    plain = RP.count_packing(pk, cpu, mode="bitboard", settings=SearchSettings(merge="no"))
    assert plain.merged_layers == 0 and (plain.solutions, plain.distinct) == (solutions, distinct)
    for cap in CAPS:
        got = RP.count_packing(pk, cpu, mode="bitboard", settings=_merged(cap))
        assert (got.solutions, got.distinct) == (solutions, distinct), f"cap {cap}"
        if cap == CAPS[0]:
            assert got.merged_layers > 0 and got.nodes < plain.nodes  # merging is what made the nodes fewer


def test_iq_puzzler_pro_every_solution_by_merged_states(cpu):
    # Smart Games' published total for the IQ Puzzler Pro board (11x5, 12 pieces): 1,082,785 distinct, 4,331,140
    # in all.  The default ("auto") merges here: the tree is estimated at about 10^8 nodes.
    got = RP.count_packing(_pack("11x5", "iq-puzzler-pro"), cpu, mode="bitboard")
    assert got.merged_layers > 0
    assert (got.solutions, got.distinct) == (4331140, 1082785)


@pytest.mark.parametrize("seed", range(8))
def test_random_packings_merged_match_the_oracle(cpu, seed):
    pk = random_packing(random.Random(700 + seed))
    truth = oracle_count(pk.cover)
    for cap in (1 << 21, 5, 1):
        got = RP.count_packing(pk, cpu, mode="bitboard", distinct=False,
                               settings=_merged(cap, budget=5, batch_size=16, frontier_target=6))
        assert got.solutions == truth, f"cap {cap}"


def _plain_layers(dfs: BatchDFS, k: int):
    """The first ``k`` layers of the plain expansion, one node per row (no merging)."""
    p = dfs.problem
    fr = Frontier.root(p)
    layers = []
    for _ in range(k):
        states, depths, parent, _ = dfs._host.expand(fr.states, fr.depths, fr.los, p.goal, p.tables)
        fr = Frontier(states, depths, np.zeros(len(depths), np.int32), fr.weights[parent])
        layers.append(fr)
    return layers


def test_a_merged_layer_holds_every_node_once_with_its_multiplicity(cpu):
    """Layer by layer, each merged item stands for exactly the plain nodes with its key: the weights are the
    multiplicities of the keys among the plain nodes, and each item's state is one of those nodes (the same
    covered cells, pieces and candidate list)."""
    eng = RP.engine(_pack("10x6", "pentominoes").cover, "bitboard")
    dfs = BatchDFS(eng.problem, cpu, SearchSettings(merge="yes"))
    plain = _plain_layers(dfs, 4)
    fr = Frontier.root(eng.problem)
    item = int(eng.enc.tables[BR.S_ITEM])
    for layer in plain:
        nxt = EM.merge_layer(dfs, dfs._host.merge, fr, SearchTotals(), np.array(BR.MERGE_KEY), 1 << 21)
        assert nxt is not None
        want = Counter((int(s[0]), int(s[1]), int(d)) for s, d in zip(layer.states, layer.depths))
        got = {(int(s[0]), int(s[1]), int(d)): int(w) for s, d, w in zip(nxt.states, nxt.depths, nxt.weights)}
        assert got == dict(want) and len(got) == len(nxt)  # each key once, weighted by its plain multiplicity
        rep = {(int(s[0]), int(s[1]), int(d)): s for s, d in zip(layer.states, layer.depths)}
        for s, d in zip(nxt.states, nxt.depths):
            assert s[item + d] == rep[(int(s[0]), int(s[1]), int(d))][item + d]
        assert len(nxt) < len(layer) or len(layer) < 100
        fr = nxt


def test_a_layer_over_the_cap_is_not_counted(cpu):
    eng = RP.engine(_pack("10x6", "pentominoes").cover, "bitboard")
    dfs = BatchDFS(eng.problem, cpu, SearchSettings(merge="yes"))
    totals = SearchTotals()
    left = EM.merge_expand(dfs, Frontier.root(eng.problem), totals, 600)  # layer 2 has 543 states, layer 3 3,052
    assert totals.merged_layers == 2 and len(left) == 543 and totals.count == 0
    assert int(left.weights.sum()) == 550  # the 550 nodes of the second layer, 7 of them merged away


def test_a_layer_predicted_far_over_the_cap_is_not_built(cpu, monkeypatch):
    # layer 3 (3,052 states, 9,322 child slots) from layer 2's states per slot (543 of 1,140): 4,440 predicted, over
    # twice a cap of 600, so it is not built (it was built to the cap and dropped); under a cap of 2,500 it is built,
    # and dropped
    eng = RP.engine(_pack("10x6", "pentominoes").cover, "bitboard")
    dfs = BatchDFS(eng.problem, cpu, SearchSettings(merge="yes"))
    built = []
    layer = EM.merge_layer
    monkeypatch.setattr(EM, "merge_layer", lambda *a, **k: built.append(len(a[2])) or layer(*a, **k))
    for cap, tried in ((600, [1, 35]), (2500, [1, 35, 543])):
        built.clear()
        totals = SearchTotals()
        left = EM.merge_expand(dfs, Frontier.root(eng.problem), totals, cap)
        assert built == tried and totals.merged_layers == 2 and len(left) == 543 and totals.count == 0


def test_a_count_stopped_after_merging_resumes_to_the_published_count(cpu, tmp_path):
    from puzzlebatch.api import polyomino as api

    out = tmp_path / "c.h5"
    st = _merged(300, budget=50, batch_size=8, frontier_target=8)
    part = api.count("10x6", "pentominoes", out=out, max_batches=2, settings=st, backend="cpu")
    assert not part.complete and part.merged_layers > 0
    whole = api.count("10x6", "pentominoes", out=out, resume=True, settings=st, backend="cpu")
    assert whole.complete and (whole.solutions, whole.distinct) == (9356, 2339)


def test_enumeration_never_merges(cpu, tmp_path):
    from puzzlebatch.api import polyomino as api

    board, pieces = "4x3", "trominoes+tetrominoes+dominoes"
    got = api.count(board, pieces, all=True, merge="yes", out=tmp_path / "e.h5", backend="cpu")
    assert got.merged_layers == 0
    counted = api.count(board, pieces, merge="yes", distinct=False, backend="cpu")
    assert counted.merged_layers > 0
    assert got.solutions == counted.solutions == oracle_count(_pack(board, pieces).cover) > 0


def test_auto_merges_only_where_the_tree_is_large(cpu, monkeypatch):
    pk = _pack("12x5", "pentominoes")
    small = RP.count_packing(pk, cpu, mode="bitboard")  # about 2 x 10^5 nodes estimated: a tree search
    assert small.merged_layers == 0
    monkeypatch.setattr(EM, "AUTO_NODES", 0.0)
    merged = RP.count_packing(pk, cpu, mode="bitboard")
    assert merged.merged_layers > 0 and (merged.solutions, merged.distinct) == (small.solutions, small.distinct)


def test_auto_decides_a_small_tree_on_the_quick_estimate(cpu, monkeypatch):
    """``auto`` probes each sampled item AUTO_QUICK times first; a tree far below the threshold is decided then,
    and only one near or over it is estimated again with AUTO_PROBES probes."""
    eng = RP.engine(_pack("15x4", "pentominoes").cover, "bitboard")  # the whole tree: 8 x 10^5 nodes
    dfs = BatchDFS(eng.problem, cpu)
    frontier = dfs.expand(Frontier.root(eng.problem), SearchTotals(), 64)
    real, probes = dfs._host, []

    class Spy:
        def __getattr__(self, name):
            return getattr(real, name)

        def estimate_item(self, *args):
            probes.append(int(args[4]))
            return real.estimate_item(*args)

    dfs._host = Spy()
    assert not EM.wants_merge(dfs, frontier)
    assert set(probes) == {EM.AUTO_QUICK} and len(probes) == min(len(frontier), EM.AUTO_SAMPLE)
    probes.clear()
    monkeypatch.setattr(EM, "AUTO_NODES", 1.0)  # every tree is over it
    assert EM.wants_merge(dfs, frontier)
    assert sorted(set(probes)) == [EM.AUTO_QUICK, EM.AUTO_PROBES]


def test_the_command_line_merges_on_request(capsys):
    from puzzlebatch.cli import main

    base = ["polyomino", "count", "--board", "12x5", "--pieces", "pentominoes", "--backend", "cpu", "--json"]
    docs = {}
    for how in ("yes", "no"):
        assert main(base + ["--merge", how]) == 0
        docs[how] = json.loads(capsys.readouterr().out)
    assert docs["yes"]["merged_layers"] > 0 and docs["no"]["merged_layers"] == 0
    assert docs["yes"]["solutions"] == docs["no"]["solutions"] == 4040
    assert main(base + ["--merge", "maybe"]) == 2
    assert "--merge: invalid choice: 'maybe'" in capsys.readouterr().err


@pytest.mark.gpu
def test_the_kernel_searches_merged_items_like_the_cpu(cpu, gpu):
    """After a few merged layers the simulator's kernel searches the weighted items: the same counts and nodes
    as the CPU's tree search of the same items, and the oracle's count."""
    pk = _pack("5x3", "trominoes+tetrominoes+dominoes")
    eng = RP.engine(pk.cover, "bitboard")
    left = EM.merge_expand(BatchDFS(eng.problem, cpu), Frontier.root(eng.problem), SearchTotals(), 400)
    assert len(left) and int(left.weights.max()) > 1  # the kernel gets weighted items (207, weights up to 16)
    settings = _merged(400, budget=20, batch_size=64, frontier_target=10, first_batch_size=6)
    got = {b.name: RP.count_packing(pk, b, mode="bitboard", settings=settings, distinct=False) for b in (cpu, gpu)}
    assert got[GPU].backend == GPU and got[GPU].merged_layers == got["cpu"].merged_layers > 0
    assert got["cpu"].solutions == got[GPU].solutions == oracle_count(pk.cover) > 0
    assert got["cpu"].nodes == got[GPU].nodes


def test_layers_merged_in_a_symmetric_subproblem_are_reported(cpu):
    # pieces may stay out of 5x4 (8 pentominoes and trominoes for 20 cells): no piece breaks the board's
    # symmetries, the whole count is the subproblem that keeps them, and its merged layers are the result's
    pk = _pack("5x4", "pentominoes+trominoes")
    merged = RP.count_packing(pk, cpu, mode="bitboard", settings=_merged(1 << 21))
    tree = RP.count_packing(pk, cpu, mode="bitboard", settings=SearchSettings(merge="no"))
    assert "kept symmetries" in merged.note
    assert merged.merged_layers > 0 and tree.merged_layers == 0
    first = RP.count_packing(pk, cpu, mode="first")
    assert (merged.solutions, merged.distinct) == (tree.solutions, tree.distinct) == (first.solutions, first.distinct)
    assert merged.solutions == oracle_count(pk.cover) > 0
