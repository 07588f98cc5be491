"""Game records on disk: a saved game loads back exactly, and every kind of bad record is
refused with an InvalidRecord that says what is wrong and where (file, key, index)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from taluva import Game, InvalidRecord

Observe = Callable[[Game], dict[str, Any]]
Record = dict[str, Any]
Change = Callable[[Record], Any]

DECK = ["JC", "SR", "JJ", "LL"]
OPENING = ["tile 0,0 0", "hut 1,0", "tile -1,0 3", "hut -2,0", "tile 1,1 0", "expand jungle 2,0"]
"""A legal opening on DECK: Ana founds at 1,0, Ben at -2,0, Ana expands into the jungle."""


def play(moves: list[str], names: tuple[str, str] = ("Ana", "Ben")) -> Game:
    """A two-player game on DECK after the given moves."""
    game = Game.new(players=list(names), deck=DECK)
    for move in moves:
        game.play(move)
    return game


def finished_game() -> Game:
    """A two-player game on DECK played to its end (the first move in sorted order each time)."""
    game = Game.new(players=["Zoë", "李"], deck=DECK)
    while game.phase != "over":
        game.play(sorted(game.legal_moves())[0])
    return game


# ------------------------------------------------------------------ save and load


@pytest.mark.parametrize("plies", [0, 1, 4, None], ids=["fresh", "build-phase", "tile", "over"])
def test_saved_game_loads_back_to_the_same_state(
    plies: int | None, tmp_path: Path, state_of: Observe
) -> None:
    """save then load reproduces the game, whatever its phase."""
    game = finished_game()
    while plies is not None and game.ply > plies:
        game.pop()
    path = tmp_path / "game.json"
    game.save(path)
    loaded = Game.load(path)
    assert state_of(loaded) == state_of(game)
    assert loaded.players == ("Zoë", "李")
    text = path.read_text(encoding="utf-8")
    assert json.loads(text) == game.to_record() and text.endswith("\n")


def test_a_loaded_game_plays_on_like_the_original(tmp_path: Path, state_of: Observe) -> None:
    """Loading restores the whole position, so the same next moves give the same game."""
    original = play(OPENING[:4])
    original.save(tmp_path / "game.json")
    loaded = Game.load(tmp_path / "game.json")
    for move in OPENING[4:]:
        original.play(move)
        loaded.play(move)
        assert state_of(loaded) == state_of(original)


def test_saving_over_a_record_replaces_it_whole_and_leaves_no_temporary_file(
    tmp_path: Path,
) -> None:
    """A second save overwrites the first completely; nothing else is left in the folder."""
    path = tmp_path / "game.json"
    finished_game().save(path)
    fresh = play([])
    fresh.save(path)
    assert json.loads(path.read_text(encoding="utf-8")) == fresh.to_record()
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]


def test_a_save_that_fails_midway_leaves_the_old_file_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write is atomic: a crash while writing never leaves half a record in its place."""
    path = tmp_path / "game.json"
    game = finished_game()
    game.save(path)
    before = path.read_bytes()
    write_text = Path.write_text

    def crash_halfway(self: Path, text: str, *args: Any, **kwargs: Any) -> int:
        write_text(self, text[: len(text) // 2], *args, **kwargs)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", crash_halfway)
    with pytest.raises(OSError, match="No space left"):
        play(OPENING).save(path)
    assert path.read_bytes() == before
    assert Game.load(path).to_record() == game.to_record()


# ------------------------------------------------------------------ bad records


def setting(**changes: Any) -> Change:
    """Break the opening record by setting keys."""
    return lambda record: {**record, **changes}


def dropping(*keys: str) -> Change:
    """Break the opening record by dropping keys."""
    return lambda record: {k: v for k, v in record.items() if k not in keys}


def setting_options(**changes: Any) -> Change:
    """Break the opening record by setting options."""
    return lambda record: {**record, "options": {**record["options"], **changes}}


def finished_claiming(result: Any) -> Change:
    """A finished game's record, with its result replaced."""
    return lambda record: {**finished_game().to_record(), "result": result}


BAD_RECORDS: list[tuple[str, Change, list[str]]] = [
    ("not-an-object", lambda record: [record], ["a record is a JSON object, not list"]),
    ("missing-key", dropping("moves"), ["missing key", "moves"]),
    ("missing-keys", dropping("deck", "players"), ["missing key", "deck, players"]),
    ("unknown-key", setting(comment="hi"), ["unknown key", "comment"]),
    ("wrong-format", setting(format="taluva-record/2"), ["format is 'taluva-record/2'"]),
    ("no-format", setting(format=None), ["format is None"]),
    ("one-player", setting(players=["Ana"]), ["1 players", "2 to 5"]),
    ("six-players", setting(players=list("abcdef")), ["6 players", "2 to 5"]),
    ("players-not-a-list", setting(players=2), ["players"]),
    ("empty-name", setting(players=["Ana", " "]), ["player 2", "name"]),
    ("name-not-text", setting(players=["Ana", 7]), ["player 2", "name 7"]),
    ("options-not-an-object", setting(options=[12]), ["options must be an object"]),
    ("unknown-option", setting_options(zone="expert"), ["unknown option", "zone"]),
    ("unknown-expansion", setting_options(expansions=["pirates"]), ["expansion 'pirates'"]),
    ("expansions-not-a-list", setting_options(expansions="ships"), ["options.expansions"]),
    ("unknown-house-rule", setting_options(house_rules=["free_towers"]), ["'free_towers'"]),
    ("house-rules-not-text", setting_options(house_rules=[1]), ["options.house_rules"]),
    ("13-tiles-each", setting_options(tiles_per_player=13), ["tiles_per_player is 13"]),
    (
        "18-tiles-for-3",
        lambda record: {
            **setting_options(tiles_per_player=18)(record),
            "players": ["a", "b", "c"],
        },
        ["18 tiles per player", "two players only", "3-player"],
    ),
    ("deck-not-a-list", setting(deck="JCSR"), ["deck must be a list"]),
    ("unknown-tile", setting(deck=["JC", "SR", "JV", "LL"]), ["deck[2]", "'JV'"]),
    ("tile-not-text", setting(deck=["JC", 12]), ["deck[1]", "12"]),
    ("too-many-copies", setting(deck=["JC"] * 7), ["7 JC", "only 6"]),
    ("moves-not-a-list", setting(moves="tile 0,0 0"), ["moves must be a list"]),
    ("move-not-text", setting(moves=["tile 0,0 0", 5]), ["moves[1]", "5", "not move text"]),
    ("move-as-object", setting(moves=[{"tile": "0,0"}]), ["moves[0]", "not move text"]),
    ("malformed-move", setting(moves=[*OPENING[:2], "tile 0,0"]), ["moves[2]", "'tile 0,0'"]),
    ("unknown-move", setting(moves=["tile 0,0 0", "build 1,0"]), ["moves[1]", "'build'"]),
    ("bad-hex", setting(moves=["tile 0,0 0", "hut 1;0"]), ["moves[1]", "'1;0'"]),
    (
        "illegal-move",
        setting(moves=[*OPENING[:5], "hut 2,0"]),
        ["moves[5]", "hut 2,0", "next to your building at 1,0"],
    ),
    ("first-tile-off-centre", setting(moves=["tile 1,0 0"]), ["moves[0]", "0,0"]),
    (
        "result-of-a-running-game",
        setting(result={"ranking": [[0], [1]], "reason": "tiles"}),
        ["result says", "the game is not over"],
    ),
    (
        "result-with-wrong-ranking",
        finished_claiming({"ranking": [[1], [0]], "reason": "victory"}),
        ["result says", "'ranking': [[1], [0]]", "but after the moves it is"],
    ),
    (
        "result-with-unknown-reason",
        finished_claiming({"ranking": [[0], [1]], "reason": "conceded"}),
        ["result.reason 'conceded'"],
    ),
    ("result-not-an-object", finished_claiming("Zoë won"), ["result must be null or an object"]),
]


@pytest.mark.parametrize(
    ("change", "expected"), [pytest.param(c, e, id=i) for i, c, e in BAD_RECORDS]
)
def test_bad_record_file_is_refused_saying_what_and_where(
    change: Change, expected: list[str], tmp_path: Path
) -> None:
    """Each broken record raises InvalidRecord naming the file and the key, index or rule."""
    path = tmp_path / "bad-game.json"
    path.write_text(json.dumps(change(play(OPENING).to_record())), encoding="utf-8")
    with pytest.raises(InvalidRecord) as error:
        Game.load(path)
    message = str(error.value)
    assert message.startswith(f"{path}: "), message
    for part in expected:
        assert part in message, message


@pytest.mark.parametrize(
    ("change", "expected"), [pytest.param(c, e, id=i) for i, c, e in BAD_RECORDS[:12]]
)
def test_bad_record_object_is_refused_by_from_record(change: Change, expected: list[str]) -> None:
    """Game.from_record gives the same errors for a record passed as an object."""
    with pytest.raises(InvalidRecord) as error:
        Game.from_record(change(play(OPENING).to_record()))
    for part in expected:
        assert part in str(error.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param('{"format": "taluva-record/1", "players": ["a",', "line 1 column", id="cut"),
        pytest.param("", "line 1 column 1", id="empty"),
        pytest.param("{'format': 1}", "line 1 column 2", id="single-quotes"),
        pytest.param("[1, 2, 3]", "a record is a JSON object, not list", id="list"),
        pytest.param('"taluva"', "a record is a JSON object, not str", id="string"),
    ],
)
def test_text_that_is_no_record_is_refused_with_its_position(
    text: str, expected: str, tmp_path: Path
) -> None:
    """Truncated or foreign JSON names the file and where the text goes wrong."""
    path = tmp_path / "cut.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidRecord) as error:
        Game.load(path)
    assert str(error.value).startswith(f"{path}: ") and expected in str(error.value)
    with pytest.raises(InvalidRecord, match=r"^record: "):
        Game.from_record(text)


def test_a_truncated_saved_record_is_refused(tmp_path: Path) -> None:
    """A record cut short anywhere (as by a full disk) is refused, never half loaded."""
    path = tmp_path / "game.json"
    finished_game().save(path)
    text = path.read_text(encoding="utf-8").rstrip()
    for end in range(0, len(text), 7):
        path.write_text(text[:end], encoding="utf-8")
        with pytest.raises(InvalidRecord, match="not valid JSON"):
            Game.load(path)


def test_unreadable_files_are_refused_naming_the_file(tmp_path: Path) -> None:
    """A missing file, a folder or bytes that are not UTF-8 give InvalidRecord, not OSError."""
    missing = tmp_path / "nowhere.json"
    with pytest.raises(InvalidRecord, match=r"nowhere\.json: cannot read"):
        Game.load(missing)
    with pytest.raises(InvalidRecord, match="cannot read"):
        Game.load(tmp_path)
    latin = tmp_path / "latin1.json"
    latin.write_bytes(
        json.dumps(play([]).to_record()).replace("Ana", "Zo\\u00eb").encode()[:-1] + b"\xe9}"
    )
    with pytest.raises(InvalidRecord, match=r"latin1\.json: not UTF-8"):
        Game.load(latin)


def test_a_bad_record_leaves_no_partly_built_game_behind(state_of: Observe) -> None:
    """Failing at move 5 gives an error, not a game with the first moves played; the record
    is not altered, the error carries no engine internals, and the good prefix still loads
    exactly."""
    record = setting(moves=[*OPENING[:5], "hut 2,0"])(play(OPENING).to_record())
    pristine = copy.deepcopy(record)
    with pytest.raises(InvalidRecord) as error:
        Game.from_record(record)
    assert record == pristine
    assert error.value.__cause__ is None and error.value.__suppress_context__
    assert state_of(Game.from_record({**record, "moves": OPENING[:5]})) == state_of(
        play(OPENING[:5])
    )


def test_records_missing_optional_keys_load() -> None:
    """doubles and result may be left out of a record (docs/notation.md: empty, null)."""
    record = play(OPENING).to_record()
    del record["doubles"], record["result"]
    assert [str(move) for move in Game.from_record(record).moves] == OPENING


def test_move_text_in_a_record_is_read_leniently_and_saved_canonically() -> None:
    """Upper case, extra spaces and terrain letters load; the saved record prints canon."""
    record = play(OPENING).to_record()
    record["moves"] = [
        "TILE 0,0 0",
        "hut  1 , 0",
        "tile (-1,0) 3",
        "Hut -2,0",
        "tile 1,1 0",
        "expand J 2,0",
    ]
    assert Game.from_record(record).to_record()["moves"] == OPENING


def test_a_servers_rated_mark_is_read_and_checked_but_plays_the_same_game() -> None:
    game = Game.new(players=["Ana", "Ben"], deck=["JC", "SR", "LL"])
    game.play("tile 0,0 0")
    record = game.to_record()
    assert "rated" not in record
    for rated in (True, False):
        assert Game.from_record({**record, "rated": rated}).to_record() == record
    with pytest.raises(InvalidRecord, match="rated must be true or false"):
        Game.from_record({**record, "rated": "yes"})
