"""``bench/polyomino.py``'s peers: the DLX text given to Knuth's dlx1, the fixed piece of 3D cubes, timeouts and the
skip message.  dlx1 itself runs only where ``bench/peers/dlx1.sh`` has built it."""

import argparse
import importlib.util
import os
import stat
from pathlib import Path

import pytest

from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.puzzles.polyomino.cover import read_dlx

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_polyomino", ROOT / "bench" / "polyomino.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _packing(case, bench):
    board, pieces, _ = bench.CASES[case]
    return P.build(bench.case_board(board), S.load_pieces(pieces))


def test_fixed_piece_only_for_3d_cubes(bench):
    assert bench.fixed_piece(_packing("6x10", bench)) is None
    soma = _packing("soma", bench)
    name = bench.fixed_piece(soma)
    assert len(next(p for p in soma.pieces if p.name == name).orientations()) == 24


def test_dlx_text_is_the_xcover_problem(bench):
    pk = _packing("soma", bench)
    fix = bench.fixed_piece(pk)
    options, primary = bench.xcover_options(pk, fix_piece=fix)
    text = bench.dlx_text(options, primary, "soma")
    names = text.splitlines()[1].split()
    assert len(names) == len(primary) == 27 + 7
    assert all(0 < len(n) <= 8 and ":" not in n and "|" not in n for n in names)
    ec = read_dlx(text)
    assert ec.n_primary == len(primary) and len(ec.options) == len(options) < len(pk.cover.options)
    assert sorted(len(o) for o in ec.options) == sorted(len(o) for o in options)


def _script(tmp_path, body):
    path = tmp_path / "dlx1"
    path.write_text("#!/bin/sh\ncat >/dev/null\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_dlx1_report_is_parsed_and_a_slow_run_is_killed(bench, tmp_path):
    fake = _script(tmp_path,
                   'echo "Altogether 7 solutions, 10+200 mems, 30 updates, 40 bytes, 50 nodes, ccost 1%." >&2')
    got = bench.run_dlx1(fake, "A B\nA B\n", timeout=30)
    assert (got["count"], got["nodes"], got["mems"], got["input_mems"]) == (7, 50, 200, 10)
    slow = _script(tmp_path, "sleep 20")
    got = bench.run_dlx1(slow, "A\nA\n", timeout=0.5)
    assert got["killed"] and got["timeout_s"] == 0.5 and got["wall_s"] < 10


def test_missing_dlx1_is_skipped_with_a_message(bench, tmp_path):
    args = argparse.Namespace(no_peer=False, peers="dlx1", dlx1=tmp_path / "nope")
    peers, skipped = bench.available_peers(args)
    assert peers == [] and "bench/peers/dlx1.sh" in skipped["dlx1"]


def test_dlx1_counts_soma_per_rotation_class(bench):
    binary = Path(os.environ.get("DLX1") or bench.DLX1_DEFAULT)
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        pytest.skip(f"no dlx1 at {binary} (bench/peers/dlx1.sh builds it)")
    pk = _packing("soma", bench)
    options, primary = bench.xcover_options(pk, fix_piece=bench.fixed_piece(pk))
    got = bench.run_dlx1(binary, bench.dlx_text(options, primary), timeout=60)
    assert got["count"] == 11520 // 24 and got["nodes"] > 0


def test_8x8_minus_centre_case(bench):
    pk = _packing("8x8c", bench)
    assert pk.board.n_cells == 60 and len(P.symmetries(pk)) == 8
    assert bench.KNOWN["8x8c"] // 8 == 65  # Scott (1958): 65 distinct solutions


def _rust_script(tmp_path, body):
    path = tmp_path / "pentomino-solver"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_rust_report_is_parsed_and_a_slow_run_is_killed(bench, tmp_path):
    fake = _rust_script(tmp_path, 'echo "solutions=7 checks=90 seconds=0.250000"')
    got = bench.run_rust(fake, "6x10", repeat=3, timeout=30)
    assert (got["count"], got["checks"], got["seconds"], got["runs"]) == (7, 90, 0.25, 3)
    bad = _rust_script(tmp_path, 'echo "board is not one" >&2; exit 2')
    assert "exit 2" in bench.run_rust(bad, "6x10", repeat=1)["error"]
    slow = _rust_script(tmp_path, "sleep 20")
    got = bench.run_rust(slow, "6x10", repeat=1, timeout=0.5)
    assert got["killed"] and got["timeout_s"] == 0.5


def test_missing_rust_solver_is_skipped_with_a_message(bench, tmp_path):
    args = argparse.Namespace(no_peer=False, peers="rust", dlx1=tmp_path / "nope", rust=tmp_path / "nope")
    peers, skipped = bench.available_peers(args)
    assert peers == [] and "bench/peers/build_pentomino_solver.sh" in skipped["rust"]


def test_rust_solver_counts_the_published_distinct_solutions(bench):
    binary = Path(os.environ.get("PENTOMINO_SOLVER") or bench.RUST_DEFAULT)
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        pytest.skip(f"no pentomino-solver at {binary} (bench/peers/build_pentomino_solver.sh builds it)")
    for case, want in (("8x8c", 65), ("5x12", 1010)):  # published: Scott (1958); Golomb, "Polyominoes"
        got = bench.run_rust(binary, bench.RUST_BOARDS[case], repeat=1, timeout=120)
        assert got["count"] == want, case
