"""The per-address limits of the deploy site (``deploy/nginx/taluva.conf``) hold for the whole
club, however many server processes stand behind it: each process limits only the
addresses it sees, so without the site one address would get every limit once per process.

Two real server processes on one SQLite file (the limits do not depend on the storage, and
either process finds every game there) behind Debian's nginx with the site, its ports
changed to the test's. A refusal is nginx's (its message is the site's, not a process's).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

import httpx
import pytest
from test_server_cluster import nginx_in_front
from test_server_support import free_port, start_server
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

HUMAN_SEATS = [{"kind": "human", "take": True}, {"kind": "human"}]


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    """nginx's URL and the two processes' own URLs (shared by the tests: each spends its own
    limit, new games or connections)."""
    folder = tmp_path_factory.mktemp("deploy-limits")
    ports = [free_port(), free_port()]
    database = f"sqlite:///{folder / 'games.sqlite3'}"
    with ExitStack() as stack:
        first = start_server(database, ports[0], "--forwarded-allow-ips", "127.0.0.1")
        stack.callback(first.wait, 10)
        stack.callback(first.terminate)
        # the second starts while nginx does (the schema is the first one's by then)
        with ThreadPoolExecutor(1) as pool:
            second = pool.submit(
                start_server, database, ports[1], "--forwarded-allow-ips", "127.0.0.1"
            )
            (folder / "nginx").mkdir()
            port = stack.enter_context(nginx_in_front(ports, folder / "nginx"))
            process = second.result()
        stack.callback(process.wait, 10)
        stack.callback(process.terminate)
        yield f"127.0.0.1:{port}", [f"127.0.0.1:{p}" for p in ports]


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
    url, processes = front
    # made on a process directly: nginx's limit of new games is another test's
    game = httpx.post(f"http://{processes[0]}/api/games", json={"seats": HUMAN_SEATS}).json()[
        "game"
    ]
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


def test_the_metrics_answer_each_process_but_not_through_the_site(
    front: tuple[str, list[str]],
) -> None:
    url, processes = front
    assert httpx.get(f"http://{url}/metrics").status_code == 403
    for process in processes:
        scraped = httpx.get(f"http://{process}/metrics")
        assert scraped.status_code == 200 and "taluva_moves_total" in scraped.text
