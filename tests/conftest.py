"""Shared test setup: deterministic Hypothesis profiles and a full snapshot of a game's state.

CI runs the ``ci`` profile: a fixed example budget, derandomized, no example database, so
every run tests the same games. ``TALUVA_DEEP=1`` selects the ``deep`` profile for local soak
runs: ten times the examples and fresh random ones each run.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings

import taluva

_RELAXED = (HealthCheck.too_slow, HealthCheck.data_too_large)

settings.register_profile(
    "ci",
    max_examples=100,
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink),
    deadline=None,
    print_blob=True,
    suppress_health_check=_RELAXED,
)
settings.register_profile(
    "deep",
    max_examples=1000,
    derandomize=False,
    deadline=None,
    print_blob=True,
    suppress_health_check=_RELAXED,
)
settings.load_profile("deep" if os.environ.get("TALUVA_DEEP") == "1" else "ci")


def observe(game: taluva.Game) -> dict[str, Any]:
    """Everything a caller can see of a game, as plain data, for comparing two positions.

    Covers the record, the position (every hex's level, terrain and tile index, buildings,
    settlements), the pieces (supplies, destroyed huts, scores), whose turn and what is legal.
    """
    players = range(game.player_count)
    land = game.land()
    return {
        "record": game.to_record(),
        "phase": game.phase,
        "to_move": game.to_move,
        "tile": game.tile,
        "ply": game.ply,
        "moves": [str(move) for move in game.moves],
        "tiles_left": game.tiles_left,
        "eliminated": game.eliminated,
        "result": None if game.result is None else dict(game.result),
        "legal": sorted(str(move) for move in game.legal_moves()),
        "hexes": {h: (game.level(h), game.terrain(h), game.tile_index(h)) for h in land},
        "buildings": game.buildings(),
        "settlements": [sorted(sorted(group) for group in game.settlements(p)) for p in players],
        "supplies": [game.supply(p) for p in players],
        "destroyed": [game.destroyed_huts(p) for p in players],
        "scores": [game.score(p) for p in players],
        "unseen": dict(game.unseen_tiles()),
    }


@pytest.fixture(scope="session")
def state_of() -> Callable[[taluva.Game], dict[str, Any]]:
    """The ``observe`` function, for tests that compare whole game states."""
    return observe


@pytest.fixture
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cheapest Argon2 parameters for the accounts made in this process, for the tests
    that are not about the hash's cost (``pytestmark = pytest.mark.usefixtures(...)``);
    server processes a test starts hash for real."""
    from argon2 import PasswordHasher, profiles

    from taluva.server.players import accounts

    cheapest = PasswordHasher.from_parameters(profiles.CHEAPEST)
    monkeypatch.setattr(accounts, "default_hasher", lambda: cheapest)
