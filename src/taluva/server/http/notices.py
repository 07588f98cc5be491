"""Notices: what the server tells a signed-in player away from the game, by e-mail and by
every push channel (``Notices.pushers``) alike.

A notice is one event for one account: the turn passed to them in a turn-based game (with the
board as a picture in the mail), a challenge, a rematch offered after a game they played, the
end of a game they played (with its result in words), or their turn-based clock about to run
out. Each has a kind (a key of ``mail.queue.KINDS`` with a switch), a short title, a one-line
body, the page it is about (``/#/game/ID``) and a key. Game notices go only to players with
no page of the game open (``Room.present``), as the game tells those who are there already.

Notices are found on a room's changes (``Rooms.changed``), on a challenge or a rematch offer,
and by a check of the running turn-based clocks every ``check_every`` seconds; all that is
done on a move's way is looking at the room and starting a task: the database, the mail
server and the push services are never waited for there, and nothing raises into the game.
A notice's key is written once in the table ``notices`` before anything is sent, so whichever
server process writes it first gives the notice and the others, or a restarted process,
never give it again.

Every notice is given in its recipient's language: the one the account chose
(``PUT /api/account/language``), else English (a notice is not an answer to a request, so
no browser says which it prefers). Its title and body are Texts, said by each channel.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

from sqlalchemy import Engine, insert
from sqlalchemy.exc import IntegrityError

from taluva.engine.game import Game
from taluva.engine.position import Phase
from taluva.engine.wording import T, Text, Tn
from taluva.lang import DEFAULT, pick, use
from taluva.render.position import position_at
from taluva.render.raster import PngUnavailable, png_board
from taluva.render.scene import board_scene
from taluva.server.config import Settings
from taluva.server.games import clocks
from taluva.server.games.registry import Rooms
from taluva.server.games.room import Room
from taluva.server.games.view import ending_view
from taluva.server.mail.letters import (
    challenge_letter,
    clock_letter,
    end_letter,
    move_letter,
    rematch_letter,
)
from taluva.server.mail.post import Post
from taluva.server.mail.queue import Letter
from taluva.server.players.accounts import AccountStore
from taluva.server.players.credentials import Credentials
from taluva.server.storage.models import Base, NoticeRow
from taluva.server.storage.store import FINISHED, LIVE, now, utc

log = logging.getLogger(__name__)

MOVE = "move"
CHALLENGE = "challenge"
REMATCH = "rematch"
END = "end"
CLOCK = "clock"
"""The kinds of notice, as ``mail.queue.KINDS`` names them."""

WARN_BEFORE = float(clocks.DAY)
"""Seconds before a turn-based clock runs out that its player is warned; a turn shorter than
twice this is warned halfway through."""
CHECK_EVERY = 60.0
"""Seconds between two looks at the running turn-based clocks."""
END_FRESH = timedelta(minutes=10)
"""A game that ended longer ago than this (heard of late, from another process or the
database) gets no end notice: it would be news to nobody."""
UNANNOUNCED_ENDS = ("cancelled",)
"""Result reasons of games that end without a notice (a game cancelled never started)."""
PICTURE_HEX = 12.0
"""The hexes' radius, in pixels, of the board in a "your move" mail..."""
PICTURE_SIDE = 480.0
"""...made smaller when the board would be wider or taller than this many pixels."""
REMEMBERED = 4096
"""Notice keys this process remembers having looked at (a repeated change of one turn, such
as a seat's presence, then costs nothing)."""

_NOTICES = Base.metadata.tables[NoticeRow.__tablename__]

LetterOf = Callable[[str, tuple[str, str], bytes | None], Letter]
"""Writes a notice's mail for the account's name, its unsubscribe links (the page, then the
one-click address) and the board's picture (None: none)."""


class Pusher(Protocol):
    """A channel besides mail (web push): it is given every notice, for an absent player, and
    decides itself whether the account wants it there."""

    async def push(
        self, kind: str, account_id: int, title: str, body: str, url: str, key: str
    ) -> None:
        """Tell ``account_id`` of a notice of ``kind``: ``title``, a one-line ``body`` (Texts,
        said in the account's language), the site's path it is about (``url``, such as
        ``/#/game/ID``) and its ``key`` (unique to this notice and account). Exceptions are
        logged and go no further."""


