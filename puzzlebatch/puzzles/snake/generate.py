"""Random solvable snake chains: the shape of a random Hamiltonian path of a box.

Paths are sampled with the backbite Markov chain (Mansfield, 2006): from a boustrophedon path, repeatedly pick an
end, join it to a random grid neighbour and cut the path edge that would close a cycle.  Every move keeps a
Hamiltonian path, so the chain read off the final path folds into the box by construction.
"""

from __future__ import annotations

import numpy as np

from puzzlebatch.puzzles.snake.model import Box, Chain


def boustrophedon(box: Box) -> list[tuple[int, int, int]]:
    """A Hamiltonian path of the box that sweeps rows, then layers, turning back at each end."""
    path = []
    for z in range(box.c):
        ys = range(box.b) if z % 2 == 0 else range(box.b - 1, -1, -1)
        for j, y in enumerate(ys):
            xs = range(box.a) if (j + z * box.b) % 2 == 0 else range(box.a - 1, -1, -1)
            path.extend((x, y, z) for x in xs)
    return path


def random_hamiltonian_path(box: Box, rng: np.random.Generator, steps: int | None = None) -> np.ndarray:
    """A random Hamiltonian path of ``box`` as an (N, 3) array of (x, y, z)."""
    path = boustrophedon(box)
    n = len(path)
    steps = steps if steps is not None else 20 * n * n
    dims = box.dims
    for _ in range(steps):
        if n < 3:
            break
        if rng.random() < 0.5:
            path.reverse()  # work on the end at path[0]
        x, y, z = path[0]
        axis = int(rng.integers(3))
        step = 1 if rng.random() < 0.5 else -1
        v = [x, y, z]
        v[axis] += step
        if not 0 <= v[axis] < dims[axis]:
            continue
        i = path.index(tuple(v))
        # Join path[0] to path[i] and cut the edge (path[i-1], path[i]): path[0..i-1] reverses.
        path[:i] = path[:i][::-1]
    return np.array(path, dtype=np.int64)


def chain_of_path(path: np.ndarray) -> Chain:
    """The chain whose folding is ``path``: cube k is a corner when the path turns there."""
    steps = np.diff(path, axis=0)
    corners = [False] + [bool(np.any(steps[k - 1] != steps[k])) for k in range(1, len(path) - 1)] + [False]
    return Chain(tuple(corners))


def random_chain(box: Box, seed: int) -> tuple[Chain, np.ndarray]:
    """A random chain that folds into ``box`` and the folding it came from."""
    path = random_hamiltonian_path(box, np.random.default_rng(seed))
    return chain_of_path(path), path
