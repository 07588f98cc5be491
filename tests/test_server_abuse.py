"""The server under abuse and bad input: every endpoint and WebSocket message refused in the
documented error format, strict types, nesting and size limits, per-address limits that a
spoofed X-Forwarded-For cannot escape, and names that cannot hide or impersonate."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from test_server_support import (
    ROOT,
    client_for,
    create_game,
    hello,
    play_http,
    sqlite_url,
    state_of,
    two_humans,
)

from taluva.server.http.messages import CLIENT_MESSAGES
from taluva.server.limits import wait_in_words

OPEN = {"http_rate": 1e6, "http_burst": 10**6, "games_per_minute": 1e6, "ws_rate": 1e6}
OPEN["ws_burst"] = 10**6

WRONG_VALUES: dict[str, list[Any]] = {
    "integer": [7, -1],
    "number": [0.0, 1.5],
    "string": ["0", "x"],
    "boolean": [False, True],
    "array": [[], [1]],
    "object": [{}, {"a": 1}],
    "null": [None],
}


def documented_errors() -> dict[str, set[int]]:
    """The codes of docs/server-api.md's "Errors" table, each with its HTTP statuses."""
    text = (ROOT / "docs" / "server-api.md").read_text(encoding="utf-8")
    section = text.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    codes: dict[str, set[int]] = {}
    for code, status in re.findall(r"^\| `([a-z-]+)` \| (\d{3}) \|", section, re.MULTILINE):
        codes.setdefault(code, set()).add(int(status))
    return codes


DOCUMENTED = documented_errors()


def assert_http_error(response: Any, status: int | None = None, code: str | None = None) -> str:
    """The response is one documented error object; return its code."""
    assert response.status_code < 500, response.text
    assert response.headers["content-type"].startswith("application/json"), response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    found, message = body["error"]["code"], body["error"]["message"]
    assert isinstance(message, str) and message, body
    assert response.status_code in DOCUMENTED.get(found, set()), (response.status_code, body)
    if status is not None:
        assert response.status_code == status, (status, body)
    if code is not None:
        assert found == code, body
    return str(found)


def assert_socket_error(reply: dict[str, Any], code: str | None = None, ref: Any = None) -> None:
    """The reply is one documented WebSocket error message, echoing ``ref``."""
    expected = {"type", "code", "message"} | ({"ref"} if ref is not None else set())
    assert set(reply) == expected, reply
    assert reply["type"] == "error" and reply["code"] in DOCUMENTED, reply
    assert isinstance(reply["message"], str) and reply["message"], reply
    if code is not None:
        assert reply["code"] == code, reply
    if ref is not None:
        assert reply["ref"] == ref, reply


# ---------------------------------------------------------------------- schemas


