"""Transactions for an HDF5 file: a rollback journal under HDF5's own I/O.

HDF5 writes its metadata in place and in no particular order, so a process killed in the middle of a flush can
leave a group pointing at an object header that was never written ("bad object header version number",
"incorrect metadata checksum", "truncated file").  :class:`JournaledFile` is the file object h5py's ``fileobj``
driver writes through; it makes every HDF5 flush between two :meth:`JournaledFile.commit` calls one transaction:

* bytes past the size the file had at the last commit are new space: written straight to the file (a rollback
  cuts them off);
* before a byte of the committed part changes, the original page is appended to ``<file>-journal`` (with a
  checksum); the new page waits in memory and reaches the file only at commit, after the journal is on disk
  (``fsync``) — or earlier, when pending pages pass :data:`SPILL_BYTES`, again journal first;
* :meth:`commit` writes the pending pages, ``fsync``\\ s the file, then empties the journal (``fsync`` again).

A writer killed at any moment, or a power cut, leaves either no journal (the file is as of its last commit) or a
hot journal: :func:`rollback` copies the original pages back and cuts the file to its committed size, so the file
is again exactly as of its last commit.  A reader that finds a hot journal reads through it
(:class:`JournalOverlay`) without changing anything.

Fault injection (tests): every write, truncation and journal reset counts as one *write*; :func:`inject` (or the
``PUZZLEBATCH_STORE_FAULT`` environment variable, ``exit:N`` / ``crash:N`` / ``enospc:N``) stops the process
(``os._exit``), freezes the disk as a kill would leave it, or fails with "no space left" at write ``N``.
"""

from __future__ import annotations

import errno
import io
import os
import struct
import zlib
from pathlib import Path

PAGE = 4096
# fsync at every commit (power-cut safe).  PUZZLEBATCH_STORE_FSYNC=0 keeps the journal's order, which is enough
# for a killed process, but a power cut may then lose or damage the last commits.
SYNC = os.environ.get("PUZZLEBATCH_STORE_FSYNC", "1") != "0"
SPILL_BYTES = 32 << 20  # pending committed pages kept in memory before they are written early (journal first)
_MAGIC = b"PBJRNL01"
_HEADER = struct.Struct("<8sQQI")  # magic, nonce, committed size, page size; then crc32 of these
_RECORD = struct.Struct("<QII")  # page number, length, crc32 of (nonce, page, data)


def journal_path(path: str | os.PathLike) -> Path:
    """Where the journal of ``path`` lives: beside it, ``<name>-journal``."""
    path = Path(path)
    return path.with_name(path.name + "-journal")


# ----------------------------------------------------------------------------- fault injection (tests)

class SimulatedCrash(BaseException):
    """A simulated kill (``crash`` mode): from the injected write on, every write of every journaled file is
    dropped, so the disk stays exactly as a kill at that write would leave it; the store raises this at the end
    of the operation (never from inside HDF5)."""


class _Faults:
    def __init__(self) -> None:
        self.mode: str | None = None
        self.at = 0
        self.count = 0
        self.frozen = False
        spec = os.environ.get("PUZZLEBATCH_STORE_FAULT", "")
        if spec:
            mode, _, at = spec.partition(":")
            if mode in ("exit", "crash", "enospc") and at.isdigit():
                self.mode, self.at = mode, int(at)

    def tick(self) -> bool:
        """Count one write; False when it must not reach the disk (frozen after a simulated crash)."""
        if self.frozen:
            return False
        self.count += 1
        if self.mode is not None and self.count == self.at:
            if self.mode == "exit":
                os._exit(137)
            if self.mode == "crash":  # raised by check_crash() outside HDF5's callbacks
                self.frozen = True
                return False
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return True


faults = _Faults()


def check_crash() -> None:
    """Raise :class:`SimulatedCrash` if a simulated kill happened (called between store operations)."""
    if faults.frozen:
        raise SimulatedCrash(f"simulated kill at write {faults.at}")


def inject(mode: str | None, at: int = 0) -> None:
    """Arm (``mode`` = ``exit``, ``crash`` or ``enospc``) or disarm (None) the fault at write ``at`` (1-based,
    counted from now)."""
    faults.mode, faults.at, faults.count, faults.frozen = mode, at, 0, False


def writes_so_far() -> int:
    """Writes counted since the last :func:`inject` (how many a run makes, to inject at each)."""
    return faults.count


# ----------------------------------------------------------------------------- the journal on disk

