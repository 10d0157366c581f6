"""HDF5 results store: one file, many runs, crash-safe batched appends (DESIGN.md §5).

Layout::

    <name>.h5        attrs: schema, schema_version, creator_version, created
    /runs/<run_id>/  attrs: family, algorithm, backend, device, seed, params_json, status,
                            n_committed, started, finished, seconds, compile_seconds, result_json
        instances/   input arrays, written once
        items/       per-item results, one extendable dataset per column, all the same length
        series/<name>/ step, value, attr n   (progress over time)
        checkpoint/  arrays + attr meta_json, replaced as a whole

Commit protocol for items (and series): resize every column, write the rows, flush, then bump the
counter attribute and flush again.  A process killed at any moment leaves at most a tail of rows past
the counter; readers ignore it and the next writer truncates it, so a resumed run neither loses nor
duplicates a committed row.  Flushing guards against a killed process, not against power loss
(there is no fsync).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Collection
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from puzzlebatch import __version__
from puzzlebatch.errors import PuzzleInputError

SCHEMA = "puzzlebatch-results"
SCHEMA_VERSION = 1
STATUSES = ("running", "done", "interrupted", "failed")
_MODES = ("r", "r+", "a", "w", "w-", "x")
_CHUNK_BYTES = 256 * 1024  # target size of one items chunk
_RUN_FIELDS = ("family", "algorithm", "backend", "device", "seed", "params", "status", "n_committed",
               "started", "finished", "seconds", "compile_seconds", "result")


# ----------------------------------------------------------------------------- helpers

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


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _plain(value: Any) -> Any:
    """An h5py attribute value as a plain (JSON-serialisable) Python value."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    return value


def _check_name(kind: str, name: str) -> None:
    # A "/" would silently create nested groups; "." is the group itself.
    if not isinstance(name, str) or not name or "/" in name or name == ".":
        raise ValueError(f"invalid {kind} name {name!r}: must be a non-empty string without '/'")


def _storable(values: Any) -> np.ndarray:
    """``values`` as an array h5py can store; unicode strings become variable-length UTF-8."""
    arr = np.asarray(values)
    if arr.dtype.kind == "U":
        arr = arr.astype(object)
    return arr


def _h5_dtype(arr: np.ndarray) -> Any:
    return h5py.string_dtype() if arr.dtype.kind == "O" else arr.dtype


def _read(ds: h5py.Dataset, n: int | None = None) -> np.ndarray:
    """Read a dataset (its first ``n`` rows if given); string datasets come back as ``str`` objects."""
    src = ds.asstr() if h5py.check_string_dtype(ds.dtype) is not None else ds
    if n is None:
        return np.asarray(src[()])
    return np.asarray(src[:n])


def _check_compatible(name: str, ds: h5py.Dataset, arr: np.ndarray) -> None:
    if arr.shape[1:] != ds.shape[1:]:
        raise ValueError(f"column {name!r}: rows of shape {arr.shape[1:]} do not match the stored {ds.shape[1:]}")
    stored_is_str = h5py.check_string_dtype(ds.dtype) is not None
    if stored_is_str != (arr.dtype.kind == "O"):
        raise ValueError(f"column {name!r}: cannot store {arr.dtype} in a column of {ds.dtype}")
    if not stored_is_str and not np.can_cast(arr.dtype, ds.dtype, "same_kind"):
        raise ValueError(f"column {name!r}: cannot store {arr.dtype} in a column of {ds.dtype} without loss")


def _commit_rows(file: h5py.File, owner: h5py.Group, counter: str,
                 columns: list[tuple[h5py.Dataset, np.ndarray]]) -> None:
    """Append equal-length arrays to their datasets, then bump ``owner.attrs[counter]``.

    Rows reach the file before the counter that makes them visible, so a kill at any moment leaves
    at most an uncommitted tail.
    """
    n, k = int(owner.attrs.get(counter, 0)), len(columns[0][1])
    for ds, _ in columns:
        ds.resize(n + k, axis=0)
    for ds, arr in columns:
        ds[n:n + k] = arr
    file.flush()
    owner.attrs.modify(counter, np.int64(n + k))  # in place, no attribute re-creation
    file.flush()


