"""Fixed positions for the board's screenshot tests and benchmark, stored before a server starts.

Each position is a game from a fixed seed played by a seeded policy, written through the
server's own Store (the path the server stores every game by), so that the same pixels come
out on every run. Both seats are humans whose tokens are known (``token_of``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from test_server_support import store_game

from taluva import Game
from taluva.server.players.standings import settle
from taluva.server.storage.store import Store, StoredSeat, token_digest

STAMP = datetime(2026, 1, 1, tzinfo=UTC)
NAMES = ("Ana", "Ben")


def token_of(game_id: str, seat: int) -> str:
    """The seat token of a fixed position's seat."""
    return f"{game_id}-seat-{seat}-token"


@dataclass(frozen=True)
class Position:
    """A stored game: its id, the moves played, and the game after them."""

    game_id: str
    game: Game


def climbing(rng: random.Random, game: Game) -> str:
    """Tiles as high as they go half the time (so the island grows levels), else any move."""
    legal = sorted(str(m) for m in game.legal_moves())
    if game.phase == "tile" and rng.random() < 0.6:
        best = max(legal, key=lambda text: _height_after(game, text))
        return best
    return rng.choice(legal)


def _height_after(game: Game, text: str) -> int:
    """The sum of the squared levels after a move: an eruption on a high stack scores most."""
    trial = game.copy()
    trial.play(text)
    return sum(trial.level(h) ** 2 for h in trial.land())


def play(
    seed: int,
    plies: int | None,
    expansions: tuple[str, ...] = (),
    policy: Callable[[random.Random, Game], str] = climbing,
    tiles_per_player: int = 12,
) -> Game:
    """A game from ``seed`` after ``plies`` moves of ``policy`` (None: to its end)."""
    game = Game.new(
        players=list(NAMES), seed=seed, expansions=expansions, tiles_per_player=tiles_per_player
    )
    rng = random.Random(seed)
    while not game.is_over and (plies is None or game.ply < plies):
        game.play(policy(rng, game))
    return game


def store_position(store: Store, game_id: str, game: Game, name: str) -> Position:
    """Write ``game`` (its options, deck and every move) as a game of two known seats."""
    seats = [
        StoredSeat(seat, "human", NAMES[seat], None, token_digest(token_of(game_id, seat)))
        for seat in range(2)
    ]
    store_game(store, game_id, game, seats, name=name, stamp=STAMP)
    return Position(game_id, game)


def seed_positions(database: str) -> dict[str, Position]:
    """The fixed positions the screenshot tests show, by name, stored in ``database``."""
    store = Store(database, game_end=settle)
    store.migrate()
    island = play(seed=11, plies=36)
    zone = play(seed=4, plies=24, expansions=("board:beginner",))
    try:
        # Tests that play a move get copies of their own, so the others see the position.
        for copy in ("island-turn", "island-erupt", "island-say"):
            store_position(store, copy, island, "Three levels")
        for copy in ("zone-motion", "zone-still"):
            store_position(store, copy, zone, "Zone")
        return {
            "island": store_position(store, "island3", island, "Three levels"),
            "zone": store_position(store, "zone", zone, "Zone"),
            "build": store_position(store, "build", play(seed=11, plies=29), "Build sheet"),
            "finished": store_position(store, "finished", play(seed=5, plies=None), "The end"),
        }
    finally:
        store.close()
