"""Reading users' files and writing outputs: one-line errors naming the file, nothing half-written left behind.

* :func:`read_text` / :func:`read_json`: a missing, unreadable or non-UTF-8 file is a one-line
  :class:`~puzzlebatch.errors.PuzzleInputError` naming it (and, for bad bytes, where they are).
* :func:`write_atomic` (and :func:`write_text`, :func:`save_with`): an output is written to a temporary file beside
  it and renamed over the target only when complete (``os.replace``); a failure (no such directory, read-only,
  disk full) is one line and leaves neither a partial target nor the temporary file.
* No directory is created that the user did not name: an output's folder must exist, except the default
  ``results/`` folder, which :func:`default_result_file` creates (one level, in the current directory).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.limits import INPUT_BYTES, LimitError

DEFAULT_RESULTS_DIR = Path("results")


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def read_bytes(path: str | os.PathLike, what: str = "") -> bytes:
    """The bytes of ``path``; a one-line error if it cannot be read: ``--cubes FILE: cannot read (no such file)``
    for an option ``what``, ``FILE: cannot read solutions (...)`` for a kind of file."""
    cap = INPUT_BYTES.value
    try:
        with open(path, "rb") as f:  # a device or a pipe may never end: read in pieces, one past the limit
            size = os.fstat(f.fileno()).st_size
            if stat.S_ISREG(os.fstat(f.fileno()).st_mode) and size <= cap:
                data = f.read()
            else:
                pieces, total = [], 0
                while total <= cap and (piece := f.read(min(1 << 20, cap + 1 - total))):
                    pieces.append(piece)
                    total += len(piece)
                data = b"".join(pieces)
    except OSError as exc:
        why = "no such file" if isinstance(exc, FileNotFoundError) else "is a directory, not a file" \
            if isinstance(exc, IsADirectoryError) else _why(exc)
        if what.startswith("-"):
            raise PuzzleInputError(f"{what} {path}: cannot read ({why})") from None
        raise PuzzleInputError(f"{path}: cannot read{' ' + what if what else ''} ({why})") from None
    if len(data) > cap:
        raise LimitError(f"{what + ' ' if what else ''}{path}: more than {cap:,} bytes, over the limit of an input "
                         f"file (set {INPUT_BYTES.env} to raise it)")
    return data


def read_text(path: str | os.PathLike, what: str = "") -> str:
    """The UTF-8 text of ``path``; a one-line error naming the file if it is missing, unreadable or not UTF-8."""
    data = read_bytes(path, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise PuzzleInputError(f"{what + ' ' if what else ''}{path}, line {line}: not UTF-8 text (byte "
                               f"0x{data[exc.start]:02x} at offset {exc.start})") from None


def read_json(path: str | os.PathLike, what: str = "") -> Any:
    """The JSON document in ``path``; one-line errors for unreadable files and invalid JSON."""
    text = read_text(path, what)
    try:
        return json.loads(text)
    except ValueError as exc:
        raise PuzzleInputError(f"{what + ' ' if what else ''}{path}: not valid JSON ({exc})") from None
    except RecursionError:
        raise PuzzleInputError(f"{what + ' ' if what else ''}{path}: JSON nested too deeply") from None


def check_output(path: str | os.PathLike, what: str = "output") -> Path:
    """``path`` as a Path if it can be an output file: not a directory, its folder exists (nothing is created)."""
    path = Path(path)
    if path.is_dir():
        raise PuzzleInputError(f"{what} {path}: is a directory")
    parent = path.parent
    if not parent.is_dir():
        raise PuzzleInputError(f"{what} {path}: directory {parent} does not exist")
    return path


STDOUT = "-"  # a text or picture output named ``-`` goes to standard output


def is_stream(path: str | os.PathLike) -> bool:
    """Whether ``path`` is written in place rather than replaced: ``-`` (standard output), or an existing
    device, pipe or socket (``/dev/stdout``, ``/dev/null``, a FIFO), whatever link leads to it."""
    if str(path) == STDOUT:
        return True
    try:
        st = os.stat(path)  # follows links: /dev/stdout -> /proc/self/fd/1 -> a pipe or a terminal
    except OSError:
        return False
    return not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _copy_into(tmp_path: Path, path: str | os.PathLike) -> None:
    """Write the bytes of ``tmp_path`` into ``path`` in place (standard output, a device or a pipe)."""
    data = tmp_path.read_bytes()
    if str(path) == STDOUT:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    with open(path, "wb") as f:  # a device or a pipe: opened, written, never replaced
        f.write(data)


@contextlib.contextmanager
def write_atomic(path: str | os.PathLike, what: str = "output", mode: str = "wb") -> Iterator[Path]:
    """Yield a temporary path to write; on success move it to ``path``.

    A regular file (or a new name) is written beside its real target (links followed, so a link stays a link)
    and renamed over it.  ``-`` (standard output) and an existing device, pipe or socket are never replaced:
    the bytes are written into them in place (``/dev/stdout``, ``/dev/null``, a FIFO).  Any ``OSError`` (and a
    failure of the body) removes the temporary file; an ``OSError`` becomes one line naming ``path``.  The
    temporary name keeps the extension, so writers that look at it (matplotlib) still do.
    """
    stream = is_stream(path)
    if stream:
        folder, suffix, stem = None, Path(str(path)).suffix, "stdout"
    else:
        real = Path(os.path.realpath(check_output(path, what)))  # a link to a file: replace the file, keep the link
        folder, suffix, stem = real.parent, real.suffix, real.stem
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=f".part{suffix}", dir=folder)
    except OSError as exc:
        raise PuzzleInputError(f"{what} {path}: cannot write ({_why(exc)})") from None
    os.close(fd)
    tmp_path = Path(tmp)
    if not stream:  # the mode a plain open() would give (mkstemp's is 0600), or the replaced file's own
        with contextlib.suppress(OSError):
            os.chmod(tmp_path, stat.S_IMODE(os.stat(real).st_mode) if real.is_file() else 0o666 & ~_umask())
    try:
        yield tmp_path
        if stream:
            _copy_into(tmp_path, path)
        else:
            with open(tmp_path, "rb+") as f:
                os.fsync(f.fileno())
            os.replace(tmp_path, real)
    except BrokenPipeError:
        raise  # a closed standard output ends the command quietly (the CLI's handler)
    except OSError as exc:
        raise PuzzleInputError(f"{what} {path}: cannot write ({_why(exc)})") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()


def write_text(path: str | os.PathLike, text: str, what: str = "output") -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path."""
    with write_atomic(path, what) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def save_with(path: str | os.PathLike, save: Callable[[Path], Any], what: str = "output") -> Path:
    """Call ``save(tmp_path)`` (e.g. a figure's ``savefig``) and move the result to ``path`` atomically."""
    with write_atomic(path, what) as tmp:
        save(tmp)
    return Path(path)


