"""``/api/results``: the ``.h5`` files under the served results folder, their runs, items and solutions."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from puzzlebatch.web import limits
from puzzlebatch.web import results as W
from puzzlebatch.web.api.common import ERRORS, ErrorOut
from puzzlebatch.web.paths import list_files

router = APIRouter(prefix="/api/results", tags=["results browser"])
FILE_ERRORS = ERRORS | {403: {"model": ErrorOut, "description": "the path leaves the results folder"},
                        404: {"model": ErrorOut, "description": "no such file, run or row"}}
PathQ = Query(max_length=1024, description="the file, relative to the results folder")


@router.get("/files", summary="The results files (newest first)")
def files(request: Request) -> dict:
    found, cut = list_files(request.app.state.results_dir, limits.MAX_FILES_LISTED)
    return {"files": found, "truncated": cut}


@router.get("/file", responses=FILE_ERRORS, summary="A file's runs (puzzlebatch show FILE --json)")
def file(request: Request, path: str = PathQ) -> dict:
    return W.describe_file(request.app.state.results_dir, path)


@router.get("/items", responses=FILE_ERRORS, summary="A page of a run's items")
def items(request: Request, path: str = PathQ, run: str = Query(max_length=200), offset: int = Query(0, ge=0),
          limit: int = Query(50, ge=1, le=limits.MAX_PAGE_ROWS)) -> dict:
    return W.items_page(request.app.state.results_dir, path, run, offset, limit)


@router.get("/items.csv", responses=FILE_ERRORS, response_class=StreamingResponse,
            summary="A run's items as CSV (arrays as space-separated values)")
def items_csv(request: Request, path: str = PathQ, run: str = Query(max_length=200)):
    rows = W.items_csv(request.app.state.results_dir, path, run)
    name = path.rsplit("/", 1)[-1][:-3] + f"-{run}.csv"
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
    return StreamingResponse(rows, media_type="text/csv",
                             headers={"content-disposition": f'attachment; filename="{safe}"'})


@router.get("/solution", responses=FILE_ERRORS, summary="A stored solution, ready to draw")
def solution(request: Request, path: str = PathQ, run: str = Query(max_length=200),
             row: int = Query(0, ge=0)) -> dict:
    return W.solution(request.app.state.results_dir, path, run, row)
