"""Additive disjoint pattern databases (Korf & Felner 2002): built by batched 0-1 BFS, stored in HDF5, reused.

A pattern is a set of tiles; its database gives, for every placement of those tiles (the others and the blank
unseen), the fewest moves *of pattern tiles* that bring them home.  Moves of other tiles cost nothing, so the
values of disjoint patterns add up to an admissible heuristic.  The build is a breadth-first search over
``(placement, blank region)``: the blank's free moves through empty cells are folded into its region (named by
its smallest cell), so every edge left costs one and plain BFS layers are exact.

Each pattern's table is one HDF5 file in the cache folder (:func:`cache_dir`: ``--cache-dir`` on the command line,
or the puzzlebatch cache folder, ``$PUZZLEBATCH_CACHE_DIR``): dataset ``distances`` (uint8, contiguous, so it is
memory-mapped on load) with the board size, the tiles, the goal (``blank-first``) and the partitions it was built
for in attributes.  An interrupted build leaves ``<name>.partial.h5`` (checkpointed between layers) and resumes from it.

Long because a database's whole life is here, each step reading the one before's files: the partitions and their
checks, the estimate a build gives before it starts, the resumable build, the 4-bit form written from the byte
tables, and the loading that hands the kernels one table.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.sliding import rules
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.xp import mark_new_bits, namespace_for, to_host

# Partitions of the tiles for the blank-first goal (tile t's home is cell t).  Ours, in the spirit of Korf &
# Felner's figures: compact blocks of neighbouring home cells.
PARTITIONS: dict[tuple[int, int], dict[str, list[tuple[int, ...]]]] = {
    (3, 3): {"4-4": [(1, 2, 3, 4), (5, 6, 7, 8)]},
    (4, 4): {
        "5-5-5": [(1, 2, 3, 5, 6), (4, 8, 9, 12, 13), (7, 10, 11, 14, 15)],
        "6-6-3": [(1, 4, 5, 8, 9, 12), (2, 3, 6, 7, 10, 11), (13, 14, 15)],
        "7-8": [(1, 2, 3, 4, 5, 6, 7), (8, 9, 10, 11, 12, 13, 14, 15)],
    },
    (5, 5): {"6-6-6-6": [(1, 2, 5, 6, 10, 11), (3, 4, 7, 8, 9, 12), (13, 14, 18, 19, 23, 24),
                         (15, 16, 17, 20, 21, 22)],
             # smaller tables (6.4 M entries each) that build in minutes on a small CPU machine
             "5-5-5-5-4": [(1, 2, 5, 6, 10), (3, 4, 7, 8, 9), (11, 12, 15, 16, 20), (13, 14, 17, 18, 19),
                           (21, 22, 23, 24)]},
}
DEFAULT_PARTITION = {(3, 3): "4-4", (4, 4): "6-6-3", (5, 5): "6-6-6-6"}


OLD_CACHE_ENV = "PUZZLEBATCH_CACHE"  # deprecated name of the databases' folder: $PUZZLEBATCH_CACHE_DIR replaces it
_old_env_noted: list[bool] = []


def cache_dir(override: str | os.PathLike | None = None) -> Path:
    """``--cache-dir``, else the puzzlebatch cache folder (``$PUZZLEBATCH_CACHE_DIR`` or the user's cache folder:
    :func:`puzzlebatch.jit.cache.cache_root`), the compiled code's too.

    The deprecated ``$PUZZLEBATCH_CACHE`` (the databases' folder alone) is still obeyed when
    ``$PUZZLEBATCH_CACHE_DIR`` is not set, with a one-line note on stderr (once a process)."""
    from puzzlebatch.jit.cache import ENV_CACHE_DIR, cache_root

    if override:
        return Path(override).expanduser()
    old = os.environ.get(OLD_CACHE_ENV)
    if old and not os.environ.get(ENV_CACHE_DIR):
        if not _old_env_noted:
            _old_env_noted.append(True)
            print(f"note: ${OLD_CACHE_ENV} is deprecated; set ${ENV_CACHE_DIR} (the puzzlebatch cache folder, "
                  "pattern databases included) instead", file=sys.stderr)
        return Path(old).expanduser()
    return cache_root()


def pattern_file(rows: int, cols: int, tiles, folder: Path) -> Path:
    return folder / f"sliding-pdb-{rows}x{cols}-{'_'.join(map(str, tiles))}.h5"


def n_entries(n: int, k: int) -> int:
    return math.perm(n, k)


def partition(rows: int, cols: int, name: str | None) -> tuple[str, list[tuple[int, ...]]]:
    known = PARTITIONS.get((rows, cols), {})
    if name is None:
        name = DEFAULT_PARTITION.get((rows, cols))
    if name not in known:
        have = ", ".join(known) or "none"
        raise PuzzleInputError(f"partition {name!r}: not defined for {rows}x{cols} (defined: {have})")
    pats = known[name]
    tiles = sorted(t for p in pats for t in p)
    if tiles != list(range(1, rows * cols)):  # additive (disjoint), and h = 0 only on the goal (complete)
        raise PuzzleInputError(f"partition {name!r} for {rows}x{cols}: its patterns must hold every tile 1 to "
                               f"{rows * cols - 1} exactly once")
    return name, pats


# -- estimates ---------------------------------------------------------------------------------------------------

# Build time goes with the entries: measured on the shared 2-core Xeon of bench/RESULTS.md, the 5x5's 6-6-6-6
# took 881 s for 510 M entries (1.73 us an entry) and the 4x4's 7-8 1,177 s for 577 M (2.04 us); the states the
# BFS visits (entries x blank cells) fit worse (0.091 against 0.25 us a state).
SECONDS_PER_ENTRY = 1.9e-6
SECONDS_PER_PACKED_ENTRY = 1.3e-7  # writing the 4-bit form: 73 s for the 7-8's 577 M entries, same machine
#: a solve that would build more than this (estimated seconds) or this many bytes of tables asks for ``--build``
ASK_BUILD_SECONDS = 600.0
ASK_BUILD_BYTES = 256 << 20
PACKED_CELLS = 25  #: boards of this many cells or more read their tables in 4 bits an entry (:func:`load`)
#: and so do partitions of more entries than this on smaller boards: tables far beyond the caches, where the 4-bit
#: file is mapped as it is (the byte tables would be copied into one array on every load: 0.16 s for the 4x4's
#: 7-8, a third of Korf's 100) and the decode costs less than the bytes it saves
PACKED_ENTRIES = 1 << 26


def packs(rows: int, cols: int, patterns) -> bool:
    """Whether :func:`load` reads ``patterns``' tables in their 4-bit form by default (:data:`PACKED_CELLS`,
    :data:`PACKED_ENTRIES`)."""
    n = rows * cols
    return n >= PACKED_CELLS or sum(n_entries(n, len(p)) for p in patterns) > PACKED_ENTRIES


@dataclass(frozen=True)
class BuildEstimate:
    """What building some patterns' tables costs, estimated before anything is built."""

    tables: int
    entries: int
    disk_bytes: int  # one byte an entry
    memory_bytes: int  # the largest table's build: its distances, its visited bits, a frontier of a tenth of it
    seconds: float

    @property
    def large(self) -> bool:
        """Too large to build unasked in the middle of a solve."""
        return self.seconds > ASK_BUILD_SECONDS or self.disk_bytes > ASK_BUILD_BYTES

    def text(self) -> str:
        def _size(n: float) -> str:
            return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.1f} MiB" if n >= 2**20 else \
                f"{n / 1024:.1f} KiB"

        t = self.seconds
        when = f"{t:.0f} s" if t < 120 else f"{t / 60:.0f} min" if t < 7200 else f"{t / 3600:.1f} h"
        return (f"{self.tables} table{'s' if self.tables != 1 else ''}, {self.entries:,} entries, "
                f"{_size(self.disk_bytes)} on disk, about {_size(self.memory_bytes)} of memory and {when} "
                "to build on 2 cores")


