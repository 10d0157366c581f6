"""Atomic steps on a CPU array inside numba ``prange`` loops: a fetch-and-add for work queues, a compare-and-swap
for a maximum that several threads bid for (the GA's carrier replacement).

numba's CPU ``prange`` cuts its iteration space into equal contiguous blocks, one per thread, whatever
``numba.set_parallel_chunksize`` says under the OpenMP and workqueue threading layers (seen with numba 0.68: a
loop over items ``[big, big, small, small]`` ran both big ones on one thread).  Batch DFS items differ in cost by
orders of magnitude, so the CPU drivers loop over their threads instead and let each thread take the next item
from a shared counter: :func:`fetch_add` is that counter's step, one LLVM ``atomicrmw add``.

The pattern::

    cursor = np.empty(1, np.int64)
    cursor[0] = 0
    for _ in prange(min(LANES, n)):
        while True:
            i = fetch_add(cursor, 0, 1)
            if i >= n:
                break
            ...  # item i

``prange`` gives each thread a block of lanes; a thread's first lane drains the queue with the other threads,
and its other lanes find it empty.  :data:`LANES` is a constant, not ``numba.get_num_threads()``, which would keep
the function out of the disk cache (a dynamic global).  The counter is made with ``np.empty`` and a store, not
``np.zeros``: in a ``parallel=True`` function numba turns ``np.zeros`` into a loop of its own, and a read of such
a counter after the queue gave 0 (seen with numba 0.68; the queue itself was right).
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic

LANES = 256  # prange iterations of a work-queue loop: at least the threads any machine runs


@intrinsic
def fetch_add(typingctx, array, index, value):
    """``old = array[index]; array[index] += value; return old`` as one atomic step (sequentially consistent)
    on a C-contiguous int64 array; callable from njit code only."""
    if not (isinstance(array, types.Array) and array.dtype == types.int64 and isinstance(index, types.Integer)
            and isinstance(value, types.Integer)):
        return None
    sig = types.int64(array, index, value)

    def codegen(context, builder, signature, args):
        arrty, idxty, valty = signature.args
        arr, idx, val = args
        ary = context.make_array(arrty)(context, builder, arr)
        idx = context.cast(builder, idx, idxty, types.intp)
        val = context.cast(builder, val, valty, types.int64)
        ptr = cgutils.get_item_pointer(context, builder, arrty, ary, [idx])
        return builder.atomic_rmw("add", ptr, val, "seq_cst")

    return sig, codegen


@intrinsic
def compare_swap(typingctx, array, index, expected, value):
    """``old = array[index]; if old == expected: array[index] = value; return old`` as one atomic step
    (sequentially consistent) on a C-contiguous int64 array; callable from njit code only."""
    if not (isinstance(array, types.Array) and array.dtype == types.int64 and isinstance(index, types.Integer)
            and isinstance(expected, types.Integer) and isinstance(value, types.Integer)):
        return None
    sig = types.int64(array, index, expected, value)

    def codegen(context, builder, signature, args):
        arrty, idxty, expty, valty = signature.args
        arr, idx, exp, val = args
        ary = context.make_array(arrty)(context, builder, arr)
        idx = context.cast(builder, idx, idxty, types.intp)
        exp = context.cast(builder, exp, expty, types.int64)
        val = context.cast(builder, val, valty, types.int64)
        ptr = cgutils.get_item_pointer(context, builder, arrty, ary, [idx])
        pair = builder.cmpxchg(ptr, exp, val, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 0)

    return sig, codegen
