"""The "your move" mail of turn-based games: when the turn passes to a signed-in player who
has no page of the game open, that player gets one mail for that turn (if they confirmed an
address and did not turn these mails off).

It listens to every room's changes (``Rooms.changed``) like the clock's timers do; all it does
there is look at the room and, for a mail to send, start a task: the database and the mail
server are never waited for on a move's way. A turn starts when its tile is to be placed;
its ``once_key`` (game and ply) is one the queue keeps unique, so several server processes
hearing of the same move queue one mail.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable

from taluva.engine.position import Phase
from taluva.server.config import Settings
from taluva.server.games import clocks
from taluva.server.games.room import Room
from taluva.server.mail.letters import challenge_letter, move_letter
from taluva.server.mail.post import Post
from taluva.server.mail.queue import Letter
from taluva.server.players.credentials import Credentials
from taluva.server.storage.store import LIVE

log = logging.getLogger(__name__)

KIND = "move"
"""The kind of these mails in ``mail.queue.KINDS``."""
CHALLENGE = "challenge"
"""The kind of the mail that tells a player of a challenge."""
REMEMBERED = 4096
"""Turns this process remembers having looked at (a repeated change of one turn, such as a
seat's presence, then costs nothing)."""


class TurnMail:
    """Queues the "your move" mails of one server process."""

    def __init__(self, settings: Settings, post: Post, credentials: Credentials) -> None:
        self.site = (settings.public_url or "").rstrip("/")
        """The links in these mails need the site's address: without ``public_url`` none go."""
        self.post = post
        self.credentials = credentials
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()

    def changed(self, room: Room) -> None:
        """A room changed: if the turn passed to an absent signed-in player of a turn-based
        game, queue their mail (in a task of its own). Never raises: a move's way goes on."""
        try:
            self._look(room)
        except Exception:
            log.exception("the 'your move' mail of game %s was not looked at", room.id)

    def _look(self, room: Room) -> None:
        meta = room.meta
        clock = meta.clock
        if not (self.post.on and self.site) or meta.status != LIVE or room.game.is_over:
            return
        if clock is None or clock["kind"] != clocks.TURN or room.game.phase != Phase.TILE:
            return  # not turn-based, or the turn is under way (its tile is placed)
        seat = room.game.to_move
        account_id = next((s.account_id for s in meta.seats if s.seat == seat), None)
        if account_id is None or seat in room.presence.present():
            return
        key = f"{KIND}:{meta.id}:{meta.ply}"
        if key in self._seen:
            return
        self._seen[key] = None
        if len(self._seen) > REMEMBERED:
            self._seen.popitem(last=False)
        task = asyncio.get_running_loop().create_task(
            self._mail(account_id, meta.id, meta.name, key)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _mail(self, account_id: int, game_id: str, game_name: str, key: str) -> None:
        def letter(name: str, off: tuple[str, str]) -> Letter:
            return move_letter(name, game_name, f"{self.site}/#/game/{game_id}", self.site, off)

        await self.notify(KIND, account_id, letter, key)

    def challenged(self, account_id: int, sender: str, game: str, challenge_id: int) -> None:
        """Mail the player ``account_id`` that ``sender`` challenged them to ``game`` (in
        words), in a task of its own: the challenge's answer does not wait for it."""
        if not (self.post.on and self.site):
            return

        def letter(name: str, off: tuple[str, str]) -> Letter:
            return challenge_letter(name, sender, game, f"{self.site}/", self.site, off)

        task = asyncio.get_running_loop().create_task(
            self.notify(CHALLENGE, account_id, letter, f"{CHALLENGE}:{challenge_id}")
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def notify(
        self,
        kind: str,
        account_id: int,
        letter: Callable[[str, tuple[str, str]], Letter],
        key: str,
    ) -> None:
        """Queue the mail of ``kind`` that ``letter`` writes (for the account's name and its
        unsubscribe links) to ``account_id``, if it confirmed an address and did not turn
        this kind off; ``key`` makes it go at most once. Never raises."""
        try:
            found = await self.post.run_db(self.credentials.recipient, account_id, kind)
            if found is None:
                return
            account, address = found
            token = (await self.post.links()).make("unsubscribe", account.id, kind)
            off = (
                f"{self.site}/#/unsubscribe/{token}",
                f"{self.site}/api/mail/unsubscribe?token={token}",
            )
            await self.post.send(
                kind, address, letter(account.name, off), account_id=account.id, once_key=key
            )
        except Exception:  # a mail not queued must not end anything else
            log.exception("the %s mail %s was not queued", kind, key)
