"""``puzzlebatch warmup``: compile every family's kernels ahead of time, into the disk cache.

Each family is warmed up by running its real commands on tiny inputs, in this process, with their output thrown
away: every compiled function is then compiled for exactly the argument types the real commands use (a memory-mapped
pattern database is a read-only array, say, which is another signature than a fresh one).  What a cluster image or a
CI job runs once, so that no command, test or Dask worker compiles again.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from puzzlebatch.errors import EXIT_NO_SOLUTION, EXIT_OK

def _tasks(family: str, backend: str, tmp: Path) -> list[tuple[str, list[str]]]:
    """(what, argv) of the tiny commands that compile everything ``family`` uses on ``backend`` (the family's
    ``warmup`` hook; none for a family without one)."""
    from puzzlebatch import registry

    hook = registry.get(family).hook("warmup")
    return [] if hook is None else [(what, [family, *argv]) for what, argv in hook(["--backend", backend], tmp)]


@dataclass
class FamilyWarmup:
    family: str
    tasks: int
    seconds: float  # wall time
    compile_seconds: float  # of which compiling (0: everything was in the cache already)
    cpu_seconds: float  # this process's CPU time (what a busy machine does not inflate)

    def to_json(self) -> dict:
        return {"family": self.family, "tasks": self.tasks, "seconds": round(self.seconds, 3),
                "compile_seconds": round(self.compile_seconds, 3), "cpu_seconds": round(self.cpu_seconds, 3)}


def warm_up(families: list[str], main, backend: str = "cpu", progress=None) -> list[FamilyWarmup]:
    """Run every family's tiny commands with ``main`` (the command line's; in a scratch folder, output
    discarded); returns what each took.

    Raises
    ------
    RuntimeError
        A warm-up command failed (its stderr is in the message): a bug, since the inputs are fixed.
    """
    from puzzlebatch.jit import Stopwatch

    done = []
    with tempfile.TemporaryDirectory(prefix="puzzlebatch-warmup-") as d:
        tmp = Path(d)
        here = os.getcwd()
        try:
            os.chdir(tmp)  # commands that write results/ by default write here
            for family in families:
                if _portable_elsewhere(family):
                    done.append(_warm_up_child(family, backend, progress))
                    continue
                watch, cpu0 = Stopwatch(), time.process_time()
                tasks = _tasks(family, backend, tmp)
                for what, argv in tasks:
                    if progress is not None:
                        progress.set_postfix_str(f"{family} {what}")
                    err = io.StringIO()
                    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                        code = main(argv)
                    if code not in (EXIT_OK, EXIT_NO_SOLUTION):  # "no solution" is an answer (5x4 tetrominoes)
                        raise RuntimeError(f"warm-up of {family} ({what}) failed with exit status {code}: "
                                           f"{err.getvalue().strip()[-500:]}")
                    if progress is not None:
                        progress.update(1)
                    _unlink(tmp / "warmup.h5")
                done.append(FamilyWarmup(family, len(tasks), watch.wall_seconds, watch.compile_seconds,
                                         time.process_time() - cpu0))
        finally:
            os.chdir(here)
    return done


def _portable_elsewhere(family: str) -> bool:
    """True when ``family``'s compiled code ships with the package for a CPU level this process does not compile
    for (``jit.prebuilt``): its commands compile for that level, so it is warmed up in a child process that does."""
    from puzzlebatch.jit import prebuilt

    return family in prebuilt.FAMILIES and prebuilt.level() is not None and not prebuilt.active()


def _warm_up_child(family: str, backend: str, progress=None) -> FamilyWarmup:
    """``puzzlebatch warmup FAMILY`` in a child process (compiling for the portable level); what it took."""
    import json
    import subprocess

    if progress is not None:
        progress.set_postfix_str(f"{family} (another process)")
    t, cpu0 = time.perf_counter(), time.process_time()
    r = subprocess.run([sys.executable, "-m", "puzzlebatch", "warmup", family, "--backend", backend, "--json"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"warm-up of {family} failed with exit status {r.returncode}: {r.stderr.strip()[-500:]}")
    got = next(f for f in json.loads(r.stdout)["families"] if f["family"] == family)
    if progress is not None:
        progress.update(got["tasks"])
    return FamilyWarmup(family, got["tasks"], time.perf_counter() - t, got["compile_seconds"],
                        time.process_time() - cpu0 + got["cpu_seconds"])


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def count_tasks(families: list[str], backend: str) -> int:
    with tempfile.TemporaryDirectory() as d:
        return sum(len(_tasks(f, backend, Path(d))) for f in families)


def cache_summary() -> dict:
    """The compile cache: its folder, whether it is used, its unit folders and size."""
    from puzzlebatch.jit import cache

    folder = cache.compile_cache_dir()
    units = sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    return {"folder": str(folder), "enabled": not cache.caching_disabled(), "units": len(units),
            "bytes": cache.folder_size(folder) if folder.is_dir() else 0}


def run(args) -> int:
    from puzzlebatch.cli.options import print_json
    from puzzlebatch.errors import PuzzleInputError
    from puzzlebatch.jit import cache
    from puzzlebatch.jit.unit import built_units
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.engine.progress import bar

    from puzzlebatch import registry

    known = [f.name for f in registry.families() if f.warmup or f.search]
    families = args.families or known
    for f in families:
        if f not in known:
            raise PuzzleInputError(f"warmup: unknown family {f!r} (families: {', '.join(known)})")
    backend = select_backend(args.backend)
    if backend.name == "cudasim":
        raise PuzzleInputError("warmup --backend cuda: the CUDA simulator compiles nothing to cache "
                               "(NUMBA_ENABLE_CUDASIM is set); run it where a GPU is")
    if cache.caching_disabled():
        print(f"puzzlebatch: warning: {cache.ENV_NO_CACHE} is set: nothing will be kept", file=sys.stderr)
    progress = bar("warmup", unit="command", total=count_tasks(families, backend.kind))
    try:
        results = warm_up(families, args.app_main, backend.kind, progress)
    finally:
        progress.close()
    pruned = []
    if args.prune:
        from puzzlebatch.jit import prebuilt

        keep = [os.path.basename(u.folder) for u in built_units()]
        elsewhere = [r.family for r in results if _portable_elsewhere(r.family)]  # warmed in a child process
        if elsewhere:  # their folders for the portable level, and for this host (both of the current sources)
            keep += prebuilt.current_folders(elsewhere) + [f for fam in elsewhere for f in prebuilt.unit_folders(fam)]
        pruned = [str(p) for p in cache.prune(keep)]
    doc = {"backend": backend.name, "families": [r.to_json() for r in results], "cache": cache_summary(),
           "pruned": pruned}
    if args.json:
        print_json(doc)
        return 0
    for r in results:
        how = "already cached" if r.compile_seconds < 0.05 else \
            f"{r.compile_seconds:.1f} s compiling, {r.cpu_seconds:.1f} s of CPU"
        print(f"{r.family}: {r.tasks} commands in {r.seconds:.1f} s ({how})")
    c = doc["cache"]
    print(f"compile cache: {c['folder']} ({c['units']} units, {c['bytes'] / 2**20:.1f} MiB)")
    if pruned:
        print(f"pruned {len(pruned)} stale unit folders")
    return 0


def register(sub) -> None:
    p = sub.add_parser("warmup", help="compile every family's kernels now, into the disk cache",
                       description="Compile ahead of time (what a cluster image or CI runs once): each family's "
                                   "commands run on tiny inputs and their compiled code is kept in the cache "
                                   "folder ($PUZZLEBATCH_CACHE_DIR, see `puzzlebatch info`).")
    p.add_argument("families", nargs="*", metavar="FAMILY", help="default: every family")
    p.add_argument("--backend", choices=["cpu", "cuda"], default="cpu", help="compile the CPU drivers (default) "
                   "or the CUDA kernels (needs a GPU: kernels are compiled for its compute capability)")
    p.add_argument("--prune", action="store_true",
                   help="afterwards, remove cached code of older sources or versions (of this Python and numba)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run)
