"""The one-word bitboard rule (``--branch bitboard``): published counts, the plain-Python Algorithm X oracle and
the general engines on random packings, the region test against a full flood fill, 64-cell boards (the sign
bit), the fallback where it does not apply, and the CUDA twin in the simulator, bit for bit."""

import random
from dataclasses import replace

import numpy as np
import pytest

from puzzlebatch.puzzles.polyomino import bitboard as B
from puzzlebatch.puzzles.polyomino import bitboard_rules as BR
from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.runners.engine.search import BatchDFS, Frontier, SearchSettings, SearchTotals
from puzzlebatch.runners.polyomino import solver as RP
from tests.backends import GPU
from tests.test_polyomino_mrv import oracle_count, random_packing

SPLITTY = SearchSettings(budget=5, batch_size=16, frontier_target=6, first_batch_size=4)
CENTRE = "\n".join("........" if y not in (3, 4) else "...##..." for y in range(8))  # 8x8 minus its 2x2 centre


def _pack(board, pieces, **kw):
    b = P.parse_board_text(board) if "\n" in board else P.parse_board(board)
    return P.build(b, S.load_pieces(pieces, **kw))


# Published counts: pentomino rectangles (Haselgrove 1960; OEIS A000105 notes / Knuth, "Dancing Links"), the
# 8x8 board minus its centre (Dana Scott 1958: 65), the Soma cube (Conway and Guy: 240 distinct, 11,520 in all).
PUBLISHED = [
    ("20x3", "pentominoes", 8, 2),
    ("15x4", "pentominoes", 1472, 368),
    ("12x5", "pentominoes", 4040, 1010),
    ("10x6", "pentominoes", 9356, 2339),
    (CENTRE, "pentominoes", 520, 65),
    ("3x3x3", "soma", 11520, 240),
]


@pytest.mark.parametrize("board, pieces, solutions, distinct", PUBLISHED)
def test_published_counts(cpu, board, pieces, solutions, distinct):
    pk = _pack(board, pieces)
    assert B.supports(pk.cover)
    got = RP.count_packing(pk, cpu, mode="bitboard")
    assert got.branch == "bitboard"
    assert (got.solutions, got.distinct) == (solutions, distinct)


@pytest.mark.slow
def test_iq_puzzler_pro_every_solution(cpu):
    # the IQ Puzzler Pro board (11x5, 12 pieces): 1,082,785 distinct, 4,331,140 in all (Smart Games' published
    # total, reproduced by the general engine in tests/test_polyomino.py)
    got = RP.count_packing(_pack("11x5", "iq-puzzler-pro"), cpu, mode="bitboard")
    assert (got.branch, got.solutions, got.distinct) == ("bitboard", 4331140, 1082785)


@pytest.mark.parametrize("seed", range(8))
def test_random_packings_match_the_oracle_and_the_general_engines(cpu, seed):
    rng = random.Random(300 + seed)
    pk = random_packing(rng)
    got = RP.count_packing(pk, cpu, mode="bitboard", settings=SPLITTY, distinct=False)
    assert got.branch == "bitboard"
    assert got.solutions == oracle_count(pk.cover)
    first = RP.count_packing(pk, cpu, mode="first", distinct=False)
    assert got.solutions == first.solutions
    # with symmetry breaking (leaves fixed out of search order) the classes agree too
    assert RP.count_packing(pk, cpu, mode="bitboard").distinct == RP.count_packing(pk, cpu, mode="first").distinct


@pytest.mark.parametrize("board, pieces", [("10x6", "pentominoes"), ("11x5", "iq-puzzler-pro"),
                                           ("3x3x3", "soma"), ("4x4", "trominoes+tetrominoes+dominoes")])
