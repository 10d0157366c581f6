"""Progress on stderr (tqdm), shown only when stderr is a terminal."""

from __future__ import annotations

import sys

from tqdm import tqdm


def bar(desc: str, unit: str = "batch", total: int | None = None, enabled: bool | None = None) -> tqdm:
    if enabled is None:
        enabled = sys.stderr.isatty()
    return tqdm(desc=desc, unit=unit, total=total, file=sys.stderr, disable=not enabled, leave=False,
                dynamic_ncols=True)