def _read_journal(jpath: Path) -> tuple[int, dict[int, bytes]] | None:
    """``(committed size, {page: original bytes})`` of a hot journal, or None if there is none (absent, empty, or
    never made durable).  Records after the first torn or stale one are ignored: they were written after it."""
    try:
        data = jpath.read_bytes()
    except FileNotFoundError:
        return None
    n = _HEADER.size
    if len(data) < n + 4:
        return None
    magic, nonce, size, page = _HEADER.unpack_from(data)
    if magic != _MAGIC or page != PAGE or zlib.crc32(data[:n]) != struct.unpack_from("<I", data, n)[0]:
        return None
    pages: dict[int, bytes] = {}
    pos = n + 4
    nonce_bytes = struct.pack("<Q", nonce)
    while pos + _RECORD.size <= len(data):
        number, length, crc = _RECORD.unpack_from(data, pos)
        body = data[pos + _RECORD.size: pos + _RECORD.size + length]
        if length > PAGE or len(body) != length or \
                zlib.crc32(body, zlib.crc32(struct.pack("<Q", number), zlib.crc32(nonce_bytes))) != crc:
            break
        pages.setdefault(number, body)  # the first copy is the original
        pos += _RECORD.size + length
    return size, pages


def rollback(path: str | os.PathLike) -> bool:
    """Undo an unfinished transaction of ``path`` from its hot journal; True if there was one.

    The caller holds the file's write lock.  Idempotent: a rollback killed half-way is simply done again."""
    jpath = journal_path(path)
    hot = _read_journal(jpath)
    if hot is None:
        if jpath.exists():
            jpath.unlink()
        return False
    size, pages = hot
    fd = os.open(path, os.O_RDWR)
    try:
        for number, body in sorted(pages.items()):
            os.pwrite(fd, body, number * PAGE)
        os.ftruncate(fd, size)
        os.fsync(fd)
    finally:
        os.close(fd)
    jpath.unlink()
    return True


# ----------------------------------------------------------------------------- the writer's file object

