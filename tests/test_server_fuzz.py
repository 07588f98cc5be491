"""Fuzzing the server's HTTP and WebSocket surface with Hypothesis: valid messages mutated
(fields dropped, added, retyped, their text garbled) and random JSON, text and bytes,
thousands per run. Whatever arrives: no 500, no traceback in the log, every refusal in the
documented error format, every WebSocket message answered once, and no game changed."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import random
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_server_abuse import assert_http_error, assert_socket_error
from test_server_support import sqlite_url

from taluva.server import Limits, Settings, create_app
from taluva.server.games.service import GameService
from taluva.server.storage.store import StoredGame

OPEN = Limits(http_rate=1e6, http_burst=10**6, ws_rate=1e6, ws_burst=10**6, games_per_minute=1e6)
WS_EXAMPLES, WS_SEEDED = 100, 25
HTTP_EXAMPLES, HTTP_SEEDED = 100, 10
ANSWERS = {"welcome", "pong", "explain", "hint", "error"}


class StalledAi:
    """AI seats of games the fuzzer creates never move (no game changes by itself, no CPU
    spent on searches); hints are unavailable."""

    async def choose(self, record: dict[str, Any], spec: str, seed: int) -> str:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def hint(self, record: dict[str, Any], level: int) -> tuple[str, float]:
        raise ImportError("no AI in the fuzz test")

    def close(self) -> None:
        """Nothing to stop."""


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Fail instead of hanging if the server leaves a message unanswered."""

    def expired(_signum: int, _frame: Any) -> None:
        raise TimeoutError(f"the fuzz run took over {seconds} s: a message went unanswered?")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


class Table:
    """The games the fuzzer aims at, none of which it can change: a live game where it holds
    only the seat not to move, a finished game, an open game whose free seat it never names."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        human = {"kind": "human", "take": True}
        self.live, live_tokens = self.create([human, human])
        rng = random.Random(5)
        for _ in range(2):
            state = self.state(self.live)
            self.move(self.live, live_tokens[state["to_move"]], state, rng)
        self.live_token = live_tokens[0]  # seat 0 has played its turn: seat 1 is to move
        self.finished, done_tokens = self.create([human, human])
        state = self.state(self.finished)
        while state["result"] is None:
            state = self.move(self.finished, done_tokens[state["to_move"]], state, rng)
        self.finished_token = done_tokens[0]
        self.open, open_tokens = self.create([human, {"kind": "human"}])
        self.open_token = open_tokens[0]
        self.ids = (self.live, self.finished, self.open)
        self.tokens = (self.live_token, self.finished_token, self.open_token)

    def create(self, seats: list[dict[str, Any]]) -> tuple[str, list[str]]:
        body = self.client.post("/api/games", json={"seats": seats}).json()
        return body["game"]["id"], [entry["token"] for entry in body["tokens"]]

    def state(self, game_id: str) -> dict[str, Any]:
        state: dict[str, Any] = self.client.get(f"/api/games/{game_id}").json()["state"]
        return state

    def move(
        self, game_id: str, token: str, state: dict[str, Any], rng: random.Random
    ) -> dict[str, Any]:
        body = {"state": state["ply"], "move": rng.choice(state["legal"])}
        response = self.client.post(
            f"/api/games/{game_id}/moves", json=body, headers={"authorization": f"Bearer {token}"}
        )
        assert response.status_code == 200, response.text
        after: dict[str, Any] = response.json()["state"]
        return after


# ---------------------------------------------------------------------- mutations

# Every mutation is written once against a Chooser. Hypothesis drives a few of each batch
# (shrinkable: a failure comes back as a small example); a Random seeded by Hypothesis
# drives the rest, many times faster, so that a run sends thousands of messages.

UNICODE_SAMPLES = 'aZ0 "\\{}[],:é李👩\u200d💻\u202e\u0000\ud800\uffff\U0001f3f3'
CHANGES = ("drop", "add", "replace", "garble", "shift", "wrap")


class Chooser(Protocol):
    """Where a mutation's choices come from."""

    def integer(self, low: int, high: int) -> int:
        """A whole number from ``low`` to ``high``."""

    def choice(self, options: Sequence[Any]) -> Any:
        """One of ``options``."""

    def text(self, most: int) -> str:
        """Up to ``most`` characters of any kind."""

    def json_value(self) -> Any:
        """Any JSON value, nested a little."""