@dataclass(frozen=True, slots=True)
class Notice:
    """One event for one account, as every channel gives it."""

    kind: str
    account_id: int
    title: str
    body: str
    path: str
    """The page it is about, from the site's root: ``/#/game/ID``, or ``/``."""
    key: str
    letter: LetterOf
    board: tuple[Game, int] | None = None
    """The game and ply whose board the mail shows as a picture."""


def first_time(engine: Engine, key: str) -> bool:
    """Write the key of a notice about to be given; False when it was given before (by this
    process or another)."""
    try:
        with engine.begin() as connection:
            connection.execute(insert(_NOTICES), {"key": key, "created_at": now()})
    except IntegrityError:
        return False
    return True


def board_picture(game: Game, ply: int) -> bytes | None:
    """A PNG of the board after ``ply`` moves, at most ``PICTURE_SIDE`` pixels a side; None
    when this server cannot draw one (no resvg or no font: the ``png`` extra)."""
    position = position_at(game, ply)
    scene = board_scene(position, PICTURE_HEX, coordinates=False)
    side = max(scene.width, scene.height)
    size = PICTURE_HEX if side <= PICTURE_SIDE else PICTURE_HEX * PICTURE_SIDE / side
    try:
        return png_board(game, ply, size, coordinates=False)
    except PngUnavailable as error:
        log.info("a mail goes without its picture: %s", error)
        return None


