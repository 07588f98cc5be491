"""How to play: the guide of ``taluva.learn`` for the web client's page, its sections with
their words and pictures (``GET /api/guide``): each picture's position as the client's board
reads a game's (``board_view``), which the page draws on its own 3D board, and the same
picture as SVG, drawn by the project's renderer (``GET /api/guide/pictures/{id}.svg``), which
the page shows if its board cannot draw.

The guide never changes while the server runs: both answers are made once (the guide once
for each language, in a worker thread, the first time they are asked for), carry an ETag,
and may be cached by browsers; the picture addresses the guide lists carry its digest, so a
new guide gets new addresses. The guide's words are in the request's language
(``http.language``); the pictures have none, so they are the same in every language.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Final

from fastapi import APIRouter, Request, Response

from taluva.engine.wording import T
from taluva.lang import DEFAULT
from taluva.learn.guide import GuideError, load_guide
from taluva.render import drawing_rules
from taluva.server.errors import ApiError
from taluva.server.games.view import board_view, zone_view
from taluva.server.http.language import scope_language
from taluva.server.wire import spoken

router = APIRouter()

GUIDE_MAX_AGE: Final = 3600
"""Seconds a browser may keep ``/api/guide`` before asking again (with its ETag)."""
PICTURE_MAX_AGE: Final = 86400
"""Seconds a browser may keep a picture; its address changes with the guide."""


@cache
def guide_digest() -> str:
    """The guide's digest (made once): the version in the picture addresses and the ETag of
    each picture."""
    return load_guide(DEFAULT).digest()


@cache
def guide_answer(lang: str = DEFAULT) -> tuple[bytes, str]:
    """The guide as the page reads it in ``lang`` (JSON, each picture with its position for
    the board, ``board``, and its ``svg`` address; the drawing rules, ``style``) and its
    ETag, made once for each language."""
    guide = load_guide(lang)
    digest = guide_digest()
    data = guide.to_json()
    for section in data["sections"]:
        for picture in section["pictures"]:
            game = guide.picture(picture["id"]).draw().game
            picture["board"] = {**board_view(game), "zone": zone_view(game.zone)}
            picture["svg"] = f"/api/guide/pictures/{picture['id']}.svg?v={digest}"
    data["version"] = digest
    data["lang"] = lang
    data["style"] = drawing_rules()
    # written here, not by the route's JSON response: the words the views hold are said now
    body = json.dumps(spoken(data, lang), separators=(",", ":")).encode("utf-8")
    # The board's data comes from the server's view as well as the guide: the ETag is the
    # answer's own, so a change to either reaches browsers.
    return body, f'"{hashlib.sha256(body).hexdigest()[:16]}"'


def _cached(
    request: Request, body: bytes, etag: str, media: str, max_age: int, vary: str | None = None
) -> Response:
    """The answer, or 304 when the browser's copy (``If-None-Match``) is this one; ``vary``
    names the request headers the answer depends on (its language)."""
    headers = {"etag": etag, "cache-control": f"public, max-age={max_age}"}
    if vary is not None:
        headers["vary"] = vary
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
    body, etag = guide_answer(scope_language(request))
    vary = "Cookie, Accept-Language"
    return _cached(request, body, etag, "application/json", GUIDE_MAX_AGE, vary)


@router.get(
    "/api/guide/pictures/{picture_id}.svg",
    summary="One picture of the guide, as SVG",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}}},
)
def picture(request: Request, picture_id: str) -> Response:
    try:
        found = load_guide(DEFAULT).picture(picture_id)
    except GuideError:
        message = T("the guide has no picture {picture} (GET /api/guide lists them)",
                    picture=repr(picture_id))  # fmt: skip
        raise ApiError(404, "not-found", message) from None
    svg = found.draw().svg.encode("utf-8")
    return _cached(request, svg, f'"{guide_digest()}"', "image/svg+xml", PICTURE_MAX_AGE)
