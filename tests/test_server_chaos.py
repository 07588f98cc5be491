"""Chaos: two ``taluva serve`` processes on one PostgreSQL and one Redis, one ``taluva
ai-worker``, and games between scripted people and against an AI seat played through both
processes, while a server and the worker are killed with SIGKILL (and started again, as
systemd does), Redis is restarted empty and PostgreSQL is stopped for a few seconds. Every
game still ends, no move a client saw confirmed is missing from its record, and no AI turn
waits longer than the faults it overlapped plus ``GRACE``."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import redis
from postgres import POSTGRES, Postgres
from test_server_reconcile import Redis
from test_server_support import free_port
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from taluva.server.ai.queue import HUMAN_JOBS, WORKERS

pytestmark = pytest.mark.skipif(POSTGRES is None, reason="PostgreSQL is not installed")

GRACE = 10.0
"""Seconds an AI turn may wait beyond the faults it overlapped (the issue's bound)."""
HUNG = 60.0
"""Seconds after which a wait is taken to hang: only stops a broken test, never a slow one."""
PEOPLE_TABLES = 3
"""Tables where two scripted people play each other, one game after another."""
AI_TABLES = 3
"""Tables where a scripted person plays a level 1 AI seat, one game after another."""
SETTLE = 3.0
"""Seconds of play before the first fault and between two faults."""
POSTGRES_DOWN = 5.0
"""Seconds PostgreSQL stays stopped."""
REDIS_DOWN = 2.0
"""Seconds Redis stays stopped: the AI turns that come due meanwhile cannot be queued, and
it comes back empty."""
THINK = 0.15
"""A scripted person's mean pause before a move (spreads each game over the faults)."""
RETRY = 0.3
"""Seconds a client waits before trying again after a refusal or a lost connection."""
OPEN_LIMITS = (
    *("--ws-rate", "100000", "--http-rate", "100000"),
    *("--games-per-minute", "100000", "--ws-per-address", "100000"),
)
"""Every client shares 127.0.0.1: the per-address limits are lifted."""
HUMAN = {"kind": "human", "take": True}
RECOVERIES = (
    "had no live job: asked again",
    "kept for later",
    "took over job",
    "groups were lost with Redis's data",
    "cannot reconcile the games",
)
"""Log lines of the servers and the worker that show how they recovered, counted in the
figures."""


class Service:
    """A command run as its own process group that can be killed with SIGKILL and started
    again on the same port; every incarnation's output is kept in ``log``."""

    def __init__(self, name: str, command: list[str], ready: Callable[[list[str]], bool]) -> None:
        self.name = name
        self.command = command
        self.ready = ready
        self.log: list[str] = []
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        """Start it and return once ``ready`` says it serves, given what this incarnation has
        written so far (AssertionError if it does not)."""
        self.log.append(f"--- {self.name} started\n")
        began = len(self.log)
        self.process = subprocess.Popen(
            self.command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            start_new_session=True,
        )
        assert self.process.stdout is not None
        threading.Thread(target=self.log.extend, args=(self.process.stdout,), daemon=True).start()
        deadline = time.monotonic() + HUNG
        while not self.ready(self.log[began:]):
            assert self.process.poll() is None, f"{self.name} exited:\n" + "".join(self.log)
            assert time.monotonic() < deadline, f"{self.name} not ready:\n" + "".join(self.log)
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL to the whole process group (a worker's children die with it)."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.log.append(f"--- {self.name} killed with SIGKILL\n")

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def server(database: str, redis_url: str, number: int) -> tuple[Service, str]:
    """A ``taluva serve --redis`` process on a port of its own; it and its address."""
    port = free_port()
    base = f"127.0.0.1:{port}"

    def ready(_output: list[str]) -> bool:
        try:
            return httpx.get(f"http://{base}/readyz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    command = [sys.executable, "-m", "taluva", "serve", "--port", str(port)]
    command += ["--database", database, "--redis", redis_url, "--ai-workers", "0", *OPEN_LIMITS]
    return Service(f"server {number}", command, ready), base


def worker(redis_url: str) -> Service:
    """``taluva ai-worker`` with one worker process; ready once that process waits for jobs
    (the restart is over when turns can be played again)."""
    command = [sys.executable, "-m", "taluva", "ai-worker", "--redis", redis_url]
    return Service(
        "AI worker",
        [*command, "--processes", "1"],
        lambda output: any("waiting for jobs" in line for line in output),
    )


@dataclass
class Fault:
    """One fault: what, and when it began and ended (the service back), monotonic seconds."""

    what: str
    start: float
    end: float

    @property
    def length(self) -> float:
        return self.end - self.start


@dataclass
class AiWait:
    """An AI ply seen by the person's client: when the turn passed to the AI, when its
    move arrived."""

    game: str
    ply: int
    start: float
    end: float


@dataclass
class Tally:
    """What the clients saw, all games together."""

    confirmed: dict[str, dict[int, str]] = field(default_factory=dict)
    """Game: ply: the move a server's state said was played there."""
    conflicts: list[str] = field(default_factory=list)
    """A ply two confirmed states gave different moves."""
    games: dict[str, str] = field(default_factory=dict)
    """Game: its kind ("people" or "ai")."""
    errors: Counter[str] = field(default_factory=Counter)
    """What went wrong for the clients (all of it retried), by kind."""
    ai_waits: list[AiWait] = field(default_factory=list)
    waiting: dict[str, float] = field(default_factory=dict)
    """Game: since when its AI turn waits, for the AI plies not played yet."""
    sent: int = 0
    """Moves the people sent (a move sent again after a refusal counted once)."""
    last: dict[tuple[str, int | str], tuple[int, int, str]] = field(default_factory=dict)
    """For a stalled game's diagnosis: by game and seat, the ply, seat to move and message
    of the last state its client saw, and the process it came from (by game and process, the
    state that process gives at the end)."""

    def saw(self, game: str, state: dict[str, Any]) -> None:
        """Note the moves a state shows played, and any that differs from one seen before."""
        plies = self.confirmed.setdefault(game, {})
        for ply, move in enumerate(state["moves"]):
            if plies.setdefault(ply, move) != move:
                self.conflicts.append(f"{game} ply {ply}: {plies[ply]!r} then {move!r}")


async def post_game(
    http: httpx.AsyncClient, bases: list[str], seats: list[Any], tally: Tally
) -> Any:
    """Create a game through either process, retrying lost connections and refusals (503
    after its Retry-After); the answer's body."""
    for attempt in itertools.count():
        base = bases[attempt % len(bases)]
        try:
            answer = await http.post(f"http://{base}/api/games", json={"seats": seats})
        except httpx.TransportError as error:
            tally.errors[f"POST /api/games: {type(error).__name__}"] += 1
            await asyncio.sleep(RETRY)
            continue
        if answer.status_code == 201:
            return answer.json()
        tally.errors[f"POST /api/games: {answer.status_code}"] += 1
        assert answer.status_code >= 500, answer.text
        await asyncio.sleep(float(answer.headers.get("retry-after", RETRY)))
    raise AssertionError("unreachable")


async def play_seat(
    bases: list[str],
    game: str,
    seat: int,
    token: str,
    tally: Tally,
    rng: random.Random,
    ai_seat: int | None = None,
) -> None:
    """One scripted person: plays random legal moves for ``seat`` over a WebSocket until the
    game ends, opening it again through the other process whenever it closes or a move is
    refused. With ``ai_seat``, times each AI ply from the state that gives it the turn to the
    state that shows it played."""
    turn: tuple[int, float] | None = None  # the AI ply waited for, since when
    move = ""
    for attempt in itertools.count(seat + rng.randrange(2)):
        base = bases[attempt % len(bases)]
        try:
            ws = await connect(f"ws://{base}/ws/games/{game}", max_size=2**22, open_timeout=10)
        except InvalidStatus as error:
            tally.errors[f"WebSocket handshake: {error.response.status_code}"] += 1
            await asyncio.sleep(RETRY)
            continue
        except (OSError, TimeoutError, InvalidHandshake) as error:
            tally.errors[f"WebSocket handshake: {type(error).__name__}"] += 1
            await asyncio.sleep(RETRY)
            continue
        try:
            await ws.send(json.dumps({"type": "hello", "tokens": [token]}))
            sent: int | None = None
            shown = -1  # the latest ply a state on this socket showed
            async for raw in ws:
                message = json.loads(raw)
                kind = message["type"]
                if kind == "error":
                    tally.errors[f"WebSocket error: {message['code']}"] += 1
                    if message["code"] != "unavailable" or sent is None:
                        break  # anything else: open again for a fresh state
                    await asyncio.sleep(RETRY)  # the database is down: send it again
                    await ws.send(json.dumps({"type": "move", "state": sent, "move": move}))
                    continue
                if "state" not in message or kind == "chances":
                    continue
                state = message["state"]
                tally.saw(game, state)
                tally.last[game, seat] = (state["ply"], state["to_move"], f"{kind} from {base}")
                if state["ply"] < shown:
                    tally.errors["state older than one the socket showed"] += 1
                shown = max(shown, state["ply"])
                now = time.monotonic()
                if ai_seat is not None:
                    if turn is not None and state["ply"] > turn[0]:
                        tally.ai_waits.append(AiWait(game, turn[0], turn[1], now))
                        tally.waiting.pop(game, None)
                        turn = None
                    if turn is None and state["result"] is None and state["to_move"] == ai_seat:
                        turn = (state["ply"], now)
                        tally.waiting[game] = now
                if state["result"] is not None:
                    return
                mine = state["status"] == "live" and state["to_move"] == seat
                if mine and sent != state["ply"]:
                    await asyncio.sleep(rng.expovariate(1 / THINK))
                    sent, move = state["ply"], rng.choice(state["legal"])
                    await ws.send(json.dumps({"type": "move", "state": sent, "move": move}))
                    tally.sent += 1
            else:
                tally.errors[f"WebSocket closed: {ws.close_code}"] += 1
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else "none"
            tally.errors[f"WebSocket closed: {code}"] += 1
        finally:
            await ws.close()
        await asyncio.sleep(RETRY)


async def table(
    bases: list[str], number: int, ai: bool, tally: Tally, chaos_over: asyncio.Event
) -> None:
    """Games one after another at one table until the faults are over."""
    rng = random.Random(number)
    async with httpx.AsyncClient(timeout=30) as http:
        while not chaos_over.is_set():
            seats = [HUMAN, {"kind": "ai", "level": 1}] if ai else [HUMAN, HUMAN]
            body = await post_game(http, bases[number % 2 :] + bases[: number % 2], seats, tally)
            game = body["game"]["id"]
            tally.games[game] = "ai" if ai else "people"
            tokens = {t["seat"]: t["token"] for t in body["tokens"]}
            await asyncio.gather(
                *(
                    play_seat(bases, game, seat, token, tally, rng, 1 if ai else None)
                    for seat, token in tokens.items()
                )
            )


def inject(
    servers: list[Service],
    ai_worker: Service,
    redis_service: Redis,
    postgres: Postgres,
    tally: Tally,
) -> list[Fault]:
    """The faults, one after another with ``SETTLE`` seconds of play before each, each
    striking while an AI turn waits that began after the last fault (the worker's kill while
    it holds a job); each lasts until the service is back (a restarted process ready, Redis
    and PostgreSQL up)."""
    faults = []
    jobs = redis_service.client()

    def fault(
        what: str, down: Callable[[], None], up: Callable[[], None], when: Callable[[], bool]
    ) -> None:
        time.sleep(SETTLE)
        deadline = time.monotonic() + HUNG
        while not when():
            assert time.monotonic() < deadline, f"{what}: the moment never came"
            time.sleep(0.002)
        start = time.monotonic()
        down()
        up()
        faults.append(Fault(what, start, time.monotonic()))

    def ai_waits() -> bool:
        """An AI turn waits that began after the last fault was over."""
        since = faults[-1].end if faults else 0.0
        return any(start > since for start in list(tally.waiting.values()))

    def thinking() -> bool:
        try:
            return bool(jobs.xpending(HUMAN_JOBS, WORKERS)["pending"])
        except redis.ResponseError:  # no job asked yet: no group
            return False

    def redis_down() -> None:
        redis_service.stop()
        time.sleep(REDIS_DOWN)

    def postgres_down() -> None:
        postgres.stop()
        time.sleep(POSTGRES_DOWN)

    fault("server killed", servers[0].kill, servers[0].start, ai_waits)
    fault("worker killed", ai_worker.kill, ai_worker.start, thinking)
    fault("Redis restarted", redis_down, redis_service.start, ai_waits)
    fault("PostgreSQL stopped", postgres_down, postgres.start, ai_waits)
    jobs.close()
    return faults


@contextlib.contextmanager
def running(services: list[Service]) -> Iterator[None]:
    """Start the services in order; stop them all at the end, whatever happened."""
    try:
        for service in services:
            service.start()
        yield
    finally:
        for service in services:
            service.close()


async def final_records(bases: list[str], tally: Tally) -> dict[str, tuple[Any, list[str]]]:
    """Each game's result and record, as a server has them at the end (and each game's
    state as each process gives it, in ``tally.last``)."""
    found = {}
    async with httpx.AsyncClient(timeout=30) as http:
        for game in tally.games:
            for base in bases:
                state = (await http.get(f"http://{base}/api/games/{game}")).json()["state"]
                tally.last[game, base] = (state["ply"], state["to_move"], state["status"])
            record = (await http.get(f"http://{bases[-1]}/api/games/{game}/record")).json()
            found[game] = (state["status"], state["result"]), record["moves"]
    return found


def overlapped(wait: AiWait, faults: list[Fault]) -> list[Fault]:
    """The faults under way at some moment of an AI turn's wait."""
    return [f for f in faults if f.start < wait.end and f.end > wait.start]


def test_games_survive_killed_servers_and_worker_restarted_redis_and_stopped_postgres() -> None:
    redis_service = Redis()
    redis_service.start()
    try:
        with Postgres() as postgres:
            database = postgres.database("chaos")
            (first, first_base), (second, second_base) = (
                server(database, redis_service.url, n) for n in (1, 2)
            )
            servers, bases = [first, second], [first_base, second_base]
            ai_worker = worker(redis_service.url)
            with running([first, second, ai_worker]):
                tally, faults, began = asyncio.run(
                    play_through(bases, servers, ai_worker, redis_service, postgres)
                )
                records = asyncio.run(final_records(bases, tally))
    finally:
        redis_service.stop()
    output = [line for s in (first, second, ai_worker) for line in s.log]
    logs = "".join([line for line in output if " INFO " not in line and "INFO:" not in line][-80:])
    report(tally, faults, records, time.monotonic() - began, output)
    unended = [g for g, ((status, result), _moves) in records.items() if result is None]
    seen = {g: {seat: v for (game, seat), v in tally.last.items() if game == g} for g in unended}
    assert unended == [], f"games that did not end (by seat, then by process): {seen}\n{logs}"
    assert all(status == "finished" for (status, _result), _moves in records.values())
    lost = [
        f"{game} ply {ply}: {move!r}"
        for game, plies in tally.confirmed.items()
        for ply, move in sorted(plies.items())
        if ply >= len(records[game][1]) or records[game][1][ply] != move
    ]
    assert lost == [] and tally.conflicts == [], (lost, tally.conflicts)
    late = [
        (w, sum(f.length for f in overlapped(w, faults)))
        for w in tally.ai_waits
        if w.end - w.start > sum(f.length for f in overlapped(w, faults)) + GRACE
    ]
    assert late == [], f"AI turns that waited too long: {late}\n{logs}"


async def play_through(
    bases: list[str],
    servers: list[Service],
    ai_worker: Service,
    redis_service: Redis,
    postgres: Postgres,
) -> tuple[Tally, list[Fault], float]:
    """Play at every table while the faults happen, then until every game has ended (at
    most ``HUNG`` seconds more)."""
    tally = Tally()
    chaos_over = asyncio.Event()
    began = time.monotonic()
    tables = [
        asyncio.create_task(table(bases, n, n >= PEOPLE_TABLES, tally, chaos_over))
        for n in range(PEOPLE_TABLES + AI_TABLES)
    ]
    try:
        faults = await asyncio.to_thread(inject, servers, ai_worker, redis_service, postgres, tally)
    finally:
        chaos_over.set()
    done, pending = await asyncio.wait(tables, timeout=HUNG)
    for task in pending:
        task.cancel()
    for task in done:
        task.result()  # a client that gave up fails the test here
    return tally, faults, began


def report(
    tally: Tally,
    faults: list[Fault],
    records: dict[str, tuple[Any, list[str]]],
    seconds: float,
    output: list[str],
) -> None:
    """The figures, for ``pytest -s``; ``output`` the log lines of the servers and worker."""
    kinds = Counter(tally.games.values())
    moves = sum(len(moves) for _end, moves in records.values())
    print(f"\nchaos: {seconds:.1f} s, {len(records)} games ({dict(kinds)}), {moves} moves")
    print(f"  moves sent by the people: {tally.sent}; AI plies timed: {len(tally.ai_waits)}")
    for fault in faults:
        hit = [w.end - w.start for w in tally.ai_waits if fault in overlapped(w, faults)]
        longest = f", the longest {max(hit):.2f} s" if hit else ""
        print(
            f"  fault: {fault.what}, {fault.length:.2f} s; AI plies waiting through it: "
            f"{len(hit)}{longest}"
        )
    if tally.ai_waits:
        worst = max(tally.ai_waits, key=lambda w: w.end - w.start)
        over = overlapped(worst, faults)
        during = ", ".join(f"{f.what} {f.length:.2f} s" for f in over) or "no fault"
        print(f"  longest AI wait: {worst.end - worst.start:.2f} s (during {during})")
        calm = [w.end - w.start for w in tally.ai_waits if not overlapped(w, faults)]
        if calm:
            print(f"  longest AI wait outside the faults: {max(calm):.2f} s")
    for kind, count in sorted(tally.errors.items()):
        print(f"  client saw {count} x {kind}")
    for marker in RECOVERIES:
        print(f"  logged {sum(marker in line for line in output)} x {marker!r}")
