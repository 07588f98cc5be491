"""The authority over every game: it assembles the parts of a game's life and creates games.

Each game in play lives in a ``Room`` (``games.room``), held by this process's ``Rooms``
(``games.registry``). Moves go through ``Moves`` (``games.play``), resignations, clocks,
cancelling and abandoning through ``Lifecycle`` (``games.lifecycle``), the AI seats' turns
through ``AiSeats`` (``games.ai_seats``); storage calls run on the threads of
``storage.database``. The service itself creates games, gives seats away and answers hints.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Final, TypeVar

from taluva.ai.levels import LEVELS
from taluva.engine.errors import InvalidOption
from taluva.engine.game import Game
from taluva.engine.options import PLAYER_COUNTS
from taluva.engine.wording import N_, T, Text
from taluva.lang import say
from taluva.server.ai.scheduling import Audience
from taluva.server.ai.workers import AiRunner, ai_spec
from taluva.server.config import Settings
from taluva.server.errors import ApiError
from taluva.server.games.ai_seats import AiSeats
from taluva.server.games.chances import WinChances
from taluva.server.games.cluster import Cluster
from taluva.server.games.lifecycle import Lifecycle
from taluva.server.games.play import Moves
from taluva.server.games.registry import Rooms
from taluva.server.games.room import Room
from taluva.server.games.view import ai_seat_name, seat_name, summary_view
from taluva.server.games.words import reason_of
from taluva.server.metrics import Metrics
from taluva.server.players.accounts import Account
from taluva.server.players.names import clean_name
from taluva.server.players.ratings import ratings_of
from taluva.server.players.standings import settle, subject_of
from taluva.server.storage.checkpoints import Checkpoints
from taluva.server.storage.database import Database
from taluva.server.storage.store import (
    CANCELLED,
    FINISHED,
    LIVE,
    OPEN,
    Store,
    StoredGame,
    StoredSeat,
    now,
    token_digest,
)

log = logging.getLogger("taluva.server")

R = TypeVar("R")


class GameService:
    """Creates, loads and runs games; every HTTP route and WebSocket goes through it."""

    def __init__(
        self,
        settings: Settings,
        store: Store | None = None,
        ai: AiRunner | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.settings = settings
        self.metrics = metrics or Metrics()
        """This service's Prometheus metrics (``taluva.server.metrics``, ``GET /metrics``)."""
        self.store = store or Store(settings.database, checkpoints_apart=True, game_end=settle)
        self.checkpoints = Checkpoints(self.store)
        """SQLite's checkpoints, off the moves' path (``taluva.server.storage.checkpoints``)."""
        self.database = Database(self.store)
        """The store's calls off the event loop, moves in group commits."""
        self.ai = ai or AiRunner(settings.ai_workers)
        """Where the AI's work runs (the worker pool; a stand-in in tests)."""
        self.chances = WinChances(self.ai, settings.win_chance_iterations)
        """The win-chance bar's answers (``taluva.server.games.chances``)."""
        self.registry = Rooms(self.database, settings.finished_cache, settings.claim_after)
        """The rooms this process holds (``taluva.server.games.registry``)."""
        self.seat_guards: list[Callable[[Room, int], Awaitable[None]]] = []
        """Checks ``join`` makes before giving a seat away; each refuses with an ApiError."""
        self.ai_only_admission = asyncio.Lock()
        """Held while a game with only AI seats is checked against its creator's quota and
        stored."""
        self.lifecycle = Lifecycle(settings, self.database, self.registry)
        """Resignations, clocks, cancel and abandon (``taluva.server.games.lifecycle``)."""
        self.moves = Moves(
            self.database,
            self.registry,
            self.lifecycle,
            shared=settings.redis is not None,
            metrics=self.metrics,
        )
        """Every move's checks, storing and broadcast (``taluva.server.games.play``)."""
        self.ai_seats = AiSeats(settings, self.database, self.ai, self.registry, self.moves)
        """The AI seats' turns (``taluva.server.games.ai_seats``)."""
        self.registry.listeners += [self.lifecycle.arm, self.ai_seats.schedule]
        self.registry.settle.append(self.lifecycle.resume)
        self.registry.loaded.append(self.ai_seats.schedule)
        self.registry.unloaded.append(self.lifecycle.disarm)
        self.resuming: asyncio.Task[int] | None = None
        """The look for AI turns a stop cut off, run after the start (one process alone)."""
        self.cluster: Cluster | None = None
        """This process's links to the other server processes (None when it runs alone)."""
        if settings.redis:
            self.cluster = Cluster(
                self.registry,
                self.ai_seats,
                settings.redis,
                settings.reclaim_after,
                lifecycle=self.lifecycle,
            )
            self.registry.relay = self.cluster.relay
            self.registry.follow = self.cluster.bus.follow
            self.registry.unfollow = self.cluster.bus.unfollow
            self.ai_seats.remote = self.cluster.ask_ai
        self._watch()

    def _watch(self) -> None:
        """Let the metrics read the games being played, the AI queue and the database's
        failures."""
        rooms = self.registry.live
        self.metrics.count_live_games(
            lambda: sum(1 for room in list(rooms.values()) if room.meta.status == LIVE)
        )
        scheduler = getattr(self.ai, "scheduler", None)  # a test's stand-in may have none
        if scheduler is not None:
            self.metrics.count_ai_queue(scheduler.waiting)
            scheduler.waited = self.metrics.ai_wait.observe
        self.store.outage.failed = self.metrics.database_error

    @property
    def rooms(self) -> dict[str, Room]:
        """The rooms of the open and live games in memory."""
        return self.registry.live

    @property
    def finished(self) -> dict[str, Room]:
        """The finished games kept in memory."""
        return self.registry.finished

    async def db(self, function: Callable[..., R], *args: Any) -> R:
        """Run a storage call in a database thread and wait for it."""
        return await self.database.run(function, *args)

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Migrate the database and start the clocks' and abandon checks, holding no game:
        each is loaded when first opened or due (``Rooms``), so starting takes as long
        with ten games stored as with ten thousand. The AI turns a stop cut off are found
        after the start (alone: ``resume_ai_turns``; with others: the reconciliation)."""
        self.store.outage.report = True
        await self.db(self.store.migrate)
        self.checkpoints.start()
        if self.cluster is not None:
            await self.cluster.start()
        await self.lifecycle.start()
        if self.cluster is None:
            self.resuming = asyncio.get_running_loop().create_task(
                self.resume_ai_turns(), name="taluva-resume-ai"
            )

    async def resume_ai_turns(self) -> int:
        """Load every live game whose seat to move is an AI (its turn starts on loading);
        return how many. The others are looked at without being kept."""
        count = 0
        for game_id in await self.db(self.store.live_ai_games):
            try:
                seen = await self.registry.peek(game_id)
                if seen is not None and self.ai_seats.to_move(seen) is not None:
                    await self.room(game_id)
                    count += 1
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the AI turn of game %s cannot be resumed", game_id)
        log.info("resumed the AI turns of %d games", count)
        return count

    async def stop(self) -> None:
        """Stop AI turns and workers, then close the database."""
        self.ai_seats.closing = True
        if self.resuming is not None:
            self.resuming.cancel()
            await asyncio.gather(self.resuming, return_exceptions=True)
        await self.lifecycle.stop()
        if self.cluster is not None:
            await self.cluster.stop()
        await self.ai_seats.stop()
        self.ai.close()
        self.database.close()
        await self.checkpoints.stop()
        self.store.close()

    # ------------------------------------------------------------------ games

    async def room(self, game_id: str) -> Room:
        """The room of a game, loaded from the database on first use; ApiError 404 if none."""
        return await self.registry.load(game_id)

    async def create_game(
        self, request: dict[str, Any], account_id: int | None = None
    ) -> tuple[Room, list[dict[str, Any]]]:
        """Create a game from a lobby request of account ``account_id`` (None: a guest);
        return its room and the tokens of the seats the creator took (the only time a token
        is ever sent)."""
        limits = self.settings.limits
        seats, tokens = _seats_from_request(request.get("seats"), account_id, limits.name_chars)
        name = clean_name(
            request.get("name"),
            limits.game_name_chars,
            "name",
            # stored as the creator reads it: a name is the game's data, not the site's words
            say(T("{name}'s game", name=seats[0].name)),
        )
        hints = request.get("hints", True)
        if not isinstance(hints, bool):
            raise ApiError(422, "bad-request", T("hints must be true or false"))
        try:
            game = Game.new(
                players=[seat_name(seat) for seat in seats],
                seed=secrets.randbits(64),
                tiles_per_player=request.get("tiles_per_player", 12),
                expansions=_strings(request.get("expansions", []), "expansions"),
                house_rules=_strings(request.get("house_rules", []), "house_rules"),
            )
        except InvalidOption as error:
            raise ApiError(422, "bad-option", reason_of(error)) from None
        record = game.to_record()
        stamp = now()
        meta = StoredGame.starting(
            secrets.token_urlsafe(6),
            name,
            record,
            seats,
            status=LIVE if all(seat.taken for seat in seats) else OPEN,
            hints=hints,
            stamp=stamp,
        )
        host_token = self.lifecycle.prepare(meta, request.get("clock"), account_id)
        meta.rated = rated_choice(request.get("rated"), meta)
        if all(seat.kind == "ai" for seat in seats):
            # counted and stored as one step, so two requests at once cannot both take the
            # last game of a quota in this process
            async with self.ai_only_admission:
                await self.ai_seats.admit_ai_only(meta, account_id)
                await self.db(self.store.create_game, meta)
        else:
            await self.db(self.store.create_game, meta)
        room = Room(meta, game, host_token=host_token)
        self.registry.changed(room)
        if self.cluster is not None:
            # the creation's request carried no game id, so any process got it; the game's
            # own requests go to the process its id picks (deploy/nginx), which loads it
            self.registry.idle_now(room)
        return room, tokens

    async def summaries(self, games: Iterable[StoredGame]) -> list[dict[str, Any]]:
        """The lobby entries of ``games``, each seat with its holder's rating."""
        games = list(games)
        subjects = {subject_of(seat) for game in games for seat in game.seats}
        subjects.discard(None)
        ratings = await self.db(ratings_of, self.store.engine, subjects)
        return [summary_view(game, ratings) for game in games]

    async def join(
        self, game_id: str, seat: int, name: Any, account: Account | None = None
    ) -> dict[str, Any]:
        """Take a free human seat; return its token (sent to this client only). A signed-in
        ``account`` holds the seat under its own name, unless it holds one of this game's
        seats already (then the new seat is a guest's, as in hot-seat play)."""
        room = await self.room(game_id)
        if not 0 <= seat < len(room.meta.seats):
            raise ApiError(
                404, "not-found", T("game {game} has no seat {seat}", game=game_id, seat=seat)
            )
        for guard in self.seat_guards:
            await guard(room, seat)
        clean = clean_name(name, self.settings.limits.name_chars, "name", f"Player {seat + 1}")
        async with room.lock:
            current = room.meta.seats[seat]
            if room.meta.status in (CANCELLED, FINISHED):
                raise ApiError(409, "over", _status_words(game_id, room.meta.status))
            if current.taken:
                raise ApiError(409, "seat-taken", _seat_taken(game_id, seat))
            token = secrets.token_urlsafe(24)
            digest = token_digest(token)
            owner = account
            if owner is not None and room.seats_of_account(owner):
                owner = None
            if owner is None and room.meta.rated:
                raise ApiError(
                    403,
                    "rated-account",
                    T(
                        "a seat of a rated game is taken by a signed-in player who holds no "
                        "other seat of it"
                    ),
                )
            if owner is not None:
                clean = owner.name
            owner_id = None if owner is None else owner.id
            if not await self.db(self.store.claim_seat, game_id, seat, clean, digest, owner_id):
                raise ApiError(409, "seat-taken", _seat_taken(game_id, seat))
            room.take_seat(seat, clean, digest, owner_id)
            if all(s.taken for s in room.meta.seats):
                await self.db(self.store.set_status, game_id, LIVE)
                room.go_live()
                await self.lifecycle.started(room)
            room.broadcast({"type": "state", "state": room.state()})
            self.registry.changed(room)
        return {"seat": seat, "token": token}

    async def submit(self, room: Room, seats: set[int], state: Any, text: Any) -> dict[str, Any]:
        """Check, store, apply and broadcast one move (``Moves.submit``)."""
        return await self.moves.submit(room, seats, state, text)

    async def hint(self, room: Room, seats: set[int]) -> dict[str, Any]:
        """The AI's suggestion for the player to move, if this game allows hints: never in a
        rated game, where it would help a player against a rating."""
        if room.meta.rated:
            raise ApiError(403, "rated", T("hints are not given in rated games"))
        if not room.meta.hints:
            raise ApiError(403, "hints-off", T("hints are turned off in this game"))
        game = room.game
        if room.meta.status != LIVE or game.is_over:
            raise ApiError(409, "over", T("there is no move to suggest"))
        if game.to_move not in seats:
            raise ApiError(403, "not-your-turn", T("hints are for the player to move"))
        try:
            move, value = await self.ai.hint(
                room.record(), self.settings.hint_level, game=room.id, audience=Audience.PEOPLE
            )
        except ImportError:
            raise ApiError(
                503, "unavailable", T("the AI is not installed on this server")
            ) from None
        return {"type": "hint", "ply": game.ply, "move": move, "value": round(value, 3)}


