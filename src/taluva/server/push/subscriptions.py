"""The browsers subscribed to web push, one row of ``push_subscriptions`` each, and the kinds
of notice each one turned off (synchronous: run in the database thread).

A browser's endpoint is unique: subscribing it again (after a sign-in as somebody else, or to
refresh its keys) takes the row over instead of adding one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, Row, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from taluva.server.storage.models import Base, PushSubscriptionRow
from taluva.server.storage.store import now

DEVICES_PER_ACCOUNT = 20
"""Browsers one account may subscribe; one more is refused until one is removed."""
LABEL_CHARS = 120
"""The longest label of a device (a longer one, such as a user agent, is cut)."""

_ROWS = Base.metadata.tables[PushSubscriptionRow.__tablename__]


@dataclass(frozen=True, slots=True)
class Device:
    """A subscribed browser as its owner sees it: never its keys."""

    id: int
    label: str
    off: tuple[str, ...]
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Target:
    """Where one message goes and the keys it is encrypted to."""

    endpoint: str
    p256dh: str
    auth: str


class TooManyDevices(Exception):
    """The account has ``DEVICES_PER_ACCOUNT`` browsers subscribed already."""


def _device(row: Row[Any]) -> Device:
    return Device(row.id, row.label, tuple(row.off or ()), row.created_at)


class Subscriptions:
    """The push subscriptions in the server's database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def subscribe(
        self,
        account_id: int,
        endpoint: str,
        p256dh: str,
        auth: str,
        label: str | None,
        agent: str,
    ) -> Device:
        """Keep the browser at ``endpoint`` for the account: a new row (labelled ``label``,
        else its user ``agent``), or the endpoint's row with the keys renewed (its switches
        kept, its label if none is given, if it was the same account's; a fresh start if it
        was another's). TooManyDevices if the account has no room."""
        try:
            return self._subscribe(account_id, endpoint, p256dh, auth, label, agent)
        except IntegrityError:  # the same browser subscribed twice at once: renew the first
            return self._subscribe(account_id, endpoint, p256dh, auth, label, agent)

    def _subscribe(
        self,
        account_id: int,
        endpoint: str,
        p256dh: str,
        auth: str,
        label: str | None,
        agent: str,
    ) -> Device:
        with self.engine.begin() as connection:
            row = connection.execute(
                select(_ROWS).where(_ROWS.c.endpoint == endpoint).with_for_update()
            ).first()
            if row is not None and row.account_id == account_id:
                values: dict[str, object] = {"p256dh": p256dh, "auth": auth}
                if label:
                    values["label"] = label[:LABEL_CHARS]
                connection.execute(update(_ROWS).where(_ROWS.c.id == row.id).values(**values))
                row_id = row.id
            else:
                count = connection.scalar(
                    select(func.count()).select_from(_ROWS).where(_ROWS.c.account_id == account_id)
                )
                if (count or 0) >= DEVICES_PER_ACCOUNT:
                    raise TooManyDevices
                if row is not None:
                    connection.execute(delete(_ROWS).where(_ROWS.c.id == row.id))
                row_id = connection.scalar(
                    insert(_ROWS)
                    .returning(_ROWS.c.id)
                    .values(
                        account_id=account_id,
                        endpoint=endpoint,
                        p256dh=p256dh,
                        auth=auth,
                        label=(label or agent or "a browser")[:LABEL_CHARS],
                        off=[],
                        created_at=now(),
                    )
                )
            found = connection.execute(select(_ROWS).where(_ROWS.c.id == row_id)).one()
        return _device(found)

    def devices(self, account_id: int) -> list[Device]:
        """The account's subscribed browsers, oldest first."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(_ROWS).where(_ROWS.c.account_id == account_id).order_by(_ROWS.c.id)
            ).all()
        return [_device(row) for row in rows]

    def switch(self, account_id: int, device_id: int, kind: str, on: bool) -> Device | None:
        """Turn the notices of ``kind`` on or off on one of the account's browsers; None if
        it has no such browser."""
        with self.engine.begin() as connection:
            row = connection.execute(
                select(_ROWS)
                .where(_ROWS.c.id == device_id, _ROWS.c.account_id == account_id)
                .with_for_update()
            ).first()
            if row is None:
                return None
            kinds = {*(row.off or [])} - {kind} if on else {*(row.off or []), kind}
            connection.execute(
                update(_ROWS).where(_ROWS.c.id == device_id).values(off=sorted(kinds))
            )
            found = connection.execute(select(_ROWS).where(_ROWS.c.id == device_id)).one()
        return _device(found)

    def remove(self, account_id: int, device_id: int) -> bool:
        """Forget one of the account's browsers; whether it had it."""
        with self.engine.begin() as connection:
            gone = connection.execute(
                delete(_ROWS).where(_ROWS.c.id == device_id, _ROWS.c.account_id == account_id)
            )
        return bool(gone.rowcount)

    def forget(self, endpoint: str) -> None:
        """Forget the browser at ``endpoint`` (its push service said it is gone)."""
        with self.engine.begin() as connection:
            connection.execute(delete(_ROWS).where(_ROWS.c.endpoint == endpoint))

    def targets(self, account_id: int, kind: str) -> list[Target]:
        """The account's browsers that have ``kind`` on."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(_ROWS.c.endpoint, _ROWS.c.p256dh, _ROWS.c.auth, _ROWS.c.off).where(
                    _ROWS.c.account_id == account_id
                )
            ).all()
        return [Target(r.endpoint, r.p256dh, r.auth) for r in rows if kind not in (r.off or [])]
