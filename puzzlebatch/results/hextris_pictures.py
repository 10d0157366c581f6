"""Pictures and terminal renderings of hex Tetris boards (pointy-top hexagons, odd rows shifted right).

matplotlib is imported inside the drawing functions and only its object-oriented API is used, so importing this
module is cheap and never changes the user's pyplot backend.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from puzzlebatch.errors import PuzzleInputError

Cell = tuple[int, int]

_EMPTY = "#f4f1ea"
_INITIAL = "#5b6770"
_LOCKED = "#e0a43a"
_UNIT = "#3a7bd5"
_EDGE = "#9a968c"

#: The legend under every board: the cell kinds and their colours (the pivot is a white dot).
LEGEND = (("empty", _EMPTY), ("full from the start", _INITIAL), ("locked", _LOCKED), ("current unit", _UNIT),
          ("pivot", "white"))


@dataclass
class Frame:
    """One picture of a game: the full cells, the current unit and its pivot, and a caption."""

    filled: set[Cell]
    unit: frozenset[Cell] | set[Cell]
    pivot: Cell | None
    caption: str


def render_text(width: int, height: int, filled, unit=(), pivot=None, initial=()) -> str:
    """The board as text, one line a row, odd rows indented by one column.

    ``#`` a full cell of the initial board, ``o`` a locked cell, ``U`` the current unit (``@`` where the pivot is
    on a member), ``+`` the pivot on an empty cell, ``.`` empty.
    """
    filled, unit, initial = set(filled), set(unit), set(initial)
    lines = []
    for y in range(height):
        row = []
        for x in range(width):
            c = (x, y)
            if c in unit:
                ch = "@" if c == pivot else "U"
            elif c in filled:
                ch = "#" if c in initial else "o"
            elif c == pivot:
                ch = "+"
            else:
                ch = "."
            row.append(ch)
        lines.append((" " if y & 1 else "") + " ".join(row))
    return "\n".join(lines)


def _centre(x: int, y: int) -> tuple[float, float]:
    return x + 0.5 * (y & 1), -y * math.sqrt(3) / 2


def _draw(ax, width: int, height: int, frame: Frame, initial: set[Cell]) -> None:
    from matplotlib.patches import Circle, RegularPolygon

    radius = 1 / math.sqrt(3)
    for y in range(height):
        for x in range(width):
            c = (x, y)
            colour = _EMPTY
            if c in frame.unit:
                colour = _UNIT
            elif c in frame.filled:
                colour = _INITIAL if c in initial else _LOCKED
            ax.add_patch(RegularPolygon(_centre(x, y), numVertices=6, radius=radius * 0.98, orientation=0,
                                        facecolor=colour, edgecolor=_EDGE, linewidth=0.4))
    if frame.pivot is not None and frame.unit:
        ax.add_patch(Circle(_centre(*frame.pivot), radius * 0.3, facecolor="white", edgecolor="black",
                            linewidth=0.6, zorder=3))
    ax.set_xlim(-1, width + 0.5)
    ax.set_ylim(-height * math.sqrt(3) / 2, math.sqrt(3) / 2)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(frame.caption, fontsize=9)


def _legend(fig) -> None:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=c, edgecolor=_EDGE, label=name) for name, c in LEGEND[:-1]]
    handles.append(Line2D([], [], marker="o", ls="none", ms=5, mfc="white", mec="black", mew=0.6,
                          label=LEGEND[-1][0]))
    from puzzlebatch.results.pictures import row_major

    ncol = 5 if fig.get_figwidth() >= 5.6 else 3
    fig.legend(handles=row_major(handles, ncol), loc="lower center", ncol=ncol, fontsize=7, frameon=False,
               handlelength=1.2, columnspacing=1.0, borderaxespad=0.2)


def _layout(fig) -> None:
    """Room at the bottom for the legend (two rows, or one on a wide figure), then tight around the board."""
    rows = 1 if fig.get_figwidth() >= 5.6 else 2
    fig.tight_layout(rect=(0, (0.2 * rows + 0.1) / fig.get_figheight(), 1, 1))


def _figure(width: int, height: int):
    from matplotlib.figure import Figure

    scale = min(0.35, 12.0 / max(width, 1), 10.0 / max(height, 1))
    fig_w = max(3.0, (width + 1.5) * scale)
    legend_h = 0.2 * (1 if fig_w >= 5.6 else 2) + 0.1
    return Figure(figsize=(fig_w, max(2.5, (height * 0.87 + 1.5) * scale) + legend_h), dpi=100)


def draw_board(width: int, height: int, frame: Frame, path: str | os.PathLike, *,
               initial: set[Cell] | frozenset[Cell] = frozenset()) -> Path:
    """Draw one board to a PNG or SVG file and return its path."""
    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg"):
        raise PuzzleInputError(f"--png {path}: the picture must be a .png or .svg file")
    from puzzlebatch.outputs import check_output, save_with

    check_output(path, "--png")  # before drawing
    fig = _figure(width, height)
    _draw(fig.add_subplot(1, 1, 1), width, height, frame, set(initial))
    _legend(fig)
    _layout(fig)
    if path.suffix.lower() == ".png":
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        save_with(path, lambda tmp: FigureCanvasAgg(fig).print_png(str(tmp)), "--png")
    else:
        import matplotlib
        from matplotlib.backends.backend_svg import FigureCanvasSVG

        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "puzzlebatch"}):
            save_with(path, lambda tmp: FigureCanvasSVG(fig).print_svg(str(tmp)), "--png")
    return path


def draw_animation(width: int, height: int, frames: list[Frame], path: str | os.PathLike, *,
                   initial: set[Cell] | frozenset[Cell] = frozenset(), fps: int = 8) -> Path:
    """An animated GIF of a game (one frame per given :class:`Frame`), written with Pillow."""
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    path = Path(path)
    if path.suffix.lower() != ".gif":
        raise PuzzleInputError(f"--gif {path}: the animation must be a .gif file")
    if not frames:
        raise PuzzleInputError("--gif: nothing to animate")
    from puzzlebatch.outputs import check_output, save_with

    check_output(path, "--gif")  # before drawing every frame
    images = []
    for frame in frames:
        fig = _figure(width, height)
        _draw(fig.add_subplot(1, 1, 1), width, height, frame, set(initial))
        _legend(fig)
        _layout(fig)
        buf = io.BytesIO()
        FigureCanvasAgg(fig).print_png(buf)
        buf.seek(0)
        images.append(Image.open(buf).convert("P", palette=Image.ADAPTIVE))
    save_with(path, lambda tmp: images[0].save(tmp, format="GIF", save_all=True, append_images=images[1:],
                                               duration=max(1, int(1000 / fps)), loop=0), "--gif")
    return path