def test_keyed_lists_hold_exactly_the_candidates_that_fit(board, pieces):
    # Every list of a cell, for every covering of its key cells, is the cell's full list (key bits 0) less the
    # candidates that cover a key cell marked covered, in the same order.
    pk = _pack(board, pieces)
    plain, keyed = B.encode(pk.cover, key_bits=0), B.encode(pk.cover)
    tp, tk = plain.tables, keyed.tables
    k = int(tk[BR.H_KEYBITS])
    assert k == B.KEY_BITS and tp[BR.H_KEYBITS] == 0

    def entries(t, lst):
        a, b = t[t[BR.H_LSTART] + lst], t[t[BR.H_LSTART] + lst + 1]
        cols = t[t[BR.H_ENT]: t[BR.H_ENT] + BR.ENT_WIDTH * t[BR.H_NENT]].reshape(BR.ENT_WIDTH, -1)  # by field
        return cols[:, a:b].T

    for cell in range(pk.cover.n_primary):
        full = entries(tp, cell)
        keys = [int(w) for w in tk[tk[BR.H_KEYS] + cell * k: tk[BR.H_KEYS] + (cell + 1) * k].view(np.uint64)]
        assert all(w.bit_count() == 1 for w in keys)  # each key cell as its bit
        for key in range(1 << k):
            covered = sum(w for i, w in enumerate(keys) if (key >> i) & 1 and w != 1 << cell)
            covered = covered - (1 << 64) if covered >= 1 << 63 else covered
            want = full[(full[:, 0] & covered) == 0]
            got = entries(tk, (cell << k) | key)
            assert np.array_equal(got, want)


def test_keyed_lists_search_the_same_tree(cpu):
    # the lists are a filter on the candidates looked at: the same solutions and the same nodes, with the work cut
    # into items of five moves (a small tree: 8x5 took 5.6 million nodes, 70,000 launches of SPLITTY)
    pk = _pack("5x4", "pentominoes+trominoes")
    counts = []
    for key_bits in (0, 2, B.KEY_BITS):
        eng = RP.Engine(pk.cover, B.encode(pk.cover, key_bits=key_bits), "bitboard", True, BR)
        totals, left = RP.count_engine(eng, cpu, SPLITTY)
        assert not len(left)
        counts.append((totals.count, totals.nodes))
    assert counts[0] == counts[1] == counts[2] and counts[0][0] > 0


def test_the_first_solution_is_a_tiling(cpu):
    pk = _pack("10x6", "pentominoes")
    res = RP.solve_packing(pk, cpu, mode="bitboard")
    assert res.solved and len(res.placements) == 12
    P.validate(pk, res.placements)


def _full_flood_dead(free, used, tables, fits=None):
    """Every region of ``free`` by a plain flood fill on coordinates; dead when a region that is not all of
    ``free`` has a size the unused pieces cannot sum to, or (``fits``: the groups placed on each set of cells) is
    smaller than twice the smallest piece and no unused piece is placed on exactly its cells."""
    cells = [i for i in range(free.bit_length()) if (free >> i) & 1]
    shape = tables["shape"]
    left = [s for g, s in enumerate(tables["sizes"]) if not (used >> g) & 1]
    sums = {0}
    for s in left:
        sums |= {x + s for x in sums}
    seen = set()
    for c in cells:
        if c in seen:
            continue
        region, todo = {c}, [c]
        while todo:
            x = todo.pop()
            coord = np.unravel_index(x, shape[::-1])[::-1]
            for axis in range(len(shape)):
                for step in (-1, 1):
                    q = list(coord)
                    q[axis] += step
                    if 0 <= q[axis] < shape[axis]:
                        y = int(np.ravel_multi_index(q[::-1], shape[::-1]))
                        if (free >> y) & 1 and y not in region:
                            region.add(y)
                            todo.append(y)
        seen |= region
        if len(region) < len(cells) and len(region) not in sums:
            return True
        if fits is not None and len(region) < len(cells) and len(region) < 2 * min(tables["sizes"]) and \
                not any(not (used >> g) & 1 for g in fits.get(frozenset(region), ())):
            return True
    return False


def placements_by_cells(ec):
    """The groups with a placement on each set of cells (an option's items are its cells)."""
    fits = {}
    for items, g in zip(ec.option_array(), ec.option_group):
        fits.setdefault(frozenset(int(i) for i in items if i >= 0), set()).add(int(g))
    return fits


