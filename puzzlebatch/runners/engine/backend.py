"""Choosing where kernels run: ``cpu`` (numba njit, parallel), ``cuda`` (numba.cuda) or ``auto``.

``auto`` picks CUDA only when a real GPU is present.  Asking for ``cuda`` without one is an error, never a silent
fallback.  With ``NUMBA_ENABLE_CUDASIM=1`` the CUDA path runs in numba's simulator and reports ``cudasim``.
This module is the only place that chooses between the two backends; :func:`puzzlebatch.runners.engine.twins.twin`
picks the drivers for the one chosen (ARCHITECTURE.md, "One rule, two backends").
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from typing import Literal

from puzzlebatch.errors import BackendUnavailableError
from puzzlebatch.gpu_kernels.detect import gpu_info, nvidia_driver_present, simulator_enabled

__all__ = ["REQUESTS", "Backend", "BackendName", "cpu_description", "gpu_info", "nvidia_driver_present",
           "select_backend", "simulator_enabled"]

BackendName = Literal["cpu", "cuda", "cudasim"]
REQUESTS = ("auto", "cpu", "cuda")


@dataclass(frozen=True)
class Backend:
    """The backend that will run (or ran) a job.

    Attributes
    ----------
    name
        ``"cpu"``, ``"cuda"`` or ``"cudasim"`` — what results record as their backend.
    device
        Human description: the CPU model and core count, or the GPU's name.
    kind
        ``"cpu"`` or ``"cuda"``: which kernel family to call (the simulator runs the CUDA kernels).
    """

    name: BackendName
    device: str

    @property
    def kind(self) -> Literal["cpu", "cuda"]:
        return "cpu" if self.name == "cpu" else "cuda"


def cpu_description() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model} ({os.cpu_count()} logical cores)"


def select_backend(requested: str = "auto") -> Backend:
    """Resolve ``auto|cpu|cuda`` to the backend that will run.

    numba itself is imported here, before any work is timed: a result's ``seconds`` is the search, not the
    import of its compiler (about half a second).

    Raises
    ------
    BackendUnavailableError
        ``cuda`` was requested and neither a GPU nor the simulator is available.
    ValueError
        ``requested`` is not one of ``auto``, ``cpu``, ``cuda``.
    """
    backend = _select(requested)
    import numba  # noqa: F401

    return backend


def _select(requested: str) -> Backend:
    if requested not in REQUESTS:
        raise ValueError(f"unknown backend {requested!r}: expected one of {', '.join(REQUESTS)}")
    if requested == "cpu":
        return Backend("cpu", cpu_description())
    if simulator_enabled():
        if requested == "cuda":
            return Backend("cudasim", "numba CUDA simulator (NUMBA_ENABLE_CUDASIM=1)")
        return Backend("cpu", cpu_description())
    gpu = gpu_info()
    if gpu is not None:
        return Backend("cuda", gpu["name"])
    if requested == "cuda":
        raise BackendUnavailableError(
            "--backend cuda: no CUDA GPU is available on this machine (numba.cuda.is_available() is False); "
            "use --backend cpu, or set NUMBA_ENABLE_CUDASIM=1 to run the kernels in the simulator"
        )
    return Backend("cpu", cpu_description())