class JournaledFile(io.RawIOBase):
    """A read-write file object for h5py's ``fileobj`` driver that turns HDF5 flushes into transactions.

    Parameters
    ----------
    path
        The HDF5 file (created if missing).  The caller has rolled back any hot journal and holds the lock.
    fd
        An open read-write descriptor of ``path`` (kept open, and closed by :meth:`close`).
    """

    def __init__(self, path: str | os.PathLike, fd: int) -> None:
        super().__init__()
        self.path = Path(path)
        self.jpath = journal_path(path)
        self._fd = fd
        self._jfd: int | None = None
        self._pos = 0
        self.failed: BaseException | None = None  # a write failed: the transaction is rolled back, writes dropped
        self._begin()

    # -- transaction state
    def _begin(self) -> None:
        self._committed = os.fstat(self._fd).st_size
        self._pending: dict[int, bytearray] = {}  # committed pages changed in memory, not written yet
        self._journaled: set[int] = set()  # pages whose original is in the journal
        self._direct: set[int] = set()  # journaled and durable: may be written in place
        self._jend = 0  # journal length (0: no header yet)
        self._jsynced = True
        self._dirty = False  # anything written since the last commit

    def _tick(self) -> bool:
        if self.failed is not None:
            return False
        return faults.tick()

    def _journal(self, numbers: list[int]) -> None:
        """Append the original bytes of committed pages ``numbers`` (not yet journaled) to the journal."""
        numbers = [k for k in numbers if k not in self._journaled and k * PAGE < self._committed]
        if not numbers and (self._jend or self._committed):
            return  # (a new file journals its header alone: a rollback then empties it)
        if self.failed is not None or faults.frozen:
            return  # nothing reaches the disk any more, not even a new journal file
        if self._jfd is None:
            self._jfd = os.open(self.jpath, os.O_RDWR | os.O_CREAT, 0o644)
        parts = []
        if self._jend == 0:
            self._nonce = int.from_bytes(os.urandom(8), "little")
            head = _HEADER.pack(_MAGIC, self._nonce, self._committed, PAGE)
            parts.append(head + struct.pack("<I", zlib.crc32(head)))
        nonce_bytes = struct.pack("<Q", self._nonce)
        for k in numbers:
            body = os.pread(self._fd, min(PAGE, self._committed - k * PAGE), k * PAGE)
            crc = zlib.crc32(body, zlib.crc32(struct.pack("<Q", k), zlib.crc32(nonce_bytes)))
            parts.append(_RECORD.pack(k, len(body), crc) + body)
        blob = b"".join(parts)
        if self._tick():
            os.pwrite(self._jfd, blob, self._jend)
        self._jend += len(blob)
        self._journaled.update(numbers)
        self._jsynced = False

    def _sync_journal(self) -> None:
        if not self._jsynced and self._jfd is not None:
            if self.failed is None and not faults.frozen and SYNC:
                os.fsync(self._jfd)
            self._jsynced = True

    def _write_pending(self) -> None:
        """Write the pending pages in place, runs of consecutive pages in one write each."""
        numbers = sorted(self._pending)
        i = 0
        while i < len(numbers):
            j = i
            while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
                j += 1
            first = numbers[i]
            blob = b"".join(bytes(self._pending[k]) for k in numbers[i:j + 1])
            blob = blob[:self._committed - first * PAGE]  # the last page may be partly new space
            if self._tick():
                os.pwrite(self._fd, blob, first * PAGE)
            i = j + 1

    def _spill(self) -> None:
        """Write the pending pages in place now (journal durable first); they stay journaled until commit."""
        self._sync_journal()
        self._write_pending()
        self._direct.update(self._pending)
        self._pending.clear()

    # -- file object protocol used by h5py's fileobj driver
    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence == 0:
            self._pos = offset
        elif whence == 1:
            self._pos += offset
        else:
            self._pos = os.fstat(self._fd).st_size + offset
        return self._pos

    def tell(self) -> int:
        return self._pos

    def readinto(self, buf) -> int:
        view = memoryview(buf).cast("B")
        n = self._read_at(self._pos, view)
        self._pos += n
        return n

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            size = max(0, os.fstat(self._fd).st_size - self._pos)
        buf = bytearray(size)
        n = self.readinto(buf)
        return bytes(buf[:n])

    def _read_at(self, pos: int, view: memoryview) -> int:
        data = os.pread(self._fd, len(view), pos)
        view[:len(data)] = data
        view[len(data):] = bytes(len(view) - len(data))  # past the end reads as zeros (as HDF5's sec2 driver)
        if self._pending and pos < self._committed:
            stop = min(pos + len(view), self._committed)
            for k in range(pos // PAGE, (stop - 1) // PAGE + 1):
                page = self._pending.get(k)
                if page is None:
                    continue
                a, b = max(pos, k * PAGE), min(stop, (k + 1) * PAGE)
                view[a - pos:b - pos] = page[a - k * PAGE:b - k * PAGE]
        return len(view)

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        size = len(view)
        pos = self._pos
        self._pos += size
        try:
            self._write_at(pos, view)
        except OSError as exc:  # reported by commit(), never raised through HDF5's callbacks
            self._fail(exc)
        return size

    def _write_at(self, pos: int, view: memoryview) -> None:
        self._dirty = True
        if self._committed == 0 and self._jend == 0:
            self._journal([])
            self._sync_journal()
        end = pos + len(view)
        split = min(max(pos, self._committed), end)  # [pos, split) is committed, [split, end) new space
        if split > pos:
            first, last = pos // PAGE, (split - 1) // PAGE
            self._journal([k for k in range(first, last + 1) if k not in self._direct])
            for k in range(first, last + 1):
                a, b = max(pos, k * PAGE), min(split, (k + 1) * PAGE)
                chunk = view[a - pos:b - pos]
                if k in self._direct:
                    if self._tick():
                        os.pwrite(self._fd, chunk, a)
                    continue
                page = self._pending.get(k)
                if page is None:
                    page = bytearray(PAGE)
                    old = os.pread(self._fd, min(PAGE, self._committed - k * PAGE), k * PAGE)
                    page[:len(old)] = old
                    self._pending[k] = page
                page[a - k * PAGE:b - k * PAGE] = chunk
            if len(self._pending) * PAGE > SPILL_BYTES:
                self._spill()
        if end > split and self._tick():
            os.pwrite(self._fd, view[split - pos:], split)

    def truncate(self, size: int | None = None) -> int:
        size = self._pos if size is None else size
        try:
            if size < self._committed:  # cutting into committed bytes: keep their originals first
                self._journal(list(range(size // PAGE, (self._committed - 1) // PAGE + 1)))
                self._spill()
                self._direct.update(range(size // PAGE, (self._committed - 1) // PAGE + 1))
            if size != os.fstat(self._fd).st_size:
                self._dirty = True
                if self._tick():
                    os.ftruncate(self._fd, size)
        except OSError as exc:
            self._fail(exc)
        return size

    def flush(self) -> None:
        pass  # a transaction ends with commit(), not with HDF5's flush

    # -- transactions
    def commit(self) -> None:
        """Make everything written since the last commit durable and the new committed state."""
        if self.failed is not None:
            raise OSError(getattr(self.failed, "errno", None), getattr(self.failed, "strerror", str(self.failed)))
        if not self._dirty and not self._pending:
            return
        try:
            self._sync_journal()
            self._write_pending()
            if not faults.frozen and SYNC:
                os.fsync(self._fd)
            if self._jend:  # the commit point: the journal no longer holds a transaction
                if self._tick():
                    os.ftruncate(self._jfd, 0)
                    if SYNC:
                        os.fsync(self._jfd)
        except OSError as exc:
            self._fail(exc)
            raise
        self._begin()

    def _fail(self, exc: BaseException) -> None:
        """A write failed (disk full, I/O error): put the file back as of the last commit, drop later writes."""
        if self.failed is not None:
            return
        self.failed = exc
        if faults.frozen:
            return
        try:
            if self._jfd is not None and self._jend:
                os.fsync(self._jfd)
            if not rollback(self.path):
                os.ftruncate(self._fd, self._committed)  # only new space was written: cut it off
            self._jfd_close()
        except OSError:
            pass  # the hot journal stays; the next writer rolls back

    def _jfd_close(self) -> None:
        if self._jfd is not None:
            os.close(self._jfd)
            self._jfd = None

    def close(self) -> None:
        """Close the descriptors; remove the journal if no transaction is open (after a final commit)."""
        if self.closed:
            return
        try:
            clean = self.failed is None and not faults.frozen and not self._dirty and not self._pending
            self._jfd_close()
            if clean and self.jpath.exists() and _read_journal(self.jpath) is None:
                self.jpath.unlink()
            os.close(self._fd)
        finally:
            super().close()


# ----------------------------------------------------------------------------- readers of a file with a hot journal

class JournalOverlay(io.RawIOBase):
    """A read-only file object showing ``path`` as of its last commit: the journal's original pages over it."""

    def __init__(self, path: str | os.PathLike, size: int, pages: dict[int, bytes]) -> None:
        super().__init__()
        self._f = open(path, "rb")
        self._size = size
        self._pages = pages
        self._pos = 0

    @property
    def size(self) -> int:
        """The file's size as of its last commit."""
        return self._size

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        self._pos = offset if whence == 0 else self._pos + offset if whence == 1 else self._size + offset
        return self._pos

    def tell(self) -> int:
        return self._pos

    def readinto(self, buf) -> int:
        view = memoryview(buf).cast("B")
        pos = self._pos
        view[:] = bytes(len(view))  # past the end reads as zeros (as HDF5's sec2 driver)
        want = max(0, min(len(view), self._size - pos))
        self._f.seek(pos)
        n = self._f.readinto(view[:want])
        view[n:want] = bytes(want - n)  # cut off past the file's end: zeros, as a rollback would leave
        for k in range(pos // PAGE, (pos + want - 1) // PAGE + 1) if want else ():
            body = self._pages.get(k)
            if body is None:
                continue
            a, b = max(pos, k * PAGE), min(pos + want, k * PAGE + len(body))
            if b > a:
                view[a - pos:b - pos] = body[a - k * PAGE:b - k * PAGE]
        self._pos += len(view)
        return len(view)

    def read(self, size: int = -1) -> bytes:
        size = self._size - self._pos if size is None or size < 0 else size
        buf = bytearray(size)
        n = self.readinto(buf)
        return bytes(buf[:n])

    def close(self) -> None:
        if not self.closed:
            self._f.close()
        super().close()


def open_locked(path: str | os.PathLike) -> int:
    """A read-write descriptor of ``path`` (created if missing) holding its exclusive write lock.

    Raises
    ------
    BlockingIOError
        Another process holds the lock (a live writer).
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except ImportError:  # pragma: no cover - no flock (Windows): one writer is the user's business
        pass
    except BaseException:
        os.close(fd)
        raise
    return fd


def overlay_if_hot(path: str | os.PathLike) -> JournalOverlay | None:
    """A :class:`JournalOverlay` of ``path`` if it has a hot journal, else None (read the file directly)."""
    hot = _read_journal(journal_path(path))
    return None if hot is None else JournalOverlay(path, *hot)
