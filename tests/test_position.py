"""Positions and their caches: whatever way a position was reached (replayed from its record,
copied with another pile, or pushed and popped back to), it lists exactly the moves a fresh
computation lists.

The fresh computation is the brute-force oracle of test_expansions (legality from public
accessors and flood fills only, no engine table or cache).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_expansions import COMBINATIONS, Oracle, candidate_moves, steered_move

from taluva import Game, IllegalMove, Move


def fresh_moves(game: Game) -> set[Move]:
    """The legal moves of the game's position as the oracle finds them from scratch."""
    oracle = Oracle(game)
    return {move for move in candidate_moves(game, oracle) if oracle.problem(move) is None}


def test_a_copy_with_an_empty_pile_does_not_offer_a_draw() -> None:
    game = Game.new(players=2, seed=1, expansions=["double_hex"])
    assert "draw" in map(str, game.legal_moves())
    emptied = game.with_pile([])
    assert "draw" not in map(str, emptied.legal_moves())
    with pytest.raises(IllegalMove, match="the draw pile is empty"):
        emptied.play("draw")
    assert "draw" in map(str, game.legal_moves()), "the original keeps its pile"


def test_undo_after_with_pile_keeps_the_new_pile() -> None:
    game = Game.new(players=2, seed=4, expansions=["double_hex"])
    game.play("draw")
    game.play(game.legal_moves()[0])
    game.play(game.legal_moves()[0])
    emptied = game.with_pile([])
    emptied.pop()
    emptied.pop()
    emptied.pop()
    assert emptied.tiles_left == 1, "the drawn tile went back onto the new, empty pile"
    assert "draw" in map(str, emptied.legal_moves())
    emptied.play("draw")
    assert emptied.tiles_left == 0


def test_push_and_pop_make_and_unmake_a_move() -> None:
    game = Game.new(players=3, seed=9)
    before = [str(move) for move in game.legal_moves()]
    move = game.legal_moves()[3]
    game.push(move)
    assert game.ply == 1 and game.phase == "build"
    assert game.pop() is move
    assert game.ply == 0 and [str(m) for m in game.legal_moves()] == before
    with pytest.raises(IllegalMove, match="no move to take back"):
        game.pop()


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 5),
    expansions=st.sampled_from(COMBINATIONS),
    checks=st.lists(st.integers(0, 45), min_size=1, max_size=3, unique=True),
)
def test_every_way_to_reach_a_position_lists_the_fresh_moves(
    seed: int, players: int, expansions: tuple[str, ...], checks: list[int]
) -> None:
    """Random games with every combination of expansions: at random plies, the game, the game
    rebuilt from its record, a ``with_pile`` copy and the game after a push and a pop all list
    exactly the moves the oracle finds."""
    game = Game.new(players=players, seed=seed, expansions=expansions)
    rng = random.Random(seed)
    while not game.is_over:
        if game.ply in checks:
            expected = fresh_moves(game)
            rebuilt = Game.from_record(game.to_record())
            repiled = game.with_pile(game.deck[len(game.deck) - game.tiles_left :])
            listed = game.legal_moves()
            pushed = game.copy()
            pushed.push(listed[rng.randrange(len(listed))])
            pushed.pop()
            for name, other in (("game", game), ("record", rebuilt), ("with_pile", repiled),
                                ("push/pop", pushed)):  # fmt: skip
                assert set(other.legal_moves()) == expected, name
        game.play(steered_move(game, rng, ("ship", "temple", "tower")))