def random_tiling(rng, ec):
    """A tiling by a first-empty-cell search over the options in a random order: ``[(cells mask, group)]``."""
    full = (1 << ec.n_primary) - 1
    by_first = {}
    for o in rng.permutation(len(ec.options)):
        m = sum(1 << int(i) for i in ec.option_array()[o] if i >= 0)
        by_first.setdefault((m & -m).bit_length() - 1, []).append((m, int(ec.option_group[o])))

    def go(cov, used, out):
        if cov == full:
            return out
        free = full & ~cov
        for m, g in by_first.get((free & -free).bit_length() - 1, ()):
            if not m & cov and not (used >> g) & 1:
                found = go(cov | m, used | 1 << g, out + [(m, g)])
                if found:
                    return found
        return None

    return go(0, 0, [])


def random_node(rng, ec):
    """Covered cells and placed pieces of a random tiling less a few of its pieces; sometimes one of those is
    marked placed and one that stays marked left instead (as many pieces left as holes), so that some holes fit
    no piece left."""
    tiles = random_tiling(rng, ec)
    order = [int(k) for k in rng.permutation(len(tiles))]
    out = order[: int(rng.integers(1, 6))]
    cov = sum(m for k, (m, _) in enumerate(tiles) if k not in out)
    used = sum(1 << g for k, (_, g) in enumerate(tiles) if k not in out)
    if rng.random() < 0.5:
        used ^= (1 << tiles[out[0]][1]) | (1 << tiles[order[-1]][1])
    return cov, used


def hole_verdicts(ec, verdict, seed, nodes=200):
    """On ``nodes`` random nodes (:func:`random_node`): the rule's verdicts (``verdict(free, used)``), the plain
    flood fill's with the holes tested, and its by the sizes alone."""
    ref = {"shape": ec.geometry.shape, "sizes": [ec.group_size(g) for g in range(len(ec.groups))]}
    fits = placements_by_cells(ec)
    full = (1 << ec.n_primary) - 1
    rng = np.random.default_rng(seed)
    got, want, by_size = [], [], []
    with np.errstate(over="ignore"):  # the rule's wrapping popcount, run here as plain Python on numpy scalars
        for _ in range(nodes):
            cov, used = random_node(rng, ec)
            free = full & ~cov
            got.append(bool(verdict(free, used)))
            want.append(_full_flood_dead(free, used, ref, fits))
            by_size.append(_full_flood_dead(free, used, ref))
    return got, want, by_size


@pytest.mark.parametrize("board, pieces", [("10x6", "pentominoes"), ("11x5", "iq-puzzler-pro")])
@pytest.mark.parametrize("lookup", [True, False])
def test_a_hole_of_one_piece_is_dead_unless_a_piece_left_fits_it(board, pieces, lookup):
    # a closed region smaller than twice the smallest piece (pentominoes: five cells; IQ Puzzler Pro's pieces of 3
    # to 5 cells: up to five) is dead unless a piece left lies on exactly its cells; checked against a plain flood
    # fill and the placements by their cells, with the rule's hash table of placements and (lookup False) with
    # its scan of the hole's first cell's list
    pk = _pack(board, pieces)
    ec = pk.cover
    t = B.encode(ec, flood=64).tables
    if not lookup:
        t[BR.H_PHBITS] = 0
    got, want, by_size = hole_verdicts(
        ec, lambda free, used: BR.dead_region(np.int64(B._word(free)), np.int64(used), np.int64(B._word(free)), t), 3)
    assert got == want
    assert sum(w and not s for w, s in zip(want, by_size)) >= 20  # nodes only the hole test kills
    assert sum(not w for w in want) >= 20


