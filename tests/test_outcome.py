"""How a game ends (docs/rules.md, "End of the game"): the outcome object, ranking and BGA score."""

from __future__ import annotations

from typing import Any

import pytest
from scenarios import fixture, replay

from taluva import Outcome, Reason
from taluva.engine.outcome import (
    STARTING_SUPPLY,
    placed_counts,
    rank_players,
    result_in_words,
    score,
)

BAD_RANKINGS: list[Any] = [[[]], [[0.5]], [["0"]], [[True]], [0, 1], "0,1", {"0": 1}]
"""Rankings that are not lists of non-empty lists of player indices."""

FULL = (20, 3, 2, 2)
"""A supply nobody has touched: huts, temples, towers, ships."""


def supply(huts: int = 0, temples: int = 0, towers: int = 0, ships: int = 0) -> tuple[int, ...]:
    """What is left after placing the given numbers of pieces."""
    return (20 - huts, 3 - temples, 2 - towers, 2 - ships)


def test_every_player_starts_with_20_huts_3_temples_2_towers_2_ships() -> None:
    assert STARTING_SUPPLY == FULL


def test_reasons_are_written_as_in_records() -> None:
    assert [str(reason) for reason in Reason] == [
        "victory",
        "last-standing",
        "tiles",
        "no-placement",
        "resigned",
        "timeout",
        "left",
    ]
    assert Reason("tiles") is Reason.TILES


def test_an_outcome_reads_and_compares_like_the_records_result_object() -> None:
    outcome = Outcome(((1,), (0, 2)), Reason.TILES)
    result = {"ranking": [[1], [0, 2]], "reason": "tiles"}
    assert dict(outcome) == result
    assert outcome == result
    assert outcome == Outcome(((1,), (0, 2)), Reason.TILES)
    assert outcome != Outcome(((1,), (0, 2)), Reason.VICTORY)
    assert outcome != {"ranking": [[1], [2, 0]], "reason": "tiles"}
    assert (outcome["ranking"], outcome["reason"]) == ([[1], [0, 2]], "tiles")
    assert list(outcome) == ["ranking", "reason"]
    assert len(outcome) == 2
    assert outcome.to_json() == result
    assert Outcome.from_json(result) == outcome


def test_a_finished_games_result_equals_its_records_result() -> None:
    record = fixture("tiles_out_shared_place")
    game = replay(record)
    assert game.result == record["result"] == {"ranking": [[0, 1]], "reason": "tiles"}
    assert game.to_record()["result"] == record["result"]
    assert Outcome.from_json(record["result"]) == game.result


def test_winners_are_everyone_sharing_first_place() -> None:
    assert Outcome(((2,), (0, 1)), Reason.VICTORY).winners == (2,)
    assert Outcome(((0, 1), (2,)), Reason.TILES).winners == (0, 1)


