"""The reference engine reproduces every count of the shared perft table.

The whole table (depths 1 to 3) runs in a few seconds, so no case is marked slow.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from reference_engine import ref_from_record, ref_perft


def perft_table_path() -> Path:
    """The shared perft table beside the repository, else under $TALUVA_SHARED."""
    path = Path(__file__).resolve().parents[2] / "shared" / "perft" / "base.jsonl"
    if not path.exists() and os.environ.get("TALUVA_SHARED"):
        path = Path(os.environ["TALUVA_SHARED"]) / "perft" / "base.jsonl"
    return path


def perft_cases() -> list[tuple[str, dict[str, Any], int, int]]:
    """(id, record, depth, expected count) for every depth of every line of the table."""
    path = perft_table_path()
    if not path.exists():
        return []
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            entry = json.loads(line)
            for depth, count in entry["perft"].items():
                cases.append((entry["id"], entry["record"], int(depth), count))
    return cases


CASES = perft_cases()


def test_perft_table_is_present() -> None:
    """Without the table the perft tests below would silently vanish."""
    assert perft_table_path().exists(), f"perft table not found at {perft_table_path()}"
    assert len(CASES) >= 13


@pytest.mark.parametrize(
    ("record", "depth", "expected"),
    [
        pytest.param(record, depth, count, id=f"{pid}-d{depth}")
        for pid, record, depth, count in CASES
    ],
)
def test_reference_perft_matches_shared_table(
    record: dict[str, Any], depth: int, expected: int
) -> None:
    """Counts of distinct move sequences agree with the independent implementation."""
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
