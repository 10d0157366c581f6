"""``bench/gpu.py --quick`` end to end in the simulator, so the GPU benchmark cannot rot without a GPU."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.gpu


def test_quick_gpu_bench_runs_every_case_and_the_backends_agree(tmp_path):
    out = tmp_path / "gpu.json"
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PUZZLEBATCH_BENCH_PDB_DIR=str(tmp_path / "pdb"))
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "gpu.py"), "--quick", "--out", str(out)],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert doc["quick"] and doc["device"]["name"].startswith("numba CUDA simulator")
    cases = doc["cases"]
    assert set(cases) == {"snake", "polyomino-6x10", "polyomino-6x10-warp", "polyomino-iq", "polyomino-iq-tree",
                          "polyomino-bedlam", "cubes", "sliding-korf100", "sliding-bfs", "hextris", "ga"}
    for name, c in cases.items():
        assert c["agree"], name
        assert c["cuda"]["backend"] == "cudasim" and c["cpu"]["backend"] == "cpu"
        assert c["cuda"]["launches"] >= 1 and c["cuda"]["h2d_bytes"] > 0, f"{name}: no kernel ran on the device"
        assert c["cpu"]["h2d_bytes"] == c["cpu"]["d2h_bytes"] == 0
    assert cases["sliding-bfs"]["answer"][-1] == 1 and sum(cases["sliding-bfs"]["answer"]) == 360  # 6!/2 states
    assert "| snake |" in proc.stdout and "cpu / cuda" in proc.stdout


def test_full_sizes_refuse_the_simulator():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "gpu.py"), "--cases", "snake"], capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 2 and "--quick" in proc.stderr


def test_quick_sweep_applies_each_grid_point_and_agrees_with_the_cpu(tmp_path):
    out = tmp_path / "sweep.json"
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "gpu_sweep.py"), "--quick", "--cases",
                           "polyomino-6x10", "--grid", "8,7,12", "4,3,12", "--repeat", "1", "--limit", "600",
                           "--out", str(out)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = json.loads(out.read_text())["cases"]["polyomino-6x10"]["rows"]
    assert [r["point"] for r in rows] == ["8,7,12", "4,3,12"]
    # a smaller frontier and batch mean more launches: the grid point reached the search
    assert 1 <= rows[0]["launches"] < rows[1]["launches"]
    sys.path.insert(0, str(ROOT / "bench"))
    import gpu

    from puzzlebatch.runners.engine.backend import select_backend

    want = gpu.CASES["polyomino-6x10"](select_backend("cpu"), True)[0]
    assert [tuple(r["answer"]) for r in rows] == [tuple(want)] * 2
    assert "| polyomino-6x10 | 4,3,12 |" in proc.stdout


def test_sweep_refuses_a_malformed_grid_point():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "gpu_sweep.py"), "--grid", "14,13"],
                          capture_output=True, text=True, env=dict(os.environ, NUMBA_ENABLE_CUDASIM="1"))
    assert proc.returncode == 2 and "--grid" in proc.stderr and "14,13" in proc.stderr
