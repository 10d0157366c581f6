"""Exact cover with colours (Knuth's XCC, TAOCP 7.2.2.1) in the bitset rules and ``polyomino dlx solve``.

Counts are checked against xcover's ``covers(..., colored=True)`` (an independent dancing-links XCC solver) and the
brute-force oracle in ``tests/reference/xcc_oracle.py``; the CUDA twin runs in the simulator, bit for bit against the
CPU twin.
"""

import json
import random
import subprocess
import sys

import numpy as np
import pytest

from puzzlebatch.cli import main
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.polyomino import cover as C
from puzzlebatch.puzzles.polyomino import rules as R
from puzzlebatch.runners.engine.search import BatchDFS, Frontier, SearchSettings, SearchTotals
from puzzlebatch.runners.polyomino import solver as RP
from tests.reference import xcc_oracle as oracle
from tests.backends import GPU

xcover = pytest.importorskip("xcover")

# TAOCP 7.2.2.1, the toy XCC problem: exactly one solution, options 1 and 3 (0-based).
TOY = "| Knuth's toy XCC problem\np q r | x y\np q x y:A\np r x:A y\np x:B\nq x:A\nr y:B\n"

# Small work units, so that items split, undo and resume on these tiny trees.
TINY = SearchSettings(budget=3, batch_size=5, frontier_target=4, first_batch_size=3)


def words(ec):
    """The problem as xcover and the oracle take it: primary, secondary, options of words."""
    prim, sec = ec.items[:ec.n_primary], ec.items[ec.n_primary:]
    return prim, sec, [C.option_words(ec, o) for o in range(len(ec.options))]


def xcover_count(ec) -> int:
    prim, sec, opts = words(ec)
    return sum(1 for _ in xcover.covers(opts, primary=prim, secondary=sec, colored=True))


def count(ec, backend, mode, settings=None) -> int:
    totals, _ = RP.count_engine(RP.engine(ec, mode, False), backend, settings)
    return totals.count


def first(ec, backend, mode):
    eng = RP.engine(ec, mode, False)
    if eng.dead:
        return None
    totals, _ = BatchDFS(eng.problem, backend, TINY).first()
    return C.decode(eng.enc, totals.solutions[0]) if totals.solutions else None


def random_xcc(rng: random.Random, n_prim: int, n_sec: int, n_opt: int, n_colors: int, p_color: float = 0.6) -> str:
    """A random coloured DLX text: every option has a primary item; secondary items coloured with ``p_color``."""
    prim = [f"p{i}" for i in range(n_prim)]
    sec = [f"s{i}" for i in range(n_sec)]
    lines = [" ".join(prim) + " | " + " ".join(sec)]
    for _ in range(n_opt):
        opt = rng.sample(prim, rng.randint(1, min(3, n_prim)))
        for s in rng.sample(sec, rng.randint(0, min(3, n_sec))):
            opt.append(f"{s}:{'ABC'[rng.randrange(n_colors)]}" if rng.random() < p_color else s)
        rng.shuffle(opt)
        lines.append(" ".join(opt))
    return "\n".join(lines) + "\n"


# -- Knuth's toy problem --------------------------------------------------------------------------------------
def test_knuth_toy(cpu):
    ec = C.read_dlx(TOY, "toy.dlx")
    assert ec.colored and ec.colors == ["A", "B"] and ec.n_primary == 3
    assert ec.option_colors[0] == ((ec.items.index("y"), 1),)
    prim, sec, opts = words(ec)
    assert [sorted(s) for s in xcover.covers(opts, primary=prim, secondary=sec, colored=True)] == [[1, 3]]
    assert oracle.solutions(prim, sec, opts) == [(1, 3)]
    for mode in ("first", "mrv", "enclosed"):
        assert count(ec, cpu, mode) == 1
        assert count(ec, cpu, mode, TINY) == 1
        assert sorted(first(ec, cpu, mode)) == [1, 3]
    # without its colours the problem has no solution (x would be shared)
    plain = C.read_dlx(TOY.replace(":A", "").replace(":B", ""))
    assert not plain.colored and count(plain, cpu, "mrv") == 0


def test_colours_are_shared_only_alike(cpu):
    text = "a b c | x\na x:R\nb x:R\nc x:G\nc x\nc\n"
    ec = C.read_dlx(text)
    # {a, b, c}: a, b share x in R; c must then not use x -> only option 4 ("c")
    assert count(ec, cpu, "mrv") == count(ec, cpu, "first") == 1 == xcover_count(ec)
    ec = C.read_dlx("a b | x\na x:R\nb x\n")  # an uncoloured use cannot share
    assert count(ec, cpu, "mrv") == 0 == xcover_count(ec)
    ec = C.read_dlx("a b | x\na x\nb x\n")
    assert count(ec, cpu, "mrv") == 0
    ec = C.read_dlx("a b | x\na x:R\nb x:R\n")
    assert count(ec, cpu, "mrv") == 1


