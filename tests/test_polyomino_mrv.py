"""Incremental MRV (``--branch mrv``) against slow references: the plain-Python Algorithm X oracle, counts of live
options recomputed from scratch at random nodes, brute-force subtree counts for the last-levels count, and the
CUDA twin in the simulator, bit for bit."""

import random

import numpy as np
import pytest

from puzzlebatch.puzzles.polyomino import cover as C
from puzzlebatch.puzzles.polyomino import mrv
from puzzlebatch.puzzles.polyomino import mrv_rules as MR
from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.runners.engine.search import BatchDFS, Frontier, SearchSettings, SearchTotals
from puzzlebatch.runners.polyomino import solver as RP
from tests.reference import polyomino_oracle as oracle
from tests.backends import GPU

SPLITTY = SearchSettings(budget=5, batch_size=16, frontier_target=6, first_batch_size=4)


def random_cover(rng: random.Random, n_primary: int, n_secondary: int, n_options: int) -> C.ExactCover:
    items = [f"p{i}" for i in range(n_primary)] + [f"s{i}" for i in range(n_secondary)]
    options = set()
    while len(options) < n_options:
        k = rng.randint(1, 3)
        opt = set(rng.sample(range(n_primary), k))
        if n_secondary and rng.random() < 0.5:
            opt.add(n_primary + rng.randrange(n_secondary))
        options.add(tuple(sorted(opt)))
    return C.ExactCover(items, n_primary, sorted(options))


def oracle_count(ec: C.ExactCover) -> int:
    """Algorithm X in plain Python; a piece (group) is used at most its number of copies."""
    names = ec.items
    pre = set(ec.precovered)  # covered before the search (holes)
    keep = [o for o, opt in enumerate(ec.options) if not pre & set(opt)]
    opts = [tuple(names[i] for i in ec.options[o]) for o in keep]
    copies = {g: (None if c == C.UNLIMITED else c) for g, c in enumerate(ec.group_copies)}
    piece = [ec.option_group[o] if ec.option_group[o] >= 0 else None for o in keep] if ec.groups else None
    primary = [n for i, n in enumerate(names[:ec.n_primary]) if i not in pre]
    return oracle.algorithm_x_count(primary, names[ec.n_primary:], opts, copies=copies, option_piece=piece)


@pytest.mark.parametrize("seed", range(12))
def test_random_covers_match_the_oracle(cpu, seed):
    rng = random.Random(seed)
    ec = random_cover(rng, rng.randint(4, 9), rng.randint(0, 3), rng.randint(6, 22))
    eng = RP.engine(ec, "mrv")
    assert eng.rules is MR
    totals, _ = RP.count_engine(eng, cpu, SPLITTY)
    assert totals.count == oracle_count(ec)


def random_packing(rng: random.Random) -> P.Packing:
    """A random board (2D or 3D, maybe with holes) and a random handful of pieces, each used at most once."""
    if rng.random() < 0.5:
        size = (rng.randint(3, 5), rng.randint(2, 4))
        pool = S.load_pieces(rng.choice(["tetrominoes", "trominoes", "pentominoes"]))
    else:
        size = (rng.randint(2, 3), 2, rng.randint(2, 3))
        pool = S.load_pieces(rng.choice(["tetracubes", "soma"]))
    cells = [c for c in np.ndindex(*size)]
    holes = set(rng.sample(cells, rng.randint(0, 2)))
    board = P.Board(size, frozenset(c for c in cells if c not in holes), {})
    pieces = rng.sample(pool, min(len(pool), rng.randint(2, 5)))
    return P.build(board, pieces)


@pytest.mark.parametrize("seed", range(10))
def test_random_packings_match_the_oracle(cpu, seed):
    rng = random.Random(100 + seed)
    pk = random_packing(rng)
    got = RP.count_packing(pk, cpu, mode="mrv", settings=SPLITTY, distinct=False)
    assert got.branch == "mrv"
    assert got.solutions == oracle_count(pk.cover)
    assert got.solutions == RP.count_packing(pk, cpu, mode="first", distinct=False).solutions


def from_scratch(ec: C.ExactCover, enc: mrv.Encoded, chosen: list[int]):
    """Live options and per-item counts of a node, recomputed with sets (the reference for the kept words)."""
    items = enc.tables  # noqa: F841 -- the tables are not used: everything below comes from the cover
    def its(o):
        s = set(ec.options[o])
        g = ec.option_group[o] if ec.option_group else -1
        if g in enc.piece_item:
            s.add(("piece", g))
        return s

    taken = set().union(*(its(o) for o in chosen)) if chosen else set()
    live = [o for o in range(len(ec.options)) if not (its(o) & taken)]
    counts = {}
    for o in live:
        for i in its(o):
            counts[i] = counts.get(i, 0) + 1
    return set(live), counts


