"""The server's HTTP and WebSocket API, in-process: lobby, seats, moves, limits, AI seats."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_support import (
    client_for,
    create_game,
    hello,
    play_http,
    sqlite_url,
    state_of,
    stored_game,
    two_humans,
)

import taluva
from taluva.engine.moves import SHIP
from taluva.server import Settings
from taluva.server.errors import ApiError
from taluva.server.games.service import GameService


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with client_for(sqlite_url(tmp_path)) as client:
        yield client


def finish_game(client: TestClient, game_id: str, tokens: dict[int, str], seed: int) -> None:
    """Play random legal moves over HTTP, each seat with its own token, to the end."""
    rng = random.Random(seed)
    state = state_of(client, game_id)
    while state["result"] is None:
        move = rng.choice(state["legal"])
        response = play_http(client, game_id, tokens[state["to_move"]], state["ply"], move)
        assert response.status_code == 200, response.text
        state = response.json()["state"]


# ---------------------------------------------------------------------- lobby and seats


def test_config_offers_levels_expansions_and_the_render_colours(client: TestClient) -> None:
    config = client.get("/api/config").json()
    assert config["levels"] == [1, 2, 3, 4, 5, 6]
    assert config["level_titles"] == [
        "beginner",
        "easy",
        "medium",
        "hard",
        "strongest",
        "expert, on every core",
    ]
    assert config["player_counts"] == [2, 3, 4, 5]
    assert config["tiles_per_player"] == [12, 18, 24]
    assert config["house_rules"] == ["adjacent_hut", "all_tiles"]
    from taluva.render.style import TERRAIN_COLOURS

    assert config["style"]["terrains"] == TERRAIN_COLOURS
    for name in config["expansions"]:
        taluva.Game.new(players=2, seed=1, expansions=[name])


def test_creating_a_game_returns_tokens_only_for_the_seats_taken(client: TestClient) -> None:
    response = client.post(
        "/api/games",
        json={
            "name": "Club night",
            "seats": [
                {"kind": "human", "name": "Ana", "take": True},
                {"kind": "human"},
                {"kind": "ai", "level": 2},
            ],
        },
    )
    assert response.status_code == 201
    body = response.json()
    assert [t["seat"] for t in body["tokens"]] == [0]
    game = body["game"]
    assert game["status"] == "open"
    assert [(p["name"], p["kind"], p["level"], p["taken"]) for p in game["players"]] == [
        ("Ana", "human", None, True),
        ("Player 2", "human", None, False),
        ("AI level 2", "ai", 2, True),
    ]


def test_the_lobby_lists_open_live_and_finished_games(client: TestClient) -> None:
    open_id, _ = create_game(client, [{"kind": "human", "take": True}, {"kind": "human"}])
    live_id, _ = two_humans(client)
    done_id, tokens = two_humans(client)
    finish_game(client, done_id, tokens, seed=3)
    listed = {
        status: [g["id"] for g in client.get(f"/api/games?status={status}").json()["games"]]
        for status in ("open", "live", "finished")
    }
    assert listed == {"open": [open_id], "live": [live_id], "finished": [done_id]}


def test_joining_takes_a_free_seat_once_and_starts_the_game(client: TestClient) -> None:
    game_id, _ = create_game(client, [{"kind": "human", "take": True}, {"kind": "human"}])
    first = client.post(f"/api/games/{game_id}/seats/1", json={"name": "Ben"})
    assert first.status_code == 200 and first.json()["seat"] == 1
    again = client.post(f"/api/games/{game_id}/seats/1", json={"name": "Cy"})
    assert again.status_code == 409 and again.json()["error"]["code"] == "seat-taken"
    state = state_of(client, game_id)
    assert state["status"] == "live"
    assert [p["name"] for p in state["players"]] == ["Player 1", "Ben"]


def test_a_bot_can_take_a_seat_and_play_through_the_api(client: TestClient) -> None:
    game_id, tokens = create_game(
        client, [{"kind": "human", "name": "Ana", "take": True}, {"kind": "human"}]
    )
    bot = client.post(f"/api/games/{game_id}/seats/1", json={"name": "Bot"}).json()["token"]
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        welcome = hello(ws, [bot])
        assert welcome["seats"] == [1]
        ana = tokens[0]
        state = welcome["state"]
        assert play_http(client, game_id, ana, 0, state["legal"][0]).status_code == 200
        state = ws.receive_json()["state"]
        assert play_http(client, game_id, ana, 1, state["legal"][0]).status_code == 200
        state = ws.receive_json()["state"]
        assert state["to_move"] == 1
        ws.send_json({"type": "move", "state": 2, "move": state["legal"][0], "ref": "b1"})
        broadcast = ws.receive_json()
        assert (broadcast["type"], broadcast["ply"], broadcast["seat"]) == ("move", 2, 1)
        assert ws.receive_json() == {"type": "accepted", "ref": "b1", "ply": 2}


def test_game_options_are_checked_by_the_engine(client: TestClient) -> None:
    response = client.post(
        "/api/games",
        json={"seats": [{"kind": "human"}] * 3, "tiles_per_player": 18},
    )
    assert response.status_code == 422
    assert response.json()["error"] == {
        "code": "bad-option",
        "message": "18 tiles per player is for two players only; a 3-player game uses 12",
    }
    bad_level = client.post("/api/games", json={"seats": [{"kind": "ai", "level": 9}] * 2})
    assert bad_level.json()["error"]["message"] == "seats[0].level must be a whole number 1 to 6"
    one_seat = client.post("/api/games", json={"seats": [{"kind": "human"}]})
    assert one_seat.status_code == 422
    assert one_seat.json()["error"]["code"] == "bad-request"


# ---------------------------------------------------------------------- moves over HTTP


def test_a_move_is_checked_stored_and_shown_in_canonical_text(client: TestClient) -> None:
    game_id, tokens = two_humans(client)
    response = play_http(client, game_id, tokens[0], 0, "TILE 0,0 0")
    assert response.status_code == 200
    assert response.json()["move"] == "tile 0,0 0"
    state = state_of(client, game_id)
    assert (state["ply"], state["phase"], state["moves"], state["movers"]) == (
        1,
        "build",
        ["tile 0,0 0"],
        [0],
    )


@pytest.mark.parametrize(
    ("seat", "state", "move", "status", "code"),
    [
        (1, 0, "tile 0,0 0", 403, "not-your-turn"),
        (0, 5, "tile 0,0 0", 409, "stale"),
        (0, 0, "tile 3,3 0", 422, "illegal"),
        (0, 0, "fly 0,0", 422, "illegal"),
        (0, 0, "", 400, "bad-request"),
        (0, 0, "x" * 300, 400, "bad-request"),
    ],
)
def test_a_refused_move_changes_nothing(
    client: TestClient, seat: int, state: int, move: str, status: int, code: str
) -> None:
    game_id, tokens = two_humans(client)
    before = state_of(client, game_id)
    response = play_http(client, game_id, tokens[seat], state, move)
    assert (response.status_code, response.json()["error"]["code"]) == (status, code)
    assert state_of(client, game_id) == before


def test_an_illegal_move_is_refused_with_the_engine_reason(client: TestClient) -> None:
    game_id, tokens = two_humans(client)
    response = play_http(client, game_id, tokens[0], 0, "tile 3,3 0")
    assert response.json()["error"]["message"] == (
        "tile 3,3 0: the first tile of the game goes with its volcano on 0,0"
    )


def test_moves_need_a_token_of_this_game(client: TestClient) -> None:
    game_id, _ = two_humans(client)
    _, other_tokens = two_humans(client)
    no_token = client.post(f"/api/games/{game_id}/moves", json={"state": 0, "move": "tile 0,0 0"})
    assert (no_token.status_code, no_token.json()["error"]["code"]) == (401, "no-token")
    wrong = play_http(client, game_id, other_tokens[0], 0, "tile 0,0 0")
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (403, "forbidden")
    assert state_of(client, game_id)["ply"] == 0


def test_a_game_waits_until_every_seat_is_taken(client: TestClient) -> None:
    game_id, tokens = create_game(client, [{"kind": "human", "take": True}, {"kind": "human"}])
    response = play_http(client, game_id, tokens[0], 0, "tile 0,0 0")
    assert (response.status_code, response.json()["error"]["code"]) == (409, "waiting")


def test_malformed_and_oversized_requests_get_an_error(client: TestClient) -> None:
    game_id, tokens = two_humans(client)
    headers = {"authorization": f"Bearer {tokens[0]}", "content-type": "application/json"}
    broken = client.post(f"/api/games/{game_id}/moves", content=b"{not json", headers=headers)
    assert (broken.status_code, broken.json()["error"]["code"]) == (400, "bad-request")
    huge = client.post(f"/api/games/{game_id}/moves", content=b" " * 20000 + b"{}", headers=headers)
    assert (huge.status_code, huge.json()["error"]["code"]) == (413, "too-large")
    missing = client.get("/api/games/nope")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not-found")
    assert state_of(client, game_id)["ply"] == 0


def test_http_requests_beyond_the_rate_are_refused(tmp_path: Path) -> None:
    with client_for(sqlite_url(tmp_path), http_rate=0.001, http_burst=3) as client:
        codes = [
            client.post("/api/games", json={"seats": [{"kind": "human"}] * 2}).status_code
            for _ in range(4)
        ]
    assert codes == [201, 201, 201, 429]


def test_explain_says_why_a_move_is_illegal(client: TestClient) -> None:
    game_id, _ = two_humans(client)
    reply = client.get(f"/api/games/{game_id}/explain", params={"move": "tile 1,1 0"}).json()
    assert reply == {
        "type": "explain",
        "ply": 0,
        "move": "tile 1,1 0",
        "legal": False,
        "reason": "the first tile of the game goes with its volcano on 0,0",
        "effect": None,
    }
    legal = client.get(f"/api/games/{game_id}/explain", params={"move": "tile 0,0 2"}).json()
    assert (legal["legal"], legal["reason"], legal["effect"]) == (True, None, {"level": 1})


# ---------------------------------------------------------------------- WebSocket


def test_players_and_spectators_see_every_move_as_it_is_stored(client: TestClient) -> None:
    game_id, tokens = create_game(
        client, [{"kind": "human", "name": "Ana", "take": True}, {"kind": "human"}]
    )
    ben = client.post(f"/api/games/{game_id}/seats/1", json={"name": "Ben"}).json()["token"]
    with (
        client.websocket_connect(f"/ws/games/{game_id}") as ana_ws,
        client.websocket_connect(f"/ws/games/{game_id}") as ben_ws,
        client.websocket_connect(f"/ws/games/{game_id}") as spectator,
    ):
        assert hello(ana_ws, [tokens[0]])["seats"] == [0]
        assert hello(ben_ws, [ben])["seats"] == [1]
        assert hello(spectator, [])["seats"] == []
        state = state_of(client, game_id)
        seen: dict[str, list[Any]] = {"ana": [], "ben": [], "spectator": []}
        played = []
        for ply in range(4):
            ws = ana_ws if ply < 2 else ben_ws
            ws.send_json({"type": "move", "state": ply, "move": state["legal"][0]})
            played.append(state["legal"][0])
            for name, socket in (("ana", ana_ws), ("ben", ben_ws), ("spectator", spectator)):
                seen[name].append(socket.receive_json())
            state = seen["spectator"][-1]["state"]
        for messages in seen.values():
            assert [(m["type"], m["ply"], m["move"], m["seat"]) for m in messages] == [
                ("move", ply, played[ply], seat) for ply, seat in enumerate([0, 0, 1, 1])
            ]


def test_a_reconnecting_client_gets_what_it_missed(client: TestClient) -> None:
    game_id, tokens = two_humans(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, [tokens[0], tokens[1]])
    for ply in range(3):
        state = state_of(client, game_id)
        play_http(client, game_id, tokens[state["to_move"]], ply, state["legal"][0])
    final = state_of(client, game_id)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        welcome = hello(ws, [tokens[0], tokens[1]], since=1)
    assert welcome["missed"] == final["moves"][1:]
    assert welcome["state"] == final
    assert welcome["seats"] == [0, 1]


def test_one_connection_holding_both_seats_plays_hot_seat(client: TestClient) -> None:
    game_id, tokens = two_humans(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        state = hello(ws, list(tokens.values()))["state"]
        for ply in range(6):
            ws.send_json({"type": "move", "state": ply, "move": state["legal"][-1]})
            message = ws.receive_json()
            assert message["type"] == "move", message
            state = message["state"]
    assert state["movers"] == [0, 0, 1, 1, 0, 0]


def test_bad_websocket_messages_get_an_error_and_change_nothing(client: TestClient) -> None:
    game_id, tokens = two_humans(client)
    before = state_of(client, game_id)  # as after: nobody connected (no claim's countdown)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        ws.send_json({"type": "move", "state": 0, "move": "tile 0,0 0"})
        assert ws.receive_json()["message"] == "send 'hello' first"
        hello(ws, [tokens[1]])
        cases = [
            ("{oops", "bad-request"),
            ("[1, 2]", "bad-request"),
            (json.dumps({"type": "dance"}), "bad-request"),
            (json.dumps({"type": "move", "state": 0, "move": "x" * 5000}), "too-large"),
            (json.dumps({"type": "move", "state": "0", "move": "tile 0,0 0"}), "bad-request"),
            (json.dumps({"type": "move", "state": 0, "move": "tile 0,0 0"}), "not-your-turn"),
            (json.dumps({"type": "hello", "tokens": "abc"}), "bad-request"),
        ]
        for text, code in cases:
            ws.send_text(text)
            reply = ws.receive_json()
            assert (reply["type"], reply["code"]) == ("error", code), text
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, [tokens[0]])
        for text, code in [
            (json.dumps({"type": "move", "state": 3, "move": "tile 0,0 0", "ref": 7}), "stale"),
            (json.dumps({"type": "move", "state": 0, "move": "tile 2,2 0", "ref": 8}), "illegal"),
        ]:
            ws.send_text(text)
            reply = ws.receive_json()
            assert (reply["code"], reply["ref"]) == (code, json.loads(text)["ref"])
    assert state_of(client, game_id) == before


def test_a_websocket_to_a_missing_game_is_told_and_closed(client: TestClient) -> None:
    with client.websocket_connect("/ws/games/nothing") as ws:
        assert ws.receive_json() == {
            "type": "error",
            "code": "not-found",
            "message": "there is no game 'nothing'",
        }


def test_websocket_messages_beyond_the_rate_are_refused(tmp_path: Path) -> None:
    with client_for(sqlite_url(tmp_path), ws_rate=0.001, ws_burst=3) as client:
        game_id, _ = two_humans(client)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            replies = []
            for _ in range(4):
                ws.send_json({"type": "ping"})
                replies.append(ws.receive_json())
    assert [r["type"] for r in replies] == ["pong", "pong", "pong", "error"]
    assert replies[-1]["code"] == "rate-limited"


def test_of_two_simultaneous_submissions_exactly_one_wins(tmp_path: Path) -> None:
    async def race() -> list[Any]:
        service = GameService(Settings(database=sqlite_url(tmp_path), ai_workers=0))
        await service.start()
        try:
            room, _ = await service.create_game(
                {"seats": [{"kind": "human", "take": True}, {"kind": "human", "take": True}]}
            )
            results = await asyncio.gather(
                service.submit(room, {0}, 0, "tile 0,0 1"),
                service.submit(room, {0}, 0, "tile 0,0 4"),
                return_exceptions=True,
            )
            stored = await service.db(service.store.load_game, room.id)
            assert stored is not None
            return [results, stored.moves, room.game.ply]
        finally:
            await service.stop()

    results, stored, ply = asyncio.run(race())
    accepted = [r for r in results if isinstance(r, dict)]
    refused = [r for r in results if isinstance(r, ApiError)]
    assert len(accepted) == 1 and len(refused) == 1
    assert refused[0].code == "stale"
    assert stored == [accepted[0]["move"]] and ply == 1


# ---------------------------------------------------------------------- AI seats and hints


def test_the_ai_seat_answers_a_human_move(client: TestClient) -> None:
    game_id, tokens = create_game(
        client,
        [{"kind": "human", "name": "Ana", "take": True}, {"kind": "ai", "level": 1}],
        clock={"kind": "turn", "per_turn": 86400},
    )
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        state = hello(ws, [tokens[0]])["state"]
        for ply in (0, 1):
            ws.send_json({"type": "move", "state": ply, "move": state["legal"][0]})
            state = ws.receive_json()["state"]
        answers = [ws.receive_json() for _ in range(2)]
    assert [(m["type"], m["ply"], m["seat"]) for m in answers] == [("move", 2, 1), ("move", 3, 1)]
    assert answers[1]["state"]["to_move"] == 0


def test_a_hint_is_given_to_the_player_to_move_only_when_the_game_allows(
    client: TestClient,
) -> None:
    game_id, tokens = two_humans(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        state = hello(ws, [tokens[0]])["state"]
        ws.send_json({"type": "hint", "ref": 1})
        hint = ws.receive_json()
        ws.send_json({"type": "hint"})
        unreferenced = ws.receive_json()
    assert hint["type"] == "hint" and hint["ref"] == 1 and hint["ply"] == 0
    assert unreferenced["type"] == "hint" and "ref" not in unreferenced
    assert hint["move"] in state["legal"] and 0.0 <= hint["value"] <= 1.0
    wrong_seat = client.post(
        f"/api/games/{game_id}/hint", headers={"authorization": f"Bearer {tokens[1]}"}
    )
    assert wrong_seat.json()["error"]["code"] == "not-your-turn"
    off_id, off_tokens = create_game(
        client, [{"kind": "human", "take": True}, {"kind": "human", "take": True}], hints=False
    )
    refused = client.post(
        f"/api/games/{off_id}/hint", headers={"authorization": f"Bearer {off_tokens[0]}"}
    )
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "hints-off")


def test_no_hint_is_given_in_a_rated_game_over_http_or_the_websocket(client: TestClient) -> None:
    signed_up = client.post("/api/accounts", json={"name": "Ana", "password": "a long secret 1"})
    assert signed_up.status_code == 201, signed_up.text
    game_id, tokens = create_game(
        client,
        [{"kind": "human", "name": "Ana", "take": True}, {"kind": "ai", "level": 1}],
        clock={"kind": "turn", "per_turn": 86400},
    )
    refused = client.post(
        f"/api/games/{game_id}/hint", headers={"authorization": f"Bearer {tokens[0]}"}
    )
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "rated")
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        state = hello(ws, [tokens[0]])["state"]
        ws.send_json({"type": "hint", "ref": 2})
        answer = ws.receive_json()
    assert (state["rated"], state["to_move"]) == (True, 0)
    assert (answer["type"], answer["code"], answer["ref"]) == ("error", "rated", 2)


# ---------------------------------------------------------------------- secrets and escaping


def test_no_seat_token_ever_reaches_another_client(client: TestClient) -> None:
    game_id, tokens = create_game(
        client, [{"kind": "human", "name": "Ana", "take": True}, {"kind": "human"}]
    )
    joined = client.post(f"/api/games/{game_id}/seats/1", json={"name": "Ben"}).json()["token"]
    seen: list[str] = []
    with client.websocket_connect(f"/ws/games/{game_id}") as spectator:
        seen.append(json.dumps(hello(spectator, [])))
        for ply in range(4):
            state = state_of(client, game_id)
            token = tokens[0] if state["to_move"] == 0 else joined
            seen.append(play_http(client, game_id, token, ply, state["legal"][0]).text)
            seen.append(json.dumps(spectator.receive_json()))
    for status in ("open", "live", "finished"):
        seen.append(client.get(f"/api/games?status={status}").text)
    seen.append(client.get(f"/api/games/{game_id}").text)
    seen.append(client.get(f"/api/games/{game_id}/record").text)
    seen.append(client.get(f"/api/games/{game_id}/state", params={"ply": 2}).text)
    everything = "\n".join(seen)
    assert tokens[0] not in everything and joined not in everything
    assert "token" not in everything


def test_names_are_kept_as_text_and_control_characters_refused(client: TestClient) -> None:
    markup = "<img src=x onerror=alert(1)>"
    game_id, _ = create_game(
        client,
        [{"kind": "human", "name": markup, "take": True}, {"kind": "human"}],
        name="<script>alert(2)</script>",
    )
    entry = client.get(f"/api/games/{game_id}").json()["game"]
    assert entry["name"] == "<script>alert(2)</script>"
    assert entry["players"][0]["name"] == markup
    bad = client.post(f"/api/games/{game_id}/seats/1", json={"name": "Ben\u0000\u202e"})
    assert bad.json()["error"] == {
        "code": "bad-request",
        "message": "name contains an invisible or control character (U+0000)",
    }
    long = client.post(f"/api/games/{game_id}/seats/1", json={"name": "B" * 33})
    assert long.json()["error"]["message"] == "name is longer than 32 characters"


def test_pages_carry_a_content_security_policy(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and '<main id="app"' in page.text
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "object-src 'none'" in policy
    assert client.get("/static/js/app.js").headers["x-content-type-options"] == "nosniff"
    assert "/api/games" in client.get("/openapi.json").json()["paths"]


# ---------------------------------------------------------------------- records and replays


def test_a_live_record_hides_the_pile_and_a_finished_one_replays(client: TestClient) -> None:
    game_id, tokens = two_humans(client)
    play_http(client, game_id, tokens[0], 0, "tile 0,0 0")
    live = client.get(f"/api/games/{game_id}/record")
    assert live.headers["content-disposition"] == f'attachment; filename="taluva-{game_id}.json"'
    record = live.json()
    assert record["moves"] == ["tile 0,0 0"] and len(record["deck"]) == 1
    finish_game(client, game_id, tokens, seed=11)
    final = client.get(f"/api/games/{game_id}/record").json()
    replayed = taluva.Game.from_record(final)
    assert len(final["deck"]) == 24
    assert dict(replayed.result or {}) == final["result"]
    state = state_of(client, game_id)
    assert [str(m) for m in replayed.moves] == state["moves"]
    assert replayed.result is not None
    assert state["result"]["explanation"] == replayed.result.reason.description
    first, *rest = final["result"]["ranking"]
    expected = [{"seat": seat, "place": 1, "name": "1st"} for seat in first]
    expected += [{"seat": seat, "place": 2, "name": "2nd"} for group in rest for seat in group]
    assert state["result"]["places"] == expected
    assert (state["result"]["headline"], state["result"]["lines"]) == replayed.result_in_words()


def test_a_finished_game_says_who_won_and_why_and_each_place_in_words() -> None:
    from scenarios import fixture, replay

    from taluva.server.games.view import state_view

    names = ["Ana", "Ben", "Cyd"]
    game = replay({**fixture("elimination_three_players"), "players": names})
    meta = stored_game(game, "ended")
    state = state_view(meta, game)
    assert state["result"] == {
        "ranking": [[0], [1], [2]],
        "reason": "tiles",
        "explanation": "no tile was left to take",
        "headline": (
            "Ana wins: no tile was left to take; as many temples (1), then as many towers (0), "
            "then most huts built (15 against 14)"
        ),
        "lines": [
            "1st Ana: 1 temple, 0 towers, 15 huts placed",
            "2nd Ben: 1 temple, 0 towers, 14 huts placed",
            "3rd Cyd: 1 temple, 1 tower, 20 huts placed, eliminated",
        ],
        "places": [
            {"seat": 0, "place": 1, "name": "1st"},
            {"seat": 1, "place": 2, "name": "2nd"},
            {"seat": 2, "place": 3, "name": "3rd"},
        ],
    }
    assert [(p["placed"], p["supply"]) for p in state["players"]] == [
        ({"huts": 15, "temples": 1, "towers": 0, "ships": 0},
         {"huts": 5, "temples": 2, "towers": 2, "ships": 0}),
        ({"huts": 14, "temples": 1, "towers": 0, "ships": 0},
         {"huts": 6, "temples": 2, "towers": 2, "ships": 0}),
        ({"huts": 20, "temples": 1, "towers": 1, "ships": 0},
         {"huts": 0, "temples": 2, "towers": 1, "ships": 0}),
    ]  # fmt: skip


def test_the_replay_view_shows_any_earlier_position(client: TestClient) -> None:
    game_id, tokens = two_humans(client)
    for ply in range(4):
        state = state_of(client, game_id)
        play_http(client, game_id, tokens[state["to_move"]], ply, state["legal"][0])
    moves = state_of(client, game_id)["moves"]
    past = client.get(f"/api/games/{game_id}/state", params={"ply": 2}).json()
    assert (past["ply"], past["moves"], past["status"], past["legal"]) == (
        2,
        moves[:2],
        "replay",
        [],
    )
    assert len(past["hexes"]) == 3 and past["movers"] == [0, 0]
    too_far = client.get(f"/api/games/{game_id}/state", params={"ply": 5})
    assert too_far.json()["error"]["message"] == "ply must be a whole number from 0 to 4"


def test_the_state_shows_ships_lagoons_doubles_and_the_board_zone() -> None:
    from taluva.engine.expansions.board_zones import ZONES
    from taluva.engine.hexes import coords
    from taluva.server.games.view import state_view

    expansions = ["ships", "double_hex", "board:beginner"]
    for seed in range(50):
        game = taluva.Game.new(players=2, seed=seed, expansions=expansions)
        rng = random.Random(seed)
        while not game.is_over and not game.ships():
            moves = game.legal_moves()
            ships = [m for m in moves if m.kind == SHIP]
            game.play(ships[0] if ships else rng.choice(moves))
        if game.ships():
            break
    assert game.ships(), "no game of 50 placed a ship"
    meta = stored_game(game, "view")
    state = state_view(meta, game)
    assert state["ships"] == [[*coords(h), p] for h, p in sorted(game.ships().items())]
    assert sorted(map(tuple, (hex_ for lagoon in state["lagoons"] for hex_ in lagoon))) == sorted(
        coords(h) for lagoon in game.lagoons() for h in lagoon
    )
    assert state["doubles"] == list(game.doubles)
    assert state["zone"]["name"] == "beginner"
    assert state["zone"]["polygon"] == [
        [round(x, 4), round(y, 4)] for x, y in ZONES["beginner"].polygon
    ]
    assert state["players"][0]["supply"]["ships"] + state["players"][1]["supply"]["ships"] == 3


STACK_DECK = ["JC", "SJ", "CS", "RJ", "LS", "CR", "JS", "SC", "JR", "CJ", "LL", "RR"]
STACK_MOVES = [
    "tile 0,0 0", "hut 1,-1",  # Ana: volcano 0,0, jungle 1,0, clearing 1,-1
    "tile -1,1 5", "hut -1,2",  # Ben: volcano -1,1, sand -1,2, jungle 0,1
    "tile -3,2 0", "expand jungle 1,0",  # Ana: 1 hut on jungle 1,0 (level 1)
    "tile 0,0 5", "expand rock 0,1",  # Ben buries Ana's hut 1,-1; 2 huts on rock 0,1 (level 2)
    "tile -1,1 3", "expand jungle 1,0",  # Ana lays a tile on top, burying nothing
    "tile 0,0 4",  # Ben buries his own 2 huts of 0,1 under a level-3 tile
]  # fmt: skip
"""A stack rising to level 3 around 0,0 (tests/test_rules.py), with huts destroyed on the way."""


def stack_state(moves: list[str]) -> dict[str, Any]:
    """The state view of the stack game after ``moves``."""
    return stack_room(moves).state()


def stack_room(moves: list[str]) -> Any:
    """A live room of the stack game after ``moves``."""
    from taluva.server.games.room import Room

    game = taluva.Game.new(players=["Ana", "Ben"], deck=STACK_DECK)
    movers = []
    for move in moves:
        movers.append(game.to_move)
        game.play(move)
    meta = stored_game(game, "stack", movers)
    return Room(meta, game)


def test_the_state_says_how_many_huts_each_legal_expansion_places() -> None:
    state = stack_state(STACK_MOVES[:7])  # Ben to build, his settlement next to rock 0,1
    assert state["expansion_huts"]["expand rock 0,1"] == 2  # level 2, two huts
    assert set(state["expansion_huts"]) == {m for m in state["legal"] if m.startswith("expand")}
    assert stack_room(STACK_MOVES).state_at(7)["expansion_huts"] == {}  # a replay offers none


def test_the_effects_a_room_keeps_move_by_move_are_the_engines_for_the_whole_game(
    client: TestClient,
) -> None:
    game_id, tokens = two_humans(client)
    finish_game(client, game_id, tokens, seed=5)
    record = client.get(f"/api/games/{game_id}/record").json()
    replayed = [effect.to_json() for effect in taluva.Game.from_record(record).effects()]
    assert state_of(client, game_id)["effects"] == replayed
    assert len(replayed) >= 24  # a whole game, each move of it kept once


def test_explain_says_what_a_legal_eruption_would_destroy_as_the_engine_plays_it() -> None:
    room = stack_room(STACK_MOVES[:6])
    answer = room.explain(STACK_MOVES[6])
    assert (answer["legal"], answer["effect"]) == (
        True,
        {"level": 2, "destroyed": [{"seat": 0, "huts": 1}]},
    )
    assert room.explain("tile 9,9 0")["effect"] is None


def test_the_state_says_what_each_move_did_as_the_engine_played_it() -> None:
    state = stack_state(STACK_MOVES)
    assert state["movers"] == [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1]
    assert state["effects"] == [
        {"level": 1},
        {"huts": 1},
        {"level": 1},
        {"huts": 1},
        {"level": 1},
        {"huts": 1},
        {"level": 2, "destroyed": [{"seat": 0, "huts": 1}]},
        {"huts": 2},
        {"level": 2},
        {"huts": 2},
        {"level": 3, "destroyed": [{"seat": 1, "huts": 2}]},
    ]
    assert [p["destroyed"] for p in state["players"]] == [1, 2]
    # A past position's view says the same of the moves it holds.
    assert stack_state(STACK_MOVES[:8])["effects"] == state["effects"][:8]


def test_a_review_plan_carries_what_each_of_its_moves_would_do() -> None:
    from taluva.server.games.view import plan_effects, review_view

    game = taluva.Game.new(players=["Ana", "Ben"], deck=STACK_DECK)
    for move in STACK_MOVES:
        game.play(move)
    assert plan_effects(game, 6, ["tile 0,0 5", "expand rock 0,1"]) == [
        {"level": 2, "destroyed": [{"seat": 0, "huts": 1}]},
        {"huts": 2},
    ]
    # A plan stops being told at a move that is not legal in the real game.
    assert plan_effects(game, 6, ["tile 0,0 5", "hut 9,9", "expand rock 0,1"]) == [
        {"level": 2, "destroyed": [{"seat": 0, "huts": 1}]},
    ]
    # Ana's tile at move 9 could have buried Ben's hut -1,2 (tile -1,1 4) instead.
    marked = {"ply": 8, "player": 0, "move": "tile -1,1 3", "mark": "mistake",
              "best": ["tile -1,1 4", "expand jungle 1,0"]}  # fmt: skip
    plain = {"ply": 9, "player": 0, "move": "expand jungle 1,0", "mark": None, "best": None}
    review = {"players": ["Ana", "Ben"], "moves": [marked, plain], "chances": []}
    shown = review_view(review, game)
    best_effects = [{"level": 2, "destroyed": [{"seat": 1, "huts": 1}]}, {"huts": 2}]
    assert shown["moves"] == [{**marked, "best_effects": best_effects}, plain]
    assert "best_effects" not in marked and game.ply == len(STACK_MOVES)


def test_a_move_is_stored_before_any_client_is_told(tmp_path: Path) -> None:
    class Witness:
        """A watching client that looks in the database the moment it is told of a move."""

        def __init__(self, service: GameService, game_id: str) -> None:
            self.service = service
            self.game_id = game_id
            self.seen: list[tuple[int, list[str]]] = []

        def send(self, text: str) -> None:
            message = json.loads(text)
            stored = self.service.store.load_game(self.game_id)
            assert stored is not None
            self.seen.append((message["ply"], stored.moves))

    async def play() -> list[tuple[int, list[str]]]:
        service = GameService(Settings(database=sqlite_url(tmp_path), ai_workers=0))
        await service.start()
        try:
            room, _ = await service.create_game(
                {"seats": [{"kind": "human", "take": True}, {"kind": "human", "take": True}]}
            )
            witness = Witness(service, room.id)
            room.subscribers.add(witness)
            for ply in range(3):
                await service.submit(room, {0, 1}, ply, str(room.game.legal_moves()[0]))
            return witness.seen
        finally:
            await service.stop()

    seen = asyncio.run(play())
    assert [(ply, len(moves)) for ply, moves in seen] == [(0, 1), (1, 2), (2, 3)]
