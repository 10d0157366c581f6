"""``play_icfp2015 -c N`` (the games split over processes) and the kernels compiled in other processes.

No clock and no race: the shards' processes are small fake players (a Python one-liner that answers for every seed
of the files it is given, or one that fails), and the compile markers are written before anyone waits for them.
The answers are checked with the scalar scorer (the organizers' rules, ``model.score_solution``)."""

import argparse
import io
import json
import sys
import time

import pytest

from puzzlebatch.puzzles.hextris.model import DATA_DIR, load_json, load_phrases, parse_problem, score_solution
from puzzlebatch.runners.hextris import precompile, shards


def _docs(*ids, length=None, seeds=None):
    out = []
    for n in ids:
        d = load_json(DATA_DIR / "problems" / f"problem_{n}.json", "problem")
        if length is not None:
            d["sourceLength"] = length
        if seeds is not None:
            d["sourceSeeds"] = d["sourceSeeds"][:seeds]
        out.append(d)
    return out


def test_split_plays_every_distinct_seed_once_in_balanced_shards():
    docs = _docs(*range(25))
    docs[3]["sourceSeeds"] = docs[3]["sourceSeeds"] + docs[3]["sourceSeeds"][:1]  # a seed listed twice
    parts = shards.split(docs, 2)
    assert len(parts) == 2
    played = sorted((docs[i]["id"], s) for p in parts for i, seeds in p.seeds.items() for s in seeds)
    assert played == sorted((d["id"], s) for d in docs for s in set(d["sourceSeeds"]))
    work = [sum(docs[i]["sourceLength"] * docs[i]["width"] * len(s) for i, s in p.seeds.items()) for p in parts]
    assert work == [p.work for p in parts]
    heaviest_seed = max(d["sourceLength"] * d["width"] for d in docs)
    assert abs(work[0] - work[1]) <= heaviest_seed  # greedy balance: within one seed's work
    for p in parts:
        assert list(p.seeds) == sorted(p.seeds)  # the problems in the order given


def test_split_never_makes_an_empty_shard():
    docs = _docs(0)  # one problem, one seed
    assert [p.games for p in shards.split(docs, 4)] == [1]


def test_merge_orders_the_answers_by_problem_and_seed():
    docs = _docs(6, 21)
    keys = [(d["id"], s) for d in docs for s in d["sourceSeeds"]]
    answers = [[{"problemId": p, "seed": s, "solution": ""} for p, s in keys[1::2]],
               [{"problemId": p, "seed": s, "solution": ""} for p, s in keys[::2]]]
    assert [(e["problemId"], e["seed"]) for e in shards.merge(docs, answers)] == keys


FAKE = """
import json, sys
from puzzlebatch.puzzles.hextris.model import load_json
files = [sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "-f"]
if any("fail" in a for a in sys.argv):
    raise SystemExit(1)
out = []
for f in files:
    d = load_json(f, "problem")
    out += [{"problemId": d["id"], "seed": s, "tag": "fake", "solution": "Ei!"} for s in d["sourceSeeds"]]
print(json.dumps(out))
"""


def _args(**kw):
    a = dict(seconds=None, megabytes=None, cores=2, phrases=[], tag="t", backend="cpu")
    a.update(kw)
    return argparse.Namespace(**a)


@pytest.fixture
def fake_players(monkeypatch):
    """The shards' processes replaced by ``FAKE``; the kernels not compiled (a warm cache as far as -c knows)."""
    monkeypatch.setattr(precompile.Precompiler, "start", classmethod(lambda cls, processes=1: None))

    def command(args, tag_fail=False):
        return [sys.executable, "-c", FAKE] + (["fail"] if tag_fail else [])

    return command


def test_shards_answers_are_merged_in_order(fake_players, monkeypatch):
    from puzzlebatch.cli.hextris import play_icfp2015

    docs = _docs(6, 13, length=3, seeds=4)
    monkeypatch.setattr(play_icfp2015, "shard_command", lambda args: fake_players(args))
    out, err = io.StringIO(), io.StringIO()
    assert play_icfp2015.play_shards(_args(), docs, 2, time.perf_counter(), out, err) == 0
    doc = json.loads(out.getvalue())
    assert [(e["problemId"], e["seed"]) for e in doc] == [(d["id"], s) for d in docs for s in d["sourceSeeds"]]
    assert all(e["solution"] == "Ei!" for e in doc)
    assert "2 processes played" in err.getvalue()


def test_a_failed_shard_is_played_by_the_plain_python_player(fake_players, monkeypatch):
    from puzzlebatch.cli.hextris import play_icfp2015

    docs = _docs(6, 13, length=3, seeds=4)
    monkeypatch.setattr(play_icfp2015, "shard_command", lambda args: fake_players(args, tag_fail=True))
    out, err = io.StringIO(), io.StringIO()
    assert play_icfp2015.play_shards(_args(), docs, 2, time.perf_counter(), out, err) == 0
    doc = json.loads(out.getvalue())
    assert [(e["problemId"], e["seed"]) for e in doc] == [(d["id"], s) for d in docs for s in d["sourceSeeds"]]
    phrases = load_phrases()
    for e in doc:  # every game played to its end, legally, and scoring
        d = next(d for d in docs if d["id"] == e["problemId"])
        s = score_solution(parse_problem(d), e["seed"], e["solution"], phrases)
        assert s.end in ("out_of_units", "spawn_blocked") and s.total > 0
    assert err.getvalue().count("process failed (exit status 1)") == 2