def resolve(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    """A schema with its ``$ref`` followed, and a nullable ``anyOf`` reduced to its type."""
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    options = [o for o in schema.get("anyOf", []) if o.get("type") != "null"]
    if len(options) == 1:
        return resolve(options[0], components)
    return schema


def json_types(schema: dict[str, Any], components: dict[str, Any]) -> set[str]:
    """The JSON types a schema accepts (an integer is also a number)."""
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    if "anyOf" in schema:
        return set().union(*(json_types(o, components) for o in schema["anyOf"]))
    if "enum" in schema or "const" in schema:
        values = schema.get("enum", [schema.get("const")])
        return {"string" if isinstance(v, str) else "integer" for v in values}
    kind = schema.get("type", "object")
    return {"integer", "number"} if kind == "number" else {kind}


def sample(schema: dict[str, Any], components: dict[str, Any]) -> Any:
    """The smallest valid value of a schema: its required fields only."""
    schema = resolve(schema, components)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    if kind == "object":
        required = schema.get("required", [])
        return {
            name: sample(prop, components)
            for name, prop in schema.get("properties", {}).items()
            if name in required
        }
    if kind == "array":
        return [sample(schema["items"], components) for _ in range(schema.get("minItems", 0))]
    return {"integer": 0, "number": 0.5, "string": "x", "boolean": False}[kind]


def defects(
    schema: dict[str, Any], value: Any, components: dict[str, Any]
) -> Iterator[tuple[str, Any]]:
    """Copies of the valid ``value`` with exactly one defect each, and what the defect is:
    a field of a wrong type, a required field missing, an unknown field (at every level)."""
    schema = resolve(schema, components)
    if schema.get("type", "object") == "object" and isinstance(value, dict):
        required = schema.get("required", [])
        for name, prop in schema.get("properties", {}).items():
            allowed = json_types(prop, components)
            for kind, wrongs in WRONG_VALUES.items():
                if kind in allowed or (kind == "integer" and "number" in allowed):
                    continue
                for wrong in wrongs:
                    yield f"{name}={wrong!r}", {**value, name: wrong}
            if name in required:
                yield f"no {name}", {k: v for k, v in value.items() if k != name}
            inner = value.get(name, sample(prop, components))
            for label, broken in defects(prop, inner, components):
                yield f"{name}.{label}", {**value, name: broken}
        yield "unknown field", {**value, "surplus": 1}
    elif schema.get("type") == "array" and isinstance(value, list) and value:
        for label, broken in defects(schema["items"], value[0], components):
            yield f"[0].{label}", [broken, *value[1:]]


# ---------------------------------------------------------------------- every endpoint


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(sqlite_url(tmp_path), **OPEN) as client:
        yield client


def test_every_endpoint_refuses_bad_input_in_the_documented_format(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    game_id, _ = two_humans(client)
    before = state_of(client, game_id)
    spec = client.get("/openapi.json").json()
    components = spec.get("components", {}).get("schemas", {})
    values = {"game_id": game_id, "seat": "1"}
    checked = 0
    for path, operations in spec["paths"].items():
        url = re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), "1"), path)
        for method in {"get", "post", "put", "delete", "patch"} - set(operations):
            assert_http_error(client.request(method, url), 405, "method-not-allowed")
        for method, operation in operations.items():
            call = getattr(client, method)
            query = {
                p["name"]: sample(p["schema"], components) if p["name"] != "ply" else 0
                for p in operation.get("parameters", [])
                if p["in"] == "query" and p.get("required")
            }
            for parameter in operation.get("parameters", []):
                name, where = parameter["name"], parameter["in"]
                kinds = json_types(parameter["schema"], components)
                if where == "query":
                    bad = (
                        "nope"
                        if kinds & {"integer", "number"} or "enum" in str(parameter["schema"])
                        else None
                    )
                    if bad is not None:
                        response = client.request(method, url, params={**query, name: bad})
                        assert_http_error(response, 422, "bad-request")
                    if parameter.get("required"):
                        missing = {k: v for k, v in query.items() if k != name}
                        assert_http_error(client.request(method, url, params=missing), 422)
                elif where == "path":
                    wrong = "abc" if "integer" in kinds else "no-such-game"
                    broken = url.replace(values.get(name, "1"), wrong, 1)
                    assert_http_error(call(broken, params=query))
            headers = {"content-type": "application/json"}
            body = operation.get("requestBody")
            if body is not None:
                schema = body["content"]["application/json"]["schema"]
                valid = sample(schema, components)
                for label, broken in defects(schema, valid, components):
                    response = client.request(method, url, json=broken)
                    assert response.status_code == 422, (path, label, response.text)
                    assert_http_error(response, 422, "bad-request")
                    checked += 1
                # An optional body may be left out (or be null): the request is then
                # checked like one without a body (its token, say), not as malformed.
                required = body.get("required", False)
                for top in ([], "x", 1, None) if required else ([], "x", 1):
                    response = client.request(method, url, json=top)
                    assert_http_error(response, 422, "bad-request")
                if required:
                    assert_http_error(client.request(method, url), 422, "bad-request")
                plain = client.request(
                    method, url, content=json.dumps(valid), headers={"content-type": "text/plain"}
                )
                assert_http_error(plain, 415, "bad-content-type")
            for content, status, code in [
                (b"{nope", 400, "bad-request"),
                (b'{"a": NaN}', 400, "bad-request"),
                (b'{"a": "\\ud800"}', 400, "bad-request"),
                (b"\xff\xfe{}", 400, "bad-request"),
                (b"[" * 200 + b"]" * 200, 400, "too-deep"),
                (b'{"a": "' + b"x" * 20000 + b'"}', 413, "too-large"),
                (b"1" * 5000, 400, "bad-request"),
            ]:
                response = client.request(method, url, content=content, headers=headers)
                assert_http_error(response, status, code)
                checked += 1
    assert checked > 100
    assert_http_error(client.get("/api/nothing/here"), 404, "not-found")
    assert_http_error(client.get("/static/nothing.js"), 404, "not-found")
    assert state_of(client, game_id) == before
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def test_every_websocket_message_type_refuses_bad_input_in_the_documented_format(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    game_id, tokens = two_humans(client)
    before = state_of(client, game_id)
    sent = 0
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, [tokens[1]])
        for kind, model in CLIENT_MESSAGES.items():
            schema = model.model_json_schema()
            components = schema.get("$defs", {})
            valid = {**sample(schema, components), "type": kind, "ref": f"r-{kind}"}
            for label, broken in defects(schema, valid, components):
                if label in ("type='x'", "no type", "no ref"):
                    continue
                ws.send_json(broken)
                reply = ws.receive_json()
                assert reply["type"] == "error", (kind, label, reply)
                assert_socket_error(reply, "bad-request", f"r-{kind}")
                sent += 1
            for ref in (True, 1.5, "x" * 65, [], {}):
                ws.send_json({**valid, "ref": ref})
                assert_socket_error(ws.receive_json(), "bad-request")
            for text, code, ref in [
                ("{nope", "bad-request", None),
                ("[1]", "bad-request", None),
                ('{"type": 7}', "bad-request", None),
                ('{"ref": 1}', "bad-request", 1),
                (json.dumps({**valid, "type": kind.upper()}), "bad-request", f"r-{kind}"),
                ('{"type": "' + kind + '", "a": NaN}', "bad-request", None),
                ("[" * 100 + "]" * 100, "too-deep", None),
                (json.dumps({**valid, "pad": "x" * 5000}), "too-large", None),
            ]:
                ws.send_text(text)
                assert_socket_error(ws.receive_json(), code, ref)
                sent += 1
        ws.send_bytes(b'{"type": "ping"}')
        assert_socket_error(ws.receive_json(), "bad-request")
    assert sent > 40
    assert state_of(client, game_id) == before
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


