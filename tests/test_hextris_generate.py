"""The board generator: official problem format (the qualifier files' keys and types), seeds, the CLI verb."""

import json

from puzzlebatch.cli.app import main as cli
from puzzlebatch.puzzles.hextris.generate import generate_problem, qualifier_statistics
from puzzlebatch.puzzles.hextris.model import DATA_DIR, load_phrases, load_problem, parse_problem, score_solution
from puzzlebatch.runners.hextris.coldstart import QuickPlayer


def _official_shape(doc):
    """The keys and value types of one value of the official format, as a comparable structure."""
    if isinstance(doc, dict):
        return {k: _official_shape(v) for k, v in doc.items() if not isinstance(v, list) or v}
    if isinstance(doc, list):
        return [_official_shape(doc[0])]
    return type(doc).__name__


def test_generated_problems_have_the_official_format_and_the_qualifier_statistics():
    official = json.loads((DATA_DIR / "problems" / "problem_3.json").read_text())  # has filled cells
    st = qualifier_statistics()
    for seed in range(6):
        doc = generate_problem(seed)
        assert doc == generate_problem(seed)  # a pure function of the seed
        assert set(doc) == set(official)
        shape, ref = _official_shape(doc), _official_shape(official)
        assert {k: v for k, v in shape.items() if k in ref} == {k: ref[k] for k in shape if k in ref}
        p = parse_problem(doc)  # the project's strict reader of the official format
        assert p.width in st["width"] and p.height in st["height"] and p.source_length in st["source_length"]
        assert len(p.units) in st["units"] and len(p.source_seeds) in st["seeds"]
        assert p.max_unit_size <= max(st["unit_size"])
        rows = {}
        for _, y in p.filled:
            rows[y] = rows.get(y, 0) + 1
        assert all(n < p.width for n in rows.values())  # no full row at the start
    assert generate_problem(0) != generate_problem(1)


def test_generate_verb_writes_playable_problem_files(tmp_path, capsys):
    assert cli(["hextris", "generate", "--seed", "2", "--count", "2", "--out", str(tmp_path)]) == 0
    files = sorted(tmp_path.glob("problem_*.json"))
    assert [f.name for f in files] == ["problem_1002.json", "problem_1003.json"]
    phrases = load_phrases()
    for f in files:
        p = load_problem(f)
        q = QuickPlayer([p], phrases)
        q.run(max_units=20)
        for (_, seed), (entry, total) in q.best().items():
            s = score_solution(p, seed, entry["solution"], phrases)
            assert not s.end.startswith("error") and s.total == total
    assert cli(["hextris", "generate", "--seed", "2"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1]) == generate_problem(2)
