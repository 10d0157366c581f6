"""What the polyomino verbs read from their arguments, as the Python API's keyword arguments: the problem's piece
options and the batch DFS's knobs.  Shared by :mod:`.commands` and :mod:`.large`."""

from __future__ import annotations


def problem(args) -> dict:
    """``--level``, ``--unlimited``, ``--copies`` and ``--mirror`` (the board and pieces are passed as they are)."""
    return {"level": args.level, "unlimited": args.unlimited, "copies": args.copies, "mirror": args.mirror}


def settings(args):
    """The batch DFS's knobs given (``--budget``, ``--batch-size``, ``--frontier``, ``--memo``, ``--cuda-lanes``)
    over the backend's defaults, or None when none is given (the API's defaults: no backend is selected here for a
    verb that runs none)."""
    memo = getattr(args, "memo", None)
    lanes = getattr(args, "cuda_lanes", None)
    if not any(getattr(args, k, None) for k in ("budget", "batch_size", "frontier")) and memo is None \
            and lanes is None:
        return None
    from puzzlebatch.api.common import backend_of, settings_of

    return settings_of(backend_of(args.backend), budget=args.budget, batch_size=args.batch_size,
                       frontier=args.frontier, memo=memo, cuda_lanes=lanes)
