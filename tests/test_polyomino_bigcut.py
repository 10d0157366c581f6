"""Compiled random cuts of large boards: validity against an independent checker, reproducibility, the streamed
piece file and HDF5, the memory limit, the ``generate`` command."""

import os
import subprocess
import sys

import numpy as np
import pytest

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.runners.polyomino import bigcut as BC
from tests.reference.cut_oracle import check_partition, pieces_from_labels


def _mask_with_holes(w, h, seed):
    rng = np.random.default_rng(seed)
    m = np.ones((h, w), bool)
    m[rng.integers(0, h, 6), rng.integers(0, w, 6)] = False
    m[h // 3:h // 3 + 3, w // 2:w // 2 + 4] = False
    return m


@pytest.mark.parametrize("w,h,a,b", [(30, 20, 4, 6), (64, 9, 4, 6), (9, 64, 4, 6), (40, 40, 3, 5), (41, 17, 2, 3),
                                     (30, 20, 5, 8), (24, 20, 4, 4), (25, 24, 5, 5), (13, 11, 1, 1)])
def test_cut_is_a_partition(w, h, a, b):
    mask = np.ones((h, w), bool)
    for seed in range(3):
        cut = BC.cut_mask(mask, a, b, seed)
        pieces = pieces_from_labels(cut.labels.tolist())
        check_partition(mask.tolist(), pieces, a, b)
        # the cells arrays agree with the labels
        assert sorted(map(sorted, pieces)) == sorted(cut.piece_cells(p) for p in range(cut.n_pieces))


def test_cut_with_holes():
    mask = _mask_with_holes(50, 30, 1)
    cut = BC.cut_mask(mask, 4, 6, 7)
    check_partition(mask.tolist(), pieces_from_labels(cut.labels.tolist()), 4, 6)
    assert (cut.labels[~mask] == -1).all()


def test_reproducible_from_the_seed():
    mask = np.ones((60, 80), bool)
    one, two, other = BC.cut_mask(mask, 4, 6, 11), BC.cut_mask(mask, 4, 6, 11), BC.cut_mask(mask, 4, 6, 12)
    assert np.array_equal(one.labels, two.labels)
    assert not np.array_equal(one.labels, other.labels)


def test_impossible_cut_is_refused():
    with pytest.raises(PuzzleInputError, match="--sizes"):
        BC.cut_mask(np.ones((3, 3), bool), 4, 4, 0)  # 9 cells are no sum of 4s
    with pytest.raises(PuzzleInputError, match="fewer than A"):
        BC.cut_mask(np.ones((1, 3), bool), 4, 6, 0)


def test_streamed_files_match_the_piece_format(tmp_path):
    cut = BC.cut_mask(np.ones((20, 30), bool), 4, 6, 3)
    BC.write_text(cut, tmp_path / "p.txt", chunk=17)  # several chunks
    pieces = S.parse_pieces((tmp_path / "p.txt").read_text())
    assert len(pieces) == cut.n_pieces
    for p, piece in enumerate(pieces):
        assert piece.cells == S.normalize(cut.piece_cells(p)) and piece.count == 1 and piece.turns == "free"
    BC.write_hdf5(cut, tmp_path / "c.h5", rows=7)
    back = BC.read_hdf5(tmp_path / "c.h5")
    assert np.array_equal(back.labels, cut.labels) and np.array_equal(back.starts, cut.starts)
    assert (back.w, back.h, back.a, back.b, back.seed) == (30, 20, 4, 6, 3)


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "puzzlebatch", "polyomino", *args], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))


def test_cli_generate_streamed_and_memory_limit(tmp_path):
    out, h5 = tmp_path / "p.txt", tmp_path / "c.h5"
    r = _cli("generate", "--random-cut", "40x30", "--sizes", "4-6", "--seed", "2", "--text", str(out),
             "--hdf5", str(h5))
    assert r.returncode == 0, r.stderr
    back = BC.read_hdf5(h5)
    check_partition(np.ones((30, 40), bool).tolist(), pieces_from_labels(back.labels.tolist()), 4, 6)
    assert len(S.load_pieces(str(out))) == back.n_pieces
    # the API path (small boards) gives the same cut for the same seed
    from puzzlebatch.api import polyomino as api

    g = api.generate("40x30", "4-6", seed=2)
    assert sorted(map(sorted, g.regions)) == sorted(back.piece_cells(p) for p in range(back.n_pieces))
    r = _cli("generate", "--random-cut", "1000x1000", "--text", str(tmp_path / "big.txt"),
             env={"PUZZLEBATCH_MAX_MEMORY": "1000000"})
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--random-cut" in r.stderr
    assert not (tmp_path / "big.txt").exists()


def test_bad_sizes_on_the_streamed_path(tmp_path):
    r = _cli("generate", "--random-cut", "40x30", "--sizes", "6-4", "--text", str(tmp_path / "p.txt"),
             "--hdf5", str(tmp_path / "c.h5"))
    assert r.returncode == 2 and "--sizes" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_streamed_pieces_to_standard_output(tmp_path):
    r = _cli("generate", "--random-cut", "20x10", "--sizes", "4-6", "--seed", "1", "--text", "-",
             "--hdf5", str(tmp_path / "c.h5"))
    assert r.returncode == 0, r.stderr
    pieces = S.parse_pieces(r.stdout)
    assert len(pieces) == BC.read_hdf5(tmp_path / "c.h5").n_pieces and "pieces of 4-6" in r.stderr
