"""Fault tests: the server process killed mid-game and started again on the same database."""

from __future__ import annotations

import asyncio
import json
import signal
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
from test_server_support import free_port, sqlite_url, start_server
from websockets.sync.client import ClientConnection, connect

from taluva.server import Settings
from taluva.server.games.service import GameService


class Player:
    """A scripted client on a game socket, holding some seats."""

    def __init__(self, stack: ExitStack, base: str, game_id: str, tokens: list[str]) -> None:
        self.ws: ClientConnection = stack.enter_context(connect(f"ws://{base}/ws/games/{game_id}"))
        self.ws.send(json.dumps({"type": "hello", "tokens": tokens}))
        welcome = self.receive()
        assert welcome["type"] == "welcome"
        self.state: dict[str, Any] = welcome["state"]

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=20))
        return message

    def play_first_legal(self) -> str:
        """Send the first legal move and return it once the server has broadcast it."""
        move: str = self.state["legal"][0]
        self.ws.send(json.dumps({"type": "move", "state": self.state["ply"], "move": move}))
        self.await_ply(self.state["ply"] + 1)
        return move

    def await_ply(self, ply: int) -> None:
        while self.state["ply"] < ply:
            message = self.receive()
            assert message["type"] == "move", message
            self.state = message["state"]


def create(http: httpx.Client, seats: list[dict[str, Any]]) -> tuple[str, list[str]]:
    body = http.post("/api/games", json={"seats": seats}).json()
    return body["game"]["id"], [t["token"] for t in body["tokens"]]


def test_a_killed_server_loses_no_accepted_move_and_every_game_resumes(tmp_path: Path) -> None:
    database = sqlite_url(tmp_path)
    port = free_port()
    base = f"127.0.0.1:{port}"
    server = start_server(database, port)
    try:
        with httpx.Client(base_url=f"http://{base}") as http:
            human = {"kind": "human", "take": True}
            duel, duel_tokens = create(http, [human, human])
            versus_ai, ai_tokens = create(http, [human, {"kind": "ai", "level": 1}])
        with ExitStack() as stack:
            duel_player = Player(stack, base, duel, duel_tokens)
            accepted = [duel_player.play_first_legal() for _ in range(7)]
            ai_player = Player(stack, base, versus_ai, ai_tokens)
            ai_player.play_first_legal()
            ai_player.play_first_legal()
            ai_player.await_ply(4)
            ai_moves = ai_player.state["moves"]
            server.send_signal(signal.SIGKILL)
            server.wait()

        server = start_server(database, port)
        with httpx.Client(base_url=f"http://{base}") as http:
            assert http.get(f"/api/games/{duel}").json()["state"]["moves"] == accepted
            assert http.get(f"/api/games/{versus_ai}").json()["state"]["moves"] == ai_moves
        with ExitStack() as stack:
            duel_player = Player(stack, base, duel, duel_tokens)
            assert duel_player.state["ply"] == 7
            accepted.append(duel_player.play_first_legal())
            ai_player = Player(stack, base, versus_ai, ai_tokens)
            ai_player.play_first_legal()
            ai_player.play_first_legal()
            ai_player.await_ply(8)
            assert ai_player.state["movers"] == [0, 0, 1, 1, 0, 0, 1, 1]
            assert duel_player.state["moves"] == accepted
    finally:
        server.kill()
        server.wait()


class StalledAi:
    """An AI runner that never answers: the server stops while an AI seat is to move."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def choose(self, record: dict[str, Any], spec: str, seed: int, **_turn: Any) -> str:
        self.asked.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Nothing to stop."""


def test_an_ai_turn_cut_off_by_a_restart_is_played_after_it(tmp_path: Path) -> None:
    settings = Settings(database=sqlite_url(tmp_path), ai_workers=0)

    async def before_restart() -> str:
        stalled = StalledAi()
        service = GameService(settings, ai=stalled)  # type: ignore[arg-type]
        await service.start()
        room, _ = await service.create_game(
            {"seats": [{"kind": "ai", "level": 1}, {"kind": "human", "take": True}]}
        )
        await stalled.asked.wait()
        await service.stop()
        return room.id

    async def after_restart(game_id: str) -> list[str]:
        service = GameService(settings)
        await service.start()
        assert service.resuming is not None
        assert await service.resuming == 1  # no one opened the game: found by the database
        room = service.rooms[game_id]
        assert room.ai_task is not None
        await room.ai_task
        moves = [str(move) for move in room.game.moves]
        await service.stop()
        return moves

    game_id = asyncio.run(before_restart())
    moves = asyncio.run(after_restart(game_id))
    assert len(moves) == 2 and moves[0].startswith("tile 0,0 ")
