"""``/api/jobs``: follow, read and cancel long work."""

from __future__ import annotations

import asyncio
import json

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

from puzzlebatch.web.api.common import ERRORS, ErrorOut, JobOut, client_id
from puzzlebatch.web.jobs import TERMINAL
from puzzlebatch.web.paths import NotFound

router = APIRouter(prefix="/api", tags=["jobs"])
NOT_FOUND = {404: {"model": ErrorOut, "description": "no such job (finished jobs are kept for a while)"}}


def _job(request: Request, job_id: str, with_result: bool = True) -> dict:
    job = request.app.state.jobs.get(job_id, with_result)
    if job is None:
        raise NotFound(f"job {job_id}: no such job")
    return job


@router.get("/jobs", summary="This client's jobs")
def list_jobs(request: Request) -> dict:
    return {"jobs": request.app.state.jobs.jobs_of(client_id(request))}


@router.get("/jobs/{job_id}", response_model=JobOut, responses=NOT_FOUND, summary="A job, with its result once done")
def get_job(job_id: str, request: Request) -> dict:
    return _job(request, job_id)


@router.delete("/jobs/{job_id}", response_model=JobOut, responses=NOT_FOUND,
               summary="Cancel a job: the search stops (its worker process is stopped if it does not)")
def cancel_job(job_id: str, request: Request) -> dict:
    job = request.app.state.jobs.cancel(job_id)
    if job is None:
        raise NotFound(f"job {job_id}: no such job")
    return job


@router.get("/jobs/{job_id}/events", responses=NOT_FOUND | ERRORS,
            summary="Server-sent events: the job's record (without its result) at every change, until it ends",
            response_class=StreamingResponse)
async def job_events(job_id: str, request: Request):
    manager = request.app.state.jobs
    _job(request, job_id, False)

    async def stream():
        seen, idle = None, 0.0
        while True:
            version = manager.version(job_id)
            if version is None:
                return
            if version != seen:
                seen = version
                job = manager.get(job_id, False)
                yield f"data: {json.dumps(job)}\n\n"
                if job["status"] in TERMINAL:
                    return
                idle = 0.0
            elif idle > 15.0:
                yield ": keep-alive\n\n"
                idle = 0.0
            if await request.is_disconnected():
                return
            await asyncio.sleep(0.05)
            idle += 0.05

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"cache-control": "no-cache", "x-accel-buffering": "no"})


@router.get("/workers", tags=["server"], summary="The worker processes and what they do")
def workers(request: Request) -> dict:
    return {"workers": request.app.state.jobs.workers()}
