"""Every limit the web app puts on a request, in one place.

A request may not start unbounded work: boards, piece sets, texts and pages are bounded here, and every job has a
time limit after which its worker process is stopped.  The routes and the job manager read these names only.
"""

from __future__ import annotations

import re

from puzzlebatch.errors import PuzzleInputError

# -- requests ------------------------------------------------------------------------------------------------------
MAX_BODY_BYTES = 2 * 1024 * 1024  # the longest reference hex Tetris solution is 0.3 MB of commands
CLIENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # the X-Client-Id header the page sends

# -- level workshop ------------------------------------------------------------------------------------------------
MAX_BOARD_SIDE = 40
MAX_BOARD_DEPTH = 8
MAX_BOARD_CELLS = 1600
MAX_PIECES = 64  # pieces in a set (copies of a piece count once)
MAX_COPIES = 64  # --copies
MAX_PIECES_TEXT = 20_000  # characters of a custom piece file
MAX_LEVEL_TEXT = 20_000  # characters of an imported level file
MAX_SEED = 2**31 - 1

# -- sliding puzzles -----------------------------------------------------------------------------------------------
SLIDING_MIN_SIDE, SLIDING_MAX_SIDE = 2, 4
MAX_SHUFFLE_MOVES = 10_000

# -- hex Tetris ----------------------------------------------------------------------------------------------------
MAX_SOLUTION_CHARS = 1_000_000

# -- results browser -----------------------------------------------------------------------------------------------
MAX_FILES_LISTED = 1000
MAX_PAGE_ROWS = 500
MAX_CSV_ROWS = 1_000_000
MAX_CELL_CHARS = 2000  # one table cell (a long hex Tetris solution) is cut to this many characters

# -- jobs ----------------------------------------------------------------------------------------------------------
def job_seconds() -> dict[str, float]:
    """Each job kind's search time, after the kernels are compiled: ``"<family>.<verb>"`` of every family's
    web tasks (the registry's ``WebTask``)."""
    from puzzlebatch import registry

    return {f"{fam.name}.{t.verb}": t.seconds for fam in registry.families() for t in fam.web_tasks}


COMPILE_SECONDS = 900.0  # a first compile on a busy machine (the on-disk cache makes later ones short)
CANCEL_GRACE_SECONDS = 2.0  # a worker that has not stopped by then is terminated
MAX_QUEUED_JOBS = 16
KEPT_JOBS = 64  # finished jobs kept for their results (oldest dropped first)
PROGRESS_EVERY_SECONDS = 0.2


def page_limits() -> dict[str, int]:
    """The limits the page checks before it sends a request or draws anything (``/api/limits``): the same
    numbers the server refuses past, from this one place."""
    return {"board_side": MAX_BOARD_SIDE, "board_depth": MAX_BOARD_DEPTH, "board_cells": MAX_BOARD_CELLS,
            "sliding_min_side": SLIDING_MIN_SIDE, "sliding_max_side": SLIDING_MAX_SIDE,
            "solution_chars": MAX_SOLUTION_CHARS, "body_bytes": MAX_BODY_BYTES}


def check_range(name: str, value: int, low: int, high: int) -> int:
    """``value`` if ``low <= value <= high``, else a one-line :class:`PuzzleInputError` naming ``name``."""
    if not low <= value <= high:
        raise PuzzleInputError(f"{name}: {value} is not between {low} and {high}")
    return value
