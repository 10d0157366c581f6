"""Every ``puzzlebatch`` command shown in README.md and examples/README.md runs as written, in the order written.

Commands are taken from the shell code blocks.  A synopsis's optional parts (``[--json]``) are left out; a line that
still holds a placeholder (``FILE``, ``CHAIN``, ``...``, ``a|b``) is a synopsis, not a command, and is not run.
Each command runs in-process in one temporary folder holding copies of ``examples/`` (a job writes its ledger
beside its file) and the package's data, so that a command may use what an earlier one wrote (a cut, then its
solve-back; ``count --all``, then ``show``).  The long ones (every qualifier game, the 7-8 pattern databases, a
400×400 tiling, the CUDA simulator on big work, a 24-puzzle) run only with ``-m slow``.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = (REPO / "README.md", REPO / "examples" / "README.md")

# A command whose line contains one of these runs only with -m slow (minutes here, or the whole qualifier).
SLOW = ("warmup", "hextris play all", "pdb build", "korf100.txt", "400x400", "--backend cuda", "hextris tune",
        "--scheduler", "--split 1024")
# Documented exit statuses other than 0.
STATUS = {'sliding solve "1 2 3 4 5 6 8 7 0"': 1}  # unsolvable: an answer, exit 1 ("no solution")
NOT_RUN = ("serve",)  # a server runs until stopped
PLACEHOLDER = re.compile(r"\.\.\.|\||(?<![\w-])[A-Z][A-Z0-9_]*(\.[A-Za-z0-9]+)?(?![\w-])")


def _without_options(line: str) -> str:
    """``line`` without its ``[...]`` groups (nested ones included)."""
    while True:
        shorter = re.sub(r"\s*\[[^\[\]]*\]", "", line)
        if shorter == line:
            return line
        line = shorter


def commands(path: Path) -> list[tuple[int, str, list[str]]]:
    """``(line number, command, argv)`` of every runnable ``puzzlebatch`` command in ``path``'s shell blocks."""
    out, block = [], False
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            block = not block and line.strip() in ("```sh", "```bash", "```shell", "```console")
            continue
        if not (block and line.startswith("puzzlebatch ")):
            continue
        text = _without_options(line.split(" #")[0].strip())
        argv = shlex.split(text)[1:]
        if not argv or argv[0] in NOT_RUN or PLACEHOLDER.search(" ".join(argv)):
            continue
        out.append((n, text, argv))
    return out


def _cases(slow: bool):
    for doc in DOCS:
        cmds = [c for c in commands(doc) if any(s in c[1] for s in SLOW) == slow]
        if cmds:
            yield pytest.param(doc, cmds, id=doc.relative_to(REPO).as_posix())


def _run_all(doc: Path, cmds, tmp_path, monkeypatch, capsys) -> None:
    from puzzlebatch.cli import main

    shutil.copytree(REPO / "examples", tmp_path / "examples")
    (tmp_path / "puzzlebatch").mkdir()
    (tmp_path / "puzzlebatch" / "data").symlink_to(REPO / "puzzlebatch" / "data")
    monkeypatch.chdir(tmp_path)
    failures = []
    for n, text, argv in cmds:
        want = next((code for key, code in STATUS.items() if key in text), 0)
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse
            code = exc.code
        err = capsys.readouterr().err
        if code != want or "Traceback" in err:
            failures.append(f"{doc.name}:{n}: {text}\n    exit {code} (want {want}): {err.strip()[-400:]}")
    assert not failures, "\n".join(failures)


def test_the_docs_show_commands_to_run():
    """The extraction finds the commands (a README without runnable commands would pass the tests below)."""
    fast = [c for doc in DOCS for c in commands(doc) if not any(s in c[1] for s in SLOW)]
    assert len(fast) >= 15, fast
    assert any(argv[:2] == ["sliding", "solve"] for _, _, argv in fast)


# What the README's commands leave behind (so that a command that silently did nothing is noticed).
MADE = {"README.md": ("soma.h5", "path.png", "p.dlx", "cut.txt", "levels", "examples/results")}


@pytest.mark.parametrize("doc, cmds", list(_cases(slow=False)))
def test_every_command_runs_as_written(doc, cmds, tmp_path, monkeypatch, capsys):
    _run_all(doc, cmds, tmp_path, monkeypatch, capsys)
    missing = [f for f in MADE.get(doc.name, ()) if not (tmp_path / f).exists()]
    assert not missing, f"{doc.name}: commands ran but made nothing at {missing}"


@pytest.mark.slow
@pytest.mark.parametrize("doc, cmds", list(_cases(slow=True)))
def test_every_long_command_runs_as_written(doc, cmds, tmp_path, monkeypatch, capsys):
    _run_all(doc, cmds, tmp_path, monkeypatch, capsys)


JOBS = sorted((REPO / "examples").glob("*.toml"))


@pytest.mark.parametrize("job", JOBS, ids=[j.name for j in JOBS])
def test_every_example_job_checks_on_a_fresh_copy(job, tmp_path, monkeypatch, capsys):
    """``run --dry-run`` of every shipped job file, on a fresh copy of ``examples/`` (nothing made beforehand)."""
    from puzzlebatch.cli import main

    shutil.copytree(REPO / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    code = main(["run", f"examples/{job.name}", "--dry-run"])
    err = capsys.readouterr().err
    assert code == 0 and "Traceback" not in err, err
    assert not (tmp_path / "examples" / "results").exists()  # a dry run writes nothing


@pytest.mark.slow
@pytest.mark.parametrize("job", JOBS, ids=[j.name for j in JOBS])
def test_every_example_job_runs(job, tmp_path, monkeypatch, capsys):
    from puzzlebatch.cli import main

    shutil.copytree(REPO / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    assert main(["run", f"examples/{job.name}"]) == 0, capsys.readouterr().err
