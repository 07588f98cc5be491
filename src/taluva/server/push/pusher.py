"""Sends the web push messages of one server process: for a notice of some kind to an
account, one message to each browser the account subscribed that has the kind on.

A message is JSON (``title``, ``body``, ``url`` the notification opens, ``tag`` so that a
later notice of the same thing replaces it), encrypted to the browser's keys (aes128gcm, RFC
8291) and signed with the server's VAPID key (RFC 8292) by pywebpush, whose blocking HTTP
post runs in a thread: the event loop, and so every move, never waits for a push service. A
browser its push service calls gone (404, 410) is forgotten; any other failure is logged
(once per browser until it works again) and dropped: a notice is a courtesy, not a promise.
A message speaks the language its account chose, else English (as the notices' mails do).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from py_vapid import Vapid
from pywebpush import WebPushException, webpush
from sqlalchemy import select

from taluva.engine.wording import T
from taluva.lang import DEFAULT, pick, say
from taluva.server.config import Settings
from taluva.server.errors import ApiError
from taluva.server.push.keys import public_key_of, subject_of, vapid_private_key
from taluva.server.push.subscriptions import Subscriptions, Target
from taluva.server.storage.models import AccountRow, Base

log = logging.getLogger(__name__)
_ACCOUNTS = Base.metadata.tables[AccountRow.__tablename__]

RunDb = Callable[..., Awaitable[Any]]
"""Runs a blocking storage call in the server's database thread (``GameService.db``)."""

GONE = (404, 410)
"""A push service's answers that say the subscription is no more."""
TTL = 86400
"""Seconds a push service keeps a message for a browser that is offline."""
TIMEOUT = 10.0
"""Seconds one post to a push service may take."""
TITLE_CHARS = 100
BODY_CHARS = 300
"""The longest title and body sent (a push message holds about 4 kB)."""
REMEMBERED = 4096
"""Keys of notices this process remembers having pushed (it pushes each one once)."""
THREADS = 4
"""Messages posted at once by one process (in threads of their own, so that a slow push
service holds up no other work of the process's threads)."""
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
"""The names of this machine: a server reached by one of them is only local, and may post to
a push service on this machine over plain http (a test's or a developer's)."""


class Pusher:
    """The web push of one server process; ``on`` says whether it sends at all."""

    def __init__(
        self,
        settings: Settings,
        subscriptions: Subscriptions,
        kinds: tuple[str, ...],
        run_db: RunDb,
    ) -> None:
        self.subject = subject_of(settings)
        """The VAPID ``sub`` claim (``keys.subject_of``); None: no push messages."""
        self.subscriptions = subscriptions
        self.kinds = kinds
        """The kinds of notice a device may turn off (``mail.queue.SWITCHES``)."""
        self.run_db = run_db
        self.local = urlsplit(settings.public_url or "http://localhost").hostname in LOCAL_HOSTS
        """Whether this server is only local (its ``public_url`` unset or on this machine)."""
        self._threads = ThreadPoolExecutor(THREADS, thread_name_prefix="push")
        self._private: str | None = None
        self._pushed: OrderedDict[str, None] = OrderedDict()
        self._failing: set[str] = set()

    @property
    def on(self) -> bool:
        """Whether the host set what the VAPID subject needs (``mail_from`` or an https
        ``public_url``)."""
        return self.subject is not None

    def require(self) -> None:
        """Refuse (503 ``push-off``) what needs push on a server that sends none."""
        if not self.on:
            raise ApiError(
                503,
                "push-off",
                T(
                    "this server sends no notifications: its host has set neither a mail "
                    "sender address nor an https address of the site"
                ),
            )

    async def private_key(self) -> str:
        """The VAPID private key, read (or made) on first use."""
        if self._private is None:
            self._private = await self.run_db(vapid_private_key, self.subscriptions.engine)
        return self._private

    async def public_key(self) -> str:
        """The VAPID public key, URL-safe base64: the browsers' ``applicationServerKey``."""
        return public_key_of(await self.private_key())

    async def push(
        self, kind: str, account_id: int, title: str, body: str, url: str, key: str
    ) -> None:
        """Send the notice ``title``/``body`` of ``kind`` to each browser of ``account_id``
        that has the kind on, unless this process pushed ``key`` already; clicked, it opens
        ``url``. Texts are said in the account's language. Never raises."""
        if not self.on or key in self._pushed:
            return
        self._pushed[key] = None
        if len(self._pushed) > REMEMBERED:
            self._pushed.popitem(last=False)
        try:
            targets: list[Target] = await self.run_db(self.subscriptions.targets, account_id, kind)
            if not targets:
                return
            vapid = Vapid.from_raw((await self.private_key()).encode("ascii"))
            lang = await self.run_db(self.language_of, account_id)
            title, body = say(title, lang), say(body, lang)
            data = json.dumps(
                {"title": title[:TITLE_CHARS], "body": body[:BODY_CHARS], "url": url, "tag": key}
            )
            await asyncio.gather(*(self._send(target, data, vapid) for target in targets))
        except Exception:  # a notice not pushed must not end anything else
            log.exception("the %s notice %s was not pushed", kind, key)

    def language_of(self, account_id: int) -> str:
        """The language of the messages to ``account_id``: its choice, else English."""
        with self.subscriptions.engine.connect() as connection:
            chosen = connection.scalar(
                select(_ACCOUNTS.c.language).where(_ACCOUNTS.c.id == account_id)
            )
        return pick(chosen, DEFAULT)

    async def _send(self, target: Target, data: str, vapid: Vapid) -> None:
        where = _origin(target.endpoint)
        try:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(self._threads, self._post, target, data, vapid)
        except WebPushException as error:
            status = None if error.response is None else error.response.status_code
            if status in GONE:
                await self.run_db(self.subscriptions.forget, target.endpoint)
                log.info("a browser at %s unsubscribed (%s): forgotten", where, status)
            else:
                self._failed(target, f"{where} answered {status}")
        except Exception as error:
            self._failed(target, f"{where} failed: {error.__class__.__name__}: {error}")
        else:
            self._failing.discard(target.endpoint)

    def _post(self, target: Target, data: str, vapid: Vapid) -> None:
        """Encrypt, sign and post one message (blocking: runs in a thread)."""
        webpush(
            {"endpoint": target.endpoint, "keys": {"p256dh": target.p256dh, "auth": target.auth}},
            data,
            vapid_private_key=vapid,
            vapid_claims={"sub": self.subject},
            content_encoding="aes128gcm",
            ttl=TTL,
            timeout=TIMEOUT,
        )

    def _failed(self, target: Target, what: str) -> None:
        if target.endpoint not in self._failing:
            self._failing.add(target.endpoint)
            log.warning("a push message was not delivered: %s", what[:300])


def _origin(endpoint: str) -> str:
    """Where an endpoint points, without its path (the path names the browser)."""
    url = urlsplit(endpoint)
    return f"{url.scheme}://{url.netloc}"
