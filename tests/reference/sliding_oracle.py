"""Plain-Python oracles for the sliding puzzles: slow and obviously correct.

* :func:`explicit_graph` + :func:`dijkstra`: the source document's naive approach (part 3): every arrangement of
  the tiles is a vertex (all ``n!`` of them, built with ``itertools.permutations`` around each blank cell), an
  edge joins two arrangements one blank swap apart, and Dijkstra's algorithm (binary heap, unit weights) gives the
  distance of every vertex from the goal.  Unreachable vertices keep an infinite distance: that is the document's
  solvability test done the long way.
* :func:`pattern_database`: a 0-1 cost breadth-first search (deque) over (pattern tiles' cells, blank cell),
  the definition of an additive pattern database, with no region folding and no ranking tricks.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import deque


def neighbours(state: tuple[int, ...], rows: int, cols: int):
    """States one move away: the blank swaps with a tile above, below, left or right."""
    b = state.index(0)
    r, c = divmod(b, cols)
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r2, c2 = r + dr, c + dc
        if 0 <= r2 < rows and 0 <= c2 < cols:
            k = r2 * cols + c2
            s = list(state)
            s[b], s[k] = s[k], 0
            yield tuple(s)


def explicit_graph(rows: int, cols: int) -> dict[tuple[int, ...], list[tuple[int, ...]]]:
    """Adjacency lists of all ``n!`` arrangements (for n <= 9 only: 3x3 is 362,880 vertices)."""
    n = rows * cols
    if n > 9:
        raise ValueError("the explicit graph is for boards of at most 9 cells")
    graph = {}
    for blank in range(n):
        for perm in itertools.permutations(range(1, n)):
            s = list(perm)
            s.insert(blank, 0)
            graph[tuple(s)] = []
    for s in graph:
        graph[s] = list(neighbours(s, rows, cols))
    return graph


def dijkstra(graph, source) -> dict[tuple[int, ...], float]:
    """Distances from ``source`` (unit weights); ``math.inf`` for unreachable vertices."""
    dist = {v: math.inf for v in graph}
    dist[source] = 0
    heap = [(0, source)]
    while heap:
        d, v = heapq.heappop(heap)
        if d > dist[v]:
            continue
        for w in graph[v]:
            if d + 1 < dist[w]:
                dist[w] = d + 1
                heapq.heappush(heap, (d + 1, w))
    return dist


def goal(rows: int, cols: int, kind: str) -> tuple[int, ...]:
    n = rows * cols
    return tuple(range(1, n)) + (0,) if kind == "blank-last" else tuple(range(n))


def distances(rows: int, cols: int, kind: str) -> dict[tuple[int, ...], float]:
    """Distance of every arrangement to the goal (the graph is undirected: Dijkstra from the goal)."""
    return dijkstra(explicit_graph(rows, cols), goal(rows, cols, kind))


def depth_histogram(dist) -> list[int]:
    finite = [d for d in dist.values() if d != math.inf]
    top = int(max(finite))
    return [sum(1 for d in finite if d == k) for k in range(top + 1)]


def pattern_database(rows: int, cols: int, tiles) -> dict[tuple[int, ...], int]:
    """Fewest pattern-tile moves from each placement of ``tiles`` to their blank-first homes (tile t on cell t).

    0-1 BFS over (cells of the pattern tiles, blank cell): the blank moving onto an empty cell costs 0, onto a
    pattern tile's cell (that tile slides) costs 1.  A placement's value is the least over its blank cells.
    """
    n = rows * cols
    start = (tuple(tiles), 0)
    best = {start: 0}
    dq = deque([start])
    while dq:
        state = dq.popleft()
        cells, blank = state
        d = best[state]
        r, c = divmod(blank, cols)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            r2, c2 = r + dr, c + dc
            if not (0 <= r2 < rows and 0 <= c2 < cols):
                continue
            k = r2 * cols + c2
            if k in cells:
                i = cells.index(k)
                nxt = (cells[:i] + (blank,) + cells[i + 1:], k)
                cost = 1
            else:
                nxt = (cells, k)
                cost = 0
            if nxt not in best or d + cost < best[nxt]:
                best[nxt] = d + cost
                if cost:
                    dq.append(nxt)
                else:
                    dq.appendleft(nxt)
    table: dict[tuple[int, ...], int] = {}
    for (cells, _), d in best.items():
        if cells not in table or d < table[cells]:
            table[cells] = d
    assert len(table) == math.perm(n, len(tiles))
    return table
