"""Choosing where kernels run: ``cpu`` (numba njit, parallel), ``cuda`` (numba.cuda) or ``auto``.

``auto`` picks CUDA only when a real GPU is present.  Asking for ``cuda`` without one is an error, never a silent
fallback.  With ``NUMBA_ENABLE_CUDASIM=1`` the CUDA path runs in numba's simulator and reports ``cudasim``.
This module is the only place that chooses between the two backends; :func:`puzzlebatch.runners.engine.twins.twin`
picks the drivers for the one chosen (ARCHITECTURE.md, "One rule, two backends").
"""

from __future__ import annotations

import functools
import os
import platform
from dataclasses import dataclass
from typing import Literal

from puzzlebatch.errors import BackendUnavailableError
from puzzlebatch.gpu_kernels.detect import gpu_info, nvidia_driver_present, simulator_enabled

__all__ = ["REQUESTS", "Backend", "BackendName", "cpu_description", "cuda_compiler_problem", "gpu_info",
           "nvidia_driver_present", "select_backend", "simulator_enabled"]

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


@functools.cache
def cuda_compiler_problem() -> str | None:
    """Why numba-cuda cannot compile a kernel in this environment, in one line, or None when it can.

    Loads the CUDA target's typing registries, as the first kernel compile would. A numba-cuda too old for the
    installed numpy fails there (numba-cuda 0.30.4 under numpy 2.5 stops on the removed ``np.row_stack``), which
    would otherwise surface as a long traceback from the first launch.
    """
    try:
        from numba.cuda.descriptor import cuda_target

        cuda_target.typing_context.refresh()
    except Exception as exc:  # any failure here would fail every kernel compile
        from importlib.metadata import PackageNotFoundError, version

        def ver(name: str) -> str:
            try:
                return f"{name} {version(name)}"
            except PackageNotFoundError:
                return f"{name} ?"

        return f"{type(exc).__name__}: {exc} ({ver('numba-cuda')}, {ver('numpy')}: install versions that work together)"
    return None


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
        problem = cuda_compiler_problem()
        if problem is None:
            return Backend("cuda", gpu["name"])
        why = f"{gpu['name']} is present but numba-cuda cannot compile kernels here: {problem}"
        if requested == "cuda":
            raise BackendUnavailableError(f"--backend cuda: {why}; use --backend cpu")
        from puzzlebatch.jit.cache import warn_once  # once a process: a script may choose a backend for each run

        warn_once(why, f"{why}; --backend auto runs on the cpu")
        return Backend("cpu", cpu_description())
    if requested == "cuda":
        raise BackendUnavailableError(
            "--backend cuda: no CUDA GPU is available on this machine (numba.cuda.is_available() is False); "
            "use --backend cpu, or set NUMBA_ENABLE_CUDASIM=1 to run the kernels in the simulator"
        )
    return Backend("cpu", cpu_description())
