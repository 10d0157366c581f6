"""Progress on stderr (tqdm), shown only when stderr is a terminal; the time a count has left."""

from __future__ import annotations

import sys

from tqdm import tqdm


def bar(desc: str, unit: str = "batch", total: int | None = None, enabled: bool | None = None) -> tqdm:
    if enabled is None:
        enabled = sys.stderr.isatty()
    return tqdm(desc=desc, unit=unit, total=total, file=sys.stderr, disable=not enabled, leave=False,
                dynamic_ncols=True)


def eta_seconds(done: float, done_before: float, seconds: float) -> float | None:
    """Seconds left at the pace so far: ``seconds`` of this process took the share done from ``done_before`` to
    ``done`` (estimates of the tree searched, :func:`puzzlebatch.runners.engine.search.spread`).  None (unknown)
    until this process has finished a share; 0 once everything is done."""
    if done >= 1.0:
        return 0.0
    gained = done - done_before
    if gained <= 0 or seconds <= 0:
        return None
    return seconds * (1.0 - done) / gained


def eta_text(eta: float | None) -> str:
    """``?``, ``42s``, ``3m05s`` or ``2h07m`` (more than 99 days: ``>99d``)."""
    if eta is None:
        return "?"
    s = int(round(eta))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 99 * 86400:
        h = s // 3600
        return f"{h}h{(s % 3600) // 60:02d}m" if h < 48 else f"{h // 24}d{h % 24:02d}h"
    return ">99d"
