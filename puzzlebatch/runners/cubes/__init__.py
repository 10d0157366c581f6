"""Connector cubes: the batch DFS (:mod:`.solver`), the genetic algorithm (:mod:`.ga`) and their command lines."""