class Drawn:
    """Choices drawn by Hypothesis."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high))

    def choice(self, options: Sequence[Any]) -> Any:
        return self.draw(st.sampled_from(options))

    def text(self, most: int) -> str:
        return self.draw(st.text(max_size=most))

    def json_value(self) -> Any:
        return self.draw(json_values)


class Seeded:
    """Choices from a seeded Random: fast, reproducible from the seed."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def choice(self, options: Sequence[Any]) -> Any:
        return options[self.rng.randrange(len(options))]

    def text(self, most: int) -> str:
        size = self.rng.randint(0, most)
        if self.rng.random() < 0.5:
            return "".join(self.rng.choice(UNICODE_SAMPLES) for _ in range(size))
        return "".join(chr(self.rng.randint(1, 0x10FFFF)) for _ in range(size))

    def json_value(self, depth: int = 0) -> Any:
        kind = self.rng.randrange(9 if depth < 2 else 6)
        if kind == 0:
            return None
        if kind == 1:
            return self.rng.random() < 0.5
        if kind == 2:
            return self.rng.choice([0, 1, -1, 2, 7, 2**31, -(2**63), 10**30])
        if kind == 3:
            return self.rng.choice([0.0, 1.0, -0.5, 1e300, 2.5])
        if kind in (4, 5):
            return self.text(12)
        if kind in (6, 7):
            return [self.json_value(depth + 1) for _ in range(self.rng.randint(0, 3))]
        return {self.text(6): self.json_value(depth + 1) for _ in range(self.rng.randint(0, 3))}


def mutate(chooser: Chooser, template: dict[str, Any]) -> dict[str, Any]:
    """``template`` with one to three changes: a field dropped, added, replaced by any JSON
    value, its text garbled, its number moved, or wrapped in a list."""
    message = copy.deepcopy(template)
    for _ in range(chooser.integer(1, 3)):
        keys = sorted(message)
        change = chooser.choice(CHANGES)
        if change == "add" or not keys:
            name = chooser.choice([*keys, "ref", "type", "extra", chooser.text(6)])
            message[name] = chooser.json_value()
            continue
        key = chooser.choice(keys)
        value = message[key]
        if change == "drop":
            del message[key]
        elif change == "replace":
            message[key] = chooser.json_value()
        elif change == "garble" and isinstance(value, str):
            at = chooser.integer(0, len(value))
            message[key] = value[:at] + chooser.text(4) + value[at + 1 :]
        elif change == "shift" and type(value) is int:
            message[key] = value + chooser.choice([-1, 1, 2**31, -(2**63)])
        elif change == "wrap":
            message[key] = [value]
    return message


def garble(chooser: Chooser, text: str) -> str:
    """``text`` with a few characters inserted, deleted or replaced (mostly invalid JSON)."""
    for _ in range(chooser.integer(1, 3)):
        at = chooser.integer(0, len(text))
        cut = chooser.integer(0, 2)
        text = text[:at] + chooser.text(3) + text[at + cut :]
    return text


def frame(chooser: Chooser, templates: list[dict[str, Any]]) -> str:
    """One WebSocket text frame or HTTP body: mostly mutated valid messages."""
    template = chooser.choice(templates)
    kind = chooser.integer(0, 9)
    if kind < 5:
        return json.dumps(mutate(chooser, template))
    if kind == 5:
        return garble(chooser, json.dumps(template))
    if kind == 6:
        return json.dumps(template)
    if kind == 7:
        return json.dumps(chooser.json_value()) if chooser.integer(0, 1) else chooser.text(40)
    if kind == 8:
        depth = chooser.integer(10, 2000)
        return "[" * depth + "]" * depth
    return json.dumps({**template, "pad": "x" * 5000})


leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=24)
)
json_values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@st.composite
def batches(draw: st.DrawFn, make: Callable[[Chooser], Any], drawn: int, seeded: int) -> list[Any]:
    """Up to ``drawn`` items made from Hypothesis's choices, then ``seeded`` from a Random
    whose seed Hypothesis chose."""
    items = [make(Drawn(draw)) for _ in range(draw(st.integers(1, drawn)))]
    rng = random.Random(draw(st.integers(0, 2**32)))
    return items + [make(Seeded(rng)) for _ in range(seeded)]


def socket_templates(table: Table, legal: str) -> list[dict[str, Any]]:
    live = table.state(table.live)["ply"]
    return [
        {"type": "hello", "tokens": [table.live_token], "since": 0, "ref": "h"},
        {"type": "move", "state": live, "move": legal, "ref": 1},
        {"type": "explain", "move": legal, "ref": "e"},
        {"type": "hint", "ref": 2},
        {"type": "ping", "ref": "p"},
    ]


class Requests:
    """Makes HTTP requests at the table's games: a (mostly mutated) body for each POST
    route, a (mostly mutated) query for each GET route, and sometimes the wrong method,
    content type or token."""

    def __init__(self, table: Table, legal: str) -> None:
        live, done, open_ = table.ids
        seats = [{"kind": "human", "name": "A", "take": True}, {"kind": "ai", "level": 1}]
        self.bodies: dict[str, list[dict[str, Any]]] = {
            "/api/games": [
                {"name": "fuzz", "seats": seats, "tiles_per_player": 12, "expansions": ["ships"]},
                {"seats": seats, "house_rules": ["all_tiles"], "hints": False},
            ],
            **{f"/api/games/{game_id}/seats/0": [{"name": "Ben"}] for game_id in table.ids},
            f"/api/games/{live}/seats/1": [{"name": "Cy"}],
            f"/api/games/{done}/seats/1": [{}],
            f"/api/games/{live}/moves": [{"state": table.state(live)["ply"], "move": legal}],
            f"/api/games/{done}/moves": [{"state": table.state(done)["ply"], "move": legal}],
            f"/api/games/{open_}/moves": [{"state": 0, "move": legal}],
            **{f"/api/games/{game_id}/hint": [{}] for game_id in table.ids},
        }
        self.queries: dict[str, dict[str, Any]] = {
            "/api/games": {"status": "live", "limit": 5},
            "/api/config": {},
            **{f"/api/games/{game_id}/state": {"ply": 1} for game_id in table.ids},
            **{f"/api/games/{game_id}/explain": {"move": legal} for game_id in table.ids},
            **{f"/api/games/{game_id}": {} for game_id in table.ids},
            **{f"/api/games/{game_id}/record": {} for game_id in table.ids},
        }
        self.posts = sorted(self.bodies)
        self.gets = sorted(self.queries)
        self.authorizations = [f"Bearer {token}" for token in table.tokens]

    def __call__(self, chooser: Chooser) -> dict[str, Any]:
        headers: dict[str, str] = {}
        if chooser.integer(0, 2):
            path = chooser.choice(self.posts)
            method = chooser.choice(["POST"] * 6 + ["PUT", "GET"])
            body = frame(chooser, self.bodies[path]).encode("utf-8", "surrogatepass")
            if chooser.integer(0, 9) == 0:
                body = bytes(chooser.integer(0, 255) for _ in range(chooser.integer(0, 12)))
            content_type = chooser.choice(["application/json"] * 6 + ["text/plain", None])
            if content_type is not None:
                headers["content-type"] = content_type
            authorization = chooser.choice([*self.authorizations, "garbled", None])
            if authorization == "garbled":
                garbled = garble(chooser, chooser.choice(self.authorizations))
                authorization = "".join(c for c in garbled if " " <= c <= "~")
            if authorization is not None:
                headers["authorization"] = authorization
            return {"method": method, "url": path, "content": body, "headers": headers}
        path = chooser.choice(self.gets)
        query = self.queries[path]
        if chooser.integer(0, 9) == 0:  # a game or a route that is not there
            path = "".join(
                c for c in garble(chooser, path) if (c.isascii() and c.isalnum()) or c in "/_-"
            )
        method = chooser.choice(["GET"] * 6 + ["DELETE"])
        if chooser.integer(0, 3):
            query = mutate(chooser, query)
        params = {
            readable(key): readable(value if isinstance(value, str) else json.dumps(value))
            for key, value in query.items()
        }
        return {"method": method, "url": path, "params": params}