RATED_NEEDS_CLOCK: Final = T("a rated game needs a clock (real-time or turn-based)")
"""Why a game without a clock cannot be rated (creating one, seeking or challenging)."""


def rated_choice(requested: Any, meta: StoredGame) -> bool:
    """Whether a new game is rated: as ``requested`` (true, false, or None for "rated when it
    can be"); ApiError 422 ``not-rateable`` saying why when true is asked of a game that
    cannot be. A rated game has a clock, a person at the table, and every seat an AI level,
    a free seat or a signed-in player's only seat."""
    if requested is not None and not isinstance(requested, bool):
        raise ApiError(422, "bad-request", T("rated must be true, false or left out"))
    taken = [seat for seat in meta.seats if seat.taken]
    why = None
    if meta.clock is None:
        why = RATED_NEEDS_CLOCK
    elif not any(seat.kind == "human" for seat in meta.seats):
        why = T("a rated game needs a person at the table")
    elif any(seat.account_id is None for seat in taken if seat.kind == "human"):
        why = T("a rated game's seats are taken by signed-in players, one seat each")
    if why is None:
        return requested is not False
    if requested:
        raise ApiError(422, "not-rateable", why)
    return False


def _seat_taken(game_id: str, seat: int) -> Text:
    return T("seat {seat} of game {game} is taken", seat=seat, game=game_id)


