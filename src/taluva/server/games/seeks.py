"""Seeks: a signed-in player asks the lobby for a game ("2 players, rated, 10 minutes + 20
seconds") and anyone whose rating fits takes it with one click; a seek posted for a setup
another player is already seeking joins theirs at once (the lobby's quick pairing tiles are
such seeks, one click each).

A seek gathers players until it has as many as its setup asks for; then a game starts with
each of them seated under their account, live at once. Seeks live in the database (table
``seeks``), so several server processes share them, and every change to them is one
transaction holding one lock (a PostgreSQL advisory lock; SQLite has one writer): of two
takers of a seek's last place, one gets it and the other is told it is ``taken``. A seek
goes when its poster cancels it, when its game starts, or when none of its players' browsers
has asked after it (the lobby's list, the seek itself or the inbox) for
``SEEK_EXPIRES_AFTER`` seconds. Only signed-in players seek, casual games too: a seek is
matched, listed and kept alive by account.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import (
    Connection,
    Engine,
    and_,
    delete,
    func,
    insert,
    not_,
    or_,
    select,
    text,
    update,
)

from taluva.engine.wording import T, Tn
from taluva.server.errors import ApiError
from taluva.server.games.service import GameService
from taluva.server.games.setups import RATING_RANGES, Setup, displayed_ratings, start_game
from taluva.server.players.accounts import Account
from taluva.server.storage.models import AccountRow, Base, SeekRow
from taluva.server.storage.store import now, utc

log = logging.getLogger("taluva.server")

_SEEKS = Base.metadata.tables[SeekRow.__tablename__]
_ACCOUNTS = Base.metadata.tables[AccountRow.__tablename__]

OPEN: Final = "open"
"""A seek still gathering players."""
MATCHED: Final = "matched"
"""A seek that has its players: its game is started (``game`` once it is created)."""

SEEK_EXPIRES_AFTER: Final = 120.0
"""Seconds after which a seek none of whose players' browsers asked after it disappears. The
client asks every 15 seconds on any page, through the inbox; a browser slows the timers of a
page hidden for long down to one a minute, which this leaves room for."""
MATCHED_KEPT: Final = 600.0
"""Seconds a started seek is kept, so its players' browsers learn its game."""
SEEKS_LISTED: Final = 100
"""The most seeks the lobby lists (the oldest first)."""
LOCK_KEY: Final = 0x7A1_5EE4
"""The PostgreSQL advisory lock every change to the seeks holds: they are few and quick, and
one lock for all of them means one player cannot be matched twice at once."""

# ---------------------------------------------------------------------- storage


@dataclass(frozen=True, slots=True)
class Member:
    """A player in a seek: the poster, or one who took a place in it."""

    row: int
    account_id: int
    name: str
    rating_range: int | None


@dataclass(frozen=True, slots=True)
class Group:
    """A seek and the players it has gathered, its poster first."""

    id: int
    setup: Setup
    members: tuple[Member, ...]
    status: str
    game: str | None
    created_at: datetime

    @property
    def accounts(self) -> list[int]:
        return [member.account_id for member in self.members]


