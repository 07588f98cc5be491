"""The store seen from the event loop (``taluva.server.storage.database``): moves in group
commits."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from test_server_support import sqlite_url, store_game

from taluva import Game
from taluva.server.players.standings import settle
from taluva.server.storage.database import Database
from taluva.server.storage.store import LIVE, NewMove, PlyTaken, Store, StoredSeat

SEATS = [StoredSeat(0, "human", "Ana"), StoredSeat(1, "human", "Ben")]


class WatchedStore(Store):
    """A real SQLite store that records the size of every batch of moves it is asked to
    write, and can hold the first write until told to go on, or fail it."""

    def __init__(self, url: str) -> None:
        super().__init__(url, game_end=settle)
        self.batches: list[int] = []
        self.writing = threading.Event()
        self.go_on = threading.Event()
        self.go_on.set()
        self.fail_next = False

    def append_moves(self, moves: list[NewMove]) -> list[PlyTaken | None]:
        self.batches.append(len(moves))
        self.writing.set()
        self.go_on.wait(10)
        if self.fail_next:
            self.fail_next = False
            raise OSError("disk full")
        return super().append_moves(moves)


@pytest.fixture
def store(tmp_path: Path) -> WatchedStore:
    store = WatchedStore(sqlite_url(tmp_path))
    store.migrate()
    for number in range(5):
        store_game(store, f"g{number}", Game.new(players=["Ana", "Ben"], seed=number), SEATS)
    store.batches.clear()
    store.writing.clear()
    return store


def first_move(game_id: str) -> NewMove:
    return NewMove(game_id, 0, 0, "tile 0,0 0", LIVE, None)


def stored_plies(store: Store) -> dict[str, int]:
    plies = {}
    for number in range(5):
        game = store.load_game(f"g{number}")
        assert game is not None
        plies[game.id] = len(game.moves)
    return plies


def test_moves_that_arrive_during_a_write_are_committed_together(store: WatchedStore) -> None:
    async def play() -> None:
        database = Database(store)
        store.go_on.clear()
        first = asyncio.create_task(database.store_move(first_move("g0")))
        await asyncio.to_thread(store.writing.wait, 10)
        rest = [asyncio.create_task(database.store_move(first_move(f"g{n}"))) for n in (1, 2, 3, 4)]
        await asyncio.sleep(0.05)  # the four wait for the write under way
        store.go_on.set()
        await asyncio.gather(first, *rest)
        database.close()

    asyncio.run(play())
    assert store.batches == [1, 4]
    assert stored_plies(store) == {f"g{n}": 1 for n in range(5)}


def test_a_taken_ply_is_refused_and_the_rest_of_its_batch_is_stored(store: WatchedStore) -> None:
    async def play() -> list[BaseException | None]:
        database = Database(store)
        store.go_on.clear()
        first = asyncio.create_task(database.store_move(first_move("g0")))
        await asyncio.to_thread(store.writing.wait, 10)
        again = NewMove("g0", 0, 0, "tile 0,0 3", LIVE, None)
        batch = [database.store_move(move) for move in (again, first_move("g1"))]
        waiting = asyncio.gather(*batch, return_exceptions=True)
        await asyncio.sleep(0.05)
        store.go_on.set()
        await first
        outcomes = await waiting
        database.close()
        return outcomes

    taken, stored = asyncio.run(play())
    assert isinstance(taken, PlyTaken) and "ply 0 is already stored" in str(taken)
    assert stored is None
    assert store.batches[:2] == [1, 2]
    assert stored_plies(store) == {"g0": 1, "g1": 1, "g2": 0, "g3": 0, "g4": 0}


def test_a_failed_write_fails_its_moves_and_the_next_move_is_written(store: WatchedStore) -> None:
    async def play() -> BaseException | None:
        database = Database(store)
        store.fail_next = True
        failed = await asyncio.gather(database.store_move(first_move("g0")), return_exceptions=True)
        await database.store_move(first_move("g1"))
        database.close()
        return failed[0]

    error = asyncio.run(play())
    assert isinstance(error, OSError) and str(error) == "disk full"
    assert stored_plies(store) == {"g0": 0, "g1": 1, "g2": 0, "g3": 0, "g4": 0}
