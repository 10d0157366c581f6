"""Device memory of one run: data uploaded once and kept, reusable buffers, one stream, transfers counted.

Every CUDA launcher owns a :class:`DeviceSession` for as long as its run lasts (a count, a BFS, a batch of IDA*
instances, a GA run, a set of playouts).  Tables and pattern databases go up once (:meth:`DeviceSession.resident`)
and stay; per-batch inputs are copied into buffers that are allocated once and reused (:meth:`DeviceSession.put`),
through pinned host memory so the copies are asynchronous; arrays that already live on the device (CuPy or numba
device arrays) are used where they are, without a copy.  Kernels run on the session's stream, so the host can
prepare batch k+1 while batch k runs.  :class:`~puzzlebatch.transfers.Transfers` counts the bytes moved each way
and the launches; every GPU-capable command reports them (``h2d_bytes``, ``d2h_bytes``, ``launches``).
"""

from __future__ import annotations

import sys
import threading
import warnings
from contextlib import contextmanager, nullcontext
from functools import lru_cache

import numpy as np
from numba import cuda

from puzzlebatch.gpu_kernels import geometry
from puzzlebatch.gpu_kernels.detect import simulator_enabled
from puzzlebatch.transfers import Transfers
from puzzlebatch.xp import as_namespace_array, cupy_module, is_device_array

# numba warns on every launch of fewer than 128 blocks.  Our launches take the geometry the device and the batch
# allow (a batch of a few hundred items is a small grid by design); on a GPU those warnings filled the output.
warnings.filterwarnings("ignore", message=r".*Grid size \d+ will likely result in GPU under-utilization",
                        category=Warning)  # numba's or numba-cuda's NumbaPerformanceWarning, by version


# numba's CUDA simulator runs a block's threads as Python threads, and every device-function call takes a lock held
# per module (``swapped_cuda_module``).  At the interpreter's default switch interval (5 ms) each hand-over of that
# lock waits for a switch of the GIL: a 2,262-node snake search took 100 s at 8 threads a block and 200 s at 128,
# against 1.4 s at one.  During a simulated launch the interval is 0.1 ms (the same search: 1-1.6 s at 128).
SIMULATOR_SWITCH_INTERVAL = 1e-4
_switch_lock = threading.Lock()
_switch_depth = [0, 0.0]  # simulated launches in progress, the interval before the first


@contextmanager
def simulator_thread_switching():
    """Shorten the interpreter's thread switch interval for the length of a simulated launch (restored after the
    last one in progress ends)."""
    with _switch_lock:
        if _switch_depth[0] == 0:
            _switch_depth[1] = sys.getswitchinterval()
            sys.setswitchinterval(SIMULATOR_SWITCH_INTERVAL)
        _switch_depth[0] += 1
    try:
        yield
    finally:
        with _switch_lock:
            _switch_depth[0] -= 1
            if _switch_depth[0] == 0:
                sys.setswitchinterval(_switch_depth[1])


@lru_cache(maxsize=1)
def _limits() -> geometry.DeviceLimits | None:
    return geometry.device_limits()


