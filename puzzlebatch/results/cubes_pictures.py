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

__all__ = ["draw_assembly", "assembly_figure"]


_KEY = ("each cell: its cube's number (bold) and the connector values of its faces: -Y at the bottom edge, +Y at "
        "the top, -X left, +X right, ↑ +Z (up) and ↓ -Z (down);\n+ a male connector, - a female one; faces that "
        "touch sum to 0.  Colours: one per cube number, as in the web app.")
_LEGEND_MAX = 48  # more cubes than this: no colour legend (the numbers are written on the cells)


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
    import matplotlib

    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg"):
        raise PuzzleInputError(f"picture {path}: use a .png or .svg file name")
    fig, _ = assembly_figure(assembly, title=title)
    from puzzlebatch.outputs import save_with

    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "puzzlebatch"}):
        save_with(path, lambda tmp: fig.savefig(tmp, dpi=110, facecolor="white"), "--png")
    return path


def assembly_figure(assembly: list[dict], *, title: str | None = None):
    """The figure :func:`draw_assembly` saves, and its legend: ``(figure, [(cube number, colour), ...])``."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch, Rectangle

    from puzzlebatch.results.colours import PALETTE
    from puzzlebatch.results.pictures import legend_grid, row_major

    if not assembly:
        raise PuzzleInputError("picture: empty assembly")
    cells = np.array([a["cell"] for a in assembly], dtype=int)
    dims = cells.max(axis=0) + 1
    numbers = [int(a["cube"]) for a in assembly]

    def colour(n: int) -> str:  # the web app's pieceColour("", n)
        return PALETTE[n % len(PALETTE)]

    legend = [(n, colour(n)) for n in sorted(set(numbers))]
    handles = [Patch(facecolor=c, alpha=0.45, edgecolor="#222222", label=f"cube {n}") for n, c in legend]
    if len(handles) > _LEGEND_MAX:
        handles = []
    n_layers = int(dims[2])
    cols = min(n_layers, 3)
    rows = math.ceil(n_layers / cols)
    width = 4.2 + 3.2 * cols
    ncol, nrow = legend_grid(handles, width - 0.5)
    fig = Figure(figsize=(width, 3.6 * max(rows, 1) + 0.4 + 0.45 + 0.22 * nrow), layout="constrained")
    grid = fig.add_gridspec(rows, cols + 1)

    ax3 = fig.add_subplot(grid[:, 0] if rows > 1 else grid[0, 0], projection="3d")
    filled = np.zeros(tuple(dims), bool)
    colours = np.zeros(tuple(dims) + (4,))
    for (x, y, z), n in zip(cells, numbers):
        filled[x, y, z] = True
        colours[x, y, z] = (*(int(colour(n)[i:i + 2], 16) / 255 for i in (1, 3, 5)), 0.55)
    ax3.voxels(filled, facecolors=colours, edgecolor="#333333", linewidth=0.4)
    for (x, y, z), n in zip(cells, numbers):
        ax3.text(x + 0.5, y + 0.5, z + 0.5, str(n), ha="center", va="center", fontsize=7)
    for set_ticks, set_label, m, name in ((ax3.set_xticks, ax3.set_xlabel, dims[0], "x"),
                                          (ax3.set_yticks, ax3.set_ylabel, dims[1], "y"),
                                          (ax3.set_zticks, ax3.set_zlabel, dims[2], "z")):
        set_ticks(np.arange(int(m)) + 0.5, [str(k) for k in range(int(m))], fontsize=7)
        set_label(name)
    ax3.set_box_aspect(tuple(int(v) for v in dims))

    for z in range(n_layers):
        r, c = divmod(z, cols)
        ax = fig.add_subplot(grid[r, c + 1])
        ax.set_title(f"layer z={z}", fontsize=9)
        ax.set_xlim(0, dims[0])
        ax.set_ylim(0, dims[1])
        ax.set_aspect("equal")
        ax.set_xticks(np.arange(int(dims[0])) + 0.5, [str(k) for k in range(int(dims[0]))])
        ax.set_yticks(np.arange(int(dims[1])) + 0.5, [str(k) for k in range(int(dims[1]))])
        ax.tick_params(labelsize=6, length=0)
        ax.set_xlabel("x", fontsize=7, labelpad=1)
        ax.set_ylabel("y", fontsize=7, labelpad=1)
        for a in assembly:
            x, y, zz = a["cell"]
            if zz != z:
                continue
            f = a["faces"]
            ax.add_patch(Rectangle((x, y), 1, 1, facecolor=colour(int(a["cube"])), alpha=0.45, edgecolor="#222222"))
            ax.text(x + 0.5, y + 0.55, str(a["cube"]), ha="center", va="center", fontsize=10, weight="bold")
            ax.text(x + 0.5, y + 0.08, f"{f[0]:+d}", ha="center", va="bottom", fontsize=6)
            ax.text(x + 0.5, y + 0.92, f"{f[5]:+d}", ha="center", va="top", fontsize=6)
            ax.text(x + 0.06, y + 0.5, f"{f[4]:+d}", ha="left", va="center", fontsize=6)
            ax.text(x + 0.94, y + 0.5, f"{f[2]:+d}", ha="right", va="center", fontsize=6)
            ax.text(x + 0.5, y + 0.3, f"↑{f[1]:+d} ↓{f[3]:+d}", ha="center", va="center", fontsize=6)
    if handles:
        fig.legend(handles=row_major(handles, ncol), loc="outside lower center", ncol=ncol, fontsize=8,
                   frameon=False, handlelength=1.4, handleheight=1.0, columnspacing=1.2, title=_KEY,
                   title_fontsize=7.5)
    else:
        fig.supxlabel(_KEY, fontsize=7.5, color="#333333")
    if title:
        fig.suptitle(title)
    return fig, legend
