"""The rules of the compiled random cut (:mod:`puzzlebatch.runners.polyomino.bigcut`): plain functions in the numba
subset, compiled by :func:`puzzlebatch.jit.compile_rules` (one CPU unit, cached on disk).

The pass is sequential (each piece depends on the cells cut before it), so it has no CUDA twin.
"""

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _next(state):
    """splitmix64: (new state, 64 random bits)."""
    s = state + _GOLDEN
    z = s
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    z = z ^ (z >> np.uint64(31))
    return s, z


def _feasible(n, a, b):
    """Can ``n`` cells be a sum of piece sizes in ``[a, b]``?"""
    k = n // a
    return n > 0 and k * b >= n


def _cut_kernel(mask, w, h, a, b, seed, max_backtracks):
    n = w * h
    owner = np.full(n, -1, np.int32)
    for i in range(n):
        if not mask[i]:
            owner[i] = -2
    cells = np.empty(n, np.int32)  # cells of the pieces, in creation order
    starts = np.zeros(n + 1, np.int64)  # piece p: cells[starts[p]:starts[p+1]]
    frontier = np.empty(4 * b + 4, np.int32)
    queue = np.empty(8 * b + 8, np.int32)
    stamp = np.zeros(n, np.int64)
    st = 0
    state = np.uint64(seed) * np.uint64(2) + np.uint64(1)
    npieces = 0
    ncells = 0
    pos = 0
    fails = 0
    fail_pos = -1
    backtracks = 0
    limit = 8 * b
    dx = (1, -1, 0, 0)
    dy = (0, 0, 1, -1)
    while True:
        while pos < n and owner[pos] != -1:
            pos += 1
        if pos == n:
            break
        kept = False
        for _try in range(8):
            state, r = _next(state)
            target = a + np.int64(r % np.uint64(b - a + 1))
            # grow
            base = ncells
            cells[ncells] = pos
            ncells += 1
            owner[pos] = npieces
            nf = 0
            for d in range(4):
                x = pos % w + dx[d]
                y = pos // w + dy[d]
                if 0 <= x < w and 0 <= y < h and owner[y * w + x] == -1:
                    frontier[nf] = y * w + x
                    nf += 1
            while ncells - base < target and nf > 0:
                state, r = _next(state)
                j = np.int64(r % np.uint64(nf))
                c = frontier[j]
                frontier[j] = frontier[nf - 1]
                nf -= 1
                if owner[c] != -1:
                    continue
                owner[c] = npieces
                cells[ncells] = c
                ncells += 1
                for d in range(4):
                    x = c % w + dx[d]
                    y = c // w + dy[d]
                    if 0 <= x < w and 0 <= y < h and owner[y * w + x] == -1:
                        frontier[nf] = y * w + x
                        nf += 1
            ok = ncells - base >= a
            if ok:  # every pocket of uncut cells next to the piece must stay cuttable
                st += 1
                for q in range(base, ncells):
                    if not ok:
                        break
                    c0 = cells[q]
                    for d in range(4):
                        x = c0 % w + dx[d]
                        y = c0 // w + dy[d]
                        if not (0 <= x < w and 0 <= y < h):
                            continue
                        s0 = y * w + x
                        if owner[s0] != -1 or stamp[s0] == st:
                            continue
                        stamp[s0] = st
                        queue[0] = s0
                        head = 0
                        tail = 1
                        while head < tail and tail < limit:
                            c = queue[head]
                            head += 1
                            for e in range(4):
                                xx = c % w + dx[e]
                                yy = c // w + dy[e]
                                if 0 <= xx < w and 0 <= yy < h:
                                    t = yy * w + xx
                                    if owner[t] == -1 and stamp[t] != st:
                                        stamp[t] = st
                                        if tail < limit:
                                            queue[tail] = t
                                        tail += 1
                        if tail < limit and not _feasible(tail, a, b):
                            ok = False
                            break
            if ok:
                kept = True
                break
            for q in range(base, ncells):  # undo this draw
                owner[cells[q]] = -1
            ncells = base
        if kept:
            npieces += 1
            starts[npieces] = ncells
            continue
        # stuck: undo the last k pieces and go on from the first undone cell
        backtracks += 1
        if backtracks > max_backtracks:
            return owner, cells, starts, -1, backtracks
        if pos != fail_pos:  # stuck somewhere new: start with a small repair
            fails = 0
            fail_pos = pos
        fails += 1
        k = min(npieces, 1 << min(fails, 24))
        if k == 0:
            return owner, cells, starts, -1, backtracks
        npieces -= k
        for q in range(starts[npieces], ncells):
            owner[cells[q]] = -1
        ncells = starts[npieces]
        pos = cells[ncells]
    return owner, cells, starts, npieces, backtracks


def _bbox(cells, starts, w, p):
    """(x0, x1, y0, y1): the bounding box of piece ``p``."""
    x0 = w
    x1 = -1
    y0 = 1 << 62
    y1 = -1
    for q in range(starts[p], starts[p + 1]):
        x = cells[q] % w
        y = cells[q] // w
        x0 = min(x0, x)
        x1 = max(x1, x)
        y0 = min(y0, y)
        y1 = max(y1, y)
    return x0, x1, y0, y1


def _render(cells, starts, w, first, last):
    """Rows of ``#``/``.`` (newline-terminated) of pieces ``first..last-1`` in one byte buffer, with offsets."""
    total = 0
    for p in range(first, last):
        x0, x1, y0, y1 = _bbox(cells, starts, w, p)
        total += (y1 - y0 + 1) * (x1 - x0 + 2)
    buf = np.empty(total, np.uint8)
    offs = np.zeros(last - first + 1, np.int64)
    o = 0
    for p in range(first, last):
        x0, x1, y0, y1 = _bbox(cells, starts, w, p)
        gw = x1 - x0 + 2
        n = (y1 - y0 + 1) * gw
        for i in range(n):
            buf[o + i] = 46  # '.'
        for r in range(y1 - y0 + 1):
            buf[o + r * gw + gw - 1] = 10  # newline
        for q in range(starts[p], starts[p + 1]):
            buf[o + (cells[q] // w - y0) * gw + cells[q] % w - x0] = 35  # '#'
        o += n
        offs[p - first + 1] = o
    return buf, offs

