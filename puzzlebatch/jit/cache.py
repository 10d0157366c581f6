"""The on-disk compile cache: where it lives, how its entries are keyed, and numba cache classes that use it.

numba's own ``cache=True`` keys an entry on the decorated function's file alone, so a rule edited in another file
would be served stale, and it cannot cache a function that captures dispatchers in a closure.  Here every compiled
function belongs to a *unit* (:mod:`puzzlebatch.jit.unit`) and its entries live in one folder per unit::

    <root>/numba/<python>-numba<version>/<unit label>-<source key>/

where the source key hashes the package version, the Python minor version and machine, numba's (and numba-cuda's)
version, the CPU level compiled for (:func:`cpu_level`) and the bytes of every source file
the unit's code depends on: its modules and, transitively, every module they import from the same package.  Nothing
in it is peculiar to one machine's files, so a folder built elsewhere (the package's prebuilt code) is valid here.
Any edit to any of those files gives a new folder, so nothing stale can be loaded; old folders are only disk space
(``puzzlebatch warmup --prune`` removes them).

Concurrent writers (a Dask ``local:N`` cluster, parallel test workers) take an ``flock`` on the entry's lock file
while they update its index, and numba writes every file beside its target and renames it into place, so a reader
never sees half a file.  A folder that cannot be written (read-only, full disk) is still read; compiling then
stays in memory, with one warning line on stderr.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import platform
import re
import shutil
import sys
import tempfile
import threading
import time
from functools import lru_cache
from pathlib import Path

from puzzlebatch.jit import clock

ENV_CACHE_DIR = "PUZZLEBATCH_CACHE_DIR"
ENV_NO_CACHE = "PUZZLEBATCH_NO_CACHE"  # "1": compile in memory, read and write nothing


def cache_root() -> Path:
    """The user's puzzlebatch cache folder: ``$PUZZLEBATCH_CACHE_DIR``, else the platform's user cache folder
    (``$XDG_CACHE_HOME/puzzlebatch`` or ``~/.cache/puzzlebatch`` on Linux)."""
    env = os.environ.get(ENV_CACHE_DIR)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("puzzlebatch", appauthor=False))


def compile_cache_dir() -> Path:
    """Where compiled code goes: ``<root>/numba/<python>-numba<version>``."""
    import numba

    py = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return cache_root() / "numba" / f"{py}-numba{numba.__version__}"


def caching_disabled() -> bool:
    return os.environ.get(ENV_NO_CACHE, "0") not in ("", "0")


# -- warnings: one line each, once per process ---------------------------------------------------------------------

_warned: set[str] = set()
_lock = threading.Lock()


def warn_once(key: str, message: str) -> None:
    with _lock:
        if key in _warned:
            return
        _warned.add(key)
    print(f"puzzlebatch: warning: {message}", file=sys.stderr, flush=True)


class _WriteState:
    """Whether this process may still write cache entries (a failed write turns it off, once, with a warning)."""

    def __init__(self) -> None:
        self.writable: bool | None = None  # None: not checked yet

    def check(self, folder: Path) -> bool:
        if self.writable is None:
            try:
                folder.mkdir(parents=True, exist_ok=True)
                tempfile.TemporaryFile(dir=folder).close()
                self.writable = True
            except OSError as e:
                self.fail(folder, e)
        return bool(self.writable)

    def fail(self, folder: Path, exc: OSError) -> None:
        self.writable = False
        reason = exc.strerror or type(exc).__name__
        warn_once("cache-write", f"cannot write the compile cache in {folder} ({reason}): compiling in memory "
                                 f"this time (set {ENV_CACHE_DIR} to a writable folder to keep compiled code)")


write_state = _WriteState()


def _note() -> str:
    """What a first compile's announcement says about this cache."""
    if caching_disabled() or write_state.writable is False:
        return "not cached"
    return "first run, cached afterwards"


clock.cache_note = _note


# -- source keys ---------------------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _file_digest(path: str, mtime_ns: int, size: int) -> bytes:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).digest()