def estimate(rows: int, cols: int, patterns) -> BuildEstimate:
    """The cost of building ``patterns``' tables on a ``rows`` x ``cols`` board."""
    n = rows * cols
    sizes = [n_entries(n, len(p)) for p in patterns]
    peak = max(sizes, default=0)
    disk = sum(sizes) + (sum(sizes) + 1) // 2 if packs(rows, cols, patterns) else sum(sizes)  # + the 4-bit file
    return BuildEstimate(len(sizes), sum(sizes), disk, peak + (peak * n + 7) // 8 + peak * n * 8 // 10,
                         sum(sizes) * SECONDS_PER_ENTRY)


# -- build -------------------------------------------------------------------------------------------------------

def _goal_code(tiles, rows: int, cols: int) -> int:
    n = rows * cols
    pos = np.array(tiles, dtype=np.int64)  # tile t at home cell t
    tiles_mask = sum(1 << int(c) for c in pos)
    not_first, not_last = rules.column_masks(rows, cols)
    region = rules.region_of(1, ((1 << n) - 1) & ~tiles_mask, cols, not_first, not_last)  # the blank on cell 0
    return int(rules.pattern_rank(pos, len(tiles), n)) * n + int(rules.lowest_cell(region))


def build_pattern(rows: int, cols: int, tiles, backend: Backend, folder: Path, *, partition_name: str = "",
                  chunk: int = 1 << 17, checkpoint_every: float = 60.0, progress=None,
                  max_layers: int | None = None) -> Path:
    """Build (or finish building) one pattern's database; returns its file.

    Ctrl-C goes through (``KeyboardInterrupt``); the build resumes from its last checkpoint, saved between layers
    every ``checkpoint_every`` seconds (and after each layer with ``max_layers``).
    """
    from puzzlebatch.runners.sliding.solver import drivers
    from puzzlebatch.transfers import transfers_of

    n, k = rows * cols, len(tiles)
    size = n_entries(n, k)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PuzzleInputError(f"--cache-dir {folder}: cannot create ({exc.strerror})") from None
    final = pattern_file(rows, cols, tiles, folder)
    partial = final.with_suffix(".partial.h5")
    if partial.exists():
        with h5py.File(partial, "r") as f:
            dist = f["dist"][...]
            visited = f["visited"][...]
            frontier = f["frontier"][...]
            depth = int(f.attrs["depth"])
            seconds = float(f.attrs["seconds"])
            counts = list(f["layer_counts"][...])
    else:
        dist = np.full(size, 255, np.uint8)
        visited = np.zeros((size * n + 7) // 8, np.uint8)
        code = _goal_code(tiles, rows, cols)
        visited[code >> 3] |= np.uint8(1 << (code & 7))
        dist[code // n] = 0
        frontier = np.array([code], np.int64)
        depth, seconds, counts = 0, 0.0, [1]
    d = drivers(backend)
    xp = namespace_for(backend)
    if xp is not np:  # the tables and the frontier stay on the device for the whole build
        dist, visited, frontier = xp.asarray(dist), xp.asarray(visited), xp.asarray(frontier)
        d.transfers.h2d(dist.nbytes + visited.nbytes + frontier.nbytes)
    last_ck = time.perf_counter()
    layers = 0
    while len(frontier) and (max_layers is None or layers < max_layers):
        t0 = work_clock()
        parts = []
        for lo in range(0, len(frontier), chunk):
            codes = frontier[lo:lo + chunk]
            if backend.kind == "cpu":  # the serial host step: faster than sorting on a CPU (bench/RESULTS.md)
                out = np.empty((len(codes), 4 * k), np.int64)
                d.pdb_expand_batch(codes, k, rows, cols, out)
                buf = np.empty(out.size, np.int64)
                m = d.pdb_mark(out, visited, dist, n, depth + 1, buf)
                parts.append(buf[:m].copy())
            else:
                cxp, children = d.pdb_children(codes, k, rows, cols)
                parts.append(mark_new_bits(cxp, children, visited, dist, n, depth + 1))
        frontier = xp.concatenate(parts) if parts else xp.empty(0, np.int64)
        depth += 1
        layers += 1
        counts.append(int(len(frontier)))
        seconds += work_clock() - t0
        if progress is not None:
            progress(depth, len(frontier), seconds)
        if len(frontier) and (time.perf_counter() - last_ck >= checkpoint_every or max_layers is not None):
            _checkpoint(partial, to_host(dist), to_host(visited), to_host(frontier), depth, seconds, counts)
            if xp is not np:
                d.transfers.d2h(dist.nbytes + visited.nbytes + frontier.nbytes)
            last_ck = time.perf_counter()
    if xp is not np:
        dist, frontier = to_host(dist), to_host(frontier)
        d.transfers.d2h(dist.nbytes + frontier.nbytes)
    traffic = transfers_of(d)  # this process's share of the build (a resumed build: since resuming)
    if len(frontier):
        return partial  # stopped early by max_layers (tests, resumable)
    if (dist == 255).any():
        raise AssertionError(f"pattern {tiles}: {(dist == 255).sum()} placements never reached")
    tmp = final.with_suffix(".tmp.h5")
    with _writing(tmp), h5py.File(tmp, "w") as f:
        ds = f.create_dataset("distances", data=dist)  # contiguous: memory-mappable
        a = f.attrs
        a["schema"] = "puzzlebatch-sliding-pdb"
        a["rows"], a["cols"] = rows, cols
        a["tiles"] = np.array(tiles, np.int64)
        a["goal"] = "blank-first"
        a["partitions"] = partition_name
        a["rank"] = "falling factorial of the tiles' cells, tiles in the listed order"
        a["build_seconds"] = seconds
        a["build_backend"] = backend.name
        for key, value in traffic.items():  # h2d_bytes, d2h_bytes, launches
            a[f"build_{key}"] = int(value)
        a["abstract_states"] = int(sum(counts))
        a["max_value"] = int(dist.max())
        a["mean_value"] = float(dist.mean())
        del ds
    _durable_replace(tmp, final)
    if partial.exists():
        partial.unlink()
    return final


def _checkpoint(path: Path, dist, visited, frontier, depth, seconds, counts) -> None:
    tmp = path.with_suffix(".ck.h5")
    with _writing(tmp), h5py.File(tmp, "w") as f:
        f.create_dataset("dist", data=dist)
        f.create_dataset("visited", data=visited)
        f.create_dataset("frontier", data=frontier)
        f.create_dataset("layer_counts", data=np.array(counts, np.int64))
        f.attrs["depth"] = depth
        f.attrs["seconds"] = seconds
    _durable_replace(tmp, path)  # atomic: a kill or a power cut leaves the old checkpoint or the new one


@contextlib.contextmanager
def _writing(tmp: Path):
    """Write ``tmp`` (renamed over its target afterwards): an I/O error is one line, and ``tmp`` is removed."""
    try:
        yield
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise PuzzleInputError(f"{tmp.parent}: cannot write a pattern database ({exc.strerror or exc})") from None


def _durable_replace(tmp: Path, target: Path) -> None:
    """``os.replace`` once ``tmp`` is on disk (fsync), so a power cut leaves the old file or the new one."""
    try:
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise PuzzleInputError(f"{target}: cannot write ({exc.strerror or exc})") from None


# -- load --------------------------------------------------------------------------------------------------------

def check_table(path: Path, rows: int, cols: int, tiles) -> None:
    """Refuse a table that is not this pattern's (a stale or foreign file would make the heuristic wrong)."""
    with h5py.File(path, "r") as f:
        a = f.attrs
        ok = (a.get("schema") == "puzzlebatch-sliding-pdb" and int(a.get("rows", -1)) == rows
              and int(a.get("cols", -1)) == cols and list(np.asarray(a.get("tiles", []))) == list(tiles)
              and a.get("goal") == "blank-first" and "distances" in f
              and f["distances"].shape == (n_entries(rows * cols, len(tiles)),))
    if not ok:
        raise PuzzleInputError(f"{path}: not the pattern database of tiles {list(tiles)} on {rows}x{cols} "
                               "(delete it to rebuild)")


def load_table(path: Path, dataset: str = "distances") -> np.ndarray:
    """The table memory-mapped read-only (contiguous dataset), or read into memory when that is impossible."""
    with h5py.File(path, "r") as f:
        ds = f[dataset]
        offset = ds.id.get_offset()
        shape, dtype = ds.shape, ds.dtype
        if offset is None or ds.chunks is not None or ds.compression is not None:
            return ds[...]
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape)


def packed_file(rows: int, cols: int, name: str, folder: Path) -> Path:
    """The 4-bit form of a partition's tables: one file, the tables one after the other (made from the byte
    tables on first use, kept beside them, memory-mapped as the kernels' table: nothing copied on loading)."""
    return folder / f"sliding-pdb-{rows}x{cols}-{name}.4bit.h5"


def pack_table(table: np.ndarray, rows: int, cols: int, tiles) -> np.ndarray:
    """A pattern's table in 4 bits an entry (:func:`puzzlebatch.puzzles.sliding.rules.pdb_value`'s packed
    format: the value less the tiles' Manhattan distance, halved, at most 15), half the bytes, compiled, both
    cores."""
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.sliding.solver import drivers

    out = np.empty((len(table) + 1) // 2, np.uint8)
    drivers(select_backend("cpu")).pdb_pack(np.asarray(table), len(tiles), rows * cols, cols,
                                            np.array(tiles, np.int64), out)
    return out


def _pack_key(files, pats) -> str:
    return ";".join(f"{','.join(map(str, p))}@{f.stat().st_mtime_ns}" for f, p in zip(files, pats))


def ensure_packed(rows: int, cols: int, name: str, pats, files, folder: Path, *, say=None) -> Path:
    """The partition's 4-bit file, written once (atomically) from its byte tables ``files``, again when one of
    them changed (after saying so through ``say``); returns its path."""
    target = packed_file(rows, cols, name, folder)
    key = _pack_key(files, pats)
    if target.exists():
        with h5py.File(target, "r") as f:
            a = f.attrs
            if a.get("schema") == "puzzlebatch-sliding-pdb-4bit" and a.get("sources") == key:
                return target
    if say is not None:
        entries = sum(n_entries(rows * cols, len(p)) for p in pats)
        say(f"writing the 4-bit form of pattern databases {name} {rows}x{cols} ({entries:,} entries, "
            f"{(entries + 1) // 2 / 2**20:.0f} MiB, about {entries * SECONDS_PER_PACKED_ENTRY:.0f} s) in {folder}; "
            "it is written once and reused")
    t0 = work_clock()
    parts = [pack_table(load_table(f), rows, cols, p) for f, p in zip(files, pats)]
    tmp = target.with_suffix(".tmp.h5")
    with _writing(tmp), h5py.File(tmp, "w") as f:
        f.create_dataset("packed", data=np.concatenate(parts))  # contiguous: memory-mappable
        a = f.attrs
        a["schema"] = "puzzlebatch-sliding-pdb-4bit"
        a["rows"], a["cols"] = rows, cols
        a["bytes"] = np.array([len(x) for x in parts], np.int64)  # table i: 2 * bytes entries (the last may pad)
        a["sources"] = key
        a["format"] = ("tables one after the other; entry e of a table: nibble e&1 of its byte e>>1 (low first); "
                       "value = the tiles' Manhattan distance + 2 * nibble")
        a["pack_seconds"] = work_clock() - t0
    _durable_replace(tmp, target)
    return target


@dataclass
class PatternDatabases:
    """A partition's tables, ready for the IDA* kernels."""

    rows: int
    cols: int
    name: str
    patterns: list[tuple[int, ...]]
    tables: list[np.ndarray]
    files: list[Path]
    load_seconds: float
    compress: int = 0  # the kernels read entry rank >> compress: the least of 2**compress entries (admissible)
    packed: bool = False  # 4-bit entries (tables: the packed bytes, two entries each)

    def compressed(self, shift: int) -> "PatternDatabases":
        """The same databases read through tables ``2**shift`` times smaller, each entry the least of the
        ``2**shift`` it replaces (Felner et al.'s compression by minimum): fewer cache misses, somewhat weaker."""
        if not 0 <= int(shift) <= 4:
            raise PuzzleInputError(f"compression {shift}: expected 0 to 4 (entries merged by 2**shift)")
        if self.packed and shift:
            raise PuzzleInputError("compression: not with 4-bit tables")
        return PatternDatabases(self.rows, self.cols, self.name, self.patterns, self.tables, self.files,
                                self.load_seconds, int(shift), self.packed)

    def in_memory(self) -> "PatternDatabases":
        """The same databases read into memory (the kernels' concatenated table, made now): no page faults
        while searching, and huge pages where the system gives them to large allocations."""
        out = PatternDatabases(self.rows, self.cols, self.name, self.patterns, self.tables, self.files,
                               self.load_seconds, self.compress, self.packed)
        arrays = self.kernel_arrays()
        pdb = arrays[0]
        if isinstance(pdb, np.memmap) or not pdb.flags.owndata:
            pdb = np.array(pdb)
        out.__dict__["_kernel_arrays"] = (pdb,) + tuple(arrays[1:])
        return out

    def info(self) -> list[dict]:
        out = []
        for tiles, path in zip(self.patterns, self.files):
            with h5py.File(path, "r") as f:
                a = f.attrs
                out.append({"tiles": list(tiles), "entries": int(f["distances"].shape[0]),
                            "bytes": int(f["distances"].nbytes), "build_seconds": float(a["build_seconds"]),
                            "build_backend": str(a["build_backend"]), "max_value": int(a["max_value"]),
                            "mean_value": float(a["mean_value"]), "file": str(path),
                            **{k: int(a.get(f"build_{k}", 0)) for k in ("h2d_bytes", "d2h_bytes", "launches")}})
        return out

    def kernel_arrays(self):
        """(pdb, pat_tiles, pat_k, pat_off, tile_pat, mir, use_mirror) for ``ida_batch``: built once, the same
        arrays every call, so a CUDA launcher keeps them on the device for its whole run."""
        cached = self.__dict__.get("_kernel_arrays")
        if cached is None:
            cached = self.__dict__["_kernel_arrays"] = self._build_kernel_arrays()
        return cached

    def _build_kernel_arrays(self):
        n = self.rows * self.cols
        kmax = max(len(p) for p in self.patterns)
        pat_tiles = np.zeros((len(self.patterns), kmax), np.int64)
        pat_k = np.array([len(p) for p in self.patterns], np.int64)
        tables = [_min_compress(np.asarray(t), self.compress) for t in self.tables]
        sizes = [len(t) for t in tables]
        if self.packed:  # offsets count entries, two a byte (every table an even count: padded)
            sizes = [2 * len(t) for t in tables]
        pat_off = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        tile_pat = np.zeros(n, np.int64)
        for i, p in enumerate(self.patterns):
            pat_tiles[i, :len(p)] = p
            tile_pat[list(p)] = i
        pdb = self.__dict__.get("_whole")
        if pdb is None:
            pdb = tables[0] if len(tables) == 1 else np.concatenate(tables)
        if self.rows == self.cols:  # reflection about the main diagonal keeps the blank-first goal
            r = np.arange(n)
            mir = ((r % self.cols) * self.cols + r // self.cols).astype(np.int64)
            use_mirror = 1
        else:
            mir, use_mirror = np.arange(n, dtype=np.int64), 0
        mode = self.compress | (rules.PACKED if self.packed else 0)
        return np.ascontiguousarray(pdb), pat_tiles, pat_k, pat_off, tile_pat, mir, use_mirror | (mode << 1)


def _min_compress(table: np.ndarray, shift: int) -> np.ndarray:
    """Entry ``i`` the least of entries ``i << shift .. (i + 1) << shift`` (the table itself when ``shift`` 0)."""
    if shift == 0:
        return table
    step = 1 << shift
    pad = (-len(table)) % step
    full = np.concatenate([table, np.full(pad, table.max(), table.dtype)]) if pad else np.asarray(table)
    return full.reshape(-1, step).min(axis=1)


def missing(rows: int, cols: int, name: str | None, folder: Path) -> list[tuple[int, ...]]:
    _, pats = partition(rows, cols, name)
    return [p for p in pats if not pattern_file(rows, cols, p, folder).exists()]


def load(rows: int, cols: int, name: str | None, folder: Path, *, packed: bool | None = None,
         say=None) -> PatternDatabases:
    """A partition's tables, memory-mapped; with ``packed`` (default: :func:`packs`), their 4-bit forms
    (written beside them the first time, after saying so through ``say``: :func:`ensure_packed`)."""
    name, pats = partition(rows, cols, name)
    if packed is None:
        packed = packs(rows, cols, pats)
    t0 = work_clock()
    files = [pattern_file(rows, cols, p, folder) for p in pats]
    absent = [str(f) for f in files if not f.exists()]
    if absent:
        raise PuzzleInputError(f"pattern databases {name} for {rows}x{cols}: missing {', '.join(absent)} "
                               f"(build with: puzzlebatch sliding pdb build {name} --size {rows}x{cols})")
    for f, p in zip(files, pats):
        check_table(f, rows, cols, p)
    if packed:
        whole = load_table(ensure_packed(rows, cols, name, pats, files, folder, say=say), "packed")
        ends = np.cumsum([(n_entries(rows * cols, len(p)) + 1) // 2 for p in pats])
        tables = [whole[a:b] for a, b in zip(np.concatenate([[0], ends[:-1]]), ends)]
        db = PatternDatabases(rows, cols, name, list(pats), tables, files, work_clock() - t0, 0, True)
        db.__dict__["_whole"] = whole  # the kernels' table as it is in the file: nothing concatenated
        return db
    else:
        tables = [load_table(f) for f in files]
    return PatternDatabases(rows, cols, name, list(pats), tables, files, work_clock() - t0, 0, packed)


def ensure(rows: int, cols: int, name: str | None, backend: Backend, folder: Path, *, say=None,
           progress=None, packed: bool | None = None) -> PatternDatabases:
    """Load a partition's databases (:func:`load`), building the missing ones first (after saying so through
    ``say``)."""
    name, pats = partition(rows, cols, name)
    for p in missing(rows, cols, name, folder):
        if say is not None:
            say(f"building pattern database {rows}x{cols} tiles {','.join(map(str, p))} "
                f"({n_entries(rows * cols, len(p)):,} entries) in {folder}; it is built once and reused")
        build_pattern(rows, cols, p, backend, folder, partition_name=name,
                      progress=(lambda d, m, s, p=p: progress(p, d, m, s)) if progress else None)
    return load(rows, cols, name, folder, packed=packed, say=say)
