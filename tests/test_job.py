"""Job files: `puzzlebatch run JOB.toml` — validation errors name the key and the line; instances run in turn into a
ledger; --resume skips what is done; the shipped examples are valid."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from puzzlebatch.results.store import ResultsStore
from puzzlebatch.puzzles.snake.model import SOURCE_CHAIN  # the source document's chain: 48 embeddings
from puzzlebatch.cli import build_parser, main
from puzzlebatch.cli import jobfile as J

APP = J.Application(build_parser, main)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _write(tmp_path: Path, text: str, name: str = "job.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("text, line, words", [
    ('family = "snake"\nverb = "count"\ncolour = "red"\n', 3, ["colour", "unknown key"]),
    ('family = "snake"\nverb = "count"\n\n[options]\nbox = "3x3x3"\nbudgett = 5\n', 6,
     ["options.budgett", "not an option of `snake count`", "--budget"]),
    ('family = "snake"\nverb = "count"\n[options]\nbudget = "lots"\n', 4, ["options.budget", "must be a whole number"]),
    ('family = "snake"\nverb = "count"\n[options]\nall = "yes"\n', 4, ["options.all", "true or false"]),
    ('family = "snakes"\nverb = "count"\n', 1, ["family", "no such command"]),
    ('family = "snake"\nverb = "fold"\n', 2, ["verb", "no such command"]),
    ('family = "snake"\nverb = "generate"\nout = "x.h5"\n', 3, ["out", "has no --out"]),
    ('family = "snake"\nverb = "count"\n[instances]\nlist = ["FJJ"]\nfile = "c.txt"\n', 3,
     ["instances", "exactly one of list, file, generate"]),
    ('family = "snake"\nverb = "count"\n[instances]\ngenerate = { count = 2, colour = 1 }\n', 4,
     ["instances.generate", "unknown generator key(s): colour"]),
    ('family = "cubes"\nverb = "count"\n[instances]\nlist = [{ figure = "2x2x2", size = 3 }]\n', 4,
     ["instances.list", "instance 1: `size` is not an argument"]),
])
def test_validation_names_key_and_line(tmp_path, text, line, words):
    path = _write(tmp_path, text)
    with pytest.raises(J.JobError) as exc:
        J.load(path, APP)
    msg = str(exc.value)
    assert f"{path}, line {line}: " in msg, msg
    for w in words:
        assert w in msg, msg
    assert "\n" not in msg


@pytest.mark.parametrize("text, key, words", [
    ('family = "snake"\nverb = "solve"\n[options]\nbox = "2x2x2"\n[instances]\nlist = ["FFJJ"]\n',
     "instances", ["`snake solve --box 2x2x2 FFJJ`", "does not fill box 2x2x2"]),
    ('family = "sliding"\nverb = "solve"\n[instances]\nlist = ["1 2 3 4 5 6 7 7 0"]\n', "instances",
     ["tile 7 appears twice"]),
    ('family = "polyomino"\nverb = "solve"\n[options]\npieces = "nosuchset"\n[instances]\n'
     'list = [{ board = "6x10" }]\n', "options.pieces", ["nosuchset"]),
    ('family = "hextris"\nverb = "play"\n[instances]\nlist = [{ problems = ["99"] }]\n', "instances", ["99"]),
    ('family = "sliding"\nverb = "bfs"\n[instances]\nlist = ["2x3", "4x4"]\n', "instances",
     ["4x4", "too many"]),
    ('family = "cubes"\nverb = "ga"\n[options]\nfigure = "2x1x1"\npopulation = 1\n', "options.population",
     ["--population 1"]),
    # an option the method would ignore is refused on the dry run too, not only when the instance runs
    ('family = "polyomino"\nverb = "solve"\n[options]\npieces = "dominoes"\nunlimited = true\nmethod = "band"\n'
     'png = "x.png"\n[instances]\nlist = [{ board = "60x60" }]\n', "options.png", ["--png: --method band"]),
])
def test_dry_run_runs_each_verbs_input_checks(tmp_path, text, key, words):
    """Beyond the keys: a dry run parses every shown instance and runs the verb's own cheap checks (no search); the
    error is at the line of the job option it is about, else of the instances."""
    path = _write(tmp_path, text)
    J.load(path, APP)  # a real run checks keys and options here, the inputs when each instance runs
    with pytest.raises(J.JobError) as exc:
        J.load(path, APP, dry_run=True)
    msg = str(exc.value)
    start = "[instances]" if key == "instances" else key.split(".")[-1] + " ="
    line = 1 + next(n for n, ln in enumerate(text.splitlines()) if ln.startswith(start))
    assert msg.startswith(f"{path}, line {line}: {key}: ") and all(w in msg for w in words), msg


def test_dry_run_shows_shell_commands_and_stops_at_the_first_bad_instance(tmp_path, capsys):
    """The commands are shown quoted for a shell (``shlex.join``): each line splits back into its argv; a bad
    instance is one line naming it, exit 2, and nothing after it is shown."""
    import shlex

    good = _write(tmp_path, 'family = "sliding"\nverb = "solve"\n[options]\nsize = "2x3"\n[instances]\n'
                            'list = ["1 2 3 4 0 5", "1 2 3 0 4 5"]\n')
    assert main(["run", str(good), "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "puzzlebatch sliding solve --size 2x3 '1 2 3 4 0 5' --json"
    assert [shlex.split(ln)[1:] for ln in lines] == J.load(good, APP).argvs
    bad = _write(tmp_path, 'family = "sliding"\nverb = "solve"\n[options]\nsize = "2x3"\n[instances]\n'
                           'list = ["1 2 3 4 0 5", "1 2 3 4 4 0", "1 2 3 4 5"]\n', "bad.toml")
    assert main(["run", str(bad), "--dry-run"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert "line 5: instances" in err and "'1 2 3 4 4 0'" in err and "tile 4 appears twice" in err, err


def test_run_log_quotes_each_command_for_a_shell(tmp_path, capsys):
    job = _write(tmp_path, 'family = "sliding"\nverb = "solve"\nbackend = "cpu"\n[options]\nsize = "2x3"\n'
                           '[instances]\nlist = ["1 2 3 4 0 5"]\n')
    assert main(["run", str(job)]) == 0
    err = capsys.readouterr().err
    assert "instance 1/1: puzzlebatch sliding solve --backend cpu --size 2x3 '1 2 3 4 0 5' --json" in err, err


def test_cli_errors_are_one_line_exit_2(tmp_path):
    bad = _write(tmp_path, 'family = "snake"\nverb = "count\n')
    for args in (["run", str(bad)], ["run", str(tmp_path / "missing.toml")]):
        r = subprocess.run([sys.executable, "-m", "puzzlebatch", *args], capture_output=True, text=True)
        assert r.returncode == 2
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "not valid TOML" in r.stderr or "no such job file" in r.stderr


def test_examples_are_valid():
    files = sorted(EXAMPLES.glob("*.toml"))
    assert {f.stem.split("-")[0] for f in files} >= {"snake", "polyomino", "cubes", "sliding", "hextris"}
    for f in files:
        if "random-cuts" in f.name:
            continue  # its generator cuts boards into files; checked in test_generators
        job = J.load(f, APP)
        assert job.argvs and all(a[:1 + len(job.verb)] == [job.family, *job.verb] for a in job.argvs)


def test_generators(tmp_path):
    job = J.load(_write(tmp_path, 'family = "snake"\nverb = "count"\n[instances]\n'
                                  'generate = { count = 3, seed = 4, box = "3x3x4" }\n'), APP)
    from puzzlebatch.puzzles.snake.generate import random_chain
    from puzzlebatch.puzzles.snake.model import Box

    assert [a[2] for a in job.argvs] == [random_chain(Box(3, 3, 4), s)[0].letters for s in (4, 5, 6)]
    job = J.load(_write(tmp_path, 'family = "sliding"\nverb = "solve"\n[instances]\n'
                                  'generate = { count = 12, seed = 1, size = "2x3" }\n', "s.toml"), APP)
    from tests.reference import sliding_oracle

    reachable = sliding_oracle.distances(2, 3, "blank-last")  # Dijkstra over the whole 2x3 graph
    for argv in job.argvs:  # every generated board is solvable
        assert tuple(int(t) for t in argv[2].split()) in reachable
    job = J.load(_write(tmp_path, 'family = "polyomino"\nverb = "solve"\n[instances]\n'
                                  'generate = { count = 2, seed = 1, board = "6x6", sizes = "4-5" }\n', "p.toml"), APP)
    assert len(job.argvs) == 2 and all(Path(a[a.index("--pieces") + 1]).exists() for a in job.argvs)


def test_run_and_resume(tmp_path):
    (tmp_path / "chains.txt").write_text(f"# two chains\n{SOURCE_CHAIN}\nFJFJ\n")
    out = tmp_path / "job.h5"
    path = _write(tmp_path, f'family = "snake"\nverb = "count"\nbackend = "cpu"\nout = "{out}"\n'
                            '[instances]\nfile = "chains.txt"\n')
    r = subprocess.run([sys.executable, "-m", "puzzlebatch", "run", str(path)], capture_output=True, text=True)
    # The second chain does not fit a cube: the job stops there with one line, the first result kept.
    assert r.returncode == 2 and "instance 2" in r.stderr.strip().splitlines()[-1], r.stderr
    with ResultsStore(out, "r") as st:
        ledger = st.latest_run(family="job")
        rows = ledger.items()
        assert ledger.attrs["status"] == "failed" and rows["instance"].tolist() == [0]
        assert json.loads(rows["result"][0])["embeddings"] == 48
        counts = [st.run(i) for i in st.run_ids() if st.run(i).attrs["family"] == "snake"]
        assert [c.attrs["result"]["embeddings"] for c in counts] == [48]
    r = subprocess.run([sys.executable, "-m", "puzzlebatch", "run", str(path), "--resume"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "instance 1/2" not in r.stderr and "instance 2/2" in r.stderr, r.stderr
