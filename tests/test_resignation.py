"""Leaving a game (docs/rules.md, ruling 22): resigning or running out of time, at any moment,
ranked as an elimination; records keep it apart from the moves."""

from __future__ import annotations

import pytest

from taluva import Game, IllegalMove, InvalidRecord
from taluva.engine.outcome import Reason, Resignation

DECK = ["JC", "SR", "LL", "CS", "JR", "SL", "CC", "RJ"]


def game_of(players: list[str], moves: tuple[str, ...] = ()) -> Game:
    game = Game.new(players=players, deck=DECK)
    for move in moves:
        game.play(move)
    return game


def test_in_a_two_player_game_the_other_player_wins_when_one_resigns() -> None:
    game = game_of(["Ana", "Ben"], ("tile 0,0 0",))
    game.resign("Ana")
    assert dict(game.result or {}) == {"ranking": [[1], [0]], "reason": "resigned"}
    assert game.is_over and game.legal_moves() == []
    assert game.result_in_words() == (
        "Ben wins: Ana resigned",
        ["1st Ben: 0 temples, 0 towers, 0 huts placed", "2nd Ana: 0 temples, 0 towers, 0 huts "
         "placed, resigned"],
    )  # fmt: skip


def test_a_player_may_resign_when_it_is_not_their_turn() -> None:
    game = game_of(["Ana", "Ben"], ("tile 0,0 0",))
    assert game.to_move == 0
    game.resign(1)
    assert game.result is not None and game.result.winners == (0,)
    assert game.result_in_words()[0] == "Ana wins: Ben resigned"


def test_running_out_of_time_ends_a_two_player_game_with_reason_timeout() -> None:
    game = game_of(["Ana", "Ben"])
    game.resign("Ben", "timeout")
    assert dict(game.result or {}) == {"ranking": [[0], [1]], "reason": "timeout"}
    assert game.result_in_words()[0] == "Ana wins: Ben ran out of time"


def test_with_three_players_the_game_goes_on_without_a_player_who_resigns() -> None:
    game = game_of(["Ana", "Ben", "Cyd"], ("tile 0,0 0",))
    moves_before = sorted(map(str, game.legal_moves()))
    game.resign("Cyd")
    assert (game.result, game.eliminated, game.to_move, game.phase) == (None, (2,), 0, "build")
    assert sorted(map(str, game.legal_moves())) == moves_before
    game.play("hut 1,0")
    assert game.to_move == 1
    game.play(game.legal_moves()[0])
    game.play(game.legal_moves()[0])
    assert game.to_move == 0, "Cyd's seat is skipped"


def test_a_player_who_resigns_on_their_turn_puts_the_drawn_tile_back_for_the_next() -> None:
    game = game_of(
        ["Ana", "Ben", "Cyd"],
        (
            "tile 0,0 0",
            "hut 1,0",
        ),
    )
    assert (game.to_move, game.tile, game.tiles_left) == (1, "SR", 6)
    game.resign("Ben")
    assert (game.to_move, game.phase, game.tile, game.tiles_left) == (2, "tile", "SR", 6)


def test_a_player_who_resigns_after_placing_the_tile_leaves_it_on_the_island() -> None:
    game = game_of(["Ana", "Ben", "Cyd"], ("tile 0,0 0",))
    game.resign("Ana")
    assert (len(game.land()), game.to_move, game.tile, game.tiles_left) == (3, 1, "SR", 6)


def test_resigned_players_rank_last_the_later_out_the_higher() -> None:
    game = game_of(
        ["Ana", "Ben", "Cyd", "Dan"],
        (
            "tile 0,0 0",
            "hut 1,0",
        ),
    )
    game.resign("Cyd")
    game.resign("Ana", "timeout")
    assert game.result is None
    game.resign("Dan")
    assert dict(game.result or {}) == {"ranking": [[1], [3], [0], [2]], "reason": "resigned"}
    assert game.result_in_words() == (
        "Ben wins: Dan resigned",
        [
            "1st Ben: 0 temples, 0 towers, 0 huts placed",
            "2nd Dan: 0 temples, 0 towers, 0 huts placed, resigned",
            "3rd Ana: 0 temples, 0 towers, 1 hut placed, ran out of time",
            "4th Cyd: 0 temples, 0 towers, 0 huts placed, resigned",
        ],
    )


def test_when_the_others_finish_on_tiles_resigned_players_rank_below_them() -> None:
    game = game_of(["Ana", "Ben", "Cyd"])
    game.resign("Ana")
    while not game.is_over:
        game.play(game.legal_moves()[0])
    assert game.result is not None and game.result.reason == "tiles"
    assert game.result.ranking[-1] == (0,)


