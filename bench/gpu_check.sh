#!/usr/bin/env bash
# Every check that needs a GPU, in one run on a CUDA machine:
#   1. the `gpu` tests on the device (PUZZLEBATCH_REAL_GPU=1): each CUDA kernel against its CPU twin, bit for bit;
#   2. bench/gpu.py's table, one case a process, each under its own time limit, so that one slow case costs only
#      its own row.
# Usage:  bench/gpu_check.sh OUTDIR [SECONDS]      (SECONDS: the whole budget, default 480; TESTS_SECONDS: the
#                                                   tests' share, default 2/5 of it)
#         QUICK=1 bench/gpu_check.sh OUTDIR        (tiny sizes in numba's simulator: checks this script, not a GPU)
# Writes OUTDIR/tests.log, OUTDIR/bench.log and OUTDIR/gpu-results.json (the cases that finished), and prints the
# table.  Python is `${PYTHON:-python3}`; the repository root is put on PYTHONPATH, nothing is installed.
set -u
out=${1:?usage: bench/gpu_check.sh OUTDIR [SECONDS]}
budget=${2:-480}
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python3}
mkdir -p "$out"
start=$SECONDS
left() { echo $((budget - (SECONDS - start))); }
export PYTHONUNBUFFERED=1 PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
work=$(mktemp -d)  # compiled kernels, pattern databases and each case's JSON (kept out of OUTDIR: they are big)
export PUZZLEBATCH_CACHE_DIR=${PUZZLEBATCH_CACHE_DIR:-$work/cache} PUZZLEBATCH_BENCH_PDB_DIR=${PUZZLEBATCH_BENCH_PDB_DIR:-$work/pdb}

{
  echo "# $(date -u +%FT%TZ) $(uname -m), $(nproc) CPUs"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 || true
  "$py" -c 'import sys, numpy, numba, h5py; print("python", sys.version.split()[0], "numpy", numpy.__version__,
"numba", numba.__version__, "h5py", h5py.__version__)'
  "$py" -c 'from importlib.metadata import version as v; print("numba-cuda", v("numba-cuda"))' 2>&1
  "$py" -c 'from puzzlebatch.runners.engine.backend import select_backend as s; b = s("auto"); print("auto backend:",
b.name, b.device)' 2>&1
} | tee "$out/bench.log"

if [ -n "${QUICK:-}" ]; then
  export NUMBA_ENABLE_CUDASIM=1
  quick=--quick
  tests_budget=0
else
  export PUZZLEBATCH_REAL_GPU=1
  quick=
  tests_budget=${TESTS_SECONDS:-$((budget * 2 / 5))}
fi

if [ "$tests_budget" -gt 0 ]; then
  workers=$(( $(nproc) > 16 ? 16 : $(nproc) ))
  xdist=(); "$py" -c 'import xdist' 2>/dev/null && xdist=(-n "$workers")
  (cd "$root" && timeout -k 10 "$tests_budget" "$py" -m pytest -m "gpu and not slow" -v -p no:cacheprovider \
     "${xdist[@]}" tests) > "$out/tests.log" 2>&1
  echo "gpu tests: exit $? after $((SECONDS - start)) s (124: stopped at ${tests_budget} s)" | tee -a "$out/bench.log"
  grep -c " PASSED" "$out/tests.log"; grep -E " (FAILED|ERROR)" "$out/tests.log" | head -20; tail -n 3 "$out/tests.log"
fi

# Cheap and informative first; the two long searches last.  Seconds each case may take (cuda, then cpu).
cases=${CASES:-"ga:60 polyomino-6x10:40 polyomino-6x10-warp:40 cubes:50 snake:60 hextris:60 polyomino-iq:90 sliding-korf100:120 sliding-bfs:150"}
mkdir -p "$work/cases"
for c in $cases; do
  name=${c%%:*}; limit=${c##*:}
  [ -n "$quick" ] && limit=600
  if [ "$(left)" -lt 20 ]; then echo "$name: skipped, the budget is spent" | tee -a "$out/bench.log"; continue; fi
  [ "$limit" -gt "$(left)" ] && limit=$(left)
  timeout -k 5 "$limit" "$py" "$root/bench/gpu.py" $quick --cases "$name" --repeat 3 --cpu-repeat 1 \
      --out "$work/cases/$name.json" >> "$out/bench.log" 2>&1
  echo "$name: exit $? ($((SECONDS - start)) s so far; 124: stopped at $limit s)" | tee -a "$out/bench.log"
done

"$py" - "$out" "$root" "$work" "$cases" <<'EOF'
import json, sys
from pathlib import Path
sys.path.insert(0, str(Path(sys.argv[2]) / "bench"))
out = Path(sys.argv[1])
order = [c.split(":")[0] for c in sys.argv[4].split()]
docs = [json.loads(p.read_text()) for p in sorted(Path(sys.argv[3], "cases").glob("*.json"),
                                                  key=lambda p: order.index(p.stem))]
if not docs:
    sys.exit("no case finished")
doc = dict(docs[0], cases={})
for d in docs:
    doc["cases"].update(d["cases"])
(out / "gpu-results.json").write_text(json.dumps(doc, indent=2, default=str) + "\n")
import gpu
print(gpu.table(doc))
EOF
