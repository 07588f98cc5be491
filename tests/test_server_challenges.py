"""Challenges and the inbox: a player challenges another (from their profile), who accepts
(the game starts, both seated) or declines from any page; the inbox gathers the games where
it is your move, the challenges and the rematches offered to you. On SQLite and PostgreSQL."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import test_server_storage
from fastapi.testclient import TestClient
from sqlalchemy import update
from test_server_seeks import TEN_TWENTY, Person, at_once, code, game_of, seated, server, sign_up
from test_server_support import state_of

from taluva.server.games.challenges import CHALLENGE_EXPIRES_AFTER
from taluva.server.storage.models import Base, ChallengeRow
from taluva.server.storage.store import now

# the storage tests' fixtures: an empty SQLite or PostgreSQL database
postgres_server = test_server_storage.postgres_server
database = test_server_storage.database
pytestmark = pytest.mark.usefixtures("cheap_hashes")


@pytest.fixture
def client(database: str) -> Iterator[TestClient]:
    with server(database) as client:
        yield client


@pytest.fixture
def ana(client: TestClient) -> Person:
    return sign_up(client, "Ana")


@pytest.fixture
def ben(client: TestClient) -> Person:
    return sign_up(client, "Ben")


def challenge(sender: Person, to: Person, **setup: Any) -> dict[str, Any]:
    response = sender.post("/api/challenges", {"to": to.id, "clock": TEN_TWENTY, **setup})
    assert response.status_code == 201, response.text
    sent: dict[str, Any] = response.json()["challenge"]
    return sent


# ---------------------------------------------------------------------- challenges


def test_an_accepted_challenge_starts_a_live_game_with_both_players_seated(
    client: TestClient, ana: Person, ben: Person
) -> None:
    sent = challenge(ana, ben)
    assert (sent["status"], sent["from"]["name"], sent["to"]["name"]) == ("open", "Ana", "Ben")
    assert sent["setup"]["players"] == 2 and sent["setup"]["rated"] is True
    inbox = ben.get("/api/my/inbox").json()
    assert [c["id"] for c in inbox["challenges"]] == [sent["id"]]
    assert [c["id"] for c in ana.get("/api/my/inbox").json()["sent"]] == [sent["id"]]
    accepted = ben.post(f"/api/challenges/{sent['id']}/accept")
    assert accepted.status_code == 200, accepted.text
    answer = accepted.json()["challenge"]
    assert answer["status"] == "accepted" and answer["game"]
    game = game_of(client, answer["game"])
    assert (game["status"], game["rated"]) == ("live", True)
    assert seated(game) == {(ana.id, "Ana"), (ben.id, "Ben")}
    # the sender learns the answer and its game from their inbox
    [news] = ana.get("/api/my/inbox").json()["sent"]
    assert (news["status"], news["game"]) == ("accepted", answer["game"])
    assert ben.get("/api/my/inbox").json()["challenges"] == []


def test_a_casual_challenge_without_a_clock_makes_a_casual_game(
    client: TestClient, ana: Person, ben: Person
) -> None:
    response = ana.post("/api/challenges", {"to": ben.id, "tiles_per_player": 24})
    assert response.status_code == 201, response.text
    sent = response.json()["challenge"]
    assert (sent["setup"]["rated"], sent["setup"]["clock"]) == (False, None)
    game = game_of(
        client, ben.post(f"/api/challenges/{sent['id']}/accept").json()["challenge"]["game"]
    )
    assert (game["rated"], game["clock"], game["options"]["tiles_per_player"]) == (False, None, 24)


def test_a_declined_challenge_cannot_be_accepted_and_the_sender_is_told(
    ana: Person, ben: Person
) -> None:
    sent = challenge(ana, ben)
    declined = ben.post(f"/api/challenges/{sent['id']}/decline")
    assert declined.json()["challenge"]["status"] == "declined"
    late = ben.post(f"/api/challenges/{sent['id']}/accept")
    assert (late.status_code, code(late)) == (409, "challenge-closed")
    assert "declined" in late.json()["error"]["message"]
    assert ana.get("/api/my/inbox").json()["sent"][0]["status"] == "declined"


def test_a_cancelled_or_expired_challenge_cannot_be_accepted(
    client: TestClient, ana: Person, ben: Person
) -> None:
    cancelled = challenge(ana, ben)
    not_his = ben.delete(f"/api/challenges/{cancelled['id']}")
    assert (not_his.status_code, code(not_his)) == (403, "forbidden")
    assert ana.delete(f"/api/challenges/{cancelled['id']}").json()["challenge"]["status"] == (
        "cancelled"
    )
    refused = ben.post(f"/api/challenges/{cancelled['id']}/accept")
    assert (refused.status_code, code(refused)) == (409, "challenge-closed")
    old = challenge(ana, ben)
    store = client.app.state.service.store  # type: ignore[attr-defined]
    table = Base.metadata.tables[ChallengeRow.__tablename__]
    with store.engine.begin() as connection:
        connection.execute(
            update(table)
            .where(table.c.id == old["id"])
            .values(created_at=now() - timedelta(seconds=CHALLENGE_EXPIRES_AFTER + 1))
        )
    assert ben.get("/api/my/inbox").json()["challenges"] == []
    assert ana.get(f"/api/challenges/{old['id']}").json()["challenge"]["status"] == "expired"
    expired = ben.post(f"/api/challenges/{old['id']}/accept")
    assert (expired.status_code, code(expired)) == (409, "challenge-closed")
    assert "expired" in expired.json()["error"]["message"]


def test_challenges_to_oneself_to_nobody_or_beyond_the_limit_are_refused(
    database: str,
) -> None:
    with server(database, open_challenges=2) as client:
        ana, ben = sign_up(client, "Ana"), sign_up(client, "Ben")
        itself = ana.post("/api/challenges", {"to": ana.id, "clock": TEN_TWENTY})
        assert (itself.status_code, code(itself)) == (422, "bad-request")
        nobody = ana.post("/api/challenges", {"to": 999, "clock": TEN_TWENTY})
        assert (nobody.status_code, code(nobody)) == (404, "not-found")
        unrated = ana.post("/api/challenges", {"to": ben.id, "rated": True})
        assert (unrated.status_code, code(unrated)) == (422, "not-rateable")
        challenge(ana, ben)
        challenge(ana, ben)
        third = ana.post("/api/challenges", {"to": ben.id, "clock": TEN_TWENTY})
        assert (third.status_code, code(third)) == (409, "too-many")
        client.cookies.clear()
        guest = client.post("/api/challenges", json={"to": ben.id})
        assert (guest.status_code, code(guest)) == (401, "signed-out")


def test_only_the_player_challenged_accepts_or_declines(
    client: TestClient, ana: Person, ben: Person
) -> None:
    sent = challenge(ana, ben)
    cid = sign_up(client, "Cid")
    for path in ("accept", "decline"):
        response = cid.post(f"/api/challenges/{sent['id']}/{path}")
        assert (response.status_code, code(response)) == (403, "forbidden")
    own = ana.post(f"/api/challenges/{sent['id']}/accept")
    assert (own.status_code, code(own)) == (403, "forbidden")
    assert cid.get(f"/api/challenges/{sent['id']}").status_code == 403
    assert ben.post("/api/challenges/999/accept").status_code == 404


def test_of_two_answers_at_once_only_one_is_stored_and_one_game_starts(
    client: TestClient, ana: Person, ben: Person
) -> None:
    """Ben accepts on two devices at the same moment."""
    sent = challenge(ana, ben)
    answers = at_once((ben, ben), f"/api/challenges/{sent['id']}/accept")
    assert sorted(a.status_code for a in answers) == [200, 409]
    assert {code(a) for a in answers if a.status_code == 409} == {"challenge-closed"}
    decline = ben.post(f"/api/challenges/{sent['id']}/decline")
    assert (decline.status_code, code(decline)) == (409, "challenge-closed")
    live = client.get("/api/games?status=live").json()["games"]
    assert len(live) == 1


# ---------------------------------------------------------------------- the inbox


def test_the_inbox_counts_the_games_where_it_is_your_move(
    client: TestClient, ana: Person, ben: Person
) -> None:
    game_id = ben.post(f"/api/challenges/{challenge(ana, ben)['id']}/accept").json()["challenge"][
        "game"
    ]
    state = state_of(client, game_id)
    to_move = state["players"][state["to_move"]]["account_id"]
    mover, other = (ana, ben) if to_move == ana.id else (ben, ana)
    moving = mover.get("/api/my/inbox").json()["your_move"]
    assert moving["count"] == 1
    assert [(g["id"], g["seat"]) for g in moving["games"]] == [(game_id, state["to_move"])]
    assert other.get("/api/my/inbox").json()["your_move"] == {"count": 0, "games": []}
    client.cookies.clear()
    guest = client.get("/api/my/inbox")
    assert (guest.status_code, code(guest)) == (401, "signed-out")


def test_the_inbox_lists_a_rematch_offered_by_another_player_until_it_is_taken(
    client: TestClient, ana: Person, ben: Person
) -> None:
    created = ana.post(
        "/api/games", {"seats": [{"kind": "human", "take": True}, {"kind": "human"}]}
    )
    game_id = created.json()["game"]["id"]
    tokens = {0: created.json()["tokens"][0]["token"]}
    tokens[1] = ben.post(f"/api/games/{game_id}/seats/1", {}).json()["token"]
    play_to_the_end(client, game_id, tokens)
    offered = ben.post(f"/api/games/{game_id}/rematch")
    assert offered.status_code == 201, offered.text
    rematch = offered.json()["game"]
    assert ben.get("/api/my/inbox").json()["rematches"] == []
    assert ana.get("/api/my/inbox").json()["rematches"] == [
        {
            "game": rematch["id"],
            "rematch_of": game_id,
            "name": rematch["name"],
            "by": {"id": ben.id, "name": "Ben"},
        }
    ]
    assert ana.post(f"/api/games/{game_id}/rematch").status_code == 200
    assert ana.get("/api/my/inbox").json()["rematches"] == []


def play_to_the_end(client: TestClient, game_id: str, tokens: dict[int, str]) -> None:
    """Random legal moves, each with the token of the seat to move, to the end."""
    rng = random.Random(1)
    state = state_of(client, game_id)
    while state["result"] is None:
        response = client.post(
            f"/api/games/{game_id}/moves",
            json={"state": state["ply"], "move": rng.choice(state["legal"])},
            headers={"authorization": f"Bearer {tokens[state['to_move']]}"},
        )
        assert response.status_code == 200, response.text
        state = response.json()["state"]
