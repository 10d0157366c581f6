"""Compiled code that comes with the package, for machines whose compile cache is empty.

numba compiles a kernel on its first use.  For most commands that is a one-time wait, but the hex Tetris contest
player is judged the way a contest runs it: once, from a fresh machine, under a time limit (``-t``) that the
compiling counts against (20–60 s for its kernels on a 2-core machine, a third or more of a 30-s budget).  So the
package ships that code compiled, like a wheel ships a C extension:

* it is compiled for a **portable CPU level** (:data:`LEVELS`: ``x86-64-v3`` on x86-64, i.e. AVX2, BMI2, FMA and
  POPCNT, every x86-64 CPU from about 2015 on), not for the build machine's own CPU.  The commands of a family in
  :data:`FAMILIES`, run as a program (``puzzlebatch hextris ...``, ``play_icfp2015``), compile for that level
  too (:func:`activate`), on a CPU that has it, so their own cache entries, ``puzzlebatch warmup hextris`` and the
  shipped ones are the same.  The level is part of a unit's cache key (``cache.cpu_level``), so code built for it
  and code built for the host never share a folder;
* it lives under ``puzzlebatch/data/prebuilt/<python>-numba<version>/<unit folder>/``, the numba cache files of
  each unit (:mod:`puzzlebatch.jit.unit`), whose folder names hash every source file the code depends on;
* when a unit's cache folder has no entries yet and the package holds that very folder, its files are copied in
  (:func:`seed`, a few MB, milliseconds) and numba loads them as from any warm cache.

Where it cannot apply, nothing changes and the code is compiled on first use as before: another architecture, a
CPU without the level's features, another Python or numba version than the build's, sources edited since the
build (their folder name differs), ``PUZZLEBATCH_PREBUILT=0``, or ``NUMBA_CPU_NAME`` set by the user.

Building (after any change to the sources a shipped unit depends on; ``tests/test_prebuilt.py`` says when)::

    python -m puzzlebatch.jit.prebuilt          # compile into a scratch cache, copy into puzzlebatch/data/prebuilt
    python -m puzzlebatch.jit.prebuilt --check  # exit 1 when the shipped folders are not the current ones
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: families whose compiled CPU code ships with the package, and the function building each one's CPU unit
FAMILIES = {"hextris": ("puzzlebatch.cpu_fallback.hextris", "drivers")}
#: the CPU level shipped code is compiled for, per machine architecture, and the host features it needs (as LLVM
#: names them)
LEVELS = {"x86_64": ("x86-64-v3", frozenset({
    "avx", "avx2", "bmi", "bmi2", "cmov", "cx16", "cx8", "f16c", "fma", "fxsr", "lzcnt", "mmx", "movbe",
    "popcnt", "sahf", "sse", "sse2", "sse3", "sse4.1", "sse4.2", "ssse3", "xsave"}))}
ENV_PREBUILT = "PUZZLEBATCH_PREBUILT"  # "0": compile for the host and copy nothing in
ROOT = Path(__file__).resolve().parent.parent / "data" / "prebuilt"

#: what :func:`seed` copied in this process: (unit folder name, files, seconds)
seeded: list[tuple[str, int, float]] = []


def disabled() -> bool:
    return os.environ.get(ENV_PREBUILT, "1").strip() in ("0", "no", "false", "off")


def level() -> str | None:
    """The portable CPU level this host can run (None: another architecture, a CPU without the features, or
    prebuilt code turned off)."""
    got = LEVELS.get(platform.machine().lower().replace("amd64", "x86_64"))
    if got is None or disabled():
        return None
    name, needs = got
    try:
        import llvmlite.binding as ll

        have = {k for k, v in ll.get_host_cpu_features().items() if v}
    except Exception:  # noqa: BLE001 - no feature list: no portable code
        return None
    return name if needs <= have else None


def _codegen_built() -> bool:
    """True once numba has made its CPU code generator (its CPU name is fixed from then on)."""
    reg = sys.modules.get("numba.core.registry")
    return reg is not None and "_toplevel_target_context" in vars(reg.cpu_target)


def activate() -> bool:
    """Compile this process's CPU code (and its child processes') for the portable level, when the host has it;
    True when it does.  Called by the program entry points of :data:`FAMILIES`' commands before anything is
    compiled; a process that has compiled already, or a ``NUMBA_CPU_NAME`` the user set, is left as it is."""
    lv = level()
    if lv is None:
        return False
    if os.environ.get("NUMBA_CPU_NAME") not in (None, lv):
        return False  # the user's choice
    if _codegen_built():
        from numba.core import config

        return config.CPU_NAME == lv
    os.environ["NUMBA_CPU_NAME"] = lv
    os.environ["NUMBA_CPU_FEATURES"] = ""  # the level's own features, not the host's
    if "numba.core.config" in sys.modules:
        from numba.core import config

        config.CPU_NAME, config.CPU_FEATURES = lv, ""
    return True


def active() -> bool:
    """True when this process compiles for the portable level."""
    from puzzlebatch.jit.cache import cpu_level

    lv = level()
    return lv is not None and cpu_level() == f"{lv}:"


def shipped_dir() -> Path:
    """Where the package keeps prebuilt code for this Python and numba: ``data/prebuilt/<python>-numba<ver>``."""
    from puzzlebatch.jit.cache import compile_cache_dir

    return ROOT / compile_cache_dir().name


def seed(folder: str) -> bool:
    """Copy the package's prebuilt files of the unit folder ``folder`` into it, when it has no index yet and the
    package holds that folder (the same name: the same sources, Python, numba and CPU level); True when copied.
    Each file is written beside its target and renamed into place, index files last, so a process reading the
    folder meanwhile sees whole files, and two processes seeding at once write the same bytes."""
    from puzzlebatch.jit.cache import caching_disabled

    if caching_disabled() or disabled():
        return False
    src = shipped_dir() / os.path.basename(folder)
    if not src.is_dir():
        return False
    t = time.perf_counter()
    dst = Path(folder)
    try:
        if dst.is_dir() and any(p.suffix == ".nbi" for p in dst.iterdir()):
            return False
        files = sorted((p for p in src.iterdir() if p.suffix in (".nbi", ".nbc")), key=lambda p: p.suffix == ".nbi")
        dst.mkdir(parents=True, exist_ok=True)
        for p in files:
            tmp = dst / f".{p.name}.{os.getpid()}.tmp"
            shutil.copyfile(p, tmp)
            os.replace(tmp, dst / p.name)
    except OSError:  # a cache that cannot be written: numba compiles, and the cache says why once
        return False
    seeded.append((dst.name, len(files), time.perf_counter() - t))
    return True


def report() -> str:
    """One line's worth on what :func:`seed` did since the last report in this process ('' when nothing): a
    second run in the same process (``play_icfp2015.main`` called twice) does not repeat the first one's copy."""
    if not seeded:
        return ""
    files = sum(n for _, n, _ in seeded)
    secs = sum(s for _, _, s in seeded)
    seeded.clear()
    return f"compiled code from the package ({level()}, {files} files) copied into the empty cache in {secs:.2f} s"


