"""Launches that return within about a second, whatever the instance.

A batch launch cannot be interrupted: Ctrl-C and checkpoints wait for it.  :class:`LaunchPlanner` sizes every
launch from the node rate measured on the earlier ones, so that each runs for about ``seconds`` (default
:data:`LAUNCH_SECONDS`, ``PUZZLEBATCH_LAUNCH_SECONDS`` to change it): the first launch is small (``first_nodes``),
later ones grow at most fourfold at a time, and shrink again when the machine gets slower.  The configured budget
and batch size stay the upper bounds, so a small explicit ``--budget`` is used as given.  Counts do not depend on
how work is cut into launches, so the answers are the same; only the number of launches changes.
"""

from __future__ import annotations

from dataclasses import dataclass


def launch_seconds() -> float:
    """The target duration of one launch (``PUZZLEBATCH_LAUNCH_SECONDS``, default 0.5 s)."""
    from puzzlebatch.limits import env_float

    return env_float("PUZZLEBATCH_LAUNCH_SECONDS", 0.5, low=0.001, high=3600.0)


LAUNCH_SECONDS = 0.5
GROWTH = 4.0  # a launch plans at most this many times the nodes of the one before


@dataclass
class LaunchPlanner:
    """Plans ``(items, budget)`` of each launch so that it lasts about ``seconds``.

    Parameters
    ----------
    max_budget
        Upper bound on the nodes one item may search in one launch (the configured budget).
    max_items
        Upper bound on the items of one launch (the configured batch size).
    seconds
        Target duration of a launch.
    min_budget
        Lower bound on an item's budget (below it, host work per item dominates).
    first_nodes
        Nodes planned for the first launch, before any rate is known.
    """

    max_budget: int
    max_items: int
    seconds: float = LAUNCH_SECONDS
    min_budget: int = 64
    first_nodes: int = 1 << 15
    rate: float | None = None  # nodes per second, measured
    planned: int = 0  # nodes planned for the last launch

    def __post_init__(self) -> None:
        self.max_budget = max(1, int(self.max_budget))
        self.max_items = max(1, int(self.max_items))
        self.min_budget = max(1, min(self.min_budget, self.max_budget))

    def plan(self, available: int) -> tuple[int, int]:
        """``(items, budget)`` for the next launch with ``available`` items waiting."""
        k = max(1, min(int(available), self.max_items))
        if self.rate is None:
            nodes = float(self.first_nodes)
        else:
            nodes = min(self.rate * self.seconds, GROWTH * max(self.planned, self.first_nodes))
        nodes = max(nodes, float(self.min_budget))
        budget = int(min(self.max_budget, max(self.min_budget, nodes // k)))
        if k * budget > nodes:
            k = max(1, int(nodes // budget))
        self.planned = k * budget
        return k, budget

    def record(self, nodes: int, seconds: float) -> None:
        """What the last launch did.  A launch whose items ran out of work long before their budget measures
        a lower bound of the rate only, so it may raise the estimate but never lower it."""
        if seconds <= 0 or nodes <= 0:
            return
        measured = nodes / seconds
        busy = nodes * 4 >= self.planned
        self.rate = measured if self.rate is None or busy else max(self.rate, measured)


def planner_for(max_budget: int, max_items: int, seconds: float | None = None) -> LaunchPlanner:
    """A planner with the configured target duration."""
    return LaunchPlanner(max_budget, max_items, launch_seconds() if seconds is None else seconds)

