"""The engine modules that moved into ``taluva.engine`` keep their old names for one release,
with a warning that says where each name lives now."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

import taluva
from taluva.engine import game, moves, record


@pytest.mark.parametrize(
    ("old", "name", "home"),
    [
        ("taluva.game", "Game", game),
        ("taluva.moves", "Move", moves),
        ("taluva.record", "RECORD_FORMAT", record),
        ("taluva.record", "load_record", game),
    ],
)
def test_an_old_module_name_gives_the_same_object_and_warns(
    old: str, name: str, home: ModuleType
) -> None:
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=f"{old}.{name} moved to {home.__name__}"):
        found = getattr(module, name)
    assert found is getattr(home, name)


def test_an_old_module_name_refuses_names_it_never_had() -> None:
    module = importlib.import_module("taluva.game")
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        module.nothing  # noqa: B018


def test_the_package_exports_the_engine_types() -> None:
    assert taluva.Game is game.Game and taluva.Move is moves.Move
    assert taluva.Phase.TILE == "tile" and taluva.MoveKind.EXPAND == "expand"
