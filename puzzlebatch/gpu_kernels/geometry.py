"""Launch geometry from the device: threads per block and how many blocks fill the GPU.

A kernel's blocks run side by side on a streaming multiprocessor (SM) as far as its registers, threads, blocks
and shared memory allow (the occupancy: CUDA C Programming Guide, "Occupancy Calculator").  A launch of
``SMs x resident blocks per SM x waves`` blocks keeps every SM busy; a few waves let the block scheduler balance
items of unequal cost (grid-stride kernels cover any number of items).  Without a device (the simulator, a CPU-only
machine) the configured numbers are used (:data:`puzzlebatch.config.launch`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from puzzlebatch.config import launch

WARP = 32
REGISTER_ALLOCATION_UNIT = 256  # registers are given to warps in blocks of 256 (every architecture since sm_50)
WAVES = int(os.environ.get("PUZZLEBATCH_WAVES", "4"))


@dataclass(frozen=True)
class DeviceLimits:
    """The per-SM limits occupancy depends on (CUDA device attributes)."""

    name: str
    sm_count: int
    max_threads_per_sm: int
    max_registers_per_sm: int
    max_blocks_per_sm: int
    max_shared_memory_per_sm: int

    def to_json(self) -> dict:
        return dict(self.__dict__)


def resident_blocks(limits: DeviceLimits, threads: int, regs_per_thread: int, shared_per_block: int = 0) -> int:
    """How many blocks of ``threads`` threads can run at once on one SM (at least 1)."""
    warps = -(-threads // WARP)
    regs_per_warp = -(-max(1, regs_per_thread) * WARP // REGISTER_ALLOCATION_UNIT) * REGISTER_ALLOCATION_UNIT
    by_regs = (limits.max_registers_per_sm // regs_per_warp) // warps
    by_threads = limits.max_threads_per_sm // (warps * WARP)
    by_shared = limits.max_shared_memory_per_sm // shared_per_block if shared_per_block else limits.max_blocks_per_sm
    return max(1, min(by_regs, by_threads, limits.max_blocks_per_sm, by_shared))


@dataclass(frozen=True)
class Geometry:
    """Threads per block and the most blocks worth launching for one compiled kernel."""

    threads: int
    max_blocks: int
    regs_per_thread: int | None = None
    blocks_per_sm: int | None = None
    source: str = "config"  # "device" (from the kernel's registers and the SM limits) or "config"
    lanes: int = 1  # threads that share one item (a kernel whose block of ``threads`` lanes searches one item)

    def blocks_for(self, n_items: int) -> int:
        return max(1, min(self.max_blocks, -(-n_items * self.lanes // self.threads)))

    def to_json(self) -> dict:
        return dict(self.__dict__)


def from_config(lanes: int = 1) -> Geometry:
    """The configured numbers (``PUZZLEBATCH_THREADS_PER_BLOCK``, ``PUZZLEBATCH_MAX_BLOCKS``); a kernel whose
    ``lanes`` threads share an item gets blocks of exactly that many."""
    return Geometry(lanes if lanes > 1 else launch.threads_per_block, launch.max_blocks, lanes=lanes)


def from_device(limits: DeviceLimits, regs_per_thread: int, max_threads_per_block: int,
                shared_per_block: int = 0, waves: int = WAVES, lanes: int = 1) -> Geometry:
    """The configured threads per block (capped by what the compiled kernel allows; ``lanes`` exactly for a
    kernel whose lanes share an item) and ``SMs x resident blocks x waves`` blocks."""
    threads = lanes if lanes > 1 else max(WARP, min(launch.threads_per_block, max_threads_per_block) // WARP * WARP)
    per_sm = resident_blocks(limits, threads, regs_per_thread, shared_per_block)
    blocks = min(launch.max_blocks, limits.sm_count * per_sm * max(1, waves))
    return Geometry(threads, blocks, regs_per_thread, per_sm, "device", lanes)


def device_limits() -> DeviceLimits | None:
    """The current GPU's limits, or None without a real GPU (simulator, no driver)."""
    from puzzlebatch.gpu_kernels.detect import gpu_info

    if gpu_info() is None:
        return None
    from numba import cuda

    dev = cuda.get_current_device()
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    return DeviceLimits(name, int(dev.MULTIPROCESSOR_COUNT), int(dev.MAX_THREADS_PER_MULTIPROCESSOR),
                        int(dev.MAX_REGISTERS_PER_MULTIPROCESSOR), int(dev.MAX_BLOCKS_PER_MULTIPROCESSOR),
                        int(dev.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR))


def kernel_geometry(kernel, args: tuple, limits: DeviceLimits | None, lanes: int = 1) -> Geometry:
    """The geometry of ``kernel`` (a numba CUDA dispatcher) for these arguments: compiled first (from the disk
    cache when it has it) to read its register count; the configured numbers without a device.  ``lanes``: the
    threads of a block that search one item together."""
    if limits is None or not hasattr(kernel, "compile"):
        return from_config(lanes)
    argtypes = tuple(kernel.typeof_pyval(a) for a in args)
    first = (id(kernel), argtypes) not in _loaded
    if first:
        from puzzlebatch.jit import clock

        t0, before = time.perf_counter(), clock.compile_seconds() + clock.load_seconds()
    compiled = kernel.compile(argtypes)
    regs = int(compiled.regs_per_thread)  # the first read loads the module: the driver turns PTX into machine code
    if first:
        # Preparing the code is not work: the compile is timed by the cache class, the rest (the driver's load,
        # seconds for a large kernel on a fresh machine) is counted as loading, as a CPU cache load is.
        spent = time.perf_counter() - t0 - (clock.compile_seconds() + clock.load_seconds() - before)
        clock.add_load(max(spent, 0.0))
        _loaded.add((id(kernel), argtypes))
    return from_device(limits, regs, int(compiled.max_threads_per_block),
                       int(getattr(compiled, "shared_mem_per_block", 0) or 0), lanes=lanes)


_loaded: set = set()  # (kernel, argument types) whose code this process has loaded onto the device


def describe(limits: DeviceLimits | None) -> dict:
    """What ``puzzlebatch info`` shows: the device's limits and the blocks it would launch for a few register
    counts, or why the configured numbers are used."""
    from puzzlebatch.gpu_kernels.detect import simulator_enabled

    if limits is None:
        why = "simulator" if simulator_enabled() else "no GPU"
        return {"source": "config", "why": why, "threads_per_block": launch.threads_per_block,
                "max_blocks": launch.max_blocks}
    examples = {r: from_device(limits, r, 1024).to_json() for r in (32, 64, 128, 255)}
    return {"source": "device", "device": limits.to_json(), "threads_per_block": launch.threads_per_block,
            "waves": WAVES, "blocks_by_registers": examples}
