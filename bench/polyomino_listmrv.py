"""Bedlam by MRV on per-piece lists of live placement masks, a stand-alone numba search (not in the package).

    python bench/polyomino_listmrv.py

Each piece left keeps the list of its live placements as one-word masks; a child filters every list by the
placement and adds the survivors into bit-sliced counters (two bits and a flag for four; an exact recount when every
empty cell is held four times or more); the item with the fewest live options is branched on (cells before pieces
on ties, as the package's MRV engine does), and two pieces left are counted as pairs.  The X pentacube is placed
first, one placement per class under the cube's 24 rotations, weighted by its class's size.  It searches the
package's MRV tree (the same nodes) with a different node: compare its seconds with ``NUMBA_NUM_THREADS=1
puzzlebatch polyomino count --board 4x4x4 --pieces bedlam --json`` (bench/log/polyomino.md).

The variants measured in the log, each a flag:

    python bench/polyomino_listmrv.py --ties pieces            # or last-cell: the tie-break of the least count
    python bench/polyomino_listmrv.py --states                 # distinct (cells, pieces) states per depth
    python bench/polyomino_listmrv.py --first-cell-memo 27     # first empty cell, every state's count kept
    python bench/polyomino_listmrv.py --drop common --rounds 1 # the cells every option of an item covers
    python bench/polyomino_listmrv.py --drop fields --most 15 --words 4   # singleton arc consistency
"""
import argparse
import time

import numpy as np
from numba import njit

from puzzlebatch.puzzles.polyomino import packing as P, shapes as S

# what a run does, set from the command line before the first compile (numba freezes globals then)
DROP = 0  # 0: nothing; 1: the cells every option of an item covers; 2: singleton arc consistency by packed fields
ROUNDS = 20  # rounds of dropping at a node, at most
MOST = 15  # fields: items of at most this many live options are looked at
WORDS = 4  # fields: words of fields (an item of k options takes k + 1 bits)
TIES = 0  # 0: the lowest cell, cells before pieces; 1: pieces before cells; 2: the highest cell
STATES = False  # log every node made (covered cells, pieces used, depth) for the distinct-state count
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
def shrunk(c1, q, n, k, lln, stats):
    """A list of ``n`` options kept to its first ``k``: -1 when none is left, 1 when some went, 0 otherwise."""
    if k == n:
        return 0
    stats[2] += n - k
    lln[c1, q] = k
    return -1 if k == 0 else 1