def _truncate(owner: h5py.Group, counter: str, datasets: list[h5py.Dataset]) -> None:
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


def _encode_seed(seed: int) -> Any:
    seed = int(seed)
    # Seeds from SeedSequence can exceed int64: keep those as decimal text.
    return np.int64(seed) if -2**63 <= seed < 2**63 else str(seed)


# ----------------------------------------------------------------------------- store

class ResultsStore:
    """An HDF5 results file holding many runs.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.h5`` file.  Its parent directory is created when opening for writing.
    mode : {"a", "r", "r+", "w", "x"}
        As for :class:`h5py.File`: ``"a"`` creates or appends, ``"r"`` reads, ``"w"`` overwrites.
        Opening for writing truncates every run's items to its committed count (crash recovery).
        ``"r"`` opens without a file lock so a running writer's file can be inspected.

    Raises
    ------
    PuzzleInputError
        The file is missing (read modes), not HDF5, not a puzzlebatch results file, written by a newer
        schema version, or cannot be opened (for example locked by another writer).
    """

    def __init__(self, path: str | os.PathLike, mode: str = "a") -> None:
        if mode not in _MODES:
            raise ValueError(f"mode must be one of {_MODES}, got {mode!r}")
        self.path = Path(path)
        self.mode = mode
        self.writable = mode != "r"
        exists = self.path.exists()
        if self.path.is_dir():
            raise PuzzleInputError(f"{self.path}: is a directory, not a results file")
        if not exists and mode in ("r", "r+"):
            raise PuzzleInputError(f"{self.path}: no such results file")
        if exists and mode in ("w-", "x"):
            raise PuzzleInputError(f"{self.path}: results file already exists")
        if exists and mode != "w" and not h5py.is_hdf5(self.path):
            raise PuzzleInputError(f"{self.path}: not an HDF5 file")
        if self.writable:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # A reader of a file being written may catch it between flushes ("truncated file"): retry.
        attempts = 3 if mode == "r" else 1
        for attempt in range(attempts):
            try:
                # Default libver on purpose: with libver="latest" a file whose writer was killed
                # refuses to reopen until `h5clear -s` is run on it.
                self._file = h5py.File(self.path, mode, locking=False if mode == "r" else None)
                break
            except OSError as exc:
                if attempt + 1 < attempts:
                    time.sleep(0.05)
                    continue
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                if "unable to lock file" in reason:
                    reason = "another process has it open for writing"
                raise PuzzleInputError(f"{self.path}: cannot open results file ({reason})") from None
        try:
            self._init_or_check()
            if self.writable:
                self._recover()
        except BaseException:
            self._file.close()
            raise

    def _init_or_check(self) -> None:
        f = self._file
        # An empty HDF5 file is treated as new (a writer killed right after creating it).
        if self.writable and len(f.attrs) == 0 and len(f) == 0:
            f.attrs["schema"] = SCHEMA
            f.attrs["schema_version"] = np.int64(SCHEMA_VERSION)
            f.attrs["creator_version"] = __version__
            f.attrs["created"] = _now()
            f.create_group("runs", track_order=True)  # track_order: run_ids() in creation order
            f.flush()
            return
        schema = _plain(f.attrs.get("schema"))
        if schema != SCHEMA:
            raise PuzzleInputError(f"{self.path}: not a puzzlebatch results file (schema attribute {schema!r})")
        version = _plain(f.attrs.get("schema_version"))
        if not isinstance(version, int) or version > SCHEMA_VERSION:
            raise PuzzleInputError(f"{self.path}: schema_version {version!r} is newer than this puzzlebatch "
                                   f"supports ({SCHEMA_VERSION}); upgrade puzzlebatch")
        if self.writable and "runs" not in f:
            f.create_group("runs", track_order=True)

    def _recover(self) -> None:
        for run_id in self.run_ids():
            self.run(run_id)._recover()
        self._file.flush()

    # -- runs

    @property
    def attrs(self) -> dict[str, Any]:
        """The file's attributes (schema, schema_version, creator_version, created) as plain values."""
        return {key: _plain(value) for key, value in self._file.attrs.items()}

    def create_run(self, family: str, algorithm: str, *, backend: str, device: str, seed: int | None,
                   params: dict, run_id: str | None = None) -> Run:
        """Start a new run with status ``"running"``.

        Parameters
        ----------
        family, algorithm, backend, device : str
            Puzzle family, algorithm, backend (``"cpu"``, ``"cuda"``) and a device description.
        seed : int or None
            Random seed, or None when the run is deterministic.
        params : dict
            Run parameters, stored as JSON (numpy scalars and arrays are converted).
        run_id : str, optional
            Defaults to ``f"{family}-{algorithm}-{n:04d}"`` with ``n`` the number of existing runs.

        Raises
        ------
        ValueError
            The store is read-only, or the run id exists already or contains ``/``.
        """
        self._require_writable()
        runs = self._file["runs"]
        if run_id is None:
            n = len(runs)
            while f"{family}-{algorithm}-{n:04d}" in runs:
                n += 1
            run_id = f"{family}-{algorithm}-{n:04d}"
        _check_name("run", run_id)
        if run_id in runs:
            raise ValueError(f"{self.path}: run {run_id!r} already exists")
        params_json = dumps(params)  # fail before creating anything
        group = runs.create_group(run_id, track_order=True)
        attrs = group.attrs
        attrs["family"] = family
        attrs["algorithm"] = algorithm
        attrs["backend"] = backend
        attrs["device"] = device
        if seed is not None:
            attrs["seed"] = _encode_seed(seed)
        attrs["params_json"] = params_json
        attrs["status"] = "running"
        attrs["n_committed"] = np.int64(0)
        attrs["started"] = _now()
        self._file.flush()
        return Run(self, group)

    def run(self, run_id: str) -> Run:
        """The run named ``run_id``; PuzzleInputError if there is none."""
        runs = self._file.get("runs")
        if runs is None or run_id not in runs:
            raise PuzzleInputError(f"{self.path}: no run named {run_id!r}")
        return Run(self, runs[run_id])

    def run_ids(self) -> list[str]:
        """Run ids in creation order."""
        runs = self._file.get("runs")
        return [] if runs is None else list(runs)

    def latest_run(self, family: str | None = None, algorithm: str | None = None,
                   status: str | Collection[str] | None = None) -> Run | None:
        """The most recently created run matching every given filter, or None.

        ``status`` may be one status or a collection of them (e.g. ``("running", "interrupted")``).
        """
        statuses = {status} if isinstance(status, str) else None if status is None else set(status)
        for run_id in reversed(self.run_ids()):
            run = self.run(run_id)
            attrs = run._group.attrs
            if family is not None and _plain(attrs.get("family")) != family:
                continue
            if algorithm is not None and _plain(attrs.get("algorithm")) != algorithm:
                continue
            if statuses is not None and _plain(attrs.get("status")) not in statuses:
                continue
            return run
        return None

    # -- file handling

    def flush(self) -> None:
        """Flush HDF5 buffers and metadata to the operating system."""
        self._file.flush()

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._file.id.valid:
            self._file.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResultsStore({str(self.path)!r}, mode={self.mode!r})"

    def _require_writable(self) -> None:
        if not self.writable:
            raise ValueError(f"{self.path}: results store is open read-only")