def test_a_stage_marker_ends_the_wait(tmp_path):
    c = precompile.Precompiler(tmp_path)
    (tmp_path / "greedy").write_text("1.5\n")
    (tmp_path / "score.failed").write_text("RuntimeError: x\n")
    assert c.wait("greedy") is True
    assert c.wait("score") is False  # failed: the player compiles it itself
    assert c.wait("beam", deadline=time.perf_counter() - 1) is False  # time is up
    assert c.compile_seconds() == {"greedy": 1.5}
    assert "greedy 1.5 s, score not ready, beam not ready" in c.summary()


def test_the_compiling_process_writes_its_markers(tmp_path, cpu):
    assert precompile.main([str(tmp_path), "score"]) == 0
    assert float((tmp_path / "score").read_text()) > 0
    assert precompile.cached(["score"])


def test_the_player_waits_for_each_stage_before_its_first_use(cpu):
    from puzzlebatch.runners.hextris.greedy import BeamRun

    class Compiler:
        def __init__(self, ready):
            self.ready, self.asked = ready, []

        def wait(self, stage, deadline=None):
            self.asked.append(stage)
            return self.ready

    p = precompile.tiny_problem()
    player = BeamRun([p], cpu, None, None, "t")
    player.compiler = Compiler(True)
    player.run()
    assert player.compiler.asked == ["greedy", "score", "beam"]
    assert player.solutions()[0]["solution"]
    # the time is up before the compiled kernels are: nothing is compiled or played here
    late = BeamRun([p], cpu, 1.0, None, "t")
    late.t0 -= 10
    late.compiler = Compiler(False)
    late.run()
    assert late.compiler.asked == ["greedy"] and late.greedy.chunks == 0 and late.greedy_done.is_set()


HANGS = "import time\ntime.sleep(3600)\n"


def test_a_late_shard_is_stopped_and_its_games_get_time_of_their_own(monkeypatch):
    """The parent's deadline for the shards has passed when it looks (a start a whole limit ago): the hanging shard
    is killed, and the plain-Python player is handed a deadline still ahead, not the one already past."""
    from puzzlebatch.cli.hextris import play_icfp2015
    from puzzlebatch.runners.hextris import coldstart

    monkeypatch.setattr(precompile.Precompiler, "start", classmethod(lambda cls, processes=1: None))
    monkeypatch.setattr(play_icfp2015, "shard_command", lambda args: [sys.executable, "-c", HANGS])
    handed = []
    real_run = coldstart.QuickPlayer.run

    def run(self, deadline=None):
        handed.append((deadline, time.perf_counter()))
        return real_run(self, deadline=None)  # its games to the end: the test needs no clock

    monkeypatch.setattr(coldstart.QuickPlayer, "run", run)
    docs = _docs(6, length=3, seeds=2)
    out, err = io.StringIO(), io.StringIO()
    seconds = 20.0
    assert play_icfp2015.play_shards(_args(seconds=seconds), docs, 2, time.perf_counter() - seconds, out, err) == 0
    assert len(handed) == 2 and all(deadline > now for deadline, now in handed)
    doc = json.loads(out.getvalue())
    assert len(doc) == 2 and all(e["solution"] for e in doc)


def test_the_memory_limit_caps_the_processes(monkeypatch, capsys):
    """-m 900 with -c 4: each process needs about 300 MB before its first game, so two play, and stderr says so."""
    from puzzlebatch.cli.hextris import play_icfp2015

    asked = []
    monkeypatch.setattr(play_icfp2015, "play_shards", lambda args, docs, shards, t0: asked.append(shards) or 0)
    problem = str(DATA_DIR / "problems" / "problem_6.json")
    assert play_icfp2015.main(["-f", problem, "-m", "900", "-c", "4"]) == 0
    assert asked == [2] and "2 processes instead of 4" in capsys.readouterr().err


@pytest.mark.parametrize("seconds, started", [(3000.0, 30.0), (600.0, 12.0), (30.0, 1.5), (5.0, 0.5)])
def test_a_shard_answers_a_margin_before_the_parent_stops_waiting(seconds, started):
    """A shard's ``-t`` puts its answer (``greedy.answer_time``: 90 % of its limit less 0.7 s, from its start)
    2 % of the parent's limit (at least 1.5 s) before the parent's ``end`` (``SHARDS_END`` of its limit), or where
    the old rule did (0.88 of the time left, answering at about 79 % of a long limit) when that is later; always
    before ``end``."""
    from puzzlebatch.cli.hextris import play_icfp2015
    from puzzlebatch.runners.hextris.greedy import answer_time

    t0 = 100.0
    end = t0 + play_icfp2015.SHARDS_END * seconds - 0.3
    now = t0 + started
    limit = shards.shard_seconds(end, seconds, now)
    answers = answer_time(now, limit)
    old = answer_time(now, max(0.5, 0.88 * (end - now) - 1.0))
    assert answers == pytest.approx(max(old, end - max(1.5, 0.02 * seconds)))
    assert answers < end and limit >= 0.5
    if seconds >= 600:
        assert answers - t0 > 0.9 * seconds  # the old rule: about 0.79
