"""Large boards: transfer-matrix strip counts, band-by-band tilings, random cuts, and their CLI."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from puzzlebatch.puzzles.polyomino import cut as K
from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.puzzles.polyomino import strip as ST
from puzzlebatch.runners.polyomino import large as L
from tests.reference.strip_oracle import count_tilings
from tests.backends import GPU


def unlimited(name, **kw):
    return S.load_pieces(name, unlimited=True, **kw)


def run_cli(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "puzzlebatch", "polyomino", *args], capture_output=True,
                          text=True, env=dict(os.environ))
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


# -- strip counts -----------------------------------------------------------------------------------------------
# Published figures: OEIS A004003 (domino tilings of 2n x 2n: 1, 2, 36, 6728, 12988816, 258584046368),
# A001835 (3 x 2n: 1, 3, 11, 41, 153, 571, 2131, 7953, 29681), A005178 (4 x n: 1, 1, 5, 11, 36, 95, 281, 781,
# 2245, 6336, 18061, 51205), A000045 (2 x n: Fibonacci).
A004003 = [2, 36, 6728, 12988816, 258584046368]
A001835 = [3, 11, 41, 153, 571, 2131, 7953, 29681]
A005178 = [1, 5, 11, 36, 95, 281, 781, 2245, 6336, 18061, 51205]


@pytest.mark.parametrize("method", ["crt", "bigint"])
def test_dominoes_published_sequences(cpu, method):
    dom = unlimited("dominoes")
    assert [L.count_strip(dom, 2 * n, 2 * n, cpu, method).solutions for n in range(1, 6)] == A004003
    assert [L.count_strip(dom, 3, 2 * n, cpu, method).solutions for n in range(1, 9)] == A001835
    assert [L.count_strip(dom, n, 4, cpu, method).solutions for n in range(1, 12)] == A005178
    fib = [1, 2]
    while len(fib) < 40:
        fib.append(fib[-1] + fib[-2])
    assert [L.count_strip(dom, 2, n, cpu, method).solutions for n in range(1, 41)] == fib


def test_dominoes_against_kasteleyn(cpu):
    dom = unlimited("dominoes")
    for m, n in [(5, 6), (7, 8), (9, 12), (6, 31), (10, 150)]:
        k = ST.kasteleyn(m, n)
        assert L.count_strip(dom, m, n, cpu, "crt").solutions == k
        assert L.count_strip(dom, n, m, cpu, "bigint").solutions == k
    assert ST.kasteleyn(8, 8) == 12988816  # the formula itself against the published figure
    assert L.count_strip(dom, 5, 7, cpu).solutions == 0 == ST.kasteleyn(5, 7)


@pytest.mark.parametrize("name,boards,mirror", [
    ("trominoes", [(3, 5), (4, 6), (6, 3), (2, 9)], None),
    ("L-trominoes", [(3, 6), (6, 3), (4, 6), (5, 6)], None),
    ("tetrominoes", [(4, 4), (4, 6), (6, 4), (3, 8)], None),
    ("tetrominoes", [(4, 5), (5, 4), (4, 6), (6, 4)], False),  # one-sided: transposing must mirror the pieces
    ("pentominoes", [(5, 5), (4, 5), (3, 10)], None),
])
def test_other_sets_against_the_oracle(cpu, name, boards, mirror):
    pieces = unlimited(name, mirror=mirror)
    spec = [(sorted(p.cells), p.turns) for p in pieces]
    for w, h in boards:
        want = count_tilings(w, h, spec)
        assert L.count_strip(pieces, w, h, cpu, "crt").solutions == want, (w, h)
        assert L.count_strip(pieces, w, h, cpu, "bigint").solutions == want, (w, h)


def test_against_the_exact_cover_engine(cpu):
    from puzzlebatch.runners.polyomino import solver as RP

    for name, (w, h) in [("tetrominoes", (4, 6)), ("trominoes", (3, 6)), ("L-trominoes", (6, 4)),
                         ("dominoes", (4, 7))]:
        pieces = unlimited(name)
        pk = P.build(P.parse_board(f"{w}x{h}"), pieces)
        engine = RP.count_packing(pk, cpu).solutions
        assert engine > 0
        assert L.count_strip(pieces, w, h, cpu).solutions == engine, name


def test_crt_agrees_with_big_integers_on_long_strips(cpu):
    for name, w, h in [("tetrominoes", 4, 300), ("trominoes", 5, 120), ("dominoes", 9, 200)]:
        pieces = unlimited(name)
        a = L.count_strip(pieces, w, h, cpu, "crt")
        b = L.count_strip(pieces, w, h, cpu, "bigint")
        assert a.solutions == b.solutions and a.solutions.bit_length() > 62 * 2
        assert len(a.moduli) >= 3
        assert a.solutions.bit_length() - 1 <= a.log2_estimate < a.solutions.bit_length()  # the float size estimate


@pytest.mark.parametrize("name,mirror", [("dominoes", True), ("L-trominoes", True), ("tetrominoes", True),
                                         ("tetrominoes", False), ("pentominoes", True)])
def test_array_graph_equals_the_set_walk(name, mirror):
    """The NumPy builder (windows up to 62 cells) gives the plain-Python walk's graph, array for array, and the
    same refusal when a row has too many profiles."""
    from puzzlebatch.errors import PuzzleInputError

    builders = (ST._profile_graph_sets, ST._profile_graph_arrays)
    pieces = unlimited(name, mirror=mirror)
    for m in range(1, 5):
        for transpose in (False, True):
            pl = ST.anchored(pieces, transpose)
            window = max(dx * m + dy for a in pl for dx, dy in a.cells) + 1
            a, b = (build(pl, m, window, ST.MAX_PROFILES) for build in builders)
            assert a.n_states > 0 or m == 1
            assert (a.m, a.window, a.n_states, a.n_edges) == (b.m, b.window, b.n_states, b.n_edges)
            for key in ("states", "ptr", "src", "via"):
                for x, y in zip(getattr(a, key), getattr(b, key), strict=True):
                    assert x.dtype == y.dtype and np.array_equal(x, y), (key, m, transpose)
    pl = ST.anchored(pieces)
    window = max(dx * 6 + dy for a in pl for dx, dy in a.cells) + 1
    for build in builders:
        with pytest.raises(PuzzleInputError, match="more than 8 profiles per row for strips of height 6"):
            build(pl, 6, window, 8)


def test_crt_helpers():
    ps = ST.primes_below(ST.MODULUS_LIMIT, 3)
    assert all(p < 2 ** 62 for p in ps) and len(set(ps)) == 3
    x = 3 ** 300 % (ps[0] * ps[1] * ps[2])
    assert ST.crt([x % p for p in ps], ps) == x


@pytest.mark.gpu
def test_kernel_simulator_matches_cpu_bit_for_bit(cpu, gpu):
    from puzzlebatch.cpu_fallback.polyomino_strip import drivers as cpu_drivers
    from puzzlebatch.gpu_kernels.polyomino_strip import drivers as gpu_drivers

    g = ST.profile_graph(unlimited("trominoes"), 3)
    f = g.flat()
    width = int(f["n_sources"].max())
    primes = np.array([97, 101, ST.primes_below(ST.MODULUS_LIMIT, 1)[0]], np.int64)
    outs = []
    for d in (cpu_drivers(), gpu_drivers()):
        a = np.zeros((3, width), np.int64)
        b = np.zeros((3, width), np.int64)
        a[:, g.zero_index()] = 1
        d.run_steps(a, b, f["ptr_all"], f["src_all"], f["ptr_off"], f["src_off"], f["n_targets"], primes, 0, 13,
                    g.m)
        outs.append((a, b))
    assert np.array_equal(outs[0][0], outs[1][0]) and np.array_equal(outs[0][1], outs[1][1])
    assert outs[0][1].any()
    res = L.count_strip(unlimited("trominoes"), 3, 5, gpu, "crt")
    assert res.backend == GPU and res.solutions == L.count_strip(unlimited("trominoes"), 3, 5, cpu).solutions


# -- band-by-band tilings -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,w,h", [("pentominoes", 20, 15), ("pentominoes", 35, 12), ("tetrominoes", 12, 30),
                                      ("L-trominoes", 9, 21), ("dominoes", 7, 40)])
def test_band_solutions_validate(name, w, h):
    pieces = unlimited(name)
    res = L.solve_bands(pieces, w, h, seed=3)
    assert res.solved and sum(res.bands) == max(w, h)
    L.validate_tiling(pieces, w, h, res.placements)
    assert sum(len(c) for _, c in res.placements) == w * h


def test_band_one_sided_pieces_keep_their_orientation():
    pieces = unlimited("tetrominoes", mirror=False)
    for w, h in [(8, 20), (20, 8)]:
        res = L.solve_bands(pieces, w, h, seed=1)
        assert res.solved
        L.validate_tiling(pieces, w, h, res.placements)


def test_validator_rejects_broken_tilings():
    pieces = unlimited("pentominoes")
    res = L.solve_bands(pieces, 10, 10, seed=0)
    with pytest.raises(AssertionError, match="uncovered"):
        L.validate_tiling(pieces, 10, 10, res.placements[1:])
    k, cells = res.placements[0]
    with pytest.raises(AssertionError):
        L.validate_tiling(pieces, 10, 10, [(k, cells[:-1] + [(cells[-1][0] + 7, cells[-1][1])])] + res.placements[1:])


def test_band_sampling_is_uniform():
    """2 x 5 dominoes have 8 tilings (Fibonacci); sampled ones should be spread evenly."""
    g = ST.profile_graph(unlimited("dominoes"), 2)
    rng = np.random.default_rng(0)
    seen = {}
    for _ in range(1600):
        key = tuple(sorted(L.sample_band(g, 5, rng)))
        seen[key] = seen.get(key, 0) + 1
    assert len(seen) == 8
    assert min(seen.values()) > 140 and max(seen.values()) < 260  # 200 expected each (p < 1e-4 outside)


def test_no_split_is_reported():
    res = L.solve_bands(unlimited("pentominoes"), 7, 7)
    assert not res.solved and res.placements == []


# -- random cuts ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("w,h,a,b,seed", [(16, 16, 4, 6, 0), (32, 20, 4, 6, 1), (20, 20, 1, 3, 2),
                                          (30, 30, 20, 40, 3), (40, 40, 100, 200, 4)])
def test_random_cut_is_a_partition(w, h, a, b, seed):
    board = P.parse_board(f"{w}x{h}")
    cut = K.random_cut(board.playable, a, b, seed)
    K.check_cut(cut, board.playable, a, b)
    again = K.random_cut(board.playable, a, b, seed)
    assert again.pieces == cut.pieces


def test_random_cut_of_a_mask():
    board = P.parse_board_text("..........\n....##....\n...####...\n..........\n..........\n")
    cut = K.random_cut(board.playable, 3, 5, 7)
    K.check_cut(cut, board.playable, 3, 5)


def test_shape_classes_and_solve_back(cpu):
    board = P.parse_board("6x5")
    cut = K.random_cut(board.playable, 3, 4, 5)
    pieces = cut.piece_objects()
    classes, members = L.shape_classes(pieces)
    assert sum(c.count for c in classes) == len(pieces) and sorted(sum(members, [])) == list(range(len(pieces)))
    res = L.solve_cut(board, pieces, cpu)
    assert res.solved and len(res.placements) == len(pieces)
    assert sorted(k for k, _ in res.placements) == list(range(len(pieces)))


# -- CLI ----------------------------------------------------------------------------------------------------------
def test_cli_count_transfer(tmp_path):
    doc = json.loads(run_cli("count", "--board", "9x40", "--pieces", "dominoes", "--unlimited", "--method",
                             "transfer", "--exact", "crt", "--backend", "cpu", "--json").stdout)
    assert doc["solutions"] == ST.kasteleyn(9, 40) and doc["backend"] == "cpu" and doc["method"] == "crt"
    doc = json.loads(run_cli("count", "--board", "4x6", "--pieces", "tetrominoes", "--unlimited", "--method",
                             "transfer", "--json").stdout)
    assert doc["solutions"] == count_tilings(4, 6, [(sorted(p.cells), p.turns) for p in unlimited("tetrominoes")])
    bad = run_cli("count", "--board", "4x6", "--pieces", "dominoes", "--method", "transfer", check=False)
    assert bad.returncode == 2 and "--unlimited" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_kasteleyn_method_against_published_counts_and_the_transfer_matrix(cpu):
    """``method="kasteleyn"`` (the domino alone, boards too wide for the transfer matrix) gives OEIS A004003 /
    A001835 and the transfer matrix's count, 0 on odd areas, 1 on a 1 x 2n strip; other pieces are refused."""
    from puzzlebatch.api import polyomino as api_polyomino
    from puzzlebatch.errors import PuzzleInputError

    def kast(w, h, pieces="dominoes"):
        r = api_polyomino.count(f"{w}x{h}", pieces, unlimited=True, method="kasteleyn", backend="auto")
        assert r.method == "kasteleyn" and r.backend == "cpu" and r.profiles == 0
        return r.solutions

    assert [kast(2 * n, 2 * n) for n in range(1, 6)] == A004003
    assert [kast(3, 2 * n) for n in range(1, 9)] == A001835
    assert [kast(1, n) for n in range(1, 7)] == [0, 1, 0, 1, 0, 1] and kast(7, 9) == 0
    dom = unlimited("dominoes")
    for w, h in [(7, 8), (12, 5), (18, 21)]:
        assert kast(w, h) == L.count_strip(dom, w, h, cpu, "bigint").solutions
    with pytest.raises(PuzzleInputError, match="counts tilings by the domino alone"):
        kast(6, 6, "trominoes")
    with pytest.raises(PuzzleInputError, match="600x600 is beyond --method kasteleyn"):
        kast(600, 600)  # refused by its estimate, before any work
    with pytest.raises(PuzzleInputError, match="--exact crt: only with --method transfer"):
        api_polyomino.count("4x4", "dominoes", unlimited=True, method="kasteleyn", exact="crt")
    with pytest.raises(PuzzleInputError, match="--method kasteleyn: a formula evaluated on the CPU"):
        api_polyomino.count("4x4", "dominoes", unlimited=True, method="kasteleyn", backend="cuda")


