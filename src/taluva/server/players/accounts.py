"""Player accounts and their sign-in sessions.

A player signs up with a name (the rules of ``names.py``; unique regardless of case, since
names are public on the leaderboard) and a password, hashed with Argon2. Signing in gives
the browser a random session token in an HTTP-only, SameSite cookie; the database keeps
only its SHA-256 digest and an expiry. Routes and the WebSocket learn who is signed in with
``account_of``; a request without a valid session is a guest's (None), and guests still play.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from starlette.requests import HTTPConnection

from taluva.engine.wording import T
from taluva.server.errors import ApiError
from taluva.server.players.names import clean_name
from taluva.server.storage.models import AccountRow, Base, DeviceRow, SessionRow
from taluva.server.storage.store import now, token_digest

SESSION_COOKIE = "taluva_session"
"""The HTTP-only, SameSite cookie that holds a signed-in browser's session token."""
SESSION_DAYS = 30
"""How long a session lasts after signing in."""
ACCOUNT_KEY = "taluva.account"
"""Where ``account_of`` keeps the account it found in the request's ASGI scope, so that the
language middleware's look-up and the route's cost one query."""
DEVICE_COOKIE = "taluva_device"
"""The HTTP-only cookie by which a browser that has signed in to an account is known again."""
DEVICE_DAYS = 400
"""How long a browser stays known after it last signed in."""
PASSWORD_CHARS = (8, 200)
"""A password's shortest and longest length, in characters."""
_AI_NAME = re.compile(r"^ai\s*level\b", re.IGNORECASE)

_ACCOUNTS = Base.metadata.tables[AccountRow.__tablename__]
_SESSIONS = Base.metadata.tables[SessionRow.__tablename__]
_DEVICES = Base.metadata.tables[DeviceRow.__tablename__]


@dataclass(frozen=True, slots=True)
class Account:
    """A signed-in player: the account's id, its public name and the language it chose
    (a code of ``taluva.lang.LANGUAGES``, None: none chosen)."""

    id: int
    name: str
    language: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The account as the API shows it: ``{"id": ..., "name": ..., "language": ...}``."""
        return {"id": self.id, "name": self.name, "language": self.language}


class NameTaken(Exception):
    """Another account has this name (compared without regard to case)."""


def name_key(name: str) -> str:
    """The form of a name that must be unique: NFKC and case-folded, so that "Ana" and
    "ANA" cannot both sign up.

    >>> name_key("Ana"), name_key("\uff21NA")
    ('ana', 'ana')
    """
    return unicodedata.normalize("NFKC", name).casefold()


def account_name(value: Any, limit: int) -> str:
    """An account's name, cleaned like every player name, or ApiError 422 saying why not."""
    name = clean_name(value, limit, "name")
    if not name:
        raise ApiError(422, "bad-request", T("name must not be empty"))
    if _AI_NAME.match(name):
        raise ApiError(
            422,
            "bad-request",
            T("name may not start with {prefix}: AI seats use it", prefix="'AI level'"),
        )
    return name


def check_password(value: Any) -> str:
    """A new password, or ApiError 422 saying what is wrong with it."""
    shortest, longest = PASSWORD_CHARS
    if not isinstance(value, str):
        raise ApiError(422, "bad-request", T("password must be text"))
    if not shortest <= len(value) <= longest:
        raise ApiError(
            422,
            "bad-request",
            T(
                "password must be {shortest} to {longest} characters long",
                shortest=shortest,
                longest=longest,
            ),
        )
    return value


def default_hasher() -> PasswordHasher:
    """Argon2id at OWASP's recommended minimum (19 MiB, two passes, one lane): about 0.1 s
    a hash on a small server, so sign-ins stay cheap to serve and costly to guess."""
    return PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)


