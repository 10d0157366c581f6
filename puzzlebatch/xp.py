"""Array work written once for numpy (host) and CuPy (device): the array namespace and the bulk steps.

The kernels do the per-item work; between launches the host loops reshape whole arrays: deduplicate a BFS layer,
compact the items that ran out of budget, add up counts, replace GA individuals.  Each of those steps is written
here once against an array namespace ``xp`` — ``numpy`` for host arrays, ``cupy`` for device arrays (CuPy mirrors
numpy's API; :func:`namespace` is ``cupy.get_array_module``) — so the same code runs on the CPU, in CI and on the
simulator (numpy), and on a GPU without a copy to the host (CuPy, zero-copy with numba kernels through
``__cuda_array_interface__``).

Every step gives the same values in both namespaces: orders are made unique (sorted values, or a sort whose last
key is the index), never left to a library's choice among equal keys.  CuPy is optional (the ``gpu`` extra); this
module imports it only when a device array is met.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

_cupy: ModuleType | None | bool = False  # False: not looked for yet


def cupy_module() -> ModuleType | None:
    """CuPy when it is installed and finds a GPU, else None (looked for once).

    None under numba's CUDA simulator too: its "device" arrays are host arrays that CuPy cannot read, and its
    streams are not CUDA streams (CuPy installed beside the simulator once broke every simulated count).
    """
    global _cupy
    if _cupy is False:
        from numba import config

        if config.ENABLE_CUDASIM:
            _cupy = None
            return None
        try:
            import cupy

            cupy.cuda.runtime.getDeviceCount()
            _cupy = cupy
        except Exception:  # not installed, no driver, no device: numpy does the array work
            _cupy = None
    return _cupy


def is_device_array(x) -> bool:
    """True for arrays in device memory (CuPy arrays, numba device arrays), False for numpy arrays."""
    return hasattr(x, "__cuda_array_interface__") and not isinstance(x, np.ndarray)


def namespace(*arrays) -> ModuleType:
    """``cupy`` when any argument is a CuPy array, else ``numpy`` (what ``cupy.get_array_module`` answers)."""
    for a in arrays:
        if type(a).__module__.startswith("cupy"):
            return cupy_module() or np
    return np


def namespace_for(backend) -> ModuleType:
    """Where a run on ``backend`` keeps the arrays it reshapes between launches: CuPy on a real GPU that has it,
    else numpy (the CPU, the simulator, a GPU without CuPy)."""
    return (cupy_module() or np) if backend.name == "cuda" else np


def to_host(x) -> np.ndarray:
    """A numpy array with the values of ``x`` (itself when it is one already)."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "get"):  # CuPy
        return x.get()
    if hasattr(x, "copy_to_host"):  # numba device array
        return x.copy_to_host()
    return np.asarray(x)


def as_namespace_array(dev):
    """A numba device array as a CuPy array on the same memory (no copy), or None without CuPy."""
    cp = cupy_module()
    if cp is None or not is_device_array(dev):
        return None
    return cp.asarray(dev)


# -- reductions and compaction ----------------------------------------------------------------------------------

def weighted_total(xp: ModuleType, values, weights) -> int:
    """``sum(values * weights)`` as a Python int (int64 arithmetic, as the counts are)."""
    return int((values.astype(xp.int64) * weights.astype(xp.int64)).sum())


def total(xp: ModuleType, values) -> int:
    """``sum(values)`` as a Python int."""
    return int(values.astype(xp.int64).sum())


def compact(xp: ModuleType, mask, *arrays) -> tuple:
    """The rows of each array where ``mask`` is true, in order: a stream compaction by prefix sum.

    ``cumsum(mask) - 1`` is each kept row's place; the rows not kept are all scattered to one spare row past the
    end.  On the device nothing here waits for the GPU: returns ``(count, *buffers)`` with ``count`` a 0-d array
    and each buffer at least ``count`` rows long, its first ``count`` rows the kept ones (:func:`compacted` cuts
    them).  numpy takes the mask directly (its boolean indexing is the same compaction, done in C).
    """
    if xp is np:
        idx = np.flatnonzero(mask)
        return (np.int64(len(idx)), *(a[idx] for a in arrays))
    return compact_by_scatter(xp, mask, *arrays)


def compact_by_scatter(xp: ModuleType, mask, *arrays) -> tuple:
    """:func:`compact` written with a prefix sum and one scatter per array, which never waits for a GPU (what
    CuPy runs; on numpy it gives the same rows)."""
    n = int(mask.shape[0])
    place = xp.cumsum(mask.astype(xp.int64)) - 1
    count = place[-1] + 1 if n else xp.zeros((), xp.int64)
    dest = xp.where(mask, place, n)
    out = []
    for a in arrays:
        buf = xp.empty((n + 1,) + tuple(a.shape[1:]), dtype=a.dtype)
        buf[dest] = a
        out.append(buf)
    return (count, *out)


def compacted(xp: ModuleType, mask, *arrays) -> tuple:
    """:func:`compact`, with the count read and the buffers cut to it: ``(count, *rows)``."""
    count, *bufs = compact(xp, mask, *arrays)
    k = int(count)
    return (k, *(b[:k] for b in bufs))


