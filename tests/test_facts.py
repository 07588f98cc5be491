"""Ranges written by hand agree with the tables they repeat: the AI levels (``LEVELS`` of
``taluva.ai.levels``) and how many players a game has (``PLAYER_COUNTS`` of
``taluva.engine.options``), wherever people read them: the docs, the README, the web client
and the package's messages and help texts.

A range that starts where its table starts, or one before (``levels 1-5``, ``2 to 4 players``,
``1 to 5 players``), claims to be the whole table, so it must be the table's range; one that
starts inside the table and runs past its end (``levels 3 to 7``) is wrong too. A range inside
the table that starts later (``levels 3 to 5``, ``games of 3 to 5 players``) speaks of some of
them, and one that starts further below (``double-hex tiles taken (0-2)``) of something else:
both are left alone. Texts built from the tables (``f"{min(LEVELS)}-{max(LEVELS)}"``) hold no
digits to find.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from taluva.ai.levels import LEVELS
from taluva.engine.options import PLAYER_COUNTS

ROOT = Path(__file__).resolve().parents[1]

_RANGE = r"(?<![\d\[])(?<!\d\.)(\d+)\s*(?:-|\u2013|to)\s*(\d+)(?!\d|\.\d|%)"
"""Two whole numbers joined by a dash or 'to', not part of a decimal, a percentage or an
interval in brackets (``55.0% [44.1-65.4]``)."""
_GAP = r"(?:(?!level)[^\d\n]){0,30}?"
"""What may stand between a word and its range: no digit, no line break, no other word
``level`` (``levels go from``, ``level of the hint button,``, ``level:N (``, ``players``: ``;
not ``seat's level, ``: that range is the level's)."""

LEVEL_RANGES = (re.compile(rf"\blevels?\b{_GAP}{_RANGE}", re.IGNORECASE),)
PLAYER_RANGES = (
    re.compile(rf"{_RANGE}\s*(?:players|seats|agents)\b", re.IGNORECASE),
    re.compile(rf"\b(?:players?|seats?|agents)\b{_GAP}{_RANGE}", re.IGNORECASE),
)
QUOTED_RANGE = re.compile(rf"[\"']{_RANGE}[\"']")
"""A range alone in quotes (``"1-5"``): it speaks of the table it starts like (``"0-0"``, a
Redis stream id, of none)."""


@dataclass(frozen=True)
class Table:
    """What a range must agree with: the first and last entries of a table, and its name."""

    name: str
    low: int
    high: int
    patterns: tuple[re.Pattern[str], ...]
    joiner: str

    @property
    def written(self) -> str:
        return f"{self.low}{self.joiner}{self.high}"

    def disagrees(self, low: int, high: int) -> bool:
        if low in (self.low - 1, self.low):  # the whole table, or meant to be
            return (low, high) != (self.low, self.high)
        return self.low < low <= self.high < high  # runs past the table's end


TABLES = (
    Table("LEVELS", min(LEVELS), max(LEVELS), LEVEL_RANGES, "-"),
    Table("PLAYER_COUNTS", min(PLAYER_COUNTS), max(PLAYER_COUNTS), PLAYER_RANGES, " to "),
)


def ranges_in(
    paths: Iterable[Path], tables: Sequence[Table]
) -> Iterator[tuple[str, int, str, Table, list[re.Match[str]]]]:
    """For each line of ``paths`` and each table: ``(where, line number, line, table, the
    ranges on it that may speak of the table)``."""
    for path in paths:
        where = str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for table in tables:
                quoted = [m for m in QUOTED_RANGE.finditer(line) if int(m[1]) == table.low]
                matches = [m for pattern in table.patterns for m in pattern.finditer(line)]
                yield where, number, line, table, matches + quoted


def offenders(paths: Iterable[Path], tables: Sequence[Table] = TABLES) -> list[str]:
    """``path:line: 'text' (TABLE is A-B)`` for every range that disagrees with its table."""
    found: list[str] = []
    seen: set[tuple[str, int, str, int]] = set()
    for where, number, _line, table, matches in ranges_in(paths, tables):
        for match in matches:
            low, high = int(match[1]), int(match[2])
            place = (where, number, table.name, match.start(1))
            if table.disagrees(low, high) and place not in seen:
                seen.add(place)
                found.append(
                    f"{where}:{number}: {match[0].strip()!r} ({table.name} is {table.written})"
                )
    return found


def checked_files() -> list[Path]:
    """The docs, the README, the web client's scripts and the package's Python modules."""
    docs = sorted((ROOT / "docs").rglob("*.md"))
    web = sorted((ROOT / "src" / "taluva" / "server").rglob("static/js/*.js"))
    python = sorted((ROOT / "src" / "taluva").rglob("*.py"))
    assert docs and web and python, "the docs, the web client or the package moved"
    return [ROOT / "README.md", *docs, *web, *python]


def test_hand_written_level_and_player_count_ranges_agree_with_the_tables() -> None:
    wrong = offenders(checked_files())
    assert not wrong, (
        f"{len(wrong)} hand-written range(s) disagree with the tables; write them from "
        "LEVELS / PLAYER_COUNTS (or correctly):\n" + "\n".join(wrong)
    )


@pytest.mark.parametrize(
    ("line", "wrong"),
    [
        ("| `level` | 1-5 | 5 | what a `bestmove` plays like |", True),
        ('help="AI level 1-5 (default 5)"', True),
        ("an AI seat's level, 1 to 5", True),
        ("'ai', 'ai:LEVEL' (1-7) or 'ai:SPEC'", True),
        ('choices = "1-5"', True),
        ("counts = '2-4'", True),
        ('last_id = "0-0"', False),  # a Redis stream id
        ("Taluva is for 2 to 4 players", True),
        ('h("legend", {}, "Seats (2 to 6)")', True),
        ("3 agents given: a game needs 2 to 4 (one per seat)", True),
        ("`players`: 2 to 4 (default 2).", True),
        ("- `players` (2-4), `tiles_per_player`", True),
        ("AI level 1-6 (default 5)", False),
        ("seats (--players, 2 to 5, comma-separated)", False),
        ("games of 3 to 5 players work", False),  # some of the counts, not all
        ("levels 3 to 5 played as their iteration budgets", False),
        ("level 1, greedy and levels 2 to 6 in two-player games", False),
        ("level:4 | 35% [22-50] n=40 | 66% [51-79]", False),  # intervals of a table
        ("level 5's search won 45.0% [33.1-57.5]", False),
        ("--port 80 is not a port number (1-65535)", False),
        ("The agent that plays at a level from 1 to 5.", True),  # the full stop ends it
        ("Taluva is for 1 to 5 players", True),  # one below the table's start
        ("levels 3 to 7", True),  # past the table's end
        ("an AI seat's level, 1 to 6", False),  # the range is the level's, not the seat's
        ("| `p{i}_doubles_taken` | 1 per player | double-hex tiles taken (0-2) |", False),
    ],
)
def test_the_scan_finds_a_wrong_range_and_only_that(tmp_path: Path, line: str, wrong: bool) -> None:
    tables = (
        Table("LEVELS", 1, 6, LEVEL_RANGES, "-"),
        Table("PLAYER_COUNTS", 2, 5, PLAYER_RANGES, " to "),
    )
    page = tmp_path / "page.md"
    page.write_text(f"first line\n{line}\n", encoding="utf-8")
    found = offenders([page], tables)
    assert bool(found) is wrong, found
    assert all(report.startswith(f"{page}:2: ") for report in found)


HOMES = {"PLAYER_COUNTS": "src/taluva/engine/options.py", "LEVELS": "src/taluva/ai/levels.py"}
"""The module that holds each table, whose own docstrings may say what it holds."""


def copies(paths: Iterable[Path], tables: Sequence[Table] = TABLES) -> list[str]:
    """``path:line: 'text'`` for every range written out in full (right or wrong) outside
    its table's home: code must build it from the table."""
    return [
        f"{where}:{number}: {line.strip()!r} ({table.name})"
        for where, number, line, table, matches in ranges_in(paths, tables)
        if where != HOMES.get(table.name)
        and any((int(m[1]), int(m[2])) == (table.low, table.high) for m in matches)
    ]


def test_the_code_builds_level_and_player_count_ranges_from_the_tables() -> None:
    """The package's messages, help texts and the web client never type a table's range:
    when the table changes, they change with it."""
    code = [p for p in checked_files() if p.suffix in (".py", ".js")]
    written = copies(code)
    assert not written, "ranges typed by hand; build them from the table:\n" + "\n".join(written)


def test_a_range_typed_in_code_is_found_even_when_it_is_right(tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text('help="2 to 5 (default 2)"\nok = f"{player_count_range()}"\n')
    tables = (Table("PLAYER_COUNTS", 2, 5, PLAYER_RANGES, " to "),)
    assert copies([module], tables) == []  # "2 to 5 (default" names no players: left alone
    module.write_text('raise ValueError("Taluva is for 2 to 5 players")\n')
    assert len(copies([module], tables)) == 1
