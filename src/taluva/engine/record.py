"""Game records (docs/notation.md, "Game records"): JSON that replays a game move by move.

This module checks a record's shape and reads and writes record files; replaying the moves
is the game's (``Game.from_record``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from taluva.engine.errors import InvalidRecord
from taluva.engine.outcome import LEAVING_CHOICES, LEAVING_REASONS, Outcome, Reason, Resignation

RECORD_FORMAT: Final = "taluva-record/1"
_OPTIONAL_KEYS: Final = {"doubles", "result", "resignations", "rated"}
_KEYS: Final = {"format", "players", "options", "deck", "moves", *_OPTIONAL_KEYS}
_RESIGNATION_KEYS: Final = {"ply", "player", "reason"}
_OPTION_KEYS: Final = {"tiles_per_player", "expansions", "house_rules"}


@dataclass(frozen=True, slots=True)
class RecordFields:
    """A record whose shape has been checked: what ``Game.new`` and the replay need."""

    players: list[Any]
    tiles_per_player: Any
    expansions: list[str]
    house_rules: list[str]
    deck: list[Any]
    doubles: list[str]
    moves: list[Any]
    result: Any
    source: str
    resignations: tuple[Resignation, ...] = ()

    def claimed_result(self) -> Outcome | None:
        """The result the record claims (checked against the replay by ``Game.from_record``)."""
        if self.result is None:
            return None
        try:
            return Outcome.from_json(self.result)
        except ValueError as error:
            raise InvalidRecord(f"{self.source}: {error}") from None


def make_record(
    *,
    players: Sequence[str],
    options: Mapping[str, Any],
    deck: Sequence[str],
    doubles: Sequence[str],
    moves: Sequence[str],
    result: Mapping[str, Any] | None = None,
    resignations: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The one writer of a game record's dict: every key in the order of docs/notation.md,
    ``resignations`` only when somebody resigned or ran out of time."""
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "players": list(players),
        "options": options,
        "deck": list(deck),
        "doubles": list(doubles),
        "moves": list(moves),
        "result": None if result is None else dict(result),
    }
    if resignations:
        record["resignations"] = [dict(entry) for entry in resignations]
    return record


def read_record(record: Any, *, source: str = "record") -> RecordFields:
    """Check a record (dict or JSON text) key by key; raise InvalidRecord naming the problem."""
    if isinstance(record, (str, bytes)):
        try:
            record = json.loads(record)
        except json.JSONDecodeError as error:
            raise InvalidRecord(f"{source}: not valid JSON ({error})") from None
    if not isinstance(record, Mapping):
        raise InvalidRecord(f"{source}: a record is a JSON object, not {type(record).__name__}")
    missing = sorted(_KEYS - _OPTIONAL_KEYS - record.keys())
    if missing:
        raise InvalidRecord(f"{source}: missing key(s) {', '.join(missing)}")
    unknown = sorted(record.keys() - _KEYS)
    if unknown:
        raise InvalidRecord(f"{source}: unknown key(s) {', '.join(unknown)}")
    if record["format"] != RECORD_FORMAT:
        raise InvalidRecord(
            f"{source}: format is {record['format']!r}, this program reads {RECORD_FORMAT!r}"
        )
    options = record["options"]
    if not isinstance(options, Mapping):
        raise InvalidRecord(f"{source}: options must be an object")
    unknown = sorted(options.keys() - _OPTION_KEYS)
    if unknown:
        raise InvalidRecord(f"{source}: unknown option(s) {', '.join(unknown)}")
    for key in ("deck", "moves"):
        if not isinstance(record[key], list):
            raise InvalidRecord(f"{source}: {key} must be a list")
    doubles = record.get("doubles") or []
    if not isinstance(doubles, list):
        raise InvalidRecord(f"{source}: doubles must be a list")
    if not isinstance(record["players"], list):
        raise InvalidRecord(f"{source}: players must be a list of names")
    expansions = _string_list(options.get("expansions", []), source, "options.expansions")
    house_rules = _string_list(options.get("house_rules", []), source, "options.house_rules")
    doubles = _string_list(doubles, source, "doubles")
    resignations = _resignations(record.get("resignations") or [], len(record["moves"]), source)
    if not isinstance(record.get("rated", False), bool):
        raise InvalidRecord(f"{source}: rated must be true or false")
    return RecordFields(
        record["players"], options.get("tiles_per_player", 12), expansions, house_rules,
        record["deck"], doubles, record["moves"], record.get("result"), source, resignations,
    )  # fmt: skip


def _resignations(value: Any, moves: int, source: str) -> tuple[Resignation, ...]:
    """The record's ``resignations``, in order: each after ``ply`` moves (0 to ``moves``,
    never before the one above it), a player index, ``resigned`` or ``timeout``."""
    if not isinstance(value, list):
        raise InvalidRecord(f"{source}: resignations must be a list")
    found: list[Resignation] = []
    for index, entry in enumerate(value):
        where = f"{source}: resignations[{index}]"
        if not isinstance(entry, Mapping) or set(entry) != _RESIGNATION_KEYS:
            raise InvalidRecord(f"{where} must be an object with 'ply', 'player' and 'reason'")
        ply, player, reason = entry["ply"], entry["player"], entry["reason"]
        earliest = found[-1].ply if found else 0
        if type(ply) is not int or not earliest <= ply <= moves:
            raise InvalidRecord(
                f"{where}.ply is {ply!r}: a whole number from {earliest} to {moves}"
            )
        if type(player) is not int:
            raise InvalidRecord(f"{where}.player is {player!r}, not a player index")
        if reason not in LEAVING_REASONS:
            raise InvalidRecord(f"{where}.reason is {reason!r}: {LEAVING_CHOICES}")
        found.append(Resignation(ply, player, Reason(reason)))
    return tuple(found)


def _string_list(value: Any, source: str, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidRecord(f"{source}: {where} must be a list of strings")
    return value


def read_record_file(path: str | Path) -> str:
    """The text of a record file; raise InvalidRecord naming the file if it cannot be read."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise InvalidRecord(f"{path}: cannot read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise InvalidRecord(f"{path}: not UTF-8 text") from None


def write_record_file(record: Mapping[str, Any], path: str | Path) -> None:
    """Write a record as JSON, atomically (a crash never leaves half a file)."""
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)