def _digest(path: str) -> bytes:
    st = os.stat(path)
    return _file_digest(path, st.st_mtime_ns, st.st_size)


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)|import[ \t]+([^\n#]+))",
                     re.MULTILINE)


@lru_cache(maxsize=None)
def _imports_of(path: str, mtime_ns: int, package: str | None) -> tuple[str, ...]:
    """Absolute names of the modules imported anywhere in the file (``import x``, ``from x import y``, relative
    imports resolved against ``package``); ``from x import y`` also lists ``x.y`` in case ``y`` is a module.
    A line scan (imports inside functions count too), much quicker than parsing the file."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    names: list[str] = []
    for m in _IMPORT.finditer(text):
        source, what, plain = m.groups()
        if plain is not None:
            names.extend(part.split()[0] for part in plain.split(",") if part.strip())
            continue
        level = len(source) - len(source.lstrip("."))
        module = source[level:]
        if level:
            if not package:
                continue
            parts = package.split(".")
            if level > 1:
                parts = parts[: len(parts) - (level - 1)]
            module = ".".join(parts + ([module] if module else []))
        names.append(module)
        for part in what.strip("()").split(","):
            part = part.split("#")[0].strip()
            if part and part != "*":
                names.append(f"{module}.{part.split()[0]}")
    return tuple(n for n in names if n and not n.startswith("."))


@lru_cache(maxsize=None)
def _package_dir(root: str) -> str | None:
    """The folder of top-level package ``root`` (found once, without importing it when it is not loaded)."""
    mod = sys.modules.get(root)
    path = getattr(mod, "__file__", None) if mod is not None else None
    if path is None:
        try:
            spec = importlib.util.find_spec(root)
        except (ImportError, ValueError):
            return None
        path = spec.origin if spec is not None else None
    return os.path.dirname(path) if path and path.endswith("__init__.py") else None


def _module_file(name: str) -> str | None:
    """The source file of module ``name`` inside its top-level package, or None (not a module: a name imported
    from one, say)."""
    loaded = getattr(sys.modules.get(name), "__file__", None)
    if loaded and loaded.endswith(".py"):
        return loaded
    root, _, rest = name.partition(".")
    folder = _package_dir(root)
    if folder is None:
        return None
    base = os.path.join(folder, *rest.split(".")) if rest else folder
    for path in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(path):
            return path
    return None


def source_files(module_names: list[str]) -> list[str]:
    """The source files of ``module_names`` and of every module they import, transitively, from the same top-level
    packages (``puzzlebatch`` for the package's own rules; a test's package for its toy rules)."""
    roots = {n.split(".")[0] for n in module_names}
    seen: dict[str, str] = {}
    todo = list(module_names)
    while todo:
        name = todo.pop()
        if name in seen or name.split(".")[0] not in roots:
            continue
        path = _module_file(name)
        seen[name] = path or ""
        if path is None:
            continue
        is_pkg = os.path.basename(path) == "__init__.py"
        package = name if is_pkg else name.rpartition(".")[0]
        todo.extend(_imports_of(path, os.stat(path).st_mtime_ns, package or None))
    return sorted({p for p in seen.values() if p})


def source_key(module_names: list[str], target: str, extra: str = "") -> str:
    """A short hash of everything compiled code of these modules depends on (see the module docstring); ``extra``
    says how they are compiled together."""
    from puzzlebatch import __version__

    h = hashlib.sha256()
    # the Python minor version and the machine, not the exact build: compiled code shipped with the package
    # (puzzlebatch.jit.prebuilt) must find its folder under any build of that Python; the CPU it is compiled for
    py = f"{sys.implementation.name}-{sys.version_info[0]}.{sys.version_info[1]}-{platform.machine()}"
    parts = [__version__, target, py, _numba_versions(target), cpu_level() if target == "cpu" else "", extra]
    h.update("\0".join(parts).encode())
    for path in source_files(module_names):
        h.update(os.path.basename(path).encode())
        h.update(_digest(path))
    return h.hexdigest()[:16]


def cpu_level() -> str:
    """What this process's CPU code is compiled for, as a cache key part: ``host``, or the CPU name (and features)
    numba was told to compile for (``NUMBA_CPU_NAME``, set by the user or by :func:`puzzlebatch.jit.prebuilt.activate`
    for the package's shipped code)."""
    if "numba" in sys.modules:
        from numba.core import config

        name, feats = config.CPU_NAME, config.CPU_FEATURES
    else:
        name, feats = os.environ.get("NUMBA_CPU_NAME"), os.environ.get("NUMBA_CPU_FEATURES")
    return "host" if not name else f"{name}:{feats or ''}"


def loaded_fingerprint(modules) -> str:
    """A hash of what these *imported* modules will compile from: every plain function's code (bytecode,
    constants, names, defaults; nested code too) and the simple module-level values numba freezes into compiled
    code.  :func:`source_key` reads the files on disk; a module edited after this process imported it would be
    compiled from its old code under the new file's key (a stale entry served to every later process).  With the
    fingerprint in the key, old code gets a key of its own, never the fresh files'.

    Each module's part is kept while its functions (the objects, their code and defaults) and simple values stay
    the same, so asking again costs a look over the module's names, not the hash of its code (0.9 ms on the
    exact-cover rules, asked at every count).
    """
    h = hashlib.sha256()
    for m in modules:
        h.update(_module_part(m))
    return h.hexdigest()[:16]


# id(module) -> (module, the objects its view names, its view, its part of the fingerprint).  The entry holds the
# module and those objects, so no id in a view can be reused by another object while the entry lives.
_parts: dict[int, tuple] = {}
_parts_lock = threading.Lock()


def _module_view(m) -> tuple[tuple, tuple]:
    """What a module's part of :func:`loaded_fingerprint` depends on: ``(objects, view)``, the view comparing
    functions by identity and simple values by type and value (floats and tuples by repr: ``-0.0 == 0.0``)."""
    import types

    objs, view = [], []
    for name, obj in vars(m).items():
        if isinstance(obj, types.FunctionType):
            objs.append((obj, obj.__code__, obj.__defaults__))
            view.append((name, id(obj), id(obj.__code__), id(obj.__defaults__), obj.__module__))
        elif isinstance(obj, (bool, int, str, bytes)):
            view.append((name, type(obj), obj))
        elif isinstance(obj, (float, tuple)):
            view.append((name, type(obj), repr(obj)))
    return tuple(objs), tuple(view)


def _module_part(m) -> bytes:
    objs, view = _module_view(m)
    with _parts_lock:
        got = _parts.get(id(m))
        if got is not None and got[0] is m and got[2] == view:
            return got[3]
    part = _module_bytes(m)
    with _parts_lock:
        _parts[id(m)] = (m, objs, view, part)
    return part


def _module_bytes(m) -> bytes:
    """A module's part of :func:`loaded_fingerprint`, computed."""
    import types

    chunks: list[bytes] = []

    def code(c) -> None:
        chunks.append(c.co_code)
        chunks.append(repr((c.co_names, c.co_varnames, c.co_freevars, c.co_cellvars, c.co_argcount)).encode())
        for k in c.co_consts:
            if isinstance(k, types.CodeType):
                code(k)
            elif isinstance(k, frozenset):  # a set literal: its repr's order follows string hashing
                chunks.append(repr(sorted(repr(x) for x in k)).encode())
            else:
                chunks.append(repr(k).encode())

    chunks.append(m.__name__.encode())
    for name, obj in sorted(vars(m).items()):
        if isinstance(obj, types.FunctionType) and obj.__module__ == m.__name__:
            chunks.append(name.encode())
            code(obj.__code__)
            chunks.append(repr(obj.__defaults__).encode())
        elif isinstance(obj, (bool, int, float, str, bytes, tuple)) and not name.startswith("__"):
            chunks.append(f"{name}={obj!r}".encode())
    return b"".join(chunks)


def _numba_versions(target: str) -> str:
    import numba

    v = f"numba {numba.__version__}"
    if target == "cuda":
        try:
            from importlib.metadata import version

            v += f" numba-cuda {version('numba-cuda')}"
        except Exception:
            pass
    return v


# -- numba cache classes -------------------------------------------------------------------------------------------

@contextlib.contextmanager
def _flock(path: str):
    """An exclusive lock on ``path`` (created if missing) for the duration of the block; none on Windows."""
    try:
        import fcntl
    except ImportError:  # Windows: numba's own write-then-rename is all there is
        yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _cache_classes():
    """Subclasses of numba's (and, lazily, numba-cuda's) cache classes that use a unit's folder and key."""
    from numba.core import caching as nc

    class UnitLocator(nc._CacheLocator):
        def __init__(self, folder: str, stamp: str, py_file: str = "<unit>"):
            self._folder = folder
            self._stamp = stamp
            self._py_file = py_file  # numba names it in its "cannot cache" warnings

        def ensure_cache_path(self):
            os.makedirs(self._folder, exist_ok=True)

        def get_cache_path(self):
            return self._folder

        def get_source_stamp(self):
            return self._stamp

        def get_disambiguator(self):
            return "u"

        @classmethod
        def from_function(cls, py_func, py_file):
            spec = getattr(py_func, "__puzzlebatch_cache__", None)
            return None if spec is None else cls(*spec, py_file)

    class UnitCacheImpl(nc.CompileResultCacheImpl):
        _locator_classes = [UnitLocator]

    class UnitFunctionCache(_SafeCacheMixin, nc.FunctionCache):
        _impl_class = UnitCacheImpl

    return UnitLocator, UnitFunctionCache


class _SafeCacheMixin:
    """Loads that fail are misses; saves are locked, and a failed save turns saving off with one warning.

    With ``PUZZLEBATCH_NO_CACHE=1`` nothing is read or written (compiling in memory, still timed and announced).
    """

    _timed_misses = False  # CUDA kernels: numba fires no compile event, so time miss -> save here

    def load_overload(self, sig, target_context):
        data = None
        if not caching_disabled():
            t0 = time.perf_counter()
            try:
                data = super().load_overload(sig, target_context)
            except OSError:  # no folder, or not one we can read: a miss (saving then says why, once)
                data = None
            except Exception as e:  # a damaged or foreign entry: compile instead
                warn_once(f"cache-load-{self._cache_path}",
                          f"ignoring an unreadable compile-cache entry in {self._cache_path} "
                          f"({type(e).__name__}); recompiling")
                data = None
        if data is None:
            clock.note_miss(self._py_func, timed=self._timed_misses)
        else:
            clock.add_load(time.perf_counter() - t0)
        return data

    def save_overload(self, sig, data):
        if self._timed_misses:
            clock.note_saved()
        if caching_disabled():
            return
        folder = Path(self._cache_path)
        if not write_state.check(folder.parent):
            return
        try:
            os.makedirs(folder, exist_ok=True)
            with _flock(os.path.join(self._cache_path, self._impl.filename_base + ".lock")):
                super().save_overload(sig, data)
        except OSError as e:
            write_state.fail(folder, e)


@lru_cache(maxsize=None)
def cpu_cache_class():
    return _cache_classes()[1]


@lru_cache(maxsize=None)
def cuda_cache_class():
    from numba.cuda import dispatcher as cd

    locator = _cache_classes()[0]

    class UnitCUDACacheImpl(cd.CUDACacheImpl):
        _locator_classes = [locator]

    class UnitCUDACache(_SafeCacheMixin, cd.CUDACache):
        _impl_class = UnitCUDACacheImpl
        _timed_misses = True

    return UnitCUDACache


def prune(current: list[str]) -> list[Path]:
    """Remove stale unit folders: those named like one of ``current`` (``<unit>-<key>``) but with another key, i.e.
    compiled from older sources.  Other units, and other Python or numba versions, are left alone."""
    base = compile_cache_dir()
    keep = set(current)
    variants = {name.rsplit("-", 1)[0] for name in current}
    removed = []
    if not base.is_dir():
        return removed
    for child in sorted(base.iterdir()):
        if child.is_dir() and child.name not in keep and child.name.rsplit("-", 1)[0] in variants:
            shutil.rmtree(child, ignore_errors=True)
            removed.append(child)
    return removed


def folder_size(path: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(dirpath, f))
            except OSError:
                pass
    return total