def _lock(connection: Connection) -> None:
    """Hold the seeks' lock until this transaction ends (PostgreSQL; SQLite has one writer,
    the server's one database thread)."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})


def _fresh(stamp: datetime) -> Any:
    """Rows whose player has asked after them lately, or started not long ago."""
    return or_(
        and_(
            _SEEKS.c.status == OPEN,
            _SEEKS.c.seen_at >= stamp - timedelta(seconds=SEEK_EXPIRES_AFTER),
        ),
        and_(
            _SEEKS.c.status == MATCHED,
            _SEEKS.c.seen_at >= stamp - timedelta(seconds=MATCHED_KEPT),
        ),
    )


def _sweep(connection: Connection, stamp: datetime) -> None:
    """Forget the seeks nobody asked after in time (with the places taken in them) and the
    started ones kept long enough."""
    connection.execute(delete(_SEEKS).where(not_(_fresh(stamp))))


def _groups(connection: Connection, host_ids: Sequence[int], stamp: datetime) -> list[Group]:
    """The seeks ``host_ids`` with their players (those still asking after them), in the
    order of ``host_ids``; a seek that is gone is left out."""
    if not host_ids:
        return []
    rows = connection.execute(
        select(_SEEKS, _ACCOUNTS.c.name)
        .join(_ACCOUNTS, _ACCOUNTS.c.id == _SEEKS.c.account_id)
        .where(
            or_(_SEEKS.c.id.in_(host_ids), _SEEKS.c.host_id.in_(host_ids)),
            _fresh(stamp),
        )
        .order_by(_SEEKS.c.id)
    ).all()
    hosts = {row.id: row for row in rows if row.host_id is None}
    members: dict[int, list[Member]] = {host: [] for host in hosts}
    for row in rows:
        host = row.id if row.host_id is None else row.host_id
        if host in members:
            members[host].append(Member(row.id, row.account_id, row.name, row.rating_range))
    return [
        Group(
            id=host.id,
            setup=Setup.from_json(host.setup),
            members=tuple(members[host.id]),
            status=host.status,
            game=host.game_id,
            created_at=utc(host.created_at),
        )
        for host in (hosts[i] for i in host_ids if i in hosts)
    ]


def _group(connection: Connection, host_id: int, stamp: datetime) -> Group | None:
    found = _groups(connection, [host_id], stamp)
    return found[0] if found else None


def misfit(
    group: Group, account_id: int, rating_range: int | None, ratings: dict[int, int]
) -> str | None:
    """Why ``account_id`` (asking for ``rating_range`` itself) may not join ``group``: a
    rating outside a member's range, or a member outside its own; None when it fits."""
    mine = ratings[account_id]
    for member in group.members:
        theirs = ratings[member.account_id]
        gap = abs(theirs - mine)
        if member.rating_range is not None and gap > member.rating_range:
            return T(
                "your rating {mine} is more than {range} from {name}'s {theirs}, the range of "
                "their seek",
                mine=mine,
                range=member.rating_range,
                name=member.name,
                theirs=theirs,
            )
        if rating_range is not None and gap > rating_range:
            return T(
                "{name}'s rating {theirs} is more than {range} from your {mine}",
                name=member.name,
                theirs=theirs,
                range=rating_range,
                mine=mine,
            )
    return None


def _insert(
    connection: Connection,
    account_id: int,
    setup: Setup,
    rating_range: int | None,
    host_id: int | None,
    stamp: datetime,
) -> int:
    new_id = connection.execute(
        insert(_SEEKS).returning(_SEEKS.c.id),
        {
            "host_id": host_id,
            "account_id": account_id,
            "setup": setup.to_json(),
            "setup_key": setup.key(),
            "rating_range": rating_range,
            "status": OPEN,
            "game_id": None,
            "created_at": stamp,
            "seen_at": stamp,
        },
    ).scalar_one()
    return int(new_id)


def _open_count(connection: Connection, account_id: int) -> int:
    return int(
        connection.execute(
            select(func.count())
            .select_from(_SEEKS)
            .where(_SEEKS.c.account_id == account_id, _SEEKS.c.status == OPEN)
        ).scalar_one()
    )


def _refuse_too_many(connection: Connection, account_id: int, limit: int) -> None:
    if _open_count(connection, account_id) >= limit:
        raise ApiError(
            409,
            "too-many",
            Tn(
                "you have {limit} seek waiting already, the most an account may: cancel one first",
                "you have {limit} seeks waiting already, the most an account may: cancel one first",
                limit,
                limit=limit,
            ),
        )


def _join(
    connection: Connection,
    group: Group,
    account_id: int,
    rating_range: int | None,
    stamp: datetime,
) -> bool:
    """Give ``account_id`` a place in ``group``; start the group when that fills it, the
    players' other seeks then going (they have a game). Whether it started."""
    _insert(connection, account_id, group.setup, rating_range, group.id, stamp)
    if len(group.members) + 1 < group.setup.players:
        return False
    accounts = [*group.accounts, account_id]
    connection.execute(
        update(_SEEKS)
        .where(or_(_SEEKS.c.id == group.id, _SEEKS.c.host_id == group.id))
        .values(status=MATCHED, seen_at=stamp)
    )
    connection.execute(
        delete(_SEEKS).where(_SEEKS.c.account_id.in_(accounts), _SEEKS.c.status == OPEN)
    )
    return True


