"""Compiled code shipped with the package (``puzzlebatch.jit.prebuilt``): current, copied into an empty cache,
loaded without compiling, and the same games as code compiled on the spot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from puzzlebatch.jit import cache, prebuilt

ROOT = Path(__file__).resolve().parent.parent
needs_level = pytest.mark.skipif(prebuilt.level() is None, reason="no portable CPU level on this machine")
REBUILD = "rebuild it with: python -m puzzlebatch.jit.prebuilt"


def shipped() -> list[Path]:
    d = prebuilt.shipped_dir()
    return sorted(d.iterdir()) if d.is_dir() else []


def _env(cache_dir: Path, **extra) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PUZZLEBATCH_CACHE_DIR=str(cache_dir))
    for k in ("NUMBA_ENABLE_CUDASIM", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", prebuilt.ENV_PREBUILT):
        env.pop(k, None)
    return dict(env, **extra)


@needs_level
def test_the_shipped_code_is_the_current_build():
    """Every family in ``FAMILIES`` ships its units for the sources as they are (an edit to any file they depend on
    renames the folder): otherwise a fresh machine compiles again inside the contest's time limit."""
    if not shipped():
        pytest.skip(f"nothing shipped for {prebuilt.shipped_dir().name} (another Python or numba than the build's)")
    assert prebuilt.check() == [], f"the package's compiled code is out of date; {REBUILD}"


def test_one_build_is_shipped_and_only_numba_cache_files():
    if not prebuilt.ROOT.is_dir():
        pytest.skip("no prebuilt code in this checkout")
    builds = list(prebuilt.ROOT.iterdir())
    assert len(builds) == 1, builds  # one Python and numba: the build replaces the folders of others
    for unit in builds[0].iterdir():
        names = {p.name for p in unit.iterdir()}
        assert names and all(n.endswith((".nbi", ".nbc")) for n in names), unit
        for index in (n for n in names if n.endswith(".nbi")):  # each index has its data files beside it
            assert any(n.startswith(index[:-len("nbi")]) and n.endswith(".nbc") for n in names), index


