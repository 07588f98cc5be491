"""The authority over every game: seats and tokens, move checking, storage, broadcast, AI turns.

Each game in play lives in a ``Room``: its engine position, the clients watching it and a lock
that puts submissions in order. A move is checked (seat, state id, legality), stored, and
only then applied and broadcast; the database's key on ``(game, ply)`` makes sure that of
two submissions for the same ply exactly one is stored.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import re
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

from taluva.ai.levels import LEVELS
from taluva.engine.errors import IllegalMove, InvalidOption
from taluva.engine.game import Game
from taluva.engine.record import RECORD_FORMAT
from taluva.server import clocks
from taluva.server.accounts import Account
from taluva.server.ai_queue import AiJob, AiResult
from taluva.server.chances import WinChances
from taluva.server.checkpoints import Checkpoints
from taluva.server.cluster import Cluster, Relay
from taluva.server.config import Settings
from taluva.server.errors import ApiError, not_found
from taluva.server.lifecycle import Lifecycle
from taluva.server.names import clean_name
from taluva.server.scheduling import Audience, SchedulerClosed, check_ai_only_game
from taluva.server.store import (
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
from taluva.server.view import state_view
from taluva.server.wire import to_json
from taluva.server.workers import AiRunner, ai_spec, fallback_move, move_seed

log = logging.getLogger("taluva.server")

T = TypeVar("T")

GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,16}$")
MOVE_TEXT_CHARS = 200


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
    host_token: str | None = None
    """The host token of a game just created, until the creation's answer has sent it."""
    version: int = 0
    relay: Relay | None = None
    """Passes each broadcast on to the other server processes (None when there are none)."""

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
        clock's times are those of the moment of asking)."""
        if self._cache is None or self._cache[0] != self.version:
            self._cache = (self.version, state_view(self.meta, self.game))
        clock = self.meta.clock
        if clock is not None and clock["running"] is not None:
            return {**self._cache[1], "clock": clocks.clock_view(clock, clocks.now_ms())}
        return self._cache[1]

    def broadcast(self, message: dict[str, Any]) -> None:
        """Send one message to every watching client."""
        text = to_json(message)
        for subscriber in list(self.subscribers):
            subscriber.send(text)
        if self.relay is not None:
            meta = self.meta
            sync = {"status": meta.status, "result": meta.result, "clock": meta.clock}
            self.relay(self.id, self.game.ply, sync, text)

    def record(self, moves: list[str] | None = None) -> dict[str, Any]:
        """The full game record (with the hidden deck: for the server and its workers only)."""
        return {
            "format": RECORD_FORMAT,
            "players": [seat.name for seat in self.meta.seats],
            "options": self.meta.options,
            "deck": self.meta.deck,
            "doubles": self.meta.doubles,
            "moves": [str(m) for m in self.game.moves] if moves is None else moves,
            "result": None,
            "resignations": self.meta.resignations,
        }


def rebuild(meta: StoredGame, moves: list[str]) -> Game:
    """Replay a stored game's moves from its deck (every move is checked again), with the
    resignations up to the last of them."""
    return Game.from_record(
        {
            "format": RECORD_FORMAT,
            "players": [seat.name for seat in meta.seats],
            "options": meta.options,
            "deck": meta.deck,
            "doubles": meta.doubles,
            "moves": moves,
            "result": None,
            "resignations": [r for r in meta.resignations if r["ply"] <= len(moves)],
        }
    )


