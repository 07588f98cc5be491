"""The FastAPI application: it only assembles the routers of each concern, the error answers,
the client's files and the request guard around the site's shared parts.

Every route goes through ``GameService``; errors leave as ``{"error": {"code", "message"}}``
with a meaningful status. Each request speaks the language ``http.language`` chooses, and
every JSON answer says its words in it. The OpenAPI description is at ``/docs`` and
``/openapi.json``; ``docs/server-api.md`` describes the messages in prose.
"""

from __future__ import annotations

from fastapi import FastAPI

import taluva
from taluva.server.config import Settings
from taluva.server.games.service import GameService
from taluva.server.http import (
    accounts,
    challenges,
    chat,
    errors,
    games,
    guide,
    health,
    inbox,
    language,
    learn,
    lobby,
    mail,
    pages,
    push,
    puzzles,
    rematch,
    reviews,
    scrape,
    seeks,
    ws,
)
from taluva.server.http.guard import GuardMiddleware
from taluva.server.http.language import LanguageMiddleware, SpokenJSONResponse
from taluva.server.http.site import Site
from taluva.server.limits import TrustedProxies

ROUTERS = (
    health.router,
    scrape.router,
    lobby.router,
    games.router,
    chat.router,
    rematch.router,
    reviews.router,
    accounts.router,
    language.router,
    mail.router,
    push.router,
    seeks.router,
    challenges.router,
    inbox.router,
    guide.router,
    learn.router,
    puzzles.router,
    ws.router,
    pages.router,
)
"""Each concern's routes, in the order they are matched."""


def create_app(settings: Settings | None = None, service: GameService | None = None) -> FastAPI:
    """The whole server as an ASGI application (run it with uvicorn, or test it in-process)."""
    settings = settings or Settings()
    service = service or GameService(settings)
    site = Site.build(settings, service)
    app = FastAPI(
        title="Taluva server",
        version=taluva.__version__,
        description="Lobby, games, moves and replays of Taluva. Real-time play goes through "
        "the WebSocket `/ws/games/{id}`, described in docs/server-api.md.",
        lifespan=site.lifespan,
        default_response_class=SpokenJSONResponse,
    )
    app.state.site = site
    app.state.service = service
    app.state.accounts = site.accounts
    errors.install(app)
    for router in ROUTERS:
        app.include_router(router)
    pages.mount_static(app)
    app.add_middleware(
        GuardMiddleware,
        limits=settings.limits,
        proxies=TrustedProxies(settings.forwarded_allow_ips),
    )
    # outermost: the guard's own refusals, the routes and the error answers speak its choice
    app.add_middleware(LanguageMiddleware)
    return app
