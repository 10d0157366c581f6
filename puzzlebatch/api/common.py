"""What every family's API shares: backends and run options from keyword arguments, and the result base class."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.runners.engine.backend import Backend, select_backend
from puzzlebatch.runners.engine.search import SearchSettings, default_settings
from puzzlebatch.runners.engine.session import RunOptions


@dataclasses.dataclass
class Result:
    """Base of every result: a dataclass whose :meth:`to_dict` is the document the command line prints with
    ``--json`` (without the keys the command line adds: ``command``, ``schema_version``, ``compile_seconds``)."""

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON values (``json.dumps`` takes it)."""
        out = {}
        for f in dataclasses.fields(self):
            if f.metadata.get("internal"):
                continue
            out[f.name] = getattr(self, f.name)
        return out | dict(getattr(self, "extra", None) or {})


def internal(default=None):
    """A field the result keeps for Python callers but leaves out of :meth:`Result.to_dict`."""
    return dataclasses.field(default=default, metadata={"internal": True}, repr=False)


def backend_of(backend: str | Backend) -> Backend:
    """A :class:`Backend` from ``"auto"``, ``"cpu"``, ``"cuda"`` or a backend already selected."""
    return backend if isinstance(backend, Backend) else select_backend(backend)


def settings_of(backend: Backend, base: SearchSettings | None = None, *, budget: int | None = None,
                batch_size: int | None = None, frontier: int | None = None,
                merge: str | None = None, memo: int | None = None, cuda_lanes: int | None = None) -> SearchSettings:
    """The batch DFS's knobs: ``base`` (or the backend's defaults) with those given replaced (``memo``: entries of
    a count's memo of searched subtrees a CPU thread, a power of two, 0 for none; ``cuda_lanes``: the threads of
    a CUDA kernel that share each work item's candidate tests, 1 or 32, the bitboard rules only)."""
    s = dataclasses.replace(base) if base is not None else default_settings(backend)
    if cuda_lanes is not None:
        if cuda_lanes not in (1, 32):
            raise PuzzleInputError(f"cuda_lanes: {cuda_lanes!r} is not 1 or 32 (a warp)")
        if cuda_lanes > 1 and backend.kind == "cpu":
            raise PuzzleInputError(f"cuda_lanes: {cuda_lanes} threads an item is for CUDA kernels; the backend is "
                                   f"{backend.name} (use --backend cuda)")
        s.cuda_lanes = cuda_lanes
    if memo is not None:
        from puzzlebatch.limits import check_memo

        s.memo_entries = check_memo("memo", memo)
    if merge is not None:
        if merge not in ("auto", "yes", "no"):
            raise PuzzleInputError(f"merge: {merge!r} is not one of auto, yes, no")
        s.merge = merge
    if budget:
        s.budget = int(budget)
    if batch_size:
        s.batch_size = int(batch_size)
    if frontier:
        s.frontier_target = int(frontier)
    return s


def options_of(options: RunOptions | None, backend_request: str | Backend, *, out: str | Path | None = None,
               resume: bool | None = None, scheduler: str | None = None, max_batches: int | None = None,
               progress: bool | None = None) -> RunOptions:
    """``options`` (or the API's defaults: no file unless ``out`` is given, no progress bar) with the keyword
    arguments given replaced."""
    o = options or RunOptions(progress=False, keep=False)
    changes: dict[str, Any] = {}
    if out is not None:
        changes["out"] = out
    if resume is not None:
        changes["resume"] = bool(resume)
    if scheduler is not None:
        changes["scheduler"] = scheduler
    if max_batches is not None:
        changes["max_batches"] = max_batches
    if progress is not None:
        changes["progress"] = bool(progress)
    if options is None:
        changes["backend_request"] = backend_request if isinstance(backend_request, str) else backend_request.kind
    return dataclasses.replace(o, **changes)
