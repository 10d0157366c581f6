"""Exact-cover problems: the generic form, Knuth's DLX text format, and the tables the rules run on.

An :class:`ExactCover` has named items (primary first: each covered exactly once; then secondary: at most once),
options (sets of items), and optionally *groups*: an option may belong to a group (a piece) with a number of
copies, so a piece with k copies or unlimited copies needs no item of its own.  Polyomino packings build one with
geometry attached (:mod:`puzzlebatch.puzzles.polyomino.packing`); DLX files give plain ones.

Long because the generic form carries its own checks, its DLX reader and writer, the covers Burnside's lemma
counts (:func:`invariant_cover`) and the table packer every exact-cover rule module reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.limits import ITEMS, OPTIONS, check_memory
from puzzlebatch.puzzles.polyomino import rules as R

UNLIMITED = -1


@dataclass
class Geometry:
    """How cell items sit on a grid: item i is a cell of the box, numbered in search order.

    ``shape`` is the box in search-axis order (fastest first) and ``axes[k]`` the original axis of search axis k;
    ``coords[i]`` is item i's cell in original coordinates (x, y[, z]).
    """

    shape: tuple[int, ...]
    axes: tuple[int, ...]
    coords: np.ndarray  # (n_cells, dim)
    playable: np.ndarray  # bool per cell item: a board cell (not a hole)

    def directions(self, nw: int) -> list[tuple[int, list[int]]]:
        """Per neighbour direction: (index shift, mask words of the cells that have that neighbour in the box)."""
        out = []
        stride = 1
        n = int(np.prod(self.shape))
        idx = np.arange(n)
        for size in self.shape:
            pos = (idx // stride) % size
            for sign in (1, -1):
                has = pos < size - 1 if sign > 0 else pos > 0
                out.append((sign * stride, bitset_words(np.flatnonzero(has), nw)))
            stride *= size
        return out


@dataclass
class ExactCover:
    items: list[str]
    n_primary: int
    options: list[tuple[int, ...]]
    option_group: list[int] = field(default_factory=list)  # -1: none
    groups: list[str] = field(default_factory=list)
    group_copies: list[int] = field(default_factory=list)  # UNLIMITED for any number
    geometry: Geometry | None = None
    precovered: tuple[int, ...] = ()  # items covered before the search (holes, pieces of a level)
    group_used: dict[int, int] = field(default_factory=dict)  # copies taken before the search
    # Knuth's colours (XCC): per option, (secondary item, colour id >= 1) for each item it colours (the item is in
    # the option too); empty: no colours.  Options that give an item the same colour may share it.
    option_colors: list[tuple[tuple[int, int], ...]] = field(default_factory=list)
    colors: list[str] = field(default_factory=list)  # colour id k + 1 is named colors[k]

    def __post_init__(self):
        if not self.option_group:
            self.option_group = [-1] * len(self.options)
        if self.option_colors:
            self.check_colors()

    @property
    def colored(self) -> bool:
        return any(self.option_colors)

    def check_colors(self) -> None:
        """Colours go on secondary items of their own option, one each, with ids naming a colour."""
        if len(self.option_colors) != len(self.options):
            raise PuzzleInputError(f"exact cover: colours for {len(self.option_colors)} options, "
                                   f"{len(self.options)} options")
        for o, cols in enumerate(self.option_colors):
            seen = set()
            for i, c in cols:
                name = self.items[i] if 0 <= i < len(self.items) else str(i)
                if i < self.n_primary:
                    raise PuzzleInputError(f"exact cover: option {o} colours primary item {name} (only secondary "
                                           "items have colours)")
                if i not in self.options[o] or i in seen:
                    raise PuzzleInputError(f"exact cover: option {o} colours item {name}, which is not in it or "
                                           "coloured twice")
                if c < 1 or (self.colors and c > len(self.colors)):
                    raise PuzzleInputError(f"exact cover: option {o} gives item {name} colour id {c}")
                seen.add(i)

    def color_of(self, o: int) -> dict[int, int]:
        """Option ``o``'s coloured items: item -> colour id."""
        return dict(self.option_colors[o]) if self.option_colors else {}

    @property
    def n_items(self) -> int:
        return len(self.items)

    def option_array(self) -> np.ndarray:
        """Options as an (n_options, longest) int64 array, padded with -1 (cached)."""
        cached = getattr(self, "_option_array", None)
        if cached is not None and cached.shape[0] == len(self.options):
            return cached
        width = max((len(o) for o in self.options), default=1)
        arr = np.full((len(self.options), width), -1, np.int64)
        for o, opt in enumerate(self.options):
            arr[o, :len(opt)] = opt
        self._option_array = arr
        return arr

    def primary_counts(self) -> np.ndarray:
        """Each option's primary items (cached with the option array)."""
        cached = getattr(self, "_primary_counts", None)
        if cached is None or cached.shape[0] != len(self.options):
            a = self.option_array()
            cached = ((a >= 0) & (a < self.n_primary)).sum(axis=1)
            self._primary_counts = cached
        return cached

    def group_size(self, g: int) -> int:
        """The primary items of group ``g``'s first option (0 for a group without options); cached with the
        option array (the encoders ask for every group's)."""
        cached = getattr(self, "_group_sizes", None)
        if cached is None or cached[0] != len(self.options):
            groups = np.asarray(self.option_group, np.int64)
            counts = self.primary_counts()
            sizes: dict[int, int] = {}
            if len(groups):
                gs, first = np.unique(groups, return_index=True)
                sizes = {int(k): int(counts[i]) for k, i in zip(gs, first)}
            cached = (len(self.options), sizes)
            self._group_sizes = cached
        return cached[1].get(int(g), 0)

    def max_depth(self) -> int:
        """An upper bound on the options in one solution (the DFS goal depth)."""
        free = self.n_primary - sum(1 for i in self.precovered if i < self.n_primary)
        counts = self.primary_counts()
        smallest = int(counts.min()) if len(counts) else 1
        bound = free // max(1, smallest)
        if self.groups and (not self.option_group or min(self.option_group) >= 0):
            copies = 0
            for g, c in enumerate(self.group_copies):
                if c == UNLIMITED:
                    copies = None
                    break
                copies += c - self.group_used.get(g, 0)
            if copies is not None:
                bound = min(bound, copies)
        return max(bound, 0)


