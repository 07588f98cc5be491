"""The one error type of the HTTP and WebSocket API: a status, a stable code, a sentence.

The sentence may be a ``Text`` (``taluva.engine.wording``): it is said in the reader's
language when the error is written (``body``, ``message_for_socket``), English by default.
"""

from __future__ import annotations

import math
from typing import Any

from taluva.engine.wording import T
from taluva.lang import say


class ApiError(Exception):
    """A request the server refuses; ``code`` is stable for programs, ``message`` for people
    (a ``Text`` to be said in each reader's language, or plain words).

    ``retry_after`` (seconds) goes out as the ``Retry-After`` header of a 429.
    """

    def __init__(
        self, status: int, code: str, message: str, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after

    def body(self, lang: str | None = None) -> dict[str, Any]:
        """The JSON body sent over HTTP: ``{"error": {"code": ..., "message": ...}}``, the
        message said in ``lang`` (default: the language of the request being answered)."""
        return {"error": {"code": self.code, "message": say(self.message, lang)}}

    def headers(self) -> dict[str, str]:
        """The HTTP headers that go with the body (``Retry-After`` in whole seconds)."""
        if self.retry_after is None:
            return {}
        return {"retry-after": str(max(1, math.ceil(self.retry_after)))}

    def message_for_socket(self, ref: Any = None) -> dict[str, Any]:
        """The same refusal as a WebSocket ``error`` message, echoing ``ref`` when given (its
        message a Text still: each socket says it in its own language)."""
        return error_message(self.code, self.message, ref)


def error_message(code: str, message: str, ref: Any = None) -> dict[str, Any]:
    """A WebSocket ``error`` message; ``ref`` echoes the ``ref`` of the message it answers."""
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if ref is not None:
        out["ref"] = ref
    return out


def not_found(game_id: str) -> ApiError:
    """There is no game with this id."""
    return ApiError(404, "not-found", T("there is no game {game}", game=repr(game_id)))