@njit
def propagate(c1, npc, full, buf, lst, lln, cov, used, stats, rounds):
    """Drop the options that cannot join the cells every live option of an item covers.

    Per empty cell ``c`` the cells all its live options cover (``common[c]``), per piece left the same (``Ip``):
    an option that covers a cell of ``common[c]`` without ``c`` is dead, so is an option covering a cell that every
    option of another piece covers, and an option of piece ``q`` that misses a cell only ``q`` can cover.  Repeated
    until nothing drops (at most ``rounds`` times); False when a cell or a piece is left with nothing.
    """
    empty = ~cov[c1] & full
    us = used[c1]
    common = np.empty(64, np.uint64)
    po = np.empty(64, np.int64)
    req = np.empty(64, np.uint64)
    Ip = np.empty(npc, np.uint64)
    must = np.empty(npc, np.uint64)
    for _ in range(rounds):
        for c in range(64):
            common[c] = full
            po[c] = -1
            req[c] = 0
        for q in range(npc):
            Ip[q] = full
            must[q] = 0
        for q in range(npc):
            if (us >> np.uint64(q)) & np.uint64(1):
                continue
            s = lst[c1, q]
            for i in range(lln[c1, q]):
                x = buf[s + i]
                Ip[q] &= x
                y = x
                while y:
                    c = tz(y)
                    y &= y - np.uint64(1)
                    common[c] &= x
                    if po[c] == -1:
                        po[c] = q
                    elif po[c] != q:
                        po[c] = -2
        # forced companions
        blockall = np.uint64(0)
        for q in range(npc):
            if not ((us >> np.uint64(q)) & np.uint64(1)):
                blockall |= Ip[q]
        e = empty
        anyc = False
        while e:
            c = tz(e)
            e &= e - np.uint64(1)
            b = np.uint64(1) << np.uint64(c)
            if po[c] >= 0:
                must[po[c]] |= b
            r = common[c] & ~b
            while r:
                x = tz(r)
                r &= r - np.uint64(1)
                req[x] |= b
                anyc = True
        changed = False
        for q in range(npc):
            if (us >> np.uint64(q)) & np.uint64(1):
                continue
            # cells forced to other pieces
            blk = np.uint64(0)
            for r2 in range(npc):
                if r2 != q and not ((us >> np.uint64(r2)) & np.uint64(1)):
                    blk |= Ip[r2]
            s = lst[c1, q]
            n = lln[c1, q]
            k = 0
            mq = must[q]
            for i in range(n):
                x = buf[s + i]
                ok = (x & blk) == 0 and (mq & ~x) == 0
                if ok and anyc:
                    y = x
                    rq = np.uint64(0)
                    while y:
                        c = tz(y)
                        y &= y - np.uint64(1)
                        rq |= req[c]
                    ok = (rq & ~x) == 0
                if ok:
                    buf[s + k] = x
                    k += 1
            r = shrunk(c1, q, n, k, lln, stats)
            if r < 0:
                return False
            changed |= r > 0
        if not changed:
            break
        # cells left uncovered?
        un = np.uint64(0)
        for q in range(npc):
            if (us >> np.uint64(q)) & np.uint64(1):
                continue
            s = lst[c1, q]
            for i in range(lln[c1, q]):
                un |= buf[s + i]
        if un != empty:
            return False
    return True

@njit
def planes_of(c1, npc, buf, lst, lln, us, pl):
    """Four bit planes of the live options' counts per cell and a flag for sixteen or more, into ``pl``."""
    a0 = a1 = a2 = a3 = sat = np.uint64(0)
    for q in range(npc):
        if (us >> np.uint64(q)) & np.uint64(1):
            continue
        s = lst[c1, q]
        for i in range(lln[c1, q]):
            x = buf[s + i]
            t0 = a0 & x
            a0 ^= x
            t1 = a1 & t0
            a1 ^= t0
            t2 = a2 & t1
            a2 ^= t1
            sat |= a3 & t2
            a3 ^= t2
    pl[0], pl[1], pl[2], pl[3], pl[4] = a0, a1, a2, a3, sat