def test_places_count_shared_places_like_a_sports_table() -> None:
    outcome = Outcome(((3,), (0, 2), (1,)), Reason.TILES)
    assert [outcome.place_of(p) for p in range(4)] == [2, 4, 2, 1]
    with pytest.raises(ValueError) as caught:
        outcome.place_of(4)
    assert str(caught.value) == "player 4 is not in this ranking"


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ([[0], [1]], "result must be null or an object with 'ranking' and 'reason'"),
        ({"ranking": [[0]]}, "result must be null or an object with 'ranking' and 'reason'"),
        (
            {"ranking": [[0]], "reason": "tiles", "winner": 0},
            "result must be null or an object with 'ranking' and 'reason'",
        ),
        (
            {"ranking": [[0]], "reason": "won"},
            "result.reason 'won' is not one of victory, last-standing, tiles, no-placement, "
            "resigned, timeout, left",
        ),
        *(
            (
                {"ranking": ranking, "reason": "tiles"},
                "result.ranking must be a list of non-empty lists of player indices",
            )
            for ranking in BAD_RANKINGS
        ),
    ],
)
def test_a_malformed_result_object_is_refused_saying_why(obj: Any, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        Outcome.from_json(obj)
    assert str(caught.value) == message


def test_the_score_is_1000_a_temple_100_a_tower_1_a_hut() -> None:
    assert score(FULL) == 0
    assert score(supply(huts=13, temples=2, towers=1)) == 2113
    assert score(supply(huts=20, temples=3, towers=2)) == 3220
    assert score(supply(huts=1, ships=2)) == 1  # ships do not score


def test_pieces_placed_are_counted_temples_towers_huts_then_ships() -> None:
    placed = supply(huts=7, temples=1, towers=2, ships=1)
    assert placed_counts(placed, ships=False) == (1, 2, 7)
    assert placed_counts(placed, ships=True) == (1, 2, 7, 1)


def test_most_temples_rank_first_whatever_the_towers_and_huts() -> None:
    supplies = [supply(huts=20, towers=2), supply(huts=1, temples=1)]
    assert rank_players(supplies, (), None, False) == ((1,), (0,))


def test_with_equal_temples_most_towers_rank_first() -> None:
    supplies = [supply(huts=20, temples=1), supply(huts=1, temples=1, towers=1)]
    assert rank_players(supplies, (), None, False) == ((1,), (0,))


def test_with_equal_temples_and_towers_most_huts_rank_first() -> None:
    supplies = [supply(huts=9, temples=2, towers=1), supply(huts=10, temples=2, towers=1)]
    assert rank_players(supplies, (), None, False) == ((1,), (0,))


def test_players_equal_on_every_count_share_a_place_in_index_order() -> None:
    supplies = [supply(huts=5), supply(huts=8), supply(huts=5), supply(huts=8)]
    assert rank_players(supplies, (), None, False) == ((1, 3), (0, 2))


def test_ships_break_ties_only_in_games_with_ships() -> None:
    supplies = [supply(huts=5, ships=0), supply(huts=5, ships=1)]
    assert rank_players(supplies, (), None, False) == ((0, 1),)
    assert rank_players(supplies, (), None, True) == ((1,), (0,))


def test_the_winner_ranks_first_and_the_others_by_pieces_placed() -> None:
    supplies = [supply(huts=3), supply(huts=20, temples=3), supply(huts=9), supply(huts=3)]
    assert rank_players(supplies, (), 0, False) == ((0,), (1,), (2,), (3,))
    assert rank_players(supplies, (), 3, False) == ((3,), (1,), (2,), (0,))


def test_eliminated_players_rank_last_the_later_eliminated_higher() -> None:
    supplies = [supply(huts=1), supply(huts=20, temples=2), supply(huts=19, temples=3)]
    assert rank_players(supplies, (2, 1), None, False) == ((0,), (1,), (2,))
    assert rank_players(supplies, (1, 2), 0, False) == ((0,), (2,), (1,))
    four = [*supplies, supply(huts=2)]
    assert rank_players(four, (1,), None, False) == ((2,), (3,), (0,), (1,))


def test_the_result_in_words_names_the_victory_kinds() -> None:
    outcome = Outcome(((1,), (0,)), Reason.VICTORY)
    headline, lines = result_in_words(
        outcome, ["Ana", "Ben"], [(15, 1, 0, 0), (12, 0, 0, 0)], False
    )
    assert headline == "Ben wins by placing every one of their temples and towers"
    assert lines == [
        "1st Ben: 3 temples, 2 towers, 8 huts placed",
        "2nd Ana: 2 temples, 2 towers, 5 huts placed",
    ]


def test_the_result_in_words_walks_the_tie_breaks_to_the_one_that_decided() -> None:
    outcome = Outcome(((0,), (1,)), Reason.TILES)
    supplies = [(5, 2, 1, 0), (9, 2, 1, 0)]
    headline, _ = result_in_words(outcome, ["Ana", "Ben"], supplies, False)
    assert headline == (
        "Ana wins: no tile was left to take; as many temples (1), then as many towers (1), "
        "then most huts built (15 against 11)"
    )


def test_the_result_in_words_says_who_shares_first_place_and_who_was_eliminated() -> None:
    outcome = Outcome(((0, 2), (1,)), Reason.TILES)
    supplies = [(10, 2, 2, 0), (20, 3, 2, 0), (10, 2, 2, 0)]
    headline, lines = result_in_words(outcome, ["Ana", "Ben", "Cy"], supplies, False, [1])
    assert headline == (
        "Ana and Cy share first place: no tile was left to take; equal on everything "
        "(1 temple, 0 towers, 10 huts)"
    )
    assert lines[-1] == "3rd Ben: 0 temples, 0 towers, 0 huts placed, eliminated"


def test_the_result_in_words_of_the_last_player_standing() -> None:
    outcome = Outcome(((1,), (0,)), Reason.LAST_STANDING)
    headline, _ = result_in_words(
        outcome, ["Ana", "Ben"], [(20, 3, 2, 2), (19, 3, 2, 2)], True, [0]
    )
    assert headline == "Ben wins: every other player was eliminated"


def test_the_result_in_words_says_you_win_to_the_lone_person_of_the_terminal() -> None:
    tiles = Outcome(((0,), (1,)), Reason.TILES)
    supplies = [(10, 1, 2, 0), (12, 1, 2, 0)]
    headline, lines = result_in_words(tiles, ["You", "AI 2"], supplies, False)
    assert headline == (
        "You win: no tile was left to take; as many temples (2), then as many towers (0), "
        "then most huts built (10 against 8)"
    )
    assert lines[0] == "1st You: 2 temples, 0 towers, 10 huts placed"
    victory = Outcome(((0,), (1,)), Reason.VICTORY)
    headline, _ = result_in_words(victory, ["You", "AI 2"], [(5, 0, 0, 0), FULL], False)
    assert headline == "You win by placing every one of your temples and towers"


def test_the_result_in_words_lists_three_winners_sharing_first_place_with_commas() -> None:
    outcome = Outcome(((0, 1, 2),), Reason.NO_PLACEMENT)
    supplies = [(8, 3, 2, 0)] * 3
    headline, lines = result_in_words(outcome, ["Ana", "Ben", "Cy"], supplies, False)
    assert headline == (
        "Ana, Ben and Cy share first place: no tile could be placed; equal on everything "
        "(0 temples, 0 towers, 12 huts)"
    )
    assert lines == [
        f"1st {name}: 0 temples, 0 towers, 12 huts placed" for name in ("Ana", "Ben", "Cy")
    ]