class Passwords:
    """Argon2 hashing with a fixed decoy hash, so that checking a password for a name that
    has no account costs the same time as checking a wrong one."""

    def __init__(self, hasher: PasswordHasher | None = None) -> None:
        self.hasher = hasher or default_hasher()
        self._decoy = self.hasher.hash(secrets.token_urlsafe(16))

    def hash(self, password: str) -> str:
        """The Argon2 hash to store."""
        return self.hasher.hash(password)

    def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches ``stored``; with ``stored`` None (no such account)
        the decoy is checked instead and the answer is False."""
        try:
            matches = self.hasher.verify(stored or self._decoy, password)
        except (VerificationError, InvalidHashError):
            return False
        return stored is not None and matches


def named_for(request: dict[str, Any], account: Account | None) -> dict[str, Any]:
    """A new game's request with the first seat its signed-in creator takes named after the
    account: that is the seat ``GameService.create_game`` records as the account's.

    >>> seats = [{"kind": "human", "name": "x", "take": True}, {"kind": "ai", "level": 1}]
    >>> named_for({"seats": seats}, Account(7, "Ana"))["seats"][0]["name"]
    'Ana'
    """
    if account is None or not isinstance(request.get("seats"), list):
        return request
    for spec in request["seats"]:
        if isinstance(spec, dict) and spec.get("kind") == "human" and spec.get("take") is True:
            spec["name"] = account.name
            break
    return request


class AccountStore:
    """Accounts and sessions in the server's database (synchronous: run in its thread)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def create(self, name: str, password_hash: str) -> Account:
        """A new account; NameTaken if its name (case aside) is already an account's."""
        try:
            with self.engine.begin() as connection:
                new_id = connection.execute(
                    insert(_ACCOUNTS).returning(_ACCOUNTS.c.id),
                    {
                        "name": name,
                        "name_key": name_key(name),
                        "password_hash": password_hash,
                        "created_at": now(),
                    },
                ).scalar_one()
        except IntegrityError:
            raise NameTaken(name) from None
        return Account(int(new_id), name)

    def find(self, name: str) -> tuple[Account, str] | None:
        """The account of a name (case aside) and its password hash, or None."""
        with self.engine.connect() as connection:
            row = connection.execute(
                select(
                    _ACCOUNTS.c.id,
                    _ACCOUNTS.c.name,
                    _ACCOUNTS.c.language,
                    _ACCOUNTS.c.password_hash,
                ).where(_ACCOUNTS.c.name_key == name_key(name))
            ).first()
        return None if row is None else (Account(row.id, row.name, row.language), row.password_hash)

    def by_id(self, account_id: int) -> Account | None:
        """The account with this id, or None."""
        with self.engine.connect() as connection:
            row = connection.execute(
                select(_ACCOUNTS.c.id, _ACCOUNTS.c.name, _ACCOUNTS.c.language).where(
                    _ACCOUNTS.c.id == account_id
                )
            ).first()
        return None if row is None else Account(row.id, row.name, row.language)

    def set_language(self, account_id: int, language: str | None) -> None:
        """Choose the account's language (a code of ``taluva.lang.LANGUAGES``; None: none)."""
        with self.engine.begin() as connection:
            connection.execute(
                update(_ACCOUNTS).where(_ACCOUNTS.c.id == account_id).values(language=language)
            )

    def language_of(self, account_id: int) -> str | None:
        """The language the account chose, or None (none chosen, or no such account)."""
        with self.engine.connect() as connection:
            found = connection.scalar(
                select(_ACCOUNTS.c.language).where(_ACCOUNTS.c.id == account_id)
            )
        return None if found is None else str(found)

    def open_session(self, account: Account, lifetime: timedelta) -> tuple[str, datetime]:
        """A new session for ``account``: its token (for the cookie only) and expiry.
        Expired sessions of every account are removed on the way."""
        token = secrets.token_urlsafe(32)
        stamp = now()
        expires = stamp + lifetime
        with self.engine.begin() as connection:
            connection.execute(delete(_SESSIONS).where(_SESSIONS.c.expires_at <= stamp))
            connection.execute(
                insert(_SESSIONS),
                {
                    "token_hash": token_digest(token),
                    "account_id": account.id,
                    "created_at": stamp,
                    "expires_at": expires,
                },
            )
        return token, expires

    def session_account(self, token: str) -> Account | None:
        """The account of an unexpired session token, or None."""
        with self.engine.connect() as connection:
            row = connection.execute(
                select(_ACCOUNTS.c.id, _ACCOUNTS.c.name, _ACCOUNTS.c.language)
                .join(_SESSIONS, _SESSIONS.c.account_id == _ACCOUNTS.c.id)
                .where(
                    _SESSIONS.c.token_hash == token_digest(token), _SESSIONS.c.expires_at > now()
                )
            ).first()
        return None if row is None else Account(row.id, row.name, row.language)

    def close_session(self, token: str) -> None:
        """Forget a session (signing out); nothing happens if there is none."""
        with self.engine.begin() as connection:
            connection.execute(
                delete(_SESSIONS).where(_SESSIONS.c.token_hash == token_digest(token))
            )

    def remember_device(self, account: Account) -> str:
        """A new device token for a browser that just signed in to ``account`` (for its
        cookie only; the database keeps its digest)."""
        token = secrets.token_urlsafe(32)
        with self.engine.begin() as connection:
            connection.execute(
                insert(_DEVICES),
                {"token_hash": token_digest(token), "account_id": account.id, "created_at": now()},
            )
        return token

    def note_failure(self, account_id: int) -> None:
        """Count a wrong password given for an account (told at its next sign-in)."""
        with self.engine.begin() as connection:
            connection.execute(
                update(_ACCOUNTS)
                .where(_ACCOUNTS.c.id == account_id)
                .values(failed_sign_ins=_ACCOUNTS.c.failed_sign_ins + 1)
            )

    def take_failures(self, account_id: int) -> int:
        """The wrong passwords given for an account since its last sign-in, counted from
        zero again (it is signing in now)."""
        with self.engine.begin() as connection:
            count = connection.scalar(
                select(_ACCOUNTS.c.failed_sign_ins)
                .where(_ACCOUNTS.c.id == account_id)
                .with_for_update()
            )
            if count:
                connection.execute(
                    update(_ACCOUNTS).where(_ACCOUNTS.c.id == account_id).values(failed_sign_ins=0)
                )
        return int(count or 0)

    def knows_device(self, name: str, token: str) -> bool:
        """Whether the browser holding device ``token`` has signed in to the account of
        ``name`` (case aside) before."""
        with self.engine.connect() as connection:
            row = connection.execute(
                select(_DEVICES.c.token_hash)
                .join(_ACCOUNTS, _ACCOUNTS.c.id == _DEVICES.c.account_id)
                .where(
                    _DEVICES.c.token_hash == token_digest(token),
                    _ACCOUNTS.c.name_key == name_key(name),
                )
            ).first()
        return row is not None


async def account_of(connection: HTTPConnection) -> Account | None:
    """The account signed in on this request or WebSocket, or None for a guest.

    Usable directly (``await account_of(request)``) or as a FastAPI dependency
    (``Depends(account_of)``). It reads the ``taluva_session`` cookie and asks the database
    (in the server's database thread) whether that session is current.
    """
    if ACCOUNT_KEY in connection.scope:  # looked up already for this request's language
        known: Account | None = connection.scope[ACCOUNT_KEY]
        return known
    token = connection.cookies.get(SESSION_COOKIE)
    accounts: AccountStore | None = getattr(connection.app.state, "accounts", None)
    if not token or len(token) > 100 or accounts is None:
        return None
    service = connection.app.state.service
    found: Account | None = await service.db(accounts.session_account, token)
    connection.scope[ACCOUNT_KEY] = found
    return found
