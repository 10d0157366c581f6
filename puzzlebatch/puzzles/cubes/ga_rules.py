"""Genetic-algorithm operators for connector cubes (plain functions in the numba subset, both backends).

Long because every operator, both memetic repairs included, is one compile unit with the breeding template (see
:func:`puzzlebatch.ga.compile.ga_unit`): one module a family.

A genome is a partial assembly: ``genome[cell]`` is the placement ``cube * 24 + rotation`` in that cell, -1 when
the cell is empty.  Every operator keeps genomes valid (each cube at most once, every contact matching), so the
fitness is simply the number of cubes placed, as in the seed document.

Operators (``params`` is a float64 vector, see ``P_*``):

* crossover — with probability ``params[P_BLOCK]`` a *transplant*: the donor's cubes on one row (or, with
  probability ``params[P_PLANE]``, one plane) through a random donor cube are copied, at the same cells and in the
  same rotations, into the empty cells of the carrier, all or nothing; otherwise (or when the transplant does not
  fit) the document's move: one donor cube that the carrier lacks is placed in the first free cell and rotation
  (from a random start) where it fits;
* placement — a cube is put in the first free cell and rotation (from a random start) where it fits; with
  ``params[P_GROW] > 0`` cells that touch a placed cube are tried first, so the figure grows in one piece;
* mutation — one cube is taken out and put back in a random free cell and rotation where it fits (it can always
  go back where it was); with probability ``params[P_RUIN]`` instead *ruin and recreate*: a hole and its six
  neighbours are emptied and the whole figure is refilled greedily from every unused cube;
* memetic repair — with ``params[P_REPAIR] > 0`` (a node budget) every mutation is instead a local search: up to
  ``params[P_RADIUS]`` cubes around a hole are taken out, then the empty cells are refilled by a backtracking
  search over the unused cubes that stops at the budget (the partial fill it holds then is kept and topped up
  greedily), so an offspring one cube short is often completed; with ``params[P_ORDER] > 0`` (:func:`mrv_repair`)
  the search branches on the most constrained empty cell and backs up as soon as a cell has no fitting placement.

The random functions ``rand_below`` / ``rand_unit`` come from :mod:`puzzlebatch.ga.rng`; compile_ga_rules swaps
them for their compiled twins.
"""

from puzzlebatch.ga.rng import rand_below, rand_unit  # compiled alongside by compile_ga_rules

N_ROT = 24

G_CELLS = 0
G_CUBES = 1
G_NBR = 2
G_FACES = 3
G_XYZ = 4
G_HEADER = 8

P_BLOCK = 0
P_PLANE = 1
P_RUIN = 2
P_GROW = 3
P_REPAIR = 4  # node budget of the memetic repair (0: off); P_RADIUS = 5: cells it empties around a hole
P_RADIUS = 5
P_ORDER = 6  # the repair's refill order: 0 cells in scan order, 1 the most constrained cell first (see mrv_repair)
MASK_CUBES = 62  # up to this many cubes the used ones are kept in one int64 bit mask


def ga_face(pl, d, tables):
    return tables[tables[G_FACES] + pl * 6 + d]


def ga_opposite(d):
    if d == 0:
        return 5
    if d == 5:
        return 0
    return (d + 1) % 4 + 1


def has_cube(genome, cube):
    for k in range(genome.shape[0]):
        if genome[k] >= 0 and genome[k] // N_ROT == cube:
            return True
    return False


def fits_at(genome, cell, pl, tables):
    """Placement ``pl`` in ``cell`` matches every filled neighbour in ``genome``."""
    for d in range(6):
        nb = tables[tables[G_NBR] + cell * 6 + d]
        if nb >= 0 and genome[nb] >= 0:
            if ga_face(pl, d, tables) + ga_face(genome[nb], ga_opposite(d), tables) != 0:
                return False
    return True


def fitness(genome, tables):
    """Cubes placed (the document's weighting)."""
    n = 0
    for k in range(genome.shape[0]):
        if genome[k] >= 0:
            n += 1
    return float(n)


