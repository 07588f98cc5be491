"""The probes: ``/healthz`` answers while the process lives, ``/readyz`` only while it can
serve games (database reached, schema at head, Redis reached when used, not stopping)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import text
from test_server_support import client_for, redis_server, sqlite_url

from taluva.server import Settings, create_app
from taluva.server.storage.store import Store


def test_a_started_server_is_alive_and_ready(tmp_path: Path) -> None:
    with client_for(sqlite_url(tmp_path)) as client:
        assert client.get("/healthz").json() == {"status": "alive"}
        ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {
        "ready": True,
        "checks": {
            "shutdown": "ok",
            "database": "ok",
            "migrations": "ok",
            "redis": "not used",
        },
    }


def test_a_schema_behind_the_code_is_not_ready(tmp_path: Path) -> None:
    database = sqlite_url(tmp_path)
    with client_for(database) as client:
        store = Store(database, game_end=None)
        with store.engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = '0001'"))
        store.close()
        ready = client.get("/readyz")
        assert client.get("/healthz").status_code == 200
    assert ready.status_code == 503
    assert ready.json()["checks"]["migrations"] == "not at head"


def test_a_stopping_server_is_alive_but_not_ready(tmp_path: Path) -> None:
    with client_for(sqlite_url(tmp_path)) as client:
        client.app.state.site.stopping = True  # type: ignore[attr-defined]
        ready = client.get("/readyz")
        assert client.get("/healthz").status_code == 200
    assert ready.status_code == 503
    assert ready.json()["checks"]["shutdown"] == "stopping"


def test_readiness_follows_redis(tmp_path: Path) -> None:
    with ExitStack() as outer:
        with ExitStack() as redis:
            url = redis.enter_context(redis_server())
            settings = Settings(database=sqlite_url(tmp_path), ai_workers=0, redis=url)
            client = outer.enter_context(TestClient(create_app(settings)))
            assert client.get("/readyz").json()["checks"]["redis"] == "ok"
        # Redis is gone now; the process still lives
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["checks"]["redis"] == "unreachable"
        assert client.get("/healthz").status_code == 200
