"""Files that are not ours, and job files that try to write outside their folder.

Every case asserts the promise: the command's documented exit status, one line on stderr for an error, and
nothing outside the target touched (a device stays a device, a link stays a link, no file appears beside them).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from puzzlebatch.cli import main
from puzzlebatch.cli.jobfile import KeyLines
from puzzlebatch.outputs import is_stream, write_text


def _one_line_error(capsys, argv, *fragments) -> str:
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, (argv, code, err)
    for f in fragments:
        assert f in err[0], (argv, err[0])
    return err[0]


def _dev_listing() -> set[str]:
    return set(os.listdir("/dev"))


needs_dev = pytest.mark.skipif(not Path("/dev/null").exists() or not Path("/dev/full").exists(),
                               reason="needs /dev/null and /dev/full")


# -- outputs: standard output, devices and links are written in place, never replaced ------------------------------
def test_dash_is_standard_output(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["polyomino", "generate", "--random-cut", "6x6", "--sizes", "4-5", "--text", "-"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("; origin: random cut of 6x6") and "P001:" in out
    assert "pieces of 4-5 cells" in err  # the summary goes to stderr: stdout holds the pieces only
    assert list(tmp_path.iterdir()) == []  # no file named "-", no sidecar


@needs_dev
def test_link_to_a_device_stays_a_link(tmp_path, capsys):
    link = tmp_path / "sink.txt"
    link.symlink_to("/dev/null")
    before = _dev_listing()
    assert main(["polyomino", "generate", "--random-cut", "6x6", "--sizes", "4-5", "--text", str(link)]) == 0
    capsys.readouterr()
    assert link.is_symlink() and os.readlink(link) == "/dev/null"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert _dev_listing() == before and sorted(p.name for p in tmp_path.iterdir()) == ["sink.txt"]


@needs_dev
def test_full_device_is_one_line_and_stays_a_device(capsys):
    before = _dev_listing()
    _one_line_error(capsys, ["polyomino", "dlx", "export", "--board", "4x4", "--pieces", "dominoes", "--unlimited",
                             "--text", "/dev/full"], "--text /dev/full", "cannot write")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode) and _dev_listing() == before


@needs_dev
@pytest.mark.parametrize("out", ["/dev/null", "-"])
def test_results_file_must_be_a_file(out, capsys):
    before = _dev_listing()
    _one_line_error(capsys, ["snake", "count", "FJJJJJJF", "--box", "2x2x2", "--out", out], "--out", "regular file")
    assert _dev_listing() == before  # no /dev/null-journal


def test_link_to_a_file_is_followed(tmp_path, capsys):
    """The file a link names is replaced (atomically); the link stays a link."""
    real = tmp_path / "real.dlx"
    real.write_text("old\n")
    link = tmp_path / "link.dlx"
    link.symlink_to(real.name)
    assert main(["polyomino", "dlx", "export", "--board", "4x4", "--pieces", "dominoes", "--unlimited",
                 "--text", str(link)]) == 0
    assert "DLX problem written to" in capsys.readouterr().out  # says what it wrote
    assert link.is_symlink() and real.read_text().startswith("| 4x4")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.dlx", "real.dlx"]


def test_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert is_stream(fifo) and is_stream("-") and not is_stream(tmp_path / "x.txt")
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so that opening for writing does not wait
    try:
        write_text(fifo, "hello\n")
        assert os.read(reader, 100) == b"hello\n"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and [p.name for p in tmp_path.iterdir()] == ["pipe"]


def test_new_files_get_the_usual_mode(tmp_path):
    old = os.umask(0o022)
    try:
        write_text(tmp_path / "a.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "a.txt").st_mode) == 0o644


# -- job files: no way out of the job's folder -----------------------------------------------------------------------
ESCAPES = [
    # (job file body after family/verb, fragment of the error)
    ('[options]\nout-dir = "{outside}/lv"\n', "relative to the job's folder"),
    ('[options]\nout-dir = "../outside/x"\n', "leaves the job's folder"),
    ('out = "link/x.h5"\n', "leaves the job's folder"),
    ('[options]\npng = ["../outside/a.png"]\n', "leaves the job's folder"),
    ('[instances]\nkey = "png"\nlist = ["../outside/x.png"]\n', "leaves the job's folder"),
    ('[instances]\nlist = [{{ png = "link/x.png" }}]\n', "leaves the job's folder"),
]


@pytest.mark.parametrize("body, fragment", ESCAPES)
def test_job_cannot_write_outside_its_folder(body, fragment, tmp_path, capsys):
    folder, outside = tmp_path / "jobs", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / "link").symlink_to(outside)
    verb = 'family = "polyomino"\nverb = "levels generate"\n' if "out-dir" in body \
        else 'family = "snake"\nverb = "solve"\n'
    job = folder / "j.toml"
    job.write_text(verb + body.format(outside=outside))
    for extra in (["--dry-run"], []):
        _one_line_error(capsys, ["run", job, *extra], fragment)
    assert list(outside.iterdir()) == []
    assert sorted(p.name for p in folder.iterdir()) == ["j.toml", "link"]


def test_instance_value_is_never_an_option(tmp_path, capsys):
    """A value that looks like an option (``--png=/abs``) stays a value: the verb refuses it as one."""
    folder = tmp_path / "jobs"
    folder.mkdir()
    job = folder / "j.toml"
    target = tmp_path / "x.png"
    job.write_text(f'family = "snake"\nverb = "solve"\n[instances]\nlist = ["--png={target}"]\n')
    _one_line_error(capsys, ["run", job, "--dry-run"], "snake solve -- --png=", "chain '--png=")
    assert main(["run", str(job)]) == 2
    assert "-- --png=" in capsys.readouterr().err
    assert not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jobs"]  # only the job's ledger, in its folder


# -- the job-file reader: a real TOML reader, sizes bounded before parsing ----------------------------------------
def test_header_like_line_in_a_string_is_read_in_linear_time(tmp_path, capsys):
    """A line of 30,000 spaces between ``[`` and ``x`` (inside a string) made a backtracking expression hang."""
    line = "[" + " " * 30_000 + "x"
    assert KeyLines(f'description = """\n{line}\n"""\nfamily = "snake"\n').of("family") == 4
    job = tmp_path / "j.toml"
    job.write_text(f'family = "snake"\nverb = "solve"\ndescription = """\n{line}\n"""\n')
    assert main(["run", str(job), "--dry-run"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("body, fragment", [
    ("x = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    ("x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n", "nested too deeply"),
    ("a" + ".a" * 100_000 + " = 1\n", "dotted parts"),
    ("[" + "a." * 100_000 + "a]\n", "dotted parts"),
    ('family = "snake"\nverb = "solve"\ndescription = "' + "x" * (1 << 20) + '"\n', "too large"),
    ('family = "snake"\nverb = "solve\n', "not valid TOML"),
])
def test_job_file_bombs_are_one_line(body, fragment, tmp_path, capsys):
    job = tmp_path / "j.toml"
    job.write_text(body)
    _one_line_error(capsys, ["run", job, "--dry-run"], str(job), fragment)
    assert [p.name for p in tmp_path.iterdir()] == ["j.toml"]


# -- faults and options that were tracebacks or accepted silently --------------------------------------------------
@pytest.mark.parametrize("argv, fragment", [
    (["snake", "count", "3,2,3,2,3", "--box", "3x3x1", "--scheduler", ""], "--scheduler '': empty"),
    (["snake", "count", "3,2,3,2,3", "--box", "3x3x1", "--scheduler", "http://x:1"], "unknown address scheme"),
    (["serve", "--port", "-1"], "not a port number"),
    (["serve", "--port", "70000"], "not a port number"),
])
def test_bad_addresses_are_one_line(argv, fragment, capsys):
    _one_line_error(capsys, argv, fragment)


def test_closed_standard_output_is_one_line(tmp_path):
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(repo))
    proc = subprocess.run(f"{sys.executable} -m puzzlebatch snake solve >&-", shell=True, capture_output=True,
                          text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines() == [
        "puzzlebatch: error: standard output is closed (redirect it, e.g. >/dev/null)"]


def test_resume_of_a_finished_run_or_job_has_nothing_to_do(tmp_path, capsys):
    out = tmp_path / "f.h5"
    assert main(["snake", "count", "3,2,3,2,3", "--box", "3x3x1", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["snake", "count", "3,2,3,2,3", "--box", "3x3x1", "--out", str(out), "--resume"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("nothing to do:") and "snake-count-0000" in text
    job = tmp_path / "j.toml"
    job.write_text('family = "snake"\nverb = "generate"\n[options]\nbox = "2x2x2"\n')
    assert main(["run", str(job)]) == 0
    capsys.readouterr()
    assert main(["run", str(job), "--resume"]) == 0
    assert capsys.readouterr().out.startswith("nothing to do: --resume: job j already finished")


# -- documented things that must exist -------------------------------------------------------------------------------
def test_queens8_example_has_the_published_count(capsys):
    """The README's DLX example: the eight queens have 92 solutions (OEIS A000170)."""
    path = Path(__file__).resolve().parents[1] / "examples" / "queens8.dlx"
    assert main(["polyomino", "dlx", "solve", str(path), "--count"]) == 0
    assert ": 92 solutions (" in capsys.readouterr().out


def test_heptominoes_can_be_drawn():
    """The 108 heptominoes (documented) each get a one-character glyph."""
    from puzzlebatch.puzzles.polyomino import packing as P
    from puzzlebatch.puzzles.polyomino import shapes as S

    pieces = S.named_set("heptominoes")
    glyphs = P.glyphs_for(pieces)
    assert len(pieces) == 108 and len(set(glyphs)) == 108 and all(len(g) == 1 for g in glyphs)


def test_random_cut_example_dry_run_on_a_fresh_copy(tmp_path, capsys):
    """The example's piece files are made when the job runs: a dry run of a fresh copy checks and writes nothing."""
    import shutil

    src = Path(__file__).resolve().parents[1] / "examples" / "polyomino-random-cuts.toml"
    job = tmp_path / src.name
    shutil.copy(src, job)
    assert main(["run", str(job), "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all("--method cut --pieces " in x and "polyomino-random-cuts-pieces/cut-12x12-4-6-seed"
                                   in x for x in lines)
    assert [p.name for p in tmp_path.iterdir()] == [src.name]


@pytest.mark.parametrize("at", [1, 2, 5])
def test_full_disk_at_the_first_writes_leaves_nothing(at, tmp_path, capsys):
    """A full disk (injected ENOSPC) before the first commit: one line, exit 2, and no empty results file."""
    from puzzlebatch.results import journal

    journal.inject("enospc", at)
    try:
        _one_line_error(capsys, ["snake", "count", "3,2,3,2,3", "--box", "3x3x1", "--out", tmp_path / "r.h5"],
                        "No space left on device")
    finally:
        journal.inject(None)
    assert list(tmp_path.iterdir()) == []