def touches(genome, cell, tables):
    for d in range(6):
        nb = tables[tables[G_NBR] + cell * 6 + d]
        if nb >= 0 and genome[nb] >= 0:
            return True
    return False


def place_anywhere(genome, cube, rng, params, tables):
    """Put ``cube`` in the first free cell and rotation where it fits, scanning from a random start.

    With ``params[P_GROW] > 0`` cells touching a placed cube are tried first (the figure grows in one piece)."""
    n = tables[G_CELLS]
    c0 = rand_below(rng, n)
    r0 = rand_below(rng, N_ROT)
    first_pass = 0
    if params[P_GROW] > 0.0:
        first_pass = 1
    for phase in range(first_pass, -1, -1):
        for a in range(n):
            cell = (c0 + a) % n
            if genome[cell] >= 0:
                continue
            if phase == 1 and not touches(genome, cell, tables):
                continue
            for b in range(N_ROT):
                pl = cube * N_ROT + (r0 + b) % N_ROT
                if fits_at(genome, cell, pl, tables):
                    genome[cell] = pl
                    return True
    return False


def in_region(cell, seed_cell, axis, plane, tables):
    """Is ``cell`` on the row along ``axis`` through ``seed_cell`` (or on the plane across ``axis``)?"""
    xyz = tables[G_XYZ]
    if plane:
        return tables[xyz + cell * 3 + axis] == tables[xyz + seed_cell * 3 + axis]
    for k in range(3):
        if k != axis and tables[xyz + cell * 3 + k] != tables[xyz + seed_cell * 3 + k]:
            return False
    return True