@pytest.mark.parametrize("state", ["0", 0.0, False, None, [0], 1e0])
def test_the_state_id_is_a_json_integer_and_nothing_else(client: TestClient, state: Any) -> None:
    game_id, tokens = two_humans(client)
    response = play_http(client, game_id, tokens[0], state, "tile 0,0 0")
    assert response.json()["error"] == {
        "code": "bad-request",
        "message": "state: Input should be a valid integer",
    }
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        hello(ws, [tokens[0]])
        ws.send_json({"type": "move", "state": state, "move": "tile 0,0 0", "ref": 5})
        assert ws.receive_json() == {
            "type": "error",
            "code": "bad-request",
            "message": "state: Input should be a valid integer",
            "ref": 5,
        }
    assert state_of(client, game_id)["ply"] == 0


def test_a_deeply_nested_message_is_refused_and_the_socket_keeps_working(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    game_id, tokens = two_humans(client)
    with client.websocket_connect(f"/ws/games/{game_id}") as ws:
        ws.send_text("[" * 2000 + "]" * 2000)
        assert ws.receive_json() == {
            "type": "error",
            "code": "too-deep",
            "message": "JSON may nest at most 16 levels deep",
        }
        ws.send_text('{"type": "ping", "ref": ' + '{"a": ' * 17 + "1" + "}" * 17 + "}")
        assert ws.receive_json()["code"] == "too-deep"
        ws.send_json({"type": "ping", "ref": 1})
        assert ws.receive_json() == {"type": "pong", "ref": 1}
    deep = client.post(
        f"/api/games/{game_id}/moves",
        content=b'{"state": ' + b"[" * 8000 + b"]" * 8000 + b"}",
        headers={"content-type": "application/json", "authorization": f"Bearer {tokens[0]}"},
    )
    assert_http_error(deep, 400, "too-deep")
    assert not [r for r in caplog.records if r.exc_info]


# ---------------------------------------------------------------------- per-address limits


def test_one_address_holds_only_so_many_websockets(tmp_path: Path) -> None:
    with client_for(sqlite_url(tmp_path), ws_per_address=2) as client:
        game_id, _ = two_humans(client)
        with (
            client.websocket_connect(f"/ws/games/{game_id}") as first,
            client.websocket_connect(f"/ws/games/{game_id}") as second,
        ):
            hello(first, [])
            hello(second, [])
            with client.websocket_connect(f"/ws/games/{game_id}") as third:
                assert_socket_error(third.receive_json(), "too-many-connections")
                with pytest.raises(WebSocketDisconnect) as closed:
                    third.receive_json()
                assert closed.value.code == 4429
                assert closed.value.reason == "this address holds 2 open WebSockets already"
            hello(first, [])
        with client.websocket_connect(f"/ws/games/{game_id}") as again:
            assert hello(again, [])["seats"] == []


def test_an_address_may_create_only_so_many_games_a_minute(tmp_path: Path) -> None:
    seats = {"seats": [{"kind": "human"}] * 2}
    with client_for(sqlite_url(tmp_path), ("192.0.2.1", 4000), games_per_minute=2) as client:
        first, second, third = (client.post("/api/games", json=seats) for _ in range(3))
        assert (first.status_code, second.status_code) == (201, 201)
        assert_http_error(third, 429, "rate-limited")
        wait = int(third.headers["retry-after"])
        assert 1 <= wait <= 30
        assert third.json()["error"]["message"] == (
            f"this address may create 2 games a minute: try again in {wait_in_words(wait)}"
        )
        game_id = first.json()["game"]["id"]
        joined = client.post(f"/api/games/{game_id}/seats/0", json={"name": "Ana"})
        assert joined.status_code == 200


def spoofing_client(tmp_path: Path, peer: str, proxies: tuple[str, ...]) -> Any:
    return client_for(
        sqlite_url(tmp_path), (peer, 4000), proxies, games_per_minute=1, ws_per_address=1
    )


def test_a_forwarded_for_header_from_an_untrusted_peer_changes_no_limit(tmp_path: Path) -> None:
    seats = {"seats": [{"kind": "human"}] * 2}
    with spoofing_client(tmp_path, "127.0.0.1", ()) as client:
        codes = [
            client.post(
                "/api/games", json=seats, headers={"x-forwarded-for": f"203.0.113.{n}"}
            ).status_code
            for n in range(3)
        ]
        assert codes == [201, 429, 429]
        game_id = client.get("/api/games").json()["games"][0]["id"]
        spoofed = {"x-forwarded-for": "198.51.100.1"}
        with client.websocket_connect(f"/ws/games/{game_id}", headers=spoofed) as ws:
            hello(ws, [])
            with client.websocket_connect(f"/ws/games/{game_id}", headers=spoofed) as other:
                assert_socket_error(other.receive_json(), "too-many-connections")


def test_a_trusted_proxy_names_the_address_the_limits_count(tmp_path: Path) -> None:
    seats = {"seats": [{"kind": "human"}] * 2}
    with spoofing_client(tmp_path, "10.1.2.3", ("10.0.0.0/8",)) as client:

        def create(forwarded: str) -> int:
            headers = {"x-forwarded-for": forwarded}
            return client.post("/api/games", json=seats, headers=headers).status_code

        assert [create(f"203.0.113.{n}") for n in range(3)] == [201, 201, 201]
        assert create("203.0.113.0") == 429
        # The client's own claim comes first; the proxy appends what it saw, which counts.
        assert create("198.51.100.9, 203.0.113.1") == 429
        assert create("203.0.113.1, 198.51.100.9, 10.9.9.9") == 201
        game_id = client.get("/api/games").json()["games"][0]["id"]
        with (
            client.websocket_connect(
                f"/ws/games/{game_id}", headers={"x-forwarded-for": "198.51.100.20"}
            ) as ws,
            client.websocket_connect(
                f"/ws/games/{game_id}", headers={"x-forwarded-for": "198.51.100.21"}
            ) as other,
        ):
            hello(ws, [])
            assert hello(other, [])["type"] == "welcome"


# ---------------------------------------------------------------------- names


def name_error(client: TestClient, game_id: str, name: str) -> str | None:
    """The refusal of ``name`` for seat 1, or None when the seat was taken with it."""
    response = client.post(f"/api/games/{game_id}/seats/1", json={"name": name})
    if response.status_code == 200:
        return None
    assert_http_error(response, 422, "bad-request")
    message: str = response.json()["error"]["message"]
    return message


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("👨‍👩‍👧‍👦" * 10 + "🏳️‍🌈🇫🇷", "👨‍👩‍👧‍👦" * 10 + "🏳️‍🌈🇫🇷"),
        ("Zoe\u0308  \t 👩🏽‍💻", "Zo\u00eb 👩🏽‍💻"),
        ("🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Ailsa", None),
        ("1️⃣ Kim 김민수", None),
        ("Müller 李", None),
        ("Борис", None),
        ("Ελένη", None),
        ("山田 Taro やまだ", None),
        ("<b>&amp;</b>", None),
        ("x" * 32, None),
    ],
)
def test_any_printable_name_is_taken_in_nfc(client: TestClient, name: str, shown: Any) -> None:
    game_id, _ = create_game(client, [{"kind": "human", "take": True}, {"kind": "human"}])
    assert name_error(client, game_id, name) is None
    assert state_of(client, game_id)["players"][1]["name"] == (shown or name)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("x" * 33, "name is longer than 32 characters"),
        ("👨‍👩‍👧‍👦" * 12, "name is longer than 80 code points"),
        ("Ben\u202eniB", "name contains an invisible or control character (U+202E)"),
        ("Ana\u200b", "name contains an invisible or control character (U+200B)"),
        ("Ana\u200dBen", "name contains an invisible or control character (U+200D)"),
        ("Ana\ufe0f", "name contains an invisible or control character (U+FE0F)"),
        ("\u3164", "name contains an invisible or control character (U+3164)"),
        ("\u2800\u2800", "name contains an invisible or control character (U+2800)"),
        ("Ana\U000f0000", "name contains an invisible or control character (U+F0000)"),
        ("Ana\u00ad", "name contains an invisible or control character (U+00AD)"),
        ("Zalgo" + "\u0301" * 6, "name stacks more than 4 marks on one character"),
        (
            "\u0410na",
            "name mixes the Cyrillic and Latin scripts with look-alike letters "
            "(\u0410, a): write it in one script",
        ),
        (
            "\u03a1aul",
            "name mixes the Greek and Latin scripts with look-alike letters "
            "(\u03a1, a, u, l): write it in one script",
        ),
    ],
)
def test_invisible_overlong_and_look_alike_names_are_refused(
    client: TestClient, name: str, message: str
) -> None:
    game_id, _ = create_game(client, [{"kind": "human", "take": True}, {"kind": "human"}])
    assert name_error(client, game_id, name) == message
    assert state_of(client, game_id)["players"][1]["taken"] is False


