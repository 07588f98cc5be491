"""The server's log lines: as text (the default) or, with ``taluva serve --log-format json``,
one JSON object a line for a log collector, carrying the game and the request it concerns.

The request guard (``http.guard``) sets ``REQUEST`` and ``GAME`` for each request and
WebSocket, and every line logged while answering it (uvicorn's access line included) names
them; a line may also name its game with ``extra={"game": ...}``.
"""

from __future__ import annotations

import json
import logging
import re
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Final

FORMATS: Final = ("text", "json")
"""The values of ``--log-format``."""
TEXT_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s"

REQUEST: ContextVar[str | None] = ContextVar("taluva_request", default=None)
"""The id of the request or WebSocket being answered (also sent as ``X-Request-Id``)."""
GAME: ContextVar[str | None] = ContextVar("taluva_game", default=None)
"""The game named in the path of the request or WebSocket being answered."""

GAME_PATH = re.compile(r"^/(?:api|ws)/games/([A-Za-z0-9_-]{1,16})(?:/|$)")
"""A path about one game, and its id."""

ACCESS_FIELDS: Final = ("client", "method", "path", "http", "status")
"""What uvicorn's access line gives as its arguments, in order."""


def game_of_path(path: str) -> str | None:
    """The game id of a path about one game.

    >>> game_of_path("/api/games/Xc3_9aQe/moves"), game_of_path("/api/games")
    ('Xc3_9aQe', None)
    """
    match = GAME_PATH.match(path)
    return match.group(1) if match else None


class JsonFormatter(logging.Formatter):
    """One log record as one line of JSON: ``time`` (ISO 8601, UTC), ``level``, ``logger``,
    ``message``, ``game`` and ``request`` when known, ``error`` (the traceback) when there
    is one, and the method, path and status of an access line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        game = getattr(record, "game", None) or GAME.get()
        if game is not None:
            entry["game"] = game
        request = getattr(record, "request", None) or REQUEST.get()
        if request is not None:
            entry["request"] = request
        args = record.args
        if record.name == "uvicorn.access" and isinstance(args, tuple) and len(args) == 5:
            entry.update(zip(ACCESS_FIELDS, args, strict=True))
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["error"] = record.exc_text
        return json.dumps(entry, ensure_ascii=False, default=str)


def configure(log_format: str, level: int) -> None:
    """Send every logger's lines (uvicorn's too, once it is told not to configure its own)
    to standard error in ``log_format``, from ``level`` up."""
    if log_format not in FORMATS:
        raise ValueError(f"log format {log_format!r} is not one of {', '.join(FORMATS)}")
    handler = logging.StreamHandler()
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=level, handlers=[handler], force=True)