def post_seek(
    engine: Engine, account_id: int, setup: Setup, rating_range: int | None, limit: int
) -> tuple[Group, bool]:
    """Seek a game of ``setup`` for ``account_id``: join the oldest seek of the same setup
    whose players' ranges fit (starting it if that fills it), or post a new one. Return the
    seek and whether it is new; the same account seeking the same setup again gets the seek
    it has. ApiError 409 ``too-many`` beyond ``limit`` open seeks."""
    stamp = now()
    with engine.begin() as connection:
        _lock(connection)
        _sweep(connection, stamp)
        key = setup.key()
        own = connection.execute(
            select(_SEEKS.c.id, _SEEKS.c.host_id).where(
                _SEEKS.c.account_id == account_id,
                _SEEKS.c.status == OPEN,
                _SEEKS.c.setup_key == key,
            )
        ).first()
        if own is not None:
            connection.execute(update(_SEEKS).where(_SEEKS.c.id == own.id).values(seen_at=stamp))
            found = _group(connection, own.host_id or own.id, stamp)
            assert found is not None
            return found, False
        _refuse_too_many(connection, account_id, limit)
        hosts = connection.scalars(
            select(_SEEKS.c.id)
            .where(
                _SEEKS.c.host_id.is_(None),
                _SEEKS.c.status == OPEN,
                _SEEKS.c.setup_key == key,
                _SEEKS.c.account_id != account_id,
            )
            .order_by(_SEEKS.c.created_at, _SEEKS.c.id)
        ).all()
        groups = _groups(connection, list(hosts), stamp)
        ratings = displayed_ratings(
            engine, [account_id, *(a for group in groups for a in group.accounts)]
        )
        for group in groups:
            if (
                len(group.members) < setup.players
                and account_id not in group.accounts
                and misfit(group, account_id, rating_range, ratings) is None
            ):
                _join(connection, group, account_id, rating_range, stamp)
                joined = _group(connection, group.id, stamp)
                assert joined is not None
                return joined, False
        host_id = _insert(connection, account_id, setup, rating_range, None, stamp)
        posted = _group(connection, host_id, stamp)
        assert posted is not None
        return posted, True


def take_seek(engine: Engine, seek_id: int, account_id: int, limit: int) -> Group:
    """Take a place in seek ``seek_id`` for ``account_id``, starting it if that fills it;
    return it. Taking a seek one has a place in already changes nothing.

    ApiError 404 ``not-found`` (no such seek, or gone), 409 ``taken`` (started: another
    player took the last place), 409 ``own-seek``, 403 ``out-of-range`` (a rating outside a
    member's range), 409 ``too-many``."""
    stamp = now()
    with engine.begin() as connection:
        _lock(connection)
        _sweep(connection, stamp)
        group = _group(connection, seek_id, stamp)
        if group is None:
            raise ApiError(
                404,
                "not-found",
                T("there is no seek {seek}: it was cancelled or it expired", seek=seek_id),
            )
        if group.status != OPEN:
            raise ApiError(
                409, "taken", T("seek {seek} was taken: its game has started", seek=seek_id)
            )
        if group.members[0].account_id == account_id:
            raise ApiError(409, "own-seek", T("this is your own seek: wait for others to take it"))
        if account_id in group.accounts:
            _touch(connection, account_id, stamp)
            return group
        _refuse_too_many(connection, account_id, limit)
        ratings = displayed_ratings(engine, [account_id, *group.accounts])
        reason = misfit(group, account_id, None, ratings)
        if reason is not None:
            raise ApiError(403, "out-of-range", reason)
        _join(connection, group, account_id, None, stamp)
        taken = _group(connection, seek_id, stamp)
        assert taken is not None
        return taken