def test_mrv_counts_only_options_that_fit_their_colours(cpu):
    """After choosing ``a x:R``, item b has one option in the list that does not fit (x:G): MRV sees b dead."""
    ec = C.read_dlx("a b | x\na x:R\nb x:G\n")
    eng = RP.engine(ec, "mrv", False)
    s = eng.state_with([0])
    assert s is None  # b has no fitting option left: the child is pruned at once
    assert eng.state_with([]) is not None


def test_state_round_trip(cpu):
    """Cover then uncover restores the state exactly (colour slots included)."""
    from puzzlebatch.cpu_fallback.search import search_unit

    r = search_unit(R)  # the compiled rules, called from Python
    ec = C.read_dlx(TOY)
    enc = C.encode(ec, "mrv")
    t, s0 = enc.tables, enc.root
    assert t[R.H_XCC] == 1
    s = s0.copy()
    r.cover(s, 3, 1, t)  # q x:A
    assert r.fits(s, 1, t) and not r.fits(s, 2, t)  # x:A still fits, x:B not
    assert not r.fits(s, 0, t)  # p q x y:A: x without a colour is taken
    r.cover(s, 1, 1, t)
    slot = t[R.S_COL] + 2  # slots in order of first colouring: y (option 0), then x
    assert s[slot + 1] == 2 and s[slot] == 1  # x: colour A, held twice
    r.cover(s, 1, -1, t)
    r.cover(s, 3, -1, t)
    assert np.array_equal(s, s0)


def test_no_colours_keep_the_plain_tables():
    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.puzzles.polyomino import shapes as S

    pk = P.build(P.parse_board("5x4"), S.load_pieces("tetrominoes"))
    enc = C.encode(pk.cover)
    assert enc.tables[R.H_XCC] == 0 and len(enc.root) == enc.tables[R.S_COL]  # no colour slots


# -- random instances -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(40))
def test_random_instances_match_xcover(cpu, seed):
    rng = random.Random(seed)
    text = random_xcc(rng, rng.randint(2, 6), rng.randint(1, 4), rng.randint(4, 22), rng.randint(1, 3))
    ec = C.read_dlx(text, f"random{seed}.dlx")
    expected = xcover_count(ec)
    if len(ec.options) <= 14:
        assert oracle.count(*words(ec)) == expected
    assert count(ec, cpu, "mrv") == expected
    assert count(ec, cpu, "first") == expected
    assert count(ec, cpu, "mrv", TINY) == expected
    sol = first(ec, cpu, "mrv")
    assert (sol is not None) == (expected > 0)
    if sol is not None:
        prim, sec, opts = words(ec)
        assert oracle.is_solution(prim, sec, [opts[o] for o in sol])
    # the round trip keeps the problem
    again = C.read_dlx(C.write_dlx(ec))
    assert again.options == ec.options and words(again) == words(ec)  # colour ids may be renumbered, not names
    assert count(again, cpu, "mrv") == expected


def test_some_random_instances_have_many_solutions(cpu):
    """The random family is not all zeros: a denser one, counted against xcover."""
    rng = random.Random(7)
    total = 0
    for _ in range(6):
        ec = C.read_dlx(random_xcc(rng, 5, 3, 30, 2, p_color=0.9))
        n = xcover_count(ec)
        assert count(ec, cpu, "mrv") == count(ec, cpu, "first", TINY) == n
        total += n
    assert total > 6


def test_oracle_agrees_with_xcover_on_its_own():
    rng = random.Random(11)
    for _ in range(10):
        ec = C.read_dlx(random_xcc(rng, 4, 3, 11, 2))
        prim, sec, opts = words(ec)
        want = sorted(tuple(sorted(s)) for s in xcover.covers(opts, primary=prim, secondary=sec, colored=True))
        assert sorted(oracle.solutions(prim, sec, opts)) == want


# -- format ---------------------------------------------------------------------------------------------------
def test_round_trip_text():
    ec = C.read_dlx(TOY)
    text = C.write_dlx(ec)
    assert text.splitlines()[1:] == ["p q x y:A", "p r x:A y", "p x:B", "q x:A", "r y:B"]
    assert C.write_dlx(C.read_dlx(text)) == text


@pytest.mark.parametrize("text, message", [
    ("p q | x\np:A x\n", r"t.dlx:2: primary item p cannot have a colour"),
    ("p q | x\np Z:A\n", r"t.dlx:2: unknown item Z"),
    ("p q | x\np x:A x:B\n", r"t.dlx:2: item x appears twice in one option"),
    ("p q | x\np x x:A\n", r"t.dlx:2: item x appears twice"),
    ("p q | x\nq\np x:\n", r"t.dlx:3: bad colour in 'x:'"),
    ("p q | x\np x:A:B\n", r"t.dlx:2: bad colour in 'x:A:B'"),
    ("p q | x\np x:A|B\n", r"t.dlx:2: bad colour"),
])
def test_format_errors(text, message):
    with pytest.raises(PuzzleInputError, match=message):
        C.read_dlx(text, "t.dlx")


