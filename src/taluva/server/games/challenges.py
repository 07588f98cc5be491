"""Challenges: a signed-in player invites another, by name, to a two-player game of a chosen
setup (clock preset, rated or casual, options); the other accepts or declines from any page.

Accepting starts the game at once with both seated under their accounts (as a seek's game
starts, ``seeks.start_game``). A challenge is answered once: the database's conditional
update lets one answer in, so accepting twice, or accepting one its sender has just
cancelled, is refused. An unanswered challenge lapses after ``CHALLENGE_EXPIRES_AFTER``.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import Engine, and_, func, insert, or_, select, update
from sqlalchemy.orm import aliased

from taluva.engine.options import PLAYER_COUNTS
from taluva.engine.wording import N_, T, Tn
from taluva.server.errors import ApiError
from taluva.server.games.service import GameService
from taluva.server.games.setups import Setup, displayed_ratings, start_game
from taluva.server.players.accounts import Account
from taluva.server.storage.models import AccountRow, Base, ChallengeRow
from taluva.server.storage.store import now, utc

log = logging.getLogger("taluva.server")

_CHALLENGES = Base.metadata.tables[ChallengeRow.__tablename__]
_ACCOUNTS = Base.metadata.tables[AccountRow.__tablename__]

OPEN: Final = "open"
ACCEPTED: Final = "accepted"
DECLINED: Final = "declined"
CANCELLED: Final = "cancelled"
EXPIRED: Final = "expired"
"""A challenge's status: ``expired`` is never stored, it is an open one past its time."""

CHALLENGE_PLAYERS: Final = min(PLAYER_COUNTS)
"""A challenge is between two players: its sender and the player named."""
CHALLENGE_EXPIRES_AFTER: Final = 86400.0
"""Seconds after which a challenge nobody answered lapses."""
ANSWERS_SHOWN: Final = 600.0
"""Seconds an answered challenge stays in its sender's inbox (so their browser learns the
answer, and goes to the game of an accepted one)."""


def _status(row: Any, stamp: datetime) -> str:
    if row.status == OPEN and utc(row.created_at) < stamp - timedelta(
        seconds=CHALLENGE_EXPIRES_AFTER
    ):
        return EXPIRED
    return str(row.status)


def _open_since(stamp: datetime) -> Any:
    """The challenges still open (not answered, not lapsed)."""
    cutoff = stamp - timedelta(seconds=CHALLENGE_EXPIRES_AFTER)
    return and_(_CHALLENGES.c.status == OPEN, _CHALLENGES.c.created_at >= cutoff)


def _rows(engine: Engine, where: Any) -> list[Any]:
    sender = aliased(_ACCOUNTS)
    addressee = aliased(_ACCOUNTS)
    with engine.connect() as connection:
        return list(
            connection.execute(
                select(
                    _CHALLENGES,
                    sender.c.name.label("from_name"),
                    addressee.c.name.label("to_name"),
                )
                .join(sender, sender.c.id == _CHALLENGES.c.from_account)
                .join(addressee, addressee.c.id == _CHALLENGES.c.to_account)
                .where(where)
                .order_by(_CHALLENGES.c.id)
            ).all()
        )


def challenge_view(row: Any, ratings: dict[int, int], stamp: datetime) -> dict[str, Any]:
    """A challenge as the API shows it (docs/server-api.md, "Finding a game")."""
    return {
        "id": row.id,
        "from": {
            "id": row.from_account,
            "name": row.from_name,
            "rating": ratings[row.from_account],
        },
        "to": {"id": row.to_account, "name": row.to_name, "rating": ratings[row.to_account]},
        "setup": Setup.from_json(row.setup).to_json(),
        "status": _status(row, stamp),
        "game": row.game_id,
        "created_at": utc(row.created_at).isoformat(),
        "answered_at": None if row.answered_at is None else utc(row.answered_at).isoformat(),
    }