@njit
def sac(c1, npc, full, buf, lst, lln, cov, used, stats, rounds, K, NF):
    """Singleton arc consistency on the items of at most ``K`` live options, by packed bit fields.

    Each such item (cells first, fewest options first) gets a field of one bit per live option and a guard bit, in
    ``NF`` words; ``B[c]`` holds the bits of the options that cover cell ``c``, ``P[q]`` those of piece ``q``'s.  An
    option's bits OR'ed over its cells and piece, with the fields of its own items masked, fill a field exactly when
    it conflicts with every option of that item: one add per word carries into the guard.  Such options are
    dropped, the counts taken again, until nothing drops (at most ``rounds`` times).
    """
    empty = ~cov[c1] & full
    us = used[c1]
    pl = np.empty(5, np.uint64)
    B = np.empty((64, NF), np.uint64)
    FM = np.empty((64, NF), np.uint64)
    P = np.empty((npc, NF), np.uint64)
    PF = np.empty((npc, NF), np.uint64)
    L = np.empty(NF, np.uint64)
    G = np.empty(NF, np.uint64)
    fstart = np.empty(64 + npc, np.int64)
    fill = np.empty(64 + npc, np.int64)
    for _ in range(rounds):
        stats[1] += 1
        planes_of(c1, npc, buf, lst, lln, us, pl)
        a0, a1, a2, a3, sat = pl[0], pl[1], pl[2], pl[3], pl[4]
        if ((a0 | a1 | a2 | a3 | sat) & empty) != empty:
            return False
        B[:, :] = 0
        FM[:, :] = 0
        P[:, :] = 0
        PF[:, :] = 0
        L[:] = 0
        G[:] = 0
        # lay out fields, fewest options first
        pos = 0
        critc = np.uint64(0)
        critp = np.uint64(0)
        for k in range(1, K + 1):
            ck = empty & ~sat & (a0 if k & 1 else ~a0) & (a1 if k & 2 else ~a1)
            ck &= (a2 if k & 4 else ~a2) & (a3 if k & 8 else ~a3)
            while ck:
                c = tz(ck)
                ck &= ck - np.uint64(1)
                w0 = pos // 64
                w1 = (pos + k) // 64
                if w1 != w0:
                    pos = w1 * 64
                    w0 = w1
                if pos + k + 1 > NF * 64:
                    break
                fstart[c] = pos
                fill[c] = 0
                b = pos % 64
                for j in range(k):
                    FM[c, w0] |= np.uint64(1) << np.uint64(b + j)
                L[w0] |= np.uint64(1) << np.uint64(b)
                if b + k < 64:
                    G[w0] |= np.uint64(1) << np.uint64(b + k)
                pos += k + 1
                critc |= np.uint64(1) << np.uint64(c)
            for q in range(npc):
                if (us >> np.uint64(q)) & np.uint64(1):
                    continue
                if lln[c1, q] != k:
                    continue
                w0 = pos // 64
                w1 = (pos + k) // 64
                if w1 != w0:
                    pos = w1 * 64
                    w0 = w1
                if pos + k + 1 > NF * 64:
                    break
                fstart[64 + q] = pos
                fill[64 + q] = 0
                b = pos % 64
                for j in range(k):
                    PF[q, w0] |= np.uint64(1) << np.uint64(b + j)
                L[w0] |= np.uint64(1) << np.uint64(b)
                if b + k < 64:
                    G[w0] |= np.uint64(1) << np.uint64(b + k)
                pos += k + 1
                critp |= np.uint64(1) << np.uint64(q)
        if critc == 0 and critp == 0:
            return True
        # assign option bits
        for q in range(npc):
            if (us >> np.uint64(q)) & np.uint64(1):
                continue
            s = lst[c1, q]
            pc = (critp >> np.uint64(q)) & np.uint64(1)
            for i in range(lln[c1, q]):
                x = buf[s + i]
                cc = x & critc
                while cc or pc:
                    if pc:
                        f = 64 + q
                        pc = np.uint64(0)
                    else:
                        f = np.int64(tz(cc))
                        cc &= cc - np.uint64(1)
                    p = fstart[f] + fill[f]
                    fill[f] += 1
                    w = p // 64
                    bit = np.uint64(1) << np.uint64(p % 64)
                    P[q, w] |= bit
                    y = x
                    while y:
                        c = tz(y)
                        y &= y - np.uint64(1)
                        B[c, w] |= bit
                pc = (critp >> np.uint64(q)) & np.uint64(1)
        # cell field masks into FM done; check pass
        changed = False
        for q in range(npc):
            if (us >> np.uint64(q)) & np.uint64(1):
                continue
            s = lst[c1, q]
            n = lln[c1, q]
            k = 0
            for i in range(n):
                x = buf[s + i]
                dead = False
                for w in range(NF):
                    H = P[q, w]
                    E = PF[q, w]
                    y = x
                    while y:
                        c = tz(y)
                        y &= y - np.uint64(1)
                        H |= B[c, w]
                        E |= FM[c, w]
                    V = H & ~E & ~G[w]
                    if ((V + L[w]) & G[w]) != 0:
                        dead = True
                        break
                if not dead:
                    buf[s + k] = x
                    k += 1
            r = shrunk(c1, q, n, k, lln, stats)
            if r < 0:
                return False
            changed |= r > 0
        if not changed:
            break
    return True

