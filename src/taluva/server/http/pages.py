"""The browser client: its page at ``/``, its files under ``/static`` and its service worker
at ``/sw.js`` (at the root, so that it may serve every page of the site)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

from taluva.server import web

router = APIRouter()

WORKER = "sw.js"
"""The service worker's text in the client's folder, served at ``/sw.js`` after its build line."""
VERSION_HEADER = "x-taluva-static"
"""The header of ``/`` that names the version of the client's files (``static_version``): a
service worker of another version knows its cache is old (``sw.js``)."""

_versions: dict[Path, tuple[tuple[tuple[str, int, int], ...], str]] = {}
"""The last version computed for each folder, with the names, sizes and times it was from."""


def static_files(folder: Path) -> list[Path]:
    """The client's files a service worker keeps, by name: all of ``folder`` but the worker
    itself and hidden files."""
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file()
        and path.name != WORKER
        and not any(part.startswith(".") for part in path.relative_to(folder).parts)
    )


def static_version(folder: Path) -> str:
    """A hash of every file of ``folder`` (names and contents, the worker's too): any change
    of the client makes a new one. Computed again only when a file's size or time changed."""
    files = sorted(path for path in folder.rglob("*") if path.is_file())
    stamp = tuple(
        (path.relative_to(folder).as_posix(), stat.st_size, stat.st_mtime_ns)
        for path in files
        for stat in (path.stat(),)
    )
    known = _versions.get(folder)
    if known is not None and known[0] == stamp:
        return known[1]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    version = digest.hexdigest()[:16]
    _versions[folder] = (stamp, version)
    return version


def worker_script(folder: Path) -> str:
    """The service worker: its build line (the version of ``folder`` and the addresses of the
    files to keep) before the text of ``folder``'s ``sw.js``."""
    build = {
        "version": static_version(folder),
        "files": [
            f"/static/{path.relative_to(folder).as_posix()}" for path in static_files(folder)
        ],
    }
    return f"const BUILD = {json.dumps(build)};\n" + (folder / WORKER).read_text(encoding="utf-8")


@router.get("/", include_in_schema=False)
def index() -> FileResponse:
    headers = {"cache-control": "no-cache", VERSION_HEADER: static_version(web.STATIC)}
    return FileResponse(web.STATIC / "index.html", headers=headers)


@router.get("/sw.js", include_in_schema=False)
def service_worker() -> Response:
    return Response(
        worker_script(web.STATIC),
        media_type="text/javascript",
        headers={"cache-control": "no-cache", "service-worker-allowed": "/"},
    )


def mount_static(app: FastAPI) -> None:
    """Serve the client's files (``taluva.server.web.STATIC``, read when the app is made)."""
    app.mount("/static", StaticFiles(directory=web.STATIC), name="static")
