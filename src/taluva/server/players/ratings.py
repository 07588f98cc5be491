"""Ratings of accounts and AI levels (openskill's Plackett-Luce model), updated by rated games.

Every seat of a rated game is rated: an account, or an AI level, which has one rating of its
own so people see where they stand against it. Each seat is a team of one, ranked by its
place; seats sharing a place are a tie. ``rate_game`` runs inside the transaction that stores
the game's result, so a rating changes exactly when a result is stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from openskill.models import PlackettLuce
from sqlalchemy import Connection, Engine, insert, or_, select, update
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


RATING_BASE: Final = 1500
"""The displayed rating of a new player (openskill's starting ``mu``)."""
RATING_SCALE: Final = 48
"""Displayed points per unit of ``mu``. One ``beta`` (25/6) of skill gives the stronger of two
players about a 76% chance to win, which the Elo scale chess players know calls 200 points:
200 / (25/6) = 48."""
PROVISIONAL_GAMES: Final = 5
"""A rating is provisional (shown with "?", ranked apart) until this many rated games."""


def shown(mu: float) -> int:
    """The rating people see: ``1500 + 48 (mu - 25)``, rounded; a new player has 1500.

    >>> shown(25.0), shown(30.0), shown(20.0)
    (1500, 1740, 1260)
    """
    return round(RATING_BASE + RATING_SCALE * (mu - MODEL.mu))


def provisional(games: int) -> bool:
    """Whether a rating after ``games`` rated games is still provisional.

    >>> provisional(0), provisional(PROVISIONAL_GAMES)
    (True, False)
    """
    return games < PROVISIONAL_GAMES


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


@dataclass(frozen=True, slots=True)
class Shown:
    """A rating as people see it: the number and whether it is still provisional."""

    rating: int
    provisional: bool

    def to_json(self) -> dict[str, Any]:
        """The ``rating`` and ``provisional`` keys of a seat or player in the API."""
        return {"rating": self.rating, "provisional": self.provisional}


NEW = Shown(shown(MODEL.mu), provisional(0))
"""The rating of a player with no rated game yet."""


def ratings_of(engine: Engine, subjects: Iterable[Rated]) -> dict[Rated, Shown]:
    """The shown rating of each subject (accounts and AI levels); those with no rated game
    yet get ``NEW``."""
    wanted = set(subjects)
    accounts = [s.account_id for s in wanted if s.account_id is not None]
    ais = [s.ai for s in wanted if s.account_id is None and s.ai]
    found = dict.fromkeys(wanted, NEW)
    if not accounts and not ais:
        return found
    with engine.connect() as connection:
        rows = connection.execute(
            select(_RATINGS.c.account_id, _RATINGS.c.ai, _RATINGS.c.mu, _RATINGS.c.games).where(
                or_(_RATINGS.c.account_id.in_(accounts), _RATINGS.c.ai.in_(ais))
            )
        ).all()
    for row in rows:
        subject = Rated(account_id=row.account_id) if row.account_id else Rated(ai=row.ai)
        found[subject] = Shown(shown(row.mu), provisional(row.games))
    return found


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
                "mu_before": row.mu,
                "sigma_before": row.sigma,
                "created_at": stamp,
            },
        )
