"""What the server tells about players: their games, profiles and the leaderboard.

Everything here reads what ``standings.settle`` stored when games ended (per-seat statistics,
ratings and their history) and the seats accounts hold; nothing is computed from records
on the fly. The functions are synchronous: the server runs them in its database thread.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, and_, case, func, select

from taluva.engine.wording import T
from taluva.server.players.ratings import PROVISIONAL_GAMES, provisional, shown
from taluva.server.players.standings import TILES_REASONS, VICTORY_REASONS
from taluva.server.storage.models import (
    AccountRow,
    Base,
    GameRow,
    RatingChangeRow,
    RatingRow,
    SeatRow,
    SeatStatsRow,
)
from taluva.server.storage.store import STATUSES, Store, StoredGame

_ACCOUNTS = Base.metadata.tables[AccountRow.__tablename__]
_GAMES = Base.metadata.tables[GameRow.__tablename__]
_SEATS = Base.metadata.tables[SeatRow.__tablename__]
_STATS = Base.metadata.tables[SeatStatsRow.__tablename__]
_RATINGS = Base.metadata.tables[RatingRow.__tablename__]
_CHANGES = Base.metadata.tables[RatingChangeRow.__tablename__]

HISTORY_POINTS = 200
"""Rating history points a profile sends (the most recent)."""
RECENT_GAMES = 20
"""Finished games a profile lists."""


def games_of_account(store: Store, account_id: int, limit: int) -> list[StoredGame]:
    """The open, live and finished games in which an account holds a seat, most recently
    active first (seats loaded, moves not)."""
    return store.summaries(
        and_(
            _GAMES.c.id.in_(select(_SEATS.c.game_id).where(_SEATS.c.account_id == account_id)),
            _GAMES.c.status.in_(STATUSES),
        ),
        limit,
    )


def _rating_view(row: Any) -> dict[str, Any]:
    """A rating as people see it (docs/server-api.md, "Ratings"), with the model's numbers."""
    return {
        "rating": shown(row.mu),
        "provisional": provisional(row.games),
        "mu": round(row.mu, 3),
        "sigma": round(row.sigma, 3),
        "games": row.games,
    }


_TOTALS = ("tiles", "huts", "temples", "towers", "huts_lost")
"""The statistics a profile adds up over an account's finished games."""


def profile(engine: Engine, account_id: int) -> dict[str, Any] | None:
    """An account's profile: name, totals over its finished games, statistics, rating and
    rating history, and its recent finished games; None if there is no such account."""
    with engine.connect() as connection:
        account = connection.execute(
            select(_ACCOUNTS.c.id, _ACCOUNTS.c.name, _ACCOUNTS.c.created_at).where(
                _ACCOUNTS.c.id == account_id
            )
        ).first()
        if account is None:
            return None
        totals = _totals(connection, account_id)
        rating = connection.execute(
            select(_RATINGS).where(_RATINGS.c.account_id == account_id)
        ).first()
        history = [] if rating is None else _history(connection, rating.id)
        recent = _recent(connection, account_id)
    average = totals.average_place
    return {
        "id": account.id,
        "name": account.name,
        "since": account.created_at.isoformat(),
        "games": int(totals.games),
        "wins": int(totals.wins),
        "average_place": None if average is None else round(float(average), 2),
        "stats": {
            **{name: int(getattr(totals, name)) for name in _TOTALS},
            "highest_level": int(totals.highest_level),
            "wins_by_pieces": int(totals.wins_by_pieces),
            "wins_by_tiles": int(totals.wins_by_tiles),
        },
        "rating": None if rating is None else _rating_view(rating),
        "history": history,
        "recent": recent,
    }


def _totals(connection: Connection, account_id: int) -> Any:
    """One row of an account's totals over its finished games: games, wins, average place,
    the summed statistics, its highest level and its wins by pieces and by tiles."""
    won = _STATS.c.place == 1

    def wins_when(reasons: Any) -> Any:
        return func.coalesce(
            func.sum(case((and_(won, _STATS.c.reason.in_(reasons)), 1), else_=0)), 0
        )

    return connection.execute(
        select(
            func.count().label("games"),
            func.coalesce(func.sum(case((won, 1), else_=0)), 0).label("wins"),
            func.avg(_STATS.c.place).label("average_place"),
            *(func.coalesce(func.sum(_STATS.c[name]), 0).label(name) for name in _TOTALS),
            func.coalesce(func.max(_STATS.c.highest_level), 0).label("highest_level"),
            wins_when(VICTORY_REASONS).label("wins_by_pieces"),
            wins_when(TILES_REASONS).label("wins_by_tiles"),
        ).where(_STATS.c.account_id == account_id)
    ).one()


