"""Slow plain-Python oracle of the beam player's board features (``hextris_player.board_features``)."""

from __future__ import annotations


def features(cells: set[tuple[int, int]], width: int, height: int) -> list[int]:
    """holes, aggregate height, bumpiness, row transitions, max height of a board given as a set of full cells."""
    heights = []
    holes = 0
    for x in range(width):
        top = next((y for y in range(height) if (x, y) in cells), height)
        heights.append(height - top)
        holes += sum(1 for y in range(top, height) if (x, y) not in cells)
    trans = 0
    for y in range(height):
        row = [True] + [(x, y) in cells for x in range(width)] + [True]
        trans += sum(1 for a, b in zip(row, row[1:]) if a != b)
    bump = sum(abs(a - b) for a, b in zip(heights, heights[1:]))
    return [holes, sum(heights), bump, trans, max(heights)]