def transplant(child, donor, rng, params, tables):
    """Copy the donor's cubes of one row or plane into the child's empty cells, all or nothing."""
    n = tables[G_CELLS]
    start = rand_below(rng, n)
    seed_cell = -1
    for a in range(n):
        if donor[(start + a) % n] >= 0:
            seed_cell = (start + a) % n
            break
    if seed_cell < 0:
        return False
    axis = rand_below(rng, 3)
    plane = rand_unit(rng) < params[P_PLANE]
    moved = 0
    for cell in range(n):  # pass 1: check without touching the child
        p = donor[cell]
        if p < 0 or child[cell] >= 0 or not in_region(cell, seed_cell, axis, plane, tables):
            continue
        if has_cube(child, p // N_ROT) or not fits_at(child, cell, p, tables):
            return False
        moved += 1
    if moved == 0:
        return False
    for cell in range(n):  # pass 2: copy (donor cubes fit each other: the donor is valid)
        p = donor[cell]
        if p >= 0 and child[cell] < 0 and in_region(cell, seed_cell, axis, plane, tables):
            child[cell] = p
    return True


def crossover(child, donor, rng, params, tables):
    if rand_unit(rng) < params[P_BLOCK]:
        if transplant(child, donor, rng, params, tables):
            return
    n = tables[G_CELLS]
    start = rand_below(rng, n)
    stride = tables[G_CUBES] * N_ROT
    mask = _used_mask(child, stride, tables)
    for a in range(n):
        p = donor[(start + a) % n]
        if p >= 0 and not _cube_used(child, p // N_ROT, mask, stride, tables):
            if place_anywhere(child, p // N_ROT, rng, params, tables):
                return


def refill(genome, rng, tables):
    """Fill every empty cell it can with unused cubes (cells, cubes and rotations each scanned from a random
    start)."""
    n = tables[G_CELLS]
    m = tables[G_CUBES]
    stride = m * N_ROT
    mask = _used_mask(genome, stride, tables)
    c0 = rand_below(rng, n)
    for a in range(n):
        cell = (c0 + a) % n
        if genome[cell] >= 0:
            continue
        k0 = rand_below(rng, m)
        r0 = rand_below(rng, N_ROT)
        done = False
        for k in range(m):
            cube = (k0 + k) % m
            if _cube_used(genome, cube, mask, stride, tables):
                continue
            for b in range(N_ROT):
                pl = cube * N_ROT + (r0 + b) % N_ROT
                if fits_at(genome, cell, pl, tables):
                    genome[cell] = pl
                    if m <= MASK_CUBES:
                        mask |= 1 << cube
                    done = True
                    break
            if done:
                break


def ruin_and_recreate(genome, rng, tables):
    """Empty a random cell's neighbourhood (the cell and its six neighbours), then refill the whole figure greedily
    from every unused cube: a large move that can get past a hole no single cube fits."""
    n = tables[G_CELLS]
    start = rand_below(rng, n)
    centre = start
    for a in range(n):  # prefer a hole: that is where the figure is stuck
        if genome[(start + a) % n] < 0:
            centre = (start + a) % n
            break
    genome[centre] = -1
    for d in range(6):
        nb = tables[tables[G_NBR] + centre * 6 + d]
        if nb >= 0:
            genome[nb] = -1
    refill(genome, rng, tables)


def mutate(genome, rng, params, tables):
    if params.shape[0] > P_REPAIR and params[P_REPAIR] > 0.0:
        if params.shape[0] > P_ORDER and params[P_ORDER] > 0.0:
            mrv_repair(genome, rng, params, tables)
        else:
            repair(genome, rng, params, tables)
        return
    if rand_unit(rng) < params[P_RUIN]:
        ruin_and_recreate(genome, rng, tables)
        return
    n = tables[G_CELLS]
    start = rand_below(rng, n)
    for a in range(n):
        cell = (start + a) % n
        p = genome[cell]
        if p >= 0:
            genome[cell] = -1
            if not place_anywhere(genome, p // N_ROT, rng, params, tables):
                genome[cell] = p
            return


# -- memetic repair: bounded backtracking refill (state kept in the genome itself, no scratch arrays) -----------
def _val(g):
    """Placement of a gene: tentative placements of the repair are stored as ``-(pl + 2)``."""
    if g >= 0:
        return g
    if g <= -2:
        return -g - 2
    return -1


def _used(genome, cube):
    for k in range(genome.shape[0]):
        v = _val(genome[k])
        if v >= 0 and v // N_ROT == cube:
            return True
    return False


def _fits(genome, cell, pl, tables):
    for d in range(6):
        nb = tables[tables[G_NBR] + cell * 6 + d]
        if nb >= 0:
            v = _val(genome[nb])
            if v >= 0 and ga_face(pl, d, tables) + ga_face(v, ga_opposite(d), tables) != 0:
                return False
    return True


def _next_fill(genome, cell, t0, base, tables):
    """First candidate index >= t0 that fits ``cell``, -1 if none; candidate ``t`` is cube
    ``(base + t // 24) % cubes`` in rotation ``t % 24`` (each cube's use is checked once)."""
    m = tables[G_CUBES]
    t = t0
    while t < m * N_ROT:
        cube = (base + t // N_ROT) % m
        if _used(genome, cube):
            t = (t // N_ROT + 1) * N_ROT
            continue
        if _fits(genome, cell, cube * N_ROT + t % N_ROT, tables):
            return t
        t += 1
    return -1


def _commit(genome):
    for k in range(genome.shape[0]):
        if genome[k] <= -2:
            genome[k] = -genome[k] - 2


def ruin_near_hole(genome, rng, radius, tables):
    """Empty a hole (a random cell when there is none) and up to ``radius - 1`` cubes in the two rings of
    neighbours around it."""
    n = tables[G_CELLS]
    start = rand_below(rng, n)
    centre = start
    for a in range(n):
        if genome[(start + a) % n] < 0:
            centre = (start + a) % n
            break
    genome[centre] = -1
    removed = 1
    # breadth-first ring around the centre, using the neighbour table (rings of 1, then 2 steps)
    for d in range(6):
        nb = tables[tables[G_NBR] + centre * 6 + d]
        if nb >= 0 and removed < radius and genome[nb] >= 0:
            genome[nb] = -1
            removed += 1
    for d in range(6):
        nb = tables[tables[G_NBR] + centre * 6 + d]
        if nb < 0:
            continue
        for e in range(6):
            nb2 = tables[tables[G_NBR] + nb * 6 + e]
            if nb2 >= 0 and removed < radius and genome[nb2] >= 0:
                genome[nb2] = -1
                removed += 1


def repair(genome, rng, params, tables):
    """Ruin up to ``params[P_RADIUS]`` cubes nearest a hole, then refill by bounded backtracking (cells in scan
    order from a random start, candidates from a random offset); at the budget, the current partial fill is kept
    and topped up greedily."""
    n = tables[G_CELLS]
    ruin_near_hole(genome, rng, int(params[P_RADIUS]), tables)
    base = rand_below(rng, tables[G_CUBES])
    c0 = rand_below(rng, n)
    budget = int(params[P_REPAIR])
    nodes = 0
    a = 0  # scan position
    t0 = 0
    while nodes < budget:
        if a >= n:  # every cell filled
            _commit(genome)
            return
        cell = (c0 + a) % n
        if genome[cell] >= 0 or genome[cell] <= -2:
            a += 1
            t0 = 0
            continue
        nodes += 1
        t = _next_fill(genome, cell, t0, base, tables)
        if t >= 0:
            genome[cell] = -(((base + t // N_ROT) % tables[G_CUBES]) * N_ROT + t % N_ROT + 2)
            a += 1
            t0 = 0
            continue
        # dead end: back to the previous tentative cell and its next candidate
        b = a - 1
        while b >= 0 and genome[(c0 + b) % n] > -2:
            b -= 1
        if b < 0:
            break
        prev = (c0 + b) % n
        pl = -genome[prev] - 2
        genome[prev] = -1
        t0 = ((pl // N_ROT - base + tables[G_CUBES]) % tables[G_CUBES]) * N_ROT + pl % N_ROT + 1
        a = b
    _commit(genome)
    refill(genome, rng, tables)


# -- memetic repair, most constrained cell first ---------------------------------------------------------------
# A tentative placement made at search depth k is stored as -(2 + pl + k * stride), stride = cubes * 24: the genome
# is its own search stack (the deepest tentative cell is the one to undo), so no scratch arrays are needed.
def _mval(g, stride):
    """Placement of a gene (committed or tentative), -1 for an empty cell."""
    if g >= 0:
        return g
    if g <= -2:
        return (-g - 2) % stride
    return -1


def _used_mask(genome, stride, tables):
    """Bit mask of the cubes in use (0 when the set has more than MASK_CUBES cubes: then they are scanned)."""
    mask = 0
    if tables[G_CUBES] > MASK_CUBES:
        return mask
    for k in range(genome.shape[0]):
        v = _mval(genome[k], stride)
        if v >= 0:
            mask |= 1 << (v // N_ROT)
    return mask


def _cube_used(genome, cube, mask, stride, tables):
    if tables[G_CUBES] <= MASK_CUBES:
        return ((mask >> cube) & 1) == 1
    for k in range(genome.shape[0]):
        v = _mval(genome[k], stride)
        if v >= 0 and v // N_ROT == cube:
            return True
    return False


def _mfits(genome, cell, pl, stride, tables):
    """Placement ``pl`` in ``cell`` matches every filled (or tentatively filled) neighbour."""
    for d in range(6):
        nb = tables[tables[G_NBR] + cell * 6 + d]
        if nb >= 0:
            v = _mval(genome[nb], stride)
            if v >= 0 and ga_face(pl, d, tables) + ga_face(v, ga_opposite(d), tables) != 0:
                return False
    return True


def _mtouches(genome, cell, tables):
    for d in range(6):
        nb = tables[tables[G_NBR] + cell * 6 + d]
        if nb >= 0 and genome[nb] != -1:
            return True
    return False


def _n_fits(genome, cell, mask, stride, cap, tables):
    """Placements of unused cubes that fit ``cell``, counted up to ``cap``."""
    count = 0
    for cube in range(tables[G_CUBES]):
        if _cube_used(genome, cube, mask, stride, tables):
            continue
        for r in range(N_ROT):
            if _mfits(genome, cell, cube * N_ROT + r, stride, tables):
                count += 1
                if count >= cap:
                    return count
    return count


def _select_cell(genome, c0, mask, stride, tables):
    """The empty cell with the fewest fitting placements among those next to a filled cell (ties: scan order
    from ``c0``; with none touching, the first empty cell).  Returns the cell, ``-1 - cell`` when that cell has
    no fitting placement (a dead end), or the number of cells when the figure is full."""
    n = tables[G_CELLS]
    best = -1
    best_n = tables[G_CUBES] * N_ROT + 1
    first_empty = -1
    for a in range(n):
        cell = (c0 + a) % n
        if genome[cell] != -1:
            continue
        if first_empty < 0:
            first_empty = cell
        if not _mtouches(genome, cell, tables):
            continue
        k = _n_fits(genome, cell, mask, stride, best_n, tables)
        if k < best_n:
            best = cell
            best_n = k
            if k == 0:
                return -1 - cell
    if best >= 0:
        return best
    if first_empty >= 0:
        return first_empty
    return n


def _next_fit(genome, cell, t0, base, mask, stride, tables):
    """First candidate index >= t0 that fits ``cell`` (candidate ``t``: cube ``(base + t // 24) % cubes`` in
    rotation ``t % 24``), -1 if none."""
    m = tables[G_CUBES]
    t = t0
    while t < m * N_ROT:
        cube = (base + t // N_ROT) % m
        if _cube_used(genome, cube, mask, stride, tables):
            t = (t // N_ROT + 1) * N_ROT
            continue
        if _mfits(genome, cell, cube * N_ROT + t % N_ROT, stride, tables):
            return t
        t += 1
    return -1


def _mcommit(genome, stride):
    for k in range(genome.shape[0]):
        if genome[k] <= -2:
            genome[k] = (-genome[k] - 2) % stride


def mrv_repair(genome, rng, params, tables):
    """Ruin up to ``params[P_RADIUS]`` cubes nearest a hole, then refill by bounded backtracking that always
    branches on the most constrained empty cell (fewest fitting placements of the unused cubes) and backs up as
    soon as some cell has none; at the budget (nodes ``params[P_REPAIR]``) or when the ruined region cannot be
    completed, the partial fill it holds is kept and topped up greedily."""
    n = tables[G_CELLS]
    m = tables[G_CUBES]
    stride = m * N_ROT
    ruin_near_hole(genome, rng, int(params[P_RADIUS]), tables)
    base = rand_below(rng, m)
    c0 = rand_below(rng, n)
    budget = int(params[P_REPAIR])
    nodes = 0
    depth = 0
    cell = -1
    t0 = 0
    mask = _used_mask(genome, stride, tables)
    while nodes < budget:
        nodes += 1
        if cell < 0:
            mask = _used_mask(genome, stride, tables)
            s = _select_cell(genome, c0, mask, stride, tables)
            if s == n:  # every cell filled
                _mcommit(genome, stride)
                return
            if s >= 0:
                cell = s
                t0 = 0
        if cell >= 0:
            t = _next_fit(genome, cell, t0, base, mask, stride, tables)
            if t >= 0:
                genome[cell] = -(2 + ((base + t // N_ROT) % m) * N_ROT + t % N_ROT + depth * stride)
                depth += 1
                cell = -1
                continue
        # dead end: undo the deepest tentative placement and try its cell's next candidate
        if depth == 0:
            break
        depth -= 1
        prev = -1
        for k in range(n):
            if genome[k] <= -2 and (-genome[k] - 2) // stride == depth:
                prev = k
                break
        pl = (-genome[prev] - 2) % stride
        genome[prev] = -1
        cell = prev
        t0 = ((pl // N_ROT - base + m) % m) * N_ROT + pl % N_ROT + 1
        mask = _used_mask(genome, stride, tables)
    _mcommit(genome, stride)
    refill(genome, rng, tables)
