"""Pictures of a sliding-puzzle solution: the boards along the path as a strip, left to right, top to bottom.

Each tile is coloured by its home cell (rows of the goal in distinct hues, lighter along the row) with the
number in black or white, whichever reads better; the blank is white; the tile that just moved is outlined.
Only matplotlib's object-oriented API is used (no pyplot state).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from puzzlebatch.errors import PuzzleInputError

_FORMATS = (".png", ".svg")


def _colour(tile: int, rows: int, cols: int, goal: str):
    import matplotlib

    home = tile - 1 if goal == "blank-last" else tile
    r, c = divmod(home, cols)
    base = matplotlib.colormaps["tab10"](r % 10)
    mix = 0.15 + 0.55 * (c / max(1, cols - 1))  # lighter to the right
    return tuple(base[i] * (1 - mix) + mix for i in range(3))


def draw_path(boards, path: str | os.PathLike, *, goal: str = "blank-last", moves=None,
              title: str | None = None, per_row: int | None = None) -> Path:
    """Draw ``boards`` (a list of :class:`~puzzlebatch.puzzles.sliding.model.Board`) to a PNG or SVG file.

    ``moves[i]`` (the tile moved into board ``i + 1``) is written under each board after the first.
    """
    path = Path(path)
    if path.suffix.lower() not in _FORMATS:
        raise PuzzleInputError(f"cannot draw {str(path)!r}: unsupported suffix {path.suffix or '(none)'!r}, "
                               f"use .png or .svg")
    if not boards:
        raise PuzzleInputError("nothing to draw: empty path")
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    rows, cols = boards[0].rows, boards[0].cols
    count = len(boards)
    per_row = per_row or min(count, max(4, int(math.ceil(math.sqrt(count * 1.6)))))
    lines = int(math.ceil(count / per_row))
    cell = 0.36
    key = path_key(goal, moves is not None)
    key_width = 0.055 * max(len(line) for line in key.splitlines())  # inches: the key is never cut off
    fig = Figure(figsize=(max(per_row * (cols + 0.8) * cell, 3.4, key_width),
                          lines * (rows + 1.3) * cell + (0.4 if title else 0) + 0.16 * (key.count("\n") + 1) + 0.1),
                 dpi=110, layout="constrained")
    axes = fig.subplots(lines, per_row, squeeze=False)
    for i, ax in enumerate(axes.flat):
        ax.set_axis_off()
        if i >= count:
            continue
        b = boards[i]
        ax.set_xlim(0, cols)
        ax.set_ylim(rows, 0)
        ax.set_aspect("equal")
        moved = moves[i - 1] if (moves is not None and i > 0) else None
        for k, t in enumerate(b.tiles):
            r, c = divmod(k, cols)
            if t == 0:
                ax.add_patch(Rectangle((c, r), 1, 1, facecolor="white", edgecolor="#999999", lw=0.5))
                continue
            col = _colour(t, rows, cols, goal)
            lum = 0.299 * col[0] + 0.587 * col[1] + 0.114 * col[2]
            ax.add_patch(Rectangle((c, r), 1, 1, facecolor=col, edgecolor="black" if t == moved else "#555555",
                                   lw=2.0 if t == moved else 0.5))
            ax.text(c + 0.5, r + 0.52, str(t), ha="center", va="center", fontsize=7 if rows * cols > 16 else 8,
                    color="black" if lum > 0.5 else "white", fontweight="bold")
        label = "start" if i == 0 else f"{i}: {moved}" if moved is not None else str(i)
        ax.set_title(label, fontsize=7, pad=2)
    if title:
        fig.suptitle(title, fontsize=9)
    fig.supxlabel(key, fontsize=6.5, color="#333333")
    import matplotlib

    from puzzlebatch.outputs import save_with

    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "puzzlebatch"}):
        save_with(path, lambda tmp: fig.savefig(tmp, format=path.suffix.lower()[1:], facecolor="white"), "--png")
    return path


def path_key(goal: str = "blank-last", moves: bool = True) -> str:
    """The key printed under a strip: what the colours, the outline and the board titles mean."""
    blank = "the blank last" if goal == "blank-last" else "the blank first"
    lines = [f"tile colour: its row in the goal ({blank}), lighter to the right; white: the blank"]
    if moves:
        lines.append("bold outline: the tile just moved; title k: t = move k slides tile t")
    return "\n".join(lines)
