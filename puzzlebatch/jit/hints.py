"""Hints to the CPU's caches from numba code: :func:`prefetch` brings a cache line in ahead of its read.

The batch DFS's memo (:mod:`puzzlebatch.puzzles.search`) is a hash table of a few MB a thread, larger than a core's
L2: its look-ups miss more often than not.  A family that can name a child's memo key before the move is applied
(``child_key``) lets the DFS fetch the child's bucket while the move is tested.  An intrinsic has no CUDA twin, so
the per-item DFS calls a plain no-op of the same name, which the CPU drivers' unit replaces with a function calling
this one (``cpu_fallback.search.cpu_prefetch``).
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to bring ``array[index]``'s cache line in (``llvm.prefetch``, for a read, kept in every cache
    level); it changes nothing and never faults."""
    if not (isinstance(array, types.Array) and isinstance(index, types.Integer)):
        return None
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        from llvmlite import binding, ir

        arrty, idxty = signature.args
        ary = context.make_array(arrty)(context, builder, args[0])
        idx = context.cast(builder, args[1], idxty, types.intp)
        ptr = builder.bitcast(cgutils.get_item_pointer(context, builder, arrty, ary, [idx]), cgutils.voidptr_t)
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [cgutils.voidptr_t, i32, i32, i32])
        # the intrinsic's name carries its pointer type: opaque pointers from LLVM 15 on (numba 0.61 and later)
        name = "llvm.prefetch.p0" if binding.llvm_version_info[0] >= 15 else "llvm.prefetch.p0i8"
        fn = cgutils.get_or_insert_function(builder.module, fnty, name)
        # read (0), kept in every cache level (3), a data cache (1)
        builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen
