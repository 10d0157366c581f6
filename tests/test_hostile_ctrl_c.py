"""Ctrl-C on a count that runs on a local Dask cluster (``--scheduler local:2``): one line naming the command that
resumes, no worker's traceback, exit status 130 (README, "Exit status"), and the resumed count is exact.

The interrupt is injected at a known moment (tests/ctrl_c_proc.py: after the first committed batch, SIGINT to the
whole process group, as a terminal sends it), not raced against a timer.
"""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from puzzlebatch.results.store import ResultsStore

REPO = Path(__file__).resolve().parents[1]
CHAIN = "FJJFJJJJJJJFJFFJFJJJJJJJJJJJJFJJJJJF"  # in a 3x3x4 box (tests/test_distributed.py)


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(REPO), "PUZZLEBATCH_STORE_FSYNC": "0"}


def test_ctrl_c_on_a_local_cluster_is_one_line_and_resumes(tmp_path):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "c.h5"
    args = ["snake", "count", CHAIN, "--box", "3x3x4", "--all", "--backend", "cpu", "--out", str(out),
            "--scheduler", "local:2", "--item-seconds", "0.02", "--budget", "2000", "--checkpoint-every", "3600"]
    proc = subprocess.run([sys.executable, str(REPO / "tests" / "ctrl_c_proc.py"), *args], cwd=tmp_path,
                          env=_env(), capture_output=True, text=True, start_new_session=True, timeout=900)
    assert proc.returncode == 130, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and "KeyboardInterrupt" not in proc.stderr, proc.stderr[-3000:]
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    last = lines[-1]
    assert last.startswith("puzzlebatch: interrupted; resume with: puzzlebatch snake count "), proc.stderr
    assert "--resume" in last and str(out) in last
    # besides that line: the cluster's dashboard line and the compile notice at most, nothing from a worker
    others = [ln for ln in lines[:-1] if not ln.startswith(("puzzlebatch: ", "compiling "))]  # a cold cache
    assert others == [], proc.stderr[-3000:]
    with ResultsStore(out, "r") as st:
        run = st.run(st.run_ids()[0])
        assert run.attrs["status"] == "interrupted" and run.load_checkpoint() is not None
    # the resume command as printed (here in one process; the frontier and rows carry over)
    words = shlex.split(last.split("resume with: ", 1)[1])
    assert words[:3] == ["puzzlebatch", "snake", "count"]
    at = words.index("--scheduler")
    words = words[1:at] + words[at + 2:]
    again = subprocess.run([sys.executable, "-m", "puzzlebatch", *words, "--json"], cwd=tmp_path, env=_env(),
                           capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr[-3000:]
    whole = subprocess.run([sys.executable, "-m", "puzzlebatch", "snake", "count", CHAIN, "--box", "3x3x4",
                            "--all", "--backend", "cpu", "--out", str(tmp_path / "whole.h5"), "--json"],
                           cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=900)
    assert whole.returncode == 0, whole.stderr[-3000:]
    assert json.loads(again.stdout)["embeddings"] == json.loads(whole.stdout)["embeddings"]
    with ResultsStore(out, "r") as a, ResultsStore(tmp_path / "whole.h5", "r") as b:
        ra, rb = a.run(a.run_ids()[0]).items(), b.run(b.run_ids()[0]).items()
        assert all((ra[k] == rb[k]).all() for k in ra)  # the same rows in the same (sorted) order
