"""``pb.hextris``: the Python API as a notebook calls it, against the command line's ``--json`` documents; one-line
errors; nothing written without ``out=``; stops, Ctrl-C and resumes that end on the same games."""

import json
from pathlib import Path

import numpy as np
import pytest

import puzzlebatch as pb
from puzzlebatch.cli import main
from puzzlebatch.errors import Interrupted, PuzzleInputError
from puzzlebatch.puzzles.hextris.model import DATA_DIR, load_phrases, official_problem, score_solution
from puzzlebatch.results.store import ResultsStore

PROBLEMS = DATA_DIR / "problems"
# what differs from one call to the next, and what the command line adds
VOLATILE = {"command", "schema_version", "compile_seconds", "seconds", "h2d_bytes", "d2h_bytes", "launches"}
TUNE = dict(population=4, elite=2, newcomers=1, beam=1, keep=1, backend="cpu")
TUNE_ARGV = ["--problems", "21", "--population", "4", "--elite", "2", "--newcomers", "1", "--beam", "1", "--keep",
             "1", "--backend", "cpu"]


@pytest.fixture(autouse=True)
def _here(tmp_path, monkeypatch):
    """Every test in its own folder: a default results file (``results/hextris.h5``) would be written there."""
    monkeypatch.chdir(tmp_path)


def cli_json(capsys, *argv) -> tuple[int, dict]:
    always = argv[0] == "tune"  # it always prints its document
    code = main(["hextris", *map(str, argv), *([] if always else ["--json"])])
    return code, json.loads(capsys.readouterr().out)