def make_output_dir(path: str | os.PathLike, what: str = "output folder") -> Path:
    """Create the folder ``path`` the user named (its parent must exist); an existing folder is fine."""
    path = Path(path)
    if path.is_dir():
        return path
    if not path.parent.is_dir():
        raise PuzzleInputError(f"{what} {path}: directory {path.parent} does not exist")
    try:
        path.mkdir()
    except OSError as exc:
        raise PuzzleInputError(f"{what} {path}: cannot create ({_why(exc)})") from None
    return path


FILE_OPTIONS = ("png", "gif", "text", "save_weights")  # argparse dests of single output files
FOLDER_OPTIONS = ("out", "out_dir", "cache_dir")  # outputs whose folder must exist (a file, or a folder made there)


def check_cli_outputs(args) -> None:
    """Before a command does any work: every output it was given can be written where it was asked (the folder
    exists, the file is not a folder).  Nothing is created here."""
    for name in FILE_OPTIONS + FOLDER_OPTIONS:  # an empty name, or a file named as a folder ("dir.h5/")
        value = getattr(args, name, None)
        option = "--" + name.replace("_", "-")
        if isinstance(value, str) and not value.strip():
            raise PuzzleInputError(f"{option} {value!r}: empty; give a file name" if name in FILE_OPTIONS + ("out",)
                                   else f"{option} {value!r}: empty; give a folder")
        if isinstance(value, str) and value.endswith(("/", os.sep)) and name in FILE_OPTIONS + ("out",) \
                and value != "-":
            raise PuzzleInputError(f"{option} {value}: names a folder (ends with /); give a file name")
    out = getattr(args, "out", None)  # every --out is an HDF5 results file: a file on disk, written in place
    if isinstance(out, str) and out and is_stream(out):
        raise PuzzleInputError(f"--out {out}: not a regular file (a results file is an HDF5 file on disk; "
                               "give a file name)")
    for name in FILE_OPTIONS:
        value = getattr(args, name, None)
        if isinstance(value, str) and value and value != STDOUT:
            check_output(value, "--" + name.replace("_", "-"))
    for name in FOLDER_OPTIONS:
        value = getattr(args, name, None)
        if name == "out" and getattr(args, "resume", False):
            continue  # --resume names a file that must exist: the command says so itself
        if isinstance(value, str) and value and not Path(value).exists():
            parent = Path(value).parent
            if not parent.is_dir():
                raise PuzzleInputError(f"--{name.replace('_', '-')} {value}: directory {parent} does not exist")


def default_result_file(stem: str) -> Path:
    """``results/<stem>-<UTC time>.h5``, creating ``results/`` (one level, here) if needed."""
    try:
        DEFAULT_RESULTS_DIR.mkdir(exist_ok=True)
    except OSError as exc:
        raise PuzzleInputError(f"cannot create the default results folder {DEFAULT_RESULTS_DIR}/ ({_why(exc)}); "
                               "give --out FILE.h5") from None
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    return DEFAULT_RESULTS_DIR / f"{stem}-{stamp}.h5"
