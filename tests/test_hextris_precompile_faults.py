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
