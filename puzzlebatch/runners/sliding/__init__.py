"""Sliding puzzles: BFS and IDA* (:mod:`.solver`), pattern databases (:mod:`.pdb`) and the command line."""
