"""Random hex Tetris problems with the statistics of the 2015 qualifier, in the official problem format.

For tuning that is judged honestly: tune on the 25 qualifier problems, validate on generated boards only.  Each
statistic is drawn from the qualifier's own values (a bootstrap, one statistic at a time): the width and the
height, the number of units and their largest size, the source length, the number of seeds and the share of the
board filled at the start.  Units are random connected sets of hex cells (grown cell by cell, each new cell a
neighbour of one already in), their pivot one of their cells or a cell next to them; the filled cells lie in the
lower half and never complete a row.  :func:`generate_problem` is a pure function of its seed.
"""

from __future__ import annotations

import random

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.hextris.model import DATA_DIR, load_json, parse_problem, to_offset

_AXIAL_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


def qualifier_statistics() -> dict[str, list]:
    """The qualifier's statistics, one list per key (one value per problem)."""
    stats: dict[str, list] = {k: [] for k in ("width", "height", "units", "unit_size", "source_length", "seeds",
                                              "fill")}
    for n in range(25):
        d = load_json(DATA_DIR / "problems" / f"problem_{n}.json", "problem")
        stats["width"].append(d["width"])
        stats["height"].append(d["height"])
        stats["units"].append(len(d["units"]))
        stats["unit_size"].append(max(len(u["members"]) for u in d["units"]))
        stats["source_length"].append(d["sourceLength"])
        stats["seeds"].append(len(d["sourceSeeds"]))
        stats["fill"].append(len(d["filled"]) / (d["width"] * d["height"]))
    return stats


def _unit(rng: random.Random, size: int, width: int, height: int) -> dict:
    cells = {(0, 0)}
    while len(cells) < size:
        q, r = rng.choice(sorted(cells))
        dq, dr = rng.choice(_AXIAL_STEPS)
        cells.add((q + dq, r + dr))
    pivot = rng.choice(sorted(cells)) if rng.random() < 0.7 else \
        (lambda c, d: (c[0] + d[0], c[1] + d[1]))(rng.choice(sorted(cells)), rng.choice(_AXIAL_STEPS))
    rmin = min(r for _, r in cells | {pivot})
    rmin -= rmin % 2  # shift by whole pairs of rows: the offset shape stays the same
    off = [to_offset(q, r - rmin) for q, r in sorted(cells)]
    px, py = to_offset(pivot[0], pivot[1] - rmin)
    xmin = min([x for x, _ in off] + [px])
    return {"members": [{"x": x - xmin, "y": y} for x, y in off], "pivot": {"x": px - xmin, "y": py}}


def generate_problem(seed: int, problem_id: int | None = None) -> dict:
    """One random problem (official JSON as a dict: ``id, width, height, filled, sourceLength, sourceSeeds,
    units``), a pure function of ``seed``; its id is ``problem_id`` (default ``1000 + seed``)."""
    if not isinstance(seed, int) or seed < 0:
        raise PuzzleInputError(f"generate: the seed must be an integer >= 0, got {seed!r}")
    rng = random.Random(seed)
    st = qualifier_statistics()
    width, height = rng.choice(st["width"]), rng.choice(st["height"])
    n_units, max_size = rng.choice(st["units"]), rng.choice(st["unit_size"])
    units = []
    while len(units) < n_units:
        u = _unit(rng, rng.randint(1, max_size), width, height)
        doc = {"id": 0, "width": width, "height": height, "filled": [], "sourceLength": 1, "sourceSeeds": [0],
               "units": [u]}
        try:
            parse_problem(doc)  # it must spawn inside the board
        except PuzzleInputError:
            max_size = max(1, max_size - 1)
            continue
        units.append(u)
    fill = rng.choice(st["fill"])
    filled = []
    for y in range(height // 2, height):
        row = [x for x in range(width) if rng.random() < 2 * fill]
        filled.extend({"x": x, "y": y} for x in row[: width - 1])  # never a full row
    seeds = [0] + rng.sample(range(1, 32768), rng.choice(st["seeds"]) - 1)
    doc = {"id": 1000 + seed if problem_id is None else problem_id, "width": width, "height": height,
           "filled": filled, "sourceLength": rng.choice(st["source_length"]), "sourceSeeds": seeds, "units": units}
    parse_problem(doc)
    return doc


def generate_problems(seed: int, count: int) -> list[dict]:
    """``count`` problems: those of seeds ``seed``, ``seed + 1``, ..."""
    return [generate_problem(seed + k) for k in range(count)]


__all__ = ["generate_problem", "generate_problems", "qualifier_statistics"]