def send_challenge(engine: Engine, sender: int, addressee: int, setup: Setup, limit: int) -> int:
    """Store a challenge from ``sender`` to ``addressee``; return its id. ApiError 422
    ``bad-request`` (oneself), 404 ``not-found`` (no such player), 409 ``too-many``
    (``limit`` open challenges sent already)."""
    if addressee == sender:
        raise ApiError(422, "bad-request", T("you cannot challenge yourself"))
    stamp = now()
    with engine.begin() as connection:
        if connection.execute(select(_ACCOUNTS.c.id).where(_ACCOUNTS.c.id == addressee)).first():
            sent = connection.execute(
                select(func.count())
                .select_from(_CHALLENGES)
                .where(_CHALLENGES.c.from_account == sender, _open_since(stamp))
            ).scalar_one()
            if sent >= limit:
                raise ApiError(
                    409,
                    "too-many",
                    Tn(
                        "you have {limit} challenge waiting for an answer, the most an account "
                        "may: cancel one first",
                        "you have {limit} challenges waiting for an answer, the most an account "
                        "may: cancel one first",
                        limit,
                        limit=limit,
                    ),
                )
            new_id = connection.execute(
                insert(_CHALLENGES).returning(_CHALLENGES.c.id),
                {
                    "from_account": sender,
                    "to_account": addressee,
                    "setup": setup.to_json(),
                    "status": OPEN,
                    "game_id": None,
                    "created_at": stamp,
                    "answered_at": None,
                },
            ).scalar_one()
            return int(new_id)
    raise ApiError(404, "not-found", T("there is no player {player}", player=addressee))


def find_challenge(engine: Engine, challenge_id: int) -> Any:
    """The row of challenge ``challenge_id`` with both names; ApiError 404 if none."""
    rows = _rows(engine, _CHALLENGES.c.id == challenge_id)
    if not rows:
        raise ApiError(
            404, "not-found", T("there is no challenge {challenge}", challenge=challenge_id)
        )
    return rows[0]


def _closed(row: Any, stamp: datetime) -> ApiError:
    words = {
        ACCEPTED: N_("challenge {challenge} was accepted already"),
        DECLINED: N_("challenge {challenge} was declined"),
        CANCELLED: N_("challenge {challenge} was cancelled by its sender"),
        EXPIRED: N_("challenge {challenge} has expired: nobody answered it in time"),
    }
    return ApiError(409, "challenge-closed", T(words[_status(row, stamp)], challenge=row.id))


def close_challenge(engine: Engine, challenge_id: int, account_id: int, status: str) -> Any:
    """Answer (``accepted``, ``declined``: its addressee) or cancel (``cancelled``: its
    sender) an open challenge; return its row as it was. Of two answers at once only one is
    stored. ApiError 404 ``not-found``, 403 ``forbidden`` (not yours to answer or cancel),
    409 ``challenge-closed`` (answered, cancelled or expired)."""
    row = find_challenge(engine, challenge_id)
    owner = row.from_account if status == CANCELLED else row.to_account
    if account_id != owner:
        words = (
            N_("only its sender may do that with challenge {challenge}")
            if status == CANCELLED
            else N_("only the player it is addressed to may do that with challenge {challenge}")
        )
        raise ApiError(403, "forbidden", T(words, challenge=challenge_id))
    stamp = now()
    with engine.begin() as connection:
        changed = connection.execute(
            update(_CHALLENGES)
            .where(_CHALLENGES.c.id == challenge_id, _open_since(stamp))
            .values(status=status, answered_at=stamp)
        ).rowcount
    if changed != 1:
        raise _closed(find_challenge(engine, challenge_id), stamp)
    return row


def reopen_challenge(engine: Engine, challenge_id: int) -> None:
    """Make an accepted challenge open again: its game could not be created."""
    with engine.begin() as connection:
        connection.execute(
            update(_CHALLENGES)
            .where(_CHALLENGES.c.id == challenge_id)
            .values(status=OPEN, answered_at=None)
        )