@pytest.mark.parametrize("board, pieces", [("8x8", "pentominoes+trominoes"), ("4x4x4", "soma+tetracubes")])
def test_the_region_test_never_rejects_a_live_node_and_sees_small_holes(board, pieces):
    pk = _pack(board, pieces)
    enc = B.encode(pk.cover, flood=64)
    t = enc.tables
    ref = {"shape": pk.cover.geometry.shape, "sizes": [pk.cover.group_size(g) for g in range(len(pk.cover.groups))]}
    full = (1 << pk.cover.n_primary) - 1
    rng = np.random.default_rng(7)
    with np.errstate(over="ignore"):  # the rule's wrapping popcount, run here as plain Python on numpy scalars
        checks = [_check(rng, full, ref, t) for _ in range(300)]
    assert all(not got or want for got, want in checks)  # sound: only dead nodes are rejected
    assert sum(got == want for got, want in checks) >= 290  # with this bound only regions of 63+ cells are left


def _check(rng, full, ref, t):
    """One random node: (the rule's verdict, the full flood fill's)."""
    cov = int(rng.integers(0, 1 << 62)) | int(rng.integers(0, 1 << 62)) | (int(rng.integers(0, 4)) << 62)
    free = full & ~cov
    used = int(rng.integers(0, 1 << len(ref["sizes"])))
    return BR.dead_region(np.int64(B._word(free)), np.int64(used), np.int64(B._word(free)), t), \
        _full_flood_dead(free, used, ref)


def test_64_cells_use_the_sign_bit(cpu):
    pk = _pack("8x8", "pentominoes+trominoes")  # 12 + 2 pieces, 66 cells for 64: pieces may stay out
    ec = pk.cover
    assert ec.n_primary == 64 and B.supports(ec)
    enc = B.encode(ec)
    assert enc.tables[BR.H_FULL] == -1
    # a corner of 12 free cells that holds the last cell (bit 63): the count agrees with the oracle
    sub = _pack("\n".join(["########"] * 5 + ["####...."] * 3), "trominoes+tetrominoes+dominoes")
    assert sub.cover.n_primary == 64 and 63 not in sub.cover.precovered
    a = RP.count_packing(sub, cpu, mode="bitboard", settings=SPLITTY, distinct=False)
    assert a.branch == "bitboard"
    assert a.solutions == oracle_count(sub.cover) > 0


def test_where_it_does_not_apply_the_general_tables_run_and_say_so(cpu):
    pk = _pack("4x3", "trominoes", unlimited=True)
    assert not B.supports(pk.cover)
    got = RP.count_packing(pk, cpu, mode="bitboard", distinct=False)
    assert got.branch == "first"
    assert got.solutions == RP.count_packing(pk, cpu, mode="first", distinct=False).solutions
    assert not B.supports(_pack("9x8", "pentominoes").cover)  # 72 cells: beyond one word


def test_default_and_auto_pick_it_on_flat_boards():
    assert RP.default_branch(_pack("10x6", "pentominoes")) == "bitboard"
    assert RP.default_branch(_pack("3x3x3", "soma")) == "bitboard"
    assert RP.default_branch(_pack("4x4x4", "bedlam")) == "mrv"
    assert RP.default_branch(_pack("4x3", "trominoes", unlimited=True)) == "first"


# -- the CUDA twin in the simulator ---------------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("lanes", [1, 32])  # a thread an item; a warp an item, sharing the candidate scans
@pytest.mark.parametrize("board, pieces, budget", [
    ("5x3", "trominoes+tetrominoes+dominoes", 6),  # items stop on their budget and hand back stacks
    ("3x2x2", "tetracubes", 10**6),  # 3D: the region test on three axes, items finish
])
def test_one_launch_is_bit_identical(cpu, gpu, board, pieces, budget, lanes):
    pk = _pack(board, pieces)
    eng = RP.engine(pk.cover, "bitboard", True)
    assert eng.rules is BR
    assert_one_launch_identical(eng, cpu, gpu, budget, lanes)


