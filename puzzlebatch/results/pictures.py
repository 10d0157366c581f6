"""Pictures of a folded snake cube: a 3D view of the chain beside the box drawn layer by layer.

matplotlib is imported inside :func:`draw_snake` and only its object-oriented API is used (a bare
``Figure`` saved through the Agg/SVG canvases), so importing this module is cheap and never changes
the user's pyplot backend.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from puzzlebatch.errors import PuzzleInputError

__all__ = ["draw_snake", "draw_packing", "packing_figure"]

_FORMATS = (".png", ".svg")
_CMAP = "viridis"
_ALPHA_3D = 0.28  # voxel face opacity
_TINT_2D = 0.55  # layer cells: the chain colour blended this much over white
_LINE = "#222222"


def draw_snake(cells: np.ndarray | list, dims: tuple[int, int, int], path: str | os.PathLike, *,
               title: str | None = None) -> Path:
    """Draw a folded snake cube to a PNG or SVG file.

    Parameters
    ----------
    cells : numpy.ndarray or list
        Integer array of shape ``(N, 3)``: the ``(x, y, z)`` cell of each cube, cube 1 first.
    dims : tuple of int
        The box ``(a, b, c)``; cells satisfy ``0 <= x < a``, ``0 <= y < b``, ``0 <= z < c``.
    path : str or os.PathLike
        The file to write; its suffix picks the format (``.png`` or ``.svg``).  Missing parent
        directories are created.
    title : str, optional
        A title over the whole figure.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    ValueError
        (:class:`~puzzlebatch.errors.PuzzleInputError`) The suffix is not ``.png`` or ``.svg``,
        ``cells`` is not an ``(N, 3)`` integer array of distinct cells inside the box, or ``dims`` is
        not three positive integers.

    Notes
    -----
    Left: the cubes as semi-transparent voxels coloured along the chain (cube 1 to N, sequential
    colormap), the chain's centre line, and cubes 1 and N labelled.  Right: one grid per layer
    ``z = 0 .. c-1`` (higher layers drawn higher up), each cell showing its cube's 1-based number in
    the same colours, the chain's moves inside the layer as lines, and ▲ / ▼ where the chain links
    the cube to the layer above / below.  Legible up to 4×4×4; renders (densely) up to 6×6×6.

    Examples
    --------
    >>> draw_snake([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], (2, 2, 1), "square.png")  # doctest: +SKIP
    PosixPath('square.png')
    """
    path = Path(os.fspath(path))
    if path.suffix.lower() not in _FORMATS:
        raise PuzzleInputError(
            f"cannot draw {str(path)!r}: unsupported suffix {path.suffix or '(none)'!r}, use .png or .svg")
    xyz, dims = _check(cells, dims)

    import matplotlib
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    a, b, c = dims
    n = len(xyz)
    cmap = matplotlib.colormaps[_CMAP]
    norm = Normalize(vmin=1, vmax=max(n, 2))
    colours = cmap(norm(np.arange(1, n + 1)))
    tints = 1.0 - _TINT_2D * (1.0 - colours)
    tints[:, 3] = 1.0

    ncols = 1 if c <= 3 else 2
    nrows = math.ceil(c / ncols)
    height = 7.0
    layer_h = (height - 1.4) / nrows
    right_w = ncols * min(layer_h * a / b, 4.0) + 0.8 * ncols + 0.4
    fig = Figure(figsize=(7.2 + right_w, height), dpi=110, layout="constrained")
    left, right = fig.subfigures(1, 2, width_ratios=[7.2, right_w], wspace=0.02)

    # ---- left: 3D view -------------------------------------------------------------------------
    ax = left.add_subplot(projection="3d", computed_zorder=False)
    filled = np.zeros(dims, dtype=bool)
    faces = np.zeros((*dims, 4))
    filled[tuple(xyz.T)] = True
    faces[tuple(xyz.T)] = colours * [1, 1, 1, 0] + [0, 0, 0, _ALPHA_3D]
    ax.voxels(filled, facecolors=faces, edgecolors=(0.15, 0.15, 0.15, 0.22), linewidth=0.5, zorder=1)
    centres = xyz + 0.5
    ax.plot(*centres.T, color=_LINE, lw=2.4, solid_capstyle="round", solid_joinstyle="round", zorder=5)
    ax.scatter(*centres.T, s=14, c=colours, edgecolors=_LINE, linewidths=0.6, depthshade=False, zorder=6)
    for idx, label, marker in ((0, "1", "o"), (n - 1, "N", "s")):
        ax.scatter(*centres[idx], s=110, marker=marker, color=colours[idx], edgecolors="k", linewidths=1.6,
                   depthshade=False, zorder=7)
        ax.text(*(centres[idx] + [0.0, 0.0, 0.32]), label, fontsize=13, fontweight="bold", ha="center",
                va="bottom", zorder=8, bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="k", lw=0.8))
    for set_ticks, set_labels, m, name in ((ax.set_xticks, ax.set_xlabel, a, "x"),
                                           (ax.set_yticks, ax.set_ylabel, b, "y"),
                                           (ax.set_zticks, ax.set_zlabel, c, "z")):
        set_ticks(np.arange(m) + 0.5, [str(k) for k in range(m)], fontsize=9)
        set_labels(name, fontsize=11, labelpad=9)
    ax.set(xlim=(0, a), ylim=(0, b), zlim=(0, c))
    ax.set_box_aspect(dims, zoom=0.92)
    ax.view_init(elev=24, azim=-58)
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.set_pane_color((0.96, 0.96, 0.96, 1.0))
    ax.set_title(f"N = {n} cubes in a {a}×{b}×{c} box", fontsize=12)
    from matplotlib.lines import Line2D

    ax.legend(handles=[Line2D([], [], marker="o", ls="none", ms=9, color=colours[0], mec="k", label="cube 1 (start)"),
                       Line2D([], [], marker="s", ls="none", ms=9, color=colours[-1], mec="k", label="cube N (end)"),
                       Line2D([], [], color=_LINE, lw=2.4, label="the chain, cube to cube")],
              loc="upper left", fontsize=8, framealpha=0.9)
    left.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, orientation="horizontal", shrink=0.55,
                  aspect=30, pad=0.02, label="position along the chain (cube 1 … N)")

    # ---- right: the layers ---------------------------------------------------------------------
    axes = right.subplots(nrows, ncols, squeeze=False)
    number = {tuple(p): i for i, p in enumerate(xyz.tolist())}
    cell_pt = 72.0 * min(layer_h / max(b, 1), (right_w / ncols - 0.8) / max(a, 1))
    font = float(np.clip(0.34 * cell_pt, 5.0, 13.0))
    tri = float(np.clip(0.16 * cell_pt, 4.0, 7.0))
    for k in range(nrows * ncols):
        lay = axes[nrows - 1 - k // ncols, k % ncols]  # z grows upwards, then rightwards
        if k >= c:
            lay.set_axis_off()
            continue
        for x in range(a):
            for y in range(b):
                i = number.get((x, y, k))
                ends = i is not None and i in (0, n - 1)
                lay.add_patch(Rectangle((x, y), 1, 1, fc="white" if i is None else tints[i],
                                        ec="k" if ends else "#9a9a9a", lw=2.2 if ends else 0.6,
                                        zorder=3 if ends else 1))
                if i is not None:
                    lay.text(x + 0.5, y + 0.5, str(i + 1), ha="center", va="center", fontsize=font,
                             fontweight="bold" if ends else "normal", zorder=4,
                             bbox=dict(boxstyle="round,pad=0.18", fc="white", ec="none", alpha=0.85))
        lay.set(xlim=(0, a), ylim=(0, b), aspect="equal")
        lay.set_xticks(np.arange(a) + 0.5, [str(v) for v in range(a)], fontsize=7)
        lay.set_yticks(np.arange(b) + 0.5, [str(v) for v in range(b)], fontsize=7)
        lay.tick_params(length=0, pad=2)
        for spine in lay.spines.values():
            spine.set_color("#666666")
        lay.set_title(f"layer z = {k}", fontsize=10, pad=3)
    for i in range(n - 1):
        p, q = xyz[i], xyz[i + 1]
        if p[2] == q[2]:
            lay = axes[nrows - 1 - p[2] // ncols, p[2] % ncols]
            lay.plot(*zip(p[:2] + 0.5, q[:2] + 0.5), color=_LINE, lw=2.0, solid_capstyle="round", zorder=2)
            continue
        for here, there in ((p, q), (q, p)):
            lay = axes[nrows - 1 - here[2] // ncols, here[2] % ncols]
            up = there[2] > here[2]
            lay.plot(here[0] + 0.84, here[1] + (0.82 if up else 0.18), marker="^" if up else "v",
                     ms=tri, color=_LINE, mec="white", mew=0.5, zorder=5)
    if c > 1:
        right.supxlabel("▲ / ▼  the chain continues in\nthe layer above / below", fontsize=9, color="#333333")
    if title:
        fig.suptitle(title, fontsize=14, fontweight="bold")

    from puzzlebatch.outputs import save_with

    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "puzzlebatch"}):
        save_with(path, lambda tmp: fig.savefig(tmp, format=path.suffix.lower()[1:], facecolor="white"), "--png")
    return path


def _check(cells, dims) -> tuple[np.ndarray, tuple[int, int, int]]:
    """Validate and normalise ``cells`` and ``dims``; return an ``(N, 3)`` int array and the box."""
    try:
        box = tuple(int(d) for d in dims)
    except (TypeError, ValueError):
        box = ()
    if len(box) != 3 or min(box) < 1 or any(d != float(e) for d, e in zip(box, dims)):
        raise PuzzleInputError(f"dims must be three positive integers (a, b, c), got {dims!r}")
    try:
        arr = np.asarray(cells)
    except ValueError:  # ragged nested lists
        raise PuzzleInputError("cells must be an (N, 3) array of (x, y, z), got a ragged list") from None
    if arr.ndim != 2 or arr.shape[1] != 3 or arr.shape[0] == 0:
        raise PuzzleInputError(f"cells must be an (N, 3) array of (x, y, z) with N >= 1, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind not in "fb" or not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise PuzzleInputError(f"cells must hold integers, got dtype {arr.dtype}")
    xyz = arr.astype(np.int64)
    bad = np.flatnonzero(np.any((xyz < 0) | (xyz >= box), axis=1))
    if bad.size:
        raise PuzzleInputError(f"cube {bad[0] + 1} at {tuple(xyz[bad[0]].tolist())} lies outside the "
                               f"{box[0]}×{box[1]}×{box[2]} box")
    flat = np.ravel_multi_index(tuple(xyz.T), box)
    if np.unique(flat).size != len(flat):
        _, first = np.unique(flat, return_index=True)
        dup = int(np.setdiff1d(np.arange(len(flat)), first)[0])
        raise PuzzleInputError(f"cube {dup + 1} at {tuple(xyz[dup].tolist())} shares its cell with an earlier cube")
    return xyz, box


def draw_packing(pk, placements, path: str | os.PathLike, *, title: str | None = None) -> Path:
    """Draw a packing: every piece a coloured block with its outline and its letter; 3D boards layer by layer.

    ``pk`` is a :class:`puzzlebatch.puzzles.polyomino.packing.Packing`; ``placements`` its solution as
    ``(piece index, cells)`` pairs (a level's pre-placed pieces are drawn too, hatched).  A piece named after a
    colour (IQ Puzzler Pro's ``blue``, ``pink``...) is drawn in that colour, the others in a palette
    (:func:`puzzlebatch.results.colours.piece_colours`); a legend under the board gives each letter's piece name.
    """
    path = Path(path)
    if path.suffix.lower() not in _FORMATS:
        raise PuzzleInputError(f"--png/--svg: {path} must end in .png or .svg")
    import matplotlib

    fig, _, _ = packing_figure(pk, placements, title=title)
    from puzzlebatch.outputs import save_with

    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "puzzlebatch"}):
        save_with(path, lambda tmp: fig.savefig(tmp, format=path.suffix.lower()[1:], facecolor="white"), "--png")
    return path


def packing_figure(pk, placements, *, title: str | None = None):
    """The figure :func:`draw_packing` saves: ``(figure, axes per layer, legend)``.

    ``legend`` lists ``(glyph, piece name, colour)`` for each piece on the board, in the set's order; the axes
    use board coordinates (cell ``(x, y)`` spans ``x..x+1``, ``y..y+1``, y downwards).
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch, Rectangle

    from puzzlebatch.results.colours import piece_colours, text_colour

    board = pk.board
    size = tuple(board.size) + ((1,) if board.dim == 2 else ())
    w, h, d = size
    owner = np.full((d, h, w), -1, np.int64)
    pre = np.zeros((d, h, w), bool)
    pieces = [(k, c, True) for k, c in pk.preplaced] + [(k, c, False) for k, c in placements]
    for n, (_k, cells, is_pre) in enumerate(pieces):
        for c in cells:
            x, y = int(c[0]), int(c[1])
            z = int(c[2]) if board.dim == 3 else 0
            owner[z, y, x] = n
            pre[z, y, x] = is_pre
    colours = piece_colours(p.name for p in pk.pieces)
    on_board = sorted({int(k) for k, _, _ in pieces})
    legend = [(pk.glyphs[k], pk.pieces[k].name, colours[k]) for k in on_board]
    playable = np.zeros((d, h, w), bool)
    for c in board.playable:
        playable[(c[2] if board.dim == 3 else 0), c[1], c[0]] = True
    handles = [Patch(facecolor=c, edgecolor=_LINE, label=name if g == name else f"{g}  {name}")
               for g, name, c in legend]
    if not playable.all():
        handles.append(Patch(facecolor="#444444", edgecolor=_LINE, label="hole"))
    if len(pk.preplaced):
        handles.append(Patch(facecolor="white", edgecolor=_LINE, hatch="//", label="placed in the level"))
    cols = d
    width = min(16, 0.5 * w * cols + 0.6 * (cols - 1) + 0.6)
    ncol, nrow = legend_grid(handles, max(width, 3.0))
    legend_h = 0.24 * nrow + 0.15
    fig = Figure(figsize=(max(width, 3.0), 0.5 * h + 0.9 + legend_h), dpi=110, layout="constrained")
    axes = fig.subplots(1, cols, squeeze=False)[0]
    font = 8 if max(len(g) for g in pk.glyphs) == 1 else 6
    for z, ax in enumerate(axes):
        ax.set_xlim(0, w)
        ax.set_ylim(h, 0)
        ax.set_aspect("equal")
        ax.axis("off")
        if d > 1:
            ax.set_title(f"z = {z}", fontsize=9)
        for y in range(h):
            for x in range(w):
                n = owner[z, y, x]
                if not playable[z, y, x]:
                    ax.add_patch(Rectangle((x, y), 1, 1, facecolor="#444444", edgecolor="none"))
                    continue
                if n < 0:
                    ax.add_patch(Rectangle((x, y), 1, 1, facecolor="white", edgecolor="#bbbbbb", lw=0.5))
                    continue
                k = pieces[n][0]
                ax.add_patch(Rectangle((x, y), 1, 1, facecolor=colours[k], edgecolor="none",
                                       hatch="//" if pre[z, y, x] else None))
                ax.text(x + 0.5, y + 0.55, pk.glyphs[k], ha="center", va="center", fontsize=font,
                        color=text_colour(colours[k]))
                # outline where the neighbour belongs to another piece
                for dx, dy, seg in ((1, 0, ((x + 1, x + 1), (y, y + 1))), (-1, 0, ((x, x), (y, y + 1))),
                                    (0, 1, ((x, x + 1), (y + 1, y + 1))), (0, -1, ((x, x + 1), (y, y)))):
                    nx, ny = x + dx, y + dy
                    other = owner[z, ny, nx] if 0 <= nx < w and 0 <= ny < h else -2
                    if other != n:
                        ax.plot(*seg, color=_LINE, lw=1.6, solid_capstyle="round")
    if handles:
        fig.legend(handles=row_major(handles, ncol), loc="outside lower center", ncol=ncol, fontsize=8,
                   frameon=False, handlelength=1.4, handleheight=1.0, columnspacing=1.2)
    fig.suptitle(title or f"{board.label}: {len(pieces)} pieces", fontsize=10)
    return fig, list(axes), legend


def legend_grid(handles, width: float, fontsize: float = 8.0) -> tuple[int, int]:
    """Columns and rows of a legend of ``handles`` under a figure ``width`` inches wide (rows balanced)."""
    n = len(handles)
    if not n:
        return 1, 0
    longest = max(len(h.get_label()) for h in handles)
    fit = max(1, min(n, int(width / (0.45 + 0.0095 * fontsize * longest))))
    nrow = -(-n // fit)
    return -(-n // nrow), nrow


def row_major(handles: list, ncol: int) -> list:
    """``handles`` reordered so that a legend of ``ncol`` columns (matplotlib fills column by column) reads
    left to right, then top to bottom."""
    n = len(handles)
    return [handles[r * ncol + c] for c in range(ncol) for r in range(-(-n // ncol)) if r * ncol + c < n]
