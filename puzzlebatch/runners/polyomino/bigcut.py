"""Compiled random cuts of large boards (a million cells in seconds), streamed to a piece file and HDF5.

The cut is one numba-compiled pass in scan order (y, then x) over a board mask:

* each piece grows from the first uncut cell to a random target size in ``[A, B]``, adding a random uncut
  neighbour of the piece at a time;
* a grown piece is kept only when every pocket of uncut cells it touches can still be cut: a pocket found whole
  by a breadth-first search bounded to ``8 * B`` cells must hold a number of cells that is a sum of sizes in
  ``[A, B]`` (larger pockets pass);
* a piece that cannot be kept after a few draws undoes the last ``k`` pieces (``k`` doubling while the cut is
  stuck at the same place) and the pass goes on from the first undone cell — a local repair, never a restart.

The random numbers come from a splitmix64 stream of the seed (the same sequence on every machine), so a cut is
reproducible from ``(board, A, B, seed)``.  The result is a label array (piece number of each cell, ``-1`` for
holes) plus the cells of each piece in creation order; :func:`write_text` and :func:`write_hdf5` stream them out in
chunks without building one Python object per cell.  The pass is sequential (each piece depends on the cells cut
before it), so it has no CUDA twin: on a GPU the generator still runs on the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from puzzlebatch.errors import PuzzleInputError


def _rules():
    """The cut's rules compiled for the CPU (one unit, built once a process and cached on disk)."""
    from puzzlebatch import jit
    from puzzlebatch.puzzles.polyomino import cut_rules

    return jit.compile_rules(cut_rules, "cpu", inline=False, label="polyomino cut")