def assert_one_launch_identical(eng, cpu, gpu, budget, lanes=1):
    """One launch of a frontier of a dozen items gives the same arrays on the CPU and on ``gpu`` (its kernel's
    ``lanes`` threads an item), its solutions buffer (two an item) included."""
    dfs = BatchDFS(eng.problem, cpu, SearchSettings(frontier_target=12))
    frontier = dfs.expand(Frontier.root(eng.problem), SearchTotals(), 12)
    assert len(frontier) > 1
    results = []
    for b, n in ((cpu, 1), (gpu, lanes)):
        run = BatchDFS(eng.problem, b, SearchSettings(budget=budget, cuda_lanes=n))
        if b is gpu:
            assert run.kernels.lanes == lanes
        results.append(run.run_batch(frontier, 2, 0))
    assert gpu.name == GPU
    for a, b, name in zip(results[0], results[1], ("out", "states", "stacks", "solutions")):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b), f"{name} differs between cpu and {gpu.name}"


@pytest.mark.gpu
def test_the_lanes_share_one_array_where_the_simulator_races(cpu, gpu, monkeypatch):
    # numba's simulator makes a block's shared array without a lock: between its look-up and its store another
    # thread can make a second array.  Widened here (a sleep in that window); without the kernel's first call and
    # barrier the lanes held two arrays and one launch in two differed from the CPU (once in about fifteen counts
    # without the sleep)
    import time

    from numba.cuda.simulator import kernelapi

    class SlowEmpty:
        def __getattr__(self, name):
            return getattr(np, name)

        def empty(self, *args, **kwargs):
            time.sleep(0.002)
            return np.empty(*args, **kwargs)

    monkeypatch.setattr(kernelapi, "np", SlowEmpty())
    eng = RP.engine(_pack("5x3", "trominoes+tetrominoes+dominoes").cover, "bitboard", True)
    assert_one_launch_identical(eng, cpu, gpu, 6, lanes=32)


@pytest.mark.gpu
@pytest.mark.parametrize("lanes", [1, 32])
def test_counts_agree_with_the_cpu(cpu, gpu, lanes):
    # distinct: a subproblem keeps a symmetry and is enumerated, and a symmetry's fixed points are counted on the
    # general tables, a thread an item beside the warp kernel
    pk = _pack("4x3", "trominoes+tetrominoes+dominoes")
    settings = SearchSettings(budget=20, batch_size=12, frontier_target=10, first_batch_size=6)
    got = {b.name: RP.count_packing(pk, b, mode="bitboard", settings=replace(settings, cuda_lanes=n))
           for b, n in ((cpu, 1), (gpu, lanes))}
    assert got["cpu"].branch == got[GPU].branch == "bitboard" and got[GPU].backend == GPU
    assert got["cpu"].solutions == got[GPU].solutions == oracle_count(pk.cover) > 0
    assert got["cpu"].note and (got["cpu"].distinct, got["cpu"].nodes) == (got[GPU].distinct, got[GPU].nodes)


@pytest.mark.gpu
def test_a_warp_an_item_finds_the_same_first_solution(cpu, gpu):
    pk = _pack("4x3", "trominoes+tetrominoes+dominoes")
    settings = SearchSettings(budget=3, batch_size=4, frontier_target=3, first_batch_size=2)  # stops and splits
    first = [RP.solve_packing(pk, b, "bitboard", settings=replace(settings, cuda_lanes=n))
             for b, n in ((cpu, 1), (gpu, 32))]
    placed = [[(g, cells.tolist()) for g, cells in f.placements] for f in first]
    assert first[0].solved and placed[0] == placed[1] and first[0].nodes == first[1].nodes