def cli_error(capsys, *argv) -> str:
    assert main(["hextris", *map(str, argv)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("puzzlebatch: error: "), err
    return err[0][len("puzzlebatch: error: "):]


def same(api: dict, cli: dict, ignore=()) -> None:
    skip = VOLATILE | set(ignore)
    api = json.loads(json.dumps(api))  # plain JSON values
    if "backend" not in api:  # a verb that runs no kernels: the command line says "backend": null
        assert cli.pop("backend") is None
    assert {k: v for k, v in api.items() if k not in skip} == {k: v for k, v in cli.items() if k not in skip}


@pytest.fixture
def solutions(tmp_path):
    """The reference solutions of problem 0, and one with a character that is not a command."""
    ref = json.loads((DATA_DIR / "reference_scores.json").read_text())
    doc = [{"problemId": e["problemId"], "seed": e["seed"], "tag": f"ref{i}", "solution": e["solution"]}
           for i, e in enumerate(ref) if e["problemId"] == 0][:3]
    doc.append({"problemId": 0, "seed": 0, "tag": "bad-char", "solution": "lll#"})
    path = tmp_path / "solutions.json"
    path.write_text(json.dumps(doc))
    return path, doc


# -- score, show, rank ---------------------------------------------------------------------------------------------
def test_score_takes_files_text_and_objects_and_is_the_command_lines_document(capsys, solutions):
    path, doc = solutions
    r = pb.hextris.score("0", path, backend="cpu")
    assert len(r.scores) == len(doc) and r.total == sum(s["total"] for s in r.scores) > 0
    assert r.scores[-1]["end"] == "error_invalid_char" and r.scores[-1]["total"] == 0
    code, cli = cli_json(capsys, "score", "0", path, "--backend", "cpu")
    assert code == 0
    same(r.to_dict(), cli)
    problem = official_problem(0)
    for p, sols in ((0, json.dumps(doc)), (problem, doc), (PROBLEMS / "problem_0.json", doc),
                    ([problem], tuple(doc)), ("all", str(path))):
        assert pb.hextris.score(p, sols, backend="cpu").scores == r.scores
    one = pb.hextris.score(0, doc[0], backend="cpu")  # one entry as a dict
    assert one.scores == r.scores[:1]


@pytest.mark.parametrize("call, argv", [
    (lambda d: pb.hextris.score("77", d / "solutions.json"), ["score", "77", "{d}/solutions.json"]),
    (lambda d: pb.hextris.score("6", d / "solutions.json"), ["score", "6", "{d}/solutions.json"]),
    (lambda d: pb.hextris.score("0", d / "missing.json"), ["score", "0", "{d}/missing.json"]),
    (lambda d: pb.hextris.show("0", seed=5), ["show", "0", "--seed", "5"]),
    (lambda d: pb.hextris.play("21", resume=True), ["play", "21", "--resume"]),
    (lambda d: pb.hextris.play("21", out=d / "none.h5", resume=True), ["play", "21", "--out", "{d}/none.h5",
                                                                         "--resume"]),
    (lambda d: pb.hextris.play("11", seed=99), ["play", "11", "--seed", "99"]),
    (lambda d: pb.hextris.play(["21", 21]), ["play", "21", "21"]),
    (lambda d: pb.hextris.tune("30"), ["tune", "--problems", "30"]),
    (lambda d: pb.hextris.tune("21", population=3), ["tune", "--problems", "21", "--population", "3"]),
    (lambda d: pb.hextris.rank(d / "missing.json"), ["rank", "{d}/missing.json"]),
])
def test_bad_input_is_the_command_lines_one_line_message(call, argv, capsys, tmp_path, solutions):
    with pytest.raises(PuzzleInputError) as exc:
        call(tmp_path)
    assert str(exc.value) == cli_error(capsys, *[a.replace("{d}", str(tmp_path)) for a in argv])


def test_solutions_and_problems_given_wrongly(solutions):
    with pytest.raises(PuzzleInputError, match=r"solutions\[0\]: missing key 'solution'"):
        pb.hextris.score("0", [{"problemId": 0, "seed": 0}])
    with pytest.raises(PuzzleInputError, match="solutions: line 1 column"):
        pb.hextris.score("0", "[{oops")
    with pytest.raises(PuzzleInputError, match="problem: expected"):
        pb.hextris.score(1.5, solutions[0])
    with pytest.raises(PuzzleInputError, match="player 'best'"):
        pb.hextris.play("21", player="best")


def test_show_is_the_command_lines_document(capsys, tmp_path, solutions):
    path, doc = solutions
    e = doc[0]
    png = tmp_path / "b.svg"
    r = pb.hextris.show(e["problemId"], seed=e["seed"], solution=path, png=png)
    code, cli = cli_json(capsys, "show", e["problemId"], "--seed", e["seed"], "--solution", path, "--png", png)
    assert code == 0
    same(r.to_dict(), cli)
    assert r.picture == str(png) and "animation" not in r.to_dict()
    again = pb.hextris.show(official_problem(0), seed=e["seed"], commands=e["solution"])
    assert (again.total, again.units_locked, again.end) == (r.total, r.units_locked, r.end)
    assert again.frames[-1].caption.startswith("units ") and len(again.frames) == r.units_locked + 1
    with pytest.raises(PuzzleInputError, match="commands: character '#' is not a command"):
        pb.hextris.show(0, commands="ll#")


def test_rank_is_the_command_lines_document(capsys, tmp_path):
    ref = json.loads((DATA_DIR / "reference_scores.json").read_text())
    entries = [{k: e[k] for k in ("problemId", "seed", "solution")} for e in ref]
    f = tmp_path / "r.json"
    f.write_text(json.dumps(entries))
    r = pb.hextris.rank(entries, backend="cpu")
    code, cli = cli_json(capsys, "rank", f, "--backend", "cpu")
    assert code == 0 and len(r.problems) == 25 and r.rank_sum == sum(p["rank"] for p in r.problems)
    same(r.to_dict(), cli)


# -- play ----------------------------------------------------------------------------------------------------------
def test_greedy_play_is_the_command_lines_document_and_writes_nothing_without_out(capsys, tmp_path):
    r = pb.hextris.play("21", player="greedy", backend="cpu")
    assert isinstance(r, pb.hextris.GreedyPlay) and r.complete and (r.out, r.run_id) == (None, None)
    assert not (tmp_path / "results").exists() and list(tmp_path.iterdir()) == []
    e = r.entries[0]
    assert score_solution(official_problem(21), e["seed"], e["solution"]).move_score == r.move_scores[0] > 0
    code, cli = cli_json(capsys, "play", "21", "--player", "greedy", "--backend", "cpu")
    assert code == 0 and cli["out"] == str(Path("results") / "hextris.h5")  # the command line keeps its games
    same(r.to_dict(), cli, ignore=("out", "run_id"))


def test_beam_play_is_the_command_lines_document(capsys):
    r = pb.hextris.play(21, beam=1, keep=1, phrases=[], backend="cpu")
    assert isinstance(r, pb.hextris.BeamPlay) and r.stopped is None and len(r.entries) == 1
    assert r.scores[0]["total"] == score_solution(official_problem(21), r.entries[0]["seed"],
                                                  r.entries[0]["solution"], load_phrases()).total
    code, cli = cli_json(capsys, "play", "21", "--beam", "1", "--keep", "1", "--no-phrases", "--backend", "cpu")
    assert code == 0
    same(r.to_dict(), cli, ignore=("out", "run_id"))
    with pytest.raises(PuzzleInputError, match="weights: expected a list of 13 numbers"):
        pb.hextris.play(21, weights=[1, 2])


def test_greedy_play_stopped_by_max_batches_resumes_to_the_same_games(tmp_path):
    whole = pb.hextris.play(["21", "9"], player="greedy", backend="cpu")
    out = tmp_path / "g.h5"
    first = pb.hextris.play(["21", "9"], player="greedy", backend="cpu", out=out, max_batches=2)
    assert not first.complete and first.out == str(out)
    with ResultsStore(out, "r") as store:
        assert store.run(first.run_id).attrs["status"] == "interrupted"
    again = pb.hextris.play(["21", "9"], player="greedy", backend="cpu", out=out, resume=True)
    assert again.complete and again.run_id == first.run_id
    assert again.entries == whole.entries and again.move_scores == whole.move_scores
    with ResultsStore(out, "r") as store:
        run = store.run(again.run_id)
        assert run.attrs["status"] == "done" and list(run.items()["solution"]) == [e["solution"] for e in whole.entries]


def _interrupt_greedy_after(monkeypatch, chunks: int) -> None:
    from puzzlebatch.runners.hextris import greedy

    real = greedy.GreedyPlayer.run

    def run(self, deadline=None, on_chunk=None, max_chunks=None):
        seen = [0]

        def chunk(n):
            on_chunk(n)
            seen[0] += 1
            if seen[0] == chunks:
                raise KeyboardInterrupt

        return real(self, deadline, chunk, max_chunks)

    monkeypatch.setattr(greedy.GreedyPlayer, "run", run)


def test_ctrl_c_checkpoints_the_greedy_games_and_resume_finishes_them(capsys, tmp_path, monkeypatch):
    whole = pb.hextris.play(["21", "9"], player="greedy", backend="cpu")
    out = tmp_path / "c.h5"
    _interrupt_greedy_after(monkeypatch, 2)
    code = main(["hextris", "play", "21", "9", "--player", "greedy", "--backend", "cpu", "--out", str(out), "--json"])
    err = capsys.readouterr().err
    assert code == 130 and f"--out {out} --resume" in err and "resume with: puzzlebatch hextris play" in err
    with ResultsStore(out, "r") as store:
        [run_id] = store.run_ids()
        run = store.run(run_id)
        assert run.attrs["status"] == "interrupted" and run.has_checkpoint()
        assert any(run.load_checkpoint()[1]["started"])
    with pytest.raises(Interrupted) as exc:  # the API raises it, naming the file and the run
        pb.hextris.play(["21", "9"], player="greedy", backend="cpu", out=out, resume=True)
    assert (Path(exc.value.out), exc.value.run_id) == (out, run_id)
    monkeypatch.undo()
    code, doc = cli_json(capsys, "play", "21", "9", "--player", "greedy", "--backend", "cpu", "--out", out,
                         "--resume")
    assert code == 0 and doc["complete"] and doc["run_id"] == run_id
    assert doc["entries"] == whole.entries and doc["move_scores"] == whole.move_scores


def test_ctrl_c_during_a_beam_play_keeps_the_problems_finished(capsys, tmp_path, monkeypatch):
    from puzzlebatch.runners.hextris import player as hextris_player
    from puzzlebatch.runners.hextris.player import Solved

    asked = []

    def stub(problems, backend, *, on_problem, tag="t", interrupt=True, **_):
        for p in problems:
            asked.append(p.id)
            if p.id == 23 and interrupt:
                raise KeyboardInterrupt
            s = score_solution(p, p.source_seeds[0], "a", load_phrases())
            entry = {"problemId": p.id, "seed": p.source_seeds[0], "tag": tag, "solution": "a"}
            on_problem(p, [Solved(entry, s.move_score, s.power_score, s.total, s.end, False)])
        return []

    out = tmp_path / "b.h5"
    monkeypatch.setattr(hextris_player, "play_problems", stub)
    code = main(["hextris", "play", "21", "23", "--backend", "cpu", "--out", str(out), "--json"])
    assert code == 130 and f"--out {out} --resume" in capsys.readouterr().err
    monkeypatch.setattr(hextris_player, "play_problems", lambda *a, **k: stub(*a, **k, interrupt=False))
    asked.clear()
    r = pb.hextris.play(["21", "23"], backend="cpu", out=out, resume=True)
    assert asked == [23] and [e["problemId"] for e in r.entries] == [21, 23] and r.stopped is None
    with ResultsStore(out, "r") as store:
        run = store.run(r.run_id)
        assert run.attrs["status"] == "done" and run.items()["problemId"].tolist() == [21, 23]


# -- tune ----------------------------------------------------------------------------------------------------------
def _history(doc) -> list:
    return [{k: v for k, v in h.items() if k != "seconds"} for h in doc["history"]]


def test_tune_is_the_command_lines_document_and_resumes_after_max_batches(capsys, tmp_path):
    whole = pb.hextris.tune([21], generations=2, **TUNE)
    assert whole.complete and [h["generation"] for h in whole.history] == [0, 1] and len(whole.weights) == 13
    code, cli = cli_json(capsys, "tune", *TUNE_ARGV, "--generations", "2")
    assert code == 0
    same({**whole.to_dict(), "history": _history(whole.to_dict())}, {**cli, "history": _history(cli)},
         ignore=("out", "run_id"))
    out = tmp_path / "t.h5"
    first = pb.hextris.tune("21", generations=2, out=out, max_batches=1, **TUNE)
    assert not first.complete and len(first.history) == 1
    again = pb.hextris.tune("21", generations=2, out=out, resume=True, **TUNE)
    assert again.complete and again.run_id == first.run_id
    assert _history(again.to_dict()) == _history(whole.to_dict()) and again.best_genes == whole.best_genes


def test_ctrl_c_during_tuning_resumes_to_the_same_generations(capsys, tmp_path, monkeypatch):
    from puzzlebatch.runners.hextris.tune import Tuner

    whole = pb.hextris.tune([21], generations=2, **TUNE)
    real, calls = Tuner.step, [0]

    def step(self, on_new=None):
        calls[0] += 1
        if calls[0] == 2:
            raise KeyboardInterrupt
        return real(self, on_new)

    monkeypatch.setattr(Tuner, "step", step)
    out = tmp_path / "t.h5"
    code = main(["hextris", "tune", *TUNE_ARGV, "--generations", "2", "--out", str(out)])
    assert code == 130 and f"--out {out} --resume" in capsys.readouterr().err
    monkeypatch.undo()
    code, doc = cli_json(capsys, "tune", *TUNE_ARGV, "--generations", "2", "--out", out, "--resume")
    assert code == 0 and _history(doc) == _history(whole.to_dict())
    with ResultsStore(out, "r") as store:
        items = store.run(doc["run_id"]).items()
        assert items["generation"].tolist() == sorted(items["generation"].tolist())
        assert len({tuple(g) for g in np.asarray(items["genome"]).tolist()}) == len(items["genome"])  # none twice


# -- the rules of the framework ------------------------------------------------------------------------------------
def test_every_stored_run_goes_through_a_session():
    """No run is created, and no Ctrl-C caught, by the family's own modules."""
    root = Path(pb.__file__).parent
    files = [root / "api" / "hextris.py", root / "web" / "hextris.py", *sorted((root / "cli" / "hextris").glob("*.py")),
             *sorted((root / "runners" / "hextris").glob("*.py"))]
    for f in files:
        text = f.read_text()
        assert "create_run(" not in text and "except KeyboardInterrupt" not in text, f
