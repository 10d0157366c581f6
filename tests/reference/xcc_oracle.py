"""Slow, independent reference for exact covers with colours (Knuth's XCC, TAOCP 7.2.2.1): brute force over
every subset of the options.

An option is a list of item names; a secondary item may carry a colour, ``"x:A"``.  A set of options is a solution
when every primary item is in exactly one of them and, for each secondary item, either at most one of them has it,
or all of those that have it give it the same colour.  Options without a primary item are never chosen (Knuth's
Algorithm C reaches options through primary items only).

Nothing here imports puzzlebatch: it checks the package from the outside.
"""

from __future__ import annotations

from itertools import combinations


def _split(word):
    name, _, color = word.partition(":")
    return name, (color or None)


def is_solution(primary, secondary, chosen) -> bool:
    """Do the options ``chosen`` (lists of words) cover ``primary`` exactly once with consistent colours?"""
    seen_primary = []
    holders: dict[str, list] = {s: [] for s in secondary}
    for opt in chosen:
        for word in opt:
            name, color = _split(word)
            if name in holders:
                holders[name].append(color)
            else:
                seen_primary.append(name)
    if sorted(seen_primary) != sorted(primary):
        return False
    for colors in holders.values():
        if len(colors) > 1 and (None in colors or len(set(colors)) > 1):
            return False
    return True


def solutions(primary, secondary, options) -> list[tuple[int, ...]]:
    """Every solution, as sorted tuples of option indices (2 ** len(options) subsets: keep it small)."""
    prim = set(primary)
    usable = [k for k, o in enumerate(options) if any(_split(w)[0] in prim for w in o)]
    out = []
    for r in range(len(usable) + 1):
        for combo in combinations(usable, r):
            if is_solution(primary, secondary, [options[k] for k in combo]):
                out.append(combo)
    return out


def count(primary, secondary, options) -> int:
    return len(solutions(primary, secondary, options))