def test_exact_cover_checks_colours():
    with pytest.raises(PuzzleInputError, match="option 0 colours primary item p"):
        C.ExactCover(["p", "x"], 1, [(0, 1)], option_colors=[((0, 1),)])
    with pytest.raises(PuzzleInputError, match="colour id 0"):
        C.ExactCover(["p", "x"], 1, [(0, 1)], option_colors=[((1, 0),)])
    with pytest.raises(PuzzleInputError, match="not in it"):
        C.ExactCover(["p", "x", "y"], 1, [(0, 1)], option_colors=[((2, 1),)])
    ec = C.ExactCover(["p", "x"], 1, [(0, 1), (0,)], option_colors=[((1, 3),), ()])
    assert C.write_dlx(ec).splitlines()[1] == "p x:c3"  # unnamed colours get names


# -- the CUDA twin in the simulator ----------------------------------------------------------------------------
@pytest.mark.gpu
def test_cuda_twin_is_bit_identical(cpu, gpu):
    from puzzlebatch.config import launch

    rng = random.Random(3)
    ec = C.read_dlx(random_xcc(rng, 6, 3, 40, 2, p_color=0.9))
    eng = RP.engine(ec, "mrv", False)
    dfs = BatchDFS(eng.problem, cpu, SearchSettings(frontier_target=12))
    frontier = dfs.expand(Frontier.root(eng.problem), SearchTotals(), 12)
    assert len(frontier) > launch.threads_per_block, "more than one block"
    results = [BatchDFS(eng.problem, b, SearchSettings(budget=4)).run_batch(frontier, 2, 0) for b in (cpu, gpu)]
    assert gpu.name == GPU
    for a, b, name in zip(results[0], results[1], ("out", "states", "stacks", "solutions")):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b), f"{name} differs between cpu and {gpu.name}"


@pytest.mark.gpu
def test_cuda_twin_counts_and_first_solution(cpu, gpu):
    ec = C.read_dlx(TOY)
    settings = SearchSettings(budget=2, batch_size=6, frontier_target=3, first_batch_size=3)
    got = {b.name: RP.count_engine(RP.engine(ec, "mrv", False), b, settings)[0] for b in (cpu, gpu)}
    assert got["cpu"].count == got[GPU].count == 1 and got["cpu"].nodes == got[GPU].nodes
    rng = random.Random(5)
    ec = C.read_dlx(random_xcc(rng, 5, 3, 24, 2, p_color=0.9))
    want = xcover_count(ec)
    for mode in ("first", "mrv"):
        got = {b.name: RP.count_engine(RP.engine(ec, mode, False), b, settings)[0] for b in (cpu, gpu)}
        assert got["cpu"].count == got[GPU].count == want
        assert got["cpu"].nodes == got[GPU].nodes


# -- the command line -----------------------------------------------------------------------------------------
def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_solves_and_counts_a_coloured_file(capsys, tmp_path):
    f = tmp_path / "toy.dlx"
    f.write_text(TOY)
    code, out, _ = run_cli(capsys, "polyomino", "dlx", "solve", str(f), "--backend", "cpu", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["solved"] is True and doc["colors"] == 2
    assert sorted(doc["options_chosen"]) == [["p", "r", "x:A", "y"], ["q", "x:A"]]
    code, out, _ = run_cli(capsys, "polyomino", "dlx", "solve", str(f), "--count", "--backend", "cpu", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["solutions"] == 1 and doc["items"] == 5 and doc["primary"] == 3
    code, out, _ = run_cli(capsys, "polyomino", "dlx", "solve", str(f), "--count", "--branch", "first",
                           "--backend", "cpu")
    assert code == 0 and ": 1 solution (" in out
    code, out, _ = run_cli(capsys, "polyomino", "dlx", "solve", str(f), "--backend", "cpu")
    assert code == 0 and sorted(out.splitlines()) == ["p r x:A y", "q x:A"]


def test_cli_bad_colour_is_one_line_exit_2(tmp_path):
    f = tmp_path / "bad.dlx"
    f.write_text("p q | x\np x:\nq\n")
    proc = subprocess.run([sys.executable, "-m", "puzzlebatch", "polyomino", "dlx", "solve", str(f), "--json"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{f}:2: bad colour" in lines[0]
    f.write_text("p q | x\np:red x\nq\n")
    proc = subprocess.run([sys.executable, "-m", "puzzlebatch", "polyomino", "dlx", "solve", str(f), "--count"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert f"{f}:2: primary item p cannot have a colour" in proc.stderr