def _history(connection: Connection, rating_id: int) -> list[dict[str, Any]]:
    """The last ``HISTORY_POINTS`` ratings of a rating, oldest first, as shown."""
    points = connection.execute(
        select(_CHANGES.c.game_id, _CHANGES.c.mu, _CHANGES.c.sigma, _CHANGES.c.created_at)
        .where(_CHANGES.c.rating_id == rating_id)
        .order_by(_CHANGES.c.created_at.desc(), _CHANGES.c.game_id)
        .limit(HISTORY_POINTS)
    ).all()
    return [
        {"game": p.game_id, "at": p.created_at.isoformat(), "rating": shown(p.mu)}
        for p in reversed(points)
    ]


def _recent(connection: Connection, account_id: int) -> list[dict[str, Any]]:
    """An account's last ``RECENT_GAMES`` finished games, the newest first."""
    rows = connection.execute(
        select(
            _STATS.c.game_id,
            _STATS.c.seat,
            _STATS.c.place,
            _STATS.c.players,
            _STATS.c.reason,
            _STATS.c.rated,
            _STATS.c.finished_at,
            _GAMES.c.name,
        )
        .join(_GAMES, _GAMES.c.id == _STATS.c.game_id)
        .where(_STATS.c.account_id == account_id)
        .order_by(_STATS.c.finished_at.desc(), _STATS.c.game_id)
        .limit(RECENT_GAMES)
    ).all()
    return [
        {
            "game": r.game_id,
            "name": r.name,
            "seat": r.seat,
            "place": r.place,
            "players": r.players,
            "reason": r.reason,
            "rated": r.rated,
            "finished_at": r.finished_at.isoformat(),
        }
        for r in rows
    ]


def leaderboard(engine: Engine, limit: int) -> dict[str, list[dict[str, Any]]]:
    """The ``limit`` best rated accounts and AI levels by the rating people see, in two
    lists: ``players``, ranked, with at least ``PROVISIONAL_GAMES`` rated games, and
    ``provisional``, unranked, with fewer (each up to ``limit``)."""
    columns = (
        _RATINGS.c.account_id,
        _RATINGS.c.ai,
        _RATINGS.c.mu,
        _RATINGS.c.sigma,
        _RATINGS.c.games,
        _ACCOUNTS.c.name,
    )
    base = select(*columns).select_from(
        _RATINGS.outerjoin(_ACCOUNTS, _ACCOUNTS.c.id == _RATINGS.c.account_id)
    )
    order = (_RATINGS.c.mu.desc(), _RATINGS.c.sigma, _RATINGS.c.id)
    with engine.connect() as connection:
        ranked = connection.execute(
            base.where(_RATINGS.c.games >= PROVISIONAL_GAMES).order_by(*order).limit(limit)
        ).all()
        unsure = connection.execute(
            base.where(_RATINGS.c.games > 0, _RATINGS.c.games < PROVISIONAL_GAMES)
            .order_by(*order)
            .limit(limit)
        ).all()
    return {
        "players": [_entry(row, rank) for rank, row in enumerate(ranked, start=1)],
        "provisional": [_entry(row, None) for row in unsure],
    }


def _entry(row: Any, rank: int | None) -> dict[str, Any]:
    """One leaderboard line: rank (None while provisional), who, and the rating."""
    level = _level(row.ai)
    return {
        "rank": rank,
        "kind": "account" if row.account_id is not None else "ai",
        "id": row.account_id,
        "level": level,
        "name": row.name if row.account_id is not None else T("AI level {level}", level=level),
        **_rating_view(row),
    }


def game_ratings(engine: Engine, game_id: str) -> list[dict[str, Any]]:
    """Each seat's rating before and after a finished rated game, in seat order (empty for a
    casual or unfinished game): what the end screen shows as "Ana 1512 → 1527, +15". An AI
    level that held several seats is listed at each of them."""
    with engine.connect() as connection:
        rows = connection.execute(
            select(
                _SEATS.c.seat,
                _SEATS.c.name,
                _CHANGES.c.mu,
                _CHANGES.c.mu_before,
                _RATINGS.c.games,
            )
            .select_from(
                _SEATS.join(
                    _RATINGS,
                    (
                        (_SEATS.c.account_id.is_not(None))
                        & (_RATINGS.c.account_id == _SEATS.c.account_id)
                    )
                    | ((_SEATS.c.account_id.is_(None)) & (_RATINGS.c.ai == _SEATS.c.ai)),
                ).join(
                    _CHANGES,
                    (_CHANGES.c.rating_id == _RATINGS.c.id)
                    & (_CHANGES.c.game_id == _SEATS.c.game_id),
                )
            )
            .where(_SEATS.c.game_id == game_id)
            .order_by(_SEATS.c.seat)
        ).all()
    seats = []
    for row in rows:
        before = shown(row.mu_before) if row.mu_before is not None else None
        after = shown(row.mu)
        seats.append(
            {
                "seat": row.seat,
                "name": row.name,
                "before": before,
                "after": after,
                "change": None if before is None else after - before,
                "provisional": provisional(row.games),
            }
        )
    return seats


def _level(ai: str | None) -> int | None:
    if ai and ai.startswith("level:") and ai[6:].isdigit():
        return int(ai[6:])
    return None
