"""What the routes of one application share: the game service, the concerns built on it
(chat, rematches, reviews), the accounts, and the limits per address."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI

from taluva.server.config import Settings
from taluva.server.games.chat import Chat
from taluva.server.games.rematch import Rematches
from taluva.server.games.reviews import Reviews
from taluva.server.games.service import GameService
from taluva.server.http.notices import Notices
from taluva.server.limits import AddressLimiter, ConnectionCounter
from taluva.server.mail.post import Post
from taluva.server.mail.queue import SWITCHES, MailQueue
from taluva.server.players.accounts import AccountStore, Passwords
from taluva.server.players.credentials import Credentials
from taluva.server.push.pusher import Pusher
from taluva.server.push.subscriptions import Subscriptions

SIGN_IN_BURST = 10
"""Sign-in and sign-up attempts one address may make at once..."""
SIGN_IN_PER_MINUTE = 10.0
"""...and then per minute."""
NAME_BURST = 5
"""Sign-in attempts for one name, from anywhere, at once..."""
NAME_PER_MINUTE = 2.0
"""...and then per minute."""


@dataclass(eq=False)
class Site:
    """One application's shared parts; the routes find it in ``app.state.site``."""

    settings: Settings
    service: GameService
    chat: Chat
    rematches: Rematches
    reviews: Reviews
    accounts: AccountStore
    credentials: Credentials
    """Accounts' e-mail addresses and passwords (``http.mail``)."""
    post: Post
    """The mail queue, its sender and the signed links (``taluva.server.mail``)."""
    notices: Notices
    """What tells players of their turn, challenges, rematches, games' ends and clocks, by
    mail and every pusher (``http.notices``)."""
    pusher: Pusher
    """The web push messages to the account's browsers (``taluva.server.push``)."""
    requests: AddressLimiter
    """Requests that change something, per address."""
    new_games: AddressLimiter
    """Games created, per address."""
    sockets: ConnectionCounter
    """Open WebSockets, per address."""
    sign_ins: AddressLimiter = field(
        default_factory=lambda: AddressLimiter(SIGN_IN_PER_MINUTE / 60, SIGN_IN_BURST)
    )
    """Sign-in and sign-up attempts, per address."""
    sign_ins_by_name: AddressLimiter = field(
        default_factory=lambda: AddressLimiter(NAME_PER_MINUTE / 60, NAME_BURST)
    )
    """Sign-in attempts, per account name."""
    stopping: bool = False
    """Set when the process was told to stop: ``/readyz`` fails and new WebSockets are
    turned away (``taluva.server.http.health``, ``http.ws``)."""
    config: dict[str, Any] = field(default_factory=dict)
    """``/api/config``'s answer, made on first use."""
    _passwords: Passwords | None = None

    @classmethod
    def build(cls, settings: Settings, service: GameService) -> Site:
        """The parts of an application around ``service``."""
        limits = settings.limits
        rematches = Rematches(service)
        service.seat_guards.append(rematches.keep_seat)
        credentials = Credentials(service.store.engine)
        post = Post(settings, MailQueue(service.store.engine), service.db)
        pusher = Pusher(settings, Subscriptions(service.store.engine), SWITCHES, service.db)
        notices = Notices(settings, post, credentials, service.registry)
        if pusher.on:
            notices.pushers.append(pusher)
        service.registry.listeners.append(notices.changed)
        # a clock about to run out is warned of only in a game held here: keep those loaded
        service.lifecycle.watch_ahead = notices.warn_before
        return cls(
            settings=settings,
            service=service,
            chat=Chat(service, limits),
            rematches=rematches,
            reviews=Reviews(service),
            accounts=AccountStore(service.store.engine),
            credentials=credentials,
            post=post,
            notices=notices,
            pusher=pusher,
            requests=AddressLimiter(limits.http_rate, limits.http_burst),
            new_games=AddressLimiter(
                limits.games_per_minute / 60, max(1, int(limits.games_per_minute))
            ),
            sockets=ConnectionCounter(limits.ws_per_address),
        )

    @property
    def passwords(self) -> Passwords:
        """The password hasher, made on first use (its Argon2 parameters cost nothing until
        somebody signs up or in)."""
        if self._passwords is None:
            self._passwords = Passwords()
        return self._passwords

    @asynccontextmanager
    async def lifespan(self, _app: FastAPI) -> AsyncIterator[None]:
        """Start the game service and the mail sender with the application, and stop them
        with it (the sender first: it needs the database)."""
        await self.service.start()
        await self.post.start()
        self.notices.start()
        try:
            yield
        finally:
            await self.notices.stop()
            await self.post.stop()
            await self.reviews.stop()
            await self.service.stop()
