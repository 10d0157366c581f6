"""The atomic counter behind the CPU drivers' work queues (puzzlebatch.jit.atomic)."""

import numpy as np
import pytest
from numba import njit, prange

from puzzlebatch.jit.atomic import LANES, fetch_add


@njit(parallel=True)
def _hammer(counter, lanes, adds):
    for _ in prange(lanes):
        for _k in range(adds):
            fetch_add(counter, 1, 1)


@njit(parallel=True)
def _queue(n, taken, seen):
    cursor = np.empty(1, np.int64)
    cursor[0] = 0
    for _ in prange(min(LANES, n)):
        while True:
            i = fetch_add(cursor, 0, 1)
            if i >= n:
                break
            fetch_add(seen, i, 1)
            taken[i] = i * i
    return cursor[0]


@njit
def _serial(a, i, v):
    return fetch_add(a, i, v)


def test_fetch_add_returns_the_old_value():
    a = np.array([5, 7], np.int64)
    assert _serial(a, 1, 3) == 7
    assert _serial(a, 1, -10) == 10
    assert a.tolist() == [5, 0]


def test_fetch_add_loses_no_update_between_threads():
    counter = np.zeros(3, np.int64)
    _hammer(counter, 8, 200_000)
    assert counter.tolist() == [0, 8 * 200_000, 0]


@pytest.mark.parametrize("n", [0, 1, 3, 1000])
def test_work_queue_takes_every_item_once(n):
    taken = np.full(n, -1, np.int64)
    seen = np.zeros(n, np.int64)
    cursor = _queue(n, taken, seen)
    assert seen.tolist() == [1] * n
    assert taken.tolist() == [i * i for i in range(n)]
    # each lane stops on the first index past the end
    assert n <= cursor <= n + min(LANES, n)


def test_fetch_add_rejects_other_types():
    from numba.core.errors import TypingError

    with pytest.raises(TypingError):
        _serial(np.zeros(2, np.float64), 0, 1)


def test_prefetch_changes_nothing_and_is_an_llvm_prefetch():
    from puzzlebatch.jit.hints import prefetch

    @njit
    def touch(a):
        s = 0
        for i in range(a.shape[0]):
            prefetch(a, i)
            prefetch(a, i + 1 << 20)  # far past the end: a hint, never a fault
            s += a[i]
        return s

    a = np.arange(100, dtype=np.int64)
    assert touch(a) == a.sum() and a.tolist() == list(range(100))
    assert "llvm.prefetch" in touch.inspect_llvm(touch.signatures[0])


def test_the_cpu_unit_prefetches_and_cuda_keeps_the_plain_function():
    # the per-item DFS calls prefetch by name: machine code on the CPU, the plain no-op under CUDA and the simulator
    from puzzlebatch.cpu_fallback.search import search_unit
    from puzzlebatch.puzzles import search
    from puzzlebatch.puzzles.polyomino import bitboard_rules

    from puzzlebatch.jit import hints

    u = search_unit(bitboard_rules)
    assert u.prefetch is u.cpu_prefetch and u.prefetch.py_func.__globals__["hints"] is hints
    a = np.arange(4, dtype=np.int64)
    u.prefetch(a, 3)  # compiled (or loaded from the disk cache, where its code cannot be inspected) and run
    assert a.tolist() == [0, 1, 2, 3]
    assert search.prefetch(a, 5) is None
