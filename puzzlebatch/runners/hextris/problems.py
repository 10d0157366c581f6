"""Which qualifier problems a hex Tetris command is about: ``--problems`` arguments and ranges."""

from __future__ import annotations

from pathlib import Path

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.puzzles.hextris.model import Problem, load_problem, official_problem, parse_problem


def resolve_problems(specs: list[str]) -> list[Problem]:
    """Problem arguments: a JSON file, a number 0..24 (a shipped qualifier problem) or ``all`` (the 25)."""
    out = []
    for spec in specs:
        if spec == "all":
            out.extend(official_problem(i) for i in range(25))
        elif spec.isdigit() and not Path(spec).exists():
            out.append(official_problem(int(spec)))
        else:
            out.append(load_problem(spec))
    ids = [p.id for p in out]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise PuzzleInputError(f"problem id {min(dup)} given twice")
    return out


def parse_problem_range(text: str) -> list[int]:
    """``0-24``, ``1,3,5-7`` -> problem numbers (one-line error otherwise)."""
    out = []
    for part in text.split(","):
        a, dash, b = part.partition("-")
        try:
            lo, hi = int(a), int(b if dash else a)
        except ValueError:
            raise PuzzleInputError(f"--problems {text!r}: expected numbers and ranges like 0-24 or 1,3,5-7") \
                from None
        for i in (lo, hi):
            if not 0 <= i <= 24:
                raise PuzzleInputError(f"--problems {text!r}: no qualifier problem {i} (0..24)")
        if hi < lo:
            raise PuzzleInputError(f"--problems {text!r}: the range {part.strip()} is empty (write {hi}-{lo})")
        out.extend(range(lo, hi + 1))
    return list(dict.fromkeys(out))


def problem_doc(problem: Problem) -> dict:
    """The official JSON object of a problem (``parse_problem(problem_doc(p)) == p``): how a problem that has no
    file travels to a cluster worker."""
    return {"id": problem.id, "width": problem.width, "height": problem.height,
            "filled": [{"x": x, "y": y} for x, y in sorted(problem.filled)], "sourceLength": problem.source_length,
            "sourceSeeds": list(problem.source_seeds), "units": [dict(u) for u in problem.raw_units]}


def problem_from(spec: str | dict) -> Problem:
    """One problem from what names it on a worker: a file path, a qualifier number, or its JSON object."""
    if isinstance(spec, dict):
        return parse_problem(spec)
    [problem] = resolve_problems([spec])
    return problem