def cancel_seek(engine: Engine, seek_id: int, account_id: int) -> None:
    """Cancel seek ``seek_id`` (its poster: the places taken in it go too) or give up one's
    place in it (another player). ApiError 404 ``not-found``, 403 ``forbidden`` (not one
    of its players), 409 ``taken`` (started)."""
    stamp = now()
    with engine.begin() as connection:
        _lock(connection)
        group = _group(connection, seek_id, stamp)
        if group is None:
            raise ApiError(404, "not-found", T("there is no seek {seek}", seek=seek_id))
        mine = [member for member in group.members if member.account_id == account_id]
        if not mine:
            raise ApiError(403, "forbidden", T("you may cancel only a seek you are in"))
        if group.status != OPEN:
            raise ApiError(
                409, "taken", T("seek {seek} was taken: its game has started", seek=seek_id)
            )
        connection.execute(delete(_SEEKS).where(_SEEKS.c.id == mine[0].row))


def find_seek(engine: Engine, seek_id: int) -> Group | None:
    """Seek ``seek_id``, None if there is none (cancelled, expired, or started long ago)."""
    with engine.connect() as connection:
        return _group(connection, seek_id, now())


def list_seeks(engine: Engine, limit: int = SEEKS_LISTED) -> list[Group]:
    """The open seeks, the oldest first."""
    stamp = now()
    with engine.connect() as connection:
        hosts = connection.scalars(
            select(_SEEKS.c.id)
            .where(_SEEKS.c.host_id.is_(None), _SEEKS.c.status == OPEN, _fresh(stamp))
            .order_by(_SEEKS.c.created_at, _SEEKS.c.id)
            .limit(limit)
        ).all()
        return _groups(connection, list(hosts), stamp)


def seeks_of(engine: Engine, account_id: int) -> list[Group]:
    """The seeks ``account_id`` is in: open, or started in the last ``MATCHED_KEPT``
    seconds."""
    stamp = now()
    with engine.connect() as connection:
        rows = connection.execute(
            select(_SEEKS.c.id, _SEEKS.c.host_id)
            .where(_SEEKS.c.account_id == account_id, _fresh(stamp))
            .order_by(_SEEKS.c.id)
        ).all()
        return _groups(connection, [row.host_id or row.id for row in rows], stamp)


def _touch(connection: Connection, account_id: int, stamp: datetime) -> None:
    """Keep ``account_id``'s open seeks (an expired one stays expired)."""
    connection.execute(
        update(_SEEKS)
        .where(_SEEKS.c.account_id == account_id, _SEEKS.c.status == OPEN, _fresh(stamp))
        .values(seen_at=stamp)
    )


def touch_seeks(engine: Engine, account_id: int) -> None:
    """``account_id``'s browser has asked after its seeks: they stay (written only when it
    has open ones)."""
    with engine.connect() as connection:
        waiting = connection.execute(
            select(_SEEKS.c.id)
            .where(_SEEKS.c.account_id == account_id, _SEEKS.c.status == OPEN, _fresh(now()))
            .limit(1)
        ).first()
    if waiting is not None:
        with engine.begin() as connection:
            _touch(connection, account_id, now())


def set_game(engine: Engine, seek_id: int, game_id: str | None) -> None:
    """Record the game a started seek made (None: it could not be made, and the seek goes)."""
    with engine.begin() as connection:
        where = or_(_SEEKS.c.id == seek_id, _SEEKS.c.host_id == seek_id)
        if game_id is None:
            connection.execute(delete(_SEEKS).where(where))
        else:
            connection.execute(update(_SEEKS).where(where).values(game_id=game_id))


# ---------------------------------------------------------------------- the service


def seek_view(group: Group, ratings: dict[int, int], viewer: int | None = None) -> dict[str, Any]:
    """A seek as the API shows it (docs/server-api.md, "Finding a game"); with the viewer's
    account, whether they are in it and whether they may take it."""
    poster = group.members[0]
    view: dict[str, Any] = {
        "id": group.id,
        "by": {"id": poster.account_id, "name": poster.name, "rating": ratings[poster.account_id]},
        "setup": group.setup.to_json(),
        "rating_range": poster.rating_range,
        "players": [
            {"id": m.account_id, "name": m.name, "rating": ratings[m.account_id]}
            for m in group.members
        ],
        "status": group.status,
        "game": group.game,
        "created_at": group.created_at.isoformat(),
    }
    if viewer is not None:
        view["yours"] = viewer in group.accounts
        view["fits"] = (
            not view["yours"]
            and group.status == OPEN
            and misfit(group, viewer, None, ratings) is None
        )
    return view


