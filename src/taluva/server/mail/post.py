"""The mail of one server process: the queue, its sender (when SMTP is configured) and the
signed links, as the routes use them."""

from __future__ import annotations

from taluva.engine.wording import T
from taluva.server.config import Settings
from taluva.server.errors import ApiError
from taluva.server.mail.links import Links, server_secret
from taluva.server.mail.queue import Letter, MailQueue
from taluva.server.mail.sender import MailSender, RunDb, Smtp


class Post:
    """Queues mails and signs links; ``on`` says whether this server sends mail at all."""

    def __init__(self, settings: Settings, queue: MailQueue, run_db: RunDb) -> None:
        self.queue = queue
        self.run_db = run_db
        self.smtp = Smtp.of(settings)
        self.sender = None if self.smtp is None else MailSender(queue, self.smtp, run_db)
        self._links: Links | None = None

    @property
    def on(self) -> bool:
        """Whether the host configured a mail server."""
        return self.smtp is not None

    def require(self) -> None:
        """Refuse (503 ``mail-off``) what needs mail on a server that sends none."""
        if not self.on:
            raise ApiError(
                503,
                "mail-off",
                T("this server sends no e-mail: its host has not set up a mail server"),
            )

    async def links(self) -> Links:
        """The signed links, their secret read (or made) on first use."""
        if self._links is None:
            self._links = Links(await self.run_db(server_secret, self.queue.engine))
        return self._links

    async def start(self) -> None:
        """Start sending (the database is migrated by now)."""
        if self.sender is not None:
            self.sender.start()

    async def stop(self) -> None:
        """Stop sending, after the mail under way."""
        if self.sender is not None:
            await self.sender.stop()

    async def send(
        self,
        kind: str,
        to_address: str,
        letter: Letter,
        *,
        account_id: int | None = None,
        once_key: str | None = None,
    ) -> bool:
        """Queue a mail and wake the sender; whether it was queued (``MailQueue.put``)."""
        queued = await self.run_db(
            lambda: self.queue.put(
                kind, to_address, letter, account_id=account_id, once_key=once_key
            )
        )
        if queued is not None and self.sender is not None:
            self.sender.wake()
        return queued is not None
