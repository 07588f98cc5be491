"""Player accounts and their sign-in sessions.

Routes and the WebSocket learn who is signed in with ``account_of``; a request without a
valid session cookie is a guest's (None), and guests can still play as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import HTTPConnection

SESSION_COOKIE = "taluva_session"
"""The HTTP-only, SameSite cookie that holds a signed-in browser's session token."""


@dataclass(frozen=True, slots=True)
class Account:
    """A signed-in player: the account's id and its public name."""

    id: int
    name: str


async def account_of(connection: HTTPConnection) -> Account | None:
    """The account signed in on this request or WebSocket, or None for a guest.

    Usable directly (``await account_of(request)``) or as a FastAPI dependency
    (``Depends(account_of)``). Not yet filled in: everyone is a guest.
    """
    del connection
    return None
