"""Which expansions a game plays with: the hooks each option brings, in the order the base
rules ask them (the board's zone first, so its refusal is the one a player reads)."""

from __future__ import annotations

from taluva.engine.expansions.board_zones import ZONES, BoardZone
from taluva.engine.expansions.double_hex import DoubleHex
from taluva.engine.expansions.fifth_player import FIFTH_PLAYER_COUNT, FifthPlayer
from taluva.engine.expansions.ships import Ships
from taluva.engine.options import Options
from taluva.engine.position import Expansion, Setup


def expansions_for(options: Options) -> tuple[Expansion, ...]:
    """The expansion hooks of a game's options."""
    chosen: list[Expansion] = []
    if options.zone is not None:
        chosen.append(BoardZone(ZONES[options.zone]))
    if options.ships:
        chosen.append(Ships())
    if options.double_hex:
        chosen.append(DoubleHex())
    if options.player_count == FIFTH_PLAYER_COUNT:
        chosen.append(FifthPlayer())
    return tuple(chosen)


def make_setup(
    players: tuple[str, ...], options: Options, deck: tuple[str, ...], doubles: tuple[str, ...]
) -> Setup:
    """The setup of a game: its players, options, pile and face-up tiles, with the hooks."""
    return Setup(players, options, deck, doubles, expansions_for(options))
