"""Storage of games, seats and moves through SQLAlchemy 2, SQLite or PostgreSQL alike.

Every method is synchronous and short; the server calls them from a worker thread so the
event loop never waits on the disk. The schema comes from the Alembic revisions shipped in
``taluva.server.storage.migrations``, applied by ``migrate()`` when the server starts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    and_,
    bindparam,
    create_engine,
    event,
    func,
    insert,
    inspect,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from taluva.engine.game import Game
from taluva.server.storage.models import Base, GameRow, MoveRow, SeatRow
from taluva.server.storage.outage import Outage

MIGRATIONS = Path(__file__).with_name("migrations")
MIGRATION_LOCK = 0x7A1_0A1E
"""The PostgreSQL advisory lock an upgrade of the schema holds (``Store.migrate``)."""

OPEN = "open"
LIVE = "live"
FINISHED = "finished"
STATUSES = (OPEN, LIVE, FINISHED)
"""A game is open while a human seat is free, live once every seat is taken, then finished."""
CANCELLED = "cancelled"
"""An open game its host called off: it is listed nowhere and never starts."""


@cache
def shipped_heads() -> tuple[str, ...]:
    """The newest revisions of the shipped migrations (read once: parsing them takes time)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return tuple(ScriptDirectory.from_config(config).get_heads())


class PlyTaken(Exception):
    """Another move was stored for this ply first: the submission is stale."""


@dataclass(frozen=True, slots=True)
class NewMove:
    """One move to store: its game, ply and seat, its text, and the game's status after it."""

    game_id: str
    ply: int
    seat: int
    text: str
    status: str
    result: dict[str, Any] | None
    clock: dict[str, Any] | None = None
    """The game's clock after the move (``taluva.server.games.clocks``), None without one."""
    final: Game | None = field(default=None, compare=False, repr=False)
    """The game after the move when it ends the game, so settling it needs no replay."""


_MOVES = Base.metadata.tables[MoveRow.__tablename__]
_GAMES = Base.metadata.tables[GameRow.__tablename__]
_SEATS = Base.metadata.tables[SeatRow.__tablename__]
_INSERT_MOVE = insert(_MOVES)
_UPDATE_GAME = (
    update(_GAMES)
    .where(_GAMES.c.id == bindparam("game"))
    .values(
        ply=bindparam("next_ply"),
        status=bindparam("new_status"),
        result=bindparam("new_result"),
        clock=bindparam("new_clock"),
        deadline=bindparam("new_deadline"),
        updated_at=bindparam("stamp"),
    )
)


def token_digest(token: str) -> str:
    """The SHA-256 digest under which a seat token is stored (the token itself never is)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def clock_deadline(clock: dict[str, Any] | None) -> int | None:
    """When a stored clock's running seat runs out of time (milliseconds since the epoch), or
    None when no clock runs: kept in ``games.deadline`` beside the clock it comes from."""
    if clock is None or clock.get("running") is None:
        return None
    seat = clock["running"]
    return int(clock["since"] + clock["remaining"][seat])


def now() -> datetime:
    """The current time in UTC."""
    return datetime.now(UTC)


def utc(stamp: datetime) -> datetime:
    """A stored time in UTC, said so: SQLite gives times back without their zone."""
    return stamp if stamp.tzinfo is not None else stamp.replace(tzinfo=UTC)


@dataclass(slots=True)
class StoredSeat:
    """A seat as stored: human or AI, its player's name, and whether it is taken."""

    seat: int
    kind: str
    name: str
    ai: str | None = None
    token_hash: str | None = None
    account_id: int | None = None
    """The account that took the seat while signed in (None: a guest or an AI)."""

    @property
    def taken(self) -> bool:
        """Whether a human holds this seat (AI seats are always taken)."""
        return self.kind == "ai" or self.token_hash is not None


