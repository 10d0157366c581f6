"""What the cubes verbs share on the command line: their inputs, common options and text renderings (used by
:mod:`.commands` and :mod:`.ga`)."""

from __future__ import annotations

import numpy as np

from puzzlebatch.cli.options import add_backend_argument


def cube_inputs(args):
    """The figure and the cube set named by ``--figure`` and ``--cubes``, checked to fit."""
    from puzzlebatch.api.cubes import problem_of

    return problem_of(args.figure, args.cubes)


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
    from puzzlebatch.puzzles.cubes.model import FACE_NAMES

    head = "cell       cube  rot  faces " + " ".join(f"{n:>3}" for n in FACE_NAMES)
    lines = [head]
    for a in assembly:
        x, y, z = a["cell"]
        lines.append(f"({x},{y},{z})    {a['cube']:>4}  {a['rotation']:>3}  {'':6}"
                     + " ".join(f"{v:>3d}" for v in a["faces"]))
    return lines


def add_common(p) -> None:
    """``--figure``, ``--cubes``, ``--json`` and ``--backend``: the options of every cubes verb."""
    p.add_argument("--figure", required=True,
                   help="a box LxWxH (length x width x height, e.g. 3x3x3) or a voxel file of layers ('#' filled)")
    p.add_argument("--cubes", metavar="FILE",
                   help="cube set, one cube a line NUMBER;F0,...,F5 (default: the 27 cubes of the document)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    add_backend_argument(p)
