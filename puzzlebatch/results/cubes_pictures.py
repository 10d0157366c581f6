"""Pictures of a connector-cube assembly: a 3D voxel view beside the figure drawn layer by layer.

In each layer grid a cell shows its cube number in the middle, the connector values of its four side faces at
its four sides (-Y at the bottom edge, +Y at the top, -X left, +X right) and ``↑v ↓w`` for its +Z / -Z faces.
matplotlib is imported inside :func:`draw_assembly` (object-oriented API, no pyplot state).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from puzzlebatch.errors import PuzzleInputError

__all__ = ["draw_assembly"]


def draw_assembly(assembly: list[dict], path: str | os.PathLike, *, title: str | None = None) -> Path:
    """Draw an assembly (the ``assembly`` list of ``cubes solve --json``) to a PNG or SVG file.

    Parameters
    ----------
    assembly
        One dict per cell: ``cell`` [x, y, z], ``cube`` (number), ``faces`` (six values, data face order
        -Y, +Z, +X, -Z, -X, +Y).
    path
        ``.png`` or ``.svg``; parent folders are created.
    title
        Optional title.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg"):
        raise PuzzleInputError(f"picture {path}: use a .png or .svg file name")
    if not assembly:
        raise PuzzleInputError("picture: empty assembly")
    cells = np.array([a["cell"] for a in assembly], dtype=int)
    dims = cells.max(axis=0) + 1
    numbers = [a["cube"] for a in assembly]
    n_layers = int(dims[2])
    cols = min(n_layers, 3)
    rows = math.ceil(n_layers / cols)
    fig = Figure(figsize=(4.2 + 3.2 * cols, 3.6 * max(rows, 1) + 0.4))
    FigureCanvasAgg(fig)
    cmap = __import__("matplotlib").colormaps["tab20"]

    ax3 = fig.add_subplot(rows, cols + 1, 1, projection="3d")
    filled = np.zeros(tuple(dims), bool)
    colours = np.empty(tuple(dims) + (4,))
    for (x, y, z), n in zip(cells, numbers):
        filled[x, y, z] = True
        colours[x, y, z] = cmap(n % 20)
        colours[x, y, z, 3] = 0.55
    ax3.voxels(filled, facecolors=colours, edgecolor="#333333", linewidth=0.4)
    for (x, y, z), n in zip(cells, numbers):
        ax3.text(x + 0.5, y + 0.5, z + 0.5, str(n), ha="center", va="center", fontsize=7)
    ax3.set_xlabel("x")
    ax3.set_ylabel("y")
    ax3.set_zlabel("z")
    ax3.set_box_aspect(tuple(int(v) for v in dims))

    for z in range(n_layers):
        r, c = divmod(z, cols)
        ax = fig.add_subplot(rows, cols + 1, r * (cols + 1) + c + 2)
        ax.set_title(f"layer z={z}", fontsize=9)
        ax.set_xlim(0, dims[0])
        ax.set_ylim(0, dims[1])
        ax.set_aspect("equal")
        ax.set_xticks(range(int(dims[0]) + 1))
        ax.set_yticks(range(int(dims[1]) + 1))
        ax.tick_params(labelsize=6)
        for a in assembly:
            x, y, zz = a["cell"]
            if zz != z:
                continue
            f = a["faces"]
            ax.add_patch(__import__("matplotlib").patches.Rectangle((x, y), 1, 1, facecolor=cmap(a["cube"] % 20),
                                                                    alpha=0.45, edgecolor="#222222"))
            ax.text(x + 0.5, y + 0.55, str(a["cube"]), ha="center", va="center", fontsize=10, weight="bold")
            ax.text(x + 0.5, y + 0.08, f"{f[0]:+d}", ha="center", va="bottom", fontsize=6)
            ax.text(x + 0.5, y + 0.92, f"{f[5]:+d}", ha="center", va="top", fontsize=6)
            ax.text(x + 0.06, y + 0.5, f"{f[4]:+d}", ha="left", va="center", fontsize=6)
            ax.text(x + 0.94, y + 0.5, f"{f[2]:+d}", ha="right", va="center", fontsize=6)
            ax.text(x + 0.5, y + 0.3, f"↑{f[1]:+d} ↓{f[3]:+d}", ha="center", va="center", fontsize=6)
    if title:
        fig.suptitle(title)
    from puzzlebatch.outputs import save_with

    save_with(path, lambda tmp: fig.savefig(tmp, dpi=110), "--png")
    return path
