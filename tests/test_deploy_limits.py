"""The per-address limits of the deploy site (``deploy/nginx/taluva.conf``) hold for the whole
club, however many server processes stand behind it: each process limits only the
addresses it sees, so without the site one address would get every limit once per process.

Two real server processes on one SQLite file (the limits do not depend on the storage, and
either process finds every game there) behind Debian's nginx with the site, its ports
changed to the test's. A refusal is nginx's (its message is the site's, not a process's).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from test_server_cluster import nginx_in_front
from test_server_support import free_port, start_server
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

HUMAN_SEATS = [{"kind": "human", "take": True}, {"kind": "human"}]


@pytest.fixture
def front(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """nginx's URL and the two processes' own URLs."""
    ports = [free_port(), free_port()]
    with ExitStack() as stack:
        for port in ports:
            process = start_server(
                f"sqlite:///{tmp_path / 'games.sqlite3'}",
                port,
                "--forwarded-allow-ips",
                "127.0.0.1",
            )
            stack.callback(process.wait, 10)
            stack.callback(process.terminate)
        nginx = tmp_path / "nginx"
        nginx.mkdir()
        port = stack.enter_context(nginx_in_front(ports, nginx))
        yield f"127.0.0.1:{port}", [f"127.0.0.1:{p}" for p in ports]
    shutil.rmtree(tmp_path / "nginx", ignore_errors=True)


def test_one_address_creates_twenty_games_a_minute_across_both_processes(
    front: tuple[str, list[str]],
) -> None:
    url, _processes = front
    with httpx.Client(base_url=f"http://{url}", timeout=10) as client:
        answers = [client.post("/api/games", json={"seats": HUMAN_SEATS}) for _ in range(30)]
        assert client.get("/api/games").status_code == 200  # the lobby is not limited
    codes = [answer.status_code for answer in answers]
    assert codes == [201] * 20 + [429] * 10
    assert answers[-1].json() == {
        "error": {
            "code": "rate-limited",
            "message": "too many connections or new games from this address: "
            "wait a minute and try again",
        }
    }
    assert answers[-1].headers["retry-after"] == "60"


def test_one_address_holds_thirty_two_websockets_across_both_processes(
    front: tuple[str, list[str]],
) -> None:
    url, _processes = front
    game = httpx.post(f"http://{url}/api/games", json={"seats": HUMAN_SEATS}).json()["game"]
    address = f"ws://{url}/ws/games/{game['id']}"
    with ExitStack() as stack:
        sockets: list[ClientConnection] = []
        refused = []
        for _ in range(40):
            try:
                sockets.append(stack.enter_context(connect(address, open_timeout=10)))
            except InvalidStatus as error:
                refused.append(error.response.status_code)
        assert (len(sockets), refused) == (32, [429] * 8)
        sockets.pop().close()
        # once nginx has seen it close, the freed place takes a new socket
        deadline = time.monotonic() + 10
        while len(sockets) < 32 and time.monotonic() < deadline:
            try:
                sockets.append(stack.enter_context(connect(address, open_timeout=10)))
            except InvalidStatus:
                time.sleep(0.1)
        assert len(sockets) == 32