@pytest.mark.gpu
def test_a_warp_an_item_is_asked_for_where_it_runs(cpu, gpu):
    # CUDA only, 1 or 32, the bitboard rules only: each a one-line error before any search, never a quiet change
    # of kernel (settings made by hand included)
    from puzzlebatch.api.common import settings_of
    from puzzlebatch.errors import PuzzleInputError
    from puzzlebatch.gpu_kernels import search as GS
    from puzzlebatch.runners.engine.twins import twin

    with pytest.raises(PuzzleInputError, match="for CUDA kernels"):
        settings_of(cpu, cuda_lanes=32)
    with pytest.raises(PuzzleInputError, match="not 1 or 32"):
        settings_of(cpu, cuda_lanes=8)
    assert settings_of(cpu, cuda_lanes=1).cuda_lanes == 1 and settings_of(gpu, cuda_lanes=32).cuda_lanes == 32
    pk = _pack("4x3", "trominoes+tetrominoes+dominoes")
    lanes = SearchSettings(cuda_lanes=32)
    with pytest.raises(PuzzleInputError, match="for CUDA kernels"):
        RP.count_packing(pk, cpu, mode="bitboard", settings=lanes)
    with pytest.raises(PuzzleInputError, match="--branch first: drop --cuda-lanes"):
        RP.count_packing(pk, gpu, mode="first", settings=lanes)
    with pytest.raises(PuzzleInputError, match="--branch first"):
        RP.solve_packing(pk, gpu, "bitboard", heuristic="compactness", settings=lanes)  # an order: general tables
    general = RP.engine(pk.cover, "first", True).rules
    for backend, rules in ((gpu, general), (cpu, BR)):
        with pytest.raises(PuzzleInputError, match="cuda lanes"):
            twin(backend, "search", rules, lanes=32)
    with pytest.raises(PuzzleInputError, match="candidate_fits"):
        GS.search_unit(general, lanes=32)
    with pytest.raises(PuzzleInputError, match="a warp"):
        GS.search_unit(BR, lanes=16)


@pytest.mark.gpu
def test_a_cluster_worker_gets_the_lanes(gpu):
    # a Dask worker rebuilds the batch DFS from the payload: the lanes travel with the other knobs
    from puzzlebatch.runners.engine.distributed import DFSPayload, _worker_dfs

    eng = RP.engine(_pack("4x3", "trominoes+tetrominoes+dominoes").cover, "bitboard", True)
    payload = DFSPayload.of(BatchDFS(eng.problem, gpu, SearchSettings(budget=7, cuda_lanes=32)), "cuda")
    dfs = _worker_dfs(payload)
    assert dfs.settings.cuda_lanes == 32 and dfs.settings.budget == 7 and dfs.kernels.lanes == 32


