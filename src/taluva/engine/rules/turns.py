"""A turn (docs/rules.md, "A turn"): draw a tile, place it, build; the order of play, and what
may be played now.

``apply`` is the one function that makes the next position from a legal move; the phases
move on here, and the game ends through ``ending``.
"""

from __future__ import annotations

import random

from taluva.engine.errors import IllegalMove
from taluva.engine.moves import DRAW, TILE, TILE_MOVES, Move, MoveKind
from taluva.engine.outcome import Reason
from taluva.engine.position import BUILD_PHASE, OVER, TILE_PHASE, Position
from taluva.engine.refusals import player_words, refusal
from taluva.engine.rules import building, ending, placement
from taluva.engine.rules.building import BASE_BUILDS
from taluva.engine.tiles import TILE_TERRAINS, footprint, tile_terrains
from taluva.engine.wording import Text

TILE_KINDS = frozenset({MoveKind.TILE, MoveKind.DRAW, MoveKind.DOUBLE})
"""The moves of the tile phase."""


def legal_moves(s: Position) -> list[Move]:
    """Every legal move of the current phase (the list kept on the position: do not change it)."""
    if s.phase == BUILD_PHASE:
        return building.build_moves(s)
    if s.phase == TILE_PHASE:
        return tile_moves(s)
    return []


def tile_moves(s: Position) -> list[Move]:
    """The moves of the tile phase: the drawn tile's placements, or the expansions' choices
    before a tile is drawn (Double-Hex)."""
    moves = s.tile_moves
    if moves is None:
        if s.tile is None:
            moves = []
            for hook in s.setup.choice_hooks:
                moves += hook.tile_choices(s)
        else:
            moves = placement.placements(s)
        s.tile_moves = moves
    return moves


def legal_form(s: Position, move: Move) -> Move | None:
    """The move as the engine plays it if it is legal now (an expansion may accept other
    spellings of its moves, such as any hex of a lagoon for a ship), else None."""
    kind = move[0]
    if s.phase == TILE_PHASE:
        if s.tile is None:
            return move if kind != TILE and move in tile_moves(s) else None
        if kind == TILE and 0 <= move[2] < 6:
            code = move[1] * 8 + move[2]
            if placement.is_placement(s, code):
                return TILE_MOVES[code]
        return None
    if s.phase == BUILD_PHASE:
        if kind not in BASE_BUILDS:
            owner = s.setup.owner_of(move)
            found = None if owner is None else owner.canonical(s, move)
            if found is None:
                return None
            move = found
        if move in building.build_moves(s):
            return move
    return None


def why_illegal(s: Position, move: Move) -> Text:
    """Why a move is not legal now, naming the rule (a refusal with its code and values)."""
    kind = move[0]
    who = player_words(s.to_move)
    if s.phase == OVER:
        return refusal("game-over")
    owner = s.setup.owner_of(move)
    if s.phase == BUILD_PHASE:
        if kind in TILE_KINDS:
            return refusal("must-build", player=who)
        if owner is not None:
            return owner.problem(s, move)
        if kind not in BASE_BUILDS:
            return _missing_expansion(kind)
        return building.build_problem(s, move)
    if kind not in TILE_KINDS:
        return refusal("must-place-tile", player=who)
    if kind == TILE and s.tile is None:
        return refusal("must-draw-first", player=who)
    if kind != TILE:
        return owner.problem(s, move) if owner is not None else _missing_expansion(kind)
    assert s.tile is not None
    hexes = footprint(move[1], move[2])
    problem = placement.placement_problem(s, hexes, tile_terrains(s.tile))
    return problem or refusal("not-a-placement")


def _missing_expansion(kind: MoveKind) -> Text:
    if kind == DRAW:
        return refusal("draw-without-double-hex")
    if kind == MoveKind.DOUBLE:
        return refusal("no-double-hex")
    return refusal("no-ships-expansion")


def apply(s: Position, move: Move) -> Position:
    """The position after a legal move (not checked: see ``legal_form``)."""
    new = s.successor()
    player = s.to_move
    kind = move[0]
    if kind == TILE:
        assert s.tile is not None
        placement.lay_tile(s, new, footprint(move[1], move[2]), TILE_TERRAINS[s.tile])
        after_tile(new, player)
        return new
    if kind in BASE_BUILDS:
        building.build(s, new, move, player)
    elif kind == DRAW:
        draw(new)
        return new
    else:
        owner = s.setup.owner_of(move)
        assert owner is not None, f"{move} belongs to no expansion of this game"
        owner.play(s, new, move)
        if kind in TILE_KINDS:
            after_tile(new, player)
            return new
    if ending.has_won(new, player):
        ending.end(new, Reason.VICTORY, player)
    else:
        start_turn(new, next_player(new, player))
    return new


def after_tile(new: Position, player: int) -> None:
    """After a tile: build, or be eliminated when no building action is left."""
    if building.can_build(new, player):
        new.phase = BUILD_PHASE
    elif not ending.eliminate(new, player):
        start_turn(new, next_player(new, player))


def next_player(s: Position, player: int) -> int:
    """The next player still in the game, in seat order."""
    count = s.setup.player_count
    for step in range(1, count + 1):
        candidate = (player + step) % count
        if candidate not in s.eliminated:
            return candidate
    return player


def start_turn(s: Position, player: int) -> None:
    """Begin a player's turn: draw the tile, or offer an expansion's choice; end the game when
    the player can take no tile, or (Game Board) can place none."""
    s.to_move = player
    pile = s.deck_pos < len(s.setup.deck)
    for hook in s.setup.choice_hooks:
        if hook.offers_choice(s, player, pile):
            s.phase = TILE_PHASE
            s.tile = None
            if not pile and s.setup.ends_without_placement and not tile_moves(s):
                ending.end(s, Reason.NO_PLACEMENT)
            return
    if not pile:
        ending.end(s, Reason.TILES)
        return
    s.phase = TILE_PHASE
    draw(s)


def draw(s: Position) -> None:
    """Turn up the next tile of the pile; with the Game Board, end the game if it fits nowhere."""
    s.tile = s.setup.deck[s.deck_pos]
    s.deck_pos += 1
    s.tile_moves = None
    if s.setup.ends_without_placement and not tile_moves(s):
        ending.end(s, Reason.NO_PLACEMENT)


def random_move(s: Position, rng: random.Random) -> Move:
    """A random legal move, much quicker than choosing from ``legal_moves`` (not uniform)."""
    if s.phase == TILE_PHASE:
        move = placement.sample_placement(s, rng) if s.tile is not None else None
        if move is None:
            moves = tile_moves(s)
            move = moves[int(rng.random() * len(moves))]
    elif s.phase == BUILD_PHASE:
        move = building.sample_build(s, rng)
    else:
        raise IllegalMove(refusal("game-over-no-move"))
    s.sampled = move
    return move
