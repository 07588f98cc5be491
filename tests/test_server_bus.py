"""The broadcast bus between server processes, on a real Redis (Debian's redis-server)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from test_server_support import redis_server

from taluva.server.cluster.bus import Bus, envelope, open_envelope

Got = tuple[str, int, dict[str, Any], str]


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


def test_envelope_keeps_every_part_including_newlines_in_the_text() -> None:
    text = '{"type":"chat","text":"line one\\nline two"}\nraw newline'
    sync = {"status": "live", "clock": {"running": 1, "note": "a\nb"}}
    assert open_envelope(envelope("abc", "g1", 7, sync, text)) == ("abc", "g1", 7, sync, text)


def test_envelope_that_is_not_one_is_refused() -> None:
    with pytest.raises(ValueError):
        open_envelope("only\ntwo parts")
    with pytest.raises(ValueError):
        open_envelope("origin\ngame\n3\n[1, 2]\n{}")  # the sync part must be an object


def test_local_bus_publishes_nothing_and_needs_no_redis() -> None:
    async def scenario() -> None:
        bus = Bus.local()
        await bus.start(_never, _nothing)
        bus.publish("g", 1, {}, "{}")  # goes nowhere, raises nothing
        await bus.stop()
        assert not bus.shared

    asyncio.run(scenario())


async def _never(game_id: str, ply: int, sync: dict[str, Any], text: str) -> None:
    raise AssertionError("a local bus delivered a message")


async def _nothing() -> None:
    return None


def test_a_broadcast_reaches_the_other_process_holding_its_game_in_order_and_not_its_own(
    redis_url: str,
) -> None:
    async def scenario() -> tuple[list[Got], list[Got]]:
        first, second = Bus(redis_url), Bus(redis_url)
        got_first: list[Got] = []
        got_second: list[Got] = []

        async def to_first(game_id: str, ply: int, sync: dict[str, Any], text: str) -> None:
            got_first.append((game_id, ply, sync, text))

        async def to_second(game_id: str, ply: int, sync: dict[str, Any], text: str) -> None:
            got_second.append((game_id, ply, sync, text))

        await first.start(to_first, _nothing)
        await second.start(to_second, _nothing)
        # each follows the game the other broadcasts, and its own: a process hears only the
        # games it holds, and never its own broadcasts
        await asyncio.gather(
            second.follow("game-a"), first.follow("game-b"), first.follow("game-a")
        )
        for ply in range(50):
            first.publish("game-a", ply, {"status": "live"}, f'{{"type":"move","ply":{ply}}}')
        second.publish("game-b", 3, {}, '{"type":"chat"}')
        for _ in range(100):
            if len(got_second) == 50 and got_first:
                break
            await asyncio.sleep(0.02)
        await first.stop()
        await second.stop()
        return got_first, got_second

    got_first, got_second = asyncio.run(scenario())
    assert [ply for _game, ply, _sync, _text in got_second] == list(range(50))
    assert {game for game, _ply, _sync, _text in got_second} == {"game-a"}
    assert got_second[7] == ("game-a", 7, {"status": "live"}, '{"type":"move","ply":7}')
    assert got_first == [("game-b", 3, {}, '{"type":"chat"}')]
