"""The count's memo of searched subtrees on the bitboard engine: what it saves, and what its size and the frontier do.

    python bench/polyomino_memo.py                       # both sections on 6x10 and 5x12
    python bench/polyomino_memo.py --section sizes --boards 6x10,5x12 --entries 0,14,17,20 --repeat 5
    python bench/polyomino_memo.py --section moves --boards 10x6,12x5,iq
    python bench/polyomino_memo.py --section sizes --boards iq --entries 0,17 --merge no --repeat 1
    python bench/polyomino_memo.py --section moves --boards 10x6,12x5 --entries 14,15,16,17,18,19,20,22
    python bench/polyomino_memo.py --section levels --boards 12x5,10x6,8x8-centre,15x4,20x3,soma,iq --rounds 7

``sizes``: a whole count (``count_packing``, symmetry breaking included) per table size (``--entries``: powers of
two, 0 for no memo) and frontier (``--frontier``), the median of ``--repeat`` runs after a warm-up, on the threads
numba is given (``NUMBA_NUM_THREADS``).  ``moves``: the moves of whole counts (every launch's added up) with
tables of ``--entries`` entries (the default table when ``--entries`` is left alone), then one work item, the whole
tree without symmetry breaking, on the calling thread: the nodes the item reports and the moves it made with a
table of 2^17 and 2^20 entries.  ``levels``: whole counts with the symmetry breaking stopped after one piece and
after two (``solver.burnside_levels``), alternating for ``--rounds`` rounds, each the fastest of 5 counts; the
median of the rounds.
Counts and node counts are printed beside each time: they must not change with the memo.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace

import numpy as np

from puzzlebatch.puzzles import search as T
from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.runners.engine.backend import select_backend
from puzzlebatch.runners.engine.memo import memo_rows
from puzzlebatch.runners.engine.search import default_settings
from puzzlebatch.runners.polyomino import solver as RP

PIECES = {"iq": ("11x5", "iq-puzzler-pro"), "soma": ("3x3x3", "soma")}


def packing(name: str) -> P.Packing:
    board, pieces = PIECES.get(name, (name, "pentominoes"))
    if name == "8x8-centre":
        from polyomino import case_board  # bench/polyomino.py, beside this script

        return P.build(case_board(board), S.load_pieces(pieces))
    return P.build(P.parse_board(board), S.load_pieces(pieces))


def sizes(boards, entries, frontiers, merge, repeat) -> None:
    cpu = select_backend("cpu")
    for name in boards:
        pk = packing(name)
        for f in frontiers:
            for e in entries:
                st = replace(default_settings(cpu), memo_entries=(1 << e) if e else 0, frontier_target=f, merge=merge)
                RP.count_packing(pk, cpu, mode="bitboard", settings=st)
                walls, cpus = [], []
                for _ in range(repeat):
                    t0, c0 = time.perf_counter(), time.process_time()
                    r = RP.count_packing(pk, cpu, mode="bitboard", settings=st)
                    walls.append(time.perf_counter() - t0)
                    cpus.append(time.process_time() - c0)
                print(f"{name} frontier {f} entries {'2^%d' % e if e else 0}: {r.solutions:,} solutions, "
                      f"{r.distinct:,} distinct, {r.nodes:,} nodes; wall {statistics.median(walls):.4f} s, "
                      f"CPU {statistics.median(cpus):.4f} s (median of {repeat})", flush=True)


def levels(boards, rounds: int) -> None:
    """Whole counts with the symmetry breaking stopped after one piece, then two (every board, whatever its
    group), alternating."""
    cpu = select_backend("cpu")
    saved = RP.BURNSIDE_LEVELS, RP.BURNSIDE_SMALL_GROUP
    try:
        RP.BURNSIDE_SMALL_GROUP = 0
        for name in boards:
            pk = packing(name)
            best: dict[int, list[float]] = {1: [], 2: []}
            seen = {}
            for _ in range(rounds):
                for lv in (1, 2):
                    RP.BURNSIDE_LEVELS = lv
                    ts = []
                    for _ in range(5):
                        t0 = time.perf_counter()
                        r = RP.count_packing(pk, cpu, mode=RP.default_branch(pk))
                        ts.append(time.perf_counter() - t0)
                    best[lv].append(min(ts))
                    seen[lv] = r
            print(f"{name}: " + "; ".join(
                f"{lv} piece(s): {statistics.median(best[lv]) * 1e3:.2f} ms, {seen[lv].leaves:,} leaves, "
                f"{seen[lv].nodes:,} nodes, {seen[lv].distinct:,} distinct" for lv in (1, 2)), flush=True)
    finally:
        RP.BURNSIDE_LEVELS, RP.BURNSIDE_SMALL_GROUP = saved


def count_moves(boards, entries=None) -> None:
    """The moves of whole counts (symmetry breaking included): every launch's ``OUT_MOVES`` added up, by wrapping
    ``BatchDFS.run_batch`` for the measurement (the totals keep the nodes only)."""
    from puzzlebatch.runners.engine import search as ES

    seen = {"moves": 0, "nodes": 0}
    plain = ES.BatchDFS.run_batch

    def run_batch(self, batch, *args, **kw):
        got = plain(self, batch, *args, **kw)
        seen["moves"] += int(got[0][:, T.OUT_MOVES].sum())
        seen["nodes"] += int(got[0][:, T.OUT_NODES].sum())
        return got

    cpu = select_backend("cpu")
    ES.BatchDFS.run_batch = run_batch
    try:
        for name in boards:
            for e in entries or [None]:
                seen.update(moves=0, nodes=0)
                st = None if e is None else replace(default_settings(cpu), memo_entries=(1 << e) if e else 0)
                r = RP.count_packing(packing(name), cpu, mode="bitboard", settings=st)
                table = "" if e is None else f", table 2^{e}" if e else ", no table"
                print(f"{name} count{table}: {r.nodes:,} nodes ({seen['nodes']:,} in the launches), "
                      f"{seen['moves']:,} moves ({seen['moves'] / max(1, seen['nodes']):.1%} of the launches' nodes)",
                      flush=True)
    finally:
        ES.BatchDFS.run_batch = plain


def moves(boards, entries=None) -> None:
    from puzzlebatch.cpu_fallback.search import drivers

    count_moves(boards, entries)
    for name in boards:
        eng = RP.engine(packing(name).cover, "bitboard")
        p = eng.problem
        d = drivers(eng.rules)
        for e in (17, 20):
            memo = memo_rows(1, p.goal, 1 << e, p.merge_key)
            out = np.zeros(T.OUT_WIDTH, np.int64)
            t0 = time.perf_counter()
            d.dfs_item(p.root.copy(), np.zeros(p.goal + 1, np.int32), np.int32(0), np.int32(0), np.int64(p.goal),
                       np.int64(1 << 62), np.int64(0), np.int64(0), np.zeros((1, len(p.root)), np.int64), out,
                       p.tables, memo[0])
            print(f"{name} whole tree, 2^{e} entries: {out[T.OUT_COUNT]:,} solutions, {out[T.OUT_NODES]:,} nodes, "
                  f"{out[T.OUT_MOVES]:,} moves ({out[T.OUT_MOVES] / out[T.OUT_NODES]:.1%}), "
                  f"{time.perf_counter() - t0:.2f} s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--section", choices=["sizes", "moves", "levels", "all"], default="all")
    ap.add_argument("--boards", default="6x10,5x12", help="comma-separated: pentomino rectangles, or iq")
    ap.add_argument("--entries", help="log2 of the table's entries, 0 for none (sizes: default 0,14,17,20; "
                    "moves: default the count's own table)")
    ap.add_argument("--frontier", default="64", help="comma-separated frontier targets")
    ap.add_argument("--merge", default="auto", choices=["auto", "yes", "no"])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=7, help="levels: rounds of one piece against two")
    a = ap.parse_args()
    boards = a.boards.split(",")
    entries = [int(x) for x in a.entries.split(",")] if a.entries else None
    if a.section in ("sizes", "all"):
        sizes(boards, entries or [0, 14, 17, 20], [int(x) for x in a.frontier.split(",")], a.merge, a.repeat)
    if a.section in ("moves", "all"):
        moves(boards, entries if a.section == "moves" else None)
    if a.section in ("levels", "all"):
        levels(boards, a.rounds)


if __name__ == "__main__":
    main()
