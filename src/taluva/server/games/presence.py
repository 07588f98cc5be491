"""Who is at the table: which people's seats of a game have a client connected, and since when
each has been gone, so that the others may claim the win against a player who left on their
turn (``Lifecycle.claim``).

A seat is present while a WebSocket that proved it (its token in ``hello``, or its account)
is open on this process or, as this process heard, on another one. With several server
processes each tells the others which seats are present on it with every broadcast it relays
and, every beat, for each game where any is (``games.cluster``). What it heard holds for a
few beats and then counts as gone, so a process that died keeps nobody present for ever; and
nobody counts as gone for longer than this process has held the game, so a process that has
just loaded it (or restarted) hears the others' beats before anyone may be claimed against.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from taluva.engine.game import Game
from taluva.engine.wording import T
from taluva.server.games import clocks
from taluva.server.storage.store import LIVE, StoredGame, utc

MAX_BEAT_SECONDS: Final = 15.0
"""The longest time between two of a process's reports of the seats present on it."""
BEATS_HEARD: Final = 3
"""Beats for which what another process said holds: two reports may be lost on the way."""


def beat_seconds(claim_after: float) -> float:
    """How often each process reports its present seats: well within the claim time, so a
    process that has held a game for that long has heard every other process's report."""
    return min(MAX_BEAT_SECONDS, claim_after / 4)


class Presence:
    """The present seats of one game in this process, those heard of elsewhere, and when each
    seat was last seen."""

    def __init__(self, opened: int) -> None:
        self.opened = opened
        """When this process took the game in memory (milliseconds since the epoch)."""
        self._clients: dict[object, frozenset[int]] = {}
        """The seats each client watching the game here proved."""
        self._here: frozenset[int] = frozenset()
        self._there: dict[str, tuple[frozenset[int], int]] = {}
        """Per other process: the seats it said were present on it, and until when that holds."""
        self._seen: dict[int, int] = {}
        """Per seat: when it was last known present (it has gone since)."""

    @property
    def here(self) -> frozenset[int]:
        """The seats a client connected to this process proves."""
        return self._here

    def present(self) -> frozenset[int]:
        """The seats present, here or (as last heard, until it ``expire``s) in another
        process."""
        return self._here.union(*(there for there, _until in self._there.values()))

    def gone_since(self, seat: int) -> int | None:
        """Since when ``seat`` has been gone (milliseconds since the epoch), never before this
        process held the game; None while it is present."""
        if seat in self.present():
            return None
        return max(self.opened, self._seen.get(seat, 0))

    def connect(self, client: object, seats: Iterable[int], at: int) -> bool:
        """``client`` watches the game, proving ``seats`` (again, after a new ``hello``);
        return whether the seats present here changed."""
        before = self._here, self.present()
        self._clients[client] = frozenset(seats)
        return self._update(before, at)

    def disconnect(self, client: object, at: int) -> bool:
        """``client`` has gone; return whether the seats present here changed."""
        before = self._here, self.present()
        self._clients.pop(client, None)
        return self._update(before, at)

    def hear(self, origin: str, seats: Iterable[int], at: int, holds_ms: int) -> None:
        """Another process (``origin``) said at ``at`` which seats are present on it; it
        holds for ``holds_ms``, unless that process says otherwise first."""
        before = self.present()
        self.expire(at)
        self._forget(origin, at)
        there = frozenset(seats)
        if there:
            self._there[origin] = (there, at + holds_ms)
        self._saw(before - self.present(), at)

    def expire(self, at: int) -> None:
        """Forget what the other processes said that no longer holds at ``at`` (a process
        that stopped telling, as when it ended): their seats have been gone since."""
        for origin in [name for name, (_, until) in self._there.items() if until <= at]:
            self._forget(origin, at)

    def _update(self, before: tuple[frozenset[int], frozenset[int]], at: int) -> bool:
        self._here = frozenset().union(*self._clients.values())
        self._saw(before[1] - self.present(), at)
        return self._here != before[0]

    def _forget(self, origin: str, at: int) -> None:
        """Drop what ``origin`` said: its seats were last known present when it stopped
        holding (or now, if it held still)."""
        old = self._there.pop(origin, None)
        if old is not None:
            self._saw(old[0], min(old[1], at))

    def _saw(self, seats: Iterable[int], at: int) -> None:
        for seat in seats:
            self._seen[seat] = max(self._seen.get(seat, 0), at)


def claim_wait(
    meta: StoredGame, game: Game, presence: Presence, seat: int, at: int, after_ms: int | None
) -> int | str:
    """Milliseconds before the other players may claim the win against ``seat`` (0: now),
    or why no claim against it can come: a claim is against a person gone for ``after_ms``
    on their turn, in a live game without a turn-based clock (whose running out is a timeout
    already), by another person still in the game and present."""
    name = meta.seats[seat].name
    if after_ms is None or meta.status != LIVE or game.is_over:
        return T("the game is not being played")
    if meta.seats[seat].kind != "human":
        return T("{name} is played by the AI, which never leaves", name=name)
    out = set(game.eliminated)
    if seat in out:
        return T("{name} is out of the game already", name=name)
    if meta.clock is not None and meta.clock["kind"] == clocks.TURN:
        return T("{name} has a turn-based clock: they are out when it runs out", name=name)
    if seat != game.to_move:
        return T("{name} is not to move: a claim is against a player gone on their turn", name=name)
    since = presence.gone_since(seat)
    if since is None:
        return T("{name} is connected", name=name)
    if not presence.present() - out:
        return T("nobody still in the game is connected to claim it")
    turn = int(utc(meta.updated_at).timestamp() * 1000)
    return max(0, max(since, turn) + after_ms - at)


def claims_of(
    meta: StoredGame, game: Game, presence: Presence, at: int, after_ms: int | None
) -> Mapping[int, int]:
    """The wait (milliseconds) before the others may claim the win, by seat: only the seat to
    move, and only while a claim against it can come."""
    if meta.status != LIVE:
        return {}
    wait = claim_wait(meta, game, presence, game.to_move, at, after_ms)
    return {game.to_move: wait} if isinstance(wait, int) else {}
