"""Game records (NOTATION.md, "Game records"): JSON that replays a game move by move."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from taluva.engine.errors import IllegalMove, InvalidOption, InvalidRecord
from taluva.engine.game import Game
from taluva.engine.outcome import Outcome

RECORD_FORMAT: Final = "taluva-record/1"
_KEYS: Final = {"format", "players", "options", "deck", "doubles", "moves", "result"}
_OPTION_KEYS: Final = {"tiles_per_player", "expansions", "house_rules"}


def game_from_record(record: Any, *, source: str = "record") -> Game:
    """Replay a record (dict or JSON text), checking every move; raise InvalidRecord.

    The error names the first illegal move by its index and says why it is illegal.
    """
    if isinstance(record, (str, bytes)):
        try:
            record = json.loads(record)
        except json.JSONDecodeError as error:
            raise InvalidRecord(f"{source}: not valid JSON ({error})") from None
    if not isinstance(record, Mapping):
        raise InvalidRecord(f"{source}: a record is a JSON object, not {type(record).__name__}")
    missing = sorted(_KEYS - {"doubles", "result"} - record.keys())
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
    try:
        game = Game.new(
            players=record["players"],
            deck=record["deck"],
            tiles_per_player=options.get("tiles_per_player", 12),
            expansions=_string_list(options.get("expansions", []), source, "options.expansions"),
            house_rules=_string_list(
                options.get("house_rules", []), source, "options.house_rules"
            ),
            doubles=_string_list(doubles, source, "doubles"),
        )
    except InvalidOption as error:
        raise InvalidRecord(f"{source}: {error}") from None
    for index, text in enumerate(record["moves"]):
        if not isinstance(text, str):
            raise InvalidRecord(f"{source}: moves[{index}] is {text!r}, not move text")
        try:
            game.play(text)
        except IllegalMove as error:
            raise InvalidRecord(f"{source}: moves[{index}] {error}") from None
    claimed = record.get("result")
    if claimed is not None:
        try:
            outcome = Outcome.from_json(claimed)
        except ValueError as error:
            raise InvalidRecord(f"{source}: {error}") from None
        if outcome != game.result:
            actual = "the game is not over" if game.result is None else f"it is {dict(game.result)}"
            raise InvalidRecord(
                f"{source}: result says {dict(outcome)} but after the moves {actual}"
            )
    return game


def _string_list(value: Any, source: str, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidRecord(f"{source}: {where} must be a list of strings")
    return value


def load_record(path: str | Path) -> Game:
    """Read a record file and replay it; raise InvalidRecord naming the file on any problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InvalidRecord(f"{path}: cannot read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise InvalidRecord(f"{path}: not UTF-8 text") from None
    return game_from_record(text, source=str(path))


def save_record(game: Game, path: str | Path) -> None:
    """Write a game's record as JSON, atomically (a crash never leaves half a file)."""
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(game.to_record(), indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)
