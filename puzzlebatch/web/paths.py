"""Files named by a request: only results files under the served folder, whatever the request says."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from puzzlebatch.errors import PuzzleInputError


class PathRefused(PuzzleInputError):
    """A path that would leave the results folder (absolute, ``..``, a link out of it) or is not a results
    file (HTTP 403)."""


class NotFound(PuzzleInputError):
    """No such results file, run or row (HTTP 404)."""


def resolve(root: Path, rel: str) -> Path:
    """The results file ``rel`` (a path relative to ``root``, ``/``-separated) as an absolute path.

    Refused: empty or overlong names, NUL bytes, backslashes, absolute paths and drive letters, ``..`` parts,
    anything but ``.h5`` files, and any path whose real location (symbolic links followed) is outside ``root``.
    """
    if not isinstance(rel, str) or not rel or len(rel) > 1024 or "\x00" in rel:
        raise PathRefused("path: give a results file's name relative to the results folder")
    if "\\" in rel or rel.startswith("/") or (len(rel) > 1 and rel[1] == ":"):
        raise PathRefused(f"path {rel!r}: absolute paths are not served")
    parts = PurePosixPath(rel).parts
    if any(part == ".." for part in parts):
        raise PathRefused(f"path {rel!r}: '..' is not allowed")
    if not rel.endswith(".h5"):
        raise PathRefused(f"path {rel!r}: only .h5 results files are served")
    base = Path(root).resolve()
    full = (base / Path(*parts)).resolve()
    if full != base and base not in full.parents:
        raise PathRefused(f"path {rel!r}: leads outside the results folder")
    if not full.is_file():
        raise NotFound(f"path {rel!r}: no such results file")
    return full


def list_files(root: Path, limit: int) -> tuple[list[dict], bool]:
    """The ``.h5`` files under ``root`` (links leading outside it left out), newest first; True if cut at
    ``limit``."""
    base = Path(root).resolve()
    out: list[dict] = []
    if not base.is_dir():
        return out, False
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(".h5"):
                continue
            path = Path(folder) / name
            real = path.resolve()
            if base not in real.parents or not real.is_file():
                continue
            st = real.stat()
            out.append({"path": path.relative_to(base).as_posix(), "bytes": st.st_size, "modified": st.st_mtime})
    out.sort(key=lambda f: (-f["modified"], f["path"]))
    return out[:limit], len(out) > limit
