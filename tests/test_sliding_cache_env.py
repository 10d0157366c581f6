"""Where the sliding puzzles' pattern databases go: the puzzlebatch cache folder ($PUZZLEBATCH_CACHE_DIR), the old
$PUZZLEBATCH_CACHE still obeyed with a note."""

from pathlib import Path

from puzzlebatch.runners.sliding import pdb as sliding_pdb


def test_the_cache_folder_is_the_puzzlebatch_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sliding_pdb, "_old_env_noted", [])
    monkeypatch.delenv("PUZZLEBATCH_CACHE", raising=False)
    monkeypatch.setenv("PUZZLEBATCH_CACHE_DIR", str(tmp_path / "new"))
    assert sliding_pdb.cache_dir() == tmp_path / "new"
    assert sliding_pdb.cache_dir(tmp_path / "named") == tmp_path / "named"
    monkeypatch.setenv("PUZZLEBATCH_CACHE", str(tmp_path / "old"))
    assert sliding_pdb.cache_dir() == tmp_path / "new"  # the new name wins, silently
    assert capsys.readouterr().err == ""


def test_the_old_name_still_works_with_a_note_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sliding_pdb, "_old_env_noted", [])
    monkeypatch.delenv("PUZZLEBATCH_CACHE_DIR", raising=False)
    monkeypatch.setenv("PUZZLEBATCH_CACHE", str(tmp_path / "old"))
    assert sliding_pdb.cache_dir() == sliding_pdb.cache_dir() == Path(tmp_path / "old")
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "$PUZZLEBATCH_CACHE is deprecated" in err[0] and "$PUZZLEBATCH_CACHE_DIR" in err[0]
