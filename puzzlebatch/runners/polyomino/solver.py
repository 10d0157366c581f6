"""Polyomino and polycube packing on the batch DFS: count (all and distinct), first solution, enumeration.

Long because every search verb of the family meets here (the engine choice, the warm-up, counting with symmetry
breaking, the first solution, enumeration, generated levels): each is short and they share the engine and leaves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from puzzlebatch.jit.clock import work_clock
from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.polyomino import bitboard
from puzzlebatch.puzzles.polyomino import bitboard2
from puzzlebatch.puzzles.polyomino import bitboard2_rules
from puzzlebatch.puzzles.polyomino import bitboard_rules
from puzzlebatch.puzzles.polyomino import cover as C
from puzzlebatch.puzzles.polyomino import mrv
from puzzlebatch.puzzles.polyomino import mrv_rules
from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import rules
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.runners.engine import merge
from puzzlebatch.runners.engine.backend import Backend
from puzzlebatch.runners.polyomino import orbits as O
from puzzlebatch.runners.engine.search import BatchDFS, Frontier, SearchProblem, SearchSettings, SearchTotals

# Measured defaults (bench/RESULTS.md): first-empty-cell branching with the region test.
DEFAULT_MODE = "first"
DEFAULT_PRUNE = True
DEFAULT_HEURISTIC = "none"


def _host_rules(module=rules):
    """The compiled rules, for host-side steps (the batch DFS's unit: nothing is compiled twice)."""
    from puzzlebatch.cpu_fallback.search import search_unit

    return search_unit(module)


@dataclass
class Engine:
    """An encoded exact cover ready for the batch DFS.

    ``rules`` is the rules module the tables are for: :mod:`~puzzlebatch.puzzles.polyomino.mrv_rules`
    (incremental MRV, ``--branch mrv``) or :mod:`~puzzlebatch.puzzles.polyomino.rules` (the other rules, and
    MRV by recounting when a piece has several copies)."""

    ec: C.ExactCover
    enc: C.Encoded | mrv.Encoded
    mode: str
    prune: bool
    rules: object = rules

    @property
    def problem(self) -> SearchProblem:
        return SearchProblem(rules=self.rules, tables=self.enc.tables, root=self.enc.root, goal=self.enc.goal)

    @property
    def dead(self) -> bool:
        return int(self.enc.root[self.enc.tables[self.rules.S_ITEM]]) == -2

    @property
    def s_opt(self) -> int:
        """Where a state holds the option chosen at each depth."""
        return int(self.enc.tables[self.rules.S_OPT])

    def decode(self, state: np.ndarray) -> list[int]:
        """The options chosen in a solution state (in search order)."""
        return [int(o) for o in state[self.s_opt:self.s_opt + self.enc.goal] if o >= 0]

    def states_with(self, leaves: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
        """The root with each leaf's options applied (as depths 0..k-1), in one compiled call (the rules'
        ``fix_options``): ``(states, ok)``, ``ok[i]`` False where leaf ``i``'s options do not fit or prune."""
        n = len(leaves)
        width = max([1] + [len(f) for f in leaves])
        fixed = np.full((n, width), -1, np.int64)
        for i, f in enumerate(leaves):
            fixed[i, :len(f)] = f
        counts = np.array([len(f) for f in leaves], np.int64)
        return _host_rules(self.rules).fix_batch(self.enc.root, fixed, counts, self.enc.tables)

    def state_with(self, fixed: Sequence[int]) -> np.ndarray | None:
        """The root with options ``fixed`` applied (as depths 0..k-1); None if they do not fit or prune."""
        states, ok = self.states_with([list(fixed)])
        return states[0] if ok[0] else None


def default_branch(pk: P.Packing) -> str:
    """The branching rule measured fastest by board kind (bench/RESULTS.md): the first empty cell on flat boards
    and small solid ones (Soma, 27 cells: 2.6x faster than MRV), on a bitboard (one or two words) where it
    applies, and incremental MRV on larger solid boards (Bedlam, 64 cells: the first cell does not finish in 20
    minutes)."""
    if pk.board.dim == 3 and pk.board.n_cells > 32:
        return "mrv"
    return "bitboard" if bitboard_fits(pk.cover) else "first"


def bitboard_fits(ec: C.ExactCover) -> bool:
    """Does ``--branch bitboard`` run on a bitboard here (one word, or two for 65 to 128 cells and pieces)?"""
    return bitboard.supports(ec) or bitboard2.supports(ec)


def choose_branch(ec: C.ExactCover, prune: bool = DEFAULT_PRUNE, probes: int = 48, sample: int = 20000,
                  seed: int = 1) -> tuple[str, dict]:
    """``--branch auto``: the branching rule predicted fastest on this instance.

    For each rule, Knuth's estimator (random root-to-leaf probes) predicts the size of the tree and a short
    budget-limited search measures the time per node; the rule with the smallest product wins.  Returns the rule
    and the predictions (nodes, seconds) of each.
    """
    from puzzlebatch.cpu_fallback.search import drivers
    from puzzlebatch.puzzles.search import NO_MEMO, OUT_NODES, OUT_WIDTH

    modes = ["bitboard"] * bitboard_fits(ec) + ["first", "mrv"] + ["enclosed"] * (ec.geometry is not None)
    report: dict = {}
    for mode in modes:
        eng = engine(ec, mode, prune)
        d = drivers(eng.rules)
        if eng.dead:
            return mode, {}
        t = eng.enc.tables
        root = eng.enc.root
        est = estimate_nodes(eng, probes, seed)
        out = np.zeros(OUT_WIDTH, np.int64)
        t0 = work_clock()
        d.dfs_item(root.copy(), np.zeros(eng.enc.goal + 1, np.int32), np.int32(0), np.int32(0),
                   np.int64(eng.enc.goal), np.int64(sample), np.int64(0), np.int64(0),
                   np.zeros((1, len(root)), np.int64), out, t, NO_MEMO[0])
        per_node = (work_clock() - t0) / max(1, int(out[OUT_NODES]))
        report[mode] = {"estimated_nodes": est, "predicted_seconds": est * per_node}
    best = min(report, key=lambda m: report[m]["predicted_seconds"])
    return best, report


def estimate_nodes(eng: Engine, probes: int = 48, seed: int = 1, depth: int | None = None) -> float:
    """Knuth's estimate of the nodes of ``eng``'s whole tree (no symmetry broken), from ``probes`` random
    root-to-leaf paths on the CPU; with ``depth``, of its top ``depth`` levels only (each path stops there, so
    the cost is bounded whatever the board: an estimate from below of the whole tree)."""
    from puzzlebatch.cpu_fallback.search import drivers

    if eng.dead:
        return 0.0
    root = eng.enc.root
    goal = eng.enc.goal if depth is None else min(eng.enc.goal, depth)
    return float(drivers(eng.rules).estimate_item(root, root.copy(), np.int32(0), np.int64(goal),
                                                  np.int64(probes), np.int64(seed), eng.enc.tables))


def engine(ec: C.ExactCover, mode: str = DEFAULT_MODE, prune: bool = DEFAULT_PRUNE,
           order: Sequence[int] | None = None) -> Engine:
    if mode == "auto":
        mode, _ = choose_branch(ec, prune)
    if mode not in ("first", "mrv", "enclosed", "bitboard"):
        raise PuzzleInputError(f"--branch: {mode!r} is not one of first, bitboard, mrv, enclosed, auto")
    if mode == "bitboard":
        if bitboard.supports(ec) and order is None:
            return Engine(ec, bitboard.encode(ec, prune), mode, prune, bitboard_rules)
        if bitboard2.supports(ec) and order is None:
            return Engine(ec, bitboard2.encode(ec, prune), mode, prune, bitboard2_rules)
        mode = "first"  # the same branching on the general tables (the result's branch says so)
    if mode == "mrv" and mrv.supports(ec):
        # incremental MRV: the options are tried in id order (an option order only steers first solutions)
        return Engine(ec, mrv.encode(ec), mode, False, mrv_rules)
    return Engine(ec, C.encode(ec, mode, prune, order), mode, prune)


_WARM: set[str] = set()


def warm_up(backend: Backend, enumerate: bool = False) -> float:
    """Compile the kernels for ``backend`` on a two-cell problem; returns the seconds it took (0 when done
    before in this process), so that reported search times leave compilation out."""
    key = backend.name + ("+enumerate" if enumerate else "")
    if key in _WARM:
        return 0.0
    t0 = work_clock()
    from puzzlebatch.puzzles.polyomino import shapes as S

    pk = P.build(P.parse_board("4x2"), S.load_pieces("dominoes", unlimited=True))
    tiny = SearchSettings(budget=1, batch_size=4, frontier_target=3, first_batch_size=2)  # splits happen too
    for prune in (True, False):
        eng = engine(pk.cover, "first", prune)
        count_engine(eng, backend, tiny)
        BatchDFS(eng.problem, backend, tiny).first()
        eng.state_with([0])  # the host-side rules used to build symmetry-breaking leaves
    eng = engine(pk.cover, "mrv")  # incremental MRV (the 3D default)
    count_engine(eng, backend, tiny)
    eng.state_with([0])
    once = P.build(P.parse_board("4x5"), S.load_pieces("tetrominoes"))  # pieces used once: the bitboard
    eng = engine(once.cover, "bitboard")
    count_engine(eng, backend, tiny)
    count_engine(eng, backend, SearchSettings(budget=1, batch_size=4, frontier_target=3, first_batch_size=2,
                                              merge="yes", merge_states=8))  # merged layers, then the tree
    BatchDFS(eng.problem, backend, tiny).first()
    eng.state_with([0])
    if enumerate:
        enumerate_solutions(engine(pk.cover), ())
    _WARM.add(key)
    return work_clock() - t0


# -- counting -----------------------------------------------------------------------------------------------------
@dataclass
class CountResult:
    solutions: int
    distinct: int | None
    symmetries: int
    leaves: int
    nodes: int
    seconds: float
    backend: str
    branch: str
    prune: bool
    complete: bool = True
    note: str = ""
    merged_layers: int = 0  # layers counted by merged states on the host, before any tree search

    def to_json(self) -> dict:
        return dict(self.__dict__)


# The MRV states are wide (live words and their lists per depth: 14 KB on Bedlam): on the CPU many small items per
# launch mean many budget stops, and splitting and re-queuing them cost more than the search (Bedlam: 17 s with
# the default batch, 10.5 s with 8 items a launch, 10.8 s with 32; bench/RESULTS.md).
MRV_CPU_BATCH = 128


def engine_settings(eng: Engine, backend: Backend, settings: SearchSettings | None) -> SearchSettings | None:
    """``settings`` for this engine: on the CPU the MRV engine's default batch is :data:`MRV_CPU_BATCH` items (a
    batch size set by hand is kept)."""
    from dataclasses import replace

    from puzzlebatch.runners.engine.search import default_settings

    if eng.rules is not mrv_rules or backend.kind != "cpu":
        return settings
    base = default_settings(backend)
    s = settings or base
    return replace(s, batch_size=MRV_CPU_BATCH) if s.batch_size == base.batch_size else s


def count_engine(eng: Engine, backend: Backend, settings: SearchSettings | None = None,
                 frontier: Frontier | None = None, on_batch: Callable | None = None,
                 max_batches: int | None = None, totals: SearchTotals | None = None, pool=None, sink=None):
    """Count the solutions below the given frontier (default: the root); ``pool`` runs the work items and
    ``sink(states, weights)`` receives the solutions (see :meth:`BatchDFS.count`)."""
    dfs = BatchDFS(eng.problem, backend, engine_settings(eng, backend, settings), pool=pool)
    totals = totals or SearchTotals()
    if eng.dead:
        return totals, Frontier.root(eng.problem).take(slice(0, 0))
    if frontier is None:
        frontier = Frontier.root(eng.problem)
    if sink is None and merge.wants_merge(dfs, frontier):  # a count alone: by merged states (no moves kept)
        frontier = merge.merge_expand(dfs, frontier, totals, dfs.settings.merge_states)
    frontier = dfs.expand(frontier, totals, dfs.frontier_target(), sink=sink)
    return dfs.count(frontier, totals, on_batch=on_batch, max_batches=max_batches, sink=sink)


def leaf_frontier(eng: Engine, leaves: Sequence[P.Leaf], weights: Sequence[int] | None = None) -> Frontier:
    states, ok = eng.states_with([lf.fixed for lf in leaves])
    depths = np.array([len(lf.fixed) for lf in leaves], np.int32)[ok]
    n = len(depths)
    w = np.ones(n, np.int64) if weights is None else np.asarray(weights, np.int64)[ok]
    return Frontier(states[ok], depths, np.zeros(n, np.int32), w)


# Pieces fixed by the symmetry breaking of a count before Burnside's lemma takes over (burnside_plan): two, or one
# on boards with at most BURNSIDE_SMALL_GROUP symmetries.  On a rectangle (4 symmetries) one fixed piece leaves a
# symmetry to few leaves, and a second multiplies the leaves and their host work for a few per cent of the nodes:
# one level is 22 % faster on 5x12, 33 % on 3x20, 6 % on 4x15.  Larger groups keep more symmetry after the first
# piece: two levels are 18 % faster on the 8x8 board minus its centre, 53 % on the Soma cube (bench/log/polyomino.md).
BURNSIDE_LEVELS = 2
BURNSIDE_SMALL_GROUP = 4


def burnside_levels(n_syms: int) -> int:
    """Pieces the symmetry breaking of a count fixes under a group of ``n_syms`` symmetries (see
    :data:`BURNSIDE_LEVELS`)."""
    return 1 if n_syms <= BURNSIDE_SMALL_GROUP else BURNSIDE_LEVELS


def burnside_plan(pk: P.Packing, syms: Sequence[P.Symmetry], img: P.OptionImages
                  ) -> tuple[list[P.Leaf], list[int]] | None:
    """A count's symmetry breaking, fixing at most :func:`burnside_levels` pieces: the leaves, each to be weighted
    by its orbit's size ``|G| / |H|`` (the weighted count is then every solution), and the symmetries ``g`` whose
    fixed solutions (:func:`~puzzlebatch.puzzles.polyomino.cover.invariant_cover`) complete Burnside's lemma:
    classes = (solutions + the sum of fix(g)) / |G|.  When every leaf is left with the identity alone no
    solution is fixed by any symmetry, and no ``g`` is listed.  None where the invariant covers cannot be formed
    (colours, pieces with two or more copies): the full symmetry breaking then fixes pieces until no symmetry is
    left, and leaves that keep some are enumerated.

    Fixing every piece the breaking can is not always cheaper: on 5x12 it fixes up to four pieces in 4,848 leaves
    (tens of milliseconds of host work a count, and 384,238 nodes below the pieces fixed out of the search's
    order); two levels give 126 leaves and 327,673 nodes, one level (the default there) 10 leaves and 340,088
    nodes, plus one small cover for the one symmetry that can fix a solution (bench/log/polyomino.md)."""
    ec = pk.cover
    if not pk.exact_area or ec.colored or any(
            g >= 0 and ec.group_copies[g] != C.UNLIMITED and ec.group_copies[g] - ec.group_used.get(g, 0) > 1
            for g in set(ec.option_group)):
        return None
    leaves = P.break_symmetry(pk, syms, img, levels=burnside_levels(len(syms)))
    # a symmetry that maps a solution onto itself maps the leaf it lies in onto itself: it is conjugate to one
    # of that leaf's symmetries
    kept = sorted({h for lf in leaves for h in lf.syms if h != 0})
    return leaves, [h for h in P.conjugates(syms, kept) if h != 0] if kept else []


def count_packing(pk: P.Packing, backend: Backend, mode: str = DEFAULT_MODE, prune: bool = DEFAULT_PRUNE,
                  settings: SearchSettings | None = None, distinct: bool = True,
                  on_batch: Callable | None = None) -> CountResult:
    """Every solution and the distinct ones (classes under the board's symmetries), by symmetry breaking.

    Leaves of :func:`packing.break_symmetry` with no symmetry left hold one solution per class: ``distinct`` is
    their count and ``solutions`` is that times the group order.  Leaves that keep symmetries are enumerated and
    their solutions reduced to classes one by one.
    """
    return count_packing_run(pk, backend, mode, prune, settings, distinct, on_batch)[0]


def count_packing_run(pk: P.Packing, backend: Backend, mode: str = DEFAULT_MODE, prune: bool = DEFAULT_PRUNE,
                      settings: SearchSettings | None = None, distinct: bool = True,
                      on_batch: Callable | None = None, frontier: Frontier | None = None,
                      totals: SearchTotals | None = None, max_batches: int | None = None,
                      elapsed: float = 0.0, pool=None,
                      sink: Callable[[np.ndarray], None] | None = None) -> tuple[CountResult, Frontier, SearchTotals]:
    """:func:`count_packing` that can stop (``max_batches``) and resume (``frontier``, ``totals``).

    Returns the result (``complete`` False when stopped early), the work left and the running totals — with
    the problem itself, everything a checkpoint needs.  ``pool`` runs the work items elsewhere
    (:mod:`puzzlebatch.runners.engine.distributed`).  ``sink(rows)``, if given, receives every solution (each
    searched one and its images under the board's symmetries) as rows of option ids, sorted and -1 padded,
    before the ``on_batch`` call of the launch that found it (so a checkpoint covers exactly the rows stored).
    """
    t0 = work_clock()
    eng = engine(pk.cover, mode, prune)
    check_lanes(eng, settings, backend)
    syms = P.symmetries(pk) if distinct else P.symmetries(pk)[:1]
    gap = area_gap(pk)  # no packing fills the board: nothing to search (a checkpoint's work left included)
    img = P.option_images(pk, syms) if len(syms) > 1 and not gap else None
    plan = burnside_plan(pk, syms, img) if img is not None and sink is None else None
    if gap:
        leaves, plain, rest, weights, frontier = [], [], [], None, None
    elif plan is not None:
        leaves, fixers = plan
        plain, rest, weights = leaves, [], [len(syms) // len(lf.syms) for lf in leaves]
    else:
        leaves = P.break_symmetry(pk, syms, img) if len(syms) > 1 else [P.Leaf([], [0])]
        plain = [lf for lf in leaves if len(lf.syms) == 1]
        rest = [lf for lf in leaves if len(lf.syms) > 1]
        weights = None
    images = (img[:, :] if img is not None else np.arange(len(pk.cover.options))[None, :]) if sink or rest else None
    s_opt, goal = eng.s_opt, eng.enc.goal

    def with_images(states, weights):  # a searched solution and its images under every symmetry
        sols = O.sorted_rows(states[:, s_opt:s_opt + goal])
        mask = sols < 0
        for h in range(len(syms)):
            sink(O.sorted_rows(np.where(mask, -1, images[h][np.where(mask, 0, sols)])))

    rows_sink = with_images if sink is not None else None
    if frontier is None:
        totals, left = count_engine(eng, backend, settings, frontier=leaf_frontier(eng, plain, weights),
                                    on_batch=on_batch,
                                    max_batches=max_batches, pool=pool, sink=rows_sink)
    else:
        totals, left = BatchDFS(eng.problem, backend, engine_settings(eng, backend, settings),
                                pool=pool).count(frontier, totals, on_batch=on_batch,
                                                                                 max_batches=max_batches,
                                                                                 sink=rows_sink)
    n_distinct = totals.count
    n_all = totals.count * len(syms)
    nodes = totals.nodes
    complete = len(left) == 0
    note = gap or ""
    if plan is not None:  # the weighted count is every solution; Burnside's lemma gives the classes
        n_all = totals.count
        fixed_points = n_all
        if complete and fixers:
            for h in fixers:
                n, k = count_cover(eng, backend, settings, C.invariant_cover(pk.cover, img[h]), pool=pool)
                fixed_points += n
                nodes += k
            if fixed_points % len(syms):
                raise AssertionError(f"Burnside: {fixed_points} fixed points over {len(syms)} symmetries is not a "
                                     "whole number of classes")
        n_distinct = fixed_points // len(syms)
    layers = [int(totals.merged_layers)]  # the main count's merged layers, then its subproblems'
    if complete:
        for lf in rest:
            orbits = count_orbits(eng, backend, settings, lf, images, len(syms), pool=pool, sink=sink,
                                  layers=layers)
            nodes += orbits.nodes
            n_distinct += orbits.distinct
            n_all += orbits.solutions
        if rest:
            note = f"{len(rest)} subproblem(s) kept symmetries and were enumerated"
    result = CountResult(solutions=int(n_all), distinct=int(n_distinct) if distinct else None,
                         symmetries=len(syms), leaves=len(leaves), nodes=int(nodes),
                         seconds=elapsed + work_clock() - t0, backend=backend.name, branch=eng.mode,
                         prune=eng.prune, complete=complete, note=note, merged_layers=sum(layers))
    return result, left, totals


def check_lanes(eng: Engine, settings: SearchSettings | None, backend: Backend) -> None:
    """A CUDA kernel whose lanes share each item (``settings.cuda_lanes`` > 1) runs on CUDA, with rules that test
    one candidate at a time: the bitboards."""
    lanes = settings.cuda_lanes if settings is not None else 1
    if lanes > 1 and backend.kind == "cpu":
        raise PuzzleInputError(f"cuda lanes: {lanes} threads an item are for CUDA kernels; the backend is "
                               f"{backend.name}")
    if lanes > 1 and not hasattr(eng.rules, "candidate_fits"):
        raise PuzzleInputError(f"--cuda-lanes {lanes}: the bitboard branch only (each piece once, cells and pieces "
                               f"128 at most, no --heuristic); this problem runs --branch {eng.mode}: drop "
                               f"--cuda-lanes or use --branch bitboard")


def count_orbits(eng: Engine, backend: Backend, settings: SearchSettings | None, leaf: P.Leaf,
                 images: np.ndarray, n_syms: int, pool=None,
                 sink: Callable[[np.ndarray], None] | None = None, layers: list[int] | None = None) -> O.OrbitCount:
    """The solutions below a symmetry-breaking leaf that keeps symmetries, and their classes
    (:func:`puzzlebatch.runners.polyomino.orbits.count_orbits`), counted on this backend and pool; the layers
    its counts merged are appended to ``layers``."""
    def count_leaf(leaf_sink):
        totals, left = count_engine(eng, backend, settings, frontier=leaf_frontier(eng, [leaf]), pool=pool,
                                    sink=leaf_sink)
        if len(left):
            raise AssertionError("a symmetric subproblem's count stopped before the end")
        if layers is not None:
            layers.append(int(totals.merged_layers))
        return int(totals.count), int(totals.nodes)

    return O.count_orbits(count_leaf, lambda ec: count_cover(eng, backend, settings, ec, pool=pool), eng.ec, leaf,
                          images, n_syms, eng.s_opt, eng.enc.goal, sink)


def count_cover(eng: Engine, backend: Backend, settings: SearchSettings | None, ec: C.ExactCover,
                pool=None) -> tuple[int, int]:
    """(solutions, nodes) of a smaller exact cover (a symmetry's fixed points), with ``eng``'s branching; (0, 0)
    at once when its options leave a cell uncovered (most symmetries' fixed points: no placement on the axis), or
    when every option holds a piece used once and the pieces cannot cover the cells (a rectangle's reflection
    across its long axis: only the pieces symmetric about it can lie on it)."""
    arr = ec.option_array()
    reach = np.zeros(ec.n_primary + 1, bool)
    reach[np.where((arr >= 0) & (arr < ec.n_primary), arr, ec.n_primary)] = True
    reach[[i for i in ec.precovered if i < ec.n_primary]] = True
    if not reach[:-1].all():
        return 0, 0
    secondary = arr >= ec.n_primary
    if len(arr) and not ec.colored and secondary.any(axis=1).all():
        # a solution's options hold distinct pieces (secondary items, each used once): it covers at most, piece
        # by piece, the cells of the largest option holding it
        cells = ec.primary_counts()
        best = np.zeros(len(ec.items) + 1, np.int64)
        np.maximum.at(best, np.where(secondary, arr, len(ec.items)), cells[:, None])
        free = ec.n_primary - sum(1 for i in set(ec.precovered) if i < ec.n_primary)
        if int(best[ec.n_primary:-1].sum()) < free:
            return 0, 0
    sub = engine(ec, eng.mode if eng.mode != "enclosed" else "first", eng.prune)
    if settings is not None and settings.cuda_lanes > 1 and not hasattr(sub.rules, "candidate_fits"):
        from dataclasses import replace

        settings = replace(settings, cuda_lanes=1)  # fixed points on the general tables: a thread an item
    totals, left = count_engine(sub, backend, settings, pool=pool)
    if len(left):
        raise AssertionError("a symmetric subproblem's count stopped before the end")
    return int(totals.count), int(totals.nodes)


# -- first solution -------------------------------------------------------------------------------------------------
@dataclass
class SolveResult:
    solved: bool
    placements: list[tuple[int, np.ndarray]]  # (piece index, cells) in the order the search placed them
    nodes: int
    seconds: float
    backend: str
    note: str = ""  # why there is nothing to search, when there is not


def area_gap(pk: P.Packing) -> str | None:
    """Why no choice of the pieces left covers the free cells (a count is 0, a solve fails, at once); None when
    one does.  The search would find it too, after a whole tree: 8x8 with the twelve pentominoes, 30 million
    nodes."""
    left = [(p.size, p.count if p.count == S.UNLIMITED else p.count - pk.cover.group_used.get(g, 0))
            for g, p in enumerate(pk.pieces)]
    return S.fill_gap(left, pk.board.n_cells - sum(len(c) for _, c in pk.preplaced))


def solve_packing(pk: P.Packing, backend: Backend, mode: str = DEFAULT_MODE, prune: bool = DEFAULT_PRUNE,
                  heuristic: str = DEFAULT_HEURISTIC, settings: SearchSettings | None = None,
                  pool=None) -> SolveResult:
    t0 = work_clock()
    order = P.option_order(pk, heuristic) if heuristic != "none" else None
    eng = engine(pk.cover, mode, prune, order)
    check_lanes(eng, settings, backend)
    gap = area_gap(pk)
    if eng.dead or gap:
        return SolveResult(False, [], 0, work_clock() - t0, backend.name, gap or "")
    dfs = BatchDFS(eng.problem, backend, settings, pool=pool)
    totals, _ = dfs.first()
    placements = []
    if totals.solutions:
        opts = eng.decode(totals.solutions[0])
        placements = [(pk.cover.option_group[o], pk.option_cells[o]) for o in opts]
        P.validate(pk, placements)
    return SolveResult(bool(totals.solutions), placements, totals.nodes, work_clock() - t0, backend.name)


# -- enumeration (CPU) -----------------------------------------------------------------------------------------
def enumerate_solutions(eng: Engine, fixed: Sequence[int] = (), limit: int = 0,
                        chunk: int = 1 << 14) -> tuple[np.ndarray, int]:
    """Every solution below the options ``fixed`` (rows of option ids in search order, -1 padded), and the nodes
    searched; ``limit`` > 0 stops after that many.  Runs the batch DFS's per-item search on this thread."""
    from puzzlebatch.cpu_fallback.search import drivers
    from puzzlebatch.puzzles.search import BUDGET, NO_MEMO, OUT_COUNT, OUT_NODES, OUT_STATUS, OUT_WIDTH

    state = eng.state_with(list(fixed))
    goal = eng.enc.goal
    t = eng.enc.tables
    if state is None or eng.dead:
        return np.zeros((0, goal), np.int64), 0
    dfs_item = drivers(eng.rules).dfs_item
    size = min(chunk, limit) if limit else chunk
    while True:
        sols = np.zeros((size, len(state)), np.int64)
        out = np.zeros(OUT_WIDTH, np.int64)
        stack = np.zeros(goal + 1, np.int32)
        dfs_item(state.copy(), stack, np.int32(len(fixed)), np.int32(0), np.int64(goal), np.int64(1 << 62),
                 np.int64(size), np.int64(limit), sols, out, t, NO_MEMO[0])
        found = int(out[OUT_COUNT])
        # Enumerating, a full buffer stops the item like a budget does (status BUDGET); with a limit, the count
        # goes on past the buffer.  Either way the solutions copied are not all of them: search again with a
        # larger buffer (at most ``limit``).
        if out[OUT_STATUS] != BUDGET and found <= size:
            return sols[:found, eng.s_opt:eng.s_opt + goal].copy(), int(out[OUT_NODES])
        size = max(found, 2 * size) if not limit else min(limit, max(found, 2 * size))


def solution_cells(pk: P.Packing, options: Sequence[int]) -> list[tuple[int, np.ndarray]]:
    return [(pk.cover.option_group[o], pk.option_cells[o]) for o in options if o >= 0]


# -- enumerate everything ------------------------------------------------------------------------------------------
def enumerate_packing(pk: P.Packing, mode: str = DEFAULT_MODE, prune: bool = DEFAULT_PRUNE,
                      sink: Callable[[np.ndarray], None] | None = None, chunk: int = 1 << 16,
                      backend: Backend | None = None) -> CountResult:
    """Every solution, as rows of option ids (sorted, -1 padded), handed to ``sink`` in chunks of about
    ``chunk`` rows.

    One representative per symmetry class is searched (the leaves of the symmetry breaking); the rest are its
    images under the board's symmetries, so the enumeration costs a count plus the writing.  The resumable,
    distributable form is :func:`count_packing_run` with ``sink``.
    """
    from puzzlebatch.runners.engine.backend import select_backend

    buf: list[np.ndarray] = []
    held = [0]

    def emit(rows: np.ndarray) -> None:
        buf.append(rows)
        held[0] += len(rows)
        if sink is not None and held[0] >= chunk:
            sink(np.concatenate(buf))
            buf.clear()
            held[0] = 0

    res, _, _ = count_packing_run(pk, backend or select_backend("cpu"), mode, prune, sink=emit)
    if sink is not None and buf:
        sink(np.concatenate(buf))
    return res


# -- levels ---------------------------------------------------------------------------------------------------------
@dataclass
class Level:
    placed: list[tuple[int, np.ndarray]]  # pieces already on the board
    left: int  # pieces to place
    solution: list[tuple[int, np.ndarray]]  # the unique solution (all pieces)


def generate_levels(pk: P.Packing, count: int, difficulty: int, seed: int = 0,
                    attempts: int = 200, pool=None) -> list[Level]:
    """Levels with exactly one solution: random full solutions with all but ``difficulty`` pieces left in place.

    A random solution comes from a search that tries options in a seeded random order; a set of pieces to take
    off is kept only when the remaining board has one solution (checked by searching for two).  Level ``k`` draws
    from its own stream (``seed``, ``k``), so the levels do not depend on where they are made: ``pool`` (see
    :mod:`puzzlebatch.runners.engine.distributed`) makes them as separate tasks, in order.
    """
    n_pieces = len(pk.cover.options) and pk.cover.max_depth()
    if not pk.exact_area:
        raise PuzzleInputError("levels: the pieces must exactly fill the board (each piece used once)")
    if not 1 <= difficulty <= n_pieces:
        raise PuzzleInputError(f"--difficulty: {difficulty} must be between 1 and {n_pieces} (pieces to place)")
    from puzzlebatch.runners.engine.distributed import Pool, map_ordered

    task = LevelTask(pk, difficulty, seed, attempts)
    levels = list(map_ordered(pool or Pool("cpu"), task, range(count)))
    if any(lv is None for lv in levels):
        raise PuzzleInputError(f"levels: no unique-solution level with {difficulty} pieces left found in "
                               f"{attempts} tries; use a smaller --difficulty")
    return levels


@dataclass(frozen=True)
class LevelTask:
    """Make level ``k`` (a task of :func:`generate_levels`); None when ``attempts`` random solutions gave none."""

    pk: P.Packing
    difficulty: int
    seed: int
    attempts: int

    def __call__(self, k: int) -> Level | None:
        pk, difficulty = self.pk, self.difficulty
        rng = np.random.default_rng([self.seed, k])
        for _ in range(self.attempts):
            order = rng.permutation(len(pk.cover.options))
            eng = engine(pk.cover, DEFAULT_MODE, DEFAULT_PRUNE, order)
            sols, _ = enumerate_solutions(eng, (), limit=1)
            if not len(sols):
                raise PuzzleInputError("levels: the board has no solution with these pieces")
            sol = solution_cells(pk, sols[0])
            for _ in range(20):
                keep = rng.permutation(len(sol))[: len(sol) - difficulty]
                placed = [sol[i] for i in sorted(keep)]
                board = P.Board(pk.board.size, pk.board.playable, {}, label=pk.board.label)
                for kk, cells in placed:
                    board.placed.setdefault(pk.glyphs[kk], []).append(
                        frozenset(tuple(int(v) for v in c) for c in cells))
                lvl = P.build(board, pk.pieces)
                n, _ = enumerate_solutions(engine(lvl.cover), (), limit=2)
                if len(n) == 1:
                    return Level(placed, difficulty, sol)
        return None


def problem_arrays(pk) -> dict:
    """Enough to redraw any stored solution: each option's piece and cells."""
    cells = np.full((len(pk.option_cells), max((len(c) for c in pk.option_cells), default=1), pk.board.dim), -1,
                    np.int32)
    for o, c in enumerate(pk.option_cells):
        cells[o, :len(c)] = c
    pre = np.full((len(pk.preplaced), max((len(c) for _, c in pk.preplaced), default=1), pk.board.dim), -1,
                  np.int32)
    for k, (_, c) in enumerate(pk.preplaced):
        pre[k, :len(c)] = sorted(c)
    return {"option_piece": np.array(pk.cover.option_group, np.int32), "option_cells": cells,
            "preplaced_piece": np.array([k for k, _ in pk.preplaced], np.int32), "preplaced_cells": pre,
            "board_size": np.array(pk.board.size, np.int32),
            "piece_names": np.array([p.name.encode() for p in pk.pieces]),
            "glyphs": np.array([g.encode() for g in pk.glyphs])}
