"""``--verify``: a count computed a second time, along another split of the work, before it is reported.

A count is a sum over work items, so it must not depend on how the tree is cut (the budget, the batch size, the
frontier) nor on whether symmetric items are merged.  :func:`second_split` gives knobs that cut the work
differently; :func:`compare` checks the two answers and raises
:class:`~puzzlebatch.errors.CountMismatchError` (exit status 3) on any difference, so a mismatch is never reported
as complete.
"""

from __future__ import annotations

from dataclasses import replace

from puzzlebatch.errors import CountMismatchError
from puzzlebatch.runners.engine.search import SearchSettings


def second_split(settings: SearchSettings) -> SearchSettings:
    """Knobs that cut the same work otherwise: a third of the budget, half the batch, twice the frontier (each a
    little off the round numbers, so that no launch boundary of the first count falls at the same place)."""
    return replace(settings, budget=max(1, settings.budget // 3 + 1),
                   batch_size=max(1, settings.batch_size // 2 + 1),
                   frontier_target=2 * settings.frontier_target + 1,
                   first_batch_size=max(1, settings.first_batch_size // 2 + 1))


def describe(settings: SearchSettings, symmetry: bool) -> str:
    return (f"budget {settings.budget}, batch {settings.batch_size}, frontier {settings.frontier_target}, "
            f"symmetry merging {'on' if symmetry else 'off'}")


def line(doc: dict) -> str | None:
    """The human line for a verified count (None when the count was not verified)."""
    v = doc.get("verified")
    if not v:
        return None
    return f"verified: the same {', '.join(v['keys'])} along another split ({v['second_split']})"


def compare(what: str, first: dict, second: dict, keys, how: str) -> dict:
    """The ``verified`` entry of the JSON document when ``first`` and ``second`` agree on ``keys``; else
    :class:`CountMismatchError` naming the instance, the value and the two ways."""
    for key in keys:
        if first.get(key) != second.get(key):
            raise CountMismatchError(f"--verify: {what}: {key} = {first.get(key)} with the first split but "
                                     f"{second.get(key)} with the second ({how}); not reported")
    return {"keys": list(keys), "second_split": how, "second_seconds": second.get("seconds")}
