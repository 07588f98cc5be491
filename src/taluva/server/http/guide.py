"""How to play: the guide of ``taluva.learn`` for the web client's page, its sections with
their words and pictures (``GET /api/guide``) and each picture as SVG, drawn by the project's
renderer from a position the engine replayed (``GET /api/guide/pictures/{id}.svg``).

The guide never changes while the server runs: both answers are made once (in a worker
thread, the first time they are asked for), carry an ETag, and may be cached by browsers;
the picture addresses the guide lists carry its digest, so a new guide gets new addresses.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Final

from fastapi import APIRouter, Request, Response

from taluva.learn.guide import GuideError, load_guide
from taluva.server.errors import ApiError

router = APIRouter()

GUIDE_MAX_AGE: Final = 3600
"""Seconds a browser may keep ``/api/guide`` before asking again (with its ETag)."""
PICTURE_MAX_AGE: Final = 86400
"""Seconds a browser may keep a picture; its address changes with the guide."""


@cache
def guide_answer() -> tuple[bytes, str]:
    """The guide as the page reads it (JSON, each picture with its ``svg`` address) and its
    ETag, made once."""
    guide = load_guide()
    digest = guide.digest()
    data = guide.to_json()
    for section in data["sections"]:
        for picture in section["pictures"]:
            picture["svg"] = f"/api/guide/pictures/{picture['id']}.svg?v={digest}"
    data["version"] = digest
    return json.dumps(data, separators=(",", ":")).encode("utf-8"), f'"{digest}"'


def _cached(request: Request, body: bytes, etag: str, media: str, max_age: int) -> Response:
    """The answer, or 304 when the browser's copy (``If-None-Match``) is this one."""
    headers = {"etag": etag, "cache-control": f"public, max-age={max_age}"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media, headers=headers)


@router.get(
    "/api/guide",
    summary="How to play: every section of the rules, with its words and pictures",
    response_description="The sections in reading order, the section of each kind of move, "
    "and the guide's version",
)
def guide(request: Request) -> Response:
    body, etag = guide_answer()
    return _cached(request, body, etag, "application/json", GUIDE_MAX_AGE)


@router.get(
    "/api/guide/pictures/{picture_id}.svg",
    summary="One picture of the guide, as SVG",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}}},
)
def picture(request: Request, picture_id: str) -> Response:
    try:
        found = load_guide().picture(picture_id)
    except GuideError:
        raise ApiError(
            404, "not-found", f"the guide has no picture {picture_id!r} (GET /api/guide lists them)"
        ) from None
    _, etag = guide_answer()
    svg = found.draw().svg.encode("utf-8")
    return _cached(request, svg, etag, "image/svg+xml", PICTURE_MAX_AGE)