def test_the_lanes_option_on_the_command_line(capsys):
    from puzzlebatch.cli import main

    code = main(["polyomino", "count", "--board", "4x3", "--pieces", "trominoes+tetrominoes+dominoes",
                 "--backend", "cpu", "--cuda-lanes", "32"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--backend cuda" in err[0]


@pytest.mark.parametrize("board, pieces",
                         [("10x6", "pentominoes"), ("3x3x3", "soma"), ("5x4", "pentominoes+trominoes")])
def test_placements_are_looked_up_by_their_cells(board, pieces):
    # pieces_of (the last piece's completions in the leaf count) against the options themselves: every option's
    # cells give the bits of the pieces with a placement on exactly those cells; other sets of cells give none
    pk = _pack(board, pieces)
    enc = B.encode(pk.cover)
    t = enc.tables
    assert t[BR.H_PHBITS] > 0
    opts = t[t[BR.H_OPT]: t[BR.H_OPT] + 2 * len(pk.cover.options)].reshape(-1, 2)
    want: dict[int, int] = {}
    for m, p in opts.tolist():
        want[m] = want.get(m, 0) | p
    for m, p in want.items():
        assert BR.pieces_of(np.int64(m), t) == p
    rng = random.Random(7)
    full = int(t[BR.H_FULL])
    for _ in range(500):
        near = rng.choice(list(want)) | 1 << rng.randrange(8)  # a placement and maybe one cell more
        m = np.int64(full & rng.getrandbits(64) if rng.random() < 0.5 else near)
        assert BR.pieces_of(m, t) == want.get(int(m), 0)


def test_the_placement_table_is_left_out_where_a_piece_repeats_a_placement():
    # two options of one piece on the same cells would be one look-up: no table, the leaf count scans instead
    masks = np.array([0b111, 0b1110, 0b111], np.int64)
    assert B.placement_table(masks, np.array([0, 0, 0]))[1] == 0
    words, bits = B.placement_table(masks, np.array([0, 0, 1]))
    assert bits > 0 and len(words) == (1 << bits) + 1 + 2 * 2


def test_the_leaf_count_looks_up_or_scans_the_same_tree(cpu):
    pk = _pack("5x4", "pentominoes+trominoes")
    counts = []
    for table in (True, False):
        enc = B.encode(pk.cover)
        if not table:
            enc.tables[BR.H_PHBITS] = 0
        totals, left = RP.count_engine(RP.Engine(pk.cover, enc, "bitboard", True, BR), cpu, SPLITTY)
        assert not len(left)
        counts.append((totals.count, totals.nodes))
    assert counts[0] == counts[1] and counts[0][0] > 0


def exact_covers(free, left, fits):
    """Plain Python: the ways pieces of ``left`` (groups) cover exactly the cells ``free`` (a mask), each at most
    once (``fits``: :func:`placements_by_cells`)."""
    if free == 0:
        return 1
    first = (free & -free).bit_length() - 1
    ways = 0
    for cells, groups in fits.items():
        m = sum(1 << c for c in cells)
        if first in cells and m & free == m:
            ways += sum(exact_covers(free & ~m, left - {g}, fits) for g in groups & left)
    return ways


def leaf_counts(ec, rules, encoded, seed, nodes=60):
    """The rule's leaf count against :func:`exact_covers` at random nodes with one to four pieces left (random
    tilings less some pieces, sometimes one removed piece swapped for a kept one, so that some counts are 0)."""
    fits = placements_by_cells(ec)
    full = (1 << ec.n_primary) - 1
    t = encoded.tables
    rng = np.random.default_rng(seed)
    got, want, n_left = [], [], []
    with np.errstate(over="ignore"):  # the rules' wrapping arithmetic, run here as plain Python on numpy scalars
        for _ in range(nodes):
            tiles = random_tiling(rng, ec)
            order = [int(k) for k in rng.permutation(len(tiles))]
            out = order[: int(rng.integers(1, 5))]
            cov = sum(m for k, (m, _) in enumerate(tiles) if k not in out)
            used = sum(1 << g for k, (_, g) in enumerate(tiles) if k not in out)
            if rng.random() < 0.3 and len(out) < len(order):
                used ^= (1 << tiles[out[0]][1]) | (1 << tiles[order[-1]][1])
            state = encoded.root.copy()
            d = len(tiles) - len(out)
            free = full & ~cov
            cell = (free & -free).bit_length() - 1
            if rules is BR:
                state[BR.S_COVER], state[BR.S_USED] = B._word(cov), used
                state[t[BR.S_ITEM] + d] = BR.list_of(np.int64(B._word(cov)), cell, t)
            else:
                c0, c1 = (B._word(w & ((1 << 64) - 1)) for w in (cov | used << ec.n_primary,
                                                                 (cov | used << ec.n_primary) >> 64))
                state[rules.S_C0], state[rules.S_C1] = c0, c1
                state[t[rules.S_ITEM] + d] = rules.list_of(np.int64(c0), np.int64(c1), cell, t)
            left = {g for g in range(len(ec.groups)) if not (used >> g) & 1}
            got.append(int(rules.leaf_count(state, d, t)))
            want.append(exact_covers(free, left, fits) if len(left) <= 3 else -1)
            n_left.append(len(left))
    return got, want, n_left


@pytest.mark.parametrize("board, pieces", [("10x6", "pentominoes"), ("11x5", "iq-puzzler-pro")])
def test_the_leaf_count_counts_the_covers_of_three_pieces_or_fewer(board, pieces):
    # with three pieces left each fitting placement at the first empty cell leaves a two-piece count; four or more
    # left: search on (-1)
    ec = _pack(board, pieces).cover
    got, want, n_left = leaf_counts(ec, BR, B.encode(ec), seed=41)
    assert got == want
    assert sum(w > 0 and n == 3 for w, n in zip(want, n_left)) >= 5 and sum(w == 0 for w in want) >= 5
    assert -1 in want
