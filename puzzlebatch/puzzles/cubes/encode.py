"""Connector cubes <-> the flat arrays the rules read (see :mod:`puzzlebatch.puzzles.cubes.rules`)."""

from __future__ import annotations

import numpy as np

from puzzlebatch.puzzles.cubes import rules
from puzzlebatch.puzzles.cubes.model import COMPOSE, FACE_FROM, N_ROT, CubeSet, Figure

VALUES = [v for v in range(-4, 5) if v != 0]


def placement_faces(cubes: CubeSet) -> np.ndarray:
    """(n_cubes * 24, 6): face values of placement ``cube * 24 + rotation``."""
    return cubes.faces[:, FACE_FROM].reshape(len(cubes) * N_ROT, 6)


ORDERS = {"lookup": rules.ORDER_LOOKUP, "exact": rules.ORDER_EXACT, "fixed": rules.ORDER_FIXED}


def tables(figure: Figure, cubes: CubeSet, order: str = "lookup") -> np.ndarray:
    """The flat int64 tables of a figure and a cube set; ``order`` picks the branching cell (``lookup``, ``exact``
    or ``fixed``, see :func:`puzzlebatch.puzzles.cubes.rules.select`)."""
    faces = placement_faces(cubes)
    n_place = len(faces)
    single: list[list[int]] = [[] for _ in range(6 * 8)]
    pair: list[list[int]] = [[] for _ in range(36 * 64)]
    for p in range(n_place):
        f = faces[p]
        for da in range(6):
            single[rules.single_key(da, f[da])].append(p)
            for db in range(da + 1, 6):
                pair[rules.pair_key(da, f[da], db, f[db])].append(p)

    def csr(lists):
        start = np.zeros(len(lists) + 1, np.int64)
        start[1:] = np.cumsum([len(x) for x in lists])
        data = np.array([p for x in lists for p in x], np.int64)
        return start, data

    s_start, s_data = csr(single)
    p_start, p_data = csr(pair)
    parts = [np.zeros(rules.HEADER, np.int64)]
    header = parts[0]
    header[rules.H_CELLS] = figure.n_cells
    header[rules.H_CUBES] = len(cubes)
    header[rules.H_ORDER] = ORDERS[order]
    pos = rules.HEADER
    for key, arr in ((rules.H_NBR, figure.neighbours().ravel()), (rules.H_FACES, faces.ravel()),
                     (rules.H_ALL, np.arange(n_place)), (rules.H_SINGLE_START, s_start), (rules.H_SINGLE, s_data),
                     (rules.H_PAIR_START, p_start), (rules.H_PAIR, p_data)):
        header[key] = pos
        parts.append(np.asarray(arr, np.int64))
        pos += len(arr)
    return np.concatenate(parts)


def state_width(figure: Figure, cubes: CubeSet) -> int:
    return len(cubes) + 7 * figure.n_cells + 3 * (figure.n_cells + 1)


def root_state(figure: Figure, cubes: CubeSet, tab: np.ndarray) -> np.ndarray:
    state = np.zeros(state_width(figure, cubes), np.int64)
    state[len(cubes):len(cubes) + figure.n_cells] = -1
    ok = rules.select(state, 0, tab)  # the plain rule, run once on the host
    assert ok
    return state


def placements_of(state: np.ndarray, figure: Figure, cubes: CubeSet) -> np.ndarray:
    """The ``pl`` part of a state: placement per cell (-1 empty)."""
    return state[len(cubes):len(cubes) + figure.n_cells]


def decode(pl: np.ndarray, cubes: CubeSet) -> list[tuple[int, int]]:
    """Placements -> [(cube number, rotation)] per cell."""
    return [(cubes.numbers[int(p) // N_ROT], int(p) % N_ROT) for p in pl]


def symmetry_images(pl: np.ndarray, figure: Figure) -> np.ndarray:
    """(|G|, n, n_cells): the placement vectors of ``pl`` (shape (n, n_cells)) under each figure symmetry."""
    syms = figure.symmetries()
    pl = np.asarray(pl, np.int64)
    out = np.empty((len(syms),) + pl.shape, np.int64)
    filled = pl >= 0
    cube, rot = pl // N_ROT, pl % N_ROT
    for k, (g, perm) in enumerate(syms):
        img = np.where(filled, cube * N_ROT + COMPOSE[g][rot], -1)
        out[k][:, perm] = img
    return out
