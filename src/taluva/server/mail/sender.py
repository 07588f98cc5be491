"""Sending the queue through SMTP (aiosmtplib): one task per server process claims a due
mail, hands it to the mail server within ``smtp_timeout`` and marks it sent, or puts it back
for later. The mail server is only ever talked to here, off every request and move."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr
from typing import Any

import aiosmtplib

from taluva.server.config import SMTP_SECURITY, Settings
from taluva.server.mail.queue import PICTURE_ID, MailQueue, Outgoing

log = logging.getLogger(__name__)

MAIL_POLL = 2.0
"""Seconds a sender waits between two looks at the queue when it found nothing due: mails
queued by this process wake it at once, those of other processes and retries wait this long."""

STOP_WAIT = 3.0
"""Seconds a stopping server waits for the mail it is sending: the rest of its stop (the
games, the database) must not wait for a slow mail server."""

RunDb = Callable[..., Awaitable[Any]]
"""Runs a blocking storage call in the server's database thread (``GameService.db``)."""


@dataclass(frozen=True, slots=True)
class Smtp:
    """Where and how mail goes out, from the server's settings."""

    host: str
    port: int
    security: str
    user: str | None
    password: str | None = field(repr=False)
    timeout: float
    sender: str
    retry_after: float

    @classmethod
    def of(cls, settings: Settings) -> Smtp | None:
        """The SMTP settings, None when ``smtp_host`` is not set; ValueError when they are
        set but cannot work (no sender address, an unknown security)."""
        if not settings.smtp_host:
            return None
        if settings.smtp_security not in SMTP_SECURITY:
            raise ValueError(f"smtp_security must be one of {', '.join(SMTP_SECURITY)}")
        if not settings.mail_from or "@" not in parseaddr(settings.mail_from)[1]:
            raise ValueError("mail_from must be the sender's address when smtp_host is set")
        if settings.smtp_timeout <= 0 or settings.mail_retry_after <= 0:
            raise ValueError("smtp_timeout and mail_retry_after must be positive seconds")
        return cls(
            host=settings.smtp_host,
            port=settings.smtp_port,
            security=settings.smtp_security,
            user=settings.smtp_user,
            password=settings.smtp_password,
            timeout=settings.smtp_timeout,
            sender=settings.mail_from,
            retry_after=settings.mail_retry_after,
        )

    @property
    def lease(self) -> timedelta:
        """How long a claimed mail stays this process's: the longest try, and room for
        the database calls around it."""
        return timedelta(seconds=2 * self.timeout + 10)


def message(mail: Outgoing, sender: str) -> EmailMessage:
    """The mail as sent: plain text with an HTML alternative (with its inline picture, if it
    has one: multipart/related), and a Message-ID made of the queue row's id, the same at
    every try (a mail sent twice can be told as such)."""
    letter = mail.letter
    domain = parseaddr(sender)[1].rpartition("@")[2] or "localhost"
    built = EmailMessage()
    built["From"] = sender
    built["To"] = mail.to_address
    built["Subject"] = letter.subject
    built["Message-ID"] = make_msgid(idstring=f"taluva-mail-{mail.id}", domain=domain)
    built["Auto-Submitted"] = "auto-generated"
    if letter.unsubscribe is not None:
        built["List-Unsubscribe"] = f"<{letter.unsubscribe}>"
        built["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    built.set_content(letter.text)
    built.add_alternative(letter.html, subtype="html")
    if letter.picture is not None:
        html = built.get_body(("html",))
        assert html is not None
        html.add_related(
            letter.picture,
            maintype="image",
            subtype="png",
            cid=f"<{PICTURE_ID}>",
            disposition="inline",
            filename="board.png",
        )
    return built


def for_good(error: Exception) -> bool:
    """Whether the mail server refused the recipient with a permanent (5xx) answer, which no
    later try would change; every other failure is worth another try."""
    if isinstance(error, aiosmtplib.SMTPRecipientsRefused):
        return all(refusal.code >= 500 for refusal in error.recipients)
    return isinstance(error, aiosmtplib.SMTPRecipientRefused) and error.code >= 500


class MailSender:
    """The task that empties the queue in this process (started with the site)."""

    def __init__(self, queue: MailQueue, smtp: Smtp, run_db: RunDb) -> None:
        self.queue = queue
        self.smtp = smtp
        self.run_db = run_db
        self.worker = f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"
        """This process's name in ``claimed_by``: unique even after a restart."""
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def start(self) -> None:
        """Start sending (once the database is migrated)."""
        self._task = asyncio.get_running_loop().create_task(self._run(), name="mail-sender")

    def wake(self) -> None:
        """Look at the queue now: a mail was just queued."""
        self._wake.set()

    async def stop(self) -> None:
        """Stop after the mail being sent, if any, is sent, or after ``STOP_WAIT`` seconds:
        a mail cut short stays claimed until its lease ends, then goes again."""
        self._stopping = True
        self._wake.set()
        if self._task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(self._task), STOP_WAIT)
        except TimeoutError:
            self._task.cancel()
        self._task = None

    async def _run(self) -> None:
        failing = False
        while not self._stopping:
            try:
                busy = await self.send_one()
            except Exception as error:  # the database is away: look again later
                if not failing:  # one line per outage, not one per look
                    log.warning("the mail queue cannot be reached: %s", error)
                failing, busy = True, False
            else:
                if failing:
                    log.warning("the mail queue can be reached again")
                failing = False
            if not busy:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), MAIL_POLL)
                self._wake.clear()

    async def send_one(self) -> bool:
        """Claim one due mail and try to send it; whether there was one."""
        mail: Outgoing | None = await self.run_db(self.queue.claim, self.worker, self.smtp.lease)
        if mail is None:
            return False
        try:
            await asyncio.wait_for(self._hand_over(mail), self.smtp.timeout)
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as error:
            reason = str(error) or type(error).__name__
            retry = None if for_good(error) else self.smtp.retry_after
            log.warning(
                "mail %d not sent (try %d%s): %s",
                mail.id,
                mail.attempts,
                ", for good" if retry is None else "",
                reason,
            )
            await self.run_db(self.queue.failed, mail, self.worker, reason, retry)
        else:
            await self.run_db(self.queue.sent, mail.id, self.worker)
            log.info("mail %d (%s) sent", mail.id, mail.kind)
        return True

    async def _hand_over(self, mail: Outgoing) -> None:
        smtp = self.smtp
        await aiosmtplib.send(
            message(mail, smtp.sender),
            hostname=smtp.host,
            port=smtp.port,
            username=smtp.user,
            password=smtp.password,
            use_tls=smtp.security == "tls",
            start_tls=smtp.security == "starttls",
            timeout=smtp.timeout,
        )
