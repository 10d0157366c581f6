"""One run of a results file: its attributes, instances, item rows, series, checkpoint and tables, each change
one transaction (see :mod:`puzzlebatch.results.store`)."""

from __future__ import annotations

import json
from typing import Any, Protocol

import h5py
import numpy as np

from puzzlebatch import transfers
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.results.h5util import COMPRESSION, appendable, check_compatible, check_name, checksum_attrs, \
    commit_rows, h5_dtype, utc_now, plain, read_rows, one_line_reason, storable, transaction, truncate_rows, dumps


class Store(Protocol):
    """What a run needs of its file (a :class:`puzzlebatch.results.store.ResultsStore`, which imports this module,
    so it is described here rather than imported): its path, and what :func:`~.h5util.transaction` uses."""

    path: Any


STATUSES = ("running", "done", "interrupted", "failed")
_RUN_FIELDS = ("family", "algorithm", "backend", "device", "seed", "params", "status", "n_committed",
               "started", "finished", "seconds", "compile_seconds", "result")


class Run:
    """One run inside a :class:`ResultsStore`; get it from ``create_run``, ``run`` or ``latest_run``."""

    def __init__(self, store: Store, group: h5py.Group) -> None:
        from puzzlebatch.jit.clock import Stopwatch

        self._store = store
        self._group = group
        self.id: str = group.name.rsplit("/", 1)[-1]
        self._watch = Stopwatch()  # this process's share of the run: work and compiling
        self._prior_compile = float(group.attrs.get("compile_seconds", 0.0))  # earlier processes' (resumed runs)
        self._transfers_start = transfers.snapshot()  # this process's share of the device traffic

    def __repr__(self) -> str:
        return f"Run({self.id!r}, n_committed={self.n_committed})"

    @property
    def attrs(self) -> dict[str, Any]:
        """The run's attributes as plain values.

        ``params`` and ``result`` are decoded from ``params_json`` / ``result_json``; attributes not set
        yet (``seed``, ``finished``, ``seconds``, ``result``) are None.
        """
        try:
            raw = {key: plain(value) for key, value in self._group.attrs.items()}
            out: dict[str, Any] = {"id": self.id, **dict.fromkeys(_RUN_FIELDS)}
            out["params"] = json.loads(raw.pop("params_json", "{}"))
            if "result_json" in raw:
                out["result"] = json.loads(raw.pop("result_json"))
            if raw.get("seed") is not None:
                raw["seed"] = int(raw["seed"])
            out.update(raw)
            out["n_committed"] = int(out["n_committed"] or 0)
        except (OSError, RuntimeError, KeyError, ValueError, TypeError) as exc:
            raise PuzzleInputError(f"{self._store.path}: run {self.id} is damaged ({one_line_reason(exc)})") from None
        if not isinstance(out["params"], dict):
            raise PuzzleInputError(f"{self._store.path}: run {self.id} is damaged (params_json is not an object)")
        return out

    @property
    def n_committed(self) -> int:
        """Number of committed item rows."""
        return int(self._group.attrs.get("n_committed", 0))

    def _readable_rows(self, items: h5py.Group) -> int:
        """The committed rows a reader may read: the counter, clamped to the shortest column (a counter past its
        rows is damage, never fill values to show) and to 0."""
        n = max(0, self.n_committed)
        return min(n, *(ds.shape[0] for ds in items.values())) if len(items) else n

    @transaction
    def set_result(self, result: dict) -> None:
        """Store the run's overall result (JSON)."""
        self._group.attrs["result_json"] = dumps(result)

    @transaction
    def set_status(self, status: str) -> None:
        """Set the status: one of ``"running"``, ``"done"``, ``"interrupted"``, ``"failed"``."""
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        self._group.attrs["status"] = status

    @transaction
    def finish(self, status: str = "done", seconds: float | None = None, compile_seconds: float | None = None,
               result: dict | None = None, sort_rows: bool = False) -> None:
        """Mark the run finished now with ``status``, with ``result`` if given, in one transaction (a crash leaves
        the run as it was, or finished with its result).

        ``sort_rows`` puts the committed item rows in a canonical order first, in the same transaction (see
        :meth:`_sort_rows`): rows found in an order that depends on how the work was cut (``--all`` of a count)
        are then stored in the same order by every run of the problem.

        Records ``seconds`` (the work, compiling excluded: the caller's measure, else the time since this process
        opened the run less its compiling) and ``compile_seconds`` (numba compiling, added up over every process
        that worked on the run: 0 when everything came from the disk cache).
        """
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        if sort_rows:
            self._sort_rows()
        if result is not None:
            self._group.attrs["result_json"] = dumps(result)
        self._group.attrs["finished"] = utc_now()
        self._group.attrs["seconds"] = float(self._watch.seconds if seconds is None else seconds)
        if compile_seconds is None:
            compile_seconds = self._prior_compile + self._watch.compile_seconds
        self._group.attrs["compile_seconds"] = round(float(compile_seconds), 3)
        for key, value in transfers.since(self._transfers_start).items():  # h2d_bytes, d2h_bytes, launches
            self._group.attrs[key] = np.int64(int(self._group.attrs.get(key, 0)) + value)
        self._transfers_start = transfers.snapshot()
        self._group.attrs["status"] = status

    def _sort_rows(self) -> None:
        """Rewrite the committed item rows in lexicographic order of their values (the columns in creation order,
        each row's elements in order); the attribute ``row_order`` says ``"sorted"``.

        Rows that would not fit in memory twice over (:data:`puzzlebatch.limits.MEMORY`) keep the order they were
        found in, and ``row_order`` says ``"found"``; so do string columns (none of the counts stores one)."""
        from puzzlebatch.limits import MEMORY

        items = self._group.get("items")
        if items is None or not len(items):
            return
        n = self._readable_rows(items)
        row_bytes = sum(ds.dtype.itemsize * int(np.prod(ds.shape[1:], dtype=np.int64)) for ds in items.values())
        if any(h5py.check_string_dtype(ds.dtype) is not None for ds in items.values()) or \
                3 * n * row_bytes + 8 * n > MEMORY.value:
            self._group.attrs["row_order"] = "found"
            return
        columns = {name: ds[:n] for name, ds in items.items()}
        keys = [col for arr in columns.values() for col in arr.reshape(n, -1).T]
        order = np.lexsort(keys[::-1]) if keys and n > 1 else np.arange(n)
        if np.any(order != np.arange(n)):
            for name, ds in items.items():
                ds[:n] = columns[name][order]
        self._group.attrs["row_order"] = "sorted"

    # -- instances

    @transaction
    def set_instances(self, **arrays: Any) -> None:
        """Store the run's input arrays; each name can be set only once (ValueError otherwise)."""
        self._write_instances(arrays)

    def _write_instances(self, arrays: dict[str, Any]) -> None:
        group = self._group.require_group("instances")
        for name in arrays:
            check_name("instance array", name)
            if name in group:
                raise ValueError(f"run {self.id!r}: instance array {name!r} is already set")
        for name, values in arrays.items():
            arr = storable(values)
            group.create_dataset(name, data=arr, dtype=h5_dtype(arr))

    def instances(self) -> dict[str, np.ndarray]:
        """The input arrays stored with :meth:`set_instances`."""
        group = self._group.get("instances")
        return {} if group is None else {name: read_rows(ds) for name, ds in group.items()}

    # -- items

    @transaction
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
        if not columns:
            raise ValueError("append_items needs at least one column")
        arrays = {}
        for name, values in columns.items():
            check_name("column", name)
            arr = storable(values)
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
                check_compatible(name, items[name], arr)
        else:
            if items is None:
                items = self._group.create_group("items", track_order=True)  # items() in column order
            for name, arr in arrays.items():
                items.create_dataset(name, **appendable(arr))
        if k == 0:
            return

        commit_rows(self._group, "n_committed",
                     [(items[name], arr) for name, arr in arrays.items()], self._store._commit)

    @transaction
    def truncate_items(self, n: int) -> None:
        """Forget every committed row past the first ``n`` (a resumed run rolls back to its checkpoint's rows)."""
        if n < 0 or n > self.n_committed:
            raise ValueError(f"run {self.id!r}: cannot truncate {self.n_committed} rows to {n}")
        if n == self.n_committed:
            return
        self._group.attrs.modify("n_committed", np.int64(n))
        truncate_rows(self._group, "n_committed", list(self._group["items"].values()))

    def items(self) -> dict[str, np.ndarray]:
        """The committed rows of every column (``[:n_committed]``), in column creation order."""
        items = self._group.get("items")
        if items is None:
            return {}
        n = self._readable_rows(items)
        return {name: read_rows(ds, n) for name, ds in items.items()}

    def item_rows(self, start: int = 0, stop: int | None = None) -> dict[str, np.ndarray]:
        """Committed rows ``start:stop`` of every column (clipped to ``n_committed``), read without the rest."""
        items = self._group.get("items")
        if items is None:
            return {}
        n = self._readable_rows(items)
        start = max(0, min(int(start), n))
        stop = n if stop is None else max(start, min(int(stop), n))
        out = {}
        for name, ds in items.items():
            src = ds.asstr() if h5py.check_string_dtype(ds.dtype) is not None else ds
            out[name] = np.asarray(src[start:stop])
        return out

    def column_info(self) -> dict[str, tuple[str, tuple[int, ...]]]:
        """Column name -> (dtype name, shape of one row)."""
        items = self._group.get("items")
        if items is None:
            return {}
        return {name: ("str" if h5py.check_string_dtype(ds.dtype) else str(ds.dtype), tuple(ds.shape[1:]))
                for name, ds in items.items()}

    # -- series

    @transaction
    def append_series(self, name: str, step: Any, value: Any) -> None:
        """Append ``(step, value)`` points (scalars or equal-length 1-D arrays) to series ``name``."""
        check_name("series", name)
        steps, values = np.atleast_1d(np.asarray(step)), np.atleast_1d(np.asarray(value))
        if steps.ndim != 1 or steps.shape != values.shape:
            raise ValueError(f"series {name!r}: step and value must be scalars or 1-D arrays of equal length")
        group = self._group.require_group("series")
        if name not in group:
            sg = group.create_group(name)
            for key, arr in (("step", steps), ("value", values)):
                sg.create_dataset(key, shape=(0,), maxshape=(None,), chunks=(4096,), dtype=arr.dtype, **COMPRESSION)
            sg.attrs["n"] = np.int64(0)
        sg = group[name]
        commit_rows(sg, "n", [(sg["step"], steps), (sg["value"], values)], self._store._commit)

    def series(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """The committed ``(step, value)`` arrays of series ``name`` (KeyError if absent)."""
        group = self._group.get("series")
        if group is None or name not in group:
            raise KeyError(f"run {self.id!r} has no series {name!r}")
        sg = group[name]
        n = int(sg.attrs.get("n", 0))
        return sg["step"][:n], sg["value"][:n]

    def series_length(self, name: str) -> int:
        """How many points series ``name`` has committed (0 if it has none yet)."""
        group = self._group.get("series")
        return 0 if group is None or name not in group else int(group[name].attrs.get("n", 0))

    def series_names(self) -> list[str]:
        """Names of the run's series."""
        group = self._group.get("series")
        return [] if group is None else list(group)

    # -- checkpoint

    @transaction
    def save_checkpoint(self, arrays: dict[str, np.ndarray], meta: dict, series: dict[str, int] | None = None) -> None:
        """Replace the run's checkpoint as a whole with ``arrays`` and JSON ``meta``.

        One transaction: a kill at any moment leaves one complete checkpoint, the old or the new.  Numeric
        arrays carry checksums, so a damaged checkpoint is an error, never a wrong frontier.  :meth:`rewind`
        goes back to the rows and series points stored now, or to the points ``series`` (name -> count) says the
        checkpoint stands for.
        """
        for name in arrays:
            check_name("checkpoint array", name)
        meta_json = dumps(meta)
        group = self._group
        if "checkpoint_new" in group:
            del group["checkpoint_new"]
        new = group.create_group("checkpoint_new")
        for name, values in arrays.items():
            arr = storable(values)
            new.create_dataset(name, data=arr, dtype=h5_dtype(arr), **checksum_attrs(arr))
        # What the run had stored when the checkpoint was taken: rewind() goes back to it.
        new.attrs["n_committed"] = np.int64(self.n_committed)
        lengths = {name: int(sg.attrs.get("n", 0)) for name, sg in group.get("series", {}).items()}
        new.attrs["series_json"] = dumps({name: min(n, (series or {}).get(name, n)) for name, n in lengths.items()})
        new.attrs["meta_json"] = meta_json  # marks `new` complete (files of earlier versions relied on it)
        if "checkpoint" in group:
            del group["checkpoint"]
        group.move("checkpoint_new", "checkpoint")

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
        try:
            meta = json.loads(plain(grp.attrs["meta_json"]))
            arrays = {name: read_rows(ds) for name, ds in grp.items()}
        except (OSError, RuntimeError, KeyError, ValueError, TypeError) as exc:
            raise PuzzleInputError(f"{self._store.path}: run {self.id}: the checkpoint is damaged "
                                   f"({one_line_reason(exc)})") from None
        if not isinstance(meta, dict):
            raise PuzzleInputError(f"{self._store.path}: run {self.id}: the checkpoint is damaged (meta_json)")
        return arrays, meta

    @transaction
    def rewind(self, rows: int | None = None) -> None:
        """Go back to the last checkpoint (or to nothing without one): drop the item rows past ``rows`` (default:
        those committed when the checkpoint was saved) and the series points saved after it, so that a resumed
        run stores them again exactly once."""
        grp = self._complete_checkpoint()
        if rows is None:
            rows = 0 if grp is None else int(grp.attrs.get("n_committed", self.n_committed))
        if self.n_committed > rows:
            self._group.attrs.modify("n_committed", np.int64(rows))
            truncate_rows(self._group, "n_committed", list(self._group["items"].values()))
        kept = {} if grp is None else json.loads(plain(grp.attrs.get("series_json", "null")) or "null")
        if kept is None:
            return  # a checkpoint of an earlier version: series left as they are
        for name, sg in self._group.get("series", {}).items():
            n = int(kept.get(name, 0))
            if int(sg.attrs.get("n", 0)) > n:
                sg.attrs.modify("n", np.int64(n))
                truncate_rows(sg, "n", [sg["step"], sg["value"]])

    def has_checkpoint(self) -> bool:
        """Whether a complete checkpoint is stored."""
        return self._complete_checkpoint() is not None

    @transaction
    def drop_checkpoint(self) -> None:
        """Delete the run's checkpoint (once its final result is stored; h5repack reclaims the file space)."""
        for key in ("checkpoint", "checkpoint_new"):
            if key in self._group:
                del self._group[key]

    # -- tables

    @transaction
    def set_table(self, name: str, data: Any, attrs: dict | None = None) -> None:
        """Store one large result array beside the run's items (e.g. a BFS distance table), replacing a table of
        the same name; ``attrs`` become its HDF5 attributes (documenting its encoding)."""
        check_name("table", name)
        group = self._group.require_group("tables")
        if name in group:
            del group[name]
        arr = storable(data)
        ds = group.create_dataset(name, data=arr, dtype=h5_dtype(arr))
        for key, value in (attrs or {}).items():
            ds.attrs[key] = value

    def table(self, name: str) -> np.ndarray:
        """A table stored with :meth:`set_table`."""
        group = self._group.get("tables")
        if group is None or name not in group:
            raise KeyError(f"run {self.id!r} has no table {name!r}")
        return read_rows(group[name])

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
                truncate_rows(group, "n_committed", list(items.values()))
        for sg in (group["series"].values() if "series" in group else ()):
            truncate_rows(sg, "n", [sg["step"], sg["value"]])
        if "checkpoint_new" in group:
            if "checkpoint" not in group and "meta_json" in group["checkpoint_new"].attrs:
                group.move("checkpoint_new", "checkpoint")  # killed between deleting the old and renaming
            else:
                del group["checkpoint_new"]
