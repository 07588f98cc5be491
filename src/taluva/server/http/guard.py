"""The gate every request passes before a route sees it (an ASGI middleware).

It settles which address the request counts as (``X-Forwarded-For`` only from a trusted
proxy), reads the whole body and refuses it unless it is JSON within the limits (size,
nesting, ``Content-Type: application/json``), and adds the security headers to every answer.
Refusals are the API's own error bodies. It also names the request (``X-Request-Id``) and
its game for the log lines written while it is answered (``taluva.server.logs``).
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.responses import JSONResponse

from taluva.engine.wording import T
from taluva.server.config import Limits
from taluva.server.errors import ApiError
from taluva.server.http.messages import parse_json
from taluva.server.limits import TrustedProxies
from taluva.server.logs import GAME, REQUEST, game_of_path

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)


def header(scope: Scope, name: bytes) -> str | None:
    """A request header as text (repeated headers joined by commas), None when absent."""
    values = [value for key, value in scope.get("headers") or [] if key.lower() == name]
    if not values:
        return None
    return ", ".join(value.decode("latin-1") for value in values)


UNSUBSCRIBE_PATH = "/api/mail/unsubscribe"
"""The one route that takes a body other than JSON: the one-click unsubscribe a mail client
posts (RFC 8058), always the form ``ONE_CLICK``."""
ONE_CLICK = b"List-Unsubscribe=One-Click"


def is_json(content_type: str | None) -> bool:
    """Whether a Content-Type names JSON (``application/json``, or ``application/*+json``).

    >>> is_json("application/json; charset=utf-8"), is_json("text/plain"), is_json(None)
    (True, False, False)
    """
    if content_type is None:
        return False
    media = content_type.split(";")[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


class GuardMiddleware:
    """Client address, body checks and security headers for the whole application."""

    def __init__(self, app: ASGIApp, limits: Limits, proxies: TrustedProxies) -> None:
        self.app = app
        self.limits = limits
        self.proxies = proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        peer, port = scope.get("client") or ("unknown", 0)
        scope["client"] = (self.proxies.client(peer, header(scope, b"x-forwarded-for")), port)
        request_id = secrets.token_hex(6)
        # set in this request's own task: whatever it logs (and starts) names them
        REQUEST.set(request_id)
        GAME.set(game_of_path(scope["path"]))
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        strict = not scope["path"].startswith(("/docs", "/redoc"))

        async def secured_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = [
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"x-request-id", request_id.encode()),
                ]
                if strict:
                    extra.append((b"content-security-policy", CONTENT_SECURITY_POLICY.encode()))
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        try:
            body = await self._read_body(scope, receive)
        except ApiError as error:
            response = JSONResponse(error.body(), error.status, headers=error.headers())
            await response(scope, receive, secured_send)
            return
        if body is None:  # the client left while sending
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, secured_send)

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes | None:
        """The whole body, checked; None if the client disconnected; ApiError if refused."""
        limit = self.limits.http_body_bytes
        too_large = ApiError(
            413, "too-large", T("a request body is limited to {limit} bytes", limit=limit)
        )
        length = header(scope, b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            raise too_large
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise too_large
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body == ONE_CLICK and scope["path"] == UNSUBSCRIBE_PATH:
            return body  # a mail client's RFC 8058 unsubscribe: a form, not JSON
        if body:
            if not is_json(header(scope, b"content-type")):
                raise ApiError(
                    415,
                    "bad-content-type",
                    T("a request body must be JSON ({type})", type="application/json"),
                )
            parse_json(body, limit, self.limits.json_depth)
        return body
