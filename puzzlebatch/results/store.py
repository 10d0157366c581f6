"""HDF5 results store: one file, many runs, crash-safe batched appends (ARCHITECTURE.md, "Results store and the
web app").

Layout::

    <name>.h5        attrs: schema, schema_version, creator_version, created
    /runs/<run_id>/  attrs: family, algorithm, backend, device, seed, params_json, status,
                            n_committed, started, finished, seconds, compile_seconds, result_json,
                            h2d_bytes, d2h_bytes, launches (device traffic, added up over the processes)
        instances/   input arrays, written once
        items/       per-item results, one extendable dataset per column, all the same length
        series/<name>/ step, value, attr n   (progress over time)
        checkpoint/  arrays + attr meta_json, replaced as a whole

Every change (a run created, rows appended, a checkpoint or a result saved, a status set) is one transaction:
the writer's HDF5 I/O goes through a rollback journal (:mod:`puzzlebatch.results.journal`) and each method ends
with a commit (HDF5 flush, ``fsync``).  A writer killed at any write, or a power cut, leaves the file as of its
last commit; the next writer rolls back the unfinished transaction (and says so on stderr), readers read through
the journal.  Appended rows follow the counter protocol: the rows are committed, then the counter in a commit of
its own, so a reader polling the file without a lock never sees a counter ahead of its rows; readers trust
``[:n_committed]`` (clamped to the columns' length), so files written by earlier versions keep their guarantees too.
Opening checks the file's structure (:func:`check_structure`): links out of the file and virtual datasets are
refused.

New files use HDF5's 1.8 format or later (``libver=("v108", "latest")``): checksummed metadata, so a damaged file
is reported instead of misread; numeric item columns and checkpoint arrays carry Fletcher-32 checksums.  Item
columns and series are compressed (zlib after a byte shuffle, filters every HDF5 build reads), so a run of a few
rows takes a few kilobytes, not a whole preallocated chunk a column.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from puzzlebatch import __version__
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.results import journal
from puzzlebatch.results.h5util import check_name, encode_seed, utc_now, plain, one_line_reason, sigint_deferred, \
    transaction, dumps
from puzzlebatch.results.run import STATUSES, Run

__all__ = ["ResultsStore", "Run", "STATUSES", "SCHEMA", "SCHEMA_VERSION", "dumps", "say"]

SCHEMA = "puzzlebatch-results"
SCHEMA_VERSION = 1
_MODES = ("r", "r+", "a", "w", "w-", "x")
_LIBVER = ("v108", "latest")  # checksummed metadata; superblock v2 (no "open for write" flag to clear after a kill)


def say(message: str) -> None:
    """Where the store reports what it repaired (one line on stderr; tests may replace it)."""
    print(f"puzzlebatch: {message}", file=sys.stderr)


# ----------------------------------------------------------------------------- structure

def check_structure(f: h5py.File, path: Any) -> None:
    """Refuse a results file that is not shaped as this module writes it, before anything is read from it.

    Only hard links to objects inside the file are followed: an external link, a soft link or a virtual dataset
    (which read other files, possibly outside the folder a server serves) is refused, as are ``/runs`` not a group
    and a negative row counter.  One line naming the file and the object (:class:`PuzzleInputError`)."""
    def refuse(where: str, what: str) -> None:
        raise PuzzleInputError(f"{path}: damaged results file ({where}: {what})")

    runs_link = f.get("runs", getlink=True)
    if runs_link is None:
        return
    if not isinstance(runs_link, h5py.HardLink):
        refuse("/runs", f"a {_link_kind(runs_link)}, not a group; links are not followed")
    if not isinstance(f["runs"], h5py.Group):
        refuse("/runs", "a dataset, not a group")

    def visit(name: str, link) -> tuple[str, str] | None:  # a value stops the visit (raising inside it cannot)
        where = f"/runs/{name}"
        if not isinstance(link, h5py.HardLink):
            return where, f"a {_link_kind(link)}; links are not followed"
        obj = f["runs"][name]
        if isinstance(obj, h5py.Dataset) and obj.is_virtual:
            return where, "a virtual dataset; it reads other files"
        if isinstance(obj, h5py.Group):
            for key in ("n_committed", "n"):
                if key in obj.attrs:
                    try:
                        value = int(np.asarray(obj.attrs[key]).reshape(-1)[0])
                    except (TypeError, ValueError, IndexError, OSError):
                        return where, f"{key} is not a whole number"
                    if value < 0:
                        return where, f"{key} is negative ({value})"
        return None

    found = f["runs"].visititems_links(visit)
    if found is not None:
        refuse(*found)


def _link_kind(link) -> str:
    return {h5py.ExternalLink: "external link", h5py.SoftLink: "soft link"}.get(type(link), "link")


# ----------------------------------------------------------------------------- store

class StoreBusyError(PuzzleInputError):
    """Another process has the results file open for writing."""


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
        self._io: journal.JournaledFile | None = None
        self._file = None
        if self.path.is_dir():
            raise PuzzleInputError(f"{self.path}: is a directory, not a results file")
        exists = self.path.exists()
        if not exists and mode in ("r", "r+"):
            raise PuzzleInputError(f"{self.path}: no such results file")
        if exists and mode in ("w-", "x"):
            raise PuzzleInputError(f"{self.path}: results file already exists")
        if self.writable and not self.path.parent.is_dir():
            raise PuzzleInputError(f"{self.path}: directory {self.path.parent} does not exist")
        self._created = self.writable and not exists  # a new file that never gets a commit is removed on closing
        try:
            self._file = self._open_writer() if self.writable else self._open_reader()
        except OSError as exc:
            raise PuzzleInputError(f"{self.path}: cannot open results file ({one_line_reason(exc)})") from None
        try:
            self._init_or_check()
            if self.writable:
                self._recover()
        except BaseException as exc:
            failed = self._io.failed if self._io is not None else None
            self.close()
            if failed is not None:
                raise PuzzleInputError(f"{self.path}: cannot write ({one_line_reason(failed)}); the file keeps its "
                                       "last commit") from None
            if isinstance(exc, (OSError, RuntimeError, KeyError)):
                raise PuzzleInputError(f"{self.path}: damaged results file ({one_line_reason(exc)})") from None
            raise

    def _open_writer(self) -> h5py.File:
        try:
            fd = journal.open_locked(self.path)
        except BlockingIOError:
            raise StoreBusyError(f"{self.path}: cannot open results file (another process has it open for "
                                 "writing)") from None
        try:
            if journal.rollback(self.path):
                say(f"{self.path}: rolled back a write interrupted by a crash; every run is as of its last commit")
            if self.mode == "w":
                os.ftruncate(fd, 0)
            size = os.fstat(fd).st_size
            if size and not h5py.is_hdf5(self.path):
                raise PuzzleInputError(f"{self.path}: not an HDF5 file")
            self._io = journal.JournaledFile(self.path, fd)
        except BaseException:
            os.close(fd)
            raise
        try:
            return h5py.File(self._io, "r+" if size else "w", libver=_LIBVER)
        except BaseException:
            self._io.close()
            self._io = None
            raise

    def _open_reader(self) -> h5py.File:
        overlay = journal.overlay_if_hot(self.path)  # a writer was killed mid-commit: read its last commit
        if overlay is None and self.path.exists() and not self.path.is_dir() and not self.path.is_file():
            raise PuzzleInputError(f"{self.path}: not a results file (a device or a pipe, not a regular file)")
        if (overlay.size if overlay is not None else self.path.stat().st_size) == 0:
            if overlay is not None:
                overlay.close()
            raise PuzzleInputError(f"{self.path}: empty results file (its writer stopped before the first commit)")
        if overlay is None and not h5py.is_hdf5(self.path):
            raise PuzzleInputError(f"{self.path}: not an HDF5 file")
        # A reader of a file being written may catch it during a commit ("truncated file"): retry.
        for attempt in range(3):
            try:
                if overlay is not None:
                    return h5py.File(overlay, "r")
                return h5py.File(self.path, "r", locking=False)
            except OSError:
                if attempt == 2:
                    if overlay is not None:
                        overlay.close()
                    raise
                time.sleep(0.05)
        raise AssertionError("unreachable")

    def _commit(self) -> None:
        """End the current transaction: flush HDF5's buffers through the journal and make them durable."""
        self._file.flush()
        self._io.commit()

    def _init_or_check(self) -> None:
        f = self._file
        # An empty HDF5 file is treated as new (a writer killed right after creating it).
        if self.writable and len(f.attrs) == 0 and len(f) == 0:
            f.attrs["schema"] = SCHEMA
            f.attrs["schema_version"] = np.int64(SCHEMA_VERSION)
            f.attrs["creator_version"] = __version__
            f.attrs["created"] = utc_now()
            f.create_group("runs", track_order=True)  # track_order: run_ids() in creation order
            self._commit()
            return
        schema = plain(f.attrs.get("schema"))
        if schema != SCHEMA:
            raise PuzzleInputError(f"{self.path}: not a puzzlebatch results file (schema attribute {schema!r})")
        version = plain(f.attrs.get("schema_version"))
        if not isinstance(version, int) or version > SCHEMA_VERSION:
            raise PuzzleInputError(f"{self.path}: schema_version {version!r} is newer than this puzzlebatch "
                                   f"supports ({SCHEMA_VERSION}); upgrade puzzlebatch")
        check_structure(f, self.path)
        if self.writable and "runs" not in f:
            f.create_group("runs", track_order=True)
            self._commit()

    def _recover(self) -> None:
        """Cut every run to its committed rows (files written before transactions, or by a killed old writer).

        A run whose metadata is damaged is reported once and left as it is; the other runs are recovered."""
        self.damaged: dict[str, str] = {}
        for run_id in self.run_ids():
            try:
                self.run(run_id)._recover()
            except (OSError, RuntimeError, KeyError, ValueError) as exc:
                if self._io is not None and self._io.failed is not None:
                    raise
                self.damaged[run_id] = one_line_reason(exc)
                say(f"{self.path}: run {run_id} is damaged ({one_line_reason(exc)}); left as it is")
        self._commit()

    # -- runs

    @property
    def attrs(self) -> dict[str, Any]:
        """The file's attributes (schema, schema_version, creator_version, created) as plain values."""
        return {key: plain(value) for key, value in self._file.attrs.items()}

    @transaction
    def create_run(self, family: str, algorithm: str, *, backend: str, device: str, seed: int | None,
                   params: dict, run_id: str | None = None, instances: dict[str, Any] | None = None) -> Run:
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
        instances : dict, optional
            The run's input arrays (as :meth:`Run.set_instances`), stored in the same transaction: a run never
            exists without them.

        Raises
        ------
        ValueError
            The store is read-only, or the run id exists already or contains ``/``.
        """
        runs = self._file["runs"]
        if run_id is None:
            n = len(runs)
            while f"{family}-{algorithm}-{n:04d}" in runs:
                n += 1
            run_id = f"{family}-{algorithm}-{n:04d}"
        check_name("run", run_id)
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
            attrs["seed"] = encode_seed(seed)
        attrs["params_json"] = params_json
        attrs["status"] = "running"
        attrs["n_committed"] = np.int64(0)
        attrs["started"] = utc_now()
        run = Run(self, group)
        if instances:
            run._write_instances(instances)
        return run

    def run(self, run_id: str) -> Run:
        """The run named ``run_id``; PuzzleInputError if there is none."""
        runs = self._file.get("runs")
        if runs is None or run_id not in runs:
            raise PuzzleInputError(f"{self.path}: no run named {run_id!r}")
        try:
            return Run(self, runs[run_id])
        except (OSError, RuntimeError, KeyError, ValueError) as exc:
            raise PuzzleInputError(f"{self.path}: run {run_id} is damaged ({one_line_reason(exc)})") from None

    def run_ids(self) -> list[str]:
        """Run ids in creation order."""
        runs = self._file.get("runs")
        return [] if runs is None else list(runs)

    def latest_run(self, family: str | None = None, algorithm: str | None = None,
                   status: str | Collection[str] | None = None, *, unfinished: bool = False,
                   where: Callable[[dict], bool] | None = None,
                   on_damaged: Callable[[str], None] | None = None) -> Run | None:
        """The most recently created run matching every given filter, or None.

        ``status`` may be one status or a collection of them (e.g. ``("running", "interrupted")``);
        ``unfinished`` keeps the runs not ``done`` (what ``--resume`` continues); ``where(attrs)`` is any further
        test on the run's attributes (``attrs["params"]``, ``attrs["seed"]``...).  A run that cannot be read
        raises, unless ``on_damaged`` is given: then it gets the one-line reason and the run is skipped.
        """
        statuses = {status} if isinstance(status, str) else None if status is None else set(status)
        for run_id in reversed(self.run_ids()):
            try:
                run = self.run(run_id)
                attrs = run.attrs if where is not None else run._group.attrs
            except PuzzleInputError as exc:
                if on_damaged is None:
                    raise
                on_damaged(str(exc))
                continue
            if family is not None and plain(attrs.get("family")) != family:
                continue
            if algorithm is not None and plain(attrs.get("algorithm")) != algorithm:
                continue
            state = plain(attrs.get("status"))
            if statuses is not None and state not in statuses or unfinished and state == "done":
                continue
            if where is not None and not where(attrs):
                continue
            return run
        return None

    # -- file handling

    def flush(self) -> None:
        """Commit whatever is pending (every mutating method already commits)."""
        if self.writable:
            self._commit()

    def close(self) -> None:
        """Close the file (idempotent).  A writer's last bytes (HDF5's own bookkeeping) are one more commit."""
        with sigint_deferred():
            self._close()

    def _close(self) -> None:
        try:
            if self._file is not None and self._file.id.valid:
                self._file.close()
            if self._io is not None and self._io.failed is None:
                self._io.commit()
        except (OSError, RuntimeError):
            pass  # the file stays as of its last commit; the next writer rolls the rest back
        finally:
            if self._io is not None:
                self._io.close()
                self._io = None
            self._remove_if_never_committed()
        journal.check_crash()

    def _remove_if_never_committed(self) -> None:
        """A file this store created that holds no commit (a full disk at the first write): nothing is left."""
        if not getattr(self, "_created", False) or journal.faults.frozen:  # a simulated kill leaves what a kill does
            return
        with contextlib.suppress(OSError):
            if self.path.stat().st_size == 0:
                self.path.unlink()
                journal.journal_path(self.path).unlink(missing_ok=True)
        self._created = False

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResultsStore({str(self.path)!r}, mode={self.mode!r})"

    def _require_writable(self) -> None:
        if not self.writable:
            raise ValueError(f"{self.path}: results store is open read-only")
