"""Ratings of accounts and AI levels (openskill's Plackett-Luce model), updated by rated games.

Every seat of a rated game is rated: an account, or an AI level, which has one rating of its
own so people see where they stand against it. Each seat is a team of one, ranked by its
place; seats sharing a place are a tie. ``rate_game`` runs inside the transaction that stores
the game's result, so a rating changes exactly when a result is stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from openskill.models import PlackettLuce
from sqlalchemy import Connection, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from taluva.server.storage.models import Base, RatingChangeRow, RatingRow

MODEL = PlackettLuce()
"""The rating model: a new rating is ``MODEL.mu`` (25) with uncertainty ``MODEL.sigma``."""

_RATINGS = Base.metadata.tables[RatingRow.__tablename__]
_CHANGES = Base.metadata.tables[RatingChangeRow.__tablename__]


@dataclass(frozen=True, slots=True)
class Rated:
    """Who holds a seat, for rating: an account id, or an AI level's spec (``level:3``)."""

    account_id: int | None = None
    ai: str | None = None


def shown(mu: float, sigma: float) -> float:
    """The rating people see: openskill's ordinal ``mu - 3 sigma`` (0 for a new player, and
    it only rises much once the rating is sure), to one decimal.

    >>> shown(25.0, 25 / 3), shown(30.0, 2.0)
    (0.0, 24.0)
    """
    return round(mu - 3 * sigma, 1)


def updated(
    before: Sequence[tuple[float, float]], places: Sequence[int]
) -> list[tuple[float, float]]:
    """The ``(mu, sigma)`` of each seat after a game, from those before it and the places
    (1 is first; equal places are ties).

    >>> after = updated([(25.0, 25 / 3)] * 3, [1, 2, 2])
    >>> after[0][0] > 25 > after[1][0] == after[2][0]
    True
    """
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    rated = MODEL.rate(teams, ranks=[float(place) for place in places])
    return [(float(team[0].mu), float(team[0].sigma)) for team in rated]


def _lock_order(subject: Rated) -> tuple[bool, int, str]:
    """One order in which every transaction touches rating rows, so none waits in a circle."""
    return (subject.account_id is None, subject.account_id or 0, subject.ai or "")


def _ensure_rows(connection: Connection, subjects: Sequence[Rated], stamp: datetime) -> None:
    """Insert a new rating for each subject that has none (concurrent games may race to do
    it: the loser's insert does nothing rather than fail)."""
    make = postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert
    for subject in subjects:
        connection.execute(
            make(_RATINGS)
            .values(
                account_id=subject.account_id,
                ai=subject.ai,
                mu=MODEL.mu,
                sigma=MODEL.sigma,
                games=0,
                updated_at=stamp,
            )
            .on_conflict_do_nothing()
        )


def _where(subject: Rated) -> object:
    if subject.account_id is not None:
        return _RATINGS.c.account_id == subject.account_id
    return _RATINGS.c.ai == subject.ai


def rate_game(
    connection: Connection,
    game_id: str,
    seats: Sequence[Rated],
    places: Sequence[int],
    stamp: datetime,
) -> None:
    """Update the ratings of a rated game's seats and record each in its history.

    The rows are locked (``FOR UPDATE`` on PostgreSQL) in one fixed order, so two games
    ending at once update one after the other. An AI level that held several seats gets the mean of
    its seats' new ratings.
    """
    subjects = sorted(set(seats), key=_lock_order)
    _ensure_rows(connection, subjects, stamp)
    rows = {}
    for subject in subjects:
        row = connection.execute(
            select(_RATINGS.c.id, _RATINGS.c.mu, _RATINGS.c.sigma, _RATINGS.c.games)
            .where(_where(subject))  # type: ignore[arg-type]
            .with_for_update()
        ).one()
        rows[subject] = row
    after = updated([(rows[s].mu, rows[s].sigma) for s in seats], places)
    new: dict[Rated, list[tuple[float, float]]] = {}
    for subject, rating in zip(seats, after, strict=True):
        new.setdefault(subject, []).append(rating)
    for subject in subjects:
        ratings = new[subject]
        mu = sum(r[0] for r in ratings) / len(ratings)
        sigma = sum(r[1] for r in ratings) / len(ratings)
        row = rows[subject]
        connection.execute(
            update(_RATINGS)
            .where(_RATINGS.c.id == row.id)
            .values(mu=mu, sigma=sigma, games=row.games + 1, updated_at=stamp)
        )
        connection.execute(
            insert(_CHANGES),
            {
                "rating_id": row.id,
                "game_id": game_id,
                "mu": mu,
                "sigma": sigma,
                "created_at": stamp,
            },
        )
