"""Bedlam by MRV on per-piece lists of live placement masks, a stand-alone numba search (not in the package).

    python bench/polyomino_listmrv.py

Each piece left keeps the list of its live placements as one-word masks; a child filters every list by the
placement and adds the survivors into bit-sliced counters (two bits and a flag for four; an exact recount when every
empty cell is held four times or more); the item with the fewest live options is branched on (cells before pieces
on ties, as the package's MRV engine does), and two pieces left are counted as pairs.  The X pentacube is placed
first, one placement per class under the cube's 24 rotations, weighted by its class's size.  It searches the
package's MRV tree (the same nodes) with a different node: compare its seconds with ``NUMBA_NUM_THREADS=1
puzzlebatch polyomino count --board 4x4x4 --pieces bedlam --json`` (bench/log/polyomino.md).
"""
import time

import numpy as np
from numba import njit

from puzzlebatch.puzzles.polyomino import packing as P, shapes as S

DEAD = -2
LEAF = -3


@njit
def popc(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@njit
def tz(x):
    return popc((x & (~x + np.uint64(1))) - np.uint64(1))


@njit
def build(d, m, p, npc, full, buf, lst, lln, cov, used, top, item, leafc, stats):
    """Child of depth d by mask m of piece p, into depth d+1."""
    c1 = d + 1
    cv = cov[d] | m
    us = used[d] | (np.uint64(1) << np.uint64(p))
    cov[c1] = cv
    used[c1] = us
    t = top[d]
    un = np.uint64(0)
    a0 = np.uint64(0)
    a1 = np.uint64(0)
    sat = np.uint64(0)
    minp = 1 << 30
    bestp = -1
    rem = 0
    for q in range(npc):
        if (us >> np.uint64(q)) & np.uint64(1):
            lln[c1, q] = 0
            continue
        rem += 1
        s = lst[d, q]
        n = lln[d, q]
        st = t
        for i in range(n):
            x = buf[s + i]
            ok = (x & m) == 0
            buf[t] = x
            if ok:
                t += 1
                un |= x
                tt = a0 & x
                a0 ^= x
                c = a1 & tt
                a1 ^= tt
                sat |= c
        k = t - st
        if k == 0:
            return DEAD
        lst[c1, q] = st
        lln[c1, q] = k
        if k < minp:
            minp = k
            bestp = q
    top[c1] = t
    empty = ~cv & full
    if un != empty:
        return DEAD
    if rem <= 2:
        # count
        if rem == 0:
            leafc[0] = 1
            return LEAF
        if rem == 1:
            leafc[0] = minp
            return LEAF
        qa = -1
        qb = -1
        for q in range(npc):
            if not ((us >> np.uint64(q)) & np.uint64(1)):
                if qa < 0:
                    qa = q
                else:
                    qb = q
        cnt = 0
        for i in range(lln[c1, qa]):
            x = buf[lst[c1, qa] + i]
            for j in range(lln[c1, qb]):
                if (x & buf[lst[c1, qb] + j]) == 0:
                    cnt += 1
        leafc[0] = cnt
        return LEAF
    # MRV: cells with count 1..3 (lowest index first), a piece of as many placements after them
    for k in range(1, 4):
        ck = empty & ~sat & (a0 if k & 1 else ~a0) & (a1 if k & 2 else ~a1)
        if ck != 0:
            item[c1] = tz(ck)
            return item[c1]
        if minp == k:
            item[c1] = 64 + bestp
            return item[c1]
    stats[1] += 1
    # exact recount
    best = -1
    bn = 1 << 30
    cnt = np.zeros(64, np.int64)
    for q in range(npc):
        for i in range(lln[c1, q]):
            x = buf[lst[c1, q] + i]
            while x:
                cnt[tz(x)] += 1
                x &= x - np.uint64(1)
    e = empty
    while e:
        c = tz(e)
        e &= e - np.uint64(1)
        if cnt[c] < bn:
            bn = cnt[c]
            best = c
    if minp < bn:
        best = 64 + bestp
    item[c1] = best
    return best


@njit
def count_from(rep, xp, masks, pstart, plen, npc, full):
    D = npc + 2
    buf = np.zeros(1 << 18, np.uint64)
    lst = np.zeros((D, npc), np.int64)
    lln = np.zeros((D, npc), np.int64)
    cov = np.zeros(D, np.uint64)
    used = np.zeros(D, np.uint64)
    top = np.zeros(D, np.int64)
    item = np.zeros(D, np.int64)
    itq = np.zeros(D, np.int64)
    itt = np.zeros(D, np.int64)
    leafc = np.zeros(1, np.int64)
    stats = np.zeros(4, np.int64)
    # depth 0: full lists
    t = 0
    for q in range(npc):
        lst[0, q] = t
        lln[0, q] = plen[q]
        for i in range(plen[q]):
            buf[t] = masks[pstart[q] + i]
            t += 1
    top[0] = t
    total = 0
    nodes = 1
    r = build(0, rep, xp, npc, full, buf, lst, lln, cov, used, top, item, leafc, stats)
    if r == DEAD:
        return 0, nodes, stats
    if r == LEAF:
        return leafc[0], nodes, stats
    d = 1
    itq[1] = 0
    itt[1] = 0
    while d >= 1:
        it = item[d]
        m = np.uint64(0)
        pq = -1
        if it >= 64:
            q = it - 64
            i = itt[d]
            if i < lln[d, q]:
                m = buf[lst[d, q] + i]
                pq = q
                itt[d] = i + 1
        else:
            b = np.uint64(1) << np.uint64(it)
            q = itq[d]
            i = itt[d]
            while q < npc:
                n = lln[d, q]
                s = lst[d, q]
                while i < n:
                    x = buf[s + i]
                    i += 1
                    if x & b:
                        m = x
                        pq = q
                        break
                if pq >= 0:
                    break
                q += 1
                i = 0
            itq[d] = q
            itt[d] = i
        if pq < 0:
            d -= 1
            continue
        nodes += 1
        r = build(d, m, pq, npc, full, buf, lst, lln, cov, used, top, item, leafc, stats)
        if r == DEAD:
            stats[0] += 1
            continue
        if r == LEAF:
            total += leafc[0]
            continue
        d += 1
        itq[d] = 0
        itt[d] = 0
    return total, nodes, stats


def setup():
    pieces = S.load_pieces("bedlam")
    board = P.parse_board("4x4x4")
    pk = P.build(board, pieces)
    ec = pk.cover
    npc = len(pieces)
    groups = np.array(ec.option_group)
    masks = []
    pstart = []
    plen = []
    for q in range(npc):
        ids = np.flatnonzero(groups == q)
        pstart.append(sum(plen))
        plen.append(len(ids))
        for o in ids:
            m = 0
            for c in ec.options[o]:
                m |= 1 << int(c)
            masks.append(m)
    masks = np.array(masks, np.uint64)
    coords = ec.geometry.coords
    return pk, npc, masks, np.array(pstart), np.array(plen), coords


def main():
    pk, npc, masks, pstart, plen, coords = setup()
    names = [p.name for p in pk.pieces]
    xp = names.index("X")
    rots = S.maps_for(3, "rotations")
    cid = {tuple(map(int, c)): i for i, c in enumerate(coords)}
    perms = []
    for R in rots:
        perm = []
        for c in coords:
            v = (np.asarray(R) @ (2 * np.asarray(c) - 3) + 3) // 2
            perm.append(cid[tuple(int(a) for a in v)])
        perms.append(perm)
    assert len(set(map(tuple, perms))) == 24
    xm = masks[pstart[xp]:pstart[xp] + plen[xp]]
    seen = set()
    reps = []
    for m in xm:
        m = int(m)
        if m in seen:
            continue
        cells = [c for c in range(64) if m >> c & 1]
        orb = set()
        for perm in perms:
            mm = 0
            for c in cells:
                mm |= 1 << perm[c]
            orb.add(mm)
        seen |= orb
        reps.append((m, len(orb)))
    print(f"X pentacube: {len(xm)} placements in {len(reps)} classes")
    full = np.uint64((1 << 64) - 1)
    count_from(np.uint64(reps[0][0]), xp, masks, pstart, plen, npc, full)
    t0 = time.perf_counter()
    total = 0
    nodes = 0
    st = np.zeros(4, np.int64)
    for m, w in reps:
        c, n, s = count_from(np.uint64(m), xp, masks, pstart, plen, npc, full)
        total += w * c
        nodes += n
        st += s
    dt = time.perf_counter() - t0
    print(f"{total:,} solutions ({total // 24:,} distinct), {nodes - st[0]:,} nodes made of {nodes:,} tried, "
          f"{st[1]:,} exact recounts, {dt:.2f} s (the count, compiled)")


if __name__ == "__main__":
    main()
