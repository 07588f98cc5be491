"""Perft: the engine counts exactly the move sequences of the base table and of our own.

``tests/data/perft/base.jsonl`` is the project's contract (docs/notation.md, "Counting move
sequences"): counts of an independent implementation of the rules. ``own.jsonl`` beside it
adds positions that table lacks: an eruption to choose, the ``adjacent_hut`` house rule, five
players, the last tile of the pile, an early victory and an elimination within reach, a
24-tile two-player game. Its counts come from the independent reference engine
(tests/reference_engine.py): ``python tests/test_perft.py`` recomputes them. Both tables are
described in tests/data/perft/README.md.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from taluva import Game
from taluva.engine.perft import divide, perft

Observe = Callable[[Game], dict[str, Any]]
Entry = dict[str, Any]

TABLES = Path(__file__).resolve().parent / "data" / "perft"
BASE_TABLE = TABLES / "base.jsonl"
OWN_TABLE = TABLES / "own.jsonl"


def read_table(path: Path) -> list[Entry]:
    """The entries of a perft table, one JSON object a line (an empty list if it is missing)."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


BASE = read_table(BASE_TABLE)
OWN = read_table(OWN_TABLE)


def cases(entries: list[Entry], table: str) -> list[Any]:
    """One pytest case per entry and depth; a single failing case if the table is missing."""
    if not entries:
        return [pytest.param(None, 0, 0, id=f"{table}-missing")]
    return [
        pytest.param(entry["record"], int(depth), count, id=f"{entry['id']}-d{depth}")
        for entry in entries
        for depth, count in entry["perft"].items()
    ]


def deepest_cases(entries: list[Entry], table: str) -> list[Any]:
    """One pytest case per entry, at its deepest depth; a failing case if the table is missing."""
    if not entries:
        return [pytest.param(None, 0, 0, id=f"{table}-missing")]
    deepest = [(entry, max(entry["perft"], key=int)) for entry in entries]
    return [
        pytest.param(entry["record"], int(depth), entry["perft"][depth], id=entry["id"])
        for entry, depth in deepest
    ]


def require(record: dict[str, Any] | None) -> dict[str, Any]:
    """The record of a case, failing loudly when its table could not be read."""
    if record is None:
        pytest.fail(f"perft table missing: looked for {BASE_TABLE} and {OWN_TABLE}")
    return record


def test_base_table_is_present_and_complete() -> None:
    """Without the table every perft case below would vanish; so its absence fails."""
    assert BASE_TABLE.exists(), f"no perft table at {BASE_TABLE}"
    assert len(BASE) >= 13
    assert all(set(entry["perft"]) <= {"1", "2", "3"} for entry in BASE)


@pytest.mark.parametrize(("record", "depth", "expected"), cases(BASE, "base"))
def test_perft_matches_the_base_table(
    record: dict[str, Any] | None, depth: int, expected: int
) -> None:
    """The engine counts every line of the base table at every depth it gives."""
    assert perft(Game.from_record(require(record)), depth) == expected


@pytest.mark.parametrize(("record", "depth", "expected"), cases(OWN, "own"))
def test_perft_matches_the_reference_engine_on_our_positions(
    record: dict[str, Any] | None, depth: int, expected: int
) -> None:
    """The engine agrees with the reference engine's counts on the positions of own.jsonl."""
    assert perft(Game.from_record(require(record)), depth) == expected


@pytest.mark.parametrize(
    ("record", "depth", "expected"), deepest_cases(BASE, "base") + deepest_cases(OWN, "own")
)
def test_divide_sums_to_perft_and_lists_each_legal_move(
    record: dict[str, Any] | None, depth: int, expected: int
) -> None:
    """divide() splits perft by first move: one entry per legal move, adding up to perft."""
    game = Game.from_record(require(record))
    split = divide(game, depth)
    assert sorted(split) == sorted(str(move) for move in game.legal_moves())
    assert list(split) == sorted(split)
    assert sum(split.values()) == expected
    assert all(count >= 1 for count in split.values())
    assert divide(game, 1) == dict.fromkeys(split, 1)


@pytest.mark.parametrize(("record", "depth", "expected"), deepest_cases(OWN, "own"))
def test_perft_and_divide_leave_the_game_as_they_found_it(
    record: dict[str, Any] | None, depth: int, expected: int, state_of: Observe
) -> None:
    """Counting plays and takes back moves; afterwards the position is exactly the same."""
    game = Game.from_record(require(record))
    before = state_of(game)
    assert perft(game, min(depth, 2)) > 0 and divide(game, min(depth, 2))
    assert state_of(game) == before
    assert expected > 0


def test_perft_of_depth_zero_is_one_and_a_finished_game_has_no_moves() -> None:
    """Depth 0 counts the empty sequence; a game that is over has no sequence of length 1."""
    game = Game.new(players=2, deck=["JC", "SR"])
    assert perft(game, 0) == 1
    assert perft(game, 1) == 6
    for move in ("tile 0,0 0", "hut 1,0", "tile -1,0 3", "hut -2,0"):
        game.play(move)
    assert game.phase == "over"
    assert perft(game, 0) == 1
    assert perft(game, 1) == 0
    assert divide(game, 1) == {}


def test_own_table_covers_the_positions_it_promises() -> None:
    """own.jsonl holds an eruption to choose, adjacent_hut, five players and the last tile,
    each counted to depth 3 (so a stale or trimmed file is noticed)."""
    assert OWN, f"no perft table at {OWN_TABLE}"
    games = {entry["id"]: Game.from_record(entry["record"]) for entry in OWN}
    assert all(set(entry["perft"]) == {"1", "2", "3"} for entry in OWN)
    assert any(
        game.phase == "tile" and any(game.level(move.hex) > 0 for move in game.legal_moves())
        for game in games.values()
    )
    assert any("adjacent_hut" in game.options["house_rules"] for game in games.values())
    assert any(game.player_count == 5 for game in games.values())
    assert any(game.phase == "tile" and game.tiles_left == 0 for game in games.values())
    assert any(game.options["tiles_per_player"] == 24 for game in games.values())


def regenerate() -> None:
    """Recount every position of own.jsonl with the reference engine and rewrite the file."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from reference_engine import ref_from_record, ref_perft

    lines = []
    for entry in OWN:
        ref = ref_from_record(entry["record"])
        entry["perft"] = {str(d): ref_perft(ref, d) for d in (1, 2, 3)}
        print(entry["id"], entry["perft"], flush=True)
        lines.append(json.dumps(entry) + "\n")
    OWN_TABLE.write_text("".join(lines), encoding="utf-8")


if __name__ == "__main__":
    regenerate()
