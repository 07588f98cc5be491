"""What must hold in every game with expansions: the engine's properties (test_properties.py)
run with every combination of Ships, Double-Hex tiles and a Game Board zone, 2-5 players.

A setup adds a combination of expansions to the base suite's setups, and seats may also play
``sailor``: it closes lagoons and places ships whenever it can (test_expansions.steered_move),
so that the Ships rules really come into play. The base suite's policies, walk bookkeeping
and state snapshot are reused; the checks add ships, lagoons, double-hex tiles and zones.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from test_expansions import (
    COMBINATIONS,
    corners_outside,
    find_lagoons,
    footprint_of,
    steered_move,
)
from test_properties import HOUSE_RULES, STYLES, Setup, choose, components, examples, with_record

from taluva import Game, IllegalMove, Move, Reason
from taluva.engine.moves import DOUBLE, DRAW, TILE

Observe = Callable[[Game], dict[str, Any]]

PIECES = {"huts": 20, "temples": 3, "towers": 2, "ships": 2}
MAX_PLIES = 3 * (60 + 5)
"""No game lasts longer: 60 regular and 5 double-hex tiles at most, three plies a turn."""


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    """Any setup with any combination of expansions; seats play the base styles or sail."""
    players = draw(st.integers(2, 5))
    tiles = draw(st.sampled_from((12, 18, 24))) if players == 2 else 12
    rules = tuple(draw(st.lists(st.sampled_from(HOUSE_RULES), unique=True)))
    styles = tuple(
        draw(st.lists(st.sampled_from((*STYLES, "sailor")), min_size=players, max_size=players))
    )
    expansions = draw(st.sampled_from(COMBINATIONS))
    return Setup(draw(st.integers(0, 2**32 - 1)), players, tiles, rules, styles, expansions)


def choose_move(game: Game, style: str, rng: random.Random) -> Move:
    """The move a seat of the given style plays now."""
    if style == "sailor":
        return steered_move(game, rng, ("ship", "temple", "tower"))
    return choose(game, style, rng)


def walk(setup: Setup) -> Iterator[tuple[Game, random.Random]]:
    """Play a game to its end, yielding it before every move and at the end (see the base
    suite's ``walk``: the caller may play, undo and take back moves in between)."""
    game = setup.new_game()
    rng = random.Random(setup.seed)
    while game.phase != "over":
        assert game.ply < 2 * MAX_PLIES, "the walk does not terminate"
        yield game, rng
        if game.phase == "over":
            break
        game.play(choose_move(game, setup.styles[game.to_move], rng))
    yield game, rng


def expansion_state(game: Game) -> dict[str, Any]:
    """What the expansions add to a position's observable state."""
    players = range(game.player_count)
    return {
        "expansions": game.expansions,
        "zone": game.zone,
        "ships": game.ships(),
        "lagoons": game.lagoons(),
        "doubles": game.doubles,
        "face up": game.face_up_doubles,
        "taken": [game.doubles_taken(p) for p in players],
    }


def full_state(state_of: Observe, game: Game) -> dict[str, Any]:
    """The base suite's snapshot plus the expansions' state."""
    return {**state_of(game), **expansion_state(game)}


def same(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    """Compare two states key by key, so that a failure names what differs."""
    for key, value in expected.items():
        assert actual[key] == value, key


def covered(game: Game, move: Move) -> list[int]:
    """Hexes a tile-phase placement covers (the drawn tile, or the double-hex tile)."""
    return footprint_of(move, game.tile)[0]


# ------------------------------------------------------------------ the properties


@settings(max_examples=examples(12))
@given(setup=setups())
def test_every_listed_move_plays_and_round_trips_as_text(setup: Setup) -> None:
    """legal_moves() lists each move once; its text parses back to it; it plays, and a draw,
    a tile or a double-hex tile leaves the player to move where the rules say."""
    for game, _ in walk(setup):

        def check(game: Game = game) -> None:
            moves = game.legal_moves()
            texts = [str(move) for move in moves]
            assert len(set(texts)) == len(texts)
            player, left, doubles = game.to_move, game.tiles_left, game.doubles
            taken = game.doubles_taken(player)
            for move in moves:
                assert Move.parse(str(move)) == move
                game.play(move)
                assert game.moves[-1] == move
                if move.kind == DRAW and game.phase == "over":
                    assert game.result is not None and game.result.reason == "no-placement"
                elif move.kind == DRAW:
                    assert (game.phase, game.to_move, game.tiles_left) == ("tile", player, left - 1)
                    assert game.tile == game.deck[len(game.deck) - left]
                elif move.kind == DOUBLE:
                    assert game.doubles_taken(player) == taken + 1
                    assert game.doubles == tuple(code for code in doubles if code != move.tile)
                    assert game.tiles_left == left or player in game.eliminated
                if move.kind in (TILE, DOUBLE):
                    assert (game.phase, game.to_move) == ("build", player) or (
                        player in game.eliminated
                    )
                game.pop()

        with_record(check, game)


@settings(max_examples=examples(12))
@given(setup=setups(), branch_seed=st.integers(0, 2**32 - 1))
def test_undo_restores_the_exact_state(setup: Setup, branch_seed: int, state_of: Observe) -> None:
    """Every undo brings back the full state, ships, lagoons and double-hex tiles included,
    also after undoing a stretch and playing on differently, and down to the first move."""
    branch = random.Random(branch_seed)
    branches = 0
    seen: list[dict[str, Any]] = []
    for game, _ in walk(setup):
        del seen[game.ply :]
        seen.append(full_state(state_of, game))
        if game.phase != "over" and branches < 3 and branch.random() < 0.05:
            branches += 1
            for _ in range(branch.randint(1, game.ply)):
                game.pop()
                with_record(lambda g=game: same(full_state(state_of, g), seen[g.ply]), game)
    while game.ply:
        game.pop()
        with_record(lambda g=game: same(full_state(state_of, g), seen[g.ply]), game)
    with pytest.raises(IllegalMove):
        game.pop()
    assert full_state(state_of, game) == full_state(state_of, setup.new_game())


@settings(max_examples=examples(12))
@given(setup=setups())
def test_saved_and_loaded_record_gives_the_same_state(setup: Setup, state_of: Observe) -> None:
    """to_record -> JSON -> Game.from_record reproduces the position (expansions, face-up
    tiles and all) at random plies and at the end, and the loaded game plays on alike."""
    pick = random.Random(setup.seed + 1)
    for game, _ in walk(setup):
        if game.phase == "over" or pick.random() < 0.1:

            def check(game: Game = game) -> None:
                record = game.to_record()
                assert record["options"]["expansions"] == list(setup.expansions)
                loaded = Game.from_record(json.dumps(record))
                assert full_state(state_of, loaded) == full_state(state_of, game)
                if loaded.phase != "over":
                    move = game.legal_moves()[-1]
                    loaded.play(str(move))
                    game.play(move)
                    assert full_state(state_of, loaded) == full_state(state_of, game)
                    game.pop()

            with_record(check, game)


@settings(max_examples=examples(12))
@given(setup=setups())
def test_copy_is_independent_and_random_move_is_listed_and_playable(
    setup: Setup, state_of: Observe
) -> None:
    """random_move() returns a listed move that play() accepts, as the same object or as
    text; a copy plays on by itself and its original never sees its moves, nor the reverse."""
    pick = random.Random(setup.seed + 2)
    for game, rng in walk(setup):
        if game.phase == "over":
            break

        def check(game: Game = game, rng: random.Random = rng) -> None:
            move = game.random_move(rng)
            assert move in game.legal_moves()
            by_object, by_text = game.copy(), game.copy()
            by_object.play(move)
            by_text.play(str(move))
            assert full_state(state_of, by_object) == full_state(state_of, by_text)
            if pick.random() < 0.2:
                original = full_state(state_of, game)
                side = game.copy()
                for _ in range(pick.randint(1, 6)):
                    if side.phase == "over":
                        break
                    side.play(side.random_move(rng))
                assert full_state(state_of, game) == original
                game.play(game.legal_moves()[0])
                side.pop()
                game.pop()
                assert full_state(state_of, game) == original

        with_record(check, game)


@settings(max_examples=examples(20))
@given(setup=setups())
def test_pieces_tiles_and_ships_are_conserved(setup: Setup) -> None:
    """Pieces on the board + supply (+ destroyed huts) make each player's set, ships
    included; a ship stays in its lagoon, which no tile ever covers; the double-hex tiles
    taken and left make the face-up ones; every tile keeps within the zone's two corners."""
    sailing = "ships" in setup.expansions
    fleet: dict[int, tuple[int, frozenset[int]]] = {}
    for game, _ in walk(setup):

        def check(game: Game = game) -> None:
            lagoons = find_lagoons(game.land())
            if sailing:
                assert game.lagoons() == lagoons
            ships = game.ships()
            for lowest, owner in ships.items():
                lagoon = next(lagoon for lagoon in lagoons if lowest in lagoon)
                assert lowest == min(lagoon)
                fleet.setdefault(lowest, (owner, lagoon))
            assert {low: fleet[low] for low in ships} == {
                low: (owner, next(g for g in lagoons if low in g)) for low, owner in ships.items()
            }
            assert set(fleet) == set(ships)  # no ship ever leaves, no lagoon ever shrinks
            buildings = game.buildings()
            for player in range(game.player_count):
                supply = game.supply(player)
                on_board = {"huts": 0, "temples": 0, "towers": 0}
                for hex_, (owner, kind) in buildings.items():
                    if owner == player:
                        on_board[kind + "s"] += game.level(hex_) if kind == "hut" else 1
                assert on_board["huts"] + supply["huts"] + game.destroyed_huts(player) == 20
                assert on_board["temples"] + supply["temples"] == 3
                assert on_board["towers"] + supply["towers"] == 2
                sailed = sum(owner == player for owner in ships.values())
                assert sailed + supply["ships"] == (2 if sailing else 0)
                own = {h for h, (owner, _) in buildings.items() if owner == player}
                assert set(game.settlements(player)) == components(own)
                assert 0 <= game.doubles_taken(player) <= 2
            face_up = game.face_up_doubles
            assert set(game.doubles) <= set(face_up) and len(face_up) == (
                game.player_count if "double_hex" in setup.expansions else 0
            )
            taken = sum(game.doubles_taken(p) for p in range(game.player_count))
            assert taken + len(game.doubles) == len(face_up)
            just_taken = game.moves and game.moves[-1].kind == DOUBLE and game.phase == "build"
            if just_taken and game.doubles_taken(game.to_move) == 2:
                assert game.tiles_left == 0
            if game.zone is not None and game.phase == "tile":
                for move in game.legal_moves():
                    if move.kind != DRAW:
                        assert corners_outside(game.zone, covered(game, move)) <= 2, str(move)

        with_record(check, game)


def ranking_key(game: Game, player: int) -> tuple[int, ...]:
    """Pieces placed, in ranking order: temples, towers, huts (destroyed included), ships."""
    left = game.supply(player)
    kinds = ("temples", "towers", "huts", "ships") if "ships" in game.expansions else (
        "temples", "towers", "huts")  # fmt: skip
    return tuple(PIECES[kind] - left[kind] for kind in kinds)


def check_result(game: Game) -> None:
    """The end state is a valid result: everyone ranked, in an order that fits the reason."""
    outcome = game.result
    assert outcome is not None and game.phase == "over"
    ranking = outcome.ranking
    assert sorted(p for group in ranking for p in group) == list(range(game.player_count))
    assert all(group and list(group) == sorted(group) for group in ranking)
    eliminated = game.eliminated
    if eliminated:
        assert ranking[-len(eliminated) :] == tuple((p,) for p in reversed(eliminated))
    standing = [p for p in range(game.player_count) if p not in eliminated]
    types = ("huts", "temples", "towers", "ships") if "ships" in game.expansions else (
        "huts", "temples", "towers")  # fmt: skip
    emptied = {p: sum(game.supply(p)[kind] == 0 for kind in types) for p in standing}
    last = game.moves[-1]
    if outcome.reason is Reason.VICTORY:
        (winner,) = outcome.winners
        assert emptied[winner] >= 2 and not last.is_tile_move
        others = ranking[1 : len(ranking) - len(eliminated)]
    elif outcome.reason is Reason.LAST_STANDING:
        assert standing == list(outcome.winners) and last.kind in (TILE, DOUBLE)
        others = ()
    else:
        assert len(standing) >= 2 and max(emptied.values()) < 2
        if outcome.reason is Reason.TILES:
            assert game.tiles_left == 0
            assert not game.doubles or game.doubles_taken(game.to_move) == 2
        else:
            assert outcome.reason is Reason.NO_PLACEMENT and game.zone is not None
            assert_no_placement_fits(game)
        others = ranking[: len(ranking) - len(eliminated)]
    keys = [{ranking_key(game, p) for p in group} for group in others]
    assert all(len(key) == 1 for key in keys), ranking
    ordered = [key.pop() for key in keys]
    assert ordered == sorted(ordered, reverse=True) and len(set(ordered)) == len(ordered)
    assert outcome.winners == ranking[0]
    assert game.to_record()["result"] == dict(outcome)
    assert game.legal_moves() == [] and game.tile is None
    with pytest.raises(IllegalMove):
        game.random_move(random.Random(0))
    with pytest.raises(IllegalMove):
        game.play("draw")


def assert_no_placement_fits(game: Game) -> None:
    """The player to move could place nothing inside the zone: the same moves without the
    board reach the same turn, and none of its placements keeps within two corners."""
    record = game.to_record()
    expansions = [e for e in record["options"]["expansions"] if not e.startswith("board:")]
    free = Game.from_record(
        {**record, "options": {**record["options"], "expansions": expansions}, "result": None}
    )
    assert free.phase == "tile" and free.to_move == game.to_move
    placements = [m for m in free.legal_moves() if m.kind in (TILE, DOUBLE)]
    assert placements
    zone = game.zone
    assert zone is not None
    assert all(corners_outside(zone, covered(free, move)) > 2 for move in placements)


@settings(max_examples=examples(60))
@given(setup=setups())
def test_every_game_ends_with_a_valid_result(setup: Setup) -> None:
    """The game ends within the number of tiles with a ranking that fits its end: victory
    with two of four piece types, last standing, no tile to take, or no placement."""
    for game, _ in walk(setup):
        assert game.to_move not in game.eliminated or game.phase == "over"
        assert game.ply <= MAX_PLIES
    with_record(lambda: check_result(game), game)
    assert game.result is not None
    event(f"end: {game.result.reason}")
    event(f"ships placed: {len(game.ships())}")
