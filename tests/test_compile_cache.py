"""The on-disk compile cache: served on the second run, never stale, safe to share, harmless when it cannot be written.

Each test runs the real command line in fresh processes with its own cache folder (``PUZZLEBATCH_CACHE_DIR``), on
the CPU (the simulator compiles nothing to cache).  Assertions are on results and on what the processes report
(``compile_seconds``, warnings), never on how long anything took.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import puzzlebatch

PACKAGE = Path(puzzlebatch.__file__).resolve().parent
# A snake count whose items all go through the batch DFS drivers (one frontier item: the root).
COUNT = ["snake", "count", "3,2,3,2,3", "--box", "3x3x1", "--frontier", "1", "--backend", "cpu", "--json"]


def _env(cache: Path, pythonpath: Path | None = None, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "PUZZLEBATCH_NO_CACHE")}
    env["PUZZLEBATCH_CACHE_DIR"] = str(cache)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    env.update(extra)
    return env


def _run(argv, env, cwd) -> tuple[dict, str]:
    proc = subprocess.run([sys.executable, "-m", "puzzlebatch", *argv], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout), proc.stderr


def _count(cache, tmp, pythonpath=None, **extra):
    out = tmp / f"count-{len(list(tmp.glob('count-*.h5')))}.h5"
    doc, err = _run(COUNT + ["--out", str(out)], _env(cache, pythonpath, **extra), tmp)
    return doc, err


def test_second_process_is_served_from_the_cache(tmp_path):
    cache = tmp_path / "cache"
    first, _ = _count(cache, tmp_path)
    second, err = _count(cache, tmp_path)
    assert first["embeddings"] == second["embeddings"] > 0
    assert first["compile_seconds"] > 0
    assert second["compile_seconds"] == 0  # every compiled function came from the disk
    assert "warning" not in err
    units = list((cache / "numba").glob("*/snake-cpu*"))
    assert units, "no unit folder under the cache"


def test_an_edited_rule_in_another_file_is_recompiled(tmp_path):
    """The batch driver (cpu_fallback/search.py) calls the per-item DFS (puzzles/search.py), which calls the rules
    (puzzles/snake/rules.py).  numba's own cache would serve the driver stale after an edit of either callee's file;
    here each edit must take effect."""
    copy = tmp_path / "src"
    shutil.copytree(PACKAGE, copy / "puzzlebatch", ignore=shutil.ignore_patterns("__pycache__", "data"))
    (copy / "puzzlebatch" / "data").symlink_to(PACKAGE / "data")
    cache = tmp_path / "cache"
    base, _ = _count(cache, tmp_path, copy)
    warm, _ = _count(cache, tmp_path, copy)
    assert warm["compile_seconds"] == 0 and warm["embeddings"] == base["embeddings"]

    # 1. the template of the per-item DFS: every solution counted twice
    search = copy / "puzzlebatch" / "puzzles" / "search.py"
    text = search.read_text()
    assert text.count("        count += 1\n") == 1
    search.write_text(text.replace("        count += 1\n", "        count += 2\n"))
    doubled, _ = _count(cache, tmp_path, copy)
    assert doubled["compile_seconds"] > 0
    assert doubled["embeddings"] == 2 * base["embeddings"]

    # 2. a rule: no cell may start the chain (the count is 0, which keeps it a multiple of the symmetries)
    rules = copy / "puzzlebatch" / "puzzles" / "snake" / "rules.py"
    text = rules.read_text()
    assert "    if depth == 0:\n        return n\n" in text
    rules.write_text(text.replace("    if depth == 0:\n        return n\n", "    if depth == 0:\n        return 0\n"))
    edited, _ = _count(cache, tmp_path, copy)
    fresh, _ = _count(tmp_path / "no-cache", tmp_path, copy, PUZZLEBATCH_NO_CACHE="1")
    assert edited["compile_seconds"] > 0
    assert edited["embeddings"] == fresh["embeddings"] == 0


def test_the_warmup_counts_leave_nothing_to_compile_for_a_merged_count(tmp_path):
    """``puzzlebatch warmup polyomino``'s two count commands, in a fresh cache, compile everything a count by
    merged states runs on another board (the estimate that chooses it, the layers, the hash table's growth)."""
    from puzzlebatch.cli.polyomino.commands import warmup_tasks

    cache = tmp_path / "cache"
    b = ["--backend", "cpu"]
    tasks = dict(warmup_tasks(b, tmp_path))
    for name in ("count", "count --merge yes"):
        _run(["polyomino", *tasks[name]], _env(cache), tmp_path)
    # IQ Puzzler Pro: "auto" merges there (Smart Games' published total: 4,331,140, 1,082,785 distinct)
    doc, _ = _run(["polyomino", "count", "--board", "11x5", "--pieces", "iq-puzzler-pro", *b, "--json"],
                  _env(cache), tmp_path)
    assert doc["merged_layers"] > 0 and (doc["solutions"], doc["distinct"]) == (4331140, 1082785)
    assert doc["compile_seconds"] == 0


def test_processes_filling_one_cache_at_once(tmp_path):
    cache = tmp_path / "cache"
    env = _env(cache)
    procs = []
    for k in range(3):
        argv = COUNT + ["--out", str(tmp_path / f"c{k}.h5")] if k != 2 else \
            ["snake", "solve", "3,2,3,2,3", "--box", "3x3x1", "--backend", "cpu", "--json"]
        procs.append(subprocess.Popen([sys.executable, "-m", "puzzlebatch", *argv], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path))
    docs = []
    for p in procs:
        out, err = p.communicate(timeout=1800)
        assert p.returncode == 0, err[-3000:]
        docs.append(json.loads(out))
    assert docs[0]["embeddings"] == docs[1]["embeddings"] > 0
    assert docs[2]["solved"]
    again, err = _count(cache, tmp_path)
    assert again["embeddings"] == docs[0]["embeddings"] and again["compile_seconds"] == 0
    assert "warning" not in err
    leftovers = [p for p in cache.rglob("*") if ".tmp." in p.name]
    assert not leftovers  # every file was written beside and renamed into place


def test_an_unwritable_cache_folder_compiles_in_memory_with_one_warning(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    doc, err = _count(blocker / "cache", tmp_path)
    assert doc["embeddings"] > 0 and doc["compile_seconds"] > 0
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "compile cache" in warnings[0], err


def test_a_damaged_entry_is_recompiled_not_loaded(tmp_path):
    cache = tmp_path / "cache"
    base, _ = _count(cache, tmp_path)
    for data in cache.rglob("*.nbc"):
        raw = bytearray(data.read_bytes())
        raw[len(raw) // 2:] = b"\0" * (len(raw) - len(raw) // 2)
        data.write_bytes(bytes(raw))
    doc, err = _count(cache, tmp_path)
    assert doc["embeddings"] == base["embeddings"]
    assert doc["compile_seconds"] > 0
    assert err.count("warning") >= 1 and "unreadable compile-cache entry" in err


def test_info_shows_the_cache_folder(tmp_path):
    doc, _ = _run(["info", "--json"], _env(tmp_path / "here"), tmp_path)
    assert doc["compile_cache"]["folder"].startswith(str(tmp_path / "here"))
    assert doc["compile_cache"]["enabled"] is True


def test_a_full_disk_turns_saving_off_once(tmp_path, monkeypatch):
    """In process: numba's data-file write fails with ENOSPC; the compile still succeeds, one warning, no retry."""
    import errno

    from numba.core import caching

    from puzzlebatch.jit import cache as C

    calls = []

    def full(self, name, data):
        calls.append(name)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(caching.IndexDataCacheFile, "_save_data", full)
    monkeypatch.setattr(C, "write_state", C._WriteState())
    monkeypatch.setenv("PUZZLEBATCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(C, "_warned", set())
    from puzzlebatch import jit
    from puzzlebatch.ga import rng

    u = jit.Unit("full disk test", "cpu", rules=[rng])
    import numpy as np

    state = np.array([12345], np.uint64)
    assert 0 <= u.rand_below(state, 10) < 10  # compiles; the save fails quietly after one warning
    assert 0 <= u.rand_unit(state) < 1
    assert len(calls) == 1  # saving was turned off after the first failure
    assert C.write_state.writable is False


def test_dask_workers_load_from_the_shared_cache(tmp_path):
    """A warm cache serves every worker of a local cluster: no worker compiles."""
    pytest.importorskip("distributed")
    cache = tmp_path / "cache"
    # a 3x3x4 chain with enough work for both workers (the small counts above finish on the client)
    argv = ["snake", "count", "FJJFJJJJJJJFJFFJFJJJJJJJJJJJJFJJJJJF", "--box", "3x3x4", "--backend", "cpu",
            "--budget", "1000", "--batch-size", "4", "--json"]
    alone, _ = _run(argv + ["--out", str(tmp_path / "alone.h5")], _env(cache), tmp_path)  # fills the cache
    doc, _ = _run(argv + ["--out", str(tmp_path / "dask.h5"), "--scheduler", "local:2"], _env(cache), tmp_path)
    workers = doc["work"]["workers"]
    assert workers and all(w["compile_seconds"] == 0 for w in workers.values()), workers
    assert doc["embeddings"] == alone["embeddings"] > 0


def test_a_terminal_is_told_when_a_first_run_compiles(tmp_path):
    """On a terminal, stderr says that the kernels are compiling (once per family), and only the first time."""
    import pty
    import select

    def stderr_on_a_terminal(cache):
        master, slave = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "puzzlebatch", *COUNT, "--out", str(tmp_path / "t.h5")],
                                stdout=subprocess.PIPE, stderr=slave, env=_env(cache), cwd=tmp_path)
        os.close(slave)
        chunks = []
        while True:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    data = os.read(master, 4096)
                except OSError:  # the child closed its side
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
        proc.wait()
        os.close(master)
        assert proc.returncode == 0
        return b"".join(chunks).decode(errors="replace")

    cache = tmp_path / "cache"
    first = stderr_on_a_terminal(cache)
    assert first.count("compiling snake kernels (first run, cached afterwards)") == 1, first
    second = stderr_on_a_terminal(cache)
    assert "compiling" not in second, second


def test_every_compiled_function_goes_through_a_compile_unit():
    """A bare ``@njit`` or ``cuda.jit`` elsewhere would compile again in every process (or be cached by numba's
    own stamp, stale after an edit of a function it calls): everything compiled is built by puzzlebatch.jit."""
    import re

    bare = re.compile(r"^\s*(@\s*(numba\.)?(njit|jit|vectorize|guvectorize|cfunc)\b(?!\.)|.*\b(njit|cuda\.jit)\s*\()",
                      re.MULTILINE)
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "jit":
            continue
        for m in bare.finditer(path.read_text(encoding="utf-8")):
            line = m.group(0).strip()
            if not line.startswith("#"):
                offenders.append(f"{path.relative_to(PACKAGE)}: {line}")
    assert not offenders, "\n".join(offenders)


def test_code_changed_in_memory_gets_its_own_key():
    """A module edited on disk after it was imported compiles its old code: that code must not be cached under
    the edited file's key (the key also hashes the loaded functions and constants)."""
    import types

    from puzzlebatch.jit import cache as jc

    mod = types.ModuleType("puzzlebatch_toy_rules")
    exec("K = 3\ndef rule(x):\n    return x + K\n", mod.__dict__)
    mod.rule.__module__ = mod.__name__
    before = jc.loaded_fingerprint([mod])
    assert jc.loaded_fingerprint([mod]) == before  # deterministic
    exec("def rule(x):\n    return x + 2 * K\n", mod.__dict__)  # the function changed, the file did not
    mod.rule.__module__ = mod.__name__
    changed = jc.loaded_fingerprint([mod])
    assert changed != before
    mod.K = 4  # a frozen global changed
    assert jc.loaded_fingerprint([mod]) not in (before, changed)
    # the part of a module kept between calls follows the function objects' code and the values' types
    seen = {jc.loaded_fingerprint([mod])}
    mod.rule.__code__ = (lambda x: x - K).__code__  # noqa: F821 - the same function object, other code
    seen.add(jc.loaded_fingerprint([mod]))
    mod.K = 4.0  # equal to 4, compiled otherwise
    seen.add(jc.loaded_fingerprint([mod]))
    mod.K = -0.0
    seen.add(jc.loaded_fingerprint([mod]))
    mod.K = 0.0  # equal to -0.0
    seen.add(jc.loaded_fingerprint([mod]))
    assert len(seen) == 5
