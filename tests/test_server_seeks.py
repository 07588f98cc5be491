"""Seeks and quick pairing: signed-in players seek a game in the lobby, others take a seek
with one click, equal seeks pair at once, and each started game is live with every player
seated under their account; on SQLite and PostgreSQL, the race of two takers for one seek
included."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
import test_server_storage
from fastapi.testclient import TestClient
from sqlalchemy import func, insert, select, update

from taluva.server import Limits, Settings, create_app
from taluva.server.games import clocks
from taluva.server.games.seeks import SEEK_EXPIRES_AFTER
from taluva.server.games.setups import QUICK_PAIRINGS, RATING_RANGES
from taluva.server.players.accounts import SESSION_COOKIE
from taluva.server.players.ratings import MODEL, RATING_SCALE
from taluva.server.storage.models import Base, GameRow, RatingRow, SeekRow
from taluva.server.storage.store import now, utc

# the storage tests' fixtures: an empty SQLite or PostgreSQL database
postgres_server = test_server_storage.postgres_server
database = test_server_storage.database

_SEEKS = Base.metadata.tables[SeekRow.__tablename__]
TEN_TWENTY = {"kind": "fischer", "base": 600, "increment": 20}
"""The lobby's preset of 10 minutes + 20 seconds a turn."""


pytestmark = pytest.mark.usefixtures("cheap_hashes")


@contextmanager
def server(database: str, **limits: Any) -> Iterator[TestClient]:
    """An in-process server on ``database`` with no rate limit in the way."""
    settings = Settings(
        database=database,
        ai_workers=0,
        limits=Limits(http_rate=1e6, http_burst=10**6, **limits),
    )
    with TestClient(create_app(settings)) as client:
        yield client


@dataclass
class Person:
    """A signed-in player with a browser of their own (their session cookie), on a server
    ``client`` shared with others."""

    client: TestClient
    id: int
    name: str
    session: str

    def call(self, method: str, path: str, body: Any = None) -> Any:
        """A request with this person's session cookie (sent by hand: the client's own jar
        stays empty, so people on one client may call at once)."""
        cookie = {"cookie": f"{SESSION_COOKIE}={self.session}"}
        return self.client.request(method, path, json=body, headers=cookie)

    def get(self, path: str) -> Any:
        return self.call("GET", path)

    def post(self, path: str, body: Any = None) -> Any:
        return self.call("POST", path, body)

    def delete(self, path: str) -> Any:
        return self.call("DELETE", path)

    def on(self, other: TestClient) -> Person:
        """The same person on another server process."""
        return Person(other, self.id, self.name, self.session)


def sign_up(client: TestClient, name: str) -> Person:
    client.cookies.clear()
    response = client.post("/api/accounts", json={"name": name, "password": "password 1"})
    assert response.status_code == 201, response.text
    session = client.cookies.get(SESSION_COOKIE)
    assert session
    client.cookies.clear()
    return Person(client, response.json()["account"]["id"], name, session)


def code(response: Any) -> str:
    error: str = response.json()["error"]["code"]
    return error


