"""Play Taluva in the browser: the game server, its lobby, storage, AI seats and web client.

``create_app(settings)`` builds the FastAPI application; ``taluva serve`` runs it with uvicorn.
The server is the authority: it checks who asks, checks the move with the engine, stores it,
and only then tells every connected client. The names below are loaded on first use, so
that importing ``taluva.server.config`` (every ``taluva`` command does) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from taluva.server.config import Limits, Settings
    from taluva.server.http.app import create_app

__all__ = ["Limits", "Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from taluva.server.http.app import create_app

        return create_app
    if name in ("Limits", "Settings"):
        from taluva.server import config

        return getattr(config, name)
    raise AttributeError(f"module 'taluva.server' has no attribute {name!r}")