@dataclass
class BigCut:
    """A cut as arrays: ``labels[y, x]`` is the piece of each cell (``-1``: a hole); piece ``p`` holds the flat
    cells ``cells[starts[p]:starts[p + 1]]`` (``y * w + x``)."""

    w: int
    h: int
    a: int
    b: int
    seed: int
    labels: np.ndarray
    cells: np.ndarray
    starts: np.ndarray
    backtracks: int

    @property
    def n_pieces(self) -> int:
        return len(self.starts) - 1

    def piece_cells(self, p: int) -> list[tuple[int, int]]:
        flat = self.cells[self.starts[p]:self.starts[p + 1]]
        return sorted((int(c % self.w), int(c // self.w)) for c in flat)


def cut_memory_bytes(w: int, h: int) -> int:
    """Bytes the generator allocates for a ``w x h`` board (owner, cells, piece starts, BFS stamps, mask)."""
    return w * h * (4 + 4 + 8 + 8 + 1 + 4)


def cut_mask(mask: np.ndarray, a: int, b: int, seed: int = 0, max_backtracks: int | None = None) -> BigCut:
    """Cut the cells of ``mask`` (``[h, w]`` bool, True = to cut) into connected pieces of ``a..b`` cells."""
    if not 1 <= a <= b:
        raise PuzzleInputError(f"--sizes: {a}-{b} must satisfy 1 <= A <= B")
    mask = np.ascontiguousarray(mask, bool)
    h, w = mask.shape
    area = int(mask.sum())
    if area < a:
        raise PuzzleInputError(f"--random-cut: the board has {area} cells, fewer than A={a}")
    if max_backtracks is None:
        max_backtracks = max(100_000, 20 * area)
    owner, cells, starts, npieces, backtracks = _rules()._cut_kernel(mask.ravel(), w, h, a, b, np.uint64(seed),
                                                            max_backtracks)
    if npieces < 0:
        raise PuzzleInputError(f"--sizes: could not cut the board into connected pieces of {a}-{b} cells "
                               f"(try a wider size range)")
    return BigCut(w, h, a, b, int(seed), owner.reshape(h, w).clip(-1, None), cells,
                  starts[:npieces + 1].copy(), int(backtracks))


# -- streaming output ----------------------------------------------------------------------------------------------

def piece_texts(cut: BigCut, first: int, last: int) -> list[str]:
    """Piece-file entries (``Pnnn:`` then rows of ``#``/``.``) of pieces ``first..last-1``."""
    width = max(3, len(str(cut.n_pieces)))
    buf, offs = _rules()._render(cut.cells, cut.starts, cut.w, first, last)
    text = buf.tobytes().decode("ascii")
    return [f"P{p + 1:0{width}d}:\n{text[offs[i]:offs[i + 1]]}" for i, p in enumerate(range(first, last))]


def write_text(cut: BigCut, path: Path, header: str = "", chunk: int = 20_000) -> None:
    """Write the piece file in chunks of ``chunk`` pieces (the same format as ``shapes.write_pieces``); ``-`` is
    standard output."""
    import sys

    if str(path) == "-":
        _write_chunks(cut, sys.stdout, header, chunk)
        sys.stdout.flush()
        return
    with open(path, "w", encoding="utf-8") as f:
        _write_chunks(cut, f, header, chunk)


def _write_chunks(cut: BigCut, f, header: str, chunk: int) -> None:
    f.write(header)
    for first in range(0, cut.n_pieces, chunk):
        texts = piece_texts(cut, first, min(cut.n_pieces, first + chunk))
        f.write(("\n" if first else "") + "\n".join(texts))


def write_hdf5(cut: BigCut, path: Path, rows: int = 256) -> None:
    """Write the cut to HDF5: ``labels`` (``[h, w]`` int32, chunked and compressed, written a block of rows at a
    time), ``cells`` and ``starts`` (piece ``p``: flat cells ``cells[starts[p]:starts[p+1]]``) and the cut's
    parameters as attributes."""
    import h5py

    with h5py.File(path, "w") as f:
        f.attrs["kind"] = "polyomino random cut"
        f.attrs["board"] = [cut.w, cut.h]
        f.attrs["sizes"] = [cut.a, cut.b]
        f.attrs["seed"] = cut.seed
        f.attrs["pieces"] = cut.n_pieces
        rows = max(1, min(rows, cut.h))
        d = f.create_dataset("labels", (cut.h, cut.w), np.int32, chunks=(rows, min(cut.w, 1024)),
                             compression="gzip", compression_opts=1)
        for y in range(0, cut.h, rows):
            d[y:y + rows] = cut.labels[y:y + rows]
        f.create_dataset("cells", data=cut.cells[:cut.starts[-1]], compression="gzip", compression_opts=1)
        f.create_dataset("starts", data=cut.starts, compression="gzip", compression_opts=1)


def read_hdf5(path: Path) -> BigCut:
    """Read a cut written by :func:`write_hdf5`."""
    import h5py

    with h5py.File(path, "r") as f:
        w, h = (int(v) for v in f.attrs["board"])
        a, b = (int(v) for v in f.attrs["sizes"])
        return BigCut(w, h, a, b, int(f.attrs["seed"]), f["labels"][...], f["cells"][...], f["starts"][...], 0)


STREAM_CELLS = 100_000  # boards past this many cells are cut by `generate` straight to files (no JSON cut)


@dataclass
class StreamedCut:
    board: tuple[int, int]
    sizes: tuple[int, int]
    seed: int
    n_pieces: int
    seconds: float  # the cut itself (compiling and loading compiled code left out)
    write_seconds: float
    text: str | None
    hdf5: str | None


def parse_sizes(spec: str) -> tuple[int, int]:
    """``"A-B"`` or ``"A"`` as ``(A, B)`` (a one-line error naming ``--sizes`` otherwise)."""
    import re

    m = re.match(r"^\s*(\d+)\s*(?:-\s*(\d+))?\s*$", str(spec))
    if not m:
        raise PuzzleInputError(f"--sizes: {spec!r} is not A-B (like 4-6)")
    a, b = int(m.group(1)), int(m.group(2) or m.group(1))
    if a < 1 or b < a:
        raise PuzzleInputError(f"--sizes: {spec} must satisfy 1 <= A <= B")
    return a, b


def generate_files(board_spec: str, a: int, b: int, seed: int, text: str | None, hdf5: str | None) -> StreamedCut:
    """Cut a board (``WxH`` or a mask file) and stream it out: the piece file (``text``) and the cut (``hdf5``).

    Memory is checked before anything is allocated (:func:`puzzlebatch.limits.check_memory`)."""
    from puzzlebatch import limits
    from puzzlebatch.jit.clock import work_clock
    from puzzlebatch.outputs import check_output, is_stream
    from puzzlebatch.puzzles.polyomino import packing as P

    board = P.parse_board(str(board_spec), "--random-cut")
    if board.dim != 2:
        raise PuzzleInputError("--random-cut: flat boards only")
    w, h = board.size
    limits.check_memory(cut_memory_bytes(w, h), f"--random-cut: a cut of {w}x{h}")
    text_path = None if text is None else Path(text) if is_stream(text) else check_output(text, "--text")
    h5_path = None if hdf5 is None else check_output(hdf5, "--hdf5")
    mask = np.zeros((h, w), bool)
    xy = np.array(sorted(board.playable), np.int64).reshape(-1, 2)
    mask[xy[:, 1], xy[:, 0]] = True
    t0 = work_clock()  # the cut's seconds leave compiling and loading compiled code out (said apart)
    cut = cut_mask(mask, a, b, seed)
    t1 = work_clock()
    if text_path is not None:
        header = f"; origin: random cut of {board_spec} into {a}-{b} cells, seed {seed} (puzzlebatch)\n"
        write_text(cut, text_path, header)
    if h5_path is not None:
        write_hdf5(cut, h5_path)
    return StreamedCut((w, h), (a, b), int(seed), cut.n_pieces, t1 - t0, work_clock() - t1,
                       None if text_path is None else str(text_path), None if h5_path is None else str(h5_path))
