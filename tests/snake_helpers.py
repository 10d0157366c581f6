"""Shared snake test helpers: turning a folding prefix into a work item."""

import numpy as np

from puzzlebatch.puzzles.snake import encode, rules
from puzzlebatch.puzzles.snake.model import DIRECTIONS, Box, Chain


def state_after_prefix(chain: Chain, box: Box, path: np.ndarray, k: int) -> np.ndarray:
    """The search state with cubes 1..k placed as in ``path``, built with the plain (uncompiled) rules."""
    tables = encode.tables(chain, box)
    state = encode.root_state(box)
    perp = [[e for e in range(6) if e // 2 != d // 2] for d in range(6)]
    prev_dir = None
    for depth in range(k):
        if depth == 0:
            choice = int(box.index(*path[0]))
        else:
            step = path[depth] - path[depth - 1]
            d = int(np.flatnonzero((DIRECTIONS == step).all(axis=1))[0])
            if depth == 1:
                choice = d
            elif chain.corners[depth - 1]:
                choice = perp[prev_dir].index(d)
            else:
                choice = 0
            prev_dir = d
        assert rules.apply(state, depth, choice, tables)
    return state
