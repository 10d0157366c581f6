"""What the cubes family's runs store, read back for ``show`` and the web app (the records protocol of
:mod:`puzzlebatch.results.show`).

``solve --out`` stores one assembly, a row a cube: ``cell`` ``[x, y, z]``, ``cube`` (its number), ``rotation``
and ``faces`` (its six connector values as placed, in the order -Y, +Z, +X, -Z, -X, +Y).  ``ga`` stores its
history, a row a generation (``generation``, ``best``, ``mean``, ``replaced``, ``evaluations``, ``seconds``,
``best_genome``, ``fitness``), and the assembly it built, if it built one, in its result.  ``count`` stores counts
only.  The instances are the figure's ``cells`` and the cube set (``cube_numbers``, ``cube_faces``).
"""

from __future__ import annotations

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.results.show import plain, plain_rows, plural

KIND = "cubes"  # the web page's drawing
_ASSEMBLY = ("cell", "cube", "rotation", "faces")


def _stored_assembly(run) -> list[dict] | None:
    a = run.attrs
    if a.get("algorithm") == "ga":
        found = (a.get("result") or {}).get("assembly")
        return found if isinstance(found, list) and found else None
    if set(_ASSEMBLY) <= set(run.column_info()) and run.n_committed:
        rows = run.items()
        return [{"cell": plain(rows["cell"][i]), "cube": int(rows["cube"][i]), "rotation": int(rows["rotation"][i]),
                 "faces": plain(rows["faces"][i])} for i in range(len(rows["cube"]))]
    return None


def describe(run) -> dict:
    a = run.attrs
    params = a.get("params") or {}
    result = a.get("result") or {}
    figure = params.get("figure", "?")
    algorithm = a.get("algorithm")
    if algorithm == "ga":
        found = isinstance(result.get("assembly"), list) and bool(result["assembly"])
        n = 1 if found else 0
        summary = f"figure {figure}: GA history, {plural(run.n_committed, 'generation')}" + (
            "; the assembly it built" if found else "")
    elif algorithm == "solve":
        n = 1 if run.n_committed and "cube" in run.column_info() else 0
        summary = f"figure {figure}: " + ("one assembly, a row a cube" if n else "no assembly")
    else:
        n = 0
        summary = f"figure {figure}: counts only"
    return {"summary": summary, "stored_solutions": n, "drawing": KIND if algorithm == "solve" or n else None,
            "rows_per_solution": max(1, run.n_committed)}


def items(run, start: int, stop: int) -> list[dict]:
    return plain_rows(run.item_rows(start, stop))


def layers_text(assembly: list[dict]) -> str:
    """Cube numbers layer by layer (z = 0 first), y growing downwards; ``.`` for a cell outside the figure."""
    cells = np.array([a["cell"] for a in assembly])
    dims = cells.max(axis=0) + 1
    grid = np.full((dims[2], dims[1], dims[0]), ".", dtype=object)
    for a in assembly:
        x, y, z = a["cell"]
        grid[z, y, x] = str(a["cube"])
    blocks = []
    for z in range(dims[2]):
        rows = [" ".join(f"{v:>2}" for v in grid[z, y]) for y in range(dims[1])]
        blocks.append([f"z={z}".ljust(len(rows[0]))] + rows)
    return "\n".join("   ".join(block[i] for block in blocks) for i in range(dims[1] + 1))


def assembly_lines(assembly: list[dict]) -> list[str]:
    """One line a cube: its cell, number, rotation and face values."""
    from puzzlebatch.puzzles.cubes.model import FACE_NAMES

    lines = ["cell       cube  rot  faces " + " ".join(f"{n:>3}" for n in FACE_NAMES)]
    for a in assembly:
        x, y, z = a["cell"]
        lines.append(f"({x},{y},{z})    {a['cube']:>4}  {a.get('rotation', 0):>3}  {'':6}"
                     + " ".join(f"{v:>3d}" for v in a["faces"]))
    return lines


def solution(run, k: int) -> dict:
    """The run's assembly (``k`` 0): ``figure`` and ``assembly``, a dict a cube (``cell``, ``cube``, ``rotation``,
    ``faces``) as ``cubes solve --json`` prints it."""
    assembly = _stored_assembly(run) if k == 0 else None
    if assembly is None:
        raise PuzzleInputError(f"run {run.id} stores no assembly {k + 1}")
    figure = (run.attrs.get("params") or {}).get("figure") or "?"
    text = "\n".join([f"figure {figure}: {len(assembly)} cubes", layers_text(assembly), *assembly_lines(assembly)])
    return {"figure": figure, "assembly": assembly, "text": text}


def draw(run, k: int, path):
    from puzzlebatch.results.cubes_pictures import draw_assembly

    doc = solution(run, k)
    return draw_assembly(doc["assembly"], path, title=f"{doc['figure']} from {len(doc['assembly'])} cubes")
