"""A game in play held in memory: its stored facts, its engine position and its watchers.

Rooms are what the game service (``taluva.server.games.service``) keeps per game; their lock
puts the game's changes in order, and their broadcast reaches every watcher (and, with several
server processes, the others through the relay). A room is the one owner of its live state:
other modules store a change, then ask the room to take it (``commit``, ``take_seat``,
``end``, ``reload``), which also moves its version on so views are computed afresh. It also
knows which seats have a client connected (``games.presence``): that goes into every state
as it is sent, not into the view kept per version.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from taluva.engine.game import Game
from taluva.engine.record import make_record
from taluva.engine.wording import T
from taluva.server.errors import ApiError
from taluva.server.games import clocks
from taluva.server.games.presence import Presence, claim_wait, claims_of
from taluva.server.games.view import (
    explain_view,
    presence_entries,
    seat_name,
    state_view,
    with_presence,
)
from taluva.server.players.accounts import Account
from taluva.server.storage.store import FINISHED, LIVE, OPEN, StoredGame, now, token_digest
from taluva.server.wire import to_json

MOVE_TEXT_CHARS = 200
"""The longest move text the server reads."""

Relay = Callable[[str, int, dict[str, Any], str], None]
"""How a room passes a broadcast on to the other processes: ``(game_id, ply, sync, text)``."""


class Subscriber(Protocol):
    """A connected client watching a room: it receives every broadcast as JSON text."""

    def send(self, text: str) -> None:
        """Queue one message; must not block."""


@dataclass(eq=False)
class Room:
    """A game in memory: what is stored about it, its position, and who is watching."""

    meta: StoredGame
    game: Game
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[Subscriber] = field(default_factory=set)
    ai_task: asyncio.Task[None] | None = None
    _cache: tuple[int, dict[str, Any]] | None = None
    _effects: list[dict[str, Any]] = field(default_factory=list)
    """The effects of the moves played so far, as JSON: computed once each, as moves come."""
    host_token: str | None = None
    """The host token of a game just created, until the creation's answer has sent it."""
    version: int = 0
    relay: Relay | None = None
    """Passes each broadcast on to the other server processes (None when there are none)."""
    presence: Presence = field(default_factory=lambda: Presence(clocks.now_ms()))
    """Which seats have a client connected, here and elsewhere, and since when each is gone."""
    claim_after_ms: int | None = None
    """How long a person may be gone on their turn before the others may claim the win
    (``Settings.claim_after``, given when the registry files the room); None: no claims."""

    @property
    def id(self) -> str:
        """The game's id."""
        return self.meta.id

    def seats_for(self, tokens: Iterable[str]) -> tuple[set[int], int]:
        """The seats whose tokens are among ``tokens``, and how many tokens matched none."""
        seats: set[int] = set()
        unknown = 0
        for token in tokens:
            digest = token_digest(token)
            matched = [
                seat.seat
                for seat in self.meta.seats
                if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest)
            ]
            if matched:
                seats.update(matched)
            else:
                unknown += 1
        return seats, unknown

    def seats_of_account(self, account: Account | None) -> set[int]:
        """The seats a signed-in account holds in this game (none for a guest)."""
        if account is None:
            return set()
        return {seat.seat for seat in self.meta.seats if seat.account_id == account.id}

    def state(self) -> dict[str, Any]:
        """The public view of the current position (computed once per change; a running
        clock's times, and who is away, are those of the moment of asking)."""
        if self._cache is None or self._cache[0] != self.version:
            effects = self._effects
            effects += [effect.to_json() for effect in self.game.effects(len(effects))]
            view = state_view(self.meta, self.game, effects=list(effects))
            self._cache = (self.version, view)
        view = self._cache[1]
        if self.meta.status != LIVE:
            return view
        at = clocks.now_ms()
        now_view = {**view, "players": with_presence(view["players"], self._claims(at))}
        clock = self.meta.clock
        if clock is not None and clock["running"] is not None:
            now_view["clock"] = clocks.clock_view(clock, at)
        return now_view

    def presence_message(self, at: int | None = None) -> dict[str, Any]:
        """The ``presence`` message: each seat's wait before a claim against it, at ``at``
        (milliseconds since the epoch; by default now)."""
        claims = self._claims(clocks.now_ms() if at is None else at)
        return {"type": "presence", "players": presence_entries(len(self.meta.seats), claims)}

    def claim_wait(self, seat: int) -> int | str:
        """Milliseconds before the others may claim the win against ``seat`` (0: now), or
        why they may not (``games.presence.claim_wait``)."""
        at = clocks.now_ms()
        return claim_wait(self.meta, self.game, self.presence, seat, at, self.claim_after_ms)

    def present(self) -> frozenset[int]:
        """The seats with a client connected now, in this process or another."""
        return self.presence.present()

    def _claims(self, at: int) -> Mapping[int, int]:
        return claims_of(self.meta, self.game, self.presence, at, self.claim_after_ms)

    def broadcast(self, message: dict[str, Any]) -> None:
        """Send one message to every watching client."""
        text = to_json(message)
        for subscriber in list(self.subscribers):
            subscriber.send(text)
        if self.relay is not None:
            meta = self.meta
            sync = {
                "status": meta.status,
                "result": meta.result,
                "clock": meta.clock,
                "here": sorted(self.presence.here),
            }
            self.relay(self.id, self.game.ply, sync, text)

    def record(self) -> dict[str, Any]:
        """The full game record (with the hidden deck: for the server and its workers only)."""
        return game_record(self.meta, [str(m) for m in self.game.moves])

    # ------------------------------------------------------------------ changes

    def trial(self, text: str) -> Game:
        """A copy of the game with move ``text`` played on it (IllegalMove if it is not
        legal); the room is unchanged until the trial is stored and ``commit`` takes it."""
        trial = self.game.copy()
        trial.play(text)
        return trial

    def commit(
        self,
        trial: Game,
        *,
        status: str,
        result: dict[str, Any] | None,
        clock: dict[str, Any] | None,
        mover: int | None = None,
        stamp: datetime | None = None,
    ) -> None:
        """Take a stored change made on a copy of the game: a move by seat ``mover``, or a
        player leaving (``mover`` None), with the game's status, result and clock after it."""
        meta = self.meta
        if mover is not None:
            meta.move_seats.append(mover)
        self.game = trial
        meta.ply = trial.ply
        meta.status, meta.result, meta.clock = status, result, clock
        meta.resignations = [entry.to_json() for entry in trial.resignations]
        meta.updated_at = now() if stamp is None else stamp
        self._changed()

    def take_seat(self, seat: int, name: str, token_hash: str, account_id: int | None) -> None:
        """Give a free seat to a player (stored already); the game, not started yet, is
        rebuilt under the new names."""
        meta = self.meta
        meta.seats[seat] = replace(
            meta.seats[seat], name=name, token_hash=token_hash, account_id=account_id
        )
        self.game = rebuild(meta, [])
        self._effects = []
        meta.updated_at = now()
        self._changed()

    def go_live(self) -> None:
        """The game starts (stored already): its last seat was taken."""
        self.meta.status = LIVE
        self._changed()

    def set_clock(self, clock: dict[str, Any] | None) -> None:
        """Take a stored clock (started, or stopped)."""
        self.meta.clock = clock
        self._changed()

    def end(self, status: str, result: dict[str, Any], stamp: datetime) -> None:
        """Take a stored end that no move made (cancelled, abandoned)."""
        meta = self.meta
        meta.status, meta.result, meta.updated_at = status, result, stamp
        self._changed()

    def reload(self, meta: StoredGame, game: Game) -> None:
        """Take what the database holds after another process changed the game."""
        self.meta = meta
        self.game = game
        self._effects = []
        self._changed()

    def watch(self, subscriber: Subscriber, seats: Iterable[int] = ()) -> None:
        """A client starts receiving every broadcast, proving ``seats`` (again, after another
        ``hello``: its welcome tells it who is away)."""
        self.subscribers.add(subscriber)
        self._presence_changes(
            lambda at: self.presence.connect(subscriber, seats, at), skip=subscriber
        )

    def unwatch(self, subscriber: Subscriber) -> None:
        """A client has gone."""
        self.subscribers.discard(subscriber)
        self._presence_changes(lambda at: self.presence.disconnect(subscriber, at))

    def hear(self, origin: str, seats: Iterable[int], holds_ms: int) -> None:
        """Another server process said which seats have a client connected to it (true for
        ``holds_ms``)."""

        def change(at: int) -> bool:
            self.presence.hear(origin, seats, at, holds_ms)
            return False

        self._presence_changes(change, relay=False)

    def expire_presence(self) -> None:
        """Forget what another server process said of its seats once it no longer holds."""

        def change(at: int) -> bool:
            self.presence.expire(at)
            return False

        self._presence_changes(change, relay=False)

    def _presence_changes(
        self, change: Callable[[int], bool], skip: Subscriber | None = None, relay: bool = True
    ) -> None:
        """Apply a change of who is present (``change`` says whether the seats present in
        this process changed). Watchers of a live game are sent a ``presence`` message when
        the wait for a claim against the player to move starts, stops or starts again (not
        for every coming and going); the other processes hear of every change of the seats
        present here."""
        at = clocks.now_ms()
        before = self._claim_from(at)
        here_changed = change(at)
        live = self.meta.status == LIVE
        if live and self._claim_from(at) != before:
            text = to_json(self.presence_message(at))
            for subscriber in list(self.subscribers):
                if subscriber is not skip:
                    subscriber.send(text)
        if relay and here_changed and self.relay is not None and self.meta.status in (OPEN, LIVE):
            sync = {"here": sorted(self.presence.here)}
            self.relay(self.id, self.game.ply, sync, to_json(self.presence_message(at)))

    def _claim_from(self, at: int) -> tuple[int, int] | None:
        """The seat to move and when the others may claim the win against it, if they may."""
        wait = claim_wait(
            self.meta, self.game, self.presence, self.game.to_move, at, self.claim_after_ms
        )
        return None if isinstance(wait, str) else (self.game.to_move, at + wait)

    def relay_through(self, relay: Relay | None) -> None:
        """Pass every broadcast on to the other server processes through ``relay``."""
        self.relay = relay

    def claims_after(self, seconds: float) -> None:
        """Let the others claim the win against a person gone ``seconds`` on their turn."""
        self.claim_after_ms = round(seconds * 1000)

    def think(self, turn: Coroutine[Any, Any, None]) -> None:
        """Run an AI seat's turn as the room's one AI task (the caller checked ``thinking``)."""
        self.ai_task = asyncio.get_running_loop().create_task(turn)

    @property
    def thinking(self) -> bool:
        """Whether an AI seat's turn is under way."""
        return self.ai_task is not None and not self.ai_task.done()

    def take_host_token(self) -> str | None:
        """The host token of a game just created, once: the creation's answer sends it."""
        token, self.host_token = self.host_token, None
        return token

    def _changed(self) -> None:
        self.version += 1

    def explain(self, text: Any) -> dict[str, Any]:
        """Whether a move is legal now and, if not, why; if it is, what it would do (the
        engine's ``effects``, as in a state): the words of the hover explanations."""
        if not isinstance(text, str) or len(text) > MOVE_TEXT_CHARS:
            limit = T("move must be move text of at most {limit} characters", limit=MOVE_TEXT_CHARS)
            raise ApiError(400, "bad-request", limit)
        game = self.game
        if self.meta.status == OPEN:
            reason: str | None = T("the game starts when every seat is taken")
        elif self.meta.status != LIVE and not game.is_over:
            reason = T("the game is over")
        else:
            reason = game.explain(text)
        return explain_view(game, text, reason)

    def state_at(self, ply: int) -> dict[str, Any]:
        """The public view after the first ``ply`` moves (for the replay viewer)."""
        if type(ply) is not int or not 0 <= ply <= self.game.ply:
            raise ApiError(
                422,
                "bad-request",
                T("ply must be a whole number from 0 to {ply}", ply=self.game.ply),
            )
        if ply == self.game.ply:
            return self.state()
        moves = [str(m) for m in self.game.moves[:ply]]
        return state_view(self.meta, rebuild(self.meta, moves), self.game.ply, live=False)

    def public_record(self) -> dict[str, Any]:
        """The record to download, saying whether the game is rated: whole once finished;
        while the game runs, the deck is cut to the tiles already drawn, since the order of
        the rest is hidden."""
        record = self.record()
        record["result"] = None if self.game.result is None else self.game.result.to_json()
        record["rated"] = self.meta.rated
        if self.meta.status != FINISHED:
            seen = len(self.meta.deck) - self.game.tiles_left
            record["deck"] = self.meta.deck[:seen]
        return record


def game_record(meta: StoredGame, moves: list[str]) -> dict[str, Any]:
    """The record of a stored game after ``moves`` (deck included: for the server and its
    workers only), with the resignations up to the last of them."""
    return make_record(
        players=[seat_name(seat) for seat in meta.seats],
        options=meta.options,
        deck=meta.deck,
        doubles=meta.doubles,
        moves=moves,
        resignations=[r for r in meta.resignations if r["ply"] <= len(moves)],
    )


def rebuild(meta: StoredGame, moves: list[str]) -> Game:
    """Replay a stored game's moves from its deck (every move is checked again), with the
    resignations up to the last of them."""
    return Game.from_record(game_record(meta, moves))
