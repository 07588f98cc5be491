"""The lesson's routes (``http/learn.py``): the tutorial with the position where it starts,
each attempt judged at its step in the engine's words, the taught move bringing the states
after it and after the scripted replies, and the hover explanations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_server_support import client_for, sqlite_url

from taluva.learn.tutorial import load_tutorial
from taluva.server.games.room import MOVE_TEXT_CHARS


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with client_for(sqlite_url(tmp_path)) as client:
        yield client


def answer(client: TestClient, number: int, move: str, route: str = "answer") -> Any:
    return client.get(f"/api/tutorial/steps/{number}/{route}", params={"move": move})


def test_the_tutorial_gives_its_steps_and_the_position_where_it_starts(client: TestClient) -> None:
    tutorial = load_tutorial()
    data = client.get("/api/tutorial").json()
    assert [step["say"] for step in data["steps"]] == [step.say for step in tutorial.steps]
    assert data["steps"][0]["highlight"] == ["-3,-2", "-2,-2", "-2,-3"]
    start = data["start"]
    game = tutorial.start()
    assert (start["ply"], start["to_move"], start["tile"]) == (game.ply, 0, game.tile)
    assert sorted(start["legal"]) == sorted(str(m) for m in game.legal_moves())
    assert len(start["movers"]) == game.ply and start["players"][1]["kind"] == "script"


def test_each_taught_move_brings_the_states_to_the_next_step_and_the_last_a_won_game(
    client: TestClient,
) -> None:
    tutorial = load_tutorial()
    for step in tutorial.steps:
        reply = answer(client, step.number, str(step.move)).json()
        assert reply["verdict"] == "taught"
        states = reply["states"]
        assert [s["moves"][-1] for s in states] == [str(m) for m in (step.move, *step.replies)]
        last = states[-1]
        if reply["next"] is None:
            assert last["result"]["ranking"][0] == [tutorial.learner]
            assert last["status"] == "finished" and last["legal"] == []
        else:
            assert last["ply"] == tutorial.steps[reply["next"]].ply
            assert last["to_move"] == tutorial.learner and last["legal"]
    out = states[-1]["players"][2]
    assert out["eliminated"] and out["supply"]["huts"] == 0


def test_another_move_gets_the_steps_answer_and_an_illegal_one_the_engines_reason(
    client: TestClient,
) -> None:
    tutorial = load_tutorial()
    step, game = tutorial.steps[3], tutorial.position(3)
    other = next(str(m) for m in game.legal_moves() if m != step.move)
    reply = answer(client, 3, other).json()
    assert (reply["verdict"], reply["message"]) == ("other", step.other)
    assert "states" not in reply
    reply = answer(client, 3, "temple 9,9").json()
    assert (reply["verdict"], reply["message"]) == ("illegal", game.explain("temple 9,9"))


def test_the_explanation_of_the_eruption_names_the_hut_it_buries(client: TestClient) -> None:
    step = load_tutorial().steps[2]
    reply = answer(client, 2, str(step.move), "explain").json()
    assert reply["legal"] and reply["effect"]["destroyed"] == [{"seat": 1, "huts": 1}]
    reply = answer(client, 2, "tile 9,9 0", "explain").json()
    assert not reply["legal"] and reply["reason"]


def test_a_step_that_does_not_exist_or_an_overlong_move_is_refused(client: TestClient) -> None:
    steps = len(load_tutorial().steps)
    missing = answer(client, steps, "hut 0,0")
    assert missing.status_code == 404
    assert missing.json()["error"] == {
        "code": "no-such-step",
        "message": f"the lesson's steps are numbered 0 to {steps - 1}",
    }
    long = answer(client, 0, "x" * (MOVE_TEXT_CHARS + 1), "explain")
    assert long.status_code == 422 and long.json()["error"]["code"] == "bad-request"


@pytest.mark.parametrize(("lang", "title"), [("de", "Spielen lernen"), ("fr", "Apprendre à jouer")])
def test_the_lesson_is_given_in_the_readers_language(
    client: TestClient, lang: str, title: str
) -> None:
    said = load_tutorial(lang)
    headers = {"accept-language": lang}
    data = client.get("/api/tutorial", headers=headers).json()
    assert data["title"] == title and data["intro"] == list(said.intro)
    assert [step["why"] for step in data["steps"]] == [list(step.why) for step in said.steps]
    assert data["start"]["players"][0]["name"] == said.players[0] != "You"
    step, game = said.steps[3], said.position(3)
    other = next(str(m) for m in game.legal_moves() if m != step.move)
    reply = client.get("/api/tutorial/steps/3/answer", params={"move": other}, headers=headers)
    assert reply.json()["message"] == step.other != load_tutorial("en").steps[3].other
    erupt, position = said.steps[2], said.position(2)
    turned = next(
        str(m)
        for m in position.legal_moves()
        if m.kind == erupt.move.kind and m.hex == erupt.move.hex and m != erupt.move
    )
    reply = client.get("/api/tutorial/steps/2/answer", params={"move": turned}, headers=headers)
    nudge = {"de": "Richtiger Vulkan: ", "fr": "Bon volcan : "}[lang]
    assert reply.json()["message"].startswith(nudge)
    english = client.get("/api/tutorial/steps/2/answer", params={"move": turned})
    assert english.json()["message"].startswith("Right volcano: ")
