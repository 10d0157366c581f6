"""Problems and solutions as the flat arrays the kernels read (layout documented in ``rules.py``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from puzzlebatch.puzzles.hextris import rules
from puzzlebatch.puzzles.hextris.model import CHAR_TO_COMMAND, IGNORED_CHARS, Problem, to_axial

#: character code -> command code (0..5), ``C_INVALID`` (6) for a character that is not a command, -1 if ignored
CHAR_CODES = np.full(65536, rules.C_INVALID, dtype=np.int8)
# A character is a command when the solution lower-cased (as the evaluator reads it, and model.decode) holds a
# command there: the command characters, their upper case, and the one other character of the BMP whose lower case
# is a single command letter, the Kelvin sign (U+212A -> "k"; tests/differential/test_hextris_differential.py
# scans every code point against str.lower()).
for _ch, _cmd in CHAR_TO_COMMAND.items():
    CHAR_CODES[ord(_ch)] = _cmd
    CHAR_CODES[ord(_ch.upper())] = _cmd
for _ch in ("\u212a",):
    if _ch.lower() in CHAR_TO_COMMAND:
        CHAR_CODES[ord(_ch)] = CHAR_TO_COMMAND[_ch.lower()]
for _ch in IGNORED_CHARS:
    CHAR_CODES[ord(_ch)] = -1


def rotated_offsets(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Axial member offsets from the pivot for every unit and orientation, and each unit's symmetry.

    Returns ``(offs, period)``: ``offs[u, rot, m] = (dq, dr)`` after ``rot`` clockwise turns
    (``(dq, dr) -> (-dr, dq + dr)``), padded with zeros past the unit's size; ``period[u]`` the number of
    distinct orientations (the smallest k > 0 with k turns mapping the shape onto itself).
    """
    maxsize = problem.max_unit_size
    offs = np.zeros((len(problem.units), 6, maxsize, 2), dtype=np.int64)
    period = np.zeros(len(problem.units), dtype=np.int64)
    for u, unit in enumerate(problem.units):
        pq, pr = to_axial(*unit.pivot)
        cells = [(q - pq, r - pr) for q, r in (to_axial(*c) for c in unit.members)]
        shapes = []
        for rot in range(6):
            shapes.append(frozenset(cells))
            offs[u, rot, : len(cells)] = cells
            cells = [(-dr, dq + dr) for dq, dr in cells]
        period[u] = next(k for k in (1, 2, 3, 6) if shapes[k % 6] == shapes[0])
    return offs, period


def problem_tables(problem: Problem) -> np.ndarray:
    """The int64 table of one problem (``rules.H_*`` header + shapes, sizes, spawns, symmetries, masks, board,
    canonical orientations)."""
    w, h = problem.width, problem.height
    nw = (w + 63) // 64
    offs, period = rotated_offsets(problem)
    n_units, maxsize = offs.shape[0], offs.shape[2]
    # a valid position has every member on the board; a member lies at most this far from its pivot in
    # columns (|dq| + ceil(|dr| / 2)) and rows (|dr|), so the pivot lies within `border` of the board.
    border = 1 + max(max(int(abs(dq)) + (int(abs(dr)) + 1) // 2, int(abs(dr))) for dq, dr in offs.reshape(-1, 2))
    n_slots, n_rows = w + 2 * border + 1, h + 2 * border + 1
    spawns = np.array([to_axial(*u.pivot) for u in problem.units], dtype=np.int64)
    sizes = np.array([u.size for u in problem.units], dtype=np.int64)
    masks = np.zeros(nw, dtype=np.int64)
    for k in range(nw):
        bits = min(64, w - 64 * k)
        masks[k] = -1 if bits == 64 else (1 << bits) - 1
    board = np.zeros((h, nw), dtype=np.uint64)
    for x, y in problem.filled:
        board[y, x >> 6] |= np.uint64(1) << np.uint64(x & 63)
    crot = np.array([[rot % k for rot in range(6)] for k in period], dtype=np.int64)
    shape = np.zeros((n_units, 6), dtype=np.int64)
    for u, unit in enumerate(problem.units):  # orientations with the same cells up to translation share a class
        seen: dict = {}
        for rot in range(6):
            cells = [(int(dq), int(dr)) for dq, dr in offs[u, rot, : unit.size]]
            q0, r0 = min(cells, key=lambda c: (c[1], c[0]))
            shape[u, rot] = seen.setdefault(frozenset((q - q0, r - r0) for q, r in cells), rot)
    parts = [offs.ravel(), sizes, spawns.ravel(), period, masks, board.view(np.int64).ravel(), crot.ravel(),
             shape.ravel()]
    header = np.zeros(rules.HEADER_LEN, dtype=np.int64)
    header[[rules.H_WIDTH, rules.H_HEIGHT, rules.H_NW, rules.H_SRCLEN, rules.H_NUNITS, rules.H_MAXSIZE,
            rules.H_BORDER, rules.H_NSLOTS, rules.H_NROWS, rules.H_VISWORDS, rules.H_NPOS]] = [
        w, h, nw, problem.source_length, n_units, maxsize, border, n_slots, n_rows, (n_slots * 6 + 63) // 64,
        n_rows * n_slots * 6]
    cols = [x for u in problem.units for x, _ in u.members]
    header[[rules.H_SPAWN_X0, rules.H_SPAWN_X1, rules.H_ZONE]] = [
        max(0, min(cols) - 1), min(w - 1, max(cols) + 1),
        1 + max(max(y for _, y in u.members) - min(y for _, y in u.members) + 1 for u in problem.units)]
    base = rules.HEADER_LEN
    for slot, part in zip((rules.H_OFFS, rules.H_SIZE, rules.H_SPAWN, rules.H_PERIOD, rules.H_ROWMASK,
                           rules.H_BOARD0, rules.H_CROT, rules.H_SHAPE), parts):
        header[slot] = base
        base += len(part)
    return np.concatenate([header] + parts).astype(np.int64)


@dataclass
class TableSet:
    """Several problems' tables stacked into one 2-D array (rows padded), with the per-game array sizes."""

    tables: np.ndarray  # int64[n_problems, T]
    board_words: int  # max height * words_per_row
    vis_words: int
    work_len: int  # 2 * max n_positions

    @classmethod
    def build(cls, problems: list[Problem]) -> "TableSet":
        rows = [problem_tables(p) for p in problems]
        t = np.zeros((len(rows), max(len(r) for r in rows)), dtype=np.int64)
        for i, r in enumerate(rows):
            t[i, : len(r)] = r
        return cls(t, int(max(r[rules.H_HEIGHT] * r[rules.H_NW] for r in rows)),
                   int(max(r[rules.H_VISWORDS] for r in rows)), int(2 * max(r[rules.H_NPOS] for r in rows)))


def encode_commands(solutions: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Solution strings -> (flat int8 command codes without the ignored characters, int64 offsets[n + 1])."""
    chunks = []
    offsets = np.zeros(len(solutions) + 1, dtype=np.int64)
    for i, s in enumerate(solutions):
        codes = CHAR_CODES[np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32).clip(0, 65535)]
        # characters beyond the BMP were clipped to U+FFFF: they are invalid either way
        codes = codes[codes >= 0]
        chunks.append(codes)
        offsets[i + 1] = offsets[i] + len(codes)
    flat = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int8)
    return flat.astype(np.int8), offsets


def decode_commands(codes: np.ndarray) -> str:
    """Command codes -> a solution string with one canonical character per command."""
    from puzzlebatch.puzzles.hextris.model import CANONICAL_CHAR

    return "".join(CANONICAL_CHAR[int(c)] for c in codes)