# ----------------------------------------------------------------------------- run

class Run:
    """One run inside a :class:`ResultsStore`; get it from ``create_run``, ``run`` or ``latest_run``."""

    def __init__(self, store: ResultsStore, group: h5py.Group) -> None:
        from puzzlebatch.jit.clock import Stopwatch

        self._store = store
        self._group = group
        self.id: str = group.name.rsplit("/", 1)[-1]
        self._watch = Stopwatch()  # this process's share of the run: work and compiling
        self._prior_compile = float(group.attrs.get("compile_seconds", 0.0))  # earlier processes' (resumed runs)

    def __repr__(self) -> str:
        return f"Run({self.id!r}, n_committed={self.n_committed})"

    def _flush(self) -> None:
        self._store._file.flush()

    @property
    def attrs(self) -> dict[str, Any]:
        """The run's attributes as plain values.

        ``params`` and ``result`` are decoded from ``params_json`` / ``result_json``; attributes not set
        yet (``seed``, ``finished``, ``seconds``, ``result``) are None.
        """
        raw = {key: _plain(value) for key, value in self._group.attrs.items()}
        out: dict[str, Any] = {"id": self.id, **dict.fromkeys(_RUN_FIELDS)}
        out["params"] = json.loads(raw.pop("params_json", "{}"))
        if "result_json" in raw:
            out["result"] = json.loads(raw.pop("result_json"))
        if raw.get("seed") is not None:
            raw["seed"] = int(raw["seed"])
        out.update(raw)
        out["n_committed"] = int(out["n_committed"] or 0)
        return out

    @property
    def n_committed(self) -> int:
        """Number of committed item rows."""
        return int(self._group.attrs.get("n_committed", 0))

    def set_result(self, result: dict) -> None:
        """Store the run's overall result (JSON)."""
        self._store._require_writable()
        self._group.attrs["result_json"] = dumps(result)
        self._flush()

    def set_status(self, status: str) -> None:
        """Set the status: one of ``"running"``, ``"done"``, ``"interrupted"``, ``"failed"``."""
        self._store._require_writable()
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        self._group.attrs["status"] = status
        self._flush()

    def finish(self, status: str = "done", seconds: float | None = None,
               compile_seconds: float | None = None) -> None:
        """Mark the run finished now with ``status``.

        Records ``seconds`` (the work, compiling excluded: the caller's measure, else the time since this process
        opened the run less its compiling) and ``compile_seconds`` (numba compiling, added up over every process
        that worked on the run: 0 when everything came from the disk cache).
        """
        self._store._require_writable()
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        self._group.attrs["finished"] = _now()
        self._group.attrs["seconds"] = float(self._watch.seconds if seconds is None else seconds)
        if compile_seconds is None:
            compile_seconds = self._prior_compile + self._watch.compile_seconds
        self._group.attrs["compile_seconds"] = round(float(compile_seconds), 3)
        self.set_status(status)

    # -- instances

    def set_instances(self, **arrays: Any) -> None:
        """Store the run's input arrays; each name can be set only once (ValueError otherwise)."""
        self._store._require_writable()
        group = self._group.require_group("instances")
        for name in arrays:
            _check_name("instance array", name)
            if name in group:
                raise ValueError(f"run {self.id!r}: instance array {name!r} is already set")
        for name, values in arrays.items():
            arr = _storable(values)
            group.create_dataset(name, data=arr, dtype=_h5_dtype(arr))
        self._flush()

    def instances(self) -> dict[str, np.ndarray]:
        """The input arrays stored with :meth:`set_instances`."""
        group = self._group.get("instances")
        return {} if group is None else {name: _read(ds) for name, ds in group.items()}

    # -- items

    def append_items(self, **columns: Any) -> None:
        """Append rows of per-item results and commit them.

        Parameters
        ----------
        **columns : array_like
            Column name -> array of ``k`` rows, ``k`` the same for every column.  The first call fixes
            the names, dtypes and row shapes; later calls must match them (dtypes castable within
            their kind).

        Raises
        ------
        ValueError
            Different names, lengths, row shapes or dtypes; nothing is written then.
        """
        self._store._require_writable()
        if not columns:
            raise ValueError("append_items needs at least one column")
        arrays = {}
        for name, values in columns.items():
            _check_name("column", name)
            arr = _storable(values)
            if arr.ndim == 0:
                raise ValueError(f"column {name!r}: expected an array of rows, got a scalar")
            arrays[name] = arr
        lengths = {name: arr.shape[0] for name, arr in arrays.items()}
        if len(set(lengths.values())) != 1:
            raise ValueError(f"run {self.id!r}: columns have different lengths {lengths}")
        k = next(iter(lengths.values()))

        items = self._group.get("items")
        if items is not None and len(items):
            if set(items) != set(arrays):
                raise ValueError(f"run {self.id!r}: columns {sorted(arrays)} differ from the stored "
                                 f"columns {sorted(items)}")
            for name, arr in arrays.items():
                _check_compatible(name, items[name], arr)
        else:
            if items is None:
                items = self._group.create_group("items", track_order=True)  # items() in column order
            for name, arr in arrays.items():
                row_bytes = max(1, arr.dtype.itemsize * int(np.prod(arr.shape[1:], dtype=np.int64)))
                chunk_rows = max(1, _CHUNK_BYTES // row_bytes)
                items.create_dataset(name, shape=(0,) + arr.shape[1:], maxshape=(None,) + arr.shape[1:],
                                     chunks=(chunk_rows,) + tuple(max(1, d) for d in arr.shape[1:]),
                                     dtype=_h5_dtype(arr))
        if k == 0:
            self._flush()
            return

        _commit_rows(self._store._file, self._group, "n_committed",
                     [(items[name], arr) for name, arr in arrays.items()])

    def truncate_items(self, n: int) -> None:
        """Forget every committed row past the first ``n`` (a resumed run rolls back to its checkpoint's rows).

        The counter is lowered first, so a kill in between leaves the rows past it uncommitted, as usual."""
        self._store._require_writable()
        if n < 0 or n > self.n_committed:
            raise ValueError(f"run {self.id!r}: cannot truncate {self.n_committed} rows to {n}")
        if n == self.n_committed:
            return
        self._group.attrs.modify("n_committed", np.int64(n))
        self._flush()
        _truncate(self._group, "n_committed", list(self._group["items"].values()))
        self._flush()

    def items(self) -> dict[str, np.ndarray]:
        """The committed rows of every column (``[:n_committed]``), in column creation order."""
        items = self._group.get("items")
        n = self.n_committed
        return {} if items is None else {name: _read(ds, n) for name, ds in items.items()}

    def column_info(self) -> dict[str, tuple[str, tuple[int, ...]]]:
        """Column name -> (dtype name, shape of one row)."""
        items = self._group.get("items")
        if items is None:
            return {}
        return {name: ("str" if h5py.check_string_dtype(ds.dtype) else str(ds.dtype), tuple(ds.shape[1:]))
                for name, ds in items.items()}

    # -- series

    def append_series(self, name: str, step: Any, value: Any) -> None:
        """Append ``(step, value)`` points (scalars or equal-length 1-D arrays) to series ``name``."""
        self._store._require_writable()
        _check_name("series", name)
        steps, values = np.atleast_1d(np.asarray(step)), np.atleast_1d(np.asarray(value))
        if steps.ndim != 1 or steps.shape != values.shape:
            raise ValueError(f"series {name!r}: step and value must be scalars or 1-D arrays of equal length")
        group = self._group.require_group("series")
        if name not in group:
            sg = group.create_group(name)
            for key, arr in (("step", steps), ("value", values)):
                sg.create_dataset(key, shape=(0,), maxshape=(None,), chunks=(4096,), dtype=arr.dtype)
            sg.attrs["n"] = np.int64(0)
        sg = group[name]
        _commit_rows(self._store._file, sg, "n", [(sg["step"], steps), (sg["value"], values)])

    def series(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """The committed ``(step, value)`` arrays of series ``name`` (KeyError if absent)."""
        group = self._group.get("series")
        if group is None or name not in group:
            raise KeyError(f"run {self.id!r} has no series {name!r}")
        sg = group[name]
        n = int(sg.attrs.get("n", 0))
        return sg["step"][:n], sg["value"][:n]

    def series_names(self) -> list[str]:
        """Names of the run's series."""
        group = self._group.get("series")
        return [] if group is None else list(group)

    # -- checkpoint

    def save_checkpoint(self, arrays: dict[str, np.ndarray], meta: dict) -> None:
        """Replace the run's checkpoint as a whole with ``arrays`` and JSON ``meta``.

        The new checkpoint is written beside the old one and renamed over it, so a kill at any moment
        leaves one complete checkpoint (the old or the new).
        """
        self._store._require_writable()
        for name in arrays:
            _check_name("checkpoint array", name)
        meta_json = dumps(meta)
        group = self._group
        if "checkpoint_new" in group:
            del group["checkpoint_new"]
        new = group.create_group("checkpoint_new")
        for name, values in arrays.items():
            arr = _storable(values)
            new.create_dataset(name, data=arr, dtype=_h5_dtype(arr))
        self._flush()
        new.attrs["meta_json"] = meta_json  # written after the arrays are flushed: marks `new` complete
        self._flush()
        if "checkpoint" in group:
            del group["checkpoint"]
        group.move("checkpoint_new", "checkpoint")
        self._flush()

    def _complete_checkpoint(self) -> h5py.Group | None:
        for key in ("checkpoint", "checkpoint_new"):
            grp = self._group.get(key)
            if grp is not None and "meta_json" in grp.attrs:
                return grp
        return None

    def load_checkpoint(self) -> tuple[dict[str, np.ndarray], dict] | None:
        """The last saved checkpoint as ``(arrays, meta)``, or None if there is none."""
        grp = self._complete_checkpoint()
        if grp is None:
            return None
        return {name: _read(ds) for name, ds in grp.items()}, json.loads(_plain(grp.attrs["meta_json"]))

    def has_checkpoint(self) -> bool:
        """Whether a complete checkpoint is stored."""
        return self._complete_checkpoint() is not None

    def drop_checkpoint(self) -> None:
        """Delete the run's checkpoint (once its final result is stored; h5repack reclaims the file space)."""
        self._store._require_writable()
        for key in ("checkpoint", "checkpoint_new"):
            if key in self._group:
                del self._group[key]
        self._flush()

    # -- tables

    def set_table(self, name: str, data: Any, attrs: dict | None = None) -> None:
        """Store one large result array beside the run's items (e.g. a BFS distance table), replacing a table of
        the same name; ``attrs`` become its HDF5 attributes (documenting its encoding)."""
        self._store._require_writable()
        _check_name("table", name)
        group = self._group.require_group("tables")
        if name in group:
            del group[name]
        arr = _storable(data)
        ds = group.create_dataset(name, data=arr, dtype=_h5_dtype(arr))
        for key, value in (attrs or {}).items():
            ds.attrs[key] = value
        self._flush()

    def table(self, name: str) -> np.ndarray:
        """A table stored with :meth:`set_table`."""
        group = self._group.get("tables")
        if group is None or name not in group:
            raise KeyError(f"run {self.id!r} has no table {name!r}")
        return _read(group[name])

    # -- crash recovery (called when the store is opened for writing)

    def _recover(self) -> None:
        group = self._group
        items = group.get("items")
        if items is not None and len(items):
            if self.n_committed == 0:
                # Columns created by a writer killed before its first commit: nothing to keep, and
                # the next writer may choose its columns afresh.
                for name in list(items):
                    del items[name]
            else:
                _truncate(group, "n_committed", list(items.values()))
        for sg in (group["series"].values() if "series" in group else ()):
            _truncate(sg, "n", [sg["step"], sg["value"]])
        if "checkpoint_new" in group:
            if "checkpoint" not in group and "meta_json" in group["checkpoint_new"].attrs:
                group.move("checkpoint_new", "checkpoint")  # killed between deleting the old and renaming
            else:
                del group["checkpoint_new"]
