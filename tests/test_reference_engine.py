"""The reference engine reproduces the perft tables of tests/data/perft/.

Every count of base.jsonl (depths 1 to 3, a few seconds) and depths 1 and 2 of own.jsonl
(about ten seconds); own.jsonl's depth 3 takes the reference engine minutes, so
``python tests/test_perft.py`` recounts it on demand. No case is marked slow.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from reference_engine import ref_from_record, ref_perft

TABLES = Path(__file__).resolve().parent / "data" / "perft"
BASE_TABLE = TABLES / "base.jsonl"
OWN_TABLE = TABLES / "own.jsonl"


def perft_cases(path: Path, depths: set[str]) -> list[Any]:
    """One case (record, depth, expected count) for each of ``depths`` of every line."""
    if not path.exists():
        return []
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [
        pytest.param(entry["record"], int(depth), count, id=f"{entry['id']}-d{depth}")
        for entry in entries
        for depth, count in entry["perft"].items()
        if depth in depths
    ]


BASE_CASES = perft_cases(BASE_TABLE, {"1", "2", "3"})
OWN_CASES = perft_cases(OWN_TABLE, {"1", "2"})


def test_perft_tables_are_present() -> None:
    """Without the tables the perft tests below would silently vanish."""
    assert BASE_TABLE.exists(), f"perft table not found at {BASE_TABLE}"
    assert OWN_TABLE.exists(), f"perft table not found at {OWN_TABLE}"
    assert len(BASE_CASES) >= 13 * 2
    assert len(OWN_CASES) >= 7 * 2


@pytest.mark.parametrize(("record", "depth", "expected"), BASE_CASES)
def test_reference_perft_matches_the_base_table(
    record: dict[str, Any], depth: int, expected: int
) -> None:
    """Counts of distinct move sequences agree with the independent implementation."""
    assert ref_perft(ref_from_record(record), depth) == expected


@pytest.mark.parametrize(("record", "depth", "expected"), OWN_CASES)
def test_reference_perft_matches_our_own_table(
    record: dict[str, Any], depth: int, expected: int
) -> None:
    """The reference engine still gives the counts it once wrote into own.jsonl."""
    assert ref_perft(ref_from_record(record), depth) == expected


def test_record_with_illegal_move_is_rejected_with_its_index() -> None:
    """A founding hut next to one's own building is illegal without `adjacent_hut`."""
    record: dict[str, Any] = {
        "players": ["a", "b"],
        "options": {"tiles_per_player": 12, "expansions": [], "house_rules": []},
        "deck": ["JC", "JC", "JC"],
        "moves": ["tile 0,0 0", "hut 1,0", "tile 0,-2 5", "hut 1,-2", "tile -2,1 0", "hut 1,-1"],
    }
    ref_from_record({**record, "moves": record["moves"][:5]})
    with pytest.raises(ValueError, match=r"move 5 \('hut 1,-1'\)"):
        ref_from_record(record)
