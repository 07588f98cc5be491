"""The authority over every game: creating and loading them, seats and tokens, move checking.

Each game in play lives in a ``Room`` (``taluva.server.games.room``): its engine position, the
clients watching it and a lock that puts submissions in order. A move is checked (seat,
state id, legality), stored, and only then applied and broadcast; the database's key on
``(game, ply)`` makes sure that of two submissions for the same ply exactly one is stored.
The AI seats' turns are played by ``taluva.server.games.ai_seats``, the storage calls run on the
threads of ``taluva.server.storage.database``.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar

from taluva.ai.levels import LEVELS
from taluva.engine.errors import IllegalMove, InvalidOption
from taluva.engine.game import Game
from taluva.engine.options import PLAYER_COUNTS
from taluva.server.ai.scheduling import Audience
from taluva.server.ai.workers import AiRunner, ai_spec
from taluva.server.config import Settings
from taluva.server.errors import ApiError, not_found
from taluva.server.games.ai_seats import AiSeats
from taluva.server.games.chances import WinChances
from taluva.server.games.cluster import Cluster
from taluva.server.games.lifecycle import Lifecycle
from taluva.server.games.room import MOVE_TEXT_CHARS, Room, rebuild
from taluva.server.players.accounts import Account
from taluva.server.players.names import clean_name
from taluva.server.players.standings import settle
from taluva.server.storage.checkpoints import Checkpoints
from taluva.server.storage.database import Database
from taluva.server.storage.store import (
    CANCELLED,
    FINISHED,
    LIVE,
    OPEN,
    NewMove,
    PlyTaken,
    Store,
    StoredGame,
    StoredSeat,
    now,
    token_digest,
)

log = logging.getLogger("taluva.server")

T = TypeVar("T")

GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,16}$")


class GameService:
    """Creates, loads and runs games; every HTTP route and WebSocket goes through it."""

    def __init__(self, settings: Settings, store: Store | None = None) -> None:
        self.settings = settings
        self.store = store or Store(settings.database, checkpoints_apart=True, game_end=settle)
        self.checkpoints = Checkpoints(self.store)
        """SQLite's checkpoints, off the moves' path (``taluva.server.storage.checkpoints``)."""
        self.ai = AiRunner(settings.ai_workers)
        self.chances = WinChances(self.ai, settings.win_chance_iterations)
        """The win-chance bar's answers (``taluva.server.games.chances``)."""
        self.rooms: dict[str, Room] = {}
        self.finished: OrderedDict[str, Room] = OrderedDict()
        self.seat_guards: list[Callable[[Room, int], Awaitable[None]]] = []
        """Checks ``join`` makes before giving a seat away; each refuses with an ApiError."""
        self.ai_only_admission = asyncio.Lock()
        """Held while a game with only AI seats is checked against its creator's quota and
        stored."""
        self.database = Database(self.store)
        """The store's calls off the event loop, moves in group commits."""
        self._loading: dict[str, asyncio.Lock] = {}
        """One lock per game being loaded, so a game is read once and others meanwhile."""
        self.ai_seats = AiSeats(self)
        """The AI seats' turns (``taluva.server.games.ai_seats``)."""
        self.lifecycle = Lifecycle(self)
        """Resignations, clocks, cancel and abandon (``taluva.server.games.lifecycle``)."""
        self.cluster = (
            Cluster(self, settings.redis, settings.reclaim_after) if settings.redis else None
        )
        """This process's links to the other server processes (None when it runs alone)."""

    async def db(self, function: Callable[..., T], *args: Any) -> T:
        """Run a storage call in a database thread and wait for it."""
        return await self.database.run(function, *args)

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Migrate the database, then resume every unfinished game (AI seats move again)."""
        await self.db(self.store.migrate)
        self.checkpoints.start()
        if self.cluster is not None:
            await self.cluster.start()
        for game_id in await self.db(self.store.unfinished_game_ids):
            try:
                room = await self.room(game_id)
            except Exception:
                log.exception("game %s cannot be resumed", game_id)
                continue
            self.schedule_ai(room)
        log.info("resumed %d unfinished games", len(self.rooms))
        await self.lifecycle.start()

    async def stop(self) -> None:
        """Stop AI turns and workers, then close the database."""
        self.ai_seats.closing = True
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
        if not GAME_ID.match(game_id):
            raise not_found(game_id)
        room = self.rooms.get(game_id) or self.finished.get(game_id)
        if room is not None:
            return room
        loading = self._loading.setdefault(game_id, asyncio.Lock())
        try:
            async with loading:
                room = self.rooms.get(game_id) or self.finished.get(game_id)
                if room is not None:
                    return room
                meta = await self.db(self.store.load_game, game_id)
                if meta is None:
                    raise not_found(game_id)
                moves, meta.moves = meta.moves, []
                room = Room(meta, rebuild(meta, moves))
                self.keep(room)
                return room
        finally:
            if not loading.locked() and self._loading.get(game_id) is loading:
                del self._loading[game_id]

    def keep(self, room: Room) -> None:
        """File a room among the running games or, once over, among the finished ones kept in
        memory (the oldest unwatched of those beyond ``Settings.finished_cache`` dropped)."""
        if self.cluster is not None:
            room.relay = self.cluster.relay
        if room.meta.status in (OPEN, LIVE):
            self.rooms[room.id] = room
            return
        self.rooms.pop(room.id, None)
        self.finished[room.id] = room
        self.finished.move_to_end(room.id)
        while len(self.finished) > self.settings.finished_cache:
            oldest = next(iter(self.finished))
            if self.finished[oldest].subscribers:
                self.finished.move_to_end(oldest)
                break
            del self.finished[oldest]

    async def create_game(
        self, request: dict[str, Any], account_id: int | None = None
    ) -> tuple[Room, list[dict[str, Any]]]:
        """Create a game from a lobby request of account ``account_id`` (None: a guest);
        return its room and the tokens of the seats the creator took (the only time a token
        is ever sent)."""
        limits = self.settings.limits
        seats, tokens = _seats_from_request(request.get("seats"), account_id, limits.name_chars)
        name = clean_name(
            request.get("name"), limits.game_name_chars, "name", f"{seats[0].name}'s game"
        )
        hints = request.get("hints", True)
        if not isinstance(hints, bool):
            raise ApiError(422, "bad-request", "hints must be true or false")
        try:
            game = Game.new(
                players=[seat.name for seat in seats],
                seed=secrets.randbits(64),
                tiles_per_player=request.get("tiles_per_player", 12),
                expansions=_strings(request.get("expansions", []), "expansions"),
                house_rules=_strings(request.get("house_rules", []), "house_rules"),
            )
        except InvalidOption as error:
            raise ApiError(422, "bad-option", str(error)) from None
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
        if all(seat.kind == "ai" for seat in seats):
            # counted and stored as one step, so two requests at once cannot both take the
            # last game of a quota in this process
            async with self.ai_only_admission:
                await self.ai_seats.admit_ai_only(meta, account_id)
                await self.db(self.store.create_game, meta)
        else:
            await self.db(self.store.create_game, meta)
        room = Room(meta, game, host_token=host_token)
        self.keep(room)
        self.lifecycle.arm(room)
        self.schedule_ai(room)
        return room, tokens

    async def join(
        self, game_id: str, seat: int, name: Any, account: Account | None = None
    ) -> dict[str, Any]:
        """Take a free human seat; return its token (sent to this client only). A signed-in
        ``account`` holds the seat under its own name, unless it holds one of this game's
        seats already (then the new seat is a guest's, as in hot-seat play)."""
        room = await self.room(game_id)
        if not 0 <= seat < len(room.meta.seats):
            raise ApiError(404, "not-found", f"game {game_id} has no seat {seat}")
        for guard in self.seat_guards:
            await guard(room, seat)
        clean = clean_name(name, self.settings.limits.name_chars, "name", f"Player {seat + 1}")
        async with room.lock:
            current = room.meta.seats[seat]
            if room.meta.status in (CANCELLED, FINISHED):
                raise ApiError(409, "over", f"game {game_id} is {room.meta.status}")
            if current.taken:
                raise ApiError(409, "seat-taken", f"seat {seat} of game {game_id} is taken")
            token = secrets.token_urlsafe(24)
            digest = token_digest(token)
            owner = account
            if owner is not None and room.seats_of_account(owner):
                owner = None
            if owner is not None:
                clean = owner.name
            owner_id = None if owner is None else owner.id
            if not await self.db(self.store.claim_seat, game_id, seat, clean, digest, owner_id):
                raise ApiError(409, "seat-taken", f"seat {seat} of game {game_id} is taken")
            room.meta.seats[seat] = replace(
                current, name=clean, token_hash=digest, account_id=owner_id
            )
            room.game = rebuild(room.meta, [])
            if all(s.taken for s in room.meta.seats):
                await self.db(self.store.set_status, game_id, LIVE)
                room.meta.status = LIVE
                await self.lifecycle.started(room)
            room.meta.updated_at = now()
            room.version += 1
            room.broadcast({"type": "state", "state": room.state()})
        self.schedule_ai(room)
        return {"seat": seat, "token": token}

    async def submit(self, room: Room, seats: set[int], state: Any, text: Any) -> dict[str, Any]:
        """Check, store, apply and broadcast one move; return the broadcast message.

        Refused (ApiError, nothing changed) unless the game is live, ``state`` is the current
        state id (the number of moves played), the player to move holds one of ``seats`` and
        the engine finds the move legal.
        """
        if type(state) is not int:
            raise ApiError(400, "bad-request", "state must be the state id (a whole number)")
        if not isinstance(text, str) or not text.strip():
            raise ApiError(400, "bad-request", "move must be move text such as 'tile 0,0 3'")
        if len(text) > MOVE_TEXT_CHARS:
            raise ApiError(400, "bad-request", f"move text is longer than {MOVE_TEXT_CHARS}")
        async with room.lock:
            if self.cluster is not None and (state != room.game.ply or room.meta.status == OPEN):
                await self.resync(room, None)  # another process may have moved on already
            await self.lifecycle.expire_due(room)
            game = room.game
            if room.meta.status == OPEN:
                raise ApiError(409, "waiting", "the game starts when every seat is taken")
            if game.is_over or room.meta.status != LIVE:
                raise ApiError(409, "over", "the game is over")
            if state != game.ply:
                raise ApiError(409, "stale", f"state {state} is not the current state {game.ply}")
            seat = game.to_move
            if seat not in seats:
                raise ApiError(
                    403,
                    "not-your-turn",
                    f"it is {room.meta.seats[seat].name}'s turn (seat {seat})",
                )
            trial = game.copy()
            try:
                trial.play(text)
            except IllegalMove as error:
                raise ApiError(422, "illegal", str(error)) from None
            canonical = str(trial.moves[-1])
            status = FINISHED if trial.is_over else LIVE
            result = None if trial.result is None else trial.result.to_json()
            clock = self.lifecycle.clock_after_move(
                room, seat, None if trial.is_over else trial.to_move
            )
            try:
                await self.database.store_move(
                    NewMove(
                        room.id,
                        game.ply,
                        seat,
                        canonical,
                        status,
                        result,
                        clock,
                        final=trial if trial.is_over else None,
                    )
                )
            except PlyTaken:
                raise ApiError(409, "stale", f"another move for state {state} came first") from None
            room.game = trial
            room.meta.move_seats.append(seat)
            room.meta.status = status
            room.meta.ply = trial.ply
            room.meta.result = result
            room.meta.clock = clock
            room.meta.updated_at = now()
            room.version += 1
            message = {
                "type": "move",
                "ply": game.ply,
                "seat": seat,
                "move": canonical,
                "state": room.state(),
            }
            room.broadcast(message)
            if status == FINISHED:
                self.keep(room)
            self.lifecycle.arm(room)
        self.schedule_ai(room)
        return message

    # ------------------------------------------------------------------ AI seats

    def schedule_ai(self, room: Room) -> None:
        """Start the AI turns of a room if an AI seat is to move (``AiSeats.schedule``)."""
        self.ai_seats.schedule(room)

    # ------------------------------------------------------------------ several processes

    async def resync(self, room: Room, message: dict[str, Any] | None) -> None:
        """Read a room's game again after another process changed it (the caller holds the
        room's lock): the moves it lacks are applied, the rest is replaced."""
        meta = await self.db(self.store.load_game, room.id)
        if meta is None:
            return
        moves, meta.moves = meta.moves, []
        game = room.game
        same_players = [s.name for s in meta.seats] == [s.name for s in room.meta.seats]
        if same_players and len(moves) >= game.ply:
            if len(moves) > game.ply:
                game = game.copy()
                for text in moves[game.ply :]:
                    game.play(text)
        else:
            game = rebuild(meta, moves)
        room.meta = meta
        room.game = game
        room.version += 1
        self.keep(room)
        self.lifecycle.arm(room)

    def apply_remote_move(self, room: Room, message: dict[str, Any], sync: dict[str, Any]) -> bool:
        """Apply a move another process stored, for this room's next ply, with the game's
        status and clock as that process keeps them (the caller holds the room's lock);
        False if it does not follow from this room's position (then ``resync``)."""
        game = room.game
        if message.get("ply") != game.ply or message.get("seat") != game.to_move:
            return False
        trial = game.copy()
        try:
            trial.play(message["move"])
        except (IllegalMove, KeyError, TypeError):
            return False
        meta = room.meta
        room.game = trial
        meta.move_seats.append(game.to_move)
        meta.ply = trial.ply
        meta.status = sync.get("status", meta.status)
        meta.result = sync.get("result")
        meta.clock = sync.get("clock")
        meta.updated_at = now()
        room.version += 1
        self.keep(room)
        self.lifecycle.arm(room)
        return True

    async def stale_rooms(self) -> list[Room]:
        """The rooms in memory whose stored ply or status differs from their own."""
        rooms = [*self.rooms.values(), *self.finished.values()]
        stored = await self.db(self.store.progress, [room.id for room in rooms])
        return [
            room
            for room in rooms
            if room.id in stored and stored[room.id] != (room.game.ply, room.meta.status)
        ]

    async def hint(self, room: Room, seats: set[int]) -> dict[str, Any]:
        """The AI's suggestion for the player to move, if this game allows hints."""
        if not room.meta.hints:
            raise ApiError(403, "hints-off", "hints are turned off in this game")
        game = room.game
        if room.meta.status != LIVE or game.is_over:
            raise ApiError(409, "over", "there is no move to suggest")
        if game.to_move not in seats:
            raise ApiError(403, "not-your-turn", "hints are for the player to move")
        try:
            move, value = await self.ai.hint(
                room.record(), self.settings.hint_level, game=room.id, audience=Audience.PEOPLE
            )
        except ImportError:
            raise ApiError(503, "unavailable", "the AI is not installed on this server") from None
        return {"type": "hint", "ply": game.ply, "move": move, "value": round(value, 3)}


def _strings(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ApiError(422, "bad-request", f"{what} must be a list of names")
    return value


def _seats_from_request(
    seats_in: Any, account_id: int | None, name_chars: int
) -> tuple[list[StoredSeat], list[dict[str, Any]]]:
    """The seats a lobby request asks for, and a token for each seat its creator takes (a
    signed-in creator's account holds the first of them); ApiError 422 naming the bad field."""
    if not isinstance(seats_in, list) or len(seats_in) not in PLAYER_COUNTS:
        raise ApiError(422, "bad-request", "seats must list 2 to 5 seats")
    seats: list[StoredSeat] = []
    tokens: list[dict[str, Any]] = []
    for index, spec in enumerate(seats_in):
        if not isinstance(spec, dict):
            raise ApiError(422, "bad-request", f"seats[{index}] must be an object")
        kind = spec.get("kind")
        if kind == "ai":
            level = spec.get("level")
            if type(level) is not int or level not in LEVELS:
                raise ApiError(
                    422,
                    "bad-request",
                    f"seats[{index}].level must be a whole number {min(LEVELS)} to {max(LEVELS)}",
                )
            seats.append(StoredSeat(index, "ai", f"AI level {level}", ai_spec(level)))
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
            raise ApiError(422, "bad-request", f"seats[{index}].kind must be 'human' or 'ai'")
    return seats, tokens