def test_game_names_follow_the_same_rules_with_their_own_length(client: TestClient) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}]
    long = client.post("/api/games", json={"name": "🎲" * 61, "seats": seats})
    assert long.json()["error"]["message"] == "name is longer than 60 characters"
    hidden = client.post("/api/games", json={"name": "Club\u2066night", "seats": seats})
    assert hidden.json()["error"]["code"] == "bad-request"
    seat = client.post("/api/games", json={"seats": [{"kind": "human", "name": "\u0410na"}] * 2})
    assert seat.json()["error"]["message"].startswith("seats[0].name mixes the Cyrillic")
    assert client.get("/api/games").json()["games"] == []


def test_the_browser_client_sets_text_never_markup() -> None:
    scripts = (ROOT / "src" / "taluva" / "server" / "web" / "static" / "js").glob("*.js")
    for script in scripts:
        code = script.read_text(encoding="utf-8")
        sinks = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(")
        for sink in (*sinks, "DOMParser", "createContextualFragment"):
            assert sink not in code, f"{script.name} uses {sink}"


def test_a_refusal_says_how_long_to_wait_rounded_up() -> None:
    assert [wait_in_words(s) for s in (0.2, 1, 1.01, 59, 59.5, 60, 61, 179.9)] == [
        "1 second",
        "1 second",
        "2 seconds",
        "59 seconds",
        "1 minute",
        "1 minute",
        "2 minutes",
        "3 minutes",
    ]
