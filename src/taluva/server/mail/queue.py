"""The mail queue: one row of ``mail_queue`` per mail, claimed by one server process at a
time, so that no mail is lost across restarts nor sent twice by several processes.

A mail is ``queued`` until it is due (``next_try``); a sender claims it by setting it
``sending``, with its own name in ``claimed_by`` and a lease in ``claimed_until``, in one
statement: on PostgreSQL the row is picked ``FOR UPDATE SKIP LOCKED``, so two processes never
pick the same row and never wait for each other; SQLite runs one writer at a time, so the
statement is atomic there as it is. A claim whose process died runs out with its lease and
the mail becomes due again. Once the mail server has accepted it the row is ``sent`` (its
bodies emptied); a failure puts it back with a later ``next_try``, until it has had
``MAIL_ATTEMPTS`` tries and is ``failed``.

The one gap left is a process that dies after the mail server accepted a mail and before
the row says so: that mail goes again after the lease (with the same Message-ID).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine, and_, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from taluva.engine.wording import T
from taluva.server.storage.models import Base, MailRow
from taluva.server.storage.store import now

QUEUED = "queued"
SENDING = "sending"
SENT = "sent"
FAILED = "failed"
STATUSES = (QUEUED, SENDING, SENT, FAILED)

MAIL_ATTEMPTS = 8
"""Tries of one mail before it counts as failed for good."""
RETRY_CAP = timedelta(hours=6)
"""The longest wait between two tries, however many failed."""


@dataclass(frozen=True, slots=True)
class MailKind:
    """One kind of mail: what it is (a Text, said in the reader's language), how many of it
    one address (or one account) may get per day, and whether the player may turn it off
    (each such mail then carries a one-click unsubscribe link, RFC 8058)."""

    about: str
    per_day: int
    switch: bool = False


KINDS = {
    "confirm": MailKind(T("the link that confirms a new e-mail address"), 5),
    "reset": MailKind(T("the link that sets a new password"), 5),
    "move": MailKind(T("your move in a turn-based game"), 50, switch=True),
    "challenge": MailKind(T("a challenge from another player"), 20, switch=True),
    "rematch": MailKind(T("a rematch offered after a game you played"), 20, switch=True),
    "end": MailKind(T("the result of a game you played, when it ends"), 50, switch=True),
    "clock": MailKind(
        T("a turn-based game's clock about to run out on your turn"), 50, switch=True
    ),
}
"""Every kind of mail the server sends (the kinds with a switch are also those of the push
notices, ``taluva.server.http.notices``)."""
SWITCHES = tuple(kind for kind, about in KINDS.items() if about.switch)
"""The kinds of mail a player may turn off, on by default."""

_MAILS = Base.metadata.tables[MailRow.__tablename__]


@dataclass(frozen=True, slots=True)
class Letter:
    """A mail's words: its subject, and its body as plain text and as HTML."""

    subject: str
    text: str
    html: str
    unsubscribe: str | None = None
    """The one-click unsubscribe address of a mail its player may turn off (RFC 8058)."""
    picture: bytes | None = None
    """A PNG shown inline by the HTML body, whose ``<img>`` names it ``cid:PICTURE_ID``."""


PICTURE_ID = "board@taluva"
"""The Content-ID of a mail's inline picture, as its HTML body refers to it."""


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A mail claimed for sending: its row's id and what goes out."""

    id: int
    kind: str
    to_address: str
    letter: Letter
    attempts: int


class MailQueue:
    """The mail queue in the server's database (synchronous: run in its thread)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def put(
        self,
        kind: str,
        to_address: str,
        letter: Letter,
        *,
        account_id: int | None = None,
        once_key: str | None = None,
    ) -> int | None:
        """Queue a mail; its id, or None when it is not queued: ``to_address`` (or the
        account) had its ``KINDS[kind].per_day`` of this kind in the last day already, or a
        mail with ``once_key`` was queued before."""
        stamp = now()
        try:
            with self.engine.begin() as connection:
                whose = _MAILS.c.to_address == to_address
                if account_id is not None:
                    whose = or_(whose, _MAILS.c.account_id == account_id)
                recent = connection.scalar(
                    select(func.count()).where(
                        whose,
                        _MAILS.c.kind == kind,
                        _MAILS.c.created_at > stamp - timedelta(days=1),
                    )
                )
                if (recent or 0) >= KINDS[kind].per_day:
                    return None
                new_id = connection.execute(
                    insert(_MAILS).returning(_MAILS.c.id),
                    {
                        "kind": kind,
                        "account_id": account_id,
                        "to_address": to_address,
                        "subject": letter.subject,
                        "text_body": letter.text,
                        "html_body": letter.html,
                        "unsubscribe": letter.unsubscribe,
                        "picture": letter.picture,
                        "once_key": once_key,
                        "status": QUEUED,
                        "attempts": 0,
                        "next_try": stamp,
                        "created_at": stamp,
                    },
                ).scalar_one()
        except IntegrityError:
            return None
        return int(new_id)

    def claim(self, worker: str, lease: timedelta) -> Outgoing | None:
        """The first due mail, now ``sending`` for ``worker`` until the lease ends; None when
        no mail is due (or every due one is being claimed by another process right now)."""
        stamp = now()
        due = or_(
            and_(_MAILS.c.status == QUEUED, _MAILS.c.next_try <= stamp),
            and_(_MAILS.c.status == SENDING, _MAILS.c.claimed_until < stamp),
        )
        pick = (
            select(_MAILS.c.id)
            .where(due)
            .order_by(_MAILS.c.next_try, _MAILS.c.id)
            .limit(1)
            .with_for_update(skip_locked=True)
            .scalar_subquery()
        )
        with self.engine.begin() as connection:
            row = connection.execute(
                update(_MAILS)
                .where(_MAILS.c.id == pick, due)
                .values(
                    status=SENDING,
                    claimed_by=worker,
                    claimed_until=stamp + lease,
                    attempts=_MAILS.c.attempts + 1,
                )
                .returning(
                    _MAILS.c.id,
                    _MAILS.c.kind,
                    _MAILS.c.to_address,
                    _MAILS.c.subject,
                    _MAILS.c.text_body,
                    _MAILS.c.html_body,
                    _MAILS.c.unsubscribe,
                    _MAILS.c.picture,
                    _MAILS.c.attempts,
                )
            ).first()
        if row is None:
            return None
        return Outgoing(
            row.id,
            row.kind,
            row.to_address,
            Letter(row.subject, row.text_body, row.html_body, row.unsubscribe, row.picture),
            row.attempts,
        )

    def sent(self, mail_id: int, worker: str) -> None:
        """Mark a mail ``worker`` claimed as sent, and empty its bodies and picture (a reset
        link has no business staying in the database once it went)."""
        self._finish(
            mail_id,
            worker,
            status=SENT,
            claimed_by=worker,
            sent_at=now(),
            text_body="",
            html_body="",
            unsubscribe=None,
            picture=None,
        )

    def failed(self, mail: Outgoing, worker: str, error: str, retry_after: float | None) -> None:
        """Put back a mail whose try failed, due again after the back-off of its attempts
        (``retry_after`` seconds, doubled at each failure, up to ``RETRY_CAP``), or failed
        for good when ``retry_after`` is None or it had its ``MAIL_ATTEMPTS``."""
        if retry_after is None or mail.attempts >= MAIL_ATTEMPTS:
            self._finish(mail.id, worker, status=FAILED, last_error=error[:300])
            return
        wait = min(timedelta(seconds=retry_after * 2 ** (mail.attempts - 1)), RETRY_CAP)
        self._finish(mail.id, worker, status=QUEUED, next_try=now() + wait, last_error=error[:300])

    def statuses(self) -> dict[str, int]:
        """How many mails are in each status (for the tests and the host)."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(_MAILS.c.status, func.count()).group_by(_MAILS.c.status)
            ).all()
        return {status: 0 for status in STATUSES} | {row[0]: int(row[1]) for row in rows}

    def _finish(self, mail_id: int, worker: str, **values: str | bytes | datetime | None) -> None:
        """End ``worker``'s claim of a mail (a sent mail keeps the name of who sent it);
        nothing happens if its lease ran out and another process claimed it since."""
        with self.engine.begin() as connection:
            connection.execute(
                update(_MAILS)
                .where(_MAILS.c.id == mail_id, _MAILS.c.claimed_by == worker)
                .where(_MAILS.c.status == SENDING)
                .values({"claimed_by": None, "claimed_until": None, **values})
            )