def test_kasteleyn_on_wide_squares_has_pachters_form():
    """Pachter (1997): the domino tilings of a 2n x 2n square number 2^n times an odd square.  The rounded decimal
    product holds that form on squares far past the transfer matrix (a digit off would break it)."""
    import math

    for side in (20, 40, 64, 100):
        q, r = divmod(ST.kasteleyn(side, side), 2 ** (side // 2))
        assert r == 0 and q % 2 == 1 and math.isqrt(q) ** 2 == q, side


def test_cli_kasteleyn_and_the_transfer_matrix_pointing_to_it():
    doc = json.loads(run_cli("count", "--board", "30x30", "--pieces", "dominoes", "--unlimited", "--method",
                             "kasteleyn", "--json").stdout)
    assert doc["solutions"] == ST.kasteleyn(30, 30) and doc["digits"] == 111 and doc["method"] == "kasteleyn"
    out = run_cli("count", "--board", "30x30", "--pieces", "dominoes", "--unlimited", "--method", "kasteleyn").stdout
    assert out.startswith(f"30x30 with dominoes (unlimited): {ST.kasteleyn(30, 30)} tilings\n111 digits; Kasteleyn")
    bad = run_cli("count", "--board", "30x30", "--pieces", "dominoes", "--unlimited", "--method", "transfer",
                  check=False)  # 2^30 profiles a row: refused, with the way that counts it
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "more than 2,000,000 profiles per row" in bad.stderr
    assert "--method kasteleyn counts boards up to" in bad.stderr


def test_cli_solve_band_and_generate(tmp_path):
    doc = json.loads(run_cli("solve", "--board", "60x60", "--pieces", "pentominoes", "--unlimited", "--json",
                             "--text", str(tmp_path / "t.txt")).stdout)
    assert doc["solved"] and doc["validated"] and doc["method"] == "band" and doc["backend"] == "cpu"
    placements = [(next(i for i, p in enumerate(unlimited("pentominoes")) if p.name == d["piece"]),
                   [tuple(c) for c in d["cells"]]) for d in doc["placements"]]
    L.validate_tiling(unlimited("pentominoes"), 60, 60, placements)
    assert len((tmp_path / "t.txt").read_text().split()) == 60
    out = tmp_path / "cut.txt"
    doc = json.loads(run_cli("generate", "--random-cut", "12x9", "--sizes", "4-6", "--seed", "4", "--text", str(out),
                             "--json").stdout)
    pieces = S.load_pieces(str(out))
    assert [p.name for p in pieces] == [d["name"] for d in doc["pieces"]]
    cutdoc = json.loads((tmp_path / "cut.txt.cut.json").read_text())
    assert sum(len(d["cells"]) for d in cutdoc["pieces"]) == 108
    bad = run_cli("generate", "--random-cut", "12x9", "--sizes", "6-4", "--text", str(out), check=False)
    assert bad.returncode == 2 and "--sizes" in bad.stderr


def test_cli_generate_then_solve_back_by_classes(tmp_path):
    out = tmp_path / "cut.txt"
    run_cli("generate", "--random-cut", "6x5", "--sizes", "3-4", "--seed", "5", "--text", str(out))
    doc = json.loads(run_cli("solve", "--board", "6x5", "--pieces", str(out), "--method", "classes", "--backend",
                             "cpu", "--json").stdout)
    pieces = S.load_pieces(str(out))
    assert doc["solved"] and doc["validated"] and doc["backend"] == "cpu" and doc["classes"] <= len(pieces)
    names = [p.name for p in pieces]
    L.validate_tiling(pieces, 6, 5, [(names.index(d["piece"]), [tuple(c) for c in d["cells"]])
                                     for d in doc["placements"]])
    assert sorted(d["piece"] for d in doc["placements"]) == sorted(names)


def test_a_domino_kept_to_one_orientation_is_not_kasteleyns(cpu, tmp_path):
    """Kasteleyn's formula counts dominoes lying both ways: a domino fixed to lie flat is refused (the transfer
    matrix counts it: one tiling of 4 x 4)."""
    from puzzlebatch.api import polyomino as api_polyomino
    from puzzlebatch.errors import PuzzleInputError

    f = tmp_path / "flat.txt"
    f.write_text("D turns=fixed:\n##\n")
    with pytest.raises(PuzzleInputError, match="kept to one orientation: use --method transfer"):
        api_polyomino.count("4x4", str(f), unlimited=True, method="kasteleyn")
    assert api_polyomino.count("4x4", str(f), unlimited=True, method="transfer").solutions == 1
    assert not L.is_domino_set(S.load_pieces(str(f), unlimited=True)) and L.is_domino_set(unlimited("dominoes"))


def test_a_strip_with_no_step_counts_zero(cpu):
    """1 x 5 by L-trominoes: nothing fits a row of one cell, the graph has no edge: 0 both ways (the big-integer
    steps once failed on it)."""
    p = unlimited("L-trominoes")
    assert L.count_strip(p, 1, 5, cpu, "bigint").solutions == 0 == L.count_strip(p, 1, 5, cpu, "crt").solutions
    assert L.count_strip(unlimited("trominoes"), 1, 6, cpu, "bigint").solutions == 1
