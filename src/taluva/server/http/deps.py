"""What the routes ask of each request: the site, the game in the path, the address's rate,
and the seats a bearer token holds."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from taluva.engine.wording import T, Text
from taluva.server.errors import ApiError
from taluva.server.games.room import Room
from taluva.server.http.site import Site
from taluva.server.limits import AddressLimiter, wait_in_words
from taluva.server.players.accounts import Account, account_of


def site_of(request: Request) -> Site:
    """The application's shared parts."""
    site: Site = request.app.state.site
    return site


SiteDep = Annotated[Site, Depends(site_of)]


async def room_of(game_id: str, site: SiteDep) -> Room:
    """The game named in the path (404 if there is none)."""
    return await site.service.room(game_id)


RoomDep = Annotated[Room, Depends(room_of)]


def address_of(request: Request) -> str:
    """The address a request counts as (the guard has settled it)."""
    return request.client.host if request.client else "unknown"


def take_or_refuse(limiter: AddressLimiter, key: str, what: str) -> None:
    """Count one more of ``key``'s tries against ``limiter``, or refuse it: 429
    ``rate-limited`` saying ``what`` and how long to wait (also as ``Retry-After``)."""
    if not limiter.take(key):
        raise refusal(limiter, key, what)


def refusal(limiter: AddressLimiter, key: str, what: str) -> ApiError:
    """The 429 for ``key`` over ``limiter``'s rate: ``what``, and how long to wait."""
    wait = limiter.retry_after(key)
    message = T("{what}: try again in {wait}", what=what, wait=wait_in_words(wait))
    return ApiError(429, "rate-limited", message, retry_after=wait)


def rate_limited(request: Request, site: SiteDep) -> None:
    """Refuse (429) a request beyond its address's rate."""
    take_or_refuse(site.requests, address_of(request), T("too many requests"))


LIMITED = [Depends(rate_limited)]
"""The dependencies of every route that changes something."""


Authorization = Annotated[str | None, Header()]
"""The ``Authorization`` header, for the routes that take a seat's or the host's token."""


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, if there is one."""
    if authorization and authorization.startswith("Bearer "):
        return authorization[7:].strip()
    return None


def seats_of(room: Room, authorization: str | None) -> set[int]:
    """The seats of ``room`` the bearer token holds; 401 without a token, 403 for none."""
    token = bearer(authorization)
    if token is None:
        raise ApiError(
            401,
            "no-token",
            T("send the seat token as {header}", header="'Authorization: Bearer TOKEN'"),
        )
    seats, _unknown = room.seats_for([token])
    if not seats:
        raise ApiError(403, "forbidden", T("this token holds no seat of this game"))
    return seats


async def signed_in(request: Request, refusal: Text) -> Account:
    """The signed-in account of the request; ApiError 401 ``signed-out`` with ``refusal``
    (the whole sentence: "sign in to see your inbox") when it has none."""
    account = await account_of(request)
    if account is None:
        raise ApiError(401, "signed-out", refusal)
    return account