@njit
def reverse_bits(x):
    r = np.uint64(0)
    for _ in range(64):
        r = (r << np.uint64(1)) | (x & np.uint64(1))
        x >>= np.uint64(1)
    return r


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
    if DROP != 0 and rem > 2:
        if DROP == 1:
            ok = propagate(c1, npc, full, buf, lst, lln, cov, used, stats, ROUNDS)
        else:
            ok = sac(c1, npc, full, buf, lst, lln, cov, used, stats, ROUNDS, MOST, WORDS)
        if not ok:
            stats[3] += 1
            return DEAD
        # the counters again, from the lists left
        a0 = np.uint64(0)
        a1 = np.uint64(0)
        sat = np.uint64(0)
        minp = 1 << 30
        for q in range(npc):
            if (us >> np.uint64(q)) & np.uint64(1):
                continue
            s = lst[c1, q]
            k = lln[c1, q]
            for i in range(k):
                x = buf[s + i]
                tt = a0 & x
                a0 ^= x
                c = a1 & tt
                a1 ^= tt
                sat |= c
            if k < minp:
                minp = k
                bestp = q
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
        if TIES == 1 and minp == k:
            item[c1] = 64 + bestp
            return item[c1]
        if ck != 0:
            item[c1] = 63 - tz(reverse_bits(ck)) if TIES == 2 else tz(ck)
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
def count_from(rep, xp, masks, pstart, plen, npc, full, logc, logu, logd):
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
    stats = np.zeros(5, np.int64)
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
        if STATES:
            k = stats[4]
            if k < logc.shape[0]:
                logc[k] = cov[d + 1]
                logu[k] = used[d + 1]
                logd[k] = d + 1
            stats[4] += 1
        if r == LEAF:
            total += leafc[0]
            continue
        d += 1
        itq[d] = 0
        itt[d] = 0
    return total, nodes, stats


@njit
def first_cell_memo(cov, used, full, npc, lists, lstart, llen, hk, hu, hv, stats):
    """Solutions below (cov, used), first empty cell first, each state's count kept in an open-addressing table.

    ``stats``: states expanded, table hits, states stored; -1 once the table is 70 % full (the count is void).
    """
    if cov == full:
        return 1
    mask = np.uint64(hk.shape[0] - 1)
    h = (cov * np.uint64(0x9E3779B97F4A7C15)) ^ (used * np.uint64(0xC2B2AE3D27D4EB4F))
    h ^= h >> np.uint64(29)
    slot = h & mask
    while hu[slot] != 0:
        if hk[slot] == cov and hu[slot] == used:
            stats[1] += 1
            return hv[slot]
        slot = (slot + np.uint64(1)) & mask
    if stats[2] * 10 > hk.shape[0] * 7:
        return -1
    stats[0] += 1
    p = np.int64(tz(~cov))
    tot = 0
    for q in range(npc):
        if (used >> np.uint64(q)) & np.uint64(1):
            continue
        s = lstart[q, p]
        for i in range(llen[q, p]):
            m = lists[s + i]
            if m & cov:
                continue
            c = first_cell_memo(cov | m, used | (np.uint64(1) << np.uint64(q)), full, npc, lists, lstart, llen,
                                hk, hu, hv, stats)
            if c < 0:
                return -1
            tot += c
    hk[slot] = cov
    hu[slot] = used
    hv[slot] = tot
    stats[2] += 1
    return tot