def time_in_words(ms: int) -> Text:
    """A time left, roughly, as people say it (a Text: each recipient's language says it by
    its own plural rules).

    >>> time_in_words(86_399_000), time_in_words(61 * 60 * 1000), time_in_words(4000)
    ('24 hours', '1 hour', '4 seconds')
    """
    seconds = max(0, ms // 1000)
    if seconds >= 3600:
        hours = round(seconds / 3600)
        return Tn("{n} hour", "{n} hours", hours, n=hours)
    if seconds >= 60:
        minutes = round(seconds / 60)
        return Tn("{n} minute", "{n} minutes", minutes, n=minutes)
    return Tn("{n} second", "{n} seconds", seconds, n=seconds)


class Notices:
    """Finds the notices of one server process and gives them by mail and every pusher."""

    def __init__(
        self, settings: Settings, post: Post, credentials: Credentials, rooms: Rooms
    ) -> None:
        self.site = (settings.public_url or "").rstrip("/")
        """The links in mails need the site's address: without ``public_url`` no mail goes."""
        self.post = post
        self.credentials = credentials
        self.accounts = AccountStore(credentials.engine)
        """Where each recipient's language is read."""
        self.rooms = rooms
        self.pushers: list[Pusher] = []
        """The channels besides mail, each given every notice."""
        self.warn_before = WARN_BEFORE
        self.check_every = CHECK_EVERY
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()
        self._checker: asyncio.Task[None] | None = None

    @property
    def mail(self) -> bool:
        """Whether notices go by mail: the host set up a mail server and ``public_url``."""
        return self.post.on and bool(self.site)

    def start(self) -> None:
        """Start looking at the running turn-based clocks (with the site)."""
        self._checker = asyncio.get_running_loop().create_task(self._check_forever())

    async def stop(self) -> None:
        """Stop looking at the clocks, and drop the notices under way."""
        tasks = [*self._tasks, *([self._checker] if self._checker else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._checker = None

    # ------------------------------------------------------------------ the events

    def changed(self, room: Room) -> None:
        """A room changed (a ``Rooms`` listener): if the turn passed to an absent signed-in
        player of a turn-based game, or the game just ended, give the notices. Never raises:
        a move's way goes on."""
        try:
            if room.meta.status == FINISHED:
                self._ended(room)
            elif room.meta.status == LIVE and not room.game.is_over:
                self._turn(room)
        except Exception:
            log.exception("the notices of game %s were not looked at", room.id)

    def _turn(self, room: Room) -> None:
        meta = room.meta
        clock = meta.clock
        if clock is None or clock["kind"] != clocks.TURN or room.game.phase != Phase.TILE:
            return  # not turn-based, or the turn is under way (its tile is placed)
        account_id = self._absent(room, room.game.to_move)
        if account_id is None:
            return
        game_id, name, path = meta.id, meta.name, f"/#/game/{meta.id}"

        def letter(account: str, off: tuple[str, str], picture: bytes | None) -> Letter:
            return move_letter(account, name, self.site + path, self.site, off, picture)

        title = T("Your move in {game}", game=name)
        body = T("It is your move in the game {game}: the others are waiting for you.", game=name)
        key = f"{MOVE}:{game_id}:{meta.ply}"
        self.give(Notice(MOVE, account_id, title, body, path, key, letter, (room.game, meta.ply)))

    def _ended(self, room: Room) -> None:
        meta = room.meta
        reason = (meta.result or {}).get("reason")
        if reason in UNANNOUNCED_ENDS or now() - utc(meta.updated_at) > END_FRESH:
            return
        if room.game.result is not None:
            headline, lines = room.game.result_in_words()
        else:
            ending = ending_view(meta)
            if ending is None:
                return
            headline, lines = ending["headline"], ending["lines"]
        present = room.present()
        holding: dict[int, set[int]] = {}
        for seat in meta.seats:
            if seat.account_id is not None and seat.kind == "human":
                holding.setdefault(seat.account_id, set()).add(seat.seat)
        name, path = meta.name, f"/#/game/{meta.id}"

        def letter(account: str, off: tuple[str, str], _picture: bytes | None) -> Letter:
            return end_letter(account, name, headline, lines, self.site + path, self.site, off)

        for account_id, seats in holding.items():
            if seats & present:
                continue
            key = f"{END}:{meta.id}:{account_id}"
            title = T("{game} is over", game=name)
            self.give(Notice(END, account_id, title, headline, path, key, letter))

    def challenged(self, account_id: int, sender: str, game: str, challenge_id: int) -> None:
        """``sender`` challenged the player ``account_id`` to ``game`` (in words): tell them,
        in a task of its own (the challenge's answer does not wait for it)."""

        def letter(account: str, off: tuple[str, str], _picture: bytes | None) -> Letter:
            return challenge_letter(account, sender, game, f"{self.site}/", self.site, off)

        title = T("{sender} challenges you", sender=sender)
        body = T("{sender} challenges you to a game: {game}.", sender=sender, game=game)
        key = f"{CHALLENGE}:{challenge_id}"
        self.give(Notice(CHALLENGE, account_id, title, body, "/", key, letter))

    def rematch_offered(self, room: Room, seats: set[int]) -> None:
        """The player holding ``seats`` of the finished game ``room`` offered its rematch:
        tell every other signed-in player of it who has no page of it open (their seats are
        kept for them, taken from that page). Never raises."""
        try:
            meta = room.meta
            offerer = meta.seats[min(seats)]
            present = room.present()
            name, sender, path = meta.name, offerer.name, f"/#/game/{meta.id}"

            def letter(account: str, off: tuple[str, str], _picture: bytes | None) -> Letter:
                return rematch_letter(account, sender, name, self.site + path, self.site, off)

            told = {offerer.account_id}
            for seat in meta.seats:
                account_id = seat.account_id
                if account_id in told or seat.seat in seats or account_id is None:
                    continue
                told.add(account_id)
                if {s.seat for s in meta.seats if s.account_id == account_id} & present:
                    continue
                title = T("{sender} offers a rematch", sender=sender)
                body = T(
                    "{sender} offers a rematch of {game}: your seat in it is kept for you.",
                    sender=sender,
                    game=name,
                )
                key = f"{REMATCH}:{meta.id}:{account_id}"
                self.give(Notice(REMATCH, account_id, title, body, path, key, letter))
        except Exception:
            log.exception("the rematch notices of game %s were not looked at", room.id)

    def check_clocks(self) -> int:
        """Warn the absent player to move in each live turn-based game whose clock runs out
        within ``warn_before`` (or half a turn), once a turn; return how many were looked at
        for a warning."""
        count = 0
        at = clocks.now_ms()
        for room in list(self.rooms.live.values()):
            meta = room.meta
            clock = meta.clock
            end = clocks.deadline(clock)
            if clock is None or end is None or clock["kind"] != clocks.TURN:
                continue
            if meta.status != LIVE or room.game.is_over:
                continue
            warn_ms = min(self.warn_before * 1000, clock["base_ms"] / 2)
            left = end - at
            if not 0 < left <= warn_ms:
                continue
            account_id = self._absent(room, clock["running"])
            if account_id is None:
                continue
            count += 1
            self._warn(room, account_id, end, time_in_words(left))
        return count

    def _warn(self, room: Room, account_id: int, end: int, left: Text) -> None:
        name, path = room.meta.name, f"/#/game/{room.id}"

        def letter(account: str, off: tuple[str, str], _picture: bytes | None) -> Letter:
            return clock_letter(account, name, left, self.site + path, self.site, off)

        title = T("Your time in {game} runs out soon", game=name)
        body = T("{left} left for your move in the game {game}.", left=left, game=name)
        key = f"{CLOCK}:{room.id}:{end}"
        self.give(Notice(CLOCK, account_id, title, body, path, key, letter))

    async def _check_forever(self) -> None:
        while True:
            await asyncio.sleep(self.check_every)
            try:
                self.check_clocks()
            except Exception:
                log.exception("the turn-based clocks were not looked at")

    @staticmethod
    def _absent(room: Room, seat: int) -> int | None:
        """The account holding ``seat``, if a signed-in person holds it and has no page of
        the game open."""
        account_id = room.meta.seats[seat].account_id
        if account_id is None or seat in room.present():
            return None
        return account_id

    # ------------------------------------------------------------------ giving them

    def language_of(self, account_id: int) -> str:
        """The language the notices to ``account_id`` speak: its choice, else English."""
        return pick(self.accounts.language_of(account_id), DEFAULT)

    def give(self, notice: Notice) -> None:
        """Give a notice by every channel, in a task of its own, unless this process gave
        it already or has no channel."""
        if notice.key in self._seen or not (self.mail or self.pushers):
            return
        self._seen[notice.key] = None
        if len(self._seen) > REMEMBERED:
            self._seen.popitem(last=False)
        task = asyncio.get_running_loop().create_task(self._give(notice))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _give(self, notice: Notice) -> None:
        """Write the notice's key (none given twice), then queue its mail and call every
        pusher. Never raises."""
        try:
            if not await self.post.run_db(first_time, self.credentials.engine, notice.key):
                return
        except Exception:
            log.exception("the notice %s was not given", notice.key)
            return
        if self.mail:
            await self._mail(notice)
        for pusher in list(self.pushers):
            try:
                await pusher.push(
                    notice.kind,
                    notice.account_id,
                    notice.title,
                    notice.body,
                    notice.path,
                    notice.key,
                )
            except Exception:
                log.exception("the push of notice %s failed", notice.key)

    async def _mail(self, notice: Notice) -> None:
        """Queue the notice's mail, if its account confirmed an address and did not turn this
        kind off. Never raises."""
        kind = notice.kind
        try:
            found = await self.post.run_db(self.credentials.recipient, notice.account_id, kind)
            if found is None:
                return
            account, address = found
            picture = None
            if notice.board is not None:
                try:
                    picture = await asyncio.to_thread(board_picture, *notice.board)
                except Exception:  # the mail goes without its picture
                    log.exception("the board of notice %s was not drawn", notice.key)
            token = (await self.post.links()).make("unsubscribe", account.id, kind)
            off = (
                f"{self.site}/#/unsubscribe/{token}",
                f"{self.site}/api/mail/unsubscribe?token={token}",
            )
            lang = await self.post.run_db(self.language_of, account.id)
            with use(lang):
                letter = notice.letter(account.name, off, picture)
            await self.post.send(kind, address, letter, account_id=account.id, once_key=notice.key)
        except Exception:  # a mail not queued must not end anything else
            log.exception("the %s mail %s was not queued", kind, notice.key)
