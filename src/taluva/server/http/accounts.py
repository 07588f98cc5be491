"""The HTTP routes of accounts: sign up, sign in and out, my games, profiles, leaderboard.

Sign-in attempts are limited per address and per
name (429 ``rate-limited``), and the answers never tell whether a name has an account: an
unknown name and a wrong password get the same 401, after the same Argon2 work. Sign-up is
the exception, by necessity: a taken name is refused (409 ``name-taken``), and names are
public anyway, on the leaderboard.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from taluva.engine.wording import T
from taluva.server.errors import ApiError
from taluva.server.games.service import GameService
from taluva.server.http.deps import (
    RoomDep,
    SiteDep,
    address_of,
    refusal,
    signed_in,
    take_or_refuse,
)
from taluva.server.http.messages import Strict
from taluva.server.http.site import Site
from taluva.server.players.accounts import (
    DEVICE_COOKIE,
    DEVICE_DAYS,
    SESSION_COOKIE,
    SESSION_DAYS,
    Account,
    AccountStore,
    NameTaken,
    account_name,
    account_of,
    check_password,
    name_key,
)
from taluva.server.players.profiles import (
    game_ratings,
    games_of_account,
    leaderboard,
    profile,
)
from taluva.server.storage.store import FINISHED, LIVE

MY_GAMES = 100
"""The most games "My games" lists."""


class Credentials(Strict):
    """A name and a password, to sign up or sign in."""

    name: str = Field(max_length=400, description="the account's name (see docs: Names)")
    password: str = Field(max_length=1000, description="8 to 200 characters")


def _refused_credentials() -> ApiError:
    return ApiError(401, "bad-credentials", T("the name or the password is wrong"))


async def _start_session(
    service: GameService,
    accounts: AccountStore,
    account: Account,
    request: Request,
    response: Response,
) -> None:
    """Open a session for ``account`` and set its cookie; the browser's previous session,
    if it had one, ends (no session outlives the cookie that replaced it)."""
    previous = request.cookies.get(SESSION_COOKIE)
    if previous and len(previous) <= 100:
        await service.db(accounts.close_session, previous)
    token, _expires = await service.db(accounts.open_session, account, _lifetime())
    _set_cookie(response, request, SESSION_COOKIE, token, SESSION_DAYS)
    device = request.cookies.get(DEVICE_COOKIE)
    if not (
        device
        and len(device) <= 100
        and await service.db(accounts.knows_device, account.name, device)
    ):
        new_device = await service.db(accounts.remember_device, account)
        _set_cookie(response, request, DEVICE_COOKIE, new_device, DEVICE_DAYS)


def _set_cookie(response: Response, request: Request, name: str, value: str, days: int) -> None:
    response.set_cookie(
        name,
        value,
        max_age=days * 86400,
        path="/",
        httponly=True,
        samesite="lax",
        # behind a TLS proxy the scheme arrives as a header; trusting it from anyone is
        # harmless, since a Secure cookie only stops the browser from sending it over HTTP
        secure="https" in (request.url.scheme, request.headers.get("x-forwarded-proto")),
    )


router = APIRouter(tags=["accounts"])


def limit_address(site: Site, request: Request) -> None:
    """Refuse (429) a sign-in or sign-up beyond its address's rate."""
    take_or_refuse(
        site.sign_ins, address_of(request), T("too many sign-in attempts from this address")
    )


async def limit_name(site: Site, request: Request, name: str) -> None:
    """Refuse (429) a sign-in beyond its name's rate, unless it comes from a browser that has
    signed in to that account before: wrong passwords tried by others lock out strangers,
    not the account's owner."""
    key = name_key(name)
    if site.sign_ins_by_name.take(key):
        return
    device = request.cookies.get(DEVICE_COOKIE)
    if (
        device
        and len(device) <= 100
        and await site.service.db(site.accounts.knows_device, name, device)
    ):
        return
    raise refusal(site.sign_ins_by_name, key, T("too many sign-in attempts for this name"))