def run_first_cell_memo(xp, masks, pstart, plen, npc, reps, table_bits):
    """The first-empty-cell search with every state's count kept (a table of 2**table_bits states)."""
    lists = []
    lstart = np.zeros((npc, 64), np.int64)
    llen = np.zeros((npc, 64), np.int64)
    for q in range(npc):
        ms = [int(m) for m in masks[pstart[q]:pstart[q] + plen[q]]]
        for p in range(64):
            sel = [m for m in ms if (m & -m) == (1 << p)]
            lstart[q, p] = len(lists)
            llen[q, p] = len(sel)
            lists += sel
    lists = np.array(lists, np.uint64)
    full = np.uint64((1 << 64) - 1)
    hk = np.zeros(1 << table_bits, np.uint64)
    hu = np.zeros(1 << table_bits, np.uint64)
    hv = np.zeros(1 << table_bits, np.int64)
    stats = np.zeros(3, np.int64)
    t0 = time.perf_counter()
    total = 0
    for m, w in reps:
        c = first_cell_memo(np.uint64(m), np.uint64(1 << xp), full, npc, lists, lstart, llen, hk, hu, hv, stats)
        print(f"X at {m:#x}: {'table full' if c < 0 else f'{c:,} solutions'}; {stats[0]:,} states expanded, "
              f"{stats[1]:,} table hits, {time.perf_counter() - t0:.1f} s (compile included)", flush=True)
        if c < 0:
            return
        total += w * c
    print(f"{total:,} solutions ({total // 24:,} distinct)")


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


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description="Bedlam by MRV on lists of placement masks, with the variants of the log.")
    ap.add_argument("--drop", choices=["none", "common", "fields"], default="none",
                    help="at every node, drop options: 'common' those that miss the cells every option of a cell or "
                         "piece covers, 'fields' those that conflict with every option of an item (packed fields)")
    ap.add_argument("--rounds", type=int, default=20, help="rounds of dropping at a node, at most (default 20)")
    ap.add_argument("--most", type=int, default=15, choices=[3, 7, 15],
                    help="fields: items of at most this many live options (default 15)")
    ap.add_argument("--words", type=int, default=4, help="fields: 64-bit words of fields (default 4)")
    ap.add_argument("--ties", choices=["cells", "pieces", "last-cell"], default="cells",
                    help="which least-count item is branched on: the lowest cell before pieces (the engine's), "
                         "pieces first, or the highest cell")
    ap.add_argument("--first-cell-memo", type=int, metavar="BITS", default=0,
                    help="instead: the first-empty-cell search with each state's count kept, in a table of 2**BITS")
    ap.add_argument("--states", action="store_true",
                    help="count the distinct (covered cells, pieces used) states per depth (no warm-up, no timing)")
    return ap.parse_args(argv)


def main(argv=None):
    global DROP, ROUNDS, MOST, WORDS, TIES, STATES
    args = parse_args(argv)
    DROP = ["none", "common", "fields"].index(args.drop)
    ROUNDS, MOST, WORDS, STATES = args.rounds, args.most, args.words, args.states
    TIES = ["cells", "pieces", "last-cell"].index(args.ties)
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
    if args.first_cell_memo:
        run_first_cell_memo(xp, masks, pstart, plen, npc, reps, args.first_cell_memo)
        return
    full = np.uint64((1 << 64) - 1)
    n_log = 20_000_000 if STATES else 1
    logc = np.zeros(n_log, np.uint64)
    logu = np.zeros(n_log, np.uint64)
    logd = np.zeros(n_log, np.int64)
    if not STATES:
        count_from(np.uint64(reps[0][0]), xp, masks, pstart, plen, npc, full, logc, logu, logd)
    t0 = time.perf_counter()
    total = 0
    nodes = 0
    st = np.zeros(5, np.int64)
    for m, w in reps:
        c, n, s = count_from(np.uint64(m), xp, masks, pstart, plen, npc, full, logc, logu, logd)
        total += w * c
        nodes += n
        st += s
        if STATES:
            k = min(int(s[4]), n_log)
            key = np.stack([logc[:k], logu[:k]], 1)
            for depth in range(1, npc + 1):
                sel = logd[:k] == depth
                if sel.any():
                    print(f"X at {m:#x}, depth {depth}: {int(sel.sum()):,} nodes, "
                          f"{len(np.unique(key[sel], axis=0)):,} distinct states")
            print(f"X at {m:#x}: {k:,} nodes, {len(np.unique(key, axis=0)):,} distinct states")
    dt = time.perf_counter() - t0
    print(f"{total:,} solutions ({total // 24:,} distinct), {nodes - st[0]:,} nodes made of {nodes:,} tried, "
          f"{st[1]:,} recounts and rounds, {st[2]:,} options dropped, {st[3]:,} children killed by a drop, "
          f"{dt:.2f} s (the count{'' if STATES else ', compiled'})")


if __name__ == "__main__":
    main()