def summary() -> dict:
    """What the package ships and whether it serves this machine (``puzzlebatch info``)."""
    builds = sorted(p.name for p in ROOT.iterdir()) if ROOT.is_dir() else []
    lv, here = level(), shipped_dir().name
    if disabled():
        why = f"{ENV_PREBUILT}=0"
    elif lv is None:
        why = f"this CPU ({platform.machine()}) lacks the level's features"
    elif here not in builds:
        why = f"built for {', '.join(builds) or 'nothing'}, this is {here}"
    else:
        why = ""
    return {"families": sorted(FAMILIES), "level": LEVELS.get("x86_64", ("", None))[0], "builds": builds,
            "used": not why, "why_not": why or None}


# -- building ------------------------------------------------------------------------------------------------------

def unit_folders(family: str) -> list[str]:
    """The cache folder names of ``family``'s shipped units in this process (building a unit compiles nothing)."""
    import importlib

    module, fn = FAMILIES[family]
    return [os.path.basename(getattr(importlib.import_module(module), fn)().folder)]


def _portable_env(cache_dir: str | None = None) -> dict:
    env = dict(os.environ, NUMBA_CPU_NAME=level() or "", NUMBA_CPU_FEATURES="")
    env.pop(ENV_PREBUILT, None)
    if cache_dir is not None:
        env["PUZZLEBATCH_CACHE_DIR"] = cache_dir
    return env


