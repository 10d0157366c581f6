"""``/api/hextris``: the qualifier problems and the replay job."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from puzzlebatch.errors import PuzzleInputError
from puzzlebatch.web import hextris as W
from puzzlebatch.web import limits
from puzzlebatch.web.api.common import ERRORS, JOB_ERRORS, JobOut, start_job

router = APIRouter(prefix="/api/hextris", tags=["hex Tetris"])


class ReplayIn(BaseModel):
    """What to replay: a problem, a seed, and the commands from a shipped reference solution, from text (raw
    commands or an official solutions JSON document), or from a results file's stored game."""

    model_config = ConfigDict(extra="forbid")
    problem: int | dict = Field(24, description="a qualifier number 0..24, or a problem JSON object")
    seed: int | None = Field(None, description="default: the problem's first seed")
    source: Literal["reference", "text", "results"] = "reference"
    solution: str | None = Field(None, max_length=limits.MAX_SOLUTION_CHARS)
    path: str | None = Field(None, max_length=1024, description="source results: the file")
    run: str | None = Field(None, max_length=200)
    row: int | None = Field(None, ge=0)


@router.get("/problems", summary="The 25 qualifier problems")
def problems() -> dict:
    return {"problems": W.problem_list()}


@router.get("/problems/{problem_id}", responses=ERRORS, summary="One qualifier problem's board and units")
def problem(problem_id: int) -> dict:
    p = W.problem_of({"problem": problem_id})
    return {"id": p.id, "width": p.width, "height": p.height, "seeds": list(p.source_seeds),
            "source_length": p.source_length, "filled": sorted([x, y] for x, y in p.filled),
            "units": W.unit_turns(p)}


@router.post("/replay", status_code=202, response_model=JobOut, responses=JOB_ERRORS,
             summary="Job: replay a game with the exact model; the record the page animates")
def replay(body: ReplayIn, request: Request):
    spec = body.model_dump()
    if spec["source"] == "results":
        from puzzlebatch.web.results import stored_solution

        if spec["path"] is None or spec["run"] is None or spec["row"] is None:
            raise PuzzleInputError("source results: give path, run and row")
        stored = stored_solution(request.app.state.results_dir, spec["path"], spec["run"], spec["row"], "hextris")
        spec |= {"problem": stored["problemId"], "seed": stored["seed"], "solution": stored["solution"]}
    problem = W.problem_of(spec)
    if spec["seed"] is None:
        spec["seed"] = problem.source_seeds[0]
    if spec["seed"] not in problem.source_seeds:
        raise PuzzleInputError(f"--seed {spec['seed']}: not a seed of problem {problem.id} "
                               f"({', '.join(map(str, problem.source_seeds))})")
    text, _ = W.solution_text(spec, problem, spec["seed"])  # a missing entry or bad JSON fails before the job
    W.check_replay(problem, text)  # so does a replay that would not fit in the worker's memory
    return start_job(request, "hextris.replay", spec)