@dataclass(slots=True)
class StoredGame:
    """Everything stored about one game, enough to rebuild it exactly."""

    id: str
    name: str
    status: str
    options: dict[str, Any]
    deck: list[str]
    doubles: list[str]
    hints: bool
    ply: int
    result: dict[str, Any] | None
    created_at: datetime
    updated_at: datetime
    seats: list[StoredSeat] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    move_seats: list[int] = field(default_factory=list)
    """The seat that played each move, in order."""
    clock: dict[str, Any] | None = None
    """The clock as of the last change (``taluva.server.games.clocks``), None without one."""
    resignations: list[dict[str, Any]] = field(default_factory=list)
    """The record's ``resignations``: who resigned or ran out of time, after which ply."""
    host_hash: str | None = None
    """Digest of the token of whoever created the game: the host, who may cancel it."""
    host_account: int | None = None
    """The account that created the game, when signed in."""
    rated: bool = False
    """Rated (its result changes ratings) or casual, as chosen when it was created."""

    @classmethod
    def starting(
        cls,
        game_id: str,
        name: str,
        record: dict[str, Any],
        seats: list[StoredSeat],
        *,
        status: str,
        hints: bool,
        stamp: datetime,
        rated: bool = False,
    ) -> StoredGame:
        """A game before its first move, with the options, deck and double-hex tiles of a
        game record (``Game.to_record``)."""
        return cls(
            id=game_id,
            name=name,
            status=status,
            options=record["options"],
            deck=record["deck"],
            doubles=list(record.get("doubles") or []),
            hints=hints,
            ply=0,
            result=None,
            created_at=stamp,
            updated_at=stamp,
            seats=seats,
            rated=rated,
        )


def _sqlite_pragmas(*, checkpoints_apart: bool) -> Callable[[Any, Any], None]:
    """The settings every new SQLite connection gets (a listener of the engine's connects)."""

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        # WAL with synchronous=NORMAL: a committed move survives the server process being
        # killed (the OS holds it); only a power cut may lose the last few.
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=5000")
        if checkpoints_apart:
            cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.close()

    return on_connect


