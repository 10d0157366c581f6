"""Polyomino and polycube packing: puzzlebatch against xcover (Knuth's dancing cells in numba) and Knuth's DLX1 (C).

For each case the same exact-cover problem (pieces as primary items, cells as primary items) is counted by
the peers and by ``puzzlebatch`` (``solutions`` and ``distinct`` by symmetry breaking); the counts must agree.
Compilation is excluded on every side (a warm-up run first; dlx1 is compiled ahead of time).

    python bench/polyomino.py                      # 6x10 pentominoes and the Soma cube (minutes)
    python bench/polyomino.py --cases iq bedlam    # the long ones (xcover: several minutes each)
    python bench/polyomino.py --no-peer --cases iq # puzzlebatch alone
    python bench/polyomino.py --peers dlx1 --no-ours --cases bedlam --timeout 600   # a peer alone
    python bench/polyomino.py --cases 6x10 5x12 8x8c --peers rust --threads 1,2   # the Rust bitboard solver

Peers (``--peers``, default every one available), each in a child process killed after ``--timeout`` seconds:

- ``xcover``: ``pip install xcover`` (the bench extra); counted by ``xcover.covers`` in a child process that
  compiles its numba kernels on a small problem first; wall and CPU seconds of the count alone.
- ``dlx1``: Knuth's DLX1 (dancing links, Algorithm 7.2.2.1X), built by ``bench/peers/dlx1.sh`` into
  ``~/.cache/puzzlebatch-bench/dlx1/dlx1`` (``--dlx1`` or ``$DLX1`` for another binary).  It gets the same
  options as xcover in its text format on stdin; wall seconds around the process, CPU seconds from
  ``getrusage(RUSAGE_CHILDREN)``, both including its reading of the input (dlx1 reports the mems of the input
  phase apart: ``input_mems``).  Its solution count, search-tree nodes and mems are parsed from its report.
  Without the binary the dlx1 columns are skipped with a message.
- ``rust``: tyfkda/PentominoSolver's Rust bitboard depth-first search ("naive" solver, one thread), built by
  ``bench/peers/build_pentomino_solver.sh`` into ``~/.cache/puzzlebatch-bench/pentomino-solver/`` (``--rust`` or
  ``$PENTOMINO_SOLVER`` for another binary).  Pentomino boards only (``6x10``, ``5x12``, ``8x8c``): it counts the
  distinct solutions (checked against our ``distinct``); its own timing of the search (``seconds``, median of
  its runs) is compared with our wall seconds.  Its runs alternate with ours, one after each of our counts (so
  ``--repeat`` times per thread count), so that both sides see the same machine: on a shared one the speed
  drifts by a third within a minute, which decided the per-thread ratio when the two ran one after the other.

``--threads 1,2`` times puzzlebatch once per numba thread count (``numba.set_num_threads``) in the same run; the
main columns are then those of the last count given, and the JSON lines hold each (``threads``).

3D cases on a cube (``soma``, ``bedlam``): by default (``--fix auto``) the peers get the problem with one piece
(the first with the most orientations, i.e. no rotational symmetry) kept in its first orientation only, the usual
way to break the board's rotations with a plain solver; its count is then ``solutions / orientations`` of that
piece (per rotation class), checked against ours.  ``--fix none`` gives the peers the whole problem, ``--fix
large`` only the cubes over 32 cells (Bedlam) with one piece fixed: one run then holds the whole table.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing as mp
import os
import platform
import queue
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import puzzlebatch
from puzzlebatch.api.common import settings_of
from puzzlebatch.puzzles.polyomino import packing as P
from puzzlebatch.puzzles.polyomino import shapes as S
from puzzlebatch.runners.polyomino import solver as RP
from puzzlebatch.runners.engine.backend import select_backend

CASES = {
    "6x10": ("10x6", "pentominoes", 5),
    "5x12": ("12x5", "pentominoes", 5),
    "8x8c": ("8x8-centre", "pentominoes", 5),  # the 8x8 board minus its 2x2 centre
    "soma": ("3x3x3", "soma", 20),
    "iq": ("11x5", "iq-puzzler-pro", 1),
    "bedlam": ("4x4x4", "bedlam", 1),  # the shipped set, not the commercial cube's pieces: see bench/RESULTS.md
    # two words (80 cells and 17 pieces): a 10x8 board with a 5x8 part free, tiled by some of the 17 pieces (the
    # peers' problem uses every piece, so they are not run on it)
    "10x8h": ("10x8-half", "pentominoes+tetrominoes", 3),
    "4x20pt": ("20x4", "pentominoes+tetrominoes", 1),  # two words: every piece, 80 cells
}


def xcover_options(pk: P.Packing, fix_piece: str | None = None):
    """The packing as xcover input: each option = its cells + its piece (pieces primary: each used once).

    ``fix_piece``: keep only the placements of that piece in its first orientation (the usual way to count
    distinct solutions with a plain solver: it breaks the rotations, not every symmetry)."""
    ec = pk.cover
    options = []
    for o, opt in enumerate(ec.options):
        g = ec.option_group[o]
        name = pk.pieces[g].name
        if fix_piece is not None and name == fix_piece:
            first = pk.pieces[g].orientations()[0]
            if S.normalize(map(tuple, pk.option_cells[o])) != first:
                continue
        options.append([f"c{i}" for i in opt] + [f"p:{name}"])
    primary = [f"c{i}" for i in range(ec.n_items) if i not in set(ec.precovered)] + \
        [f"p:{p.name}" for p in pk.pieces]
    return options, primary


LARGE_CUBE = 32  # --fix large: cubes over this many cells are given to the peers with one piece fixed


def fixed_piece(pk: P.Packing) -> str | None:
    """The piece to keep in its first orientation for a 3D packing of a whole cube (``None`` otherwise): the first
    with the most orientations.  The cube's rotations map solutions to solutions and move that piece's
    orientation, so a plain solver counts ``solutions / orientations`` (one per rotation class when the piece
    has no rotational symmetry)."""
    size = pk.board.size
    if len(size) != 3 or len(set(size)) != 1 or pk.board.n_cells != size[0] ** 3 or pk.board.placed \
            or any(p.count != 1 for p in pk.pieces):
        return None
    return max(pk.pieces, key=lambda p: len(p.orientations())).name


def dlx_text(options, primary, title: str = "") -> str:
    """Options and primary items (xcover's input) as Knuth's DLX text: item names are 1-8 characters without
    ``:`` or ``|``; cells keep their names (``c12``), pieces become ``#k`` (k = index among the primary items)."""
    names = {}
    for j, it in enumerate(primary):
        ok = 0 < len(it) <= 8 and not set(it) & set(":|") and not it.startswith("#")
        names[it] = it if ok else f"#{j}"
    lines = [f"| {title}"] if title else []
    lines.append(" ".join(names[it] for it in primary))
    lines += [" ".join(names[it] for it in opt) for opt in options]
    return "\n".join(lines) + "\n"


def _get(q, p, seconds):
    """The next message from the child ``p`` within ``seconds`` (None: no limit); None when it timed out or died."""
    end = None if seconds is None else time.perf_counter() + seconds
    while end is None or time.perf_counter() < end:
        try:
            return q.get(timeout=0.2)
        except queue.Empty:
            if not p.is_alive() and q.empty():
                return None
    return None


def _xcover_child(options, primary, warm, q):
    from xcover import covers

    sum(1 for _ in covers(*warm))  # xcover compiles its numba kernels on the first call
    q.put(("warm", time.process_time()))
    c0, t0 = time.process_time(), time.perf_counter()
    n = sum(1 for _ in covers(options, primary=primary))
    q.put({"count": n, "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0})


def run_xcover(options, primary, timeout: float | None = None, grace: float = 300) -> dict:
    """Count with xcover in a (spawned) child process: {count, wall_s, cpu_s}, or {killed: True, cpu_s} when the
    count took longer than ``timeout`` seconds (imports and compilation get ``grace`` seconds before that; cpu_s of
    a killed child is its CPU time after the warm-up, from ``getrusage(RUSAGE_CHILDREN)``)."""
    tiny = xcover_options(P.build(P.parse_board("5x4"), S.load_pieces("tetrominoes")))
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_xcover_child, args=(options, primary, (tiny[0], tiny[1]), q), daemon=True)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p.start()
    warm = _get(q, p, grace)
    if not (isinstance(warm, tuple) and warm[0] == "warm"):
        got = {"error": "xcover child did not start (import or compile failed, or over the grace time)"}
    else:
        got = _get(q, p, timeout)
        if got is None:
            got = {"killed": True, "timeout_s": timeout} if p.is_alive() else \
                {"error": f"xcover child died (exit {p.exitcode})"}
    if p.is_alive():
        p.kill()
    p.join()
    if got.get("killed"):
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        got["cpu_s"] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime) - warm[1]
    return got


DLX1_DEFAULT = Path.home() / ".cache" / "puzzlebatch-bench" / "dlx1" / "dlx1"
_ALTOGETHER = re.compile(r"Altogether (\d+) solutions?, (\d+)\+(\d+) mems, (\d+) updates, (\d+) bytes, (\d+) nodes")


def run_dlx1(binary: Path, text: str, timeout: float | None = None, keep: Path | None = None) -> dict:
    """Count with dlx1 (a child process, the DLX text on stdin): {count, wall_s, cpu_s, nodes, mems,
    input_mems, updates}, or {killed: True} after ``timeout`` seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(keep) if keep else Path(tmp) / "problem.dlx"
        path.write_text(text)
        with open(path) as stdin:
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            try:
                proc = subprocess.run([str(binary)], stdin=stdin, capture_output=True, text=True, timeout=timeout)
                killed = False
            except subprocess.TimeoutExpired:  # run() killed and reaped it
                killed = True
            wall = time.perf_counter() - t0
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if killed:
        return {"killed": True, "timeout_s": timeout, "wall_s": wall, "cpu_s": cpu}
    m = _ALTOGETHER.search(proc.stderr)
    if proc.returncode != 0 or not m:
        return {"error": f"dlx1 exit {proc.returncode}: {proc.stderr.strip()[-300:]}"}
    count, imems, mems, updates, _bytes, nodes = map(int, m.groups())
    return {"count": count, "wall_s": wall, "cpu_s": cpu, "nodes": nodes, "mems": mems, "input_mems": imems,
            "updates": updates}


def bench_levels(n: int, difficulty: int, backend) -> dict:
    """First solution of IQ Puzzler Pro levels (unique-solution levels made by ``levels generate``)."""
    pk = P.build(P.parse_board("11x5"), S.load_pieces("iq-puzzler-pro"))
    RP.warm_up(backend)
    levels = RP.generate_levels(pk, n, difficulty, seed=2026)
    times = []
    for lv in levels:
        board = P.Board(pk.board.size, pk.board.playable, {})
        for k, cells in lv.placed:
            board.placed.setdefault(pk.glyphs[k], []).append(frozenset(tuple(int(v) for v in c) for c in cells))
        level = P.build(board, pk.pieces)
        t0 = time.perf_counter()
        res = RP.solve_packing(level, backend)
        times.append(time.perf_counter() - t0)
        assert res.solved
    # the empty board too (the hardest "level": nothing placed)
    t0 = time.perf_counter()
    assert RP.solve_packing(pk, backend).solved
    empty = time.perf_counter() - t0
    return {"case": f"levels-d{difficulty}", "levels": n, "median_ms": 1000 * statistics.median(times),
            "max_ms": 1000 * max(times), "empty_board_ms": 1000 * empty}


def bench_heuristics(backend) -> list[dict]:
    """The IQ Puzzler Pro study's eight piece orderings: nodes and time to the first solution of the empty board
    and of 20 generated levels (difficulty 8), first-cell branching."""
    pk = P.build(P.parse_board("11x5"), S.load_pieces("iq-puzzler-pro"))
    RP.warm_up(backend)
    levels = []
    for lv in RP.generate_levels(pk, 20, 8, seed=7):
        board = P.Board(pk.board.size, pk.board.playable, {})
        for k, cells in lv.placed:
            board.placed.setdefault(pk.glyphs[k], []).append(frozenset(tuple(int(v) for v in c) for c in cells))
        levels.append(P.build(board, pk.pieces))
    rows = []
    for h in P.HEURISTICS:
        t0 = time.perf_counter()
        empty = RP.solve_packing(pk, backend, heuristic=h)
        t_empty = time.perf_counter() - t0
        nodes, times = [], []
        for level in levels:
            t0 = time.perf_counter()
            r = RP.solve_packing(level, backend, heuristic=h)
            times.append(time.perf_counter() - t0)
            nodes.append(r.nodes)
        rows.append({"heuristic": h, "empty_nodes": empty.nodes, "empty_ms": 1000 * t_empty,
                     "levels_median_nodes": statistics.median(nodes),
                     "levels_median_ms": 1000 * statistics.median(times)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


# Counts of the whole problem (every solution, all orientations), for the checks when ours is not run.  No
# bedlam: the shipped set is not the commercial Bedlam cube's (whose published count is 19,186 per rotation class).
# published totals (8x8c: 65 distinct, Dana Scott 1958, times the square's 8 symmetries)
KNOWN = {"6x10": 9356, "5x12": 4040, "8x8c": 520, "soma": 11520, "iq": 4331140, "bedlam": 460464}

SOME_PIECES = {"10x8h"}  # tiled by some of the pieces: the peers' problem (every piece once) is another

BOARDS = {"8x8-centre": "\n".join("........" if y not in (3, 4) else "...##..." for y in range(8)),
          "10x8-half": "\n".join("....." + "#####" for _ in range(8))}


def case_board(spec: str) -> P.Board:
    """A case's board: ``WxH[xD]`` or one of :data:`BOARDS` (boards with holes, as board text)."""
    return P.parse_board_text(BOARDS[spec], spec) if spec in BOARDS else P.parse_board(spec)


RUST_DEFAULT = Path.home() / ".cache" / "puzzlebatch-bench" / "pentomino-solver" / "pentomino-solver"
RUST_BOARDS = {"6x10": "6x10", "5x12": "5x12", "8x8c": "8x8"}  # our case -> its board argument
_RUST_LINE = re.compile(r"solutions=(\d+) checks=(\d+) seconds=([0-9.]+)")


def rust_once(binary: Path, board: str, timeout: float | None = None) -> dict:
    """One count by the Rust bitboard solver: {count, seconds (its own timing), wall_s, cpu_s, checks}, or
    {killed: True} after ``timeout`` seconds, or {error}."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([str(binary), board], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"killed": True, "timeout_s": timeout, "wall_s": time.perf_counter() - t0}
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    m = _RUST_LINE.search(proc.stdout)
    if proc.returncode != 0 or not m:
        return {"error": f"pentomino-solver exit {proc.returncode}: {(proc.stdout + proc.stderr).strip()[-300:]}"}
    return {"count": int(m.group(1)), "checks": int(m.group(2)), "seconds": float(m.group(3)), "wall_s": wall,
            "cpu_s": (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)}


def rust_summary(samples: list[dict]) -> dict:
    """Medians of :func:`rust_once` samples (the first kill or error, if any, instead)."""
    bad = [r for r in samples if "count" not in r]
    if bad:
        return bad[0]
    return {"count": samples[-1]["count"], "checks": samples[-1]["checks"],
            **{k: statistics.median(r[k] for r in samples) for k in ("seconds", "wall_s", "cpu_s")},
            "runs": len(samples)}


def run_rust(binary: Path, board: str, repeat: int, timeout: float | None = None) -> dict:
    """Count with the Rust bitboard solver ``repeat`` times: {count, seconds (its own timing, median), wall_s
    (around the process, median), cpu_s (median), checks, runs}, or {killed: True} after ``timeout`` seconds."""
    samples = []
    for _ in range(repeat):
        samples.append(rust_once(binary, board, timeout))
        if "count" not in samples[-1]:
            break
    return rust_summary(samples)


def available_peers(args) -> tuple[list[str], dict[str, str]]:
    """The peers to run, and a message for each one asked for (or the default) that cannot run."""
    wanted = [] if args.no_peer else [w for w in args.peers.split(",") if w]
    bad = [w for w in wanted if w not in ("xcover", "dlx1", "rust")]
    if bad:
        sys.exit(f"unknown peer(s) {', '.join(bad)}: choose from xcover, dlx1, rust")
    skipped = {}
    if "xcover" in wanted and importlib.util.find_spec("xcover") is None:
        skipped["xcover"] = "xcover is not installed (pip install xcover)"
    if "dlx1" in wanted and not (args.dlx1.is_file() and os.access(args.dlx1, os.X_OK)):
        skipped["dlx1"] = f"no dlx1 binary at {args.dlx1} (build it with bench/peers/dlx1.sh, or pass --dlx1)"
    if "rust" in wanted and not (args.rust.is_file() and os.access(args.rust, os.X_OK)):
        skipped["rust"] = (f"no pentomino-solver binary at {args.rust} (build it with "
                           "bench/peers/build_pentomino_solver.sh, or pass --rust)")
    return [w for w in wanted if w not in skipped], skipped


def _fmt_s(v: dict | None, key: str = "cpu_s") -> str:
    if not v:
        return "—"
    if v.get("killed"):
        return f"> {v['timeout_s']:g} s"
    if "error" in v:
        return "error"
    return f"{v[key]:.3f}"


def _ratio(peer: dict | None, ours: float | None) -> str:
    if not peer or ours is None or ours <= 0:
        return "—"
    if peer.get("killed"):  # its CPU seconds until the kill
        return f"> {peer['cpu_s'] / ours:.1f}×" if "cpu_s" in peer else "—"
    if "error" in peer:
        return "—"
    return f"{peer['cpu_s'] / ours:.1f}×"


def _n(v) -> str:
    return "—" if v is None else f"{v:,}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="*", default=["6x10", "soma"], choices=sorted(CASES))
    ap.add_argument("--repeat", type=int, help="puzzlebatch repetitions (default per case)")
    ap.add_argument("--peers", default="xcover,dlx1,rust",
                    help="comma-separated peers: xcover, dlx1, rust (default all; one not available is skipped)")
    ap.add_argument("--no-peer", action="store_true", help="puzzlebatch alone (same as --peers '')")
    ap.add_argument("--no-ours", action="store_true",
                    help="peers alone: counts are checked between them and against the known totals")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds allowed to each peer run; killed and reported as '> T s' (default: none)")
    ap.add_argument("--fix", choices=("auto", "large", "none"), default="auto",
                    help="auto: the peers get 3D cube packings with one piece in its first orientation; "
                         f"large: only those over {LARGE_CUBE} cells (Soma whole, Bedlam fixed); "
                         "none: the whole problem")
    ap.add_argument("--dlx1", type=Path, default=Path(os.environ.get("DLX1") or DLX1_DEFAULT),
                    help=f"the dlx1 binary (default $DLX1 or {str(DLX1_DEFAULT).replace(str(Path.home()), '~')})")
    ap.add_argument("--rust", type=Path, default=Path(os.environ.get("PENTOMINO_SOLVER") or RUST_DEFAULT),
                    help="the Rust pentomino-solver binary (default $PENTOMINO_SOLVER or "
                         f"{str(RUST_DEFAULT).replace(str(Path.home()), '~')})")
    ap.add_argument("--threads", default=None,
                    help="comma-separated numba thread counts to time puzzlebatch with, e.g. 1,2 (default: numba's)")
    ap.add_argument("--keep-dlx", type=Path, metavar="DIR", help="keep each case's dlx1 input as DIR/CASE.dlx")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--branch", default=None, choices=["bitboard", "first", "mrv", "enclosed", "auto"],
                    help="our branching rule (default: what `polyomino count` runs without --branch)")
    ap.add_argument("--merge", default=None, choices=["auto", "yes", "no"],
                    help="count by merged states (default: what `polyomino count` runs, auto); no: the tree search")
    ap.add_argument("--memo", type=int, default=None, metavar="ENTRIES",
                    help="entries of the count's memo a thread (a power of two; 0: none; default: polyomino count's)")
    ap.add_argument("--levels", type=int, default=0, help="also time the first solution of N generated levels")
    ap.add_argument("--heuristics", action="store_true", help="also compare the eight piece orderings")
    args = ap.parse_args()
    peers, skipped = available_peers(args)
    for name, why in skipped.items():
        print(f"{name}: skipped: {why}", file=sys.stderr, flush=True)
    if args.keep_dlx:
        args.keep_dlx.mkdir(parents=True, exist_ok=True)
    backend = select_backend(args.backend)
    if args.heuristics:
        bench_heuristics(backend)
    if args.levels:
        for d in (4, 6, 8):
            print(json.dumps(bench_levels(args.levels, d, backend)), flush=True)
    rows, failures = [], []
    for case in args.cases:
        board, pieces, repeat = CASES[case]
        repeat = args.repeat or repeat
        pk = P.build(case_board(board), S.load_pieces(pieces))
        row = {"case": case, "board": board, "pieces": pieces}
        res = None
        rust_samples: list[dict] = []
        if not args.no_ours:
            RP.warm_up(backend)  # compile every rule first
            mode = args.branch or RP.default_branch(pk)  # default: what `polyomino count` runs without --branch
            import numba

            settings = settings_of(backend, merge=args.merge, memo=args.memo)
            threads = [int(t) for t in args.threads.split(",")] if args.threads else [None]
            row["threads"] = {}
            # the Rust runs alternate with ours, one after each of our counts, so that both see the same machine
            # (on a shared one its speed drifts by a third over a minute)
            interleave = "rust" in peers and case in RUST_BOARDS
            for nt in threads:
                if nt is not None:
                    numba.set_num_threads(nt)
                walls, cpus = [], []
                for _ in range(repeat):
                    c0, t0 = time.process_time(), time.perf_counter()
                    res = RP.count_packing(pk, backend, mode=mode, settings=settings)
                    walls.append(time.perf_counter() - t0)
                    cpus.append(time.process_time() - c0)
                    if interleave:
                        rust_samples.append(rust_once(args.rust, RUST_BOARDS[case], args.timeout))
                row["threads"][str(nt or numba.get_num_threads())] = {
                    "wall_median_s": statistics.median(walls), "cpu_median_s": statistics.median(cpus)}
            row.update({"solutions": res.solutions, "distinct": res.distinct, "nodes": res.nodes, "branch": res.branch,
                        "merge": settings.merge, "merged_layers": res.merged_layers,
                        "puzzlebatch_wall_median_s": statistics.median(walls),
                        "puzzlebatch_cpu_median_s": statistics.median(cpus), "repeat": repeat})
        fix = fixed_piece(pk) if args.fix == "auto" or (args.fix == "large" and pk.board.n_cells > LARGE_CUBE) \
            else None
        orient = len(next(p for p in pk.pieces if p.name == fix).orientations()) if fix else 1
        row["peer_problem"] = f"{fix} fixed (1/{orient})" if fix else "whole"
        if res is not None:
            expect, source = res.solutions, "ours"
        else:
            expect, source = KNOWN.get(case), "known"
        if expect is not None and fix:
            if expect % orient:
                failures.append(f"{case}: {expect} solutions ({source}) is not a multiple of {orient}")
            expect //= orient
        row["peer_expected"], row["peer_expected_from"] = expect, source if expect is not None else None
        if "rust" in peers and case in RUST_BOARDS:
            got = rust_summary(rust_samples) if rust_samples else run_rust(args.rust, RUST_BOARDS[case], repeat,
                                                                           args.timeout)
            row["rust"] = got
            want = res.distinct if res is not None else KNOWN[case] // len(P.symmetries(pk))
            if "error" in got:
                failures.append(f"{case}: rust: {got['error']}")
            elif "count" in got and got["count"] != want:
                failures.append(f"{case}: rust counted {got['count']} distinct, expected {want}")
            if res is not None and "seconds" in got:
                row["rust_ratio_wall"] = {t: got["seconds"] / v["wall_median_s"] for t, v in row["threads"].items()}
        if [p for p in peers if p != "rust"] and case not in SOME_PIECES:
            options, primary = xcover_options(pk, fix_piece=fix)
            for peer in peers:
                if peer == "rust":
                    continue
                if peer == "xcover":
                    got = run_xcover(options, primary, args.timeout)
                else:
                    keep = args.keep_dlx / f"{case}.dlx" if args.keep_dlx else None
                    text = dlx_text(options, primary, f"{case}: {board} with {pieces}, peers' problem: "
                                    f"{row['peer_problem']} (bench/polyomino.py)")
                    got = run_dlx1(args.dlx1, text, args.timeout, keep)
                row[peer] = got
                if "error" in got:
                    failures.append(f"{case}: {peer}: {got['error']}")
                elif "count" in got:
                    if expect is None:
                        expect, row["peer_expected_from"] = got["count"], peer
                        row["peer_expected"] = expect
                    elif got["count"] != expect:
                        failures.append(f"{case}: {peer} counted {got['count']}, expected {expect} "
                                        f"(from {row['peer_expected_from']}; peers' problem {row['peer_problem']})")
                if res is not None and "cpu_s" in got and not got.get("killed"):
                    # the earlier keys: xcover_cpu_s, ratio_cpu (peer CPU / ours CPU), ratio_wall (peer / ours wall)
                    pre = "" if peer == "xcover" else "dlx1_"
                    row[f"{peer}_cpu_s"] = got["cpu_s"]
                    row[f"{pre}ratio_cpu"] = got["cpu_s"] / row["puzzlebatch_cpu_median_s"]
                    row[f"{pre}ratio_wall"] = got["cpu_s"] / row["puzzlebatch_wall_median_s"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    print()
    import numba

    info = [f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores",
            f"python {platform.python_version()}", f"puzzlebatch {puzzlebatch.__version__}",
            f"numba {numba.__version__}", f"backend {backend.name}"]
    if "xcover" in peers:
        from importlib.metadata import version
        info.append(f"xcover {version('xcover')}")
    if "dlx1" in peers:
        build = args.dlx1.parent / "BUILD-INFO"
        comp = [ln for ln in build.read_text().splitlines() if ln.startswith("compiler:")] if build.is_file() else []
        info.append(f"dlx1 {args.dlx1}" + (f" ({comp[0]})" if comp else ""))
    if "rust" in peers:
        build = args.rust.parent / "BUILD-INFO"
        comp = [ln for ln in build.read_text().splitlines() if ln.startswith("compiler:")] if build.is_file() else []
        info.append(f"rust pentomino-solver {args.rust}" + (f" ({comp[0]})" if comp else ""))
    print("; ".join(info))
    print(f"peer times: CPU seconds (wall in the JSON lines); ratios: peer CPU / puzzlebatch CPU (median), "
          f"above 1 puzzlebatch is faster; "
          f"timeout per peer run: {'none' if args.timeout is None else f'{args.timeout:g} s'}"
          f" ('> T s': killed after T s wall; its ratio from the CPU seconds it had used)")
    for name, why in skipped.items():
        print(f"{name}: skipped: {why}")
    print()
    tpeers = [p for p in peers if p != "rust"]  # the exact-cover peers (the Rust solver has its own table)
    head = ["case", "solutions", "distinct"] + ["peers' problem", "peer count"] * bool(tpeers)
    if not args.no_ours:
        head += ["puzzlebatch wall", "puzzlebatch CPU"]
    head += [f"{p} CPU" for p in tpeers]
    if not args.no_ours:
        head += [f"{p} / ours" for p in tpeers]
    head += ["nodes (ours)"] * (not args.no_ours) + ["dlx1 nodes", "dlx1 mems"] * ("dlx1" in tpeers)
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" if h in ("case", "peers' problem") else "---:" for h in head) + "|")
    for r in rows:
        counts = {r[p]["count"] for p in tpeers if "count" in r.get(p, {})}
        cells = [r["case"], _n(r.get("solutions")), _n(r.get("distinct"))]
        if tpeers:
            cells += [r["peer_problem"], ", ".join(_n(c) for c in sorted(counts)) or "—"]
        if not args.no_ours:
            cells += [f"{r['puzzlebatch_wall_median_s']:.3f} ({r['repeat']})", f"{r['puzzlebatch_cpu_median_s']:.3f}"]
        cells += [_fmt_s(r.get(p)) for p in tpeers]
        if not args.no_ours:
            cells += [_ratio(r.get(p), r["puzzlebatch_cpu_median_s"]) for p in tpeers]
            cells.append(_n(r.get("nodes")))
        if "dlx1" in tpeers:
            d = r.get("dlx1", {})
            cells += [_n(d.get("nodes")), _n(d.get("mems"))]
        print("| " + " | ".join(cells) + " |")
    rust_rows = [r for r in rows if "rust" in r]
    if rust_rows:
        nts = sorted({t for r in rust_rows for t in r.get("threads", {})}, key=int)
        print("\nRust bitboard solver (one thread): its own seconds and the process's CPU seconds (medians); "
              "ours: wall / CPU seconds per numba thread count (medians); ratios above 1: puzzlebatch is faster")
        head = ["case", "distinct", "Rust s / CPU s"]
        head += [f"ours, {t} thread{'s' * (t != '1')}" for t in nts]
        head += [f"Rust / ours wall, {t} thread{'s' * (t != '1')}" for t in nts]
        head += ["Rust CPU / ours CPU, 1 thread"] * ("1" in nts)
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" if h == "case" else "---:" for h in head) + "|")
        for r in rust_rows:
            g, th = r["rust"], r.get("threads", {})
            cells = [r["case"], _n(g.get("count")), f"{_fmt_s(g, 'seconds')} / {_fmt_s(g)}"]
            cells += [f"{th[t]['wall_median_s']:.3f} / {th[t]['cpu_median_s']:.3f}" if t in th else "—" for t in nts]
            cells += [f"{r['rust_ratio_wall'][t]:.2f}×" if t in r.get("rust_ratio_wall", {}) else "—" for t in nts]
            if "1" in nts:
                cells.append(f"{g['cpu_s'] / th['1']['cpu_median_s']:.2f}×" if "cpu_s" in g and "1" in th else "—")
            print("| " + " | ".join(cells) + " |")
    if failures:
        print("\nFAILED:\n" + "\n".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
