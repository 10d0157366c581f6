"""Snake cubes: the batch-DFS host code (:mod:`.solver`) and the command line (:mod:`.cli`)."""
