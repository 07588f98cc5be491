"""The puzzle routes (``http/puzzles.py``) and puzzle ratings (``players/puzzle_ratings.py``):
the next puzzle with its position, the position after the solver's tile, an attempt judged by
the engine, and a signed-in player's puzzle rating moving up after a right answer and down
after a wrong one, with the streak; guests solve unrated."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_support import client_for, sqlite_url

from taluva.learn.puzzles import Puzzle, load_puzzles

PASSWORD = "correct horse battery"


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with client_for(sqlite_url(tmp_path)) as client:
        yield client


def sign_up(client: TestClient, name: str) -> None:
    response = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert response.status_code == 201, response.text


def wrong_turn(puzzle: Puzzle) -> tuple[str, str]:
    """A legal turn that does not win: the answer's tile with another build."""
    game = puzzle.game()
    game.play(puzzle.answer[0])
    for build in game.legal_moves():
        if str(build) != puzzle.answer[1]:
            return puzzle.answer[0], str(build)
    raise AssertionError(f"puzzle {puzzle.id} has a single build")


def attempt(client: TestClient, puzzle: Puzzle, turn: tuple[str, str]) -> Any:
    body = {"tile": turn[0], "build": turn[1]}
    response = client.post(f"/api/puzzles/{puzzle.id}/attempt", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_next_puzzle_comes_with_its_position_and_no_answer(client: TestClient) -> None:
    data = client.get("/api/puzzles/next").json()
    puzzle = load_puzzles().by_id(data["puzzle"]["id"])
    assert "answer" not in data["puzzle"] and data["player"] is None
    state = data["state"]
    game = puzzle.game()
    assert (state["ply"], state["to_move"], state["phase"]) == (game.ply, puzzle.mover, "tile")
    assert puzzle.answer[0] in state["legal"]
    after = client.get(f"/api/puzzles/{puzzle.id}/state", params={"tile": puzzle.answer[0]})
    assert puzzle.answer[1] in after.json()["state"]["legal"]


def test_a_theme_gives_puzzles_of_that_theme_and_an_unknown_one_is_refused(
    client: TestClient,
) -> None:
    theme = next(t for t, n in load_puzzles().theme_counts().items() if n)
    data = client.get("/api/puzzles/next", params={"theme": theme}).json()
    assert theme in data["puzzle"]["themes"]
    refused = client.get("/api/puzzles/next", params={"theme": "knitting"})
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "no-such-theme"


def test_an_illegal_tile_is_refused_with_the_engines_reason(client: TestClient) -> None:
    puzzle = load_puzzles().puzzles[0]
    response = client.get(f"/api/puzzles/{puzzle.id}/state", params={"tile": "tile 40,40 0"})
    assert response.status_code == 422 and response.json()["error"]["code"] == "illegal"
    missing = client.get("/api/puzzles/nope/state")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "no-such-puzzle"


def test_a_withdrawn_puzzle_is_gone_with_the_chances_that_failed_it(client: TestClient) -> None:
    gone = load_puzzles().withdrawn[0]
    for _ in range(20):
        assert client.get("/api/puzzles/next").json()["puzzle"]["id"] != gone.id
    response = client.post(
        f"/api/puzzles/{gone.id}/attempt", json={"tile": gone.answer[0], "build": gone.answer[1]}
    )
    assert response.status_code == 410, response.text
    error = response.json()["error"]
    assert error["code"] == "puzzle-withdrawn"
    assert f"{gone.figures['answer_chance']}% after it" in error["message"]
    german = client.get(f"/api/puzzles/{gone.id}/state", headers={"Accept-Language": "de"})
    assert german.status_code == 410 and "zurückgezogen" in german.json()["error"]["message"]


def test_a_right_answer_raises_the_players_puzzle_rating_and_a_wrong_one_lowers_it(
    client: TestClient,
) -> None:
    puzzles = load_puzzles().puzzles
    sign_up(client, "Ana")
    right = attempt(client, puzzles[0], puzzles[0].answer)
    assert right["right"] and right["rating"]["change"] > 0 and right["rating"]["streak"] == 1
    assert right["rating"]["puzzle_after"] < right["rating"]["puzzle_before"]
    assert right["answer_state"]["result"]["ranking"][0] == [puzzles[0].mover]
    wrong = attempt(client, puzzles[1], wrong_turn(puzzles[1]))
    assert not wrong["right"] and wrong["rating"]["change"] < 0 and wrong["rating"]["streak"] == 0
    assert wrong["rating"]["before"] == right["rating"]["after"]
    assert wrong["answer"] == {"tile": puzzles[1].answer[0], "build": puzzles[1].answer[1]}
    assert "The winning turn" in wrong["message"]
    player = client.get("/api/puzzles/next").json()["player"]
    assert player == {"rating": wrong["rating"]["after"], "attempts": 2, "streak": 0}


def test_a_guest_is_answered_without_a_rating(client: TestClient) -> None:
    puzzle = load_puzzles().puzzles[0]
    reply = attempt(client, puzzle, puzzle.answer)
    assert reply["right"] and reply["rating"] is None


def test_a_puzzle_and_the_verdict_on_a_wrong_turn_are_said_in_the_readers_language(
    client: TestClient,
) -> None:
    headers = {"accept-language": "de-DE,de;q=0.9,en;q=0.5"}
    data = client.get("/api/puzzles/next", headers=headers).json()
    assert {t["id"]: t["words"] for t in data["themes"]}["temple"] == (
        "sofort gewinnen mit deinem letzten Tempel"
    )
    assert data["difficulties"] == {"1": "leicht", "2": "mittel", "3": "schwer"}
    assert data["puzzle"]["difficulty_name"] in ("leicht", "mittel", "schwer")
    puzzle = load_puzzles().puzzles[1]
    turn = wrong_turn(puzzle)
    body = {"tile": turn[0], "build": turn[1]}
    wrong = client.post(f"/api/puzzles/{puzzle.id}/attempt", json=body, headers=headers).json()
    assert f"{turn[0]}, dann {turn[1]} gewinnt nicht: Du hättest noch" in wrong["message"]
    assert "Der siegreiche Zug: " in wrong["message"]
    french = client.post(
        f"/api/puzzles/{puzzle.id}/attempt", json=body, headers={"accept-language": "fr"}
    ).json()
    assert "ne gagne pas : il vous resterait" in french["message"]
