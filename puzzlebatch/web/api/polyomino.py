"""``/api/polyomino``: piece sets, level checks, import/export, and the solve, count and generate jobs."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from puzzlebatch.web import limits
from puzzlebatch.web import polyomino as W
from puzzlebatch.web.api.common import ERRORS, JOB_ERRORS, JobOut, start_job

router = APIRouter(prefix="/api/polyomino", tags=["level workshop"])

Cell = list[int]


class PieceSpec(BaseModel):
    """The pieces: shipped sets by name (joined by ``+``) or a piece file's text, with the command line's
    options."""

    model_config = ConfigDict(extra="forbid")
    pieces: str = Field("iq-puzzler-pro", max_length=200, description="set names, e.g. pentominoes+tetrominoes")
    pieces_text: str | None = Field(None, max_length=limits.MAX_PIECES_TEXT,
                                    description="a piece file (NAME: then a drawing of # and .), used instead")
    unlimited: bool = False
    copies: int | None = Field(None, ge=1, le=limits.MAX_COPIES)
    mirror: Literal["yes", "no", "default"] = "default"


class Placed(BaseModel):
    model_config = ConfigDict(extra="forbid")
    piece: str = Field(max_length=64)
    cells: list[Cell] = Field(max_length=limits.MAX_BOARD_CELLS)


class Level(PieceSpec):
    """A level: the board size, its holes and the pieces already placed."""

    board: str = Field("11x5", max_length=24, description="WxH or WxHxD")
    holes: list[Cell] = Field(default_factory=list, max_length=limits.MAX_BOARD_CELLS)
    placed: list[Placed] = Field(default_factory=list, max_length=limits.MAX_BOARD_CELLS)


class SolveRequest(Level):
    keep: bool = Field(False, description="store the solution in the results folder, as a results file")


class GenerateRequest(Level):
    pieces_left: int = Field(4, ge=1, le=limits.MAX_PIECES, description="pieces the player places")
    seed: int = Field(0, ge=0, le=limits.MAX_SEED)


class ImportRequest(PieceSpec):
    text: str = Field(max_length=limits.MAX_LEVEL_TEXT, description="a level file: . cells, # holes, letters")


def _spec(body: BaseModel) -> dict:
    return body.model_dump()


@router.get("/sets", summary="The shipped piece sets")
def sets() -> dict:
    from puzzlebatch.puzzles.polyomino.shapes import set_names

    return {"sets": set_names(), "default": "iq-puzzler-pro", "board": "11x5"}


@router.post("/pieces", responses=ERRORS, summary="The pieces of a set, with every allowed orientation")
def pieces(body: PieceSpec) -> dict:
    return W.set_info(_spec(body))


@router.post("/check", responses=ERRORS, summary="Check a level as the command line would (one-line error)")
def check(body: Level) -> dict:
    pk = W.packing(_spec(body))
    free = pk.board.n_cells - sum(len(c) for _, c in pk.preplaced)
    return {"ok": True, "cells": pk.board.n_cells, "free": free, "placed": len(pk.preplaced),
            "options": len(pk.cover.options), "exact_area": pk.exact_area}


@router.post("/export", responses=ERRORS, summary="A level as the command line's level file")
def export(body: Level) -> dict:
    return {"text": W.export_level(_spec(body))}


@router.post("/import", responses=ERRORS, summary="A level file (the command line's format) as a level")
def import_(body: ImportRequest) -> dict:
    spec = _spec(body)
    return W.import_level(spec.pop("text"), spec)


@router.post("/solve", status_code=202, response_model=JobOut, responses=JOB_ERRORS,
             summary="Job: the first solution (polyomino solve)")
def solve(body: SolveRequest, request: Request):
    spec = _spec(body)
    W.packing(spec)  # a bad level fails here, with the command line's message, before any job starts
    return start_job(request, "polyomino.solve", spec)


@router.post("/count", status_code=202, response_model=JobOut, responses=JOB_ERRORS,
             summary="Job: every solution and the distinct ones (polyomino count), with progress")
def count(body: Level, request: Request):
    spec = _spec(body)
    W.packing(spec)
    return start_job(request, "polyomino.count", spec)


@router.post("/generate", status_code=202, response_model=JobOut, responses=JOB_ERRORS,
             summary="Job: a level with one solution (polyomino levels generate)")
def generate(body: GenerateRequest, request: Request):
    spec = _spec(body)
    pk = W.packing(dict(spec, placed=[]))
    if not pk.exact_area:
        from puzzlebatch.errors import PuzzleInputError

        raise PuzzleInputError("levels: the pieces must exactly fill the board (each piece used once)")
    return start_job(request, "polyomino.generate", spec)