class GameService:
    """Creates, loads and runs games; every HTTP route and WebSocket goes through it."""

    def __init__(self, settings: Settings, store: Store | None = None) -> None:
        self.settings = settings
        self.store = store or Store(settings.database, checkpoints_apart=True)
        self.checkpoints = Checkpoints(self.store)
        """SQLite's checkpoints, off the moves' path (``taluva.server.checkpoints``)."""
        self.ai = AiRunner(settings.ai_workers)
        self.chances = WinChances(self.ai, settings.win_chance_iterations)
        """The win-chance bar's answers (``taluva.server.chances``)."""
        self.rooms: dict[str, Room] = {}
        self.finished: OrderedDict[str, Room] = OrderedDict()
        self.seat_guards: list[Callable[[Room, int], Awaitable[None]]] = []
        """Checks ``join`` makes before giving a seat away; each refuses with an ApiError."""
        self.ai_only_admission = asyncio.Lock()
        """Held while a game with only AI seats is checked against its creator's quota and
        stored."""
        self._db_pool = ThreadPoolExecutor(
            max_workers=1 if self.store.url.startswith("sqlite") else 4,
            thread_name_prefix="taluva-db",
        )
        self._loading: dict[str, asyncio.Lock] = {}
        """One lock per game being loaded, so a game is read once and others meanwhile."""
        self._closing = False
        self._unwritten: list[tuple[NewMove, asyncio.Future[None]]] = []
        self._writing: asyncio.Task[None] | None = None
        self.lifecycle = Lifecycle(self)
        """Resignations, clocks, cancel and abandon (``taluva.server.lifecycle``)."""
        self.cluster = (
            Cluster(self, settings.redis, settings.reclaim_after) if settings.redis else None
        )
        """This process's links to the other server processes (None when it runs alone)."""

    async def db(self, function: Callable[..., T], *args: Any) -> T:
        """Run a storage call in the database thread and wait for it."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._db_pool, function, *args)

    async def store_move(self, move: NewMove) -> None:
        """Store one move; return once it is committed (PlyTaken if its ply was taken).

        Group commit: the moves submitted while a write is under way wait for it to end and
        are then stored together, in one transaction, so a busy server commits once per batch
        rather than once per move, and no move waits for more than the write before its own.
        """
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._unwritten.append((move, future))
        if self._writing is None:
            self._writing = asyncio.get_running_loop().create_task(self._write_moves())
        await future

    async def _write_moves(self) -> None:
        try:
            while self._unwritten:
                batch, self._unwritten = self._unwritten, []
                try:
                    outcomes = await self.db(self.store.append_moves, [move for move, _ in batch])
                except Exception as error:
                    for _move, future in batch:
                        if not future.done():
                            future.set_exception(error)
                    continue
                for (_move, future), outcome in zip(batch, outcomes, strict=True):
                    if future.done():
                        continue
                    if outcome is None:
                        future.set_result(None)
                    else:
                        future.set_exception(outcome)
        finally:
            self._writing = None
            for _move, future in self._unwritten:
                if not future.done():
                    future.set_exception(RuntimeError("the server is stopping"))
            self._unwritten = []

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
        self._closing = True
        await self.lifecycle.stop()
        if self.cluster is not None:
            await self.cluster.stop()
        tasks = [room.ai_task for room in self.rooms.values() if room.ai_task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.ai.close()
        self._db_pool.shutdown(wait=True)
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
                self._keep(room)
                return room
        finally:
            if not loading.locked() and self._loading.get(game_id) is loading:
                del self._loading[game_id]

    def _keep(self, room: Room) -> None:
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
        seats_in = request.get("seats")
        if not isinstance(seats_in, list) or not 2 <= len(seats_in) <= 5:
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
                        f"seats[{index}].level must be a whole number "
                        f"{min(LEVELS)} to {max(LEVELS)}",
                    )
                seats.append(StoredSeat(index, "ai", f"AI level {level}", ai_spec(level)))
            elif kind == "human":
                name = clean_name(
                    spec.get("name"),
                    limits.name_chars,
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
                await self._admit_ai_only(meta, account_id)
                await self.db(self.store.create_game, meta)
        else:
            await self.db(self.store.create_game, meta)
        room = Room(meta, game, host_token=host_token)
        self._keep(room)
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
                await self.store_move(
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
                self._keep(room)
            self.lifecycle.arm(room)
        self.schedule_ai(room)
        return message

    # ------------------------------------------------------------------ AI and helpers

    def _ai_to_move(self, room: Room) -> StoredSeat | None:
        if room.meta.status != LIVE or room.game.is_over:
            return None
        seat = room.meta.seats[room.game.to_move]
        return seat if seat.kind == "ai" else None

    def audience(self, room: Room) -> Audience:
        """Who waits for this game's AI work: people, unless every seat is an AI."""
        if all(seat.kind == "ai" for seat in room.meta.seats):
            return Audience.AI_ONLY
        return Audience.PEOPLE

    async def _admit_ai_only(self, meta: StoredGame, account_id: int | None) -> None:
        """Refuse a game with only AI seats that its creator may not have (see
        ``check_ai_only_game``): the account's unfinished ones are counted in the database."""
        live = 0
        if account_id is not None and self.settings.ai_only_quota > 0:
            live = await self.db(self.store.unfinished_ai_only_games, account_id)
        settings = self.settings
        check_ai_only_game(
            [seat.kind for seat in meta.seats],
            account_id is not None,
            settings.ai_only_games,
            settings.ai_only_quota,
            live,
        )

    def schedule_ai(self, room: Room) -> None:
        """Start the AI turns of a room if an AI seat is to move (once at a time)."""
        if self._closing or self._ai_to_move(room) is None:
            return
        if self.cluster is not None:  # the AI workers of the whole server play it
            self.cluster.ask_ai(room)
            return
        if room.ai_task is not None and not room.ai_task.done():
            return
        room.ai_task = asyncio.get_running_loop().create_task(self._play_ai(room))

    async def _play_ai(self, room: Room) -> None:
        while (seat := self._ai_to_move(room)) is not None:
            ply = room.game.ply
            seed = move_seed(room.id, ply)
            try:
                text = await self.ai.choose(
                    room.record(),
                    seat.ai or "level:1",
                    seed,
                    game=room.id,
                    audience=self.audience(room),
                )
            except asyncio.CancelledError:
                raise
            except SchedulerClosed:
                return  # the server is stopping; the turn is played after a restart
            except Exception:
                log.exception(
                    "AI seat %d of game %s failed: a random move instead", seat.seat, room.id
                )
                text = fallback_move(room.game, seed)
            try:
                await self.submit(room, {seat.seat}, ply, text)
            except ApiError as error:
                log.error("AI move %r in game %s refused: %s", text, room.id, error.message)
                if room.game.ply == ply:
                    await self.submit(room, {seat.seat}, ply, fallback_move(room.game, seed))

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
        self._keep(room)
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
        self._keep(room)
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

    def ai_job(self, room: Room) -> tuple[AiJob, bool] | None:
        """The AI turn a room waits for, and whether a person waits for it; None if none."""
        seat = self._ai_to_move(room)
        if seat is None:
            return None
        ply = room.game.ply
        job = AiJob(
            room.id, ply, seat.seat, seat.ai or "level:1", move_seed(room.id, ply), room.record()
        )
        return job, self.audience(room) == Audience.PEOPLE

    async def play_ai_result(self, room: Room, result: AiResult) -> None:
        """Play an AI worker's answer if its game still waits for it (a random legal move if
        the engine refuses it); an answer for a ply already played is dropped."""
        if room.game.ply < result.ply:
            async with room.lock:
                await self.resync(room, None)
        seat = self._ai_to_move(room)
        if seat is None or seat.seat != result.seat or room.game.ply != result.ply:
            return
        try:
            await self.submit(room, {seat.seat}, result.ply, result.move)
        except ApiError as error:
            if error.code == "stale":
                return
            log.error("AI move %r in game %s refused: %s", result.move, room.id, error.message)
            if room.game.ply == result.ply:
                fallback = fallback_move(room.game, move_seed(room.id, result.ply))
                await self.submit(room, {seat.seat}, result.ply, fallback)

    def explain(self, room: Room, text: Any) -> dict[str, Any]:
        """Whether a move is legal now and, if not, why (for hover explanations)."""
        if not isinstance(text, str) or len(text) > MOVE_TEXT_CHARS:
            raise ApiError(400, "bad-request", "move must be move text of at most 200 characters")
        game = room.game
        if room.meta.status == OPEN:
            reason: str | None = "the game starts when every seat is taken"
        elif room.meta.status != LIVE and not game.is_over:
            reason = "the game is over"
        else:
            reason = game.explain(text)
        return {
            "type": "explain",
            "ply": game.ply,
            "move": text,
            "legal": reason is None,
            "reason": reason,
        }

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

    def state_at(self, room: Room, ply: int) -> dict[str, Any]:
        """The public view after the first ``ply`` moves (for the replay viewer)."""
        if type(ply) is not int or not 0 <= ply <= room.game.ply:
            raise ApiError(
                422, "bad-request", f"ply must be a whole number from 0 to {room.game.ply}"
            )
        if ply == room.game.ply:
            return room.state()
        moves = [str(m) for m in room.game.moves[:ply]]
        return state_view(room.meta, rebuild(room.meta, moves), room.game.ply, live=False)

    def public_record(self, room: Room) -> dict[str, Any]:
        """The record to download: whole once finished; while the game runs, the deck is cut
        to the tiles already drawn, since the order of the rest is hidden."""
        record = room.record()
        record["result"] = None if room.game.result is None else room.game.result.to_json()
        if room.meta.status != FINISHED:
            seen = len(room.meta.deck) - room.game.tiles_left
            record["deck"] = room.meta.deck[:seen]
        return record


def _strings(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ApiError(422, "bad-request", f"{what} must be a list of names")
    return value
