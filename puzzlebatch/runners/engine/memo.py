"""The host side of a count's memo of searched subtrees (the table is kept by ``puzzles.search.dfs_item``).

A family whose rules module names ``MERGE_KEY`` (the state words that, with the depth, decide everything below a
node) gets, on the CPU, a row a thread: the key words' indices, a scratch word pair per depth, then a power of two
of entries (``MEMO_ENTRY`` words each, in buckets of ``MEMO_WAYS``).  The rows are zeros (an entry with depth word 0
is empty) and are kept for one whole run: their entries hold that problem's subtrees only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from puzzlebatch.puzzles.search import MEMO_ENTRY, MEMO_KA, MEMO_KB, MEMO_WAYS, NO_MEMO, memo_head


def memo_width(goal: int, entries: int) -> int:
    """Words of a memo row of ``entries`` entries (a power of two, at least a bucket) for searches down to depth
    ``goal``."""
    if entries < MEMO_WAYS or entries & (entries - 1):
        raise ValueError(f"memo entries must be a power of two, at least {MEMO_WAYS}, got {entries}")
    return memo_head(goal) + MEMO_ENTRY * entries


def memo_rows(rows: int, goal: int, entries: int, key: Sequence[int]) -> np.ndarray:
    """A memo of ``rows`` rows (one a thread) for a family whose ``MERGE_KEY`` is ``key`` (one or two state
    words); ``entries`` 0 (or no key): no memo (:data:`~puzzlebatch.puzzles.search.NO_MEMO`, one row too short to
    hold a table)."""
    if entries <= 0 or not key:
        return NO_MEMO
    if len(key) > 2:
        raise ValueError(f"a memo keys on at most two state words, got {len(key)}")
    memo = np.zeros((rows, memo_width(goal, entries)), np.int64)  # zero pages: only the rows used are touched
    memo[:, MEMO_KA] = key[0]
    memo[:, MEMO_KB] = key[-1]
    return memo


def run_memo(goal: int, key: Sequence[int], entries: int, on_cpu: bool) -> np.ndarray:
    """The memo of one count: a row for every thread numba may run on the CPU; none on CUDA (the kernel searches
    without one)."""
    import numba

    return memo_rows(numba.config.NUMBA_NUM_THREADS, goal, entries if on_cpu else 0, key)
