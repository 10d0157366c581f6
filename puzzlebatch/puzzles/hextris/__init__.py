"""Hex Tetris, the ICFP 2015 contest game: the scalar model (``model``), the per-game kernel rules (``rules``) and
the arrays they read (``encode``).  Batch playouts and the scorer live in ``puzzlebatch.runners.hextris.playouts``."""