def invariant_cover(ec: ExactCover, perm: np.ndarray, fixed: Sequence[int] = ()) -> ExactCover | None:
    """The exact cover whose solutions are the solutions of ``ec`` containing the options ``fixed`` that the option
    permutation ``perm`` (a symmetry of the problem) maps onto themselves; None where this form cannot say it.

    Such a solution is a union of ``perm``'s cycles on options, each cycle's options pairwise disjoint; so the new
    options are those cycles (the union of their items), the items of ``fixed`` and of ``ec.precovered`` start
    covered, and cycles that overlap themselves or the covered items are left out.  Counting it gives
    Burnside's fixed-point count of ``perm``.  Pieces without a copy limit may appear several times in a cycle;
    a piece with one copy left becomes a secondary item of the new cover (used at most once: a cycle holding it
    twice is left out), and a piece with none left drops its options.  None for colours and for pieces with two
    or more copies left.  ``fixed`` must be mapped onto itself by ``perm``.
    """
    if ec.colored:
        return None
    groups = np.asarray(ec.option_group, np.int64)
    left: dict[int, int] = {}
    for g in np.unique(groups[groups >= 0]).tolist():
        if ec.group_copies[g] == UNLIMITED:
            continue
        left[g] = ec.group_copies[g] - ec.group_used.get(g, 0)
        if left[g] > 1:
            return None
    for o in fixed:  # the fixed options take their pieces
        g = int(groups[o])
        if g in left:
            left[g] -= 1
    limited = sorted(g for g, k in left.items() if k == 1)
    n = len(ec.options)
    arr = ec.option_array()
    covered = np.zeros(len(ec.items) + 1, bool)
    covered[list(ec.precovered)] = True
    for o in fixed:
        covered[list(ec.options[o])] = True
    # each option's orbit under perm, as rows of perm's powers (a cycle of length L repeats after L steps)
    idx = np.arange(n)
    powers = [idx]
    q = np.asarray(perm, np.int64)[idx] if n else idx
    while n and not np.array_equal(q, idx):
        if len(powers) > n:
            raise ValueError("invariant_cover: the option map is not a permutation")
        powers.append(q)
        q = np.asarray(perm, np.int64)[q]
    rows = np.stack(powers)  # (order, options)
    keep = rows.min(axis=0) == idx  # one option a cycle
    keep[list(fixed)] = False
    back = rows == idx[None, :]
    length = np.ones(n, np.int64) if len(powers) == 1 else \
        np.where(back[1:].any(axis=0), back[1:].argmax(axis=0) + 1, len(powers))  # each cycle's length
    reps = np.flatnonzero(keep)
    members = rows[:, reps].T  # (cycles, order)
    inside = np.arange(len(powers))[None, :] < length[reps][:, None]
    items = np.where(inside[:, :, None], arr[members], -1).reshape(len(reps), len(powers) * arr.shape[1])
    items.sort(axis=1)
    real = items >= 0
    ok = ~((items[:, 1:] == items[:, :-1]) & real[:, 1:]).any(axis=1)  # a cycle's options pairwise disjoint
    ok &= ~(covered[np.where(real, items, len(ec.items))] & real).any(axis=1)
    groups_m = np.where(inside, groups[members] if n else members, -1)
    piece_item = np.full(len(ec.group_copies) + 1, -1, np.int64)  # the last entry, -1, is read by group -1
    piece_item[limited] = len(ec.items) + np.arange(len(limited))
    out_of = np.array([g for g, k in left.items() if k < 1], np.int64)
    ok &= ~np.isin(groups_m, out_of).any(axis=1)  # a piece with no copy left
    pieces = piece_item[groups_m]  # each member's piece item, -1 for none
    pieces.sort(axis=1)
    ok &= ~((pieces[:, 1:] == pieces[:, :-1]) & (pieces[:, 1:] >= 0)).any(axis=1)  # one copy used twice
    options = [tuple(v for v in row if v >= 0) for row in np.concatenate([items[ok], pieces[ok]], axis=1).tolist()]
    return ExactCover(items=list(ec.items) + [f"piece {g}" for g in limited], n_primary=ec.n_primary,
                      options=options, precovered=tuple(int(i) for i in np.flatnonzero(covered[:-1])))


