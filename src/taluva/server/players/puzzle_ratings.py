"""Puzzle ratings: every signed-in player and every puzzle has one, on the scale of the game
ratings (openskill's Plackett-Luce, shown as ``1500 + 48 (mu - 25)``, ``players.ratings``).

An attempt is a match of two: the player against the puzzle. A right answer ranks the player
first, so the player's rating rises and the puzzle's falls; a wrong one the other way round. A
puzzle starts from the rating its difficulty gives (``taluva.learn.puzzles.START_RATINGS``).
The player's streak (right answers in a row) is kept with the rating; guests solve unrated and
keep their streak in the browser.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, insert, select, update

from taluva.server.players.ratings import MODEL, RATING_BASE, RATING_SCALE, shown, updated
from taluva.server.storage.models import Base, PuzzleAttemptRow, PuzzleRatingRow

_RATINGS = Base.metadata.tables[PuzzleRatingRow.__tablename__]
_ATTEMPTS = Base.metadata.tables[PuzzleAttemptRow.__tablename__]


def mu_of(rating: int) -> float:
    """The ``mu`` a shown rating stands for (the inverse of ``shown``).

    >>> mu_of(1500), shown(mu_of(1700))
    (25.0, 1700)
    """
    return MODEL.mu + (rating - RATING_BASE) / RATING_SCALE


@dataclass(frozen=True, slots=True)
class PuzzleStanding:
    """A player's puzzle rating, attempts and streak."""

    rating: int
    attempts: int
    streak: int

    def to_json(self) -> dict[str, Any]:
        return {"rating": self.rating, "attempts": self.attempts, "streak": self.streak}


NEW_STANDING = PuzzleStanding(shown(MODEL.mu), 0, 0)


@dataclass(frozen=True, slots=True)
class RatedAttempt:
    """What one rated attempt changed."""

    before: int
    after: int
    streak: int
    puzzle_before: int
    puzzle_after: int

    def to_json(self) -> dict[str, Any]:
        return {
            "before": self.before,
            "after": self.after,
            "change": self.after - self.before,
            "streak": self.streak,
            "puzzle_before": self.puzzle_before,
            "puzzle_after": self.puzzle_after,
        }


def standing_of(engine: Engine, account_id: int) -> PuzzleStanding:
    """A player's puzzle rating (``NEW_STANDING`` before the first attempt)."""
    with engine.connect() as connection:
        row = connection.execute(
            select(_RATINGS.c.mu, _RATINGS.c.attempts, _RATINGS.c.streak).where(
                _RATINGS.c.account_id == account_id
            )
        ).first()
    if row is None:
        return NEW_STANDING
    return PuzzleStanding(shown(row.mu), row.attempts, row.streak)


def puzzle_ratings(engine: Engine) -> dict[str, int]:
    """The shown rating of every puzzle somebody has attempted, by puzzle id."""
    with engine.connect() as connection:
        rows = connection.execute(
            select(_RATINGS.c.puzzle_id, _RATINGS.c.mu).where(_RATINGS.c.puzzle_id.is_not(None))
        ).all()
    return {row.puzzle_id: shown(row.mu) for row in rows}


def attempted(engine: Engine, account_id: int) -> set[str]:
    """The puzzles a player has attempted (rated), so the next one is new to them."""
    with engine.connect() as connection:
        rows = connection.execute(
            select(_ATTEMPTS.c.puzzle_id).where(_ATTEMPTS.c.account_id == account_id).distinct()
        ).all()
    return {row.puzzle_id for row in rows}


def _row(
    connection: Connection, column: Any, key: object, start_mu: float
) -> tuple[int, float, float, int, int]:
    """The rating row of one subject, made with ``start_mu`` if it has none yet:
    ``(id, mu, sigma, attempts, streak)``."""
    query = select(
        _RATINGS.c.id, _RATINGS.c.mu, _RATINGS.c.sigma, _RATINGS.c.attempts, _RATINGS.c.streak
    ).where(column == key)
    row = connection.execute(query).first()
    if row is None:
        values = {
            column.name: key,
            "mu": start_mu,
            "sigma": MODEL.sigma,
            "attempts": 0,
            "streak": 0,
            "updated_at": datetime.now(UTC),
        }
        connection.execute(insert(_RATINGS).values(**values))
        row = connection.execute(query).first()
    assert row is not None
    return row.id, row.mu, row.sigma, row.attempts, row.streak


def rate_attempt(
    engine: Engine, account_id: int, puzzle_id: str, puzzle_start: int, right: bool
) -> RatedAttempt:
    """Rate one attempt of a player at a puzzle (which starts at the shown rating
    ``puzzle_start``): both ratings move, the player's streak grows or goes back to 0, and the
    attempt is stored, all in one transaction."""
    now = datetime.now(UTC)
    with engine.begin() as connection:
        player = _row(connection, _RATINGS.c.account_id, account_id, MODEL.mu)
        puzzle = _row(connection, _RATINGS.c.puzzle_id, puzzle_id, mu_of(puzzle_start))
        places = [1, 2] if right else [2, 1]
        (mu_p, sigma_p), (mu_z, sigma_z) = updated(
            [(player[1], player[2]), (puzzle[1], puzzle[2])], places
        )
        streak = player[4] + 1 if right else 0
        connection.execute(
            update(_RATINGS)
            .where(_RATINGS.c.id == player[0])
            .values(mu=mu_p, sigma=sigma_p, attempts=player[3] + 1, streak=streak, updated_at=now)
        )
        connection.execute(
            update(_RATINGS)
            .where(_RATINGS.c.id == puzzle[0])
            .values(mu=mu_z, sigma=sigma_z, attempts=puzzle[3] + 1, updated_at=now)
        )
        connection.execute(
            insert(_ATTEMPTS).values(
                account_id=account_id,
                puzzle_id=puzzle_id,
                solved=right,
                mu_after=mu_p,
                created_at=now,
            )
        )
    return RatedAttempt(shown(player[1]), shown(mu_p), streak, shown(puzzle[1]), shown(mu_z))
