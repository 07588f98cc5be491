"""The server's VAPID key pair (RFC 8292): a P-256 key made at the first need and kept in
``server_secrets``, so that every server process signs with the same key and the browsers'
subscriptions, made for its public half, outlive a restart."""

from __future__ import annotations

import base64
from email.utils import parseaddr
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError

from taluva.server.config import Settings
from taluva.server.storage.models import Base, ServerSecretRow

KEY_NAME = "vapid"
"""The row of ``server_secrets`` whose value is the VAPID private key (URL-safe base64 of its
32-byte scalar)."""

_SECRETS = Base.metadata.tables[ServerSecretRow.__tablename__]


def b64url(data: bytes) -> str:
    """URL-safe base64 without padding, as the Push API writes keys."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    """The bytes of URL-safe base64 with or without padding (ValueError if it is not)."""
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as error:
        raise ValueError(str(error)) from None


def _new_key() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


def vapid_private_key(engine: Engine) -> str:
    """The VAPID private key (URL-safe base64 of its scalar), made now if the database has
    none yet (of two processes making it at once, the first one stored wins and both read
    it)."""
    query = select(_SECRETS.c.value).where(_SECRETS.c.name == KEY_NAME)
    with engine.begin() as connection:
        found = connection.scalar(query)
    if found is None:
        try:
            with engine.begin() as connection:
                connection.execute(insert(_SECRETS), {"name": KEY_NAME, "value": _new_key()})
        except IntegrityError:
            pass
        with engine.begin() as connection:
            found = connection.scalar(query)
    return str(found)


def public_key_of(private: str) -> str:
    """The public half of a VAPID private key, as the uncompressed point in URL-safe base64
    (what ``PushManager.subscribe`` takes as ``applicationServerKey``)."""
    key = ec.derive_private_key(int.from_bytes(unb64url(private), "big"), ec.SECP256R1())
    return b64url(
        key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
    )


def subject_of(settings: Settings) -> str | None:
    """The VAPID ``sub`` claim push services may contact the host at: ``mailto:`` the
    address of ``mail_from``, else the ``https`` origin of ``public_url``; None: the host set
    neither, and this server sends no push messages."""
    _name, address = parseaddr(settings.mail_from or "")
    if "@" in address:
        return f"mailto:{address}"
    url = urlsplit(settings.public_url or "")
    if url.scheme == "https" and url.hostname and url.port is None:
        return f"https://{url.hostname}"
    return None