@pytest.mark.parametrize("seed", range(6))
def test_live_options_and_counts_equal_a_recount_at_random_nodes(seed):
    from puzzlebatch.cpu_fallback.search import search_unit

    rng = random.Random(200 + seed)
    pk = random_packing(rng)
    ec = pk.cover
    enc = mrv.encode(ec)
    u = search_unit(MR)
    t = enc.tables
    lw, s_live = t[MR.H_LW], t[MR.S_LIVE]
    for _ in range(20):  # random walks from the root
        s = enc.root.copy()
        chosen: list[int] = []
        d = 0
        while d < enc.goal and s[t[MR.S_ITEM] + d] >= 0:
            live, counts = from_scratch(ec, enc, chosen)
            words = s[s_live + d * lw:s_live + (d + 1) * lw]
            kept = {o for o in range(len(ec.options)) if (int(words[o // 63]) >> (o % 63)) & 1}
            assert kept == live
            item = int(s[t[MR.S_ITEM] + d])
            # X1 chose the uncovered primary item with the fewest live options, the lowest index on ties
            free = [i for i in range(t[MR.H_NP]) if not (int(s[i // 63]) >> (i % 63)) & 1]
            key = {i: counts.get(("piece", g) if i >= ec.n_primary else i, 0)
                   for g, i in [(None, i) for i in free if i < ec.n_primary]
                   + [(g, it) for g, it in enc.piece_item.items() if it in free]}
            assert item == min(free, key=lambda i: (key[i], i))
            fits = [o for o in sorted(live) if item in ({i for i in ec.options[o]} |
                    ({enc.piece_item[ec.option_group[o]]} if ec.option_group[o] in enc.piece_item else set()))]
            if not step(rng, u, s, d, [o for o in fits if u.place(s.copy(), d, o, t)], chosen, t):
                break
            d += 1


def step(rng, u, s, d, ok, chosen, t) -> bool:
    """One step of a random walk: place one of the options ``ok`` at depth ``d`` (False: none to place)."""
    if not ok:
        return False
    o = rng.choice(ok)
    assert u.place(s, d, o, t)
    chosen.append(o)
    return True


def test_watched_items_of_a_small_cover():
    # options {a}, {a, b}, {b}: the first kills one of b's two options (half of them), the last one of a's; the
    # middle one holds both items and watches none; rows are -1 padded, and a cover with no options gives one row
    conf = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]], bool)
    holds = np.array([[1, 1, 0], [0, 1, 1]], bool)  # (items, options)
    got = mrv.watched_items(conf, holds, 3, 2, k=3)
    np.testing.assert_array_equal(got, [[1, -1, -1], [-1, -1, -1], [0, -1, -1]])
    assert mrv.watched_items(None, np.zeros((1, 0), bool), 0, 0).tolist() == [[-1] * mrv.WATCHED]


def test_watched_items_reject_only_dead_children_and_leave_the_rest_alone():
    # X4's look at an option's watched items before the child is built: the same verdict and the same state as
    # the tables without watched items, at every live option of random nodes; a rejection there is a child with
    # an uncovered primary item and no live option (recounted with sets), and there are such rejections.
    from puzzlebatch.cpu_fallback.search import search_unit

    u = search_unit(MR)
    rejected = 0
    for seed in range(6):
        rejected += _watched_walks(random.Random(300 + seed), u)
    assert rejected > 0


def _watched_walks(rng, u) -> int:
    pk = random_packing(rng)
    ec = pk.cover
    enc = mrv.encode(ec)
    t = enc.tables
    bare = t.copy()
    bare[MR.H_KW] = 0
    kw, lw, s_live = t[MR.H_KW], t[MR.H_LW], t[MR.S_LIVE]
    assert kw == mrv.WATCHED  # -1 padded where an option kills fewer items
    watch = t[t[MR.H_WATCH]:t[MR.H_WATCH] + len(ec.options) * kw].reshape(len(ec.options), kw)
    k = t[MR.H_K]

    def items(o):
        return {int(i) for i in t[t[MR.H_OPTITEMS] + o * k:t[MR.H_OPTITEMS] + (o + 1) * k] if i >= 0}

    for o, row in enumerate(watch):
        assert all(i == -1 or (0 <= i < t[MR.H_NP] and i not in items(o)) for i in row)
        assert (row[:np.count_nonzero(row >= 0)] >= 0).all()  # -1 padding at the end only
    root_covered = {i for i in range(t[MR.H_NI]) if (int(enc.root[i // 63]) >> (i % 63)) & 1}
    rejected = 0
    for _ in range(15):
        s = enc.root.copy()
        chosen: list[int] = []
        d = 0
        while d < enc.goal and s[t[MR.S_ITEM] + d] >= 0:
            words = s[s_live + d * lw:s_live + (d + 1) * lw]
            live = [o for o in range(len(ec.options)) if (int(words[o // 63]) >> (o % 63)) & 1]
            ok = []
            for o in live:
                a, b = s.copy(), s.copy()
                got = u.place(a, d, o, t)
                assert got == u.place(b, d, o, bare)
                if got:
                    np.testing.assert_array_equal(a, b)
                    ok.append(o)
                if u.watched_dead(s, d, o, t):
                    rejected += 1
                    covered = root_covered.union(*(items(c) for c in chosen + [o]))
                    held = set().union(*(items(q) for q in range(len(ec.options)) if not items(q) & covered))
                    dead = [i for i in range(t[MR.H_NP]) if i not in covered and i not in held]
                    assert dead and not got
            if not step(rng, u, s, d, ok, chosen, t):
                break
            d += 1
    return rejected


def subtree_count(u, s, d, goal, t) -> int:
    """Solutions below a node by applying every move (no early count)."""
    if d == goal:
        return 1
    n = 0
    m = u.n_choices(s, d, t)
    c = u.next_choice(s, d, 0, m, t)
    while c < m:
        if u.apply(s, d, c, t):
            n += subtree_count(u, s, d + 1, goal, t)
            u.undo(s, d, c, t)
        c = u.next_choice(s, d, c + 1, m, t)
    return n


@pytest.mark.parametrize("seed", range(6))
def test_last_levels_count_equals_the_subtree(seed):
    from puzzlebatch.cpu_fallback.search import search_unit

    rng = random.Random(300 + seed)
    pk = random_packing(rng)
    while oracle_count(pk.cover) == 0:  # a board with solutions, so that the last levels are reached
        pk = random_packing(rng)
    enc = mrv.encode(pk.cover)
    u = search_unit(MR)
    t = enc.tables
    seen = 0

    def walk(s, d):
        nonlocal seen
        if d == enc.goal:
            return
        k = u.leaf_count(s, d, t)
        if k >= 0:
            seen += 1
            assert k == subtree_count(u, s.copy(), d, enc.goal, t)
        m = u.n_choices(s, d, t)
        c = u.next_choice(s, d, 0, m, t)
        while c < m:
            if u.apply(s, d, c, t):
                walk(s, d + 1)
                u.undo(s, d, c, t)
            c = u.next_choice(s, d, c + 1, m, t)

    walk(enc.root.copy(), 0)
    assert seen > 0


def test_pieces_with_several_copies_recount(cpu):
    pk = P.build(P.parse_board("4x2"), S.load_pieces("dominoes", count=2))
    assert not mrv.supports(pk.cover)
    eng = RP.engine(pk.cover, "mrv")
    assert eng.rules is not MR
    assert RP.count_packing(pk, cpu, mode="mrv", distinct=False).solutions == \
        RP.count_packing(pk, cpu, mode="first", distinct=False).solutions


@pytest.mark.parametrize("board, pieces", [("10x6", "pentominoes"), ("3x3x3", "soma")])
def test_published_counts(cpu, board, pieces):
    """2,339 pentomino rectangles 6x10 and 240 Soma cubes (published; Soma without reflections)."""
    pk = P.build(P.parse_board(board), S.load_pieces(pieces))
    r = RP.count_packing(pk, cpu, mode="mrv")
    assert r.distinct == {"pentominoes": 2339, "soma": 240}[pieces]


@pytest.mark.gpu
def test_cuda_twin_is_bit_identical(cpu, gpu):
    from puzzlebatch.config import launch

    pk = P.build(P.parse_board("5x4"), [p for p in S.load_pieces("pentominoes") if p.name in "LPUYNT"])
    eng = RP.engine(pk.cover, "mrv")
    dfs = BatchDFS(eng.problem, cpu, SearchSettings(frontier_target=12))
    frontier = dfs.expand(Frontier.root(eng.problem), SearchTotals(), 12)
    frontier = frontier.take(slice(0, 12))
    assert len(frontier) > launch.threads_per_block
    results = [BatchDFS(eng.problem, b, SearchSettings(budget=6)).run_batch(frontier, 2, 0) for b in (cpu, gpu)]
    assert gpu.name == GPU
    for a, b, name in zip(results[0], results[1], ("out", "states", "stacks", "solutions")):
        assert a.shape == b.shape and np.array_equal(a, b), f"{name} differs between cpu and {gpu.name}"
    counts = {b.name: RP.count_packing(pk, b, mode="mrv", settings=SPLITTY, distinct=False) for b in (cpu, gpu)}
    assert counts["cpu"].solutions == counts[GPU].solutions == oracle_count(pk.cover)
    assert counts["cpu"].nodes == counts[GPU].nodes


@pytest.mark.slow
def test_bedlam_cube(cpu):
    """19,186 solutions up to rotation, 460,464 in all (published; a minute or two here)."""
    r = RP.count_packing(P.build(P.parse_board("4x4x4"), S.load_pieces("bedlam")), cpu, mode="mrv")
    assert (r.distinct, r.solutions) == (19186, 460464)


@pytest.mark.parametrize("mode", ["first", "enclosed"])
@pytest.mark.parametrize("seed", range(4))
def test_bitset_rules_last_level_count_equals_the_subtree(mode, seed):
    """The same early count in the other exact-cover rules (the last option, counted without placing it)."""
    from puzzlebatch.cpu_fallback.search import search_unit
    from puzzlebatch.puzzles.polyomino import rules as BR

    rng = random.Random(400 + seed)
    pk = random_packing(rng)
    while oracle_count(pk.cover) == 0:
        pk = random_packing(rng)
    enc = C.encode(pk.cover, mode, True)
    u = search_unit(BR)
    t = enc.tables
    seen = 0

    def walk(s, d):
        nonlocal seen
        if d == enc.goal:
            return
        k = u.leaf_count(s, d, t)
        if k >= 0:
            seen += 1
            assert k == subtree_count(u, s.copy(), d, enc.goal, t)
        m = u.n_choices(s, d, t)
        for c in range(m):
            if u.apply(s, d, c, t):
                walk(s, d + 1)
                u.undo(s, d, c, t)

    walk(enc.root.copy(), 0)
    assert seen > 0


def test_auto_counts_mrv_on_the_cpu_where_there_is_a_gpu(monkeypatch):
    """--backend auto with the mrv branch runs on the CPU even where a GPU is found (measured: far slower there),
    and says so; a GPU asked for by name, and the other branches, keep the GPU."""
    from puzzlebatch.api import polyomino as api
    from puzzlebatch.runners.engine.backend import Backend

    real = api.backend_of
    monkeypatch.setattr(api, "backend_of", lambda r: Backend("cuda", "a GPU") if r in ("auto", "cuda") else real(r))
    be, note = api._auto_backend("auto", "mrv")
    assert be.name == "cpu" and "--backend auto chose the cpu" in note
    for request, branch in (("cuda", "mrv"), ("auto", "bitboard"), ("auto", "first")):
        be, note = api._auto_backend(request, branch)
        assert be.name == "cuda" and note == "", (request, branch)
    assert api._auto_backend("cpu", "mrv") == (real("cpu"), "")
    # the count itself: run on the CPU, the answer unchanged, the note in the result and in its JSON
    r = api.count("3x2x2", "tetracubes", unlimited=True, branch="mrv", backend="auto")
    want = api.count("3x2x2", "tetracubes", unlimited=True, branch="mrv", backend="cpu")
    assert r.backend == "cpu" and r.solutions == want.solutions > 0
    assert "--backend auto chose the cpu" in r.to_dict()["note"] and "--backend auto" not in want.note



def test_auto_dlx_counts_mrv_on_the_cpu_where_there_is_a_gpu(monkeypatch, tmp_path, capsys):
    import puzzlebatch as pb
    from puzzlebatch.api import polyomino as api
    from puzzlebatch.cli import main
    from puzzlebatch.runners.engine.backend import Backend

    pb.polyomino.dlx_export("4x2", "dominoes", unlimited=True, text=tmp_path / "p.dlx")
    want = pb.polyomino.dlx_solve(tmp_path / "p.dlx", count=True, backend="cpu")
    real = api.backend_of
    monkeypatch.setattr(api, "backend_of", lambda r: Backend("cuda", "a GPU") if r in ("auto", "cuda") else real(r))
    r = pb.polyomino.dlx_solve(tmp_path / "p.dlx", count=True)  # branch mrv, backend auto: the defaults
    assert r.backend == "cpu" and r.branch == "mrv" and r.solutions == want.solutions == 5
    assert "--backend auto chose the cpu" in r.to_dict()["note"] and want.note == ""
    # the command line: the options chosen alone on stdout, the note on stderr
    assert main(["polyomino", "dlx", "solve", str(tmp_path / "p.dlx")]) == 0
    out, err = capsys.readouterr()
    assert "note:" not in out and "--backend auto chose the cpu" in err
    assert len(out.splitlines()) == 4  # four dominoes tile 4x2


def test_bitset_rows_match_python_integers():
    # every option's items as a bitset of 63-bit words, the live-option tables and the symmetry breaking read them
    from puzzlebatch.puzzles.polyomino.cover import bitset_rows, bitset_words

    rng = np.random.default_rng(3)
    for nw, width in ((1, 6), (2, 7), (3, 9)):
        arr = np.full((400, width), -1, np.int64)
        for row in arr:
            m = int(rng.integers(0, width + 1))
            row[:m] = rng.choice(63 * nw, m, replace=False)
        want = [bitset_words([v for v in row if v >= 0], nw) for row in arr]
        assert bitset_rows(arr, nw).tolist() == want
