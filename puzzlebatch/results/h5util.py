"""What the results store is built from: JSON and HDF5 value helpers, the counter protocol for appended rows, and
the transaction decorator every mutating method of :mod:`puzzlebatch.results.store` goes through."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import threading
from datetime import datetime, timezone
from typing import Any

import h5py
import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.results import journal

CHUNK_BYTES = 256 * 1024  # target size of one chunk of a checkpoint array
# Appended columns (items, series) come in chunks of ROW_CHUNK_BYTES before compression, compressed with zlib level
# 1 after a byte shuffle (both in every HDF5 build).  HDF5 allocates a chunk whole, so without compression a run of
# a few rows took a whole chunk a column; and each commit filters the last chunk again (its checksum covers all of
# it), so a small chunk keeps a commit cheap.
ROW_CHUNK_BYTES = 64 * 1024
COMPRESSION = {"compression": "gzip", "compression_opts": 1, "shuffle": True}


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON serialisable")


def dumps(obj: Any) -> str:
    """Encode ``obj`` as JSON, converting numpy scalars and arrays to plain Python values."""
    return json.dumps(obj, default=_json_default)


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def plain(value: Any) -> Any:
    """An h5py attribute value as a plain (JSON-serialisable) Python value."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    return value


def one_line_reason(exc: BaseException) -> str:
    """The first line of an HDF5/OS error, without h5py's prefixes."""
    if isinstance(exc, OSError) and exc.errno is not None and exc.strerror and len(exc.args) == 2:
        return exc.strerror
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text.removeprefix("Unable to synchronously ")


@contextlib.contextmanager
def sigint_deferred():
    """Hold Ctrl-C back until the block ends (then raise it): an interrupt inside HDF5's callbacks would leave
    the library's view of the file half-updated, and the next commit would write it."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    caught = []
    signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if caught:
        raise KeyboardInterrupt


def transaction(method):
    """Run a mutating method as one transaction: check the store is writable, commit at the end, and turn a
    failed write (disk full, I/O error) into one line naming the file; the file then stays as of its last
    commit.  Ctrl-C waits for the commit."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        store = getattr(self, "_store", self)  # a Run's store, or the store itself
        store._require_writable()
        with sigint_deferred():
            return _run(store, method, self, args, kwargs)

    return wrapper


def _run(store, method, self, args, kwargs):
    """``method`` then the commit; a failed write becomes one line naming the file."""
    try:
        value = method(self, *args, **kwargs)
        store._commit()
        journal.check_crash()
    except (OSError, RuntimeError, KeyError) as exc:
        journal.check_crash()
        io_failed = store._io is not None and store._io.failed is not None
        if not io_failed and not isinstance(exc, OSError):
            raise
        cause = store._io.failed if io_failed else exc
        raise PuzzleInputError(f"{store.path}: cannot write ({one_line_reason(cause)}); the file keeps its last "
                               "commit") from None
    return value


def check_name(kind: str, name: str) -> None:
    # A "/" would silently create nested groups; "." is the group itself.
    if not isinstance(name, str) or not name or "/" in name or name == ".":
        raise ValueError(f"invalid {kind} name {name!r}: must be a non-empty string without '/'")


def storable(values: Any) -> np.ndarray:
    """``values`` as an array h5py can store; unicode strings become variable-length UTF-8."""
    arr = np.asarray(values)
    if arr.dtype.kind == "U":
        arr = arr.astype(object)
    return arr


def h5_dtype(arr: np.ndarray) -> Any:
    return h5py.string_dtype() if arr.dtype.kind == "O" else arr.dtype


def read_rows(ds: h5py.Dataset, n: int | None = None) -> np.ndarray:
    """Read a dataset (its first ``n`` rows if given); string datasets come back as ``str`` objects."""
    src = ds.asstr() if h5py.check_string_dtype(ds.dtype) is not None else ds
    if n is None:
        return np.asarray(src[()])
    return np.asarray(src[:n])


