"""The browser client: its page at ``/`` and its files under ``/static``."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from taluva.server import web

router = APIRouter()


@router.get("/", include_in_schema=False)
async def index() -> FileResponse:
    return FileResponse(web.STATIC / "index.html", headers={"cache-control": "no-cache"})


def mount_static(app: FastAPI) -> None:
    """Serve the client's files (``taluva.server.web.STATIC``, read when the app is made)."""
    app.mount("/static", StaticFiles(directory=web.STATIC), name="static")
