"""Signed, expiring links: the tokens in a confirmation or reset mail.

A token is ``payload.signature``, both URL-safe base64: the payload is JSON naming what the
link is for, the account, a value it is bound to and when it expires; the signature is an
HMAC-SHA256 of it under the server's secret, a random key made at the first start and kept
in the database (``server_secrets``) so that every server process reads the same one.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError

from taluva.engine.wording import T
from taluva.server.storage.models import Base, ServerSecretRow
from taluva.server.storage.store import now

LINK_LIFETIMES = {
    "confirm": timedelta(hours=48),
    "reset": timedelta(hours=1),
    "unsubscribe": timedelta(days=365),
}
"""What a link may be for, and how long it works after it was made."""
SECRET_NAME = "mail-links"
"""The row of ``server_secrets`` whose value signs the links."""

_SECRETS = Base.metadata.tables[ServerSecretRow.__tablename__]


class BadLink(Exception):
    """A token that is not one of this server's, was made for something else, or expired;
    its message says which, for the person who followed it."""


@dataclass(frozen=True, slots=True)
class Link:
    """What a valid token says: the account it is for and the value it was bound to."""

    account_id: int
    value: str


def server_secret(engine: Engine, name: str = SECRET_NAME) -> bytes:
    """The secret called ``name``, made now if the database has none yet (of two processes
    making it at once, the first one stored wins and both read it)."""
    with engine.begin() as connection:
        found = connection.scalar(select(_SECRETS.c.value).where(_SECRETS.c.name == name))
    if found is None:
        try:
            with engine.begin() as connection:
                connection.execute(insert(_SECRETS), {"name": name, "value": secrets.token_hex(32)})
        except IntegrityError:
            pass
        with engine.begin() as connection:
            found = connection.scalar(select(_SECRETS.c.value).where(_SECRETS.c.name == name))
    return bytes.fromhex(str(found))


def fingerprint(text: str) -> str:
    """A short digest of ``text`` to bind a link to (a password hash: the link then stops
    working once the password has changed, which makes a reset link good for one use)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


class Links:
    """Makes and reads the signed links of one server (``secret`` from ``server_secret``)."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def make(self, purpose: str, account_id: int, value: str) -> str:
        """A token for ``purpose`` (a key of ``LINK_LIFETIMES``), bound to an account and a
        value, that expires after that purpose's lifetime."""
        expires = int((now() + LINK_LIFETIMES[purpose]).timestamp())
        payload = json.dumps(
            {"p": purpose, "a": account_id, "v": value, "x": expires}, separators=(",", ":")
        ).encode("utf-8")
        return f"{_encode(payload)}.{_encode(self._sign(payload))}"

    def read(self, purpose: str, token: str) -> Link:
        """What the token for ``purpose`` says, or BadLink saying why it cannot be used."""
        payload_text, _dot, signature_text = token.partition(".")
        try:
            payload = _decode(payload_text)
            signature = _decode(signature_text)
        except ValueError:
            raise BadLink(T("this link is not complete: copy all of it from the mail")) from None
        if not hmac.compare_digest(signature, self._sign(payload)):
            raise BadLink(T("this link is not complete: copy all of it from the mail"))
        fields: dict[str, Any] = json.loads(payload)
        if fields.get("p") != purpose:
            raise BadLink(T("this link is for something else"))
        if fields["x"] < now().timestamp():
            raise BadLink(T("this link has expired: ask for a new one"))
        return Link(int(fields["a"]), str(fields["v"]))

    def _sign(self, payload: bytes) -> bytes:
        return hmac.new(self._secret, payload, hashlib.sha256).digest()


def _encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _decode(text: str) -> bytes:
    if not text or len(text) > 1000:
        raise ValueError("no token")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as error:
        raise ValueError(str(error)) from None