def game_of(client: TestClient, game_id: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200, response.text
    game: dict[str, Any] = response.json()["game"]
    return game


def seated(game: dict[str, Any]) -> set[tuple[int | None, str]]:
    """Who holds the game's seats: (account, name) of each."""
    return {(p["account_id"], p["name"]) for p in game["players"]}


def set_rating(client: TestClient, person: Person, rating: int) -> None:
    """Give ``person`` the rating ``rating`` as people see it."""
    store = client.app.state.service.store  # type: ignore[attr-defined]
    mu = MODEL.mu + (rating - 1500) / RATING_SCALE
    with store.engine.begin() as connection:
        connection.execute(
            insert(Base.metadata.tables[RatingRow.__tablename__]),
            {"account_id": person.id, "mu": mu, "sigma": 2.0, "games": 20, "updated_at": now()},
        )


def age_seeks(client: TestClient, person: Person, seconds: float) -> None:
    """Make ``person``'s seeks look last asked after ``seconds`` ago."""
    store = client.app.state.service.store  # type: ignore[attr-defined]
    with store.engine.begin() as connection:
        connection.execute(
            update(_SEEKS)
            .where(_SEEKS.c.account_id == person.id)
            .values(seen_at=now() - timedelta(seconds=seconds))
        )


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


# ---------------------------------------------------------------------- quick pairing


def test_the_quick_pairing_tiles_are_seeks_of_the_lobbys_clock_presets_sent_in_config(
    client: TestClient,
) -> None:
    config = client.get("/api/config").json()
    assert config["seeks"]["quick"] == [dict(tile) for tile in QUICK_PAIRINGS]
    assert config["seeks"]["rating_ranges"] == list(RATING_RANGES)
    rules = [{k: v for k, v in p.items() if k != "label"} for p in clocks.PRESETS]
    for tile in config["seeks"]["quick"]:
        assert tile["seek"]["clock"] in rules
    assert len({tile["id"] for tile in QUICK_PAIRINGS}) == len(QUICK_PAIRINGS)


def test_two_players_clicking_the_same_tile_start_a_live_rated_game_with_both_seated(
    client: TestClient, ana: Person, ben: Person
) -> None:
    tile = QUICK_PAIRINGS[1]["seek"]
    waiting = ana.post("/api/seeks", tile)
    assert waiting.status_code == 201, waiting.text
    seek = waiting.json()["seek"]
    assert (seek["status"], seek["game"], seek["yours"]) == ("open", None, True)
    assert seek["by"] == {"id": ana.id, "name": "Ana", "rating": 1500}
    paired = ben.post("/api/seeks", tile)
    assert paired.status_code == 200, paired.text
    started = paired.json()["seek"]
    assert (started["id"], started["status"]) == (seek["id"], "matched")
    assert [p["name"] for p in started["players"]] == ["Ana", "Ben"]
    game = game_of(client, started["game"])
    assert (game["status"], game["rated"], game["clock"]["base_ms"]) == ("live", True, 600_000)
    assert seated(game) == {(ana.id, "Ana"), (ben.id, "Ben")}
    # the first seeker learns the game by asking after the seek, or from the inbox
    assert ana.get(f"/api/seeks/{seek['id']}").json()["seek"]["game"] == started["game"]
    [mine] = ana.get("/api/my/inbox").json()["seeks"]
    assert (mine["status"], mine["game"]) == ("matched", started["game"])
    assert client.get("/api/seeks").json()["seeks"] == []


def test_a_listed_seek_is_taken_with_one_click_and_its_game_has_its_options(
    client: TestClient, ana: Person, ben: Person
) -> None:
    body = {
        "players": 2,
        "rated": False,
        "clock": {"kind": "turn", "per_turn": clocks.DAY},
        "tiles_per_player": 18,
        "house_rules": ["adjacent_hut"],
    }
    seek = ana.post("/api/seeks", body).json()["seek"]
    listed = ben.get("/api/seeks").json()["seeks"]
    assert [(s["id"], s["yours"], s["fits"]) for s in listed] == [(seek["id"], False, True)]
    assert listed[0]["setup"]["clock"]["label"] == "1 day a turn"
    taken = ben.post(f"/api/seeks/{seek['id']}/take")
    assert taken.status_code == 200, taken.text
    game = game_of(client, taken.json()["seek"]["game"])
    assert (game["status"], game["rated"], game["hints"]) == ("live", False, True)
    assert game["options"]["tiles_per_player"] == 18
    assert game["options"]["house_rules"] == ["adjacent_hut"]
    assert seated(game) == {(ana.id, "Ana"), (ben.id, "Ben")}


def test_a_three_player_seek_waits_for_its_third_player_then_starts(
    client: TestClient, ana: Person, ben: Person
) -> None:
    cid = sign_up(client, "Cid")
    tile = QUICK_PAIRINGS[3]["seek"]
    assert tile["players"] == 3
    seek = ana.post("/api/seeks", tile).json()["seek"]
    joined = ben.post("/api/seeks", tile)
    assert joined.status_code == 200
    assert (joined.json()["seek"]["status"], len(joined.json()["seek"]["players"])) == ("open", 2)
    assert ben.post(f"/api/seeks/{seek['id']}/take").json()["seek"]["status"] == "open"
    started = cid.post(f"/api/seeks/{seek['id']}/take").json()["seek"]
    assert started["status"] == "matched"
    game = game_of(client, started["game"])
    assert game["status"] == "live"
    assert seated(game) == {(ana.id, "Ana"), (ben.id, "Ben"), (cid.id, "Cid")}


def test_a_player_whose_game_starts_leaves_their_other_seeks(
    client: TestClient, ana: Person, ben: Person
) -> None:
    ana.post("/api/seeks", QUICK_PAIRINGS[0]["seek"])
    ana.post("/api/seeks", QUICK_PAIRINGS[2]["seek"])
    assert len(client.get("/api/seeks").json()["seeks"]) == 2
    assert ben.post("/api/seeks", QUICK_PAIRINGS[2]["seek"]).json()["seek"]["game"]
    assert client.get("/api/seeks").json()["seeks"] == []


# ---------------------------------------------------------------------- refusals


def test_only_signed_in_players_seek_and_take(client: TestClient, ana: Person) -> None:
    seek = ana.post("/api/seeks", QUICK_PAIRINGS[0]["seek"]).json()["seek"]
    client.cookies.clear()
    assert code(client.post("/api/seeks", json=QUICK_PAIRINGS[0]["seek"])) == "signed-out"
    assert code(client.post(f"/api/seeks/{seek['id']}/take")) == "signed-out"
    assert code(client.delete(f"/api/seeks/{seek['id']}")) == "signed-out"
    guest_view = client.get("/api/seeks").json()["seeks"]
    assert [s["id"] for s in guest_view] == [seek["id"]] and "fits" not in guest_view[0]


REFUSED = [
    ({"players": 7, "clock": TEN_TWENTY}, "bad-request"),
    ({"players": 2, "clock": {"kind": "fischer", "base": 601, "increment": 20}}, "bad-request"),
    ({"players": 2, "rated": True}, "not-rateable"),
    ({"players": 2, "clock": TEN_TWENTY, "expansions": ["dragons"]}, "bad-option"),
    ({"players": 3, "clock": TEN_TWENTY, "tiles_per_player": 24}, "bad-option"),
    ({"players": 2, "clock": TEN_TWENTY, "rating_range": 250}, "bad-request"),
    ({"players": "2", "clock": TEN_TWENTY}, "bad-request"),
]
"""Seeks for games that cannot be (an unknown player count, a clock not among the presets, a
rated game without a clock, options the engine refuses, a range not offered, a string for a
number), each with the code of its refusal (all 422)."""


def test_a_seek_for_a_game_that_cannot_be_is_refused_saying_why(
    client: TestClient, ana: Person
) -> None:
    for body, error in REFUSED:
        response = ana.post("/api/seeks", body)
        assert (response.status_code, code(response)) == (422, error), (body, response.text)
        assert response.json()["error"]["message"]
    assert client.get("/api/seeks").json()["seeks"] == []


def test_a_seek_without_a_clock_is_casual_and_one_with_a_clock_rated_unless_asked(
    ana: Person,
) -> None:
    untimed = ana.post("/api/seeks", {"players": 2}).json()["seek"]["setup"]
    timed = ana.post("/api/seeks", {"players": 2, "clock": TEN_TWENTY}).json()["seek"]["setup"]
    casual = ana.post("/api/seeks", {"players": 3, "clock": TEN_TWENTY, "rated": False})
    assert (untimed["rated"], timed["rated"], casual.json()["seek"]["setup"]["rated"]) == (
        False,
        True,
        False,
    )


def test_taking_ones_own_a_gone_or_a_started_seek_is_refused(
    client: TestClient, ana: Person, ben: Person
) -> None:
    seek = ana.post("/api/seeks", QUICK_PAIRINGS[0]["seek"]).json()["seek"]
    own = ana.post(f"/api/seeks/{seek['id']}/take")
    assert (own.status_code, code(own)) == (409, "own-seek")
    assert ben.post(f"/api/seeks/{seek['id']}/take").status_code == 200
    cid = sign_up(client, "Cid")
    late = cid.post(f"/api/seeks/{seek['id']}/take")
    assert (late.status_code, code(late)) == (409, "taken")
    missing = cid.post("/api/seeks/999/take")
    assert (missing.status_code, code(missing)) == (404, "not-found")
    assert cid.get("/api/seeks/999").status_code == 404


def test_an_account_may_have_only_so_many_seeks_waiting(database: str) -> None:
    with server(database, open_seeks=2) as client:
        ana = sign_up(client, "Ana")
        assert ana.post("/api/seeks", QUICK_PAIRINGS[0]["seek"]).status_code == 201
        assert ana.post("/api/seeks", QUICK_PAIRINGS[1]["seek"]).status_code == 201
        again = ana.post("/api/seeks", QUICK_PAIRINGS[1]["seek"])
        assert again.status_code == 200  # the same seek again: the one it has
        third = ana.post("/api/seeks", QUICK_PAIRINGS[2]["seek"])
        assert (third.status_code, code(third)) == (409, "too-many")
        assert "2 seeks" in third.json()["error"]["message"]


# ---------------------------------------------------------------------- ratings


def test_a_rating_range_keeps_out_players_rated_too_far_away(
    client: TestClient, ana: Person, ben: Person
) -> None:
    cid = sign_up(client, "Cid")
    set_rating(client, ben, 1800)
    set_rating(client, cid, 1580)
    body = {**QUICK_PAIRINGS[1]["seek"], "rating_range": 100}
    seek = ana.post("/api/seeks", body).json()["seek"]
    assert seek["rating_range"] == 100
    [listed] = ben.get("/api/seeks").json()["seeks"]
    assert listed["fits"] is False
    refused = ben.post(f"/api/seeks/{seek['id']}/take")
    assert (refused.status_code, code(refused)) == (403, "out-of-range")
    assert "1800" in refused.json()["error"]["message"]
    # Ben seeking the same game does not pair with Ana: his own seek waits beside hers
    apart = ben.post("/api/seeks", QUICK_PAIRINGS[1]["seek"])
    assert (apart.status_code, apart.json()["seek"]["status"]) == (201, "open")
    taken = cid.post(f"/api/seeks/{seek['id']}/take").json()["seek"]
    assert [(p["name"], p["rating"]) for p in taken["players"]] == [("Ana", 1500), ("Cid", 1580)]


# ---------------------------------------------------------------------- going away


def test_a_seek_nobody_asks_after_expires_and_asking_keeps_it(
    client: TestClient, ana: Person, ben: Person
) -> None:
    old = ana.post("/api/seeks", QUICK_PAIRINGS[0]["seek"]).json()["seek"]
    kept = ben.post("/api/seeks", QUICK_PAIRINGS[2]["seek"]).json()["seek"]
    age_seeks(client, ana, SEEK_EXPIRES_AFTER + 1)
    age_seeks(client, ben, SEEK_EXPIRES_AFTER - 5)
    assert ben.get("/api/my/inbox").status_code == 200  # Ben's browser asks: his seek stays
    store = client.app.state.service.store  # type: ignore[attr-defined]
    with store.engine.connect() as connection:
        seen = connection.execute(
            select(_SEEKS.c.seen_at).where(_SEEKS.c.id == kept["id"])
        ).scalar_one()
    assert utc(seen) > now() - timedelta(seconds=5)
    assert [s["id"] for s in client.get("/api/seeks").json()["seeks"]] == [kept["id"]]
    gone = ben.post(f"/api/seeks/{old['id']}/take")
    assert (gone.status_code, code(gone)) == (404, "not-found")
    assert ana.get("/api/my/inbox").json()["seeks"] == []


def test_the_poster_cancels_a_seek_and_a_taker_leaves_one(
    client: TestClient, ana: Person, ben: Person
) -> None:
    seek = ana.post("/api/seeks", QUICK_PAIRINGS[3]["seek"]).json()["seek"]
    ben.post(f"/api/seeks/{seek['id']}/take")
    cid = sign_up(client, "Cid")
    stranger = cid.delete(f"/api/seeks/{seek['id']}")
    assert (stranger.status_code, code(stranger)) == (403, "forbidden")
    assert ben.delete(f"/api/seeks/{seek['id']}").json() == {"cancelled": seek["id"]}
    assert [p["name"] for p in ana.get(f"/api/seeks/{seek['id']}").json()["seek"]["players"]] == [
        "Ana"
    ]
    assert ana.delete(f"/api/seeks/{seek['id']}").status_code == 200
    assert client.get("/api/seeks").json()["seeks"] == []
    assert ana.get(f"/api/seeks/{seek['id']}").status_code == 404


# ---------------------------------------------------------------------- the race


def at_once(people: tuple[Person, ...], path: str) -> list[Any]:
    """Each person POSTs to ``path`` from a thread of their own, all released at once by a
    barrier; their answers, in the order of ``people``."""
    barrier = threading.Barrier(len(people))
    answers: list[Any] = [None] * len(people)

    def call(index: int) -> None:
        barrier.wait()
        answers[index] = people[index].post(path)

    threads = [threading.Thread(target=call, args=(index,)) for index in range(len(people))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_of_two_players_taking_one_seek_at_once_one_plays_and_the_other_is_told_taken(
    database: str,
) -> None:
    """On PostgreSQL each taker asks another server process (two applications on one
    database); SQLite serves one process. Five rounds, each taker waiting at a barrier."""
    processes = 2 if database.startswith("postgresql") else 1
    with ExitStack() as stack:
        apps = [stack.enter_context(server(database)) for _ in range(processes)]
        ana = sign_up(apps[0], "Ana")
        ben = sign_up(apps[0], "Ben").on(apps[-1])
        cid = sign_up(apps[0], "Cid")
        for _round in range(5):
            seek = ana.post("/api/seeks", QUICK_PAIRINGS[1]["seek"]).json()["seek"]
            answers = at_once((ben, cid), f"/api/seeks/{seek['id']}/take")
            statuses = sorted(a.status_code for a in answers)
            assert statuses == [200, 409], [a.text for a in answers]
            [loser] = [a for a in answers if a.status_code == 409]
            assert code(loser) == "taken"
            [(winner, won)] = [
                (p.name, a)
                for p, a in zip((ben, cid), answers, strict=True)
                if a.status_code == 200
            ]
            game = game_of(apps[0], won.json()["seek"]["game"])
            assert game["status"] == "live"
            assert {name for _id, name in seated(game)} == {"Ana", winner}
        store = apps[0].app.state.service.store  # type: ignore[attr-defined]
        with store.engine.connect() as connection:
            games = connection.execute(
                select(func.count()).select_from(Base.metadata.tables[GameRow.__tablename__])
            ).scalar_one()
        assert games == 5
