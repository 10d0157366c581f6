"""Where a count's compiled code spends its time, instruction by instruction (Linux ``perf``, no symbols needed).

    python bench/perf_hotspots.py --board 10x6 --repeat 80          # pentominoes on 10x6, one thread
    python bench/perf_hotspots.py --board 12x5 --branch bitboard --top 20

The count is run once (compiled, or loaded from the disk cache), then ``perf record -e cpu-clock`` is attached to
this process while the same count runs ``--repeat`` times; numba's code lives in anonymous executable memory, which
is copied out before the process ends and disassembled with ``objdump`` at its own addresses.  Printed: the share of
the samples in compiled code, then the hottest instructions with the few before them.  A timer sample lands on the
instruction after one that holds up retirement, so a cache miss shows as a peak just after its load (that is how the
memo's look-up was found to cost about a quarter of a 6x10 count, see bench/log/polyomino.md).

Needs ``perf`` (software events are enough: virtual machines without hardware counters work) and ``objdump``.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def executable_regions() -> list[tuple[int, bytes]]:
    """This process's anonymous executable mappings (where LLVM puts numba's code), copied."""
    out = []
    for line in Path("/proc/self/maps").read_text().splitlines():
        parts = line.split()
        if len(parts) < 6 and "x" in parts[1]:
            lo, hi = (int(v, 16) for v in parts[0].split("-"))
            out.append((lo, ctypes.string_at(lo, hi - lo)))
    return out


def record(args, work, tmp: Path) -> Path:
    """Run ``work`` ``args.repeat`` times with perf attached to this process; the perf data file."""
    data = tmp / "perf.data"
    perf = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(args.freq), "-p", str(os.getpid()),
                             "-o", str(data)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(1.0)  # let perf attach
    t0 = time.perf_counter()
    for _ in range(args.repeat):
        work()
    wall = time.perf_counter() - t0
    perf.send_signal(signal.SIGINT)
    _, err = perf.communicate()
    if perf.returncode not in (0, -signal.SIGINT) or not data.exists():
        sys.exit(f"perf record failed: {err.decode().strip()}")
    print(f"{args.repeat} counts in {wall:.2f} s ({wall / args.repeat * 1e3:.1f} ms each)")
    return data


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="10x6", help="a board spec of `polyomino count` (default 10x6)")
    ap.add_argument("--pieces", default="pentominoes")
    ap.add_argument("--branch", default=None, help="the branching rule (default: what `polyomino count` picks)")
    ap.add_argument("--repeat", type=int, default=60, help="counts while perf records (default 60)")
    ap.add_argument("--threads", type=int, default=1, help="numba threads (default 1)")
    ap.add_argument("--freq", type=int, default=20000, help="samples a second (default 20000)")
    ap.add_argument("--top", type=int, default=12, help="instructions to show (default 12)")
    ap.add_argument("--context", type=int, default=6, help="instructions shown before each (default 6)")
    args = ap.parse_args()
    for tool in ("perf", "objdump"):
        if not shutil.which(tool):
            sys.exit(f"{tool} not found")

    import numba

    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.puzzles.polyomino import shapes as S
    from puzzlebatch.runners.engine.backend import select_backend
    from puzzlebatch.runners.polyomino import solver as RP

    numba.set_num_threads(args.threads)
    cpu = select_backend("cpu")
    pk = P.build(P.parse_board(args.board), S.load_pieces(args.pieces))
    mode = args.branch or RP.default_branch(pk)
    first = RP.count_packing(pk, cpu, mode=mode)
    print(f"{args.board} {args.pieces}: {first.solutions:,} solutions, {first.nodes:,} nodes, branch {first.branch}, "
          f"{args.threads} thread(s)")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        data = record(args, lambda: RP.count_packing(pk, cpu, mode=mode), tmp)
        regions = executable_regions()
        ips = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip"], capture_output=True, text=True).stdout
        hits: collections.Counter[int] = collections.Counter(int(v, 16) for v in ips.split())
        total = sum(hits.values())
        per_region = [(sum(n for ip, n in hits.items() if lo <= ip < lo + len(code)), lo, code)
                      for lo, code in regions]
        jit = sum(n for n, _, _ in per_region)
        print(f"{total:,} samples, {jit:,} ({jit / max(total, 1):.0%}) in compiled code "
              f"({len(regions)} executable regions)")
        n, lo, code = max(per_region, default=(0, 0, b""))
        if not n:
            return 0
        blob = tmp / "code.bin"
        blob.write_bytes(code)
        asm = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", f"--adjust-vma={lo:#x}",
                              str(blob)], capture_output=True, text=True).stdout
        lines = [(int(m.group(1), 16), ln) for ln in asm.splitlines() if (m := re.match(r"\s*([0-9a-f]+):", ln))]
        index = {a: i for i, (a, _) in enumerate(lines)}
        print(f"the hottest region, {len(code):,} bytes at {lo:#x}: {n:,} samples ({n / total:.0%} of all)")
        for ip, k in sorted(((ip, k) for ip, k in hits.items() if ip in index), key=lambda t: -t[1])[:args.top]:
            i = index[ip]
            print(f"\n{k / n:6.1%} of the region's samples at {ip:#x}:")
            for a, ln in lines[max(0, i - args.context): i + 2]:
                print(f"  {hits.get(a, 0) / n:6.1%} {ln.split(chr(9))[-1] if chr(9) in ln else ln}"
                      + ("   <--" if a == ip else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
