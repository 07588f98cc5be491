"""An account's e-mail address and password, as recovering an account needs them.

An address is first ``email_pending``, until the link mailed to it comes back; it is then the
account's ``email``, never shown to anybody else. Several accounts may share an address: a
reset request for it mails one link per account. A password changes only if it is still
the one the change was made against, so a reset link (bound to the old hash) works once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, delete, select, update

from taluva.engine.wording import T
from taluva.server.errors import ApiError
from taluva.server.players.accounts import Account
from taluva.server.storage.models import AccountRow, Base, SessionRow
from taluva.server.storage.store import token_digest

EMAIL_CHARS = 254
"""The longest e-mail address (RFC 5321's limit on a path)."""
_ADDRESS = re.compile(
    r"^[^@\s<>\"(),;:\\\[\]]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?\.[A-Za-z0-9-]{2,}$"
)

_ACCOUNTS = Base.metadata.tables[AccountRow.__tablename__]
_SESSIONS = Base.metadata.tables[SessionRow.__tablename__]


def check_email(value: Any) -> str:
    """An e-mail address as given (trimmed), or ApiError 422 saying what is wrong with it."""
    if not isinstance(value, str):
        raise ApiError(422, "bad-request", T("email must be text"))
    address = value.strip()
    if len(address) > EMAIL_CHARS or not _ADDRESS.match(address) or ".." in address:
        raise ApiError(
            422,
            "bad-request",
            T("email must be an address like {example}", example="name@example.org"),
        )
    return address


def email_key(address: str) -> str:
    """The form under which an address is looked up: case does not matter.

    >>> email_key("Ana@Example.ORG")
    'ana@example.org'
    """
    return address.casefold()


@dataclass(frozen=True, slots=True)
class Addresses:
    """An account's confirmed address and the one waiting for its link (each or both None)."""

    email: str | None
    pending: str | None

    def to_json(self) -> dict[str, Any]:
        """``{"address": ..., "pending": ...}``."""
        return {"address": self.email, "pending": self.pending}


class Credentials:
    """Addresses and passwords of accounts (synchronous: run in the database thread)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def addresses(self, account_id: int) -> Addresses:
        """The account's addresses."""
        with self.engine.connect() as connection:
            row = connection.execute(
                select(_ACCOUNTS.c.email, _ACCOUNTS.c.email_pending).where(
                    _ACCOUNTS.c.id == account_id
                )
            ).first()
        return Addresses(None, None) if row is None else Addresses(row.email, row.email_pending)

    def ask(self, account_id: int, address: str) -> None:
        """Keep ``address`` as the account's pending one (replacing any other pending)."""
        with self.engine.begin() as connection:
            connection.execute(
                update(_ACCOUNTS).where(_ACCOUNTS.c.id == account_id).values(email_pending=address)
            )

    def confirm(self, account_id: int, address: str) -> bool:
        """Make ``address`` the account's confirmed one, if it is the pending one (or is
        confirmed already); whether it now is."""
        with self.engine.begin() as connection:
            done = connection.execute(
                update(_ACCOUNTS)
                .where(_ACCOUNTS.c.id == account_id, _ACCOUNTS.c.email_pending == address)
                .values(email=address, email_key=email_key(address), email_pending=None)
            ).rowcount
            if done:
                return True
            current = connection.scalar(
                select(_ACCOUNTS.c.email).where(_ACCOUNTS.c.id == account_id)
            )
        return bool(current == address)

    def forget(self, account_id: int) -> None:
        """Remove the account's addresses, confirmed and pending."""
        with self.engine.begin() as connection:
            connection.execute(
                update(_ACCOUNTS)
                .where(_ACCOUNTS.c.id == account_id)
                .values(email=None, email_key=None, email_pending=None)
            )

    def mail_off(self, account_id: int) -> list[str]:
        """The kinds of mail the account turned off."""
        with self.engine.connect() as connection:
            off = connection.scalar(
                select(_ACCOUNTS.c.mail_off).where(_ACCOUNTS.c.id == account_id)
            )
        return list(off or [])

    def switch(self, account_id: int, kind: str, on: bool) -> None:
        """Turn the mails of ``kind`` on or off for the account."""
        with self.engine.begin() as connection:
            off = connection.scalar(
                select(_ACCOUNTS.c.mail_off).where(_ACCOUNTS.c.id == account_id).with_for_update()
            )
            kinds = {*(off or [])} - {kind} if on else {*(off or []), kind}
            connection.execute(
                update(_ACCOUNTS).where(_ACCOUNTS.c.id == account_id).values(mail_off=sorted(kinds))
            )

    def recipient(self, account_id: int, kind: str) -> tuple[Account, str] | None:
        """The account and its confirmed address, if it has one and has not turned the
        mails of ``kind`` off; else None."""
        with self.engine.connect() as connection:
            row = connection.execute(
                select(
                    _ACCOUNTS.c.id, _ACCOUNTS.c.name, _ACCOUNTS.c.email, _ACCOUNTS.c.mail_off
                ).where(_ACCOUNTS.c.id == account_id)
            ).first()
        if row is None or row.email is None or kind in (row.mail_off or []):
            return None
        return Account(row.id, row.name), row.email

    def accounts_at(self, address: str) -> list[tuple[Account, str, str]]:
        """The accounts whose confirmed address is ``address`` (case aside): each with the
        address as confirmed and its password hash."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(
                    _ACCOUNTS.c.id, _ACCOUNTS.c.name, _ACCOUNTS.c.email, _ACCOUNTS.c.password_hash
                )
                .where(_ACCOUNTS.c.email_key == email_key(address))
                .order_by(_ACCOUNTS.c.id)
            ).all()
        return [(Account(row.id, row.name), row.email, row.password_hash) for row in rows]

    def password_hash(self, account_id: int) -> tuple[Account, str] | None:
        """The account and its password hash, or None if it has gone."""
        with self.engine.connect() as connection:
            row = connection.execute(
                select(_ACCOUNTS.c.id, _ACCOUNTS.c.name, _ACCOUNTS.c.password_hash).where(
                    _ACCOUNTS.c.id == account_id
                )
            ).first()
        return None if row is None else (Account(row.id, row.name), row.password_hash)

    def change_password(
        self, account_id: int, old_hash: str, new_hash: str, keep_session: str | None
    ) -> bool:
        """Replace the password whose hash is still ``old_hash`` and end every session of the
        account but ``keep_session`` (a token, or None: all); False, changing nothing, if the
        password changed meanwhile."""
        with self.engine.begin() as connection:
            done = connection.execute(
                update(_ACCOUNTS)
                .where(_ACCOUNTS.c.id == account_id, _ACCOUNTS.c.password_hash == old_hash)
                .values(password_hash=new_hash, failed_sign_ins=0)
            ).rowcount
            if not done:
                return False
            ending = delete(_SESSIONS).where(_SESSIONS.c.account_id == account_id)
            if keep_session is not None:
                ending = ending.where(_SESSIONS.c.token_hash != token_digest(keep_session))
            connection.execute(ending)
        return True
