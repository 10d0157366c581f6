"""Bad options found in review: each is a one-line error with exit status 2, before any work is done."""

import pytest

from puzzlebatch.cli import main


@pytest.mark.parametrize("args, message", [
    (["sliding", "solve", "--file", "{inst}", "--batch", "-5"], "--batch: -5: must be at least 1"),
    (["sliding", "solve", "1 2 3 4 5 6 7 8 0", "--max-len", "-1"], "--max-len: -1: must be at least 1"),
    (["cubes", "ga", "--figure", "2x2x1", "--selection", "tournament", "--tournament", "0", "--generations", "1"],
     "--tournament: 0: must be at least 1"),
    (["cubes", "solve", "--figure", "2x1x1", "--png", "{tmp}/a.gif"], "--png: cannot draw"),
])
def test_bad_options_are_one_line_errors(args, message, tmp_path, capsys):
    inst = tmp_path / "i.txt"
    inst.write_text("1 2 3 4 5 6 7 0 8\n")
    args = [a.format(inst=inst, tmp=tmp_path) for a in args]
    code = main(args + ["--out", str(tmp_path / "o.h5")] if args[1] == "ga" else args)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and message in err[0], err


def test_ctrl_c_checkpoints_and_resume_finishes(tmp_path, capsys, monkeypatch):
    """Ctrl-C during a count saves the work left after the last batch; --resume then gives the full answer."""
    import json

    from puzzlebatch.runners.engine.session import Session as CountSession

    real = CountSession.on_batch
    calls = {"n": 0}

    def interrupting(self, front, tot):
        real(self, front, tot)
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt

    out = tmp_path / "k.h5"
    common = ["snake", "count", "--backend", "cpu", "--out", str(out), "--budget", "20", "--batch-size", "5",
              "--frontier", "4", "--checkpoint-every", "3600", "--json"]
    monkeypatch.setattr(CountSession, "on_batch", interrupting)
    assert main(common) == 130
    err = capsys.readouterr().err
    assert f"resume with: puzzlebatch snake count --backend cpu --budget 20 --batch-size 5 --frontier 4 " \
           f"--checkpoint-every 3600 --json --out {out} --resume" in err, err
    from puzzlebatch.results.store import ResultsStore

    with ResultsStore(out, "r") as store:
        run = store.run(store.run_ids()[0])
        assert run.attrs["status"] == "interrupted" and run.has_checkpoint()
    monkeypatch.setattr(CountSession, "on_batch", real)
    assert main(common + ["--resume"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["complete"] and (doc["embeddings"], doc["distinct"]) == (48, 1)