class TablePacker:
    """The one int64 table a family of exact-cover rules reads: a header of scalars and offsets, then arrays.

    ``put(key, arr)`` appends ``arr`` and writes where it starts at ``header[key]``; :meth:`tables` is the whole.
    """

    def __init__(self, width: int) -> None:
        self.header = np.zeros(width, np.int64)
        self._parts: list[np.ndarray] = []
        self._offset = width

    def put(self, key: int, arr) -> None:
        arr = np.asarray(arr, np.int64).ravel()
        self.header[key] = self._offset
        self._parts.append(arr)
        self._offset += len(arr)

    def tables(self) -> np.ndarray:
        return np.concatenate([self.header] + self._parts)


def bitset_rows(arr: np.ndarray, nw: int) -> np.ndarray:
    """Bitsets of many rows of item ids (-1 padded) at once: an (n, nw) int64 array."""
    out = np.zeros((arr.shape[0], nw), np.int64)
    every = np.arange(arr.shape[0])
    for col in arr.T:  # a row's ids in one column: no row twice, so a plain fancy-indexed OR (not ufunc.at)
        rows = every[col >= 0]
        ids = col[rows]
        out[rows, ids // R.WORD_BITS] |= np.left_shift(1, ids % R.WORD_BITS).astype(np.int64)
    return out


def bitset_words(bits, nw: int) -> list[int]:
    words = [0] * nw
    for b in bits:
        b = int(b)
        words[b // R.WORD_BITS] |= 1 << (b % R.WORD_BITS)
    return words


# -- tables -------------------------------------------------------------------------------------------------------
@dataclass
class Encoded:
    tables: np.ndarray
    root: np.ndarray
    goal: int
    lists: list[list[int]]  # per item, its option list (in the order the search tries them)


def encode(ec: ExactCover, mode: str = "first", prune: bool = True,
           option_order: Sequence[int] | None = None) -> Encoded:
    """Build the rules' tables and root state.

    ``option_order`` is the order in which options are tried (a permutation of option ids; default: as given).
    """
    if mode not in ("first", "mrv", "enclosed"):
        raise ValueError(f"mode {mode!r}")
    nw = max(1, -(-ec.n_items // R.WORD_BITS))
    n_opt = len(ec.options)
    # The tables hold every option as a bitset of nw words, once per list it is in (before allocating them).
    listed = n_opt if mode == "first" else sum(sum(1 for i in o if i < ec.n_primary) for o in ec.options)
    check_memory(8 * (nw + 2) * (n_opt + listed) * 3, f"exact cover of {ec.n_items:,} items and {n_opt:,} options")
    ng = len(ec.groups)
    goal = ec.max_depth()
    rank = np.empty(n_opt, np.int64)
    order = np.asarray(option_order if option_order is not None else np.arange(n_opt), np.int64)
    rank[order] = np.arange(n_opt)
    arr = ec.option_array() if n_opt else np.zeros((0, 1), np.int64)
    prim = (arr >= 0) & (arr < ec.n_primary)
    if mode == "first":  # each option listed under its smallest primary item
        key = np.where(prim, arr, np.iinfo(np.int64).max).min(axis=1) if n_opt else np.zeros(0, np.int64)
        opt_of = np.arange(n_opt)
        keep = key < ec.n_primary
        key, opt_of = key[keep], opt_of[keep]
    else:  # under every primary item
        rows, cols = np.nonzero(prim)
        key, opt_of = arr[rows, cols], rows
    srt = np.lexsort((rank[opt_of], key))
    list_items = key[srt]
    list_opts = opt_of[srt]
    counts = np.bincount(list_items, minlength=ec.n_items) if len(list_items) else np.zeros(ec.n_items, np.int64)
    starts = np.zeros(ec.n_items + 1, np.int64)
    starts[1:] = np.cumsum(counts)
    lists = [list_opts[starts[i]:starts[i + 1]].tolist() for i in range(ec.n_items)]
    geo = ec.geometry
    dirs = geo.directions(nw) if (geo is not None and (prune or mode == "enclosed")) else []
    do_prune = 1 if (prune and geo is not None and ng > 0 and all(g >= 0 for g in ec.option_group)) else 0
    ncell = ec.n_primary
    sw = ncell // R.WORD_BITS + 1
    gsize = [ec.group_size(g) for g in range(ng)]

    packer = TablePacker(R.H_WIDTH)
    header, put = packer.header, packer.put

    header[R.H_NW] = nw
    header[R.H_NI] = ec.n_items
    header[R.H_NG] = ng
    header[R.H_GOAL] = goal
    header[R.H_MODE] = {"first": R.MODE_FIRST, "mrv": R.MODE_MRV, "enclosed": R.MODE_ENCLOSED}[mode]
    header[R.H_PRUNE] = do_prune
    primcnt = ec.primary_counts() if n_opt else np.zeros(1, np.int64)
    header[R.H_MAXPRIM] = int(primcnt.max()) if n_opt else 0
    # a coloured item is not in its option's bitset: the colour rules take and free it (rules.cover_colors)
    xcc = ec.colored
    optbits = bitset_rows(_uncolored(ec, arr) if xcc else arr, nw)
    put(R.H_OPTBITS, optbits if n_opt else [0])
    put(R.H_OPTGROUP, ec.option_group or [-1])
    put(R.H_LSTART, starts)
    put(R.H_LIST, list_opts if len(list_opts) else [0])
    put(R.H_PRIM, bitset_words(range(ec.n_primary), nw))
    put(R.H_PRIMCNT, primcnt)
    cells = np.flatnonzero(geo.playable) if geo is not None else []
    put(R.H_CELLS, bitset_words(cells, nw))
    header[R.H_NDIR] = len(dirs)
    put(R.H_DIRS, [v for shift, mask in dirs for v in [shift] + mask] or [0])
    put(R.H_GSIZE, gsize or [0])
    # per list entry: its option's words, its piece bit, and where the next piece's run starts in its list
    groups = np.asarray(ec.option_group, np.int64) if n_opt else np.zeros(0, np.int64)
    g_of = groups[list_opts] if len(list_opts) else np.zeros(0, np.int64)
    pbit = np.where((g_of >= 0) & (g_of < R.WORD_BITS), np.left_shift(1, np.clip(g_of, 0, 62)), 0)
    m = len(list_opts)
    nxt = np.empty(m, np.int64)
    if m:
        item_of = list_items
        boundary = np.ones(m, bool)  # a run ends after position k when the next entry differs in list or piece
        boundary[:-1] = (item_of[1:] != item_of[:-1]) | (g_of[1:] != g_of[:-1])
        ends = np.flatnonzero(boundary)
        run_end = ends[np.searchsorted(ends, np.arange(m))] + 1
        nxt = run_end - starts[item_of]
    lbits = np.column_stack([optbits[list_opts] if m else np.zeros((0, nw), np.int64), pbit, nxt]) \
        if m else np.zeros((0, nw + 2), np.int64)
    put(R.H_LBITS, lbits if m else [0])
    grow = [0] * 9
    if nw == 1 and dirs:
        for axis in range(min(3, len(dirs) // 2)):
            (sp, mp), (_, mn) = dirs[2 * axis], dirs[2 * axis + 1]
            grow[axis], grow[3 + axis], grow[6 + axis] = sp, mp[0], mn[0]
    put(R.H_GROW1, grow)
    header[R.H_SW] = sw
    header[R.H_NCELL] = ncell
    slot_of: dict[int, int] = {}
    col_start = np.zeros(n_opt + 1, np.int64)
    triples: list[int] = []
    if xcc:
        header[R.H_XCC] = 1
        for o in range(n_opt):
            for i, c in sorted(ec.option_colors[o]):
                triples += [i, slot_of.setdefault(i, len(slot_of)), c]
            col_start[o + 1] = len(triples) // 3
    put(R.H_OPTCOL, col_start if xcc else [0])
    put(R.H_COLS, triples or [0])
    tables = packer.tables()

    # state: covered | used pieces | copies left | option per depth | item per depth | scratch
    s_used = nw
    s_grp = s_used + 1
    s_opt = s_grp + ng
    s_item = s_opt + goal
    s_scr = s_item + goal + 1
    s_col = s_scr + 3 * nw + sw
    width = s_col + 2 * len(slot_of)  # per coloured item: its colour, the chosen options holding it
    tables[R.S_USED] = s_used
    tables[R.S_COL] = s_col
    tables[R.S_GRP] = s_grp
    tables[R.S_OPT] = s_opt
    tables[R.S_ITEM] = s_item
    tables[R.S_SCR] = s_scr
    root = np.zeros(width, np.int64)
    root[:nw] = bitset_words(ec.precovered, nw)
    for g in range(ng):
        c = ec.group_copies[g]
        root[s_grp + g] = R.UNLIMITED_COPIES if c == UNLIMITED else c - ec.group_used.get(g, 0)
        if root[s_grp + g] == 0 and g < R.WORD_BITS:
            root[s_used] |= 1 << g
    root[s_opt:s_item] = -1
    enc = Encoded(tables, root, goal, lists)
    root_item(enc)
    return enc


def _uncolored(ec: ExactCover, arr: np.ndarray) -> np.ndarray:
    """The option array without the items each option colours (-1 in their place)."""
    out = arr.copy()
    for o, cols in enumerate(ec.option_colors):
        for i, _ in cols:
            out[o][out[o] == i] = -1
    return out


def root_item(enc: Encoded) -> None:
    """Choose the root's branching item (X1) in place (-2: some item has no option, nothing to search)."""
    t, s = enc.tables, enc.root
    it = R.branch_item(s, t)
    s[t[R.S_ITEM]] = it


def decode(enc: Encoded, state: np.ndarray) -> list[int]:
    """The options chosen in a solution state (in search order)."""
    t = enc.tables
    opts = state[t[R.S_OPT]:t[R.S_OPT] + enc.goal]
    return [int(o) for o in opts if o >= 0]


# -- Knuth's DLX format ----------------------------------------------------------------------------------------
_NAME = re.compile(r"^[^\s|:]+$")


def read_dlx(text: str, source: str = "<dlx>") -> ExactCover:
    """Knuth's format (dlx1, and dlx2/XCC colours): the first non-comment line names the primary items, then ``|``
    and the secondary ones; every further line is one option (item names separated by spaces), where a secondary
    item may carry a colour, ``item:colour``.  Lines starting with ``|`` are comments."""
    items: list[str] = []
    n_primary = 0
    index: dict[str, int] = {}
    options: list[tuple[int, ...]] = []
    option_colors: list[tuple[tuple[int, int], ...]] = []
    colors: dict[str, int] = {}
    seen_header = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("|"):
            continue
        where = f"{source}:{lineno}"
        if not seen_header:
            seen_header = True
            prim, bar, sec = line.partition("|")
            for part, primary in ((prim, True), (sec, False)):
                for name in part.split():
                    if not _NAME.match(name):
                        raise PuzzleInputError(f"{where}: bad item name {name!r}")
                    if name in index:
                        raise PuzzleInputError(f"{where}: item {name} is named twice")
                    index[name] = len(items)
                    items.append(name)
                ITEMS.check(len(items), f"{where}")
                if primary:
                    n_primary = len(items)
            if n_primary == 0:
                raise PuzzleInputError(f"{where}: no primary items on the first line")
            continue
        opt = []
        cols = []
        seen = set()
        for word in line.split():
            name, colon, color = word.partition(":")
            if name not in index:
                raise PuzzleInputError(f"{where}: unknown item {name}")
            i = index[name]
            if i in seen:
                raise PuzzleInputError(f"{where}: item {name} appears twice in one option")
            seen.add(i)
            opt.append(i)
            if not colon:
                continue
            if i < n_primary:
                raise PuzzleInputError(f"{where}: primary item {name} cannot have a colour ({word}); only "
                                       "secondary items (after |) can")
            if not _NAME.match(color):
                raise PuzzleInputError(f"{where}: bad colour in {word!r} (item:colour, a colour name without "
                                       "spaces, : or |)")
            cols.append((i, colors.setdefault(color, len(colors) + 1)))
        options.append(tuple(sorted(opt)))
        option_colors.append(tuple(sorted(cols)))
        OPTIONS.check(len(options), f"{where}")
    if not seen_header:
        raise PuzzleInputError(f"{source}: empty DLX file")
    if not colors:
        return ExactCover(items, n_primary, options)
    return ExactCover(items, n_primary, options, option_colors=option_colors, colors=list(colors))


def write_dlx(ec: ExactCover, title: str = "") -> str:
    """The problem in Knuth's format.  Groups with one copy become primary items (``#NAME``); unlimited groups
    need none; groups with k > 1 copies cannot be said in dlx1 and raise an error.  Coloured items are written
    ``item:colour`` (dlx2)."""
    prim = ec.items[:ec.n_primary]
    sec = ec.items[ec.n_primary:]
    extra: dict[int, str] = {}
    for g, name in enumerate(ec.groups):
        copies = ec.group_copies[g]
        left = copies - ec.group_used.get(g, 0) if copies != UNLIMITED else UNLIMITED
        if copies == UNLIMITED:
            continue
        if copies != 1:
            raise PuzzleInputError(f"DLX export: piece {name} has {copies} copies; dlx1 can say 1 or unlimited")
        if left == 1:
            extra[g] = "#" + name
    # pieces need not all be used when the board is smaller than their total: then they are secondary
    need_all = ec.geometry is None or sum(ec.group_size(g) for g in extra) == \
        ec.n_primary - sum(1 for i in ec.precovered if i < ec.n_primary)
    out = []
    if title:
        out.append(f"| {title}")
    pre = set(ec.precovered)
    live_prim = [n for i, n in enumerate(prim) if i not in pre]
    live_sec = [n for i, n in enumerate(sec, ec.n_primary) if i not in pre]
    head = live_prim + (list(extra.values()) if need_all else [])
    tail = live_sec + ([] if need_all else list(extra.values()))
    out.append(" ".join(head) + (" | " + " ".join(tail) if tail else ""))
    for o, opt in enumerate(ec.options):
        if any(i in pre for i in opt):
            continue
        g = ec.option_group[o]
        if g >= 0 and g not in extra and ec.group_copies[g] != UNLIMITED:
            continue  # a piece already placed in full
        names = option_words(ec, o)
        if g in extra:
            names.append(extra[g])
        out.append(" ".join(names))
    return "\n".join(out) + "\n"


def option_words(ec: ExactCover, o: int) -> list[str]:
    """Option ``o`` as DLX words: its item names, ``item:colour`` for the items it colours."""
    color = ec.color_of(o)
    return [ec.items[i] + (":" + color_name(ec, color[i]) if i in color else "") for i in ec.options[o]]


def color_name(ec: ExactCover, c: int) -> str:
    return ec.colors[c - 1] if c <= len(ec.colors) else f"c{c}"