class Seeks:
    """The lobby's seeks for one request: posting, taking, cancelling, listing; starting
    the game of a seek that has its players."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.engine = service.store.engine

    async def views(self, groups: Sequence[Group], viewer: int | None) -> list[dict[str, Any]]:
        """The API's view of ``groups`` as ``viewer`` sees them."""
        wanted = {a for group in groups for a in group.accounts}
        if viewer is not None:
            wanted.add(viewer)
        ratings = await self.service.db(displayed_ratings, self.engine, wanted)
        return [seek_view(group, ratings, viewer) for group in groups]

    async def post(self, account: Account, fields: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """Seek the game the request's ``fields`` describe; the seek, and whether it is new."""
        setup = Setup.parse(fields)
        rating_range = fields.get("rating_range")
        if rating_range is not None and rating_range not in RATING_RANGES:
            ranges = ", ".join(str(r) for r in RATING_RANGES)
            raise ApiError(
                422,
                "bad-request",
                T("rating_range must be one of {ranges}, or null", ranges=ranges),
            )
        limit = self.service.settings.limits.open_seeks
        group, created = await self.service.db(
            post_seek, self.engine, account.id, setup, rating_range, limit
        )
        group = await self._started(group)
        return (await self.views([group], account.id))[0], created

    async def take(self, account: Account, seek_id: int) -> dict[str, Any]:
        """Take a place in seek ``seek_id``; the seek (with its game once it started)."""
        limit = self.service.settings.limits.open_seeks
        group = await self.service.db(take_seek, self.engine, seek_id, account.id, limit)
        group = await self._started(group)
        return (await self.views([group], account.id))[0]

    async def cancel(self, account: Account, seek_id: int) -> None:
        """Cancel a seek one posted, or leave one one took a place in."""
        await self.service.db(cancel_seek, self.engine, seek_id, account.id)

    async def show(self, seek_id: int, account: Account | None) -> dict[str, Any]:
        """Seek ``seek_id`` (its players asking after it keep it); ApiError 404 if gone."""
        group = await self.service.db(find_seek, self.engine, seek_id)
        if group is None:
            raise ApiError(
                404,
                "not-found",
                T("there is no seek {seek}: it was cancelled or it expired", seek=seek_id),
            )
        viewer = None if account is None else account.id
        if viewer is not None and viewer in group.accounts:
            await self.service.db(touch_seeks, self.engine, viewer)
        return (await self.views([group], viewer))[0]

    async def listing(self, account: Account | None) -> list[dict[str, Any]]:
        """The open seeks, the oldest first (the viewer's own kept alive by asking)."""
        viewer = None if account is None else account.id
        if viewer is not None:
            await self.service.db(touch_seeks, self.engine, viewer)
        groups = await self.service.db(list_seeks, self.engine)
        return await self.views(groups, viewer)

    async def mine(self, account: Account) -> list[dict[str, Any]]:
        """The seeks ``account`` is in (open or just started), kept alive by asking."""
        await self.service.db(touch_seeks, self.engine, account.id)
        groups = await self.service.db(seeks_of, self.engine, account.id)
        return await self.views(groups, account.id)

    async def _started(self, group: Group) -> Group:
        """Create the game of a seek that has just got its players (this request filled
        it); the seek then names it."""
        if group.status != MATCHED or group.game is not None:
            return group
        names = {member.account_id: member.name for member in group.members}
        players = [Account(account, names[account]) for account in group.accounts]
        try:
            game_id = await start_game(self.service, group.setup, players)
        except Exception:
            log.exception("the game of seek %s could not be started", group.id)
            await self.service.db(set_game, self.engine, group.id, None)
            raise
        await self.service.db(set_game, self.engine, group.id, game_id)
        return Group(group.id, group.setup, group.members, group.status, game_id, group.created_at)
