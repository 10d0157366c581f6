"""Hex Tetris (ICFP 2015): batch playouts and the scorer (:mod:`.playouts`), the beam player (:mod:`.player`), its
tuning and ranking, Dask tasks, and the command lines (``puzzlebatch hextris`` and ``play_icfp2015``)."""
