"""The background compile of the hex Tetris player when it fails: no player waits for a stage that cannot come."""

import pytest

from puzzlebatch.runners.hextris import precompile as PC


def test_a_failed_stage_marks_the_stages_after_it(tmp_path, monkeypatch):
    def compile_stage(stage):
        if stage == "greedy":
            raise RuntimeError("out of memory")
        return 0.1

    monkeypatch.setattr(PC, "compile_stage", compile_stage)
    assert PC.main([str(tmp_path), "greedy", "score"]) == 1
    assert (tmp_path / "greedy.failed").exists() and (tmp_path / "score.failed").exists()
    joined = PC.Precompiler(tmp_path)  # a shard's process: it cannot see the compiling process
    assert joined.wait("score", deadline=None) is False  # at once, not forever


class _Ended:
    """A compiling process that died by a signal, having written nothing."""

    def poll(self):
        return -9


@pytest.mark.parametrize("processes", [1, 2])
def test_a_compiling_process_that_died_is_said_to_the_players_that_joined(tmp_path, processes):
    owner = PC.Precompiler(tmp_path, [_Ended() for _ in range(processes)], owner=False)
    assert owner.wait("greedy", deadline=None) is False
    group = PC.groups(processes)[0]
    assert all((tmp_path / f"{s}.failed").exists() for s in group)
    assert PC.Precompiler(tmp_path).wait(group[-1], deadline=None) is False


HOLDER = """
import sys, time
from pathlib import Path
from puzzlebatch.runners.hextris import precompile as PC
held = PC.hold_locks(Path(sys.argv[1]), sys.argv[2:])
(Path(sys.argv[1]) / "holding").write_text("yes")
time.sleep(3600)
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="POSIX locks")
def test_a_joined_player_sees_a_compiling_process_killed_while_the_starter_is_not_looking(tmp_path):
    """The compiling process holds its stages' locks; killed by a signal (injected here, after it holds them), a
    process that joined sees the released lock and stops waiting, with no help from the process that started it."""
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path), "beam"])
    try:
        while not (tmp_path / "holding").exists():  # the locks are held from here on
            assert proc.poll() is None, "the holder ended early"
            time.sleep(0.01)
        joined = PC.Precompiler(tmp_path)
        assert not PC.lock_released(tmp_path, "beam")  # alive: a joiner would go on waiting
        assert joined.wait("beam", deadline=time.perf_counter()) is False  # (the deadline's answer, not the lock's)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert PC.lock_released(tmp_path, "beam")
        assert joined.wait("beam", deadline=None) is False  # at once, not forever
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_finished_stage_is_ready_whatever_its_lock_says(tmp_path, monkeypatch):
    monkeypatch.setattr(PC, "compile_stage", lambda stage: 0.1)
    assert PC.main([str(tmp_path), "greedy", "score"]) == 0  # this process held the locks, and let them go
    assert PC.Precompiler(tmp_path).wait("score", deadline=None) is True
    assert not PC.lock_released(tmp_path, "beam")  # never started: no lock file, not "gone"
