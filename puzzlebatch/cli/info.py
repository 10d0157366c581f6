"""``puzzlebatch info``: versions, available backends, the GPU."""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version


def _version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def collect() -> dict:
    from puzzlebatch import __version__
    from puzzlebatch.cli.warmup import cache_summary
    from puzzlebatch.jit import prebuilt
    from puzzlebatch.runners.engine.backend import (cpu_description, cuda_compiler_problem, gpu_info, select_backend,
                                                     simulator_enabled)

    cuda_reason = None
    try:
        from numba import cuda

        cuda_ok = bool(cuda.is_available()) and not simulator_enabled()
        if not cuda_ok and not simulator_enabled():
            cuda_reason = "numba.cuda.is_available() is False (no GPU or no driver)"
    except Exception as exc:  # numba-cuda missing or broken: say why
        cuda_ok, cuda_reason = False, f"{type(exc).__name__}: {exc}"
    if cuda_ok and cuda_compiler_problem() is not None:  # a GPU, but no kernel would compile
        cuda_ok, cuda_reason = False, cuda_compiler_problem()
    deps = ["numpy", "numba", "platformdirs", "numba-cuda", "llvmlite", "h5py", "tqdm", "matplotlib", "cupy-cuda12x",
            "cupy-cuda13x", "dask", "distributed", "cuda-bindings", "nvidia-cuda-nvcc-cu12"]
    return {
        "puzzlebatch": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": cpu_description(),
        "dependencies": {d: _version(d) for d in deps},
        "backends": {
            "cpu": True,
            "cuda": cuda_ok,
            "cudasim": simulator_enabled(),
            "auto": select_backend("auto").name,
        },
        "cuda_unavailable_reason": cuda_reason,
        "gpu": gpu_info(),
        "launch": _launch_geometry(),
        "array_namespace": _array_namespace(),
        "compile_cache": cache_summary(),
        "prebuilt": prebuilt.summary(),
    }


def _launch_geometry() -> dict:
    try:
        from puzzlebatch.gpu_kernels import geometry

        return geometry.describe(geometry.device_limits())
    except Exception as exc:  # numba-cuda missing or broken
        return {"source": "config", "why": f"{type(exc).__name__}: {exc}"}


def _array_namespace() -> str:
    from puzzlebatch.xp import cupy_module

    return "cupy (device arrays)" if cupy_module() is not None else "numpy (CuPy not installed or no GPU)"


def run(args) -> int:
    from puzzlebatch.cli.options import print_json

    doc = collect()
    if args.json:
        print_json(doc)
        return 0
    print(f"puzzlebatch {doc['puzzlebatch']} on Python {doc['python']} ({doc['platform']})")
    print(f"CPU: {doc['cpu']}")
    b = doc["backends"]
    print(f"backends: cpu yes, cuda {'yes' if b['cuda'] else 'no'}, cudasim {'on' if b['cudasim'] else 'off'}; "
          f"--backend auto runs {b['auto']}")
    if doc["cuda_unavailable_reason"]:
        print(f"  cuda: {doc['cuda_unavailable_reason']}")
    if doc["gpu"]:
        g = doc["gpu"]
        print(f"GPU: {g['name']} (compute capability {g['compute_capability'][0]}.{g['compute_capability'][1]}, "
              f"{g['memory_total_bytes'] / 2**30:.1f} GiB)")
    g = doc["launch"]
    if g["source"] == "device":
        d = g["device"]
        per = ", ".join(f"{r} regs: {v['blocks_per_sm']}/SM" for r, v in g["blocks_by_registers"].items())
        print(f"launch geometry: from the device ({d['sm_count']} SMs, {d['max_threads_per_sm']} threads and "
              f"{d['max_registers_per_sm']} registers per SM); {g['threads_per_block']} threads per block, "
              f"blocks = SMs x resident blocks per SM (by each kernel's registers: {per}) x {g['waves']} waves")
    else:
        print(f"launch geometry: configured ({g.get('why', '')}): {g.get('threads_per_block')} threads per block, "
              f"at most {g.get('max_blocks')} blocks")
    print(f"array work between launches: {doc['array_namespace']}")
    c = doc["compile_cache"]
    state = "on" if c["enabled"] else "off (PUZZLEBATCH_NO_CACHE)"
    print(f"compile cache: {c['folder']} ({state}; {c['units']} compiled units, {c['bytes'] / 2**20:.1f} MiB; "
          "set PUZZLEBATCH_CACHE_DIR to move it, `puzzlebatch warmup` fills it)")
    p = doc["prebuilt"]
    print(f"compiled code shipped: {', '.join(p['families'])} for {p['level']} ({', '.join(p['builds']) or 'none'}): "
          + ("used on this machine (copied into an empty cache)" if p["used"] else f"not used here: {p['why_not']}"))
    print("dependencies:")
    for name, ver in doc["dependencies"].items():
        print(f"  {name:24s} {ver or '-'}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("info", help="versions, backends and the GPU")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run)