@pytest.mark.parametrize(
    ("player", "message"),
    [
        (3, "there is no player 3 in this game (players 0 to 2)"),
        (-1, "there is no player -1 in this game (players 0 to 2)"),
        ("Eve", "there is no player named 'Eve' in this game"),
        ("Cyd", "Cyd is already out of the game"),
    ],
)
def test_an_unknown_player_or_one_already_out_cannot_resign(
    player: int | str, message: str
) -> None:
    game = game_of(["Ana", "Ben", "Cyd"], ("tile 0,0 0",))
    game.resign("Cyd")
    before = game.position
    with pytest.raises(IllegalMove) as refused:
        game.resign(player)
    assert str(refused.value) == message
    assert game.position is before


def test_nobody_resigns_from_a_game_that_is_over_or_for_an_unknown_reason() -> None:
    game = game_of(["Ana", "Ben"])
    with pytest.raises(IllegalMove, match="'resigned', 'timeout' or 'left', not 'bored'"):
        game.resign("Ana", "bored")
    game.resign("Ana")
    before = game.position
    with pytest.raises(IllegalMove, match="the game is over"):
        game.resign("Ben")
    assert game.position is before


def test_pop_takes_a_resignation_back_with_the_move_before_it_and_copies_keep_it() -> None:
    game = game_of(["Ana", "Ben", "Cyd"], ("tile 0,0 0",))
    game.resign("Cyd")
    copy = game.copy()
    game.play("hut 1,0")
    assert game.eliminated == (2,)
    assert str(game.pop()) == "hut 1,0"
    assert (game.eliminated, game.resignations) == ((2,), (Resignation(1, 2, Reason.RESIGNED),))
    assert str(game.pop()) == "tile 0,0 0"
    assert (game.eliminated, game.resignations, game.ply) == ((), (), 0)
    assert (copy.eliminated, copy.ply, copy.to_record()["resignations"]) == (
        (2,),
        1,
        [{"ply": 1, "player": 2, "reason": "resigned"}],
    )


def test_a_record_with_resignations_round_trips() -> None:
    game = game_of(["Ana", "Ben", "Cyd", "Dan"])
    game.resign("Dan")
    game.play("tile 0,0 0")
    game.play("hut 1,0")
    game.resign("Ana", "timeout")
    game.resign("Cyd")
    record = game.to_record()
    assert record["resignations"] == [
        {"ply": 0, "player": 3, "reason": "resigned"},
        {"ply": 2, "player": 0, "reason": "timeout"},
        {"ply": 2, "player": 2, "reason": "resigned"},
    ]
    again = Game.from_record(record)
    assert again.to_record() == record
    assert (again.result, again.eliminated) == (game.result, (3, 0, 2))


def test_a_record_without_resignations_is_written_and_read_as_before() -> None:
    game = game_of(["Ana", "Ben"], ("tile 0,0 0",))
    record = game.to_record()
    assert "resignations" not in record
    assert Game.from_record({**record, "resignations": []}).to_record() == record


@pytest.mark.parametrize(
    ("resignations", "message"),
    [
        ({"ply": 0}, "resignations must be a list"),
        ([{"ply": 0, "player": 1}], "resignations[0] must be an object with 'ply', 'player' and"),
        ([{"ply": 2, "player": 1, "reason": "resigned"}], "resignations[0].ply is 2: a whole "),
        ([{"ply": 1, "player": 1, "reason": "resigned"}, {"ply": 0, "player": 0,
          "reason": "resigned"}], "resignations[1].ply is 0: a whole number from 1 to 1"),
        ([{"ply": 0, "player": "1", "reason": "resigned"}], "player is '1', not a player index"),
        ([{"ply": 0, "player": 1, "reason": "tired"}], "reason is 'tired': 'resigned', 'timeout'"),
        ([{"ply": 0, "player": 4, "reason": "resigned"}], "resignations[0]: there is no player"),
        ([{"ply": 0, "player": 1, "reason": "resigned"}] * 2, "[1]: the game is over"),
    ],
)  # fmt: skip
def test_a_record_with_a_bad_resignation_is_refused_naming_it(
    resignations: object, message: str
) -> None:
    record = game_of(["Ana", "Ben"], ("tile 0,0 0",)).to_record()
    with pytest.raises(InvalidRecord) as refused:
        Game.from_record({**record, "resignations": resignations})
    assert message in str(refused.value)


def test_a_claimed_result_must_match_the_resignations() -> None:
    game = game_of(["Ana", "Ben"], ("tile 0,0 0",))
    game.resign("Ben")
    record = game.to_record()
    del record["resignations"]
    with pytest.raises(InvalidRecord, match="result says"):
        Game.from_record(record)