class DeviceSession:
    """One run's device memory, stream, launch geometry and transfer counts."""

    def __init__(self) -> None:
        self.transfers = Transfers()
        self.stream = cuda.stream()
        self.copy_stream = cuda.stream()  # late copies of finished work, not queued behind the next kernel
        self.limits = _limits()
        self.geometries: dict[str, geometry.Geometry] = {}
        self._resident: dict[str, tuple[object, object]] = {}
        self.uploads: dict[str, int] = {}  # how many times each resident array was uploaded (tests: once a run)
        self._buffers: dict[str, object] = {}
        self._pinned: dict[str, tuple[np.ndarray, object]] = {}

    # -- uploads ---------------------------------------------------------------------------------------------
    def resident(self, name: str, host: np.ndarray):
        """``host`` on the device, uploaded the first time and reused while the same array is passed.

        For read-only data (tables, pattern databases): pass the same object every time.  A different object
        under the same name replaces the old copy.
        """
        if is_device_array(host):
            return self._device_view(host)
        entry = self._resident.get(name)
        if entry is not None and entry[0] is host:
            return entry[1]
        arr = np.ascontiguousarray(host)
        dev = cuda.to_device(arr, stream=self.stream)
        self.transfers.h2d(arr.nbytes)
        self._resident[name] = (host, dev)  # keeps `host` alive: its id is never reused while cached
        self.uploads[name] = self.uploads.get(name, 0) + 1
        return dev

    def resident_names(self) -> list[str]:
        """Names of the arrays kept on the device."""
        return sorted(self._resident)

    def empty(self, name: str, shape: tuple, dtype) -> object:
        """A device buffer of this shape, allocated once per name and reused (grown when a larger one is asked
        for); its contents are whatever the last user left."""
        shape = tuple(int(s) for s in shape)
        dtype = np.dtype(dtype)
        buf = self._buffers.get(name)
        rows = shape[0] if shape else 1
        if buf is None or buf.dtype != dtype or tuple(buf.shape[1:]) != shape[1:] or buf.shape[0] < rows:
            cap = max(rows, 2 * buf.shape[0] if buf is not None and tuple(buf.shape[1:]) == shape[1:] else rows, 1)
            buf = cuda.device_array((cap,) + shape[1:], dtype=dtype, stream=self.stream)
            self._buffers[name] = buf
        return buf[:rows] if shape else buf

    def put(self, name: str, x):
        """``x`` on the device: itself when it already lives there, else copied into the reusable buffer
        ``name`` through pinned memory (asynchronous on the session's stream)."""
        if is_device_array(x):
            return self._device_view(x)
        arr = np.ascontiguousarray(x)
        dev = self.empty(name, arr.shape, arr.dtype)
        if arr.size:
            staging = self._staging(name, arr.shape, arr.dtype)
            np.copyto(staging, arr)
            dev.copy_to_device(staging, stream=self.stream)
            self._pinned[name][1].record(self.stream)
        self.transfers.h2d(arr.nbytes)
        return dev

    def output(self, name: str, x):
        """Where a kernel writes ``x``: ``x`` itself when it lives on the device, else the reusable buffer
        ``name`` (nothing copied in; copy it back with :meth:`get_back`)."""
        if is_device_array(x):
            return self._device_view(x)
        return self.empty(name, x.shape, x.dtype)

    def get_back(self, pairs) -> None:
        """Copy each ``(host, device)`` pair's device array into its host array; pairs whose "host" array lives
        on the device already are left alone (nothing moves)."""
        for host, dev in pairs:
            if isinstance(host, np.ndarray):
                self.get(dev, host)

    def _staging(self, name: str, shape: tuple, dtype) -> np.ndarray:
        entry = self._pinned.get(name)
        size = int(np.prod(shape)) if shape else 1
        if entry is None or entry[0].dtype != dtype or entry[0].size < size:
            entry = (cuda.pinned_array(max(size, 1), dtype=dtype), cuda.event())
            self._pinned[name] = entry
        else:
            entry[1].synchronize()  # its last copy to the device has finished: safe to overwrite
        return entry[0][:size].reshape(shape)

    @staticmethod
    def _device_view(x):
        if hasattr(x, "copy_to_host"):  # a numba device array
            return x
        return cuda.as_cuda_array(x)  # CuPy (or any __cuda_array_interface__ array): same memory

    # -- downloads -------------------------------------------------------------------------------------------
    def get(self, dev, out: np.ndarray | None = None, stream=None) -> np.ndarray:
        """Copy a device array to the host (into ``out`` when given), waiting for the copy.  ``stream``: the
        session's stream (default: after everything queued on it) or :attr:`copy_stream` (data already final)."""
        stream = stream or self.stream
        if dev.size == 0:  # nothing to move (numba refuses a copy between empty arrays of different shapes)
            return out if out is not None else np.empty(dev.shape, dev.dtype)
        host = dev.copy_to_host(out, stream=stream) if out is not None else dev.copy_to_host(stream=stream)
        stream.synchronize()
        self.transfers.d2h(host.nbytes)
        return out if out is not None else host

    def get_async(self, dev, name: str) -> np.ndarray:
        """Start copying a device array into a pinned host buffer ``name``; valid after :meth:`synchronize` (or
        an event recorded after it)."""
        host = self._staging("d2h:" + name, dev.shape, dev.dtype)
        if dev.size:
            dev.copy_to_host(host, stream=self.stream)
        self.transfers.d2h(host.nbytes)
        return host

    def synchronize(self) -> None:
        self.stream.synchronize()

    def record(self):
        """An event recorded on the session's stream now (wait for it with ``.synchronize()``)."""
        ev = cuda.event()
        ev.record(self.stream)
        return ev

    def cupy_stream(self):
        """A context in which CuPy queues its work on the session's stream (in order with the kernels)."""
        cp = cupy_module()
        try:
            ptr = int(self.stream)  # numba's Stream gives its CUstream's address
        except TypeError:
            handle = self.stream.handle
            ptr = handle.value if hasattr(handle, "value") else int(handle)  # numba's ctypes binding
        return cp.cuda.ExternalStream(ptr)

    def namespace_view(self, dev, name: str):
        """``(xp, array)`` for array work on ``dev``: CuPy on the same memory when CuPy is there, else numpy on a
        host copy (counted)."""
        view = as_namespace_array(dev)
        if view is not None:
            return cupy_module(), view
        return np, self.get(dev)

    # -- launches ----------------------------------------------------------------------------------------------
    def launch(self, name: str, kernel, n_items: int, *args, blocks: int | None = None, lanes: int = 1) -> None:
        """Launch ``kernel`` over ``n_items`` items (grid-stride) on the session's stream, with the geometry the
        device allows for it (:mod:`puzzlebatch.gpu_kernels.geometry`); ``blocks`` forces the block count;
        ``lanes`` threads of a block search one item together (blocks of exactly ``lanes`` threads)."""
        g = self.geometries.get(name)
        if g is None:
            g = geometry.kernel_geometry(kernel, args, self.limits, lanes)
            self.geometries[name] = g
        grid = blocks if blocks is not None else g.blocks_for(n_items)
        with simulator_thread_switching() if simulator_enabled() else nullcontext():
            kernel[grid, g.threads, self.stream](*args)
        self.transfers.launch()

    def geometry_json(self) -> dict:
        return {name: g.to_json() for name, g in sorted(self.geometries.items())}
