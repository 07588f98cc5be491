"""Load test of the game server: many simultaneous games of scripted clients over WebSockets.

Starts ``taluva serve`` on loopback with a fresh SQLite database (or ``--database``), creates
``--games`` hot-seat games over HTTP, then every game's client plays random legal moves
as fast as the server answers, for ``--seconds``. A finished game is replaced by a new one,
so the number of simultaneous games stays constant. Reports moves per second and the
latency from sending a move to receiving its broadcast (p50, p99, max), with the core
count; the clients run on the same machine and share its cores with the server.

The server it starts has its per-address limits lifted (every client shares 127.0.0.1),
unless ``--default-limits``. Against limits, a refused client backs off and tries again:
a 429 for a new game waits its ``Retry-After``, a socket closed as one too many (4429) or a
``rate-limited`` move waits a growing delay; the report counts each kind.

``--think SECONDS`` paces the players: each waits that long on average (exponentially
spread) before each move, so the server gets an even load of games / SECONDS moves a second
and the latency is the server's answer time at that load, not the queue of a server always
at full speed.

Only what happens once every client has its first game counts: creating the games and
opening the sockets comes first, then the ``--seconds`` of play are measured.

``--servers 1,2`` measures the server as one process and then as two processes sharing one
PostgreSQL and one Redis (``taluva serve --redis``), which the bench starts itself (Debian's
PostgreSQL and redis-server, in a temporary folder) unless ``--database`` names one. With
two processes each game is played through one process and watched by a spectator on the
other, and the report adds the latency from sending a move to the spectator's broadcast.

``--servers`` with ``--against REV`` measures REV before the working tree at each count, and
counts the "missed a change" warnings each run's servers logged.

``--against REV`` measures an earlier commit in the same run: REV's ``src`` is exported
with ``git archive`` into a temporary folder and its server started with ``PYTHONPATH``
there; the two servers take turns (REV, then the working tree, ``--rounds`` times), each on
a fresh database with the same load, and the report gives both and their ratios.

    .venv/bin/python bench/server_load.py                 # 200 games for 20 s
    .venv/bin/python bench/server_load.py --games 50 --seconds 5
    .venv/bin/python bench/server_load.py --games 50 --seconds 5 --default-limits
    .venv/bin/python bench/server_load.py --games 200 --seconds 12 --against HEAD~3
    .venv/bin/python bench/server_load.py --games 200 --think 0.5 --against HEAD~3
    .venv/bin/python bench/server_load.py --games 1000 --seconds 20 --servers 1,2
    .venv/bin/python bench/server_load.py --games 200 --seconds 20 --servers 1,2 --against HEAD
    .venv/bin/python bench/server_load.py --url http://127.0.0.1:8080 --games 50 --think 0.5

``--url URL`` drives a cluster that is already running, through any address (its nginx, or
one process): the clients reconnect whenever the server side closes their socket (a
restart), and the report adds what a player would have seen: HTTP errors (answers of 500 and
more, lost connections, failed WebSocket handshakes), WebSocket reconnects by close code, and
lost moves, moves confirmed to a client (their broadcast arrived) that the game's record does
not hold afterwards. ``bench/rolling_restart.py`` uses it while restarting every process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

BACKOFF_FIRST = 0.05
BACKOFF_MOST = 5.0
OPEN_LIMITS = [
    "--ws-rate",
    "100000",
    "--http-rate",
    "100000",
    "--games-per-minute",
    "1000000",
    "--ws-per-address",
    "100000",
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_server(
    database: str,
    port: int,
    limits: list[str],
    source: Path | None = None,
    redis: str | None = None,
) -> subprocess.Popen[str]:
    """Run the server as its own process with the options ``limits`` (from the package in
    ``source``, a folder holding ``taluva``, if given); return once uvicorn listens."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "taluva",
            "serve",
            "--port",
            str(port),
            "--database",
            database,
            "--ai-workers",
            "0",
            *limits,
            *(["--redis", redis] if redis else []),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=source or None,
    )
    assert process.stderr is not None
    for line in process.stderr:
        if "Uvicorn running on" in line:
            # Keep reading its log so a chatty server never blocks on a full pipe.
            threading.Thread(target=count_missed, args=(process.stderr,), daemon=True).start()
            return process
    raise SystemExit("the server did not start:\n" + (process.stderr.read() or ""))


MISSED: list[int] = [0]
"""How many times the servers started so far logged that a game had missed a change made by
another process (each one a game read again from the database)."""


def count_missed(log: Any) -> None:
    """Read a server's log to its end, counting its "missed a change" warnings."""
    for line in log:
        if "missed a change" in line:
            MISSED[0] += 1