def check_compatible(name: str, ds: h5py.Dataset, arr: np.ndarray) -> None:
    if arr.shape[1:] != ds.shape[1:]:
        raise ValueError(f"column {name!r}: rows of shape {arr.shape[1:]} do not match the stored {ds.shape[1:]}")
    stored_is_str = h5py.check_string_dtype(ds.dtype) is not None
    if stored_is_str != (arr.dtype.kind == "O"):
        raise ValueError(f"column {name!r}: cannot store {arr.dtype} in a column of {ds.dtype}")
    if not stored_is_str and not np.can_cast(arr.dtype, ds.dtype, "same_kind"):
        raise ValueError(f"column {name!r}: cannot store {arr.dtype} in a column of {ds.dtype} without loss")


def commit_rows(owner: h5py.Group, counter: str, columns: list[tuple[h5py.Dataset, np.ndarray]],
                commit: Any = None) -> None:
    """Append equal-length arrays to their datasets, then bump ``owner.attrs[counter]`` (readers trust only
    ``[:counter]``).

    ``commit`` (the store's commit) is called between the two: the rows and their chunk index are on disk before
    the counter that exposes them changes, so a reader polling the file without a lock never sees a counter
    ahead of its rows.  A crash between the two commits leaves rows past the counter, which the next writer cuts.
    """
    n, k = int(owner.attrs.get(counter, 0)), len(columns[0][1])
    for ds, _ in columns:
        ds.resize(n + k, axis=0)
    for ds, arr in columns:
        ds[n:n + k] = arr
    if commit is not None:
        commit()
    owner.attrs.modify(counter, np.int64(n + k))  # in place, no attribute re-creation


def truncate_rows(owner: h5py.Group, counter: str, datasets: list[h5py.Dataset]) -> None:
    """Cut ``datasets`` to the committed count ``owner.attrs[counter]``."""
    n = int(owner.attrs.get(counter, 0))
    # A dataset shorter than the counter cannot follow from a killed process (rows are flushed before
    # the counter); it means lost writes, so lower the counter rather than expose fill values.
    n_safe = min(n, *(ds.shape[0] for ds in datasets))
    if n_safe != n:
        owner.attrs.modify(counter, np.int64(n_safe))
    for ds in datasets:
        if ds.shape[0] != n_safe:
            ds.resize(n_safe, axis=0)


def appendable(arr: np.ndarray, chunk_bytes: int = ROW_CHUNK_BYTES) -> dict:
    """``create_dataset`` options for an empty column that grows by rows like those of ``arr``: chunks of about
    ``chunk_bytes`` (uncompressed), compressed, with a Fletcher-32 checksum where HDF5 allows one."""
    row_bytes = max(1, arr.dtype.itemsize * int(np.prod(arr.shape[1:], dtype=np.int64)))
    rows = max(1, chunk_bytes // row_bytes)
    return {"shape": (0,) + arr.shape[1:], "maxshape": (None,) + arr.shape[1:],
            "chunks": (rows,) + tuple(max(1, d) for d in arr.shape[1:]), "dtype": h5_dtype(arr),
            "fletcher32": arr.dtype.kind != "O", **COMPRESSION}


def checksum_attrs(arr: np.ndarray) -> dict:
    """Dataset options for ``arr``: chunked with a Fletcher-32 checksum where HDF5 allows one (numeric, not 0-d),
    so flipped bytes are an error on reading instead of a wrong frontier."""
    if arr.ndim == 0 or arr.dtype.kind == "O" or arr.size == 0:
        return {}
    row_bytes = max(1, arr.dtype.itemsize * int(np.prod(arr.shape[1:], dtype=np.int64)))
    rows = max(1, min(arr.shape[0], CHUNK_BYTES // row_bytes))
    return {"chunks": (rows,) + tuple(max(1, d) for d in arr.shape[1:]), "fletcher32": True}


def encode_seed(seed: int) -> Any:
    seed = int(seed)
    # Seeds from SeedSequence can exceed int64: keep those as decimal text.
    return np.int64(seed) if -2**63 <= seed < 2**63 else str(seed)
