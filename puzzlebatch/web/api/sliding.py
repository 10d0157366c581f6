"""``/api/sliding``: solvability at once, shuffles, and the optimal-solve job."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from puzzlebatch.web import limits
from puzzlebatch.web import sliding as W
from puzzlebatch.web.api.common import ERRORS, JOB_ERRORS, JobOut, start_job

router = APIRouter(prefix="/api/sliding", tags=["sliding puzzles"])
Side = Field(3, ge=limits.SLIDING_MIN_SIDE, le=limits.SLIDING_MAX_SIDE)


class BoardIn(BaseModel):
    """Tiles in row order, 0 the blank."""

    model_config = ConfigDict(extra="forbid")
    rows: int = Side
    cols: int = Side
    tiles: list[int] = Field(max_length=limits.SLIDING_MAX_SIDE ** 2 + 1)
    goal: Literal["blank-last", "blank-first"] = "blank-last"


class SolveIn(BoardIn):
    keep: bool = Field(False, description="store the solution in the results folder")


class ShuffleIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rows: int = Side
    cols: int = Side
    moves: int = Field(40, ge=0, le=limits.MAX_SHUFFLE_MOVES)
    seed: int = Field(0, ge=0, le=limits.MAX_SEED)
    goal: Literal["blank-last", "blank-first"] = "blank-last"


@router.post("/check", responses=ERRORS, summary="Solvable? The parity argument, at once")
def check(body: BoardIn) -> dict:
    return W.check(body.model_dump())


@router.post("/shuffle", responses=ERRORS, summary="A board some random moves from the goal")
def shuffle(body: ShuffleIn) -> dict:
    return W.shuffle(body.model_dump())


@router.post("/solve", status_code=202, response_model=JobOut, responses=JOB_ERRORS,
             summary="Job: an optimal solution (IDA*; pattern databases for 4x4 when built)")
def solve(body: SolveIn, request: Request):
    spec = body.model_dump()
    W.board_of(spec)
    return start_job(request, "sliding.solve", spec)
