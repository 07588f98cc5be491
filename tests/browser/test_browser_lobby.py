"""The lobby's lists as a newcomer sees them: games being played now apart from live games
nobody has moved in for a day (``Settings.idle_after``, sent in ``/api/config``)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_server_support import free_port, start_server, store_game

from taluva import Game
from taluva.server.players.standings import settle
from taluva.server.storage.store import Store, StoredSeat, now


@pytest.fixture
def server_with_a_quiet_game() -> Iterator[str]:
    """A server whose database holds one live game nobody has moved in for three days."""
    folder = Path(tempfile.mkdtemp(prefix="taluva-lobby-"))
    database = f"sqlite:///{folder / 'games.sqlite3'}"
    store = Store(database, game_end=settle)
    store.migrate()
    seats = [
        StoredSeat(0, "human", "Ana", None, "a" * 64),
        StoredSeat(1, "human", "Ben", None, "b" * 64),
    ]
    quiet = Game.new(players=["Ana", "Ben"], seed=1)
    store_game(store, "quiet", quiet, seats, name="Quiet game", stamp=now() - timedelta(days=3))
    store.close()
    port = free_port()
    process = start_server(database, port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def test_a_live_game_without_a_move_for_a_day_is_listed_apart_from_games_being_played(
    page: Any, server_with_a_quiet_game: str
) -> None:
    url = server_with_a_quiet_game
    seats = [{"kind": "human", "take": True}, {"kind": "human", "take": True}]
    created = httpx.post(f"{url}/api/games", json={"name": "Busy game", "seats": seats})
    assert created.status_code == 201, created.text
    busy = created.json()["game"]["id"]
    page.goto(url + "/")
    page.wait_for_selector(f"#live-games [data-game='{busy}']")
    page.wait_for_selector("#idle-games [data-game='quiet']")
    assert page.locator("#live-games [data-game='quiet']").count() == 0
    assert page.locator("#idle-games [data-game]").count() == 1


def test_a_signed_in_player_who_picks_a_clock_creates_a_rated_game_without_hints(
    people: Any, server_url: str
) -> None:
    page = people.open()
    page.goto(server_url + "/")
    page.wait_for_selector("#create")
    assert page.is_disabled("#rated")  # a guest: rated games need an account
    assert "Sign in" in page.inner_text("#rated-note")
    signed_up = page.request.post(
        server_url + "/api/accounts", data={"name": "Rita", "password": "volcano-rita-1"}
    )
    assert signed_up.ok, signed_up.text()
    page.reload()
    page.wait_for_selector("#create")
    assert not page.is_checked("#rated")  # no clock yet: casual
    page.check("#rated")  # ticking it picks a real-time clock
    assert page.eval_on_selector("#clock", "s => s.selectedOptions[0].textContent") != "No clock"
    assert page.is_disabled("#hints")
    page.click("#create")
    page.wait_for_selector(".game-kind.rated")
    page.wait_for_selector(".player-card, .players .card, .players > *")
    assert page.locator("button.hint").is_hidden()
    page.goto(server_url + "/")
    entry = page.locator(".game-entry", has=page.locator(".game-kind.rated"))
    entry.first.wait_for()
    assert "Rita (1500?)" in entry.first.inner_text()
