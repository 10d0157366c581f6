"""Polyomino and polycube packing: the batch DFS (:mod:`.solver`), random-cut puzzles (:mod:`.cutsolve`), large
boards (:mod:`.large`) and their command lines."""
