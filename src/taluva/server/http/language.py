"""The language of each request and WebSocket, and the routes that say it.

The choice, first that names a shipped language (``taluva.lang.LANGUAGES``): the query's
``?lang=CODE`` (for links and tests), the signed-in account's setting, the ``taluva-lang``
cookie the client's language switch sets, ``Accept-Language``, else English. A pure ASGI
middleware makes the choice and speaks it (``taluva.lang.use``) around the whole request or
socket, so that the routes, their dependencies and the error answers all see it; every JSON
answer then says its ``Text`` objects in it (pydantic, which writes the answers checked
against a route's return type, through the serializer given to ``Text`` here; the others
through ``SpokenJSONResponse``), and each socket its own messages (``http.ws``).
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request, Response
from pydantic import Field
from pydantic_core import SchemaSerializer, core_schema
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse

from taluva.engine.wording import T, Text
from taluva.lang import LANGUAGES, current, from_accept_language, pick, say, speak, use
from taluva.lang.catalogs import client_catalog
from taluva.lang.choice import shipped
from taluva.server.errors import ApiError
from taluva.server.http.deps import signed_in
from taluva.server.http.guard import ASGIApp, Receive, Scope, Send, header
from taluva.server.http.messages import Strict
from taluva.server.players.accounts import SESSION_COOKIE, account_of
from taluva.server.wire import spoken

LANGUAGE_COOKIE = "taluva-lang"
"""The cookie the client's language switch sets (``web/static/js/i18n.js``)."""
QUERY = "lang"
"""The query parameter that chooses a request's language above everything else."""
SCOPE_KEY = "taluva.lang"
"""Where the middleware leaves the language it chose in the ASGI scope (the error handlers
of the outermost layer run after it has stopped speaking)."""
ACCOUNT_PATHS = ("/api/", "/ws/")
"""The paths whose answers may hold words: only there is the account looked up for its
language (the client's files and the probes never wait for the database)."""


def choose(query: str | None, account: str | None, cookie: str | None, accept: str | None) -> str:
    """The language of a request from what it says, in that order of precedence.

    >>> choose(None, None, "fr", "de-DE,de;q=0.9"), choose("xx", None, None, "de")
    ('fr', 'de')
    """
    return pick(query, account, cookie, from_accept_language(accept))


def query_language(scope: Scope) -> str | None:
    """The ``lang`` of the query string, if it names a shipped language."""
    raw = scope.get("query_string") or b""
    if b"lang=" not in raw:
        return None
    values = parse_qs(raw.decode("latin-1")).get(QUERY)
    return shipped(values[0]) if values else None


async def language_of(scope: Scope) -> str:
    """The language a request or WebSocket asks for (see the module's order)."""
    query = query_language(scope)
    if query is not None:
        return query
    connection = HTTPConnection(scope)
    account_language = None
    if connection.cookies.get(SESSION_COOKIE) and scope["path"].startswith(ACCOUNT_PATHS):
        try:
            account = await account_of(connection)
        except Exception:  # a database outage: the route says so, the words need not wait
            account = None
        account_language = None if account is None else account.language
    accept = header(scope, b"accept-language")
    return choose(None, account_language, connection.cookies.get(LANGUAGE_COOKIE), accept)


def scope_language(connection: HTTPConnection) -> str:
    """The language the middleware chose for this request or socket (English outside it)."""
    chosen = connection.scope.get(SCOPE_KEY)
    return chosen if isinstance(chosen, str) else current()


class LanguageMiddleware:
    """Chooses each request's and socket's language and speaks it while it is answered."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        lang = await language_of(scope)
        scope[SCOPE_KEY] = lang
        with use(lang):
            await self.app(scope, receive, send)


class SpokenJSONResponse(JSONResponse):
    """The JSON answer of the routes whose answer pydantic does not write (no return type):
    its Texts said in the request's language (English exactly as ``JSONResponse`` writes it)."""

    def render(self, content: Any) -> bytes:
        return super().render(spoken(content, current()))


def _said_by_pydantic(text: Text) -> str:
    """A Text as pydantic writes it into an answer: in the language being spoken."""
    return say(text)


# FastAPI writes a route's answer with pydantic (checked against the route's return type),
# which would write a Text as the plain English ``str`` it is: a serializer of its own makes
# pydantic say it in the language being spoken (the request's). English stays byte for byte.
Text.__pydantic_serializer__ = SchemaSerializer(  # type: ignore[attr-defined]
    core_schema.any_schema(
        serialization=core_schema.plain_serializer_function_ser_schema(_said_by_pydantic)
    )
)


def speak_now(connection: HTTPConnection, lang: str) -> None:
    """Speak ``lang`` for the rest of this request (the account just chose it)."""
    connection.scope[SCOPE_KEY] = lang
    speak(lang)


def languages_json() -> dict[str, str]:
    """The shipped languages, by code, each named in itself (the language switch's choices)."""
    return dict(LANGUAGES)


class LanguageBody(Strict):
    """The account's language: a code of ``GET /api/config``'s ``languages``, or null for
    none (then the browser's choice)."""

    language: Annotated[str, Field(max_length=16)] | None


router = APIRouter(tags=["language"])


@router.get(
    "/api/i18n",
    summary="The web client's words in the request's language, and the languages shipped",
)
async def i18n(request: Request, response: Response) -> dict[str, Any]:
    lang = scope_language(request)
    catalog = client_catalog(lang)
    response.headers["vary"] = "Cookie, Accept-Language"
    response.headers["cache-control"] = "no-cache"
    return {"lang": lang, "languages": languages_json(), "messages": catalog["messages"]}


@router.put(
    "/api/account/language",
    summary="Choose the signed-in account's language (null: the browser's choice)",
)
async def set_language(body: LanguageBody, request: Request) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to change your account"))
    code = body.language
    if code is not None and code not in LANGUAGES:
        raise ApiError(
            422,
            "bad-request",
            T(
                "language must be one of {languages}, or null, not {given}",
                languages=", ".join(LANGUAGES),
                given=repr(code),
            ),
        )
    site = request.app.state.site
    await site.service.db(site.accounts.set_language, account.id, code)
    if code is not None:
        speak_now(request, code)
    else:
        speak_now(request, await language_of(_without_account(request.scope)))
    return {"account": {**account.to_json(), "language": code}}


def _without_account(scope: Scope) -> Scope:
    """The scope of this request as if no account had chosen a language (its session cookie
    left out), for the language it now speaks."""
    headers = [(k, v) for k, v in scope.get("headers") or [] if k.lower() != b"cookie"]
    cookie = HTTPConnection(scope).cookies.get(LANGUAGE_COOKIE)
    if cookie:
        headers.append((b"cookie", f"{LANGUAGE_COOKIE}={cookie}".encode("latin-1")))
    return {**scope, "headers": headers}
