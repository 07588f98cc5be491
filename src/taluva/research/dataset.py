"""Datasets: stream game records from JSON Lines, and turn games into training samples.

An arena writes one game record (docs/notation.md, "Game records") per line. ``read_records``
streams them without loading the file; keys a record does not define (an arena may add the
agents' names, timings...) are kept apart as ``extra``. ``training_samples`` replays games
and yields, for every move, what the mover saw (planes, scalars), which actions were legal,
which one was chosen and how the game ended for the mover; ``export_npz`` writes them to one
NumPy file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import numpy as np
import numpy.typing as npt

from taluva.engine.errors import InvalidRecord
from taluva.engine.game import Game
from taluva.research.actions import DEFAULT_RADIUS, OutsideWindow, returns_of
from taluva.research.observations import Observer

RECORD_KEYS: Final = frozenset(
    {"format", "players", "options", "deck", "doubles", "moves", "result"}
)
NPZ_FORMAT: Final = "taluva-samples/1"


@dataclass(frozen=True)
class RecordLine:
    """One game read from a JSON Lines file: where it was, the record, and any other keys."""

    source: str
    line: int
    record: dict[str, Any]
    extra: dict[str, Any]

    @property
    def where(self) -> str:
        """``file:line``, for messages."""
        return f"{self.source}:{self.line}"

    def game(self) -> Game:
        """Replay the record, checking every move; InvalidRecord names the file and line."""
        return Game.from_record(self.record, source=self.where)


def read_records(source: str | Path | IO[str]) -> Iterator[RecordLine]:
    """Stream the records of a JSON Lines file (a path, ``-`` for standard input, or an open
    text file), one per non-blank line; InvalidRecord names the line of a malformed one."""
    if isinstance(source, (str, Path)):
        if str(source) == "-":
            import sys

            yield from _lines(sys.stdin, "<stdin>")
            return
        path = Path(source)
        try:
            handle = path.open(encoding="utf-8")
        except OSError as error:
            raise InvalidRecord(f"{path}: cannot read ({error.strerror or error})") from None
        with handle:
            yield from _lines(handle, str(path))
        return
    yield from _lines(source, getattr(source, "name", "<stream>"))


def _lines(handle: IO[str], name: str) -> Iterator[RecordLine]:
    number = 0
    while True:
        try:
            text = handle.readline()
        except UnicodeDecodeError:
            raise InvalidRecord(f"{name}:{number + 1}: not UTF-8 text") from None
        if not text:
            return
        number += 1
        if not text.strip():
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidRecord(f"{name}:{number}: not valid JSON ({error.msg})") from None
        if not isinstance(data, dict):
            raise InvalidRecord(
                f"{name}:{number}: a line holds one game record (a JSON object), "
                f"not {type(data).__name__}"
            )
        if "record" in data and isinstance(data["record"], dict):
            record = data["record"]
            extra = {key: value for key, value in data.items() if key != "record"}
        else:
            record = {key: value for key, value in data.items() if key in RECORD_KEYS}
            extra = {key: value for key, value in data.items() if key not in RECORD_KEYS}
        yield RecordLine(name, number, record, extra)


def read_games(source: str | Path | IO[str]) -> Iterator[Game]:
    """Stream the games of a JSON Lines file, each replayed and checked."""
    for entry in read_records(source):
        yield entry.game()


@dataclass
class Sample:
    """One training example: the position before a move as its mover saw it, and the move."""

    planes: npt.NDArray[np.float32]
    scalars: npt.NDArray[np.float32]
    legal: list[int]
    action: int
    value: float
    player: int
    ply: int


@dataclass
class ExportStats:
    """What an export kept and skipped, and why."""

    games: int = 0
    samples: int = 0
    unfinished: int = 0
    outside_window: int = 0
    skipped: list[str] = field(default_factory=list)


def training_samples(
    games: Iterable[Game], radius: int = DEFAULT_RADIUS, stats: ExportStats | None = None
) -> Iterator[Sample]:
    """Every move of every finished game as a Sample; ``value`` is the mover's final return
    (``returns_of``). A game is cut where a move leaves the action window (counted in
    ``stats.outside_window``); unfinished games are skipped (``stats.unfinished``)."""
    stats = stats if stats is not None else ExportStats()
    observers: dict[int, Observer] = {}
    for game in games:
        if game.result is None:
            stats.unfinished += 1
            continue
        players = game.player_count
        observer = observers.get(players)
        if observer is None:
            observer = observers[players] = Observer(players, radius)
        space = observer.space
        values = returns_of(game.result, players)
        replay = _start_of(game)
        stats.games += 1
        for ply, move in enumerate(game.moves):
            moves = replay.legal_moves()
            if not space.fits(move):
                stats.outside_window += 1
                break
            try:
                action = space.encode(replay, move)
            except OutsideWindow:
                stats.outside_window += 1
                break
            legal = space.legal_actions(replay, moves)
            planes, scalars = observer.observe(replay, legal_actions=legal)
            player = replay.to_move
            yield Sample(planes, scalars, legal, action, values[player], player, ply)
            stats.samples += 1
            replay.play(move)


def _start_of(game: Game) -> Game:
    record = game.to_record()
    record["moves"] = []
    record["result"] = None
    return Game.from_record(record)


def export_npz(
    games: Iterable[Game], path: str | Path, radius: int = DEFAULT_RADIUS
) -> ExportStats:
    """Write every sample of some games to a compressed ``.npz`` (see docs/research.md).

    Arrays: ``planes`` (uint8, N x C x S x S), ``scalars`` (float32), ``legal`` (the legal
    mask packed with ``np.packbits``, N x ceil(A / 8)), ``action``, ``value``, ``player``,
    ``ply``, ``game``; and ``channels``, ``scalar_names``, ``action_count``, ``radius``.
    All games must have the same number of players (the planes differ otherwise).
    """
    stats = ExportStats()
    columns: dict[str, list[Any]] = {
        name: [] for name in ("planes", "scalars", "legal", "action", "value", "player", "ply")
    }
    game_index: list[int] = []
    players: int | None = None
    observer: Observer | None = None
    for number, game in enumerate(games):
        if players is None:
            players = game.player_count
            observer = Observer(players, radius)
        elif game.player_count != players:
            raise ValueError(
                f"game {number + 1} has {game.player_count} players, the first had {players}: "
                "export games of each player count to their own file"
            )
        assert observer is not None
        size = observer.space.size
        for sample in training_samples([game], radius, stats):
            mask = np.zeros(size, np.uint8)
            mask[sample.legal] = 1
            columns["planes"].append(sample.planes.astype(np.uint8))
            columns["scalars"].append(sample.scalars)
            columns["legal"].append(np.packbits(mask))
            columns["action"].append(sample.action)
            columns["value"].append(sample.value)
            columns["player"].append(sample.player)
            columns["ply"].append(sample.ply)
            game_index.append(number)
    if observer is None:
        raise ValueError("no games to export")
    shape = observer.planes_shape
    arrays = {
        "format": np.array(NPZ_FORMAT),
        "planes": np.stack(columns["planes"]) if game_index else np.zeros((0, *shape), np.uint8),
        "scalars": np.array(columns["scalars"], np.float32).reshape(-1, observer.scalars_shape[0]),
        "legal": np.array(columns["legal"], np.uint8).reshape(-1, (observer.space.size + 7) // 8),
        "action": np.array(columns["action"], np.int32),
        "value": np.array(columns["value"], np.float32),
        "player": np.array(columns["player"], np.int8),
        "ply": np.array(columns["ply"], np.int16),
        "game": np.array(game_index, np.int32),
        "channels": np.array(observer.channels),
        "scalar_names": np.array(observer.scalars),
        "action_count": np.array(observer.space.size),
        "radius": np.array(radius),
    }
    target = Path(path)
    with target.open("wb") as handle:
        np.savez_compressed(handle, **arrays)  # type: ignore[arg-type]
    return stats


def load_npz(path: str | Path) -> dict[str, npt.NDArray[Any]]:
    """Read an exported file, with ``legal`` unpacked to a boolean N x A mask."""
    with np.load(Path(path)) as data:
        if "format" not in data or str(data["format"]) != NPZ_FORMAT:
            raise ValueError(f"{path}: not a taluva samples file ({NPZ_FORMAT})")
        arrays = {name: data[name] for name in data.files}
    count = int(arrays["action_count"])
    arrays["legal"] = np.unpackbits(arrays["legal"], axis=1, count=count).astype(bool)
    return arrays