@contextmanager
def _file_lock(engine: Engine) -> Iterator[None]:
    """Hold an exclusive lock on ``DATABASE-migrate.lock`` beside a SQLite database file (a
    no-op for any other database, an in-memory one, or where the OS has no ``fcntl``)."""
    database = engine.url.database if engine.url.get_backend_name() == "sqlite" else None
    try:
        import fcntl
    except ImportError:  # not a POSIX system
        fcntl = None  # type: ignore[assignment]
    if not database or database == ":memory:" or fcntl is None:
        yield
        return
    with open(f"{database}-migrate.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def make_engine(url: str, *, checkpoints_apart: bool = False) -> Engine:
    """A SQLAlchemy engine for ``url``, with SQLite tuned for a single server process.

    With ``checkpoints_apart``, SQLite's commits never copy the write-ahead log back into the
    database themselves: the owner calls ``Store.checkpoint`` from a thread of its own."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas(checkpoints_apart=checkpoints_apart))
        return engine
    return create_engine(
        url,
        pool_size=8,
        max_overflow=4,
        pool_pre_ping=True,
        connect_args={"connect_timeout": CONNECT_SECONDS},
    )


CONNECT_SECONDS = 5
"""How long a connection to PostgreSQL is tried before the database counts as unreachable."""


WAL_PAGES_BEFORE_WAITING = 20_000
"""Past this many pages (about 80 MB) in SQLite's write-ahead log, a checkpoint waits for
the writer so the log starts again, instead of copying what it can beside it."""


GameEnd = Callable[[Connection, str, dict[str, Any], Game | None], None]
"""What a game's end leaves behind, written in the transaction that stores its last move:
``(connection, game_id, result, game)`` (``taluva.server.players.standings.settle``)."""


class Store:
    """The games database: create, claim seats, append moves (one per ply), read back.

    ``game_end`` is called in the transaction that stores a game's last move, so what the
    end leaves behind (statistics, ratings) is stored exactly when the result is; None for
    a store that never ends games (a migration, a look at the tables).

    ``checkpoints_apart`` (SQLite only): the commit of a move never copies the write-ahead
    log into the database file, which took every so often a commit long enough to hold up
    all moves waiting meanwhile; the owner calls ``checkpoint`` regularly instead.
    """

    def __init__(
        self, url: str, *, game_end: GameEnd | None, checkpoints_apart: bool = False
    ) -> None:
        self.url = url
        self.game_end = game_end
        self.engine = make_engine(url, checkpoints_apart=checkpoints_apart)
        self.outage = Outage(self.engine)
        """Whether the database can be reached, logged once per outage."""
        self._session = sessionmaker(self.engine, expire_on_commit=False)

    def checkpoint(self, *, final: bool = False) -> None:
        """Copy SQLite's write-ahead log into the database file, beside the writer (or, when
        the log has grown past ``WAL_PAGES_BEFORE_WAITING`` pages or ``final``, waiting for
        it and emptying the log). Nothing to do for other databases."""
        if not self.url.startswith("sqlite"):
            return
        mode = "TRUNCATE" if final else "PASSIVE"
        with self.engine.connect() as connection:
            row = connection.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})").one()
            if not final and row[1] > WAL_PAGES_BEFORE_WAITING:
                connection.exec_driver_sql("PRAGMA wal_checkpoint(RESTART)")

    def migrate(self) -> None:
        """Bring the schema up to the newest shipped revision (a no-op when it is). On
        PostgreSQL the upgrade holds an advisory lock for its transaction (on SQLite a lock on a
        file beside the database), so processes started together on an empty database take
        turns: the first creates the schema, the others then find it at head."""
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with _file_lock(self.engine), self.engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
                )
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    def at_head(self) -> bool:
        """Whether the schema is at the newest shipped revision (raises if the database cannot
        be reached): what ``/readyz`` asks on every probe, one small query."""
        with self.engine.connect() as connection:
            if not inspect(connection).has_table("alembic_version"):
                return False
            rows = connection.execute(text("SELECT version_num FROM alembic_version"))
            current = {row[0] for row in rows}
        return current == set(shipped_heads())

    def close(self) -> None:
        """Release every pooled connection."""
        self.engine.dispose()

    def create_game(self, game: StoredGame) -> None:
        """Store a new game with its seats (no moves yet)."""
        with self.engine.begin() as connection:
            connection.execute(
                insert(_GAMES),
                {
                    "id": game.id,
                    "name": game.name,
                    "status": game.status,
                    "options": game.options,
                    "deck": game.deck,
                    "doubles": game.doubles,
                    "hints": game.hints,
                    "rated": game.rated,
                    "ply": 0,
                    "result": None,
                    "created_at": game.created_at,
                    "updated_at": game.updated_at,
                    "clock": game.clock,
                    "deadline": clock_deadline(game.clock) if game.status == LIVE else None,
                    "resignations": game.resignations or None,
                    "host_hash": game.host_hash,
                    "host_account": game.host_account,
                },
            )
            connection.execute(
                insert(_SEATS),
                [
                    {
                        "game_id": game.id,
                        "seat": seat.seat,
                        "kind": seat.kind,
                        "ai": seat.ai,
                        "name": seat.name,
                        "token_hash": seat.token_hash,
                        "account_id": seat.account_id,
                    }
                    for seat in game.seats
                ],
            )

    def claim_seat(
        self, game_id: str, seat: int, name: str, token_hash: str, account_id: int | None = None
    ) -> bool:
        """Give a free human seat to a player (``account_id`` if signed in); False if
        someone took it first."""
        with self._session.begin() as session:
            claimed = session.execute(
                update(SeatRow)
                .where(
                    SeatRow.game_id == game_id,
                    SeatRow.seat == seat,
                    SeatRow.kind == "human",
                    SeatRow.token_hash.is_(None),
                )
                .values(name=name, token_hash=token_hash, account_id=account_id)
            )
            return bool(claimed.rowcount == 1)  # type: ignore[attr-defined]

    def set_status(self, game_id: str, status: str) -> None:
        """Change a game's status (open to live when its last seat is taken)."""
        with self._session.begin() as session:
            session.execute(
                update(GameRow).where(GameRow.id == game_id).values(status=status, updated_at=now())
            )

    def append_move(
        self,
        game_id: str,
        ply: int,
        seat: int,
        text: str,
        status: str,
        result: dict[str, Any] | None,
    ) -> None:
        """Store move number ``ply`` and the game's new status in one transaction.

        Raises PlyTaken when a move for that ply is already stored.
        """
        outcome = self.append_moves([NewMove(game_id, ply, seat, text, status, result)])[0]
        if outcome is not None:
            raise outcome

    def append_moves(self, moves: list[NewMove]) -> list[PlyTaken | None]:
        """Store several moves (of different games, or successive plies of one) and their
        games' new status; for each, None once it is stored or PlyTaken if its ply was taken.

        All go in one transaction (one commit for the lot: the server gathers the moves
        that arrive while the previous write runs). If the database refuses one, the
        transaction is rolled back and each move is stored in its own, so only the moves
        whose ply was taken are refused.
        """
        if not moves:
            return []
        try:
            self._write_moves(moves)
            return [None] * len(moves)
        except IntegrityError:
            if len(moves) == 1:
                move = moves[0]
                return [PlyTaken(f"game {move.game_id}: ply {move.ply} is already stored")]
        return [self.append_moves([move])[0] for move in moves]

    def _write_moves(self, moves: list[NewMove]) -> None:
        stamp = now()
        with self.engine.begin() as connection:
            connection.execute(
                _INSERT_MOVE,
                [
                    {
                        "game_id": move.game_id,
                        "ply": move.ply,
                        "seat": move.seat,
                        "text": move.text,
                        "created_at": stamp,
                        "clock": move.clock,
                    }
                    for move in moves
                ],
            )
            connection.execute(
                _UPDATE_GAME,
                [
                    {
                        "game": move.game_id,
                        "next_ply": move.ply + 1,
                        "new_status": move.status,
                        "new_result": move.result,
                        "new_clock": move.clock,
                        "new_deadline": clock_deadline(move.clock) if move.status == LIVE else None,
                        "stamp": stamp,
                    }
                    for move in moves
                ],
            )
            for move in moves:
                if move.status == FINISHED and move.result is not None:
                    if self.game_end is None:
                        raise RuntimeError("this store was opened to end no game")
                    self.game_end(connection, move.game_id, move.result, move.final)

    def load_game(self, game_id: str) -> StoredGame | None:
        """Everything stored about a game, its moves in order; None if there is no such game."""
        with self._session() as session:
            row = session.get(GameRow, game_id)
            if row is None:
                return None
            return self._stored(session, row)

    def _stored(self, session: Session, row: GameRow) -> StoredGame:
        seats = session.scalars(
            select(SeatRow).where(SeatRow.game_id == row.id).order_by(SeatRow.seat)
        ).all()
        moves = session.execute(
            select(MoveRow.text, MoveRow.seat)
            .where(MoveRow.game_id == row.id)
            .order_by(MoveRow.ply)
        ).all()
        return StoredGame(
            id=row.id,
            name=row.name,
            status=row.status,
            options=dict(row.options),
            deck=list(row.deck),
            doubles=list(row.doubles),
            hints=row.hints,
            rated=row.rated,
            ply=row.ply,
            result=row.result,
            created_at=row.created_at,
            updated_at=row.updated_at,
            seats=[
                StoredSeat(s.seat, s.kind, s.name, s.ai, s.token_hash, s.account_id) for s in seats
            ],
            moves=[text for text, _ in moves],
            move_seats=[seat for _, seat in moves],
            clock=row.clock,
            resignations=list(row.resignations or []),
            host_hash=row.host_hash,
            host_account=row.host_account,
        )

    def progress(self, game_ids: list[str]) -> dict[str, tuple[int, str]]:
        """The stored ply and status of each of these games (one query): what a process
        compares with its copies to find one that missed a change made elsewhere."""
        if not game_ids:
            return {}
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(_GAMES.c.id, _GAMES.c.ply, _GAMES.c.status).where(_GAMES.c.id.in_(game_ids))
            )
            return {game_id: (ply, status) for game_id, ply, status in rows}

    def live_ai_games(self) -> dict[str, int]:
        """The stored ply of each live game with an AI seat (one query): the games where an AI
        turn may be due, which the stored moves then tell (``games.cluster``'s reconciler)."""
        ai = select(_SEATS.c.game_id).where(_SEATS.c.game_id == _GAMES.c.id, _SEATS.c.kind == "ai")
        query = select(_GAMES.c.id, _GAMES.c.ply).where(_GAMES.c.status == LIVE, ai.exists())
        with self.engine.connect() as connection:
            return {game_id: ply for game_id, ply in connection.execute(query)}

    def due_games(self, before_ms: int, idle_since: datetime) -> list[str]:
        """The games a server must act on without anyone opening them (one query, on the
        indexes of ``deadline`` and ``updated_at``): live ones whose clock runs out before
        ``before_ms``, and open or live ones with no change since ``idle_since`` (to be
        abandoned)."""
        query = select(_GAMES.c.id).where(
            or_(
                and_(_GAMES.c.status == LIVE, _GAMES.c.deadline <= before_ms),
                and_(_GAMES.c.status.in_((OPEN, LIVE)), _GAMES.c.updated_at <= idle_since),
            )
        )
        with self.engine.connect() as connection:
            return sorted(connection.scalars(query))

    def unfinished_ai_only_games(self, account_id: int) -> int:
        """How many games created by this account, with no human seat, are not over yet:
        the count its quota of AI-only games is held to, by every process and after a
        restart alike."""
        human = select(_SEATS.c.game_id).where(
            _SEATS.c.game_id == _GAMES.c.id, _SEATS.c.kind == "human"
        )
        query = select(func.count()).where(
            _GAMES.c.host_account == account_id,
            _GAMES.c.status.in_((OPEN, LIVE)),
            ~human.exists(),
        )
        with self.engine.connect() as connection:
            return int(connection.execute(query).scalar_one())

    def unfinished_game_ids(self) -> list[str]:
        """Ids of every game not finished yet (open or live)."""
        with self._session() as session:
            return list(
                session.scalars(
                    select(GameRow.id).where(GameRow.status.in_((OPEN, LIVE))).order_by(GameRow.id)
                ).all()
            )

    def list_games(self, status: str, limit: int) -> list[StoredGame]:
        """The most recently active games of one status, newest first (moves not loaded)."""
        return self.summaries(_GAMES.c.status == status, limit)

    def summaries(self, where: ColumnElement[bool], limit: int) -> list[StoredGame]:
        """The most recently active games that satisfy ``where``, newest first, with their
        seats but neither moves nor deck: what the lobby and "My games" list."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(_GAMES)
                .where(where)
                .order_by(_GAMES.c.updated_at.desc(), _GAMES.c.id)
                .limit(limit)
            ).all()
            ids = [row.id for row in rows]
            seats: dict[str, list[StoredSeat]] = {game_id: [] for game_id in ids}
            for s in connection.execute(
                select(_SEATS).where(_SEATS.c.game_id.in_(ids)).order_by(_SEATS.c.seat)
            ):
                seats[s.game_id].append(
                    StoredSeat(s.seat, s.kind, s.name, s.ai, s.token_hash, s.account_id)
                )
        return [
            StoredGame(
                id=row.id,
                name=row.name,
                status=row.status,
                options=dict(row.options),
                deck=[],
                doubles=list(row.doubles),
                hints=row.hints,
                rated=row.rated,
                ply=row.ply,
                result=row.result,
                created_at=row.created_at,
                updated_at=row.updated_at,
                seats=seats[row.id],
                clock=row.clock,
            )
            for row in rows
        ]