def _status_words(game_id: str, status: str) -> Text:
    """Why a seat of a game no longer open cannot be taken: the game's status in words."""
    words = {
        LIVE: N_("game {game} is live"),
        FINISHED: N_("game {game} is finished"),
        CANCELLED: N_("game {game} is cancelled"),
    }
    return T(words.get(status, N_("game {game} is {status}")), game=game_id, status=status)


def _strings(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ApiError(422, "bad-request", T("{field} must be a list of names", field=what))
    return value


def _seats_from_request(
    seats_in: Any, account_id: int | None, name_chars: int
) -> tuple[list[StoredSeat], list[dict[str, Any]]]:
    """The seats a lobby request asks for, and a token for each seat its creator takes (a
    signed-in creator's account holds the first of them); ApiError 422 naming the bad field."""
    if not isinstance(seats_in, list) or len(seats_in) not in PLAYER_COUNTS:
        raise ApiError(
            422,
            "bad-request",
            T(
                "seats must list {low} to {high} seats",
                low=min(PLAYER_COUNTS),
                high=max(PLAYER_COUNTS),
            ),
        )
    seats: list[StoredSeat] = []
    tokens: list[dict[str, Any]] = []
    for index, spec in enumerate(seats_in):
        if not isinstance(spec, dict):
            raise ApiError(
                422, "bad-request", T("{field} must be an object", field=f"seats[{index}]")
            )
        kind = spec.get("kind")
        if kind == "ai":
            level = spec.get("level")
            if type(level) is not int or level not in LEVELS:
                raise ApiError(
                    422,
                    "bad-request",
                    T(
                        "{field} must be a whole number {low} to {high}",
                        field=f"seats[{index}].level",
                        low=min(LEVELS),
                        high=max(LEVELS),
                    ),
                )
            seats.append(StoredSeat(index, "ai", str(ai_seat_name(level)), ai_spec(level)))
        elif kind == "human":
            name = clean_name(
                spec.get("name"),
                name_chars,
                f"seats[{index}].name",
                f"Player {index + 1}",
            )
            token_hash = None
            owner = None
            if spec.get("take") is True:
                token = secrets.token_urlsafe(24)
                token_hash = token_digest(token)
                tokens.append({"seat": index, "token": token})
                # a signed-in creator's account holds the first seat it takes, no other
                if account_id is not None and all(s.account_id != account_id for s in seats):
                    owner = account_id
            seats.append(StoredSeat(index, "human", name, None, token_hash, owner))
        else:
            raise ApiError(
                422,
                "bad-request",
                T(
                    "{field} must be {human} or {ai}",
                    field=f"seats[{index}].kind",
                    human="'human'",
                    ai="'ai'",
                ),
            )
    return seats, tokens