def current_folders(families=tuple(FAMILIES)) -> list[str]:
    """The folder names the shipped units should have now (asked of a process compiling for the level)."""
    code = ("import sys; from puzzlebatch.jit import prebuilt; "
            "print('\\n'.join(f for fam in sys.argv[1:] for f in prebuilt.unit_folders(fam)))")
    out = subprocess.run([sys.executable, "-c", code, *families], env=_portable_env(), capture_output=True,
                         text=True, check=True)
    return out.stdout.split()


def check() -> list[str]:
    """What is wrong with the shipped code for this Python and numba ([] when it is current)."""
    if level() is None:
        return []
    want = current_folders()
    have = sorted(p.name for p in shipped_dir().iterdir()) if shipped_dir().is_dir() else []
    problems = [f"missing: {f}" for f in want if f not in have]
    problems += [f"stale: {f}" for f in have if f not in want]
    return problems


def build(families=tuple(FAMILIES), out=sys.stdout) -> None:
    """Compile ``families`` for the level in a scratch cache (``puzzlebatch warmup``, in a child process) and put
    their unit folders under :func:`shipped_dir` in place of the old ones (other Python and numba versions'
    folders are removed: one build is shipped)."""
    if level() is None:
        raise SystemExit(f"prebuilt: this machine ({platform.machine()}) has no portable CPU level to build for")
    with tempfile.TemporaryDirectory(prefix="puzzlebatch-prebuilt-") as tmp:
        subprocess.run([sys.executable, "-m", "puzzlebatch", "warmup", *families], env=_portable_env(tmp),
                       check=True, stdout=subprocess.DEVNULL)
        built = next((Path(tmp) / "numba").iterdir())
        wanted = current_folders(families)
        dest = shipped_dir()
        if ROOT.is_dir():
            for old in ROOT.iterdir():
                if old != dest:
                    shutil.rmtree(old)
        dest.mkdir(parents=True, exist_ok=True)
        for old in dest.iterdir():
            shutil.rmtree(old)
        for unit in sorted(p for p in built.iterdir() if p.name in wanted):
            target = dest / unit.name
            target.mkdir()
            files = [p for p in unit.iterdir() if p.suffix in (".nbi", ".nbc")]
            for p in files:
                shutil.copyfile(p, target / p.name)
            size = sum(p.stat().st_size for p in files)
            print(f"{target.relative_to(ROOT.parent.parent.parent)}: {len(files)} files, {size / 1e6:.1f} MB",
                  file=out)


USAGE = "usage: python -m puzzlebatch.jit.prebuilt [--check]"


def main(argv: list[str] | None = None) -> int:
    """Build the shipped code, or with ``--check`` say what is out of date (exit 1)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv in (["-h"], ["--help"]):
        print(USAGE + "\n\n" + __doc__.split("\n\n")[0])
        return 0
    if argv not in ([], ["--check"]):
        print(f"{USAGE}\nprebuilt: error: unknown arguments {' '.join(argv)}", file=sys.stderr)
        return 2
    if argv:
        problems = check()
        for p in problems:
            print(f"prebuilt: {p}")
        return 1 if problems else 0
    build()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
