"""Double-Hex tiles (docs/rules.md, "Double-Hex tiles"): five two-hex tiles laid face up; on
their turn a player may take one instead of drawing (once a game, a second only when the pile
is empty), and the game ends when the player to move can take no tile at all.

The turn then starts with a choice, ``draw`` or ``double XY Q,R K``, before any tile is seen.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from taluva.engine.errors import InvalidOption
from taluva.engine.hexes import DELTAS, ORIGIN
from taluva.engine.moves import DOUBLE, DOUBLE_MOVES, DRAW, DRAW_MOVE, Move
from taluva.engine.position import Expansion, Position
from taluva.engine.refusals import player_words, refusal
from taluva.engine.rules.eruption import may_cover
from taluva.engine.rules.placement import allowed, lay_tile, placement_problem, sync_placements
from taluva.engine.tiles import (
    DOUBLE_HEX_TILES,
    PAIR_OFFSETS_OVER,
    PAIRS_OVER,
    VOLCANO,
    double_footprint,
    double_terrains,
)
from taluva.engine.wording import Text

NAME: Final = "double_hex"
SYMMETRIC: Final = frozenset({"VV", "JJ"})
"""Tiles whose two hexes are alike: orientations 0-2 name every placement."""


def shuffled_doubles(players: int, rng: random.Random) -> list[str]:
    """Lay as many double-hex tiles face up as there are players."""
    doubles = list(DOUBLE_HEX_TILES)
    rng.shuffle(doubles)
    return doubles[:players]


def checked_doubles(values: Sequence[str] | str, players: int) -> tuple[str, ...]:
    """Face-up tiles given by a person or a record; raise InvalidOption naming the problem."""
    if isinstance(values, str):
        values = [values]
    codes = []
    for index, value in enumerate(values):
        code = value.strip().upper() if isinstance(value, str) else value
        if code not in DOUBLE_HEX_TILES:
            raise InvalidOption(
                refusal(
                    "not-a-double-code",
                    index=str(index),
                    value=repr(value),
                    tiles=" ".join(DOUBLE_HEX_TILES),
                )
            )
        if code in codes:
            raise InvalidOption(refusal("double-listed-twice", tile=code))
        codes.append(code)
    if len(codes) != players:
        raise InvalidOption(refusal("doubles-per-player", laid=len(codes), players=players))
    return tuple(codes)


class DoubleHex(Expansion):
    """The draw-or-double choice, the double-hex placements, and taking a face-up tile."""

    name = NAME

    def offers_choice(self, position: Position, player: int, pile: bool) -> bool:
        """Once a game, a second time only when the pile is empty, while any is face up."""
        if not position.doubles_left:
            return False
        taken = position.doubles_taken[player]
        return taken == 0 or (not pile and taken < 2)

    def tile_choices(self, position: Position) -> list[Move]:
        moves = [DRAW_MOVE] if position.pile_left > 0 else []
        return moves + self.placements(position)

    def placements(self, position: Position) -> list[Move]:
        """Every placement of every face-up double-hex tile."""
        s = position
        codes = s.doubles_left
        if s.tiles_placed == 0:
            return [Move.place_double(code, ORIGIN, k) for code in codes for k in range(6)]
        sync_placements(s)
        moves = []
        symmetric = [code for code in codes if code in SYMMETRIC]
        asymmetric = [code for code in codes if code not in SYMMETRIC]
        for placement in s.sea2:
            moves += [DOUBLE_MOVES[code, placement] for code in asymmetric]
            if placement & 7 < 3:
                moves += [DOUBLE_MOVES[code, placement] for code in symmetric]
        if "VV" in codes or asymmetric:
            moves += self._eruptions(s, codes)
        return moves

    def _eruptions(self, s: Position, codes: tuple[str, ...]) -> list[Move]:
        """Placements on top: a volcano hex of the tile on a volcano, the other hex beside it at
        the same height on another tile, and ``may_cover`` (JJ only goes on sea level)."""
        level = s.level
        tile_at = s.tile_at
        limits = s.setup.placement_limits
        on_top: dict[Move, None] = {}
        for volcano, kind in s.terrain.items():
            if kind != VOLCANO:
                continue
            height = level[volcano]
            for k in range(6):
                other = volcano + DELTAS[k]
                if level.get(other) != height or tile_at[other] == tile_at[volcano]:
                    continue
                if not may_cover(s, (volcano, other)):
                    continue
                placement = volcano * 8 + k
                if limits and not allowed(s, placement, (volcano, other)):
                    continue
                on_top.update(
                    (DOUBLE_MOVES[code, placement], None) for code in codes if code != "JJ"
                )
        return list(on_top)

    def coast_changed(self, position: Position, new_land: set[int], coast: set[int]) -> None:
        """Keep the sea-level double-hex placements up to date with the new land."""
        level = position.level
        limited = bool(position.setup.placement_limits or position.blocked)
        pairs = set(position.sea2)
        for hex_ in new_land:
            base = hex_ * 8
            for offset in PAIR_OFFSETS_OVER:
                pairs.discard(base + offset)
        for hex_ in coast:
            base = hex_ * 8
            for offset, other in PAIRS_OVER:
                second = hex_ + other
                if second not in level and (
                    not limited or allowed(position, base + offset, (hex_, second))
                ):
                    pairs.add(base + offset)
        position.sea2 = pairs

    def owns(self, move: Move) -> bool:
        return move[0] == DRAW or move[0] == DOUBLE

    def problem(self, position: Position, move: Move) -> Text:
        s = position
        who = player_words(s.to_move)
        if s.tile is None:
            if move[0] == DRAW:
                return refusal("draw-pile-empty")
            code = move[4]
            if code not in s.doubles_left:
                return refusal("double-not-face-up", tile=code, face_up=" ".join(s.doubles_left))
            hexes = double_footprint(move[1], move[2])
            problem = placement_problem(s, hexes, double_terrains(code))
            return problem or refusal("not-a-placement")
        if move[0] == DRAW:
            return refusal("drawn-already", player=who, tile=s.tile)
        if s.doubles_taken[s.to_move]:
            return refusal("double-taken-already", player=who)
        return refusal("double-instead-of-draw", player=who, tile=s.tile)

    def play(self, position: Position, new: Position, move: Move) -> None:
        """Take a face-up tile and lay it (``draw`` is the base rules' draw)."""
        code = move[4]
        lay_tile(position, new, double_footprint(move[1], move[2]), double_terrains(code))
        new.doubles_left = tuple(c for c in position.doubles_left if c != code)
        taken = list(position.doubles_taken)
        taken[position.to_move] += 1
        new.doubles_taken = tuple(taken)