def set_game(engine: Engine, challenge_id: int, game_id: str) -> None:
    """Record the game an accepted challenge started."""
    with engine.begin() as connection:
        connection.execute(
            update(_CHALLENGES).where(_CHALLENGES.c.id == challenge_id).values(game_id=game_id)
        )


def challenges_of(engine: Engine, account_id: int) -> tuple[list[Any], list[Any]]:
    """The open challenges to ``account_id``, and those it sent that are open or were
    answered in the last ``ANSWERS_SHOWN`` seconds; the oldest first."""
    stamp = now()
    received = _rows(engine, and_(_CHALLENGES.c.to_account == account_id, _open_since(stamp)))
    answered = stamp - timedelta(seconds=ANSWERS_SHOWN)
    sent = _rows(
        engine,
        and_(
            _CHALLENGES.c.from_account == account_id,
            or_(
                _open_since(stamp),
                and_(_CHALLENGES.c.status != OPEN, _CHALLENGES.c.answered_at >= answered),
            ),
        ),
    )
    return received, sent


class Challenges:
    """Challenges for one request: sending, answering, cancelling and showing them."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.engine = service.store.engine

    async def views(self, rows: list[Any]) -> list[dict[str, Any]]:
        """The API's view of challenge ``rows``."""
        accounts = {row.from_account for row in rows} | {row.to_account for row in rows}
        ratings = await self.service.db(displayed_ratings, self.engine, accounts)
        stamp = now()
        return [challenge_view(row, ratings, stamp) for row in rows]

    async def _view(self, challenge_id: int) -> dict[str, Any]:
        row = await self.service.db(find_challenge, self.engine, challenge_id)
        return (await self.views([row]))[0]

    async def send(self, account: Account, fields: dict[str, Any]) -> dict[str, Any]:
        """Challenge the player ``fields["to"]`` to the game the other fields describe."""
        setup = Setup.parse({**fields, "players": CHALLENGE_PLAYERS})
        limit = self.service.settings.limits.open_challenges
        challenge_id = await self.service.db(
            send_challenge, self.engine, account.id, fields["to"], setup, limit
        )
        return await self._view(challenge_id)

    async def show(self, account: Account, challenge_id: int) -> dict[str, Any]:
        """A challenge, to its sender or its addressee (ApiError 403 to anyone else)."""
        row = await self.service.db(find_challenge, self.engine, challenge_id)
        if account.id not in (row.from_account, row.to_account):
            raise ApiError(
                403, "forbidden", T("challenge {challenge} is not yours", challenge=challenge_id)
            )
        return (await self.views([row]))[0]

    async def accept(self, account: Account, challenge_id: int) -> dict[str, Any]:
        """Accept a challenge addressed to ``account``: its game starts, both seated."""
        row = await self.service.db(
            close_challenge, self.engine, challenge_id, account.id, ACCEPTED
        )
        players = [Account(row.from_account, row.from_name), Account(row.to_account, row.to_name)]
        try:
            game_id = await start_game(self.service, Setup.from_json(row.setup), players)
        except Exception:
            log.exception("the game of challenge %s could not be started", challenge_id)
            await self.service.db(reopen_challenge, self.engine, challenge_id)
            raise
        await self.service.db(set_game, self.engine, challenge_id, game_id)
        return await self._view(challenge_id)

    async def decline(self, account: Account, challenge_id: int) -> dict[str, Any]:
        """Decline a challenge addressed to ``account``."""
        await self.service.db(close_challenge, self.engine, challenge_id, account.id, DECLINED)
        return await self._view(challenge_id)

    async def cancel(self, account: Account, challenge_id: int) -> dict[str, Any]:
        """Cancel a challenge ``account`` sent, while unanswered."""
        await self.service.db(close_challenge, self.engine, challenge_id, account.id, CANCELLED)
        return await self._view(challenge_id)

    async def mine(self, account: Account) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The challenges to ``account`` still open, and those it sent (``challenges_of``)."""
        received, sent = await self.service.db(challenges_of, self.engine, account.id)
        views = await self.views(received + sent)
        return views[: len(received)], views[len(received) :]
