"""The HTTP routes of accounts: sign up, sign in and out, my games, profiles, leaderboard.

``install`` adds them to the application. Sign-in attempts are limited per address and per
name (429 ``rate-limited``), and the answers never tell whether a name has an account: an
unknown name and a wrong password get the same 401, after the same Argon2 work. Sign-up is
the exception, by necessity: a taken name is refused (409 ``name-taken``), and names are
public anyway, on the leaderboard.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from fastapi import FastAPI, Path, Query, Request, Response
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from taluva.server.errors import ApiError
from taluva.server.games.service import GameService
from taluva.server.games.view import summary_view
from taluva.server.http.messages import Strict
from taluva.server.limits import AddressLimiter
from taluva.server.players.accounts import (
    SESSION_COOKIE,
    SESSION_DAYS,
    Account,
    AccountStore,
    NameTaken,
    Passwords,
    account_name,
    account_of,
    check_password,
    name_key,
)
from taluva.server.players.profiles import games_of_account, leaderboard, profile
from taluva.server.storage.store import LIVE

SIGN_IN_BURST = 10
"""Sign-in and sign-up attempts one address may make at once..."""
SIGN_IN_PER_MINUTE = 10.0
"""...and then per minute."""
NAME_BURST = 5
"""Sign-in attempts for one name, from anywhere, at once..."""
NAME_PER_MINUTE = 2.0
"""...and then per minute."""
MY_GAMES = 100
"""The most games "My games" lists."""


class Credentials(Strict):
    """A name and a password, to sign up or sign in."""

    name: str = Field(max_length=400, description="the account's name (see docs: Names)")
    password: str = Field(max_length=1000, description="8 to 200 characters")


def _refused_credentials() -> ApiError:
    return ApiError(401, "bad-credentials", "the name or the password is wrong")


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
    _set_session(response, request, token)


def _set_session(response: Response, request: Request, token: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=SESSION_DAYS * 86400,
        path="/",
        httponly=True,
        samesite="lax",
        # behind a TLS proxy the scheme arrives as a header; trusting it from anyone is
        # harmless, since a Secure cookie only stops the browser from sending it over HTTP
        secure="https" in (request.url.scheme, request.headers.get("x-forwarded-proto")),
    )


def install(app: FastAPI, service: GameService, passwords: Passwords | None = None) -> None:
    """Add the account routes to ``app`` and keep the account store in ``app.state.accounts``
    (where ``account_of`` finds it)."""
    accounts = AccountStore(service.store.engine)
    app.state.accounts = accounts
    hashing = passwords
    by_address = AddressLimiter(SIGN_IN_PER_MINUTE / 60, SIGN_IN_BURST)
    by_name = AddressLimiter(NAME_PER_MINUTE / 60, NAME_BURST)

    def get_passwords() -> Passwords:
        nonlocal hashing
        if hashing is None:
            hashing = Passwords()
        return hashing

    def limit_attempt(request: Request, name: str | None) -> None:
        address = request.client.host if request.client else "unknown"
        if not by_address.take(address):
            raise ApiError(
                429,
                "rate-limited",
                "too many sign-in attempts from this address: try again later",
                retry_after=by_address.retry_after(address),
            )
        if name is not None and not by_name.take(name):
            raise ApiError(
                429,
                "rate-limited",
                "too many sign-in attempts for this name: try again later",
                retry_after=by_name.retry_after(name),
            )

    @app.post(
        "/api/accounts",
        status_code=201,
        summary="Sign up: create an account and sign in (sets the session cookie)",
        tags=["accounts"],
    )
    async def sign_up(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        name = account_name(body.name, service.settings.limits.name_chars)
        password = check_password(body.password)
        limit_attempt(request, None)
        digest = await run_in_threadpool(get_passwords().hash, password)
        try:
            account = await service.db(accounts.create, name, digest)
        except NameTaken:
            raise ApiError(409, "name-taken", f"the name {name!r} has an account already") from None
        await _start_session(service, accounts, account, request, response)
        return {"account": account.to_json()}

    @app.post(
        "/api/session",
        summary="Sign in with a name and a password (sets the session cookie)",
        tags=["accounts"],
    )
    async def sign_in(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        if len(body.password) > 200:
            raise _refused_credentials()
        limit_attempt(request, name_key(body.name))
        found = await service.db(accounts.find, body.name)
        stored = None if found is None else found[1]
        matches = await run_in_threadpool(get_passwords().verify, stored, body.password)
        if found is None or not matches:
            raise _refused_credentials()
        account = found[0]
        await _start_session(service, accounts, account, request, response)
        return {"account": account.to_json()}

    @app.get(
        "/api/session", summary="Who is signed in (account null for a guest)", tags=["accounts"]
    )
    async def who(request: Request) -> dict[str, Any]:
        account = await account_of(request)
        return {"account": None if account is None else account.to_json()}

    @app.delete(
        "/api/session", summary="Sign out (ends the session, clears the cookie)", tags=["accounts"]
    )
    async def sign_out(request: Request, response: Response) -> dict[str, Any]:
        token = request.cookies.get(SESSION_COOKIE)
        if token and len(token) <= 100:
            await service.db(accounts.close_session, token)
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")
        return {"account": None}

    @app.get(
        "/api/my/games",
        summary="The signed-in player's open, live and finished games, and whose turn it is",
        tags=["accounts"],
    )
    async def my_games(request: Request) -> dict[str, Any]:
        account = await account_of(request)
        if account is None:
            raise ApiError(401, "signed-out", "sign in to see your games")
        games = await service.db(games_of_account, service.store, account.id, MY_GAMES)
        return {"games": [await _my_entry(service, game, account) for game in games]}

    @app.get(
        "/api/players/{account_id}",
        summary="A player's profile: games, wins, statistics, rating and its history",
        tags=["accounts"],
    )
    async def player(account_id: Annotated[int, Path(ge=1)]) -> dict[str, Any]:
        found = await service.db(profile, service.store.engine, account_id)
        if found is None:
            raise ApiError(404, "not-found", f"there is no player {account_id}")
        return {"player": found}

    @app.get(
        "/api/leaderboard",
        summary="Rated players and AI levels, best rating first",
        tags=["accounts"],
    )
    async def ranking(limit: Annotated[int, Query(ge=1, le=500)] = 100) -> dict[str, Any]:
        return {"players": await service.db(leaderboard, service.store.engine, limit)}


def _lifetime() -> timedelta:
    return timedelta(days=SESSION_DAYS)


async def _my_entry(service: GameService, game: Any, account: Account) -> dict[str, Any]:
    """A "My games" entry: the lobby entry, the account's seat, whose turn it is (seat or
    None) and whether that is the account's."""
    entry = summary_view(game)
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
