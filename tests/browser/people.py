"""The people of the browser tests: each in a browser context of their own, with games made
for them over HTTP and their seat tokens kept where the lobby keeps them.

What every browser test needs before its own steps, written once; the fixtures ``people``
and ``page`` of conftest.py hand it out.
"""

from __future__ import annotations

import random
from typing import Any

import httpx


class People:
    """Opens pages in browser contexts of their own (separate storage, so separate people or
    devices) and keeps the script errors met on any of them."""

    def __init__(self, browser: Any, timeout_ms: float) -> None:
        self.browser = browser
        self.timeout_ms = timeout_ms
        self.errors: list[str] = []
        self._contexts: list[Any] = []

    def open(
        self,
        width: int = 1280,
        height: int = 820,
        *,
        phone: bool = False,
        scale: float | None = None,
        still: bool = False,
        worker: bool = False,
        locale: str | None = None,
    ) -> Any:
        """A new person's page at this size: ``phone`` for a mobile touch screen, ``scale``
        device pixels per CSS pixel, ``still`` asks for reduced motion, ``worker`` lets the
        site install its service worker (only the tests of the installable app and of push
        need it; elsewhere it would fetch the whole client once more for every person);
        ``locale`` is the browser's language (its ``Accept-Language`` and ``navigator``)."""
        context = self.browser.new_context(
            viewport={"width": width, "height": height},
            is_mobile=phone,
            has_touch=phone,
            device_scale_factor=scale,
            reduced_motion="reduce" if still else None,
            service_workers="allow" if worker else "block",
            locale=locale,
        )
        self._contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(self.timeout_ms)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        return page

    def close(self) -> None:
        """Close every page's context."""
        for context in self._contexts:
            context.close()
        self._contexts.clear()


def create_game(
    url: str, seats: list[dict[str, Any]], page: Any = None, **options: Any
) -> tuple[str, dict[int, str]]:
    """Create a game over HTTP, in ``page``'s session when given (as its signed-in account);
    return its id and the tokens of the seats taken, by seat."""
    body = {"seats": seats, **options}
    if page is None:
        response = httpx.post(url + "/api/games", json=body)
        assert response.status_code == 201, response.text
        created = response.json()
    else:
        answer = page.request.post(url + "/api/games", data=body)
        assert answer.status == 201, answer.text()
        created = answer.json()
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    return created["game"]["id"], tokens


def open_seated(page: Any, url: str, game_id: str, tokens: dict[int, str]) -> None:
    """Open the game's page as the holder of ``tokens``, kept in this browser's localStorage
    where the lobby keeps the seats it takes."""
    page.goto(url + "/")
    page.evaluate(
        "([id, held]) => localStorage.setItem('taluva.tokens', JSON.stringify({[id]: held}))",
        [game_id, {str(seat): token for seat, token in tokens.items()}],
    )
    page.goto(f"{url}/#/game/{game_id}")


def play_over_http(
    url: str,
    game_id: str,
    tokens: dict[int, str],
    moves: int | None = None,
    rng: random.Random | None = None,
) -> None:
    """Play moves over HTTP, each with the token of the seat to move: the first legal move,
    or one ``rng`` picks; ``moves`` of them, or (None) until the game ends."""
    with httpx.Client(base_url=url) as http:
        state = http.get(f"/api/games/{game_id}").json()["state"]
        played = 0
        while state["result"] is None and (moves is None or played < moves):
            legal = state["legal"]
            move = legal[0] if rng is None else rng.choice(legal)
            reply = http.post(
                f"/api/games/{game_id}/moves",
                json={"state": state["ply"], "move": move},
                headers={"authorization": f"Bearer {tokens[state['to_move']]}"},
            )
            assert reply.status_code == 200, reply.text
            state = reply.json()["state"]
            played += 1
