"""The JSON API, one router per area: polyomino levels, hex Tetris, sliding puzzles, results files, jobs."""