def export_path(revision: str, folder: Path, path: str, option: str = "--against") -> Path:
    """Write ``path`` (a folder of the repository) as it is at a git revision under
    ``folder``; return where it landed. ``option`` names the revision's option in errors."""
    root = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True
    ).stdout.strip()
    commit = subprocess.run(
        ["git", "-C", root, "rev-parse", "--verify", f"{revision}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if commit.returncode != 0:
        raise SystemExit(f"{option} {revision}: not a commit ({commit.stderr.strip()})")
    archive = subprocess.Popen(
        ["git", "-C", root, "archive", commit.stdout.strip(), path], stdout=subprocess.PIPE
    )
    subprocess.run(["tar", "-x", "-C", str(folder)], stdin=archive.stdout, check=True)
    assert archive.stdout is not None
    archive.stdout.close()
    if archive.wait() != 0:
        raise SystemExit(f"git archive {revision} failed")
    return folder / path


def export_source(revision: str, folder: Path, option: str = "--against") -> Path:
    """Write the ``src`` folder of a git revision under ``folder``; return the path that
    holds its ``taluva`` package."""
    return export_path(revision, folder, "src", option)


def postgres_programs() -> Path:
    """The folder of Debian's PostgreSQL server programs."""
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / "initdb").exists():
            return folder
    raise SystemExit("PostgreSQL is not installed: run scripts/ci-system-deps.sh")


def as_postgres(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextlib.contextmanager
def postgres_and_redis() -> Any:
    """A throwaway PostgreSQL cluster and Redis on loopback; yields their URLs."""
    programs = postgres_programs()
    redis_program = shutil.which("redis-server")
    if redis_program is None:
        raise SystemExit("redis-server is not installed: run scripts/ci-system-deps.sh")
    folder = Path(tempfile.mkdtemp(prefix="taluva-bench-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    data, pg_port, redis_port = folder / "data", free_port(), free_port()
    subprocess.run(
        [
            *as_postgres([str(programs / "initdb"), "-D", str(data), "-U", "postgres"]),
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8",
        ],
        check=True,
        capture_output=True,
    )
    options = f"-h 127.0.0.1 -p {pg_port} -k {folder} -c max_connections=200"
    subprocess.run(
        [
            *as_postgres([str(programs / "pg_ctl"), "-D", str(data), "-o", options]),
            "-l",
            str(folder / "log"),
            "-w",
            "start",
        ],
        check=True,
        capture_output=True,
    )
    redis = subprocess.Popen(
        [
            redis_program,
            "--port",
            str(redis_port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        yield (
            f"postgresql+psycopg://postgres@127.0.0.1:{pg_port}/postgres",
            f"redis://127.0.0.1:{redis_port}/0",
        )
    finally:
        redis.kill()
        redis.wait()
        subprocess.run(
            as_postgres([str(programs / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
            capture_output=True,
        )
        shutil.rmtree(folder, ignore_errors=True)


def fresh_database(server: str, name: str) -> str:
    """A new, empty database ``name`` on the PostgreSQL at ``server``; its URL."""
    from sqlalchemy import create_engine, text

    engine = create_engine(server, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return server.rsplit("/", 1)[0] + f"/{name}"


class Watcher:
    """A spectator of one game on another server process: when did each move reach it."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.waiting: dict[int, asyncio.Future[float]] = {}

    def expect(self, ply: int) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[ply] = future
        return future

    async def run(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in self.ws:
                message = json.loads(raw)
                if message.get("type") == "move":
                    future = self.waiting.pop(message["ply"], None)
                    if future is not None and not future.done():
                        future.set_result(time.perf_counter())


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process, from /proc (0 where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


class Totals:
    """What all the clients measured together."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.remote_latencies: list[float] = []
        """Sending a move to its broadcast reaching a spectator on another process."""
        self.missed_remote = 0
        self.finished = 0
        self.errors: list[str] = []
        self.http_429 = 0
        self.sockets_refused = 0
        self.moves_limited = 0
        self.dropped = 0
        """Game creations whose connection the server dropped (retried)."""
        self.client_cpu = 0.0


class Window:
    """The measured part of a run: it opens once every client has its first game on
    screen (creating a thousand games is not what is measured) and lasts ``seconds``."""

    def __init__(self, games: int, seconds: float, pids: list[int]) -> None:
        self.games = games
        self.seconds = seconds
        self.pids = pids
        self.ready = 0
        self.start: float | None = None
        self.deadline = float("inf")
        self.client_cpu = 0.0
        self.server_cpu = 0.0

    def arrived(self) -> None:
        self.ready += 1
        if self.ready == self.games:
            self.start = time.perf_counter()
            self.deadline = self.start + self.seconds
            self.client_cpu = time.process_time()
            self.server_cpu = sum(cpu_seconds(pid) for pid in self.pids)

    def close(self) -> tuple[float, float]:
        """The CPU seconds the clients and the servers used while the window was open."""
        return (
            time.process_time() - self.client_cpu,
            sum(cpu_seconds(pid) for pid in self.pids) - self.server_cpu,
        )

    @property
    def open(self) -> bool:
        return self.start is not None


class Backoff:
    """A delay that doubles at each refusal (with jitter) and starts over after a success;
    no wait goes past the deadline."""

    def __init__(self, rng: random.Random, window: Window) -> None:
        self.rng = rng
        self.window = window
        self.delay = BACKOFF_FIRST

    async def wait(self, at_least: float = 0.0) -> None:
        delay = max(at_least, self.delay * (0.5 + self.rng.random()))
        await asyncio.sleep(min(delay, max(0.0, self.window.deadline - time.perf_counter())))
        self.delay = min(self.delay * 2, BACKOFF_MOST)

    def reset(self) -> None:
        self.delay = BACKOFF_FIRST


async def new_game(
    http: httpx.AsyncClient,
    number: int,
    window: Window,
    totals: Totals,
    backoff: Backoff,
    ledger: Ledger | None = None,
) -> tuple[str, list[str]] | None:
    """A new hot-seat game, waiting out 429s and dropped connections (counted); None if
    the deadline passes first. With a ``ledger`` (a cluster driven through ``--url``), an
    answer of 500 or more is noted there and tried again."""
    human = {"kind": "human", "take": True}
    while time.perf_counter() < window.deadline:
        try:
            response = await http.post(
                "/api/games", json={"name": f"load {number}", "seats": [human, human]}
            )
        except httpx.TransportError as error:
            totals.dropped += 1
            if ledger is not None:
                ledger.http_errors.append(f"POST /api/games: {type(error).__name__}")
            await backoff.wait()
            continue
        if response.status_code == 429:
            totals.http_429 += 1
            await backoff.wait(float(response.headers.get("retry-after", "1")))
            continue
        if ledger is not None and response.status_code >= 500:
            ledger.http_errors.append(f"POST /api/games: {response.status_code}")
            await backoff.wait()
            continue
        response.raise_for_status()
        backoff.reset()
        body = response.json()
        return body["game"]["id"], [t["token"] for t in body["tokens"]]
    return None


async def play(
    bases: list[str],
    https: list[httpx.AsyncClient],
    number: int,
    window: Window,
    totals: Totals,
    think: float = 0.0,
    routed: bool = False,
) -> None:
    """One scripted client: play random legal moves until the deadline, game after game,
    through server ``bases[number % len(bases)]``, watched from the next one if any; with
    ``think``, wait that many seconds on average (exponentially spread) before each move.
    ``routed``: each game created through the servers in turn and played through the one its
    id picks (as nginx's hash does), unwatched."""
    base = bases[number % len(bases)]
    watched = bases[(number + 1) % len(bases)] if len(bases) > 1 and not routed else None
    http = https[number % len(https)] if routed else https[0]
    rng = random.Random(number)
    backoff = Backoff(rng, window)
    arrived = False
    game: tuple[str, list[str]] | None = None
    while time.perf_counter() < window.deadline:
        game = game or await new_game(http, number, window, totals, backoff)
        if game is None:
            return
        game_id, tokens = game
        if routed:
            base = bases[zlib.crc32(game_id.encode()) % len(bases)]
        async with contextlib.AsyncExitStack() as stack:
            ws = await stack.enter_async_context(
                connect(f"ws://{base}/ws/games/{game_id}", max_size=2**22, open_timeout=120)
            )
            watcher = None
            if watched is not None:
                spectator = await stack.enter_async_context(
                    connect(f"ws://{watched}/ws/games/{game_id}", max_size=2**22, open_timeout=120)
                )
                await spectator.send(json.dumps({"type": "hello", "tokens": []}))
                await spectator.recv()
                watcher = Watcher(spectator)
                watching = asyncio.get_running_loop().create_task(watcher.run())
                stack.callback(watching.cancel)
            with contextlib.suppress(ConnectionClosed):  # a refused socket may close first
                await ws.send(json.dumps({"type": "hello", "tokens": tokens}))
            welcome = json.loads(await ws.recv())
            if welcome["type"] == "error":
                if welcome["code"] != "too-many-connections":
                    totals.errors.append(welcome["message"])
                    return
                totals.sockets_refused += 1
                refused = True
            else:
                refused = False
                state = welcome["state"]
                backoff.reset()
                if not arrived:
                    arrived = True
                    window.arrived()
                while state["result"] is None and time.perf_counter() < window.deadline:
                    if think:
                        await asyncio.sleep(rng.expovariate(1 / think))
                    state = await play_move(ws, state, rng, totals, backoff, watcher, window)
                    if not state:
                        return
        if refused:
            await backoff.wait()
            continue
        if state["result"] is not None:
            totals.finished += 1
        game = None


async def play_move(
    ws: Any,
    state: dict[str, Any],
    rng: random.Random,
    totals: Totals,
    backoff: Backoff,
    watcher: Watcher | None = None,
    window: Window | None = None,
) -> dict[str, Any]:
    """Play one random legal move; the state after it, or {} after an error. With a
    ``watcher``, wait until the move reaches it too."""
    ply = state["ply"]
    move = rng.choice(state["legal"])
    while True:
        seen = watcher.expect(ply) if watcher is not None else None
        sent = time.perf_counter()
        await ws.send(json.dumps({"type": "move", "state": ply, "move": move}))
        message = json.loads(await ws.recv())
        while not (message["type"] == "move" and message["ply"] == ply):
            if message["type"] == "error":
                break
            message = json.loads(await ws.recv())
        if message["type"] == "move":
            counted = window is None or window.open
            if counted:
                totals.latencies.append(time.perf_counter() - sent)
            if seen is not None:
                try:
                    arrived = await asyncio.wait_for(seen, 10.0)
                    if counted:
                        totals.remote_latencies.append(arrived - sent)
                except TimeoutError:
                    totals.missed_remote += 1
            backoff.reset()
            new_state: dict[str, Any] = message["state"]
            return new_state
        if message["code"] != "rate-limited":
            totals.errors.append(message["message"])
            return {}
        totals.moves_limited += 1
        await backoff.wait()


class Ledger:
    """What the clients driving a cluster (``--url``) saw: every move confirmed to them (its
    broadcast arrived), game by game, and what went wrong on the way."""

    def __init__(self) -> None:
        self.confirmed: dict[str, dict[int, str]] = {}
        """Game id: ply: the move's text as its broadcast gave it."""
        self.http_errors: list[str] = []
        """HTTP answers of 500 and more, and requests whose connection was lost, WebSocket
        handshakes included: what a player would have seen fail."""
        self.reconnects = 0
        """WebSockets the server side closed (a restart: 1012) or refused after the handshake,
        each opened again."""
        self.closes: dict[str, int] = {}
        """How those sockets ended: close code (or ``refused:CODE``), how many."""
        self.landed_unseen = 0
        """Moves sent just before the socket closed whose broadcast never came, found played
        once the client reconnected."""
        self.resent = 0
        """Moves sent just before the socket closed that were not played, sent again."""
        self.refused_moves: list[str] = []
        self.lost: list[str] = []
        """Confirmed moves that the game's record does not hold afterwards."""
        self.checked_games = 0
        self.created = 0
        """Games the lobby clients (``--creators``) created."""


async def open_game_socket(
    ws_url: str, game_id: str, ledger: Ledger, backoff: Backoff
) -> Any | None:
    """A WebSocket to the game through ``ws_url``; None after a failed handshake (counted)."""
    try:
        return await connect(f"{ws_url}/ws/games/{game_id}", max_size=2**22, open_timeout=30)
    except InvalidStatus as error:
        ledger.http_errors.append(f"WebSocket handshake: {error.response.status_code}")
    except (OSError, TimeoutError, InvalidHandshake) as error:
        ledger.http_errors.append(f"WebSocket handshake: {type(error).__name__}: {error}")
    await backoff.wait()
    return None


async def drive(
    http_url: str,
    ws_url: str,
    http: httpx.AsyncClient,
    number: int,
    window: Window,
    totals: Totals,
    ledger: Ledger,
    think: float,
) -> None:
    """One scripted client of a cluster behind ``http_url``: plays random legal moves game
    after game until the deadline, opening its socket again whenever the server side closes
    it, and notes every move confirmed to it in ``ledger``."""
    rng = random.Random(number)
    backoff = Backoff(rng, window)
    arrived = False
    game: tuple[str, list[str]] | None = None
    while time.perf_counter() < window.deadline:
        game = game or await new_game(http, number, window, totals, backoff, ledger)
        if game is None:
            return
        game_id, tokens = game
        confirmed = ledger.confirmed.setdefault(game_id, {})
        pending: int | None = None  # the ply of a move sent and not yet seen broadcast
        while time.perf_counter() < window.deadline:
            ws = await open_game_socket(ws_url, game_id, ledger, backoff)
            if ws is None:
                continue
            try:
                await ws.send(json.dumps({"type": "hello", "tokens": tokens}))
                welcome = json.loads(await ws.recv())
                if welcome["type"] == "error":
                    code = f"refused:{welcome['code']}"
                    ledger.closes[code] = ledger.closes.get(code, 0) + 1
                    ledger.reconnects += 1
                    await backoff.wait()
                    continue
                state = welcome["state"]
                if pending is not None:
                    if state["ply"] > pending:
                        ledger.landed_unseen += 1
                    else:
                        ledger.resent += 1
                    pending = None
                backoff.reset()
                if not arrived:
                    arrived = True
                    window.arrived()
                while state["result"] is None and time.perf_counter() < window.deadline:
                    if think:
                        await asyncio.sleep(rng.expovariate(1 / think))
                    sent: list[int] = []
                    try:
                        answer = await send_move(ws, state, rng, totals, backoff, window, sent)
                    except ConnectionClosed:
                        pending = sent[0] if sent else None
                        raise
                    if "refused" in answer:
                        ledger.refused_moves.append(answer["refused"])
                        break  # open the socket again: a fresh state
                    confirmed[state["ply"]] = answer["move"]
                    state = answer["state"]
                if state["result"] is not None:
                    totals.finished += 1
                    game = None
                break
            except ConnectionClosed as closed:
                code = str(closed.rcvd.code if closed.rcvd else "none")
                ledger.closes[code] = ledger.closes.get(code, 0) + 1
                ledger.reconnects += 1
            finally:
                await ws.close()


async def send_move(
    ws: Any,
    state: dict[str, Any],
    rng: random.Random,
    totals: Totals,
    backoff: Backoff,
    window: Window,
    sent_plies: list[int],
) -> dict[str, Any]:
    """Play one random legal move: its broadcast (``move``, ``state``), or ``refused`` with
    the server's message. Rate limits are waited out; ConnectionClosed is the caller's, who
    finds the ply in ``sent_plies`` once the move has gone out (its answer may not come)."""
    ply = state["ply"]
    move = rng.choice(state["legal"])
    while True:
        sent = time.perf_counter()
        await ws.send(json.dumps({"type": "move", "state": ply, "move": move}))
        sent_plies[:] = [ply]
        message = json.loads(await ws.recv())
        while not (message["type"] == "move" and message["ply"] == ply):
            if message["type"] == "error":
                break
            message = json.loads(await ws.recv())
        if message["type"] == "move":
            if window.open:
                totals.latencies.append(time.perf_counter() - sent)
            backoff.reset()
            return {"move": message["move"], "state": message["state"]}
        if message["code"] != "rate-limited":
            return {"refused": f"{message['code']}: {message['message']}"}
        totals.moves_limited += 1
        await backoff.wait()


async def create_games(http: httpx.AsyncClient, window: Window, ledger: Ledger) -> None:
    """A lobby client that only creates games, one after another, until the deadline: a
    steady stream of POSTs, the requests a balancer may not simply send again."""
    human = {"kind": "human", "take": True}
    while time.perf_counter() < window.deadline:
        try:
            response = await http.post(
                "/api/games", json={"name": "lobby", "seats": [human, {"kind": "human"}]}
            )
        except httpx.TransportError as error:
            ledger.http_errors.append(f"POST /api/games: {type(error).__name__}")
            await asyncio.sleep(0.1)
            continue
        if response.status_code >= 500:
            ledger.http_errors.append(f"POST /api/games: {response.status_code}")
        elif response.status_code == 201:
            ledger.created += 1


async def check_records(http: httpx.AsyncClient, ledger: Ledger) -> None:
    """Count as lost each confirmed move that its game's record does not hold at its ply."""
    for game_id, moves in ledger.confirmed.items():
        if not moves:
            continue
        for _attempt in range(5):
            try:
                response = await http.get(f"/api/games/{game_id}/record")
                response.raise_for_status()
                break
            except httpx.HTTPError:
                await asyncio.sleep(1)
        else:
            ledger.lost.extend(f"{game_id} ply {ply}: record unreadable" for ply in moves)
            continue
        record = response.json()["moves"]
        ledger.checked_games += 1
        for ply, move in sorted(moves.items()):
            if ply >= len(record) or record[ply] != move:
                ledger.lost.append(f"{game_id} ply {ply}: {move!r} confirmed, not in the record")


async def drive_cluster(
    url: str, games: int, seconds: float, think: float, creators: int = 0
) -> tuple[Totals, Ledger, float]:
    """Play the load through ``url`` (any address of a running cluster: a balancer or one
    process), with ``creators`` lobby clients creating games meanwhile, then check every
    confirmed move against the records."""
    totals, ledger = Totals(), Ledger()
    window = Window(games, seconds, [])
    http_url = url.rstrip("/")
    ws_url = "ws" + http_url.removeprefix("http")  # http -> ws, https -> wss
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=http_url, limits=limits, timeout=60) as http:
        await asyncio.gather(
            *(
                drive(http_url, ws_url, http, n, window, totals, ledger, think)
                for n in range(games)
            ),
            *(create_games(http, window, ledger) for _ in range(creators)),
        )
        totals.client_cpu, _servers = window.close()
        await check_records(http, ledger)
    return totals, ledger, window.seconds if window.open else 0.0


def report_cluster(url: str, totals: Totals, ledger: Ledger, elapsed: float, games: int) -> None:
    """Print what driving a running cluster found: the load, then what a player saw fail."""
    report(Measured(f"cluster at {url}", totals, elapsed, None), games)
    confirmed = sum(len(moves) for moves in ledger.confirmed.values())
    closes = ", ".join(f"{code}: {count}" for code, count in sorted(ledger.closes.items()))
    if ledger.created:
        print(f"  games created by the lobby clients: {ledger.created}")
    print(f"  HTTP errors: {len(ledger.http_errors)}")
    for error in ledger.http_errors[:5]:
        print(f"    {error}")
    print(f"  WebSocket reconnects: {ledger.reconnects} ({closes or 'none'})")
    print(
        f"  moves in flight at a close: {ledger.landed_unseen} found played, "
        f"{ledger.resent} sent again; refused: {len(ledger.refused_moves)}"
    )
    for refusal in ledger.refused_moves[:5]:
        print(f"    {refusal}")
    print(
        f"  lost moves: {len(ledger.lost)} of {confirmed} confirmed "
        f"({ledger.checked_games} games' records checked)"
    )
    for lost in ledger.lost[:5]:
        print(f"    {lost}")


async def run(
    bases: list[str],
    games: int,
    seconds: float,
    pids: list[int] | None = None,
    think: float = 0.0,
    routed: bool = False,
) -> tuple[Totals, float, float]:
    """Play the load; the totals, the measured seconds and the servers' CPU seconds in them."""
    totals = Totals()
    limits = httpx.Limits(max_connections=64)
    window = Window(games, seconds, pids or [])
    async with contextlib.AsyncExitStack() as stack:
        https = [
            await stack.enter_async_context(
                httpx.AsyncClient(base_url=f"http://{base}", limits=limits, timeout=60)
            )
            for base in bases
        ]
        await asyncio.gather(
            *(play(bases, https, n, window, totals, think, routed) for n in range(games))
        )
    totals.client_cpu, server_cpu = window.close()
    return totals, window.seconds if window.open else 0.0, server_cpu


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


@dataclass
class Measured:
    """One server measured under the load."""

    label: str
    totals: Totals
    elapsed: float
    cpu: float | None  # CPU seconds of the server process, None for a given server

    @property
    def moves(self) -> int:
        return len(self.totals.latencies)

    @property
    def rate(self) -> float:
        return self.moves / self.elapsed if self.elapsed else 0.0


def measure(
    label: str,
    args: argparse.Namespace,
    source: Path | None = None,
    database: str | None = None,
    redis: str | None = None,
    servers: int = 1,
) -> Measured:
    """Start ``servers`` server processes (from ``source`` if given) on a fresh database,
    load them, stop them."""
    folder = Path(tempfile.mkdtemp(prefix="taluva-bench-"))
    database = database or args.database or f"sqlite:///{folder / 'games.sqlite3'}"
    ports = [free_port() for _ in range(servers)]
    limits = [] if args.default_limits else OPEN_LIMITS
    processes = []
    for port in ports:  # one at a time: the first creates the schema
        processes.append(start_server(database, port, limits, source, redis))
    try:
        bases = [f"127.0.0.1:{port}" for port in ports]
        pids = [process.pid for process in processes]
        totals, elapsed, cpu_used = asyncio.run(
            run(bases, args.games, args.seconds, pids, args.think, args.routed)
        )
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)
    return Measured(label, totals, elapsed, cpu_used)


def report(result: Measured, games: int) -> None:
    """Print what one measurement found."""
    totals, elapsed = result.totals, result.elapsed
    moves = result.moves
    print(
        f"[{result.label}] {games} simultaneous games for {elapsed:.1f} s: {moves} moves, "
        f"{totals.finished} games finished, {len(totals.errors)} errors"
    )
    if totals.dropped:
        print(f"  {totals.dropped} game creations lost their connection and were tried again")
    if totals.http_429 or totals.sockets_refused or totals.moves_limited:
        print(
            f"  rate limited (backed off and retried): {totals.http_429} HTTP 429s, "
            f"{totals.sockets_refused} sockets refused, {totals.moves_limited} moves rate-limited"
        )
    if moves:
        cpu = (
            f" (server process used {result.cpu:.1f} s of CPU, {result.cpu / elapsed:.0%} of a"
            f" core: {result.cpu / moves * 1000:.2f} ms of CPU per move)"
            if result.cpu is not None
            else ""
        )
        print(f"  throughput: {result.rate:.0f} moves/s{cpu}")
        print(
            f"  the clients (this process) used {totals.client_cpu:.1f} s of CPU,"
            f" {totals.client_cpu / elapsed:.0%} of a core"
        )
        print(
            "  latency submit -> broadcast: "
            f"p50 {percentile(totals.latencies, 0.50) * 1000:.1f} ms, "
            f"p99 {percentile(totals.latencies, 0.99) * 1000:.1f} ms, "
            f"max {max(totals.latencies) * 1000:.1f} ms, "
            f"mean {statistics.fmean(totals.latencies) * 1000:.1f} ms"
        )
    if totals.remote_latencies or totals.missed_remote:
        remote = totals.remote_latencies or [float("nan")]
        print(
            "  latency submit -> broadcast on the other process: "
            f"p50 {percentile(remote, 0.50) * 1000:.1f} ms, "
            f"p99 {percentile(remote, 0.99) * 1000:.1f} ms, "
            f"max {max(remote) * 1000:.1f} ms ({totals.missed_remote} not seen within 10 s)"
        )
    for error in totals.errors[:5]:
        print(f"  error: {error}")


def combined(label: str, results: list[Measured]) -> dict[str, float]:
    """Moves/s, latency percentiles (ms) and server CPU per move over several runs."""
    latencies = [value for result in results for value in result.totals.latencies]
    moves = len(latencies)
    elapsed = sum(result.elapsed for result in results)
    cpu = sum(result.cpu or 0.0 for result in results)
    if not moves:
        return {"moves/s": 0.0, "p50": 0.0, "p99": 0.0, "max": 0.0, "cpu": 0.0}
    return {
        "moves/s": moves / elapsed,
        "p50": percentile(latencies, 0.50) * 1000,
        "p99": percentile(latencies, 0.99) * 1000,
        "max": max(latencies) * 1000,
        "cpu": cpu / moves * 1000,
    }


def compare(base: list[Measured], current: list[Measured], revision: str) -> None:
    """Print the side-by-side table of both servers and the ratios current / base."""
    before = combined(revision, base)
    after = combined("current", current)
    rows = [
        ("moves/s", "moves/s", "{:.0f}"),
        ("p50 submit->broadcast (ms)", "p50", "{:.1f}"),
        ("p99 submit->broadcast (ms)", "p99", "{:.1f}"),
        ("max submit->broadcast (ms)", "max", "{:.1f}"),
        ("server CPU per move (ms)", "cpu", "{:.2f}"),
    ]
    print()
    print(f"| measure (all rounds) | {revision} | working tree | ratio |")
    print("|---|---:|---:|---:|")
    for title, key, shape in rows:
        ratio = after[key] / before[key] if before[key] else float("nan")
        cells = [title, shape.format(before[key]), shape.format(after[key]), f"{ratio:.2f}x"]
        print("| " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="simultaneous games (200)")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to play (20)")
    parser.add_argument("--database", help="SQLAlchemy URL (default: a fresh SQLite file)")
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="each game's player waits this long on average before each move, so the load is "
        "games / SECONDS moves a second (default 0: as fast as the server answers)",
    )
    parser.add_argument(
        "--server", metavar="HOST:PORT", help="use a server already running there instead"
    )
    parser.add_argument(
        "--url",
        metavar="URL",
        help="drive a running cluster through this address (http://HOST:PORT, e.g. its nginx; "
        "WebSockets at the same address), reconnecting when a socket closes, and count HTTP "
        "errors, reconnects and lost moves (confirmed, then missing from the game's record); "
        "exits with 1 if there were any errors or lost moves",
    )
    parser.add_argument(
        "--creators",
        type=int,
        default=0,
        metavar="N",
        help="with --url: also N lobby clients that do nothing but create games, one after "
        "another: a stream of POSTs (default 0)",
    )
    parser.add_argument(
        "--default-limits",
        action="store_true",
        help="start the server with its default per-address limits (expect 429s)",
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        help="also measure the server of git revision REV, taking turns with the working tree",
    )
    parser.add_argument(
        "--rounds", type=int, default=2, help="turns each server takes with --against (2)"
    )
    parser.add_argument(
        "--servers",
        metavar="N[,N...]",
        help="measure with N server processes on one PostgreSQL and one Redis, for each N "
        "listed in turn (e.g. 1,2); started by the bench unless --database is given",
    )
    parser.add_argument(
        "--routed",
        action="store_true",
        help="with --servers: create games through the processes in turn and play each "
        "through the one its id picks, as nginx's hash does, with no spectator elsewhere",
    )
    args = parser.parse_args()
    if args.routed and not args.servers:
        parser.error("--routed goes with --servers")
    if args.url:
        if not args.url.startswith(("http://", "https://")):
            parser.error(f"--url {args.url!r}: expected http://HOST:PORT or https://...")
        if args.servers or args.against or args.server or args.database:
            parser.error("--url drives a running cluster: leave out the options that start one")
        if not 1 <= args.games <= 2000 or not 0 < args.seconds <= 600:
            parser.error("--games must be 1-2000 and --seconds 0-600")
        if not 0 <= args.creators <= 100:
            parser.error("--creators must be 0-100")
        sys.exit(cluster_at(args.url, args.games, args.seconds, args.think, args.creators))
    if args.servers:
        try:
            counts = [int(part) for part in args.servers.split(",")]
        except ValueError:
            parser.error(f"--servers {args.servers!r}: expected numbers such as 1,2")
        if not all(1 <= count <= 8 for count in counts):
            parser.error("--servers: each count must be 1-8")
        if args.server:
            parser.error("--servers starts its own servers: leave out --server")
        if args.database and not args.database.startswith("postgresql"):
            parser.error("--servers needs a PostgreSQL --database (or none: the bench starts one)")
        multi_server(args, counts)
        return
    if not 1 <= args.games <= 2000 or not 0 < args.seconds <= 600:
        parser.error("--games must be 1-2000 and --seconds 0-600")
    if args.against and args.server:
        parser.error("--against starts both servers itself: leave out --server")
    if not 0 <= args.think <= 60:
        parser.error("--think must be 0-60 seconds")
    if not 1 <= args.rounds <= 10:
        parser.error("--rounds must be 1-10")
    if args.database and args.against and not args.database.startswith("sqlite"):
        print("note: both servers share the --database; each run adds its own games to it")
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    database = "that of the given server" if args.server else (args.database or "sqlite")
    print(
        f"machine: {os.cpu_count()} cores (load average {load}), "
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"database {database.split(':', 1)[0]}"
    )
    if args.server:
        host = args.server.split(":")[0]
        if host not in ("127.0.0.1", "localhost", "[::1]"):
            parser.error("--server must be on loopback (127.0.0.1 or localhost)")
        totals, elapsed, _cpu = asyncio.run(
            run([args.server], args.games, args.seconds, None, args.think)
        )
        report(Measured("given server", totals, elapsed, None), args.games)
        return
    if not args.against:
        report(measure("working tree", args), args.games)
        return
    with tempfile.TemporaryDirectory(prefix="taluva-against-") as folder:
        source = export_source(args.against, Path(folder))
        base: list[Measured] = []
        current: list[Measured] = []
        for round_number in range(1, args.rounds + 1):
            for label, runs, where in (
                (args.against, base, source),
                ("working tree", current, None),
            ):
                result = measure(f"round {round_number}, {label}", args, where)
                report(result, args.games)
                runs.append(result)
        compare(base, current, args.against)


def cluster_at(url: str, games: int, seconds: float, think: float, creators: int = 0) -> int:
    """Drive the cluster at ``url`` and report; 1 if a player saw an error or a move was lost."""
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(
        f"machine: {os.cpu_count()} cores (load average {load}); driving {url} with {games} "
        f"games for {seconds:g} s" + (f", {think:g} s thinking per move" if think else ""),
        flush=True,
    )
    totals, ledger, elapsed = asyncio.run(drive_cluster(url, games, seconds, think, creators))
    report_cluster(url, totals, ledger, elapsed, games)
    sys.stdout.flush()
    return 1 if ledger.http_errors or ledger.lost or totals.errors else 0


def multi_server(args: argparse.Namespace, counts: list[int]) -> None:
    """Measure the working tree (and, with ``--against``, that revision before it each time)
    with each count of server processes on PostgreSQL + Redis, a fresh database each, and
    print them side by side with the "missed a change" warnings the servers logged."""
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"machine: {os.cpu_count()} cores (load average {load}), database postgresql + redis")
    with postgres_and_redis() as (server, redis), tempfile.TemporaryDirectory() as folder:
        sides: list[tuple[str, Path | None]] = [("working tree", None)]
        if args.against:
            sides.insert(0, (args.against, export_source(args.against, Path(folder))))
        results = []
        for count in counts:
            for label, source in sides:
                database = fresh_database(args.database or server, f"bench_{len(results)}")
                missed = MISSED[0]
                name = f"{count} server process(es), {label}" + (", routed" if args.routed else "")
                result = measure(name, args, source, database, redis, count)
                report(result, args.games)
                results.append((count, label, result, MISSED[0] - missed))
    print()
    print(
        "| server processes | server | moves/s | p50 (ms) | p99 (ms) "
        "| p99 to the other process (ms) | server CPU per move (ms) | 'missed a change' |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for count, label, result, missed in results:
        figures = combined(str(count), [result])
        remote = result.totals.remote_latencies
        other = f"{percentile(remote, 0.99) * 1000:.1f}" if remote else "-"
        print(
            f"| {count} | {label} | {figures['moves/s']:.0f} | {figures['p50']:.1f} | "
            f"{figures['p99']:.1f} | {other} | {figures['cpu']:.2f} | {missed} |"
        )


if __name__ == "__main__":
    main()
