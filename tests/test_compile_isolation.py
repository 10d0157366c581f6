"""Compiled code of one family never serves another, whatever compiled it and in which process.

numba names each compiled function's machine symbol after its module, its qualified name and a counter that
restarts in every process.  Two processes compiling two families' search units could give the shared template
(``dfs_item``) the same symbol; a third process loading both from the disk cache then ran the snake search inside
the cube count (24,704 assemblies counted as 4,068) or crashed.  The children here give every function of the
package the same counter value in every process (``tests/isolation_proc.py --same-uids``), so the collision is
certain unless each unit's symbols carry a name of their own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from puzzlebatch import jit
from puzzlebatch.puzzles import search

ROOT = Path(__file__).resolve().parent.parent
CHILD = str(Path(__file__).resolve().parent / "isolation_proc.py")

# Fresh-process answers, checked against the oracles in test_snake_search.py and test_cubes_search.py
# (tests/reference/snake_oracle.py, tests/reference/cubes_oracle.py).
FRESH = {"snake/cpu": [1424, 89], "cubes/cpu": [24704, 3088]}


def _run(cache: Path, *argv: str) -> dict:
    env = dict(os.environ, PUZZLEBATCH_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    env.pop("PUZZLEBATCH_NO_CACHE", None)
    proc = subprocess.run([sys.executable, CHILD, *argv], capture_output=True, text=True, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_two_families_compiled_apart_then_loaded_together(tmp_path):
    cache = tmp_path / "cache"
    assert _run(cache, "--same-uids", "snake") == {"snake/cpu": FRESH["snake/cpu"]}
    assert _run(cache, "--same-uids", "cubes") == {"cubes/cpu": FRESH["cubes/cpu"]}
    # both units now come from the disk cache, into one process, in either order
    assert _run(cache, "snake", "cubes") == FRESH
    assert _run(cache, "cubes", "snake") == FRESH


def test_every_compiled_function_carries_its_units_name():
    from puzzlebatch.puzzles.snake import rules as snake_rules

    u = jit.unit("isolation-check", "cpu", rules=[snake_rules], templates=[search],
                      aliases={"next_choice": "no_skip", "leaf_count": "no_leaf_count"})
    assert u.symbol_prefix.startswith("unit_isolation_check_cpu")
    for name, disp in u.functions.items():
        assert disp.py_func.__qualname__ == f"{u.symbol_prefix}.{name}" or name in ("next_choice", "leaf_count")
