"""How to play: the guide of ``taluva.learn`` for the web client's page, its sections with
their words and pictures (``GET /api/guide``): each picture's position as the client's board
reads a game's (``board_view``), which the page draws on its own 3D board, and the same
picture as SVG, drawn by the project's renderer (``GET /api/guide/pictures/{id}.svg``), which
the page shows if its board cannot draw.

The guide never changes while the server runs: both answers are made once (in a worker
thread, the first time they are asked for), carry an ETag, and may be cached by browsers;
the picture addresses the guide lists carry its digest, so a new guide gets new addresses.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Final

from fastapi import APIRouter, Request, Response

from taluva.learn.guide import GuideError, load_guide
from taluva.render import drawing_rules
from taluva.server.errors import ApiError
from taluva.server.games.view import board_view, zone_view

router = APIRouter()

GUIDE_MAX_AGE: Final = 3600
"""Seconds a browser may keep ``/api/guide`` before asking again (with its ETag)."""
PICTURE_MAX_AGE: Final = 86400
"""Seconds a browser may keep a picture; its address changes with the guide."""


@cache
def guide_digest() -> str:
    """The guide's digest (made once): the version in the picture addresses and the ETag of
    each picture."""
    return load_guide().digest()


@cache
def guide_answer() -> tuple[bytes, str]:
    """The guide as the page reads it (JSON, each picture with its position for the board,
    ``board``, and its ``svg`` address; the drawing rules, ``style``) and its ETag, made
    once."""
    guide = load_guide()
    digest = guide_digest()
    data = guide.to_json()
    for section in data["sections"]:
        for picture in section["pictures"]:
            game = guide.picture(picture["id"]).draw().game
            picture["board"] = {**board_view(game), "zone": zone_view(game.zone)}
            picture["svg"] = f"/api/guide/pictures/{picture['id']}.svg?v={digest}"
    data["version"] = digest
    data["style"] = drawing_rules()
    body = json.dumps(data, separators=(",", ":")).encode("utf-8")
    # The board's data comes from the server's view as well as the guide: the ETag is the
    # answer's own, so a change to either reaches browsers.
    return body, f'"{hashlib.sha256(body).hexdigest()[:16]}"'


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
    svg = found.draw().svg.encode("utf-8")
    return _cached(request, svg, f'"{guide_digest()}"', "image/svg+xml", PICTURE_MAX_AGE)
