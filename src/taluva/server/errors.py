"""The one error type of the HTTP and WebSocket API: a status, a stable code, a sentence."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A request the server refuses; ``code`` is stable for programs, ``message`` for people."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def body(self) -> dict[str, Any]:
        """The JSON body sent over HTTP: ``{"error": {"code": ..., "message": ...}}``."""
        return {"error": {"code": self.code, "message": self.message}}


def not_found(game_id: str) -> ApiError:
    """There is no game with this id."""
    return ApiError(404, "not-found", f"there is no game {game_id!r}")
