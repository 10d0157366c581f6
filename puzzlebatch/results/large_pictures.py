"""Pictures of large tilings (a million cells): an overview of the whole board, downsampled, beside a window of
it at full scale with every piece outlined.

The tiling is a label grid (``labels[y, x]`` = the piece on each cell, ``-1`` = not covered).  Both panels are
raster images built with numpy (no object per piece), so a 1000x1000 tiling is drawn in about a second:

* the overview takes one cell in ``step`` along each side (at most :data:`OVERVIEW_PIXELS` pixels a side), each
  piece in a colour of a small palette chosen by a hash of its number; cells not covered are black; the zoomed
  window is framed;
* the window shows ``window x window`` cells (the board's centre by default) at ``scale`` pixels a cell, with a
  dark line wherever two neighbouring cells belong to different pieces.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.xp import sorted_unique

OVERVIEW_PIXELS = 800
#: pastel palette (RGB) for pieces, by a hash of the piece number
PALETTE = np.array([[141, 211, 199], [255, 255, 179], [190, 186, 218], [251, 128, 114], [128, 177, 211],
                    [253, 180, 98], [179, 222, 105], [252, 205, 229], [217, 217, 217], [188, 128, 189],
                    [204, 235, 197], [255, 237, 111]], np.uint8)


def piece_rgb(labels: np.ndarray) -> np.ndarray:
    """RGB of every cell: its piece's palette colour (a hash of the number), black where not covered."""
    lab = labels.astype(np.int64)
    k = ((lab * 2654435761) >> 7) % len(PALETTE)
    rgb = PALETTE[k]
    rgb[lab < 0] = 0
    return rgb


def overview(labels: np.ndarray, pixels: int = OVERVIEW_PIXELS) -> tuple[np.ndarray, int]:
    """The board downsampled to at most ``pixels`` a side (one cell in ``step``): (RGB image, step)."""
    h, w = labels.shape
    step = max(1, -(-max(w, h) // pixels))
    return piece_rgb(labels[::step, ::step]), step


def window_image(labels: np.ndarray, x0: int, y0: int, size: int, scale: int = 12) -> np.ndarray:
    """Cells ``[x0, x0+size) x [y0, y0+size)`` at ``scale`` pixels a cell, pieces outlined."""
    h, w = labels.shape
    sub = labels[y0:min(h, y0 + size), x0:min(w, x0 + size)]
    img = np.repeat(np.repeat(piece_rgb(sub), scale, 0), scale, 1)
    line = np.array([40, 40, 40], np.uint8)
    dx = sub[:, 1:] != sub[:, :-1]  # a border between column j and j+1
    for j in np.flatnonzero(dx.any(0)):
        rows = np.repeat(dx[:, j], scale)
        img[rows, (j + 1) * scale - 1] = line
        img[rows, (j + 1) * scale] = line
    dy = sub[1:, :] != sub[:-1, :]
    for i in np.flatnonzero(dy.any(1)):
        cols = np.repeat(dy[i, :], scale)
        img[(i + 1) * scale - 1, cols] = line
        img[(i + 1) * scale, cols] = line
    img[[0, -1], :] = line
    img[:, [0, -1]] = line
    return img


def draw_labels(labels: np.ndarray, path: str | os.PathLike, *, window: int = 40, at: tuple[int, int] | None = None,
                title: str | None = None) -> Path:
    """Draw a large tiling to ``path`` (``.png``): the overview and a ``window``-cell window at full scale
    (centred on the board unless ``at`` gives its top-left cell)."""
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise PuzzleInputError(f"--png: {path} must end in .png (a large tiling is drawn as a raster)")
    from puzzlebatch.outputs import save_with

    fig = labels_figure(labels, window=window, at=at, title=title)
    save_with(path, lambda tmp: fig.savefig(tmp, format="png", facecolor="white"), "--png")
    return path


def png_bytes(labels: np.ndarray, *, window: int = 40, title: str | None = None, dpi: int = 70) -> bytes:
    """The picture of :func:`draw_labels` as PNG bytes (the web results browser shows it as an image: a page
    never draws a million cells one by one)."""
    import io

    buf = io.BytesIO()
    labels_figure(labels, window=window, title=title).savefig(buf, format="png", facecolor="white", dpi=dpi)
    return buf.getvalue()


def labels_figure(labels: np.ndarray, *, window: int = 40, at: tuple[int, int] | None = None,
                  title: str | None = None):
    """The matplotlib figure of :func:`draw_labels`."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    h, w = labels.shape
    size = max(1, min(window, w, h))
    x0, y0 = at if at is not None else ((w - size) // 2, (h - size) // 2)
    x0, y0 = max(0, min(int(x0), w - size)), max(0, min(int(y0), h - size))
    ov, step = overview(labels)
    fig = Figure(figsize=(14, 7.4), dpi=100)
    a1 = fig.add_axes([0.02, 0.04, 0.47, 0.86])
    a2 = fig.add_axes([0.51, 0.04, 0.47, 0.86])
    a1.imshow(ov, interpolation="nearest", extent=(0, w, h, 0))
    a1.add_patch(Rectangle((x0, y0), size, size, fill=False, edgecolor="red", linewidth=1.5))
    n = len(sorted_unique(np, labels[labels >= 0].ravel())) if labels.size <= 4_000_000 else None
    a1.set_title(f"{w}x{h}" + (f", {n:,} pieces" if n is not None else "")
                 + (f" (one cell in {step} shown)" if step > 1 else ""), fontsize=10)
    a2.imshow(window_image(labels, x0, y0, size), interpolation="nearest",
              extent=(x0, x0 + size, y0 + size, y0))
    a2.set_title(f"cells x {x0}..{x0 + size - 1}, y {y0}..{y0 + size - 1} (framed in red on the left)", fontsize=10)
    for a in (a1, a2):
        a.tick_params(labelsize=7)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig
