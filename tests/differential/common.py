"""Helpers the family modules of this folder share: the simulator backend and launch-capped tiny settings."""

from __future__ import annotations


def capped_settings(tiny: dict, nodes: int | None, launches: int):
    """The tiny settings, their budget raised so that a search of ``nodes`` nodes needs at most about
    ``launches`` launches."""
    from puzzlebatch.runners.engine.search import SearchSettings

    s = SearchSettings(**tiny)
    if nodes:
        per_launch = max(1, min(s.batch_size, s.first_batch_size))
        s.budget = max(s.budget, -(-nodes // (launches * per_launch)))
    return s


def settings_label(s) -> str:
    """Search settings in a way's name: ``b=budget,n=batch,f=frontier,fb=first batch``."""
    return f"b={s.budget},n={s.batch_size},f={s.frontier_target},fb={s.first_batch_size}"


def cuda_backend():
    """The ``cuda`` backend (the simulator under ``NUMBA_ENABLE_CUDASIM=1``), or None when there is none."""
    from puzzlebatch.errors import BackendUnavailableError
    from puzzlebatch.runners.engine.backend import select_backend

    try:
        return select_backend("cuda")
    except BackendUnavailableError:
        return None