@needs_level
def test_an_empty_cache_plays_the_shipped_code_without_compiling(tmp_path):
    """A fresh machine, as a user has it: an empty cache, the contest's command line.  The package's files are
    copied in, nothing is compiled (the command's ``compile_seconds``, and no file added to the cache), and the
    games are those of code compiled on the spot for this machine's own CPU."""
    if not shipped():
        pytest.skip("no prebuilt code for this Python and numba")
    args = [sys.executable, "-m", "puzzlebatch", "hextris", "play", "1", "--beam", "1", "--keep", "2", "--json",
            "--out", str(tmp_path / "r.h5")]
    got = subprocess.run(args, capture_output=True, text=True, env=_env(tmp_path / "empty"), cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    doc = json.loads(got.stdout)
    assert doc["compile_seconds"] == 0.0 and "compiling" not in got.stderr, got.stderr
    folders = list((tmp_path / "empty").glob("numba/*/*"))
    assert [f.name for f in folders] == [p.name for p in shipped()]
    files = {p.name for p in folders[0].iterdir() if p.suffix in (".nbi", ".nbc")}
    assert files == {p.name for p in shipped()[0].iterdir()}  # loaded, not compiled and saved beside them
    # the same game from code compiled here for the host (the test session's own cache)
    host = subprocess.run(args[:-2] + ["--out", str(tmp_path / "h.h5")], capture_output=True, text=True,
                          env=_env(Path(cache.cache_root()), **{prebuilt.ENV_PREBUILT: "0"}), cwd=tmp_path)
    assert host.returncode == 0, host.stderr
    mine = json.loads(host.stdout)
    assert [e["solution"] for e in mine["entries"]] == [e["solution"] for e in doc["entries"]]
    assert mine["scores"] == doc["scores"] and doc["scores"][0]["total"] > 0


def _fake_build(root: Path, unit: str) -> Path:
    src = root / cache.compile_cache_dir().name / unit
    src.mkdir(parents=True)
    (src / "f-u.py311.nbi").write_bytes(b"index")
    (src / "f-u.py311.1.nbc").write_bytes(b"code")
    return src


def test_seed_copies_a_shipped_folder_into_an_empty_one_only(tmp_path, monkeypatch):
    monkeypatch.setattr(prebuilt, "ROOT", tmp_path / "pkg")
    monkeypatch.setattr(prebuilt, "seeded", [])
    monkeypatch.delenv(prebuilt.ENV_PREBUILT, raising=False)
    monkeypatch.delenv(cache.ENV_NO_CACHE, raising=False)
    _fake_build(tmp_path / "pkg", "fam-cpu-abc")
    dst = tmp_path / "cache" / "fam-cpu-abc"
    assert prebuilt.seed(str(tmp_path / "cache" / "fam-cpu-other")) is False  # another build: nothing
    assert prebuilt.seed(str(dst)) is True
    assert sorted(p.name for p in dst.iterdir()) == ["f-u.py311.1.nbc", "f-u.py311.nbi"]
    assert "2 files" in prebuilt.report()
    assert prebuilt.report() == ""  # said once: a second run in this process does not repeat it
    (dst / "f-u.py311.nbi").write_bytes(b"the user's own index")
    assert prebuilt.seed(str(dst)) is False  # a folder with an index is the user's: never overwritten
    assert (dst / "f-u.py311.nbi").read_bytes() == b"the user's own index"


def test_seed_is_off_when_asked_or_when_nothing_is_cached(tmp_path, monkeypatch):
    monkeypatch.setattr(prebuilt, "ROOT", tmp_path / "pkg")
    _fake_build(tmp_path / "pkg", "fam-cpu-abc")
    monkeypatch.setenv(prebuilt.ENV_PREBUILT, "0")
    assert prebuilt.seed(str(tmp_path / "a" / "fam-cpu-abc")) is False and prebuilt.level() is None
    monkeypatch.delenv(prebuilt.ENV_PREBUILT)
    monkeypatch.setenv(cache.ENV_NO_CACHE, "1")
    assert prebuilt.seed(str(tmp_path / "b" / "fam-cpu-abc")) is False
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_seed_into_a_cache_that_cannot_be_written_is_a_miss_not_an_error(tmp_path, monkeypatch):
    monkeypatch.setattr(prebuilt, "ROOT", tmp_path / "pkg")
    monkeypatch.delenv(prebuilt.ENV_PREBUILT, raising=False)
    monkeypatch.delenv(cache.ENV_NO_CACHE, raising=False)
    _fake_build(tmp_path / "pkg", "fam-cpu-abc")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert prebuilt.seed(str(blocker / "fam-cpu-abc")) is False


def test_the_cpu_level_is_part_of_a_cpu_units_cache_key(monkeypatch):
    from numba.core import config

    names = ["puzzlebatch.puzzles.hextris.rules"]
    host = cache.source_key(names, "cpu")
    monkeypatch.setattr(config, "CPU_NAME", "x86-64-v3")
    monkeypatch.setattr(config, "CPU_FEATURES", "")
    assert cache.cpu_level() == "x86-64-v3:"
    assert cache.source_key(names, "cpu") != host
    monkeypatch.setattr(config, "CPU_NAME", None)
    monkeypatch.setattr(config, "CPU_FEATURES", None)
    assert cache.source_key(names, "cpu") == host and cache.cpu_level() == "host"


def test_activate_leaves_a_process_that_compiled_already_or_a_users_cpu_choice(monkeypatch):
    from numba.core import config
    from numba.core.registry import cpu_target

    cpu_target.target_context  # noqa: B018 - this process's code generator, made (as after any compile)
    monkeypatch.delenv("NUMBA_CPU_NAME", raising=False)
    monkeypatch.delenv("NUMBA_CPU_FEATURES", raising=False)
    before = config.CPU_NAME
    assert prebuilt.activate() is (before is not None and before == prebuilt.level())
    assert config.CPU_NAME == before and "NUMBA_CPU_NAME" not in os.environ
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")
    assert prebuilt.activate() is False and os.environ["NUMBA_CPU_NAME"] == "generic"


@needs_level
def test_warmup_from_a_host_process_warms_the_shipped_family_in_a_child_for_its_level(tmp_path, monkeypatch):
    """``puzzlebatch warmup`` of several families compiles the others for the host, in its own process; hex Tetris
    runs for the portable level, so its warm-up runs in a child process that compiles for that level (here it only
    copies the package's build in: nothing to compile)."""
    if not shipped():
        pytest.skip("no prebuilt code for this Python and numba")
    from puzzlebatch.cli import main
    from puzzlebatch.cli.warmup import warm_up

    monkeypatch.setenv("PUZZLEBATCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    assert not prebuilt.active()
    [got] = warm_up(["hextris"], main)
    assert got.family == "hextris" and got.tasks == 4 and got.compile_seconds == 0.0
    assert [p.name for p in (tmp_path / "cache").glob("numba/*/*")] == [p.name for p in shipped()]


@needs_level
def test_warmup_prune_keeps_the_folders_a_child_process_warmed(tmp_path, monkeypatch, capsys):
    """``warmup --prune`` removes unit folders of older sources; the hex Tetris folders of the current sources,
    warmed in a child process for the portable level (and the host's, for Python callers), are not older."""
    if not shipped():
        pytest.skip("no prebuilt code for this Python and numba")
    from puzzlebatch.cli import main

    monkeypatch.setenv("PUZZLEBATCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    old = cache.compile_cache_dir() / "hextris-cpu-0123456789abcdef"
    old.mkdir(parents=True)
    assert main(["warmup", "hextris", "--prune", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["pruned"] == [str(old)] and not old.exists()
    assert [p.name for p in cache.compile_cache_dir().iterdir()] == [p.name for p in shipped()]


def test_info_says_whether_the_shipped_code_serves_this_machine(monkeypatch):
    got = prebuilt.summary()
    assert got["families"] == ["hextris"] and got["used"] == (prebuilt.level() is not None and bool(shipped()))
    monkeypatch.setenv(prebuilt.ENV_PREBUILT, "0")
    off = prebuilt.summary()
    assert off["used"] is False and off["why_not"] == f"{prebuilt.ENV_PREBUILT}=0"
