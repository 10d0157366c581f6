"""How often an MRV exact-cover tree reaches the same node twice: the case for a transposition table.

Two nodes with the same covered cells and the same placed pieces have the same subtree, so a table of counts keyed
on (cells, pieces) would search it once.  This script walks the whole tree of a cube packing (a plain MRV search
on one-word bitboards: the item with the fewest live options, cells and pieces alike; one piece kept in one
orientation of each rotation class) and prints, per depth, the nodes and the distinct (cells, pieces) keys among
them.  A ratio near 1 says a table would save nothing there.

    python bench/polyomino_transpositions.py --board 4x4x4 --pieces bedlam

Only for cubic boards of at most 64 cells with every piece used once (Bedlam, Soma).  Slow (minutes): it keeps
every node's key.  The count it prints is of the solutions with that piece in the least of its rotations' cell
sets: the solutions up to rotation when the piece has no rotational symmetry (Bedlam: 19,186).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

import numba as nb
import numpy as np

from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S


def rotations() -> list[np.ndarray]:
    """The 24 rotations of the cube as signed permutation matrices of determinant 1."""
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = np.zeros((3, 3), int)
            for i in range(3):
                m[i, perm[i]] = signs[i]
            if round(np.linalg.det(m)) == 1:
                out.append(m)
    return out


def tables(board: str, pieces: str):
    pk = P.build(P.parse_board(board), S.load_pieces(pieces))
    ec = pk.cover
    if len(ec.items) > 64 or len(set(board.split("x"))) != 1:
        raise SystemExit(f"--board {board}: a cube of at most 64 cells, every cell an item")
    masks = np.array([sum(1 << it for it in o) for o in ec.options], dtype=np.uint64).view(np.int64)
    piece = np.array(ec.option_group, dtype=np.int64)
    fixed = int(np.argmax(np.bincount(piece)))  # the piece with most placements, kept in one per rotation class
    centre = (int(board.split("x")[0]) - 1) / 2
    rots = rotations()
    keep = np.ones(len(masks), bool)
    for k in np.nonzero(piece == fixed)[0]:
        cells = np.asarray(pk.option_cells[k], dtype=float)
        key = tuple(sorted(map(tuple, cells.astype(int))))
        images = [tuple(sorted(map(tuple, np.rint((cells - centre) @ m.T + centre).astype(int)))) for m in rots]
        keep[k] = key == min(images)
    return masks[keep], piece[keep], int(piece.max()) + 1, len(ec.items)


@nb.njit(cache=True)
def walk(cm, pcs, n_pieces, n_cells, keys_c, keys_p, keys_d):
    n = cm.shape[0]
    live = np.empty((n_pieces + 1, n), np.int64)
    n_live = np.zeros(n_pieces + 2, np.int64)
    for i in range(n):
        live[0, i] = i
    n_live[0] = n
    choices = np.empty((n_pieces + 1, n), np.int64)
    n_choices = np.zeros(n_pieces + 1, np.int64)
    pos = np.zeros(n_pieces + 1, np.int64)
    covered = np.zeros(n_pieces + 2, np.int64)
    used = np.zeros(n_pieces + 2, np.int64)
    if n_cells < 64:
        covered[0] = ~((1 << n_cells) - 1)  # cells past the board are covered
    cnt = np.zeros(64 + n_pieces, np.int64)
    nodes = 0
    solutions = 0
    d = 0
    entering = True
    while d >= 0:
        if entering:
            keys_c[nodes] = covered[d]
            keys_p[nodes] = used[d]
            keys_d[nodes] = d
            nodes += 1
            if d == n_pieces:
                solutions += 1
                d -= 1
                entering = False
                continue
            cnt[:] = 0
            for j in range(n_live[d]):
                o = live[d, j]
                for c in range(64):
                    if (cm[o] >> c) & 1:
                        cnt[c] += 1
                cnt[64 + pcs[o]] += 1
            best = -1
            least = 1 << 60
            for c in range(64):
                if (covered[d] >> c) & 1 == 0 and cnt[c] < least:
                    least = cnt[c]
                    best = c
            for p in range(n_pieces):
                if (used[d] >> p) & 1 == 0 and cnt[64 + p] < least:
                    least = cnt[64 + p]
                    best = 64 + p
            k = 0
            if least > 0:
                for j in range(n_live[d]):
                    o = live[d, j]
                    if (best < 64 and (cm[o] >> best) & 1) or (best >= 64 and pcs[o] == best - 64):
                        choices[d, k] = o
                        k += 1
            n_choices[d] = k
            pos[d] = 0
        if pos[d] < n_choices[d]:
            o = choices[d, pos[d]]
            pos[d] += 1
            covered[d + 1] = covered[d] | cm[o]
            used[d + 1] = used[d] | (1 << pcs[o])
            k = 0
            for j in range(n_live[d]):
                q = live[d, j]
                if (cm[q] & cm[o]) == 0 and pcs[q] != pcs[o]:
                    live[d + 1, k] = q
                    k += 1
            n_live[d + 1] = k
            d += 1
            entering = True
        else:
            d -= 1
            entering = False
    return nodes, solutions


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", default="4x4x4")
    ap.add_argument("--pieces", default="bedlam")
    ap.add_argument("--max-nodes", type=int, default=60_000_000, help="room for this many node keys")
    a = ap.parse_args(argv)
    cm, pcs, n_pieces, n_cells = tables(a.board, a.pieces)
    keys = [np.zeros(a.max_nodes, np.int64) for _ in range(3)]
    t0 = time.perf_counter()
    nodes, solutions = walk(cm, pcs, n_pieces, n_cells, *keys)
    print(f"{a.board} {a.pieces}: {nodes:,} nodes, {solutions:,} solutions (one piece fixed), "
          f"{time.perf_counter() - t0:.0f} s")
    kc, kp, kd = (k[:nodes] for k in keys)
    print("| depth | nodes | distinct (cells, pieces) | nodes / distinct |\n|---:|---:|---:|---:|")
    for d in range(n_pieces + 1):
        sel = kd == d
        distinct = len(np.unique(np.stack([kc[sel], kp[sel]], 1), axis=0)) if sel.any() else 0
        print(f"| {d} | {int(sel.sum()):,} | {distinct:,} | {sel.sum() / max(distinct, 1):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
