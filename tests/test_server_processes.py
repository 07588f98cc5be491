"""``taluva serve`` as a real process: nothing it starts outlives it, however it dies, and the
address its limits count is not taken from an X-Forwarded-For that nobody trusted."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import httpx
import psutil
import pytest
from processes import alive, group_members
from test_server_support import free_port, sqlite_url, start_server


@pytest.mark.parametrize(
    "how", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=lambda how: how.name
)
def test_no_process_outlives_the_server(tmp_path: Path, how: signal.Signals) -> None:
    port = free_port()
    server = start_server(sqlite_url(tmp_path), port, "--ai-workers", "1", new_session=True)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            seats = [{"kind": "ai", "level": 1}, {"kind": "human", "take": True}]
            game_id = http.post("/api/games", json={"seats": seats}).json()["game"]["id"]
            deadline = time.monotonic() + 60
            while http.get(f"/api/games/{game_id}").json()["state"]["ply"] < 2:
                assert time.monotonic() < deadline, "the AI seat did not move"
                time.sleep(0.05)
        children = psutil.Process(server.pid).children(recursive=True)
        commands = [" ".join(child.cmdline()) for child in children]
        assert any("multiprocessing-fork" in command for command in commands), commands
        assert any("resource_tracker" in command for command in commands), commands
        server.send_signal(how)
        server.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(alive(child) for child in children) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [child.pid for child in children if alive(child)] == []
        assert group_members(server.pid) == []
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_the_real_server_reads_x_forwarded_for_only_from_a_trusted_proxy(tmp_path: Path) -> None:
    port = free_port()
    options = ("--games-per-minute", "1", "--forwarded-allow-ips", "127.0.0.2")
    server = start_server(sqlite_url(tmp_path), port, *options)
    seats = {"seats": [{"kind": "human"}] * 2}

    def codes(source: str, forwarded: list[str]) -> list[int]:
        transport = httpx.HTTPTransport(local_address=source)
        with httpx.Client(
            base_url=f"http://127.0.0.1:{port}", transport=transport, timeout=30
        ) as http:
            return [
                http.post("/api/games", json=seats, headers={"x-forwarded-for": f}).status_code
                for f in forwarded
            ]

    try:
        assert codes("127.0.0.1", ["203.0.113.1", "203.0.113.2"]) == [201, 429]
        assert codes("127.0.0.2", ["203.0.113.1", "203.0.113.2", "203.0.113.1"]) == [
            201,
            201,
            429,
        ]
    finally:
        server.terminate()
        server.wait(timeout=30)