def readable(text: str) -> str:
    """``text`` as an HTTP client can send it in a URL (lone surrogates replaced)."""
    return text.encode("utf-8", "replace").decode("utf-8")


# ---------------------------------------------------------------------- the runs


def stored(service: GameService, ids: tuple[str, ...]) -> list[StoredGame | None]:
    return [service.store.load_game(game_id) for game_id in ids]


@pytest.fixture
def fuzzed(tmp_path: Path) -> Iterator[tuple[TestClient, GameService, Table]]:
    settings_ = Settings(database=sqlite_url(tmp_path), ai_workers=0, limits=OPEN)
    service = GameService(settings_, ai=StalledAi())  # type: ignore[arg-type]
    with TestClient(create_app(settings_, service)) as client:
        yield client, service, Table(client)


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


def test_fuzzed_websocket_messages_are_answered_and_change_no_game(
    fuzzed: tuple[TestClient, GameService, Table], caplog: pytest.LogCaptureFixture
) -> None:
    client, service, table = fuzzed
    caplog.set_level(logging.WARNING)
    templates = socket_templates(table, table.state(table.live)["legal"][0])
    before = stored(service, table.ids), [table.state(game_id) for game_id in table.ids]
    counted = {"messages": 0, "errors": 0}

    with time_limit(240), client.websocket_connect(f"/ws/games/{table.live}") as ws:

        @settings(
            max_examples=WS_EXAMPLES,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(batches(lambda chooser: frame(chooser, templates), drawn=3, seeded=WS_SEEDED))
        def exchange(batch: list[str]) -> None:
            for text in batch:
                ws.send_text(text)
            for _ in batch:
                reply = ws.receive_json()
                assert reply["type"] in ANSWERS, reply
                if reply["type"] == "error":
                    assert_socket_error(reply, ref=reply.get("ref"))
                    counted["errors"] += 1
            counted["messages"] += len(batch)

        exchange()
        ws.send_json({"type": "ping", "ref": "last"})
        assert ws.receive_json() == {"type": "pong", "ref": "last"}

    assert counted["messages"] >= 2000, counted
    assert counted["errors"] > counted["messages"] // 2, counted
    after = stored(service, table.ids), [table.state(game_id) for game_id in table.ids]
    assert after == before
    assert no_tracebacks(caplog) == []


def test_fuzzed_http_requests_get_no_500_and_change_no_game(
    fuzzed: tuple[TestClient, GameService, Table], caplog: pytest.LogCaptureFixture
) -> None:
    client, service, table = fuzzed
    caplog.set_level(logging.WARNING)
    requests = Requests(table, table.state(table.live)["legal"][0])
    before = stored(service, table.ids), [table.state(game_id) for game_id in table.ids]
    statuses: dict[int, int] = {}

    @settings(
        max_examples=HTTP_EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(batches(requests, drawn=2, seeded=HTTP_SEEDED))
    def exchange(batch: list[dict[str, Any]]) -> None:
        for call in batch:
            response = client.request(**call)
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            if response.status_code >= 400:
                assert_http_error(response)

    with time_limit(240):
        exchange()

    assert sum(statuses.values()) >= 1000, statuses
    assert [status for status in statuses if status >= 500] == [], statuses
    assert {200, 400, 404, 405, 409, 415, 422} <= set(statuses), statuses
    after = stored(service, table.ids), [table.state(game_id) for game_id in table.ids]
    assert after == before
    assert no_tracebacks(caplog) == []
