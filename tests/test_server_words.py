"""The server's words for players said in German and French: refusals of the lobby and the
chat, the clocks' labels and the ends of games the server decides, each a ``Text`` whose
English is unchanged and whose translation leaves no English template behind."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from test_server_support import client_for, hello, sqlite_url, two_humans

from taluva.engine.wording import Text
from taluva.lang import say
from taluva.server.errors import ApiError
from taluva.server.games import clocks
from taluva.server.games.chat import clean_text
from taluva.server.games.setups import QUICK_PAIRINGS, Setup
from taluva.server.games.view import ENDING_TEXTS, ending_view
from taluva.server.storage.store import StoredGame


def refusal(fields: dict[str, Any]) -> ApiError:
    """The lobby's refusal of the game ``fields`` ask for (a seek's or a challenge's)."""
    with pytest.raises(ApiError) as caught:
        Setup.parse(fields)
    return caught.value


def test_a_clock_the_lobby_does_not_offer_is_refused_in_german_and_french() -> None:
    error = refusal({"players": 2, "clock": {"kind": "turn", "per_turn": 12345}})
    assert isinstance(error.message, Text)
    assert error.message.startswith("clock must be one of the lobby's presets (GET /api/config): ")
    german, french = say(error.message, "de"), say(error.message, "fr")
    assert "Vorgaben der Lobby" in german
    assert (
        "Ohne Uhr" in german and "3 Tage pro Zug" in german and "5 Minuten + 10 Sekunden" in german
    )
    assert "réglages proposés par le salon" in french
    assert "Sans pendule" in french and "3 jours par tour" in french
    for said in (german, french):
        for english in ("must be one of", "No clock", "days a turn", "seconds", "a turn"):
            assert english not in said


def test_a_player_count_the_game_has_not_is_refused_in_each_language() -> None:
    error = refusal({"players": 7})
    assert error.message == "players must be one of 2, 3, 4, 5"
    assert say(error.message, "de") == "players muss einer dieser Werte sein: 2, 3, 4, 5"
    assert say(error.message, "fr") == "players doit valoir l'une de ces valeurs : 2, 3, 4, 5"


def test_the_clock_presets_and_quick_pairings_keep_their_english_and_say_their_durations() -> None:
    labels = [preset["label"] for preset in clocks.PRESETS]
    assert labels[1] == "5 minutes + 10 seconds" and labels[4] == "1 day a turn"
    assert [say(label, "de") for label in labels[4:]] == [
        "1 Tag pro Zug",
        "3 Tage pro Zug",
        "7 Tage pro Zug",
    ]
    assert say(labels[1], "fr") == "5 minutes + 10 secondes"
    tile = QUICK_PAIRINGS[0]["label"]
    assert tile == "2 players · 5 minutes + 10 seconds · rated"
    assert say(tile, "de") == "2 Spieler · 5 Minuten + 10 Sekunden · gewertet"
    assert say(tile, "fr") == "2 joueurs · 5 minutes + 10 secondes · classée"


def test_a_challenge_says_its_game_with_the_clock_of_its_preset_in_the_readers_words() -> None:
    clock = {"kind": "turn", "per_turn": 3 * 86400, "label": "3 days a turn"}  # as stored
    stored: dict[str, Any] = {"players": 2, "rated": True, "clock": clock}
    words = Setup.from_json(stored).words()
    assert words == "2 players, 3 days a turn, rated"
    assert say(words, "de") == "2 Spieler, 3 Tage pro Zug, gewertet"
    assert say(words, "fr") == "2 joueurs, 3 jours par tour, classée"


def test_a_chat_message_refused_says_why_in_german_and_french() -> None:
    with pytest.raises(ApiError) as empty:
        clean_text("   ", 200)
    assert empty.value.message == "text is empty: write something"
    assert say(empty.value.message, "de") == "der Text ist leer: schreib etwas"
    assert say(empty.value.message, "fr") == "le texte est vide : écrivez quelque chose"
    with pytest.raises(ApiError) as long:
        clean_text("x" * 1201, 1200)
    assert say(long.value.message, "de") == "der Text ist länger als 1.200 Zeichen"
    assert say(long.value.message, "fr") == "le texte dépasse 1\u202f200 caractères"


@pytest.mark.parametrize("reason", sorted(ENDING_TEXTS))
def test_the_ends_the_server_decides_are_said_in_german_and_french(reason: str) -> None:
    stamp = datetime(2026, 12, 4, tzinfo=UTC)
    meta = StoredGame(
        id="g1",
        name="Ana's game",
        status="cancelled",
        options={},
        deck=[],
        doubles=[],
        hints=False,
        ply=0,
        result={"ranking": [], "reason": reason},
        created_at=stamp,
        updated_at=stamp,
        seats=[],
    )
    view = ending_view(meta)
    assert view is not None and view["headline"] == ENDING_TEXTS[reason]
    german, french = say(view["headline"], "de"), say(view["headline"], "fr")
    assert german.startswith("Die Partie ") and french.startswith("La partie ")
    assert german != french
    for said in (german, french):
        assert "The game was" not in said and "game" not in said


def test_over_http_and_the_socket_a_refusal_is_said_in_the_language_the_client_asks_for(
    tmp_path: Path,
) -> None:
    with client_for(sqlite_url(tmp_path)) as client:
        seats = [{"kind": "human", "take": True}, {"kind": "human"}]
        answer = client.post(
            "/api/games", json={"seats": seats, "rated": True}, headers={"Accept-Language": "fr"}
        )
        assert answer.status_code == 422
        assert answer.json()["error"] == {
            "code": "not-rateable",
            "message": "une partie classée a besoin d'une pendule (en temps réel ou par tour)",
        }
        english = client.post("/api/games", json={"seats": seats, "rated": True})
        assert english.json()["error"]["message"] == (
            "a rated game needs a clock (real-time or turn-based)"
        )
        game_id, tokens = two_humans(client)
        with client.websocket_connect(
            f"/ws/games/{game_id}", headers={"Accept-Language": "de-DE,de;q=0.9"}
        ) as ws:
            hello(ws, [tokens[0]])
            ws.send_json({"type": "chat", "text": "   "})
            assert ws.receive_json() == {
                "type": "error",
                "code": "bad-request",
                "message": "der Text ist leer: schreib etwas",
            }


def test_over_http_the_clocks_and_the_end_of_an_aborted_game_are_in_the_readers_language(
    tmp_path: Path,
) -> None:
    with client_for(sqlite_url(tmp_path)) as client:
        german = client.get("/api/config", headers={"Accept-Language": "de"}).json()
        assert [clock["label"] for clock in german["clocks"]][4:] == [
            "1 Tag pro Zug",
            "3 Tage pro Zug",
            "7 Tage pro Zug",
        ]
        assert german["seeks"]["quick"][2]["label"] == "2 Spieler · 1 Tag pro Zug · gewertet"
        english = client.get("/api/config").json()
        assert english["clocks"][0]["label"] == "No clock"
        game_id, tokens = two_humans(client)
        aborted = client.post(
            f"/api/games/{game_id}/abort",
            headers={"Authorization": f"Bearer {tokens[0]}", "Accept-Language": "fr"},
        )
        result = aborted.json()["state"]["result"]
        assert result["reason"] == "aborted"
        assert result["headline"] == (
            "La partie a été interrompue dès les premiers tours : pas de résultat, "
            "pas de changement de classement"
        )