# -- BFS layers: deduplicate children against a visited table ----------------------------------------------------

def sorted_unique(xp: ModuleType, values):
    """The values of a 1-D integer array, sorted, each once: ``xp.unique`` by a sort.

    NumPy 2.3 and later make ``unique`` of integers with a hash table, which on arrays of a million mostly
    distinct values takes tens of times longer than a sort (0.59 s against 0.01 s at a million, 4.2 s against
    0.05 s at four million, numpy 2.4); a sort and a comparison with the neighbour give the same array.
    """
    if values.shape[0] == 0:
        return values
    s = xp.sort(values)
    return s[xp.concatenate([xp.ones(1, bool), s[1:] != s[:-1]])]


def mark_new_nibbles(xp: ModuleType, children, packed, value: int):
    """The children not seen yet, sorted and without repeats; marks them with ``value`` in ``packed``.

    ``children``: ranks (-1 where a move does not exist); ``packed``: two 4-bit entries a byte (rank ``r`` in the
    low nibble of byte ``r >> 1`` when ``r`` is even, the high one when odd), ``0xF`` for unseen.  The same table
    as the serial host step (``bfs_mark``) leaves, whatever the order of the children.
    """
    flat = children.reshape(-1)
    flat = flat[flat >= 0]
    nibble = (packed[flat >> 1].astype(xp.int64) >> ((flat & 1) << 2)) & 0xF
    new = sorted_unique(xp, flat[nibble == 0xF])
    even = new[(new & 1) == 0] >> 1
    odd = new[(new & 1) == 1] >> 1
    # Each byte appears at most once in `even` and once in `odd`: no two writes of one scatter collide.
    packed[even] = (packed[even] & 0xF0) | value
    packed[odd] = (packed[odd] & 0x0F) | (value << 4)
    return new


def mark_new_bits(xp: ModuleType, children, visited, dist, n: int, depth: int):
    """The abstract states not visited yet, sorted and without repeats; sets their bits in ``visited`` and, for
    each pattern placement ``code // n`` met for the first time, ``dist = depth``.

    The same ``visited`` and ``dist`` as the serial host step (``pdb_mark``) leaves.
    """
    flat = children.reshape(-1)
    flat = flat[flat >= 0]
    seen = (visited[flat >> 3].astype(xp.int64) >> (flat & 7)) & 1
    new = sorted_unique(xp, flat[seen == 0])
    if new.shape[0]:
        byte = new >> 3
        bit = xp.left_shift(xp.int64(1), new & 7)
        # `new` is sorted, so each byte's bits are one run; distinct powers of two: their OR is their sum.
        starts = xp.flatnonzero(xp.concatenate([xp.ones(1, bool), byte[1:] != byte[:-1]]))
        run_sums = xp.cumsum(bit)
        ends = xp.concatenate([starts[1:], xp.asarray([new.shape[0]])]) - 1
        before = xp.where(starts > 0, run_sums[xp.maximum(starts - 1, 0)], 0)
        ors = run_sums[ends] - before
        ub = byte[starts]
        visited[ub] = visited[ub] | ors.astype(visited.dtype)
        placements = sorted_unique(xp, new // n)
        old = dist[placements]
        dist[placements] = xp.where(old == 255, depth, old).astype(dist.dtype)
    return new


# -- the GA's replacement -----------------------------------------------------------------------------------------

def roulette_cumsum(xp: ModuleType, fit):
    """Cumulative fitness for fitness-proportional selection (every weight positive)."""
    return xp.cumsum(xp.maximum(fit, 0.0) + 1e-9)


def _lexsort(xp: ModuleType, keys: tuple):
    """``lexsort`` (last key primary): numpy takes the keys as they are, CuPy one 2-D array of them (float64
    holds the integer keys here exactly: indices and carriers below 2**53)."""
    if xp is np:
        return np.lexsort(keys)
    return xp.lexsort(xp.stack([k.astype(xp.float64) for k in keys]))


def replace_by_carrier(xp: ModuleType, pop, fit, children, child_fit, carriers) -> int:
    """Carrier elitism, in place: per carrier its fittest child (then the lowest index) replaces it when at least
    as fit.  Returns how many slots changed."""
    idx = xp.arange(children.shape[0])
    order = _lexsort(xp, (idx, -child_fit, carriers))
    sorted_carriers = carriers[order]
    first = xp.concatenate([xp.ones(1, bool), sorted_carriers[1:] != sorted_carriers[:-1]])
    best = order[first]
    win = best[child_fit[best] >= fit[carriers[best]]]
    pop[carriers[win]] = children[win]
    fit[carriers[win]] = child_fit[win]
    return int(win.shape[0])


def replace_plus(xp: ModuleType, pop, fit, children, child_fit) -> tuple:
    """(mu + lambda): the fittest of children and parents, children first on ties.  Returns
    ``(population, fitness, changed)``."""
    allpop = xp.concatenate([children, pop])
    allfit = xp.concatenate([child_fit, fit])
    idx = xp.arange(allfit.shape[0])
    order = _lexsort(xp, (idx, -allfit))[: pop.shape[0]]
    changed = int((order < children.shape[0]).sum())
    return xp.ascontiguousarray(allpop[order]), allfit[order].copy(), changed
