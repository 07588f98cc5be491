"""Observability: ``GET /metrics`` counts what the server did (moves by kind of seat, their
time to the broadcast, sockets, games, the AI queue, database failures), each application on
its own registry; the Grafana dashboard asks only for metrics the server exposes; with
``--log-format json`` every log line is a JSON object naming its request and game."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import create_engine, text
from test_server_support import (
    client_for,
    create_game,
    free_port,
    hello,
    play_http,
    sqlite_url,
    state_of,
)

from taluva.server.storage.outage import Outage

ROOT = Path(__file__).resolve().parent.parent
DASHBOARD = ROOT / "deploy" / "grafana-dashboard.json"
PERSON_AND_AI = [{"kind": "human", "name": "Ana", "take": True}, {"kind": "ai", "level": 1}]
HUMANS = [{"kind": "human", "take": True}, {"kind": "human", "take": True}]
SUFFIX = r"_(total|bucket|count|sum|created)$"
"""What Prometheus adds to a counter's or a histogram's name in its samples."""


def scrape(client: TestClient) -> dict[str, float]:
    """Every sample of ``/metrics``, keyed by its name and labels as Prometheus writes them."""
    answer = client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain")
    samples: dict[str, float] = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            labels = ",".join(f'{key}="{value}"' for key, value in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return samples


def play_first_legal(client: TestClient, game_id: str, token: str) -> None:
    state = state_of(client, game_id)
    assert play_http(client, game_id, token, state["ply"], state["legal"][0]).status_code == 200


def test_metrics_count_moves_by_seat_sockets_games_and_ai_waits(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    with (
        client_for(sqlite_url(tmp_path / "a")) as client,
        client_for(sqlite_url(tmp_path / "b")) as other,
    ):
        before = scrape(client)
        assert before['taluva_moves_total{seat="person"}'] == 0
        assert before["taluva_live_games"] == 0
        assert before["taluva_process_start_time_seconds"] > 0
        game_id, tokens = create_game(client, PERSON_AND_AI)
        two_id, two_tokens = create_game(client, HUMANS)
        with client.websocket_connect(f"/ws/games/{game_id}") as ws:
            hello(ws, [tokens[0]])
            for _ in range(2):  # the person's turn: a tile, then a building
                play_first_legal(client, game_id, tokens[0])
            play_first_legal(client, two_id, two_tokens[0])
            deadline = time.monotonic() + 60
            while state_of(client, game_id)["ply"] < 4 and time.monotonic() < deadline:
                time.sleep(0.05)  # the AI seat's turn, in a thread
            assert state_of(client, game_id)["ply"] == 4
            during = scrape(client)
        after = scrape(client)
        elsewhere = scrape(other)
    assert during['taluva_moves_total{seat="person"}'] == 3
    assert during['taluva_moves_total{seat="ai"}'] == 2
    assert during["taluva_move_broadcast_seconds_count"] == 5
    assert during['taluva_move_broadcast_seconds_bucket{le="+Inf"}'] == 5
    assert during["taluva_move_broadcast_seconds_sum"] > 0
    assert during["taluva_sockets_open"] == 1
    assert after["taluva_sockets_open"] == 0
    assert during["taluva_live_games"] == 2
    assert during["taluva_ai_wait_seconds_count"] >= 2  # one job a ply at least
    assert during["taluva_ai_queue_length"] == 0
    assert during['taluva_database_errors_total{kind="unreachable"}'] == 0
    # another application in the same process counts on its own registry
    assert elsewhere['taluva_moves_total{seat="person"}'] == 0
    assert elsewhere["taluva_live_games"] == 0


def test_database_failures_are_counted_by_kind_but_not_a_refused_duplicate(
    tmp_path: Path,
) -> None:
    failures: list[bool] = []
    missing = create_engine(f"sqlite:///{tmp_path / 'no such folder' / 'games.sqlite3'}")
    Outage(missing).failed = failures.append
    memory = create_engine("sqlite://")
    Outage(memory).failed = failures.append
    for engine, statement in (
        (missing, "SELECT 1"),
        (memory, "SELECT nothing FROM nowhere"),
        (memory, "INSERT INTO t VALUES (1)"),
    ):
        if engine is memory and statement.startswith("INSERT"):
            with memory.begin() as connection:
                connection.execute(text("CREATE TABLE t (a INTEGER PRIMARY KEY)"))
                connection.execute(text("INSERT INTO t VALUES (1)"))
        try:
            with engine.begin() as connection:
                connection.execute(text(statement))
        except Exception:
            pass
        else:
            raise AssertionError(f"{statement} should have failed")
    assert failures == [True, False]


def test_the_dashboard_asks_only_for_metrics_the_server_exposes(tmp_path: Path) -> None:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    expressions = [
        target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])
    ]
    assert expressions
    asked = {name for expr in expressions for name in re.findall(r"\btaluva_\w+", expr)}
    with client_for(sqlite_url(tmp_path)) as client:
        exposed = set(scrape(client))
    names = {re.sub(r"\{.*", "", sample) for sample in exposed}
    assert asked <= names, asked - names
    families = {re.sub(SUFFIX, "", name) for name in names}
    assert {re.sub(SUFFIX, "", name) for name in asked} == families


def test_json_logs_are_one_object_a_line_naming_the_game_of_a_move(tmp_path: Path) -> None:
    port = free_port()
    log_path = tmp_path / "server.log"
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "taluva", "serve", "--port", str(port)]
    command += ["--database", sqlite_url(tmp_path), "--ai-workers", "0", "--log-format", "json"]
    with log_path.open("w") as log:
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log)
    try:
        with httpx.Client(base_url=url, timeout=10) as http:
            for _ in range(300):
                try:
                    if http.get("/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            created = http.post("/api/games", json={"seats": HUMANS})
            game_id = created.json()["game"]["id"]
            token = created.json()["tokens"][0]["token"]
            state = http.get(f"/api/games/{game_id}").json()["state"]
            moved = http.post(
                f"/api/games/{game_id}/moves",
                json={"state": 0, "move": state["legal"][0]},
                headers={"authorization": f"Bearer {token}"},
            )
            assert moved.status_code == 200
    finally:
        server.terminate()
        server.wait(timeout=30)
    lines = [json.loads(line) for line in log_path.read_text(encoding="utf-8").splitlines()]
    assert {"time", "level", "logger", "message"} <= set(lines[0])
    assert any("Uvicorn running on" in line["message"] for line in lines)
    move_lines = [line for line in lines if line.get("path") == f"/api/games/{game_id}/moves"]
    assert len(move_lines) == 1
    assert move_lines[0]["game"] == game_id
    assert move_lines[0]["method"] == "POST" and move_lines[0]["status"] == 200
    assert move_lines[0]["request"] == moved.headers["x-request-id"]
    created_line = next(line for line in lines if line.get("path") == "/api/games")
    assert "game" not in created_line and created_line["request"] != moved.headers["x-request-id"]
