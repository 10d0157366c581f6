"""What the routers share: the client's identity, starting jobs, the error model."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from puzzlebatch.web import limits


class ErrorOut(BaseModel):
    """Every error: one line naming the problem and the place."""

    error: str


ERRORS = {400: {"model": ErrorOut, "description": "bad input (the command line's one-line message)"},
          422: {"model": ErrorOut, "description": "a field missing or of the wrong type"}}
JOB_ERRORS = ERRORS | {429: {"model": ErrorOut, "description": "this client already has a job running"},
                       503: {"model": ErrorOut, "description": "the job queue is full"}}


class JobOut(BaseModel):
    """A job's record; ``result`` once ``status`` is ``done``."""

    id: str
    kind: str
    status: str
    phase: str
    progress: dict
    error: str | None = None
    time_limit: float
    seconds: float
    worker: int | None = None
    result: dict | None = None


def client_id(request: Request) -> str:
    """Who asks: the page's ``X-Client-Id`` header (one per browser tab), else the peer address."""
    cid = request.headers.get("x-client-id", "")
    if limits.CLIENT_ID.match(cid):
        return "id:" + cid
    peer = request.client.host if request.client else "unknown"
    return "addr:" + peer


def start_job(request: Request, kind: str, params: dict) -> JSONResponse:
    """Queue a job for this client: 202 and the job's record (see ``/api/jobs/{id}``)."""
    job = request.app.state.jobs.submit(kind, params, client_id(request))
    return JSONResponse(job, status_code=202, headers={"location": f"/api/jobs/{job['id']}"})
