"""``puzzlebatch serve``: a local web app over the engine.

The level workshop (polyominoes), the hex Tetris replay, sliding puzzles and the results browser, as a JSON API
(FastAPI, documented by OpenAPI at ``/openapi.json``) and a static front end shipped in ``static/`` (plain HTML,
CSS and ES modules: no Node toolchain).  Long work runs in warm worker processes (:mod:`puzzlebatch.web.jobs`).

Needs the ``web`` extra: ``pip install "puzzlebatch[web]"``.  Importing this package does not import FastAPI
(worker processes only need the tasks); :func:`create_app` does.
"""

from __future__ import annotations

__all__ = ["create_app"]


def __getattr__(name: str):
    if name == "create_app":
        from puzzlebatch.web.app import create_app

        return create_app
    raise AttributeError(name)
