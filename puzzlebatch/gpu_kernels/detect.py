"""Is there a GPU, or numba's CUDA simulator?  Cheap checks (numba.cuda is imported only when a driver may be
there), below both the kernels (launch geometry) and the backend choice (:mod:`puzzlebatch.runners.engine.backend`)."""

from __future__ import annotations

import os
import platform


def simulator_enabled() -> bool:
    """True when numba's CUDA simulator is switched on (``NUMBA_ENABLE_CUDASIM=1``)."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def nvidia_driver_present() -> bool:
    """A cheap look for an NVIDIA driver before importing numba.cuda (about half a second): its device nodes or
    its /proc entry on Linux (``/dev/dxg`` under WSL); on other systems, assume it may be there."""
    if platform.system() == "Darwin":
        return False
    if platform.system() != "Linux" or os.environ.get("NUMBA_CUDA_DRIVER"):
        return True
    return any(os.path.exists(p) for p in ("/dev/nvidiactl", "/dev/nvidia0", "/proc/driver/nvidia", "/dev/dxg"))


def gpu_info() -> dict | None:
    """Name, compute capability and memory of GPU 0, or None when there is no real GPU."""
    if simulator_enabled() or not nvidia_driver_present():
        return None
    try:
        from numba import cuda

        if not cuda.is_available():
            return None
        dev = cuda.get_current_device()
        name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
        free, total = cuda.current_context().get_memory_info()
        return {
            "name": name,
            "compute_capability": list(dev.compute_capability),
            "memory_total_bytes": int(total),
            "memory_free_bytes": int(free),
        }
    except Exception:  # a broken driver is "no GPU" for choosing; `puzzlebatch info` shows why
        return None
