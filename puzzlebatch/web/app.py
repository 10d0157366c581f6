"""The FastAPI application: routes by area, one-line JSON errors, request limits, the static front end."""

from __future__ import annotations

import json
import logging
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from puzzlebatch import __version__
from puzzlebatch.errors import BackendUnavailableError, PuzzleInputError
from puzzlebatch.web import limits
from puzzlebatch.web.jobs import JobManager, JobRefused
from puzzlebatch.web.paths import NotFound, PathRefused

log = logging.getLogger("puzzlebatch.web")
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")


def static_dir() -> Path:
    """The front end shipped inside the package."""
    return Path(str(resources.files("puzzlebatch.web") / "static"))


def error(status: int, message: str) -> JSONResponse:
    """The API's error body: ``{"error": "<one line>"}``."""
    line = " ".join(str(message).split("\n")[0].split()) or "error"
    return JSONResponse({"error": line}, status_code=status)


class _TooLarge(Exception):
    pass


class GuardMiddleware:
    """Refuse requests for another host name (DNS rebinding) and bodies over ``limits.MAX_BODY_BYTES``, with a
    one-line JSON error; add security headers to every response."""

    HEADERS = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
               (b"referrer-policy", b"no-referrer"),
               (b"content-security-policy", b"default-src 'self'; img-src 'self' data: blob:; "
                                            b"style-src 'self' 'unsafe-inline'; object-src 'none'; "
                                            b"frame-ancestors 'none'")]

    def __init__(self, app, allowed_hosts: tuple[str, ...] | None, max_body: int):
        self.app = app
        self.allowed = None if allowed_hosts is None else {h.lower() for h in allowed_hosts}
        self.max_body = max_body

    async def _reply(self, send, status: int, message: str) -> None:
        body = json.dumps({"error": message}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())] + self.HEADERS})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1").lower()
        name = host.rsplit(":", 1)[0] if not host.startswith("[") else host.split("]")[0] + "]"
        if self.allowed is not None and name not in self.allowed:
            return await self._reply(send, 400, f"host {host!r} is not served here (use {sorted(self.allowed)[0]})")
        length = headers.get(b"content-length")
        if length is not None:
            try:
                n = int(length)
            except ValueError:
                return await self._reply(send, 400, "content-length is not a number")
            if n > self.max_body:
                return await self._reply(send, 413, f"request body of {n:,} bytes is over the "
                                                    f"{self.max_body:,}-byte limit")
        seen = 0
        started = False

        async def limited_receive():
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.max_body:
                    raise _TooLarge()
            return msg

        async def send_with_headers(msg):
            nonlocal started
            if msg["type"] == "http.response.start":
                started = True
                msg = dict(msg, headers=list(msg.get("headers", [])) + self.HEADERS)
            await send(msg)

        try:
            await self.app(scope, limited_receive, send_with_headers)
        except _TooLarge:
            if not started:
                await self._reply(send, 413, f"request body is over the {self.max_body:,}-byte limit")


def _validation_message(exc: RequestValidationError) -> tuple[int, str]:
    errs = exc.errors()
    if not errs:
        return 422, "invalid request"
    e = errs[0]
    if e.get("type") == "json_invalid":
        detail = (e.get("ctx") or {}).get("error", "")
        return 400, f"invalid JSON: {detail}".rstrip(": ")
    loc = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
    msg = e.get("msg", "invalid value")
    more = f" (and {len(errs) - 1} more)" if len(errs) > 1 else ""
    return 422, f"{loc or 'body'}: {msg}{more}"


def create_app(results_dir: str | Path = "results", *, jobs: JobManager | None = None, workers: int = 1,
               warm: tuple[str, ...] = ("polyomino",), allowed_hosts: tuple[str, ...] | None = LOCAL_HOSTS
               ) -> FastAPI:
    """Build the web app.

    Parameters
    ----------
    results_dir
        The folder the results browser serves (and where kept solves are written); nothing outside it is read.
    jobs
        A running :class:`~puzzlebatch.web.jobs.JobManager` to share (its owner closes it); by default the app
        starts its own with ``workers`` worker processes warming ``warm`` and closes it on shutdown.
    allowed_hosts
        Host names a request may address (others get 400, against DNS rebinding); None allows any.
    """
    from puzzlebatch.web.api import hextris, jobs as jobs_api, polyomino, results, sliding

    results_dir = Path(results_dir)
    owned = jobs is None
    manager = jobs or JobManager(workers, warm, results_dir)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if owned:
            manager.start()
        yield
        if owned:
            manager.close()

    app = FastAPI(title="puzzlebatch", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Build and solve puzzle levels, replay hex Tetris games, solve sliding puzzles and "
                              "browse results files. Long work runs as jobs: start one, follow "
                              "`/api/jobs/{id}/events` (server-sent events), read `/api/jobs/{id}`. Errors are "
                              '`{"error": "<one line>"}`.')
    app.state.results_dir = results_dir
    app.state.jobs = manager
    static = static_dir()
    app.add_middleware(GuardMiddleware, allowed_hosts=allowed_hosts, max_body=limits.MAX_BODY_BYTES)

    @app.exception_handler(PathRefused)
    async def _refused(request: Request, exc: PathRefused):
        return error(403, str(exc))

    @app.exception_handler(NotFound)
    async def _not_found(request: Request, exc: NotFound):
        return error(404, str(exc))

    @app.exception_handler(PuzzleInputError)
    async def _bad_input(request: Request, exc: PuzzleInputError):
        return error(400, str(exc))

    @app.exception_handler(BackendUnavailableError)
    async def _backend(request: Request, exc: BackendUnavailableError):
        return error(400, str(exc))

    @app.exception_handler(JobRefused)
    async def _job_refused(request: Request, exc: JobRefused):
        return error(exc.status, str(exc))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return error(*_validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        detail = exc.detail if exc.status_code != 404 or exc.detail != "Not Found" else \
            f"not found: {request.url.path}"
        return error(exc.status_code, str(detail))

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception):
        log.exception("internal error on %s", request.url.path)
        return error(500, f"internal error: {type(exc).__name__}: {exc}")

    @app.get("/api/health", tags=["server"], summary="The server is up")
    def health() -> dict:
        return {"status": "ok", "version": __version__}

    @app.get("/api/limits", tags=["server"], summary="The sizes the server accepts (the page checks them first)")
    def page_limits() -> dict:
        return limits.page_limits()

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon():
        return FileResponse(static / "favicon.svg", media_type="image/svg+xml")

    for module in (polyomino, hextris, sliding, results, jobs_api):
        app.include_router(module.router)

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(static / "index.html", headers={"cache-control": "no-cache"})

    app.mount("/static", StaticFiles(directory=static), name="static")
    return app