@router.post(
    "/api/accounts",
    status_code=201,
    summary="Sign up: create an account and sign in (sets the session cookie)",
)
async def sign_up(
    body: Credentials, request: Request, response: Response, site: SiteDep
) -> dict[str, Any]:
    name = account_name(body.name, site.settings.limits.name_chars)
    password = check_password(body.password)
    limit_address(site, request)
    digest = await run_in_threadpool(site.passwords.hash, password)
    try:
        account = await site.service.db(site.accounts.create, name, digest)
    except NameTaken:
        raise ApiError(
            409, "name-taken", T("the name {name} has an account already", name=repr(name))
        ) from None
    await _start_session(site.service, site.accounts, account, request, response)
    return {"account": account.to_json()}


@router.post("/api/session", summary="Sign in with a name and a password (sets the session cookie)")
async def sign_in(
    body: Credentials, request: Request, response: Response, site: SiteDep
) -> dict[str, Any]:
    if len(body.password) > 200:
        raise _refused_credentials()
    limit_address(site, request)
    await limit_name(site, request, body.name)
    found = await site.service.db(site.accounts.find, body.name)
    stored = None if found is None else found[1]
    matches = await run_in_threadpool(site.passwords.verify, stored, body.password)
    if found is None or not matches:
        if found is not None:
            await site.service.db(site.accounts.note_failure, found[0].id)
        raise _refused_credentials()
    account = found[0]
    failures = await site.service.db(site.accounts.take_failures, account.id)
    await _start_session(site.service, site.accounts, account, request, response)
    return {"account": account.to_json(), "failed_sign_ins": failures}


@router.get("/api/session", summary="Who is signed in (account null for a guest)")
async def who(request: Request) -> dict[str, Any]:
    account = await account_of(request)
    return {"account": None if account is None else account.to_json()}


@router.delete("/api/session", summary="Sign out (ends the session, clears the cookie)")
async def sign_out(request: Request, response: Response, site: SiteDep) -> dict[str, Any]:
    token = request.cookies.get(SESSION_COOKIE)
    if token and len(token) <= 100:
        await site.service.db(site.accounts.close_session, token)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")
    return {"account": None}


@router.get(
    "/api/my/games",
    summary="The signed-in player's open, live and finished games, and whose turn it is",
)
async def my_games(request: Request, site: SiteDep) -> dict[str, Any]:
    account = await signed_in(request, T("sign in to see your games"))
    service = site.service
    games = await service.db(games_of_account, service.store, account.id, MY_GAMES)
    entries = await service.summaries(games)
    return {
        "games": [
            await _my_entry(service, game, entry, account)
            for game, entry in zip(games, entries, strict=True)
        ]
    }


@router.get(
    "/api/players/{account_id}",
    summary="A player's profile: games, wins, statistics, rating and its history",
)
async def player(account_id: Annotated[int, Path(ge=1)], site: SiteDep) -> dict[str, Any]:
    found = await site.service.db(profile, site.service.store.engine, account_id)
    if found is None:
        raise ApiError(404, "not-found", T("there is no player {id}", id=str(account_id)))
    return {"player": found}


@router.get("/api/leaderboard", summary="Rated players and AI levels, best rating first")
async def ranking(
    site: SiteDep, limit: Annotated[int, Query(ge=1, le=500)] = 100
) -> dict[str, Any]:
    return await site.service.db(leaderboard, site.service.store.engine, limit)


@router.get(
    "/api/games/{game_id}/ratings",
    summary="Each seat's rating before and after a finished rated game",
)
async def ratings_of_game(room: RoomDep, site: SiteDep) -> dict[str, Any]:
    meta = room.meta
    if meta.status != FINISHED:
        raise ApiError(409, "not-finished", T("game {game} is not over yet", game=meta.id))
    seats = await site.service.db(game_ratings, site.service.store.engine, meta.id)
    return {"rated": meta.rated, "seats": seats}


def _lifetime() -> timedelta:
    return timedelta(days=SESSION_DAYS)


async def _my_entry(
    service: GameService, game: Any, entry: dict[str, Any], account: Account
) -> dict[str, Any]:
    """A "My games" entry: the lobby entry ``entry``, the account's seat, whose turn it is
    (seat or None) and whether that is the account's."""
    seat = next(s.seat for s in game.seats if s.account_id == account.id)
    to_move = None
    if game.status == LIVE:
        try:
            room = await service.room(game.id)
        except ApiError:
            room = None
        if room is not None and room.meta.status == LIVE and not room.game.is_over:
            to_move = room.game.to_move
    entry.update(seat=seat, to_move=to_move, your_move=to_move == seat)
    return entry
