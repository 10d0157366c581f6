"""Hex Tetris (ICFP 2015): batch playouts and the scorer (:mod:`.playouts`), the greedy batch player and the contest
player (:mod:`.greedy`), the beam player (:mod:`.player`), its tuning and ranking, and Dask tasks.  The Python API is
:mod:`puzzlebatch.api.hextris`; the command lines (``puzzlebatch hextris`` and ``play_icfp2015``) are in
:mod:`puzzlebatch.cli.hextris`."""
