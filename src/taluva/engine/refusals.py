"""The one table of the engine's refusals: each stable code (kebab-case) with its English
template. A refused move, move text that does not parse, or a player who cannot leave is
explained by ``refusal(code, **values)``, a ``Text`` whose code and values say what it means,
so that every interface can word it in its player's language (docs/engine.md, "Refusals").

The texts are built only when an explanation is asked for: legal move generation, perft and
search never touch this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from taluva.engine.wording import N_, T, Text

__all__ = ["REFUSALS", "and_list", "in_record", "player_words", "refusal", "refused_move"]

REFUSALS: Final[dict[str, str]] = {
    # the turn and its phases (rules/turns.py)
    "game-over": N_("the game is over"),
    "game-over-no-move": N_("the game is over: there is no move to make"),
    "must-build": N_("{player} has placed a tile and must now build"),
    "must-place-tile": N_("{player} must place a tile before building"),
    "must-draw-first": N_("{player} must first draw a tile or take a face-up double-hex tile"),
    "not-a-placement": N_("not a legal placement"),
    "not-a-move-here": N_("not a legal move here"),
    "draw-without-double-hex": N_(
        "the engine draws the tile: 'draw' is a move of the Double-Hex expansion only"
    ),
    "no-double-hex": N_("this game is played without the Double-Hex expansion"),
    "no-ships-expansion": N_("ships belong to the Ships expansion, which this game does not use"),
    # placing a tile (rules/placement.py, rules/eruption.py)
    "first-tile-origin": N_("the first tile of the game goes with its volcano on 0,0"),
    "not-touching": N_(
        "the tile does not touch the island: one of its hexes must share an edge with it"
    ),
    "eruption-overhang": N_("the tile would overhang: {sea} is sea but {land} is at level {level}"),
    "eruption-uneven": N_(
        "the hexes below are not at one level: {low_hex} is at level {low}, {high_hex} at level "
        "{high}"
    ),
    "no-volcano-on-top": N_("a tile without a volcano only goes on sea level"),
    "eruption-not-on-volcano": N_(
        "the volcano would lie on {terrain} at {hex}: an eruption must cover a volcano"
    ),
    "eruption-same-tile": N_(
        "the tile would lie exactly on a single tile: turn it to cover at least two tiles"
    ),
    "eruption-covers-temple": N_("the tile would cover the temple at {hex}"),
    "eruption-covers-tower": N_("the tile would cover the tower at {hex}"),
    "eruption-destroys-settlement": N_(
        "the tile would destroy every building of the settlement at {hex}"
    ),
    # building (rules/building.py)
    "no-huts-left": N_("{player} has no huts left"),
    "no-temples-left": N_("{player} has no temples left"),
    "no-towers-left": N_("{player} has no towers left"),
    "no-ships-left": N_("{player} has no ships left"),
    "on-sea": N_("{hex} is sea: buildings stand on land"),
    "on-volcano": N_("{hex} is a volcano: nothing is built on a volcano"),
    "occupied": N_("{hex} already holds a building"),
    "hut-not-level-1": N_("a new settlement is founded on level 1; {hex} is at level {level}"),
    "hut-touches-own": N_(
        "{hex} is next to your building at {near}: a new settlement may not touch your own "
        "buildings (expand instead)"
    ),
    "not-a-hut": N_("not a legal hut here"),
    "expansion-wrong-terrain": N_("{hex} is {terrain}, not {expected}"),
    "expansion-incomplete": N_(
        "expanding into {terrain} fills every such hex next to the settlement: {missing} missing"
    ),
    "expansion-too-few-huts": N_("this expansion needs {need} huts and {player} has {huts}"),
    "expansion-no-settlement": N_(
        "no settlement of yours reaches exactly these {terrain} hexes (every hex must be next "
        "to the same settlement)"
    ),
    "not-adjacent": N_("{hex} is not next to any settlement of yours"),
    "temple-settlement-too-small": N_(
        "a temple needs an adjacent settlement of yours covering at least 3 hexes"
    ),
    "temple-already": N_(
        "every adjacent settlement of yours that is large enough already has a temple"
    ),
    "tower-too-low": N_("a tower stands on level 3 or higher; {hex} is at level {level}"),
    "tower-already": N_("every adjacent settlement of yours already has a tower"),
    # the Ships expansion (expansions/ships.py)
    "ship-on-land": N_("{hex} is land: a ship goes into a lagoon"),
    "ship-on-open-sea": N_(
        "{hex} is open sea, not a lagoon: the island must enclose it completely"
    ),
    "lagoon-has-ship": N_("the lagoon at {hex} already holds a ship"),
    "lagoon-not-touching": N_("the lagoon at {hex} does not touch a settlement of yours"),
    "not-a-ship": N_("not a legal ship here"),
    "covers-ship-lagoon": N_("{hex} is in a lagoon that holds a ship: no tile may cover it"),
    # the Double-Hex expansion (expansions/double_hex.py)
    "draw-pile-empty": N_("the draw pile is empty: take a face-up double-hex tile"),
    "double-not-face-up": N_("{tile} is not among the face-up double-hex tiles ({face_up})"),
    "drawn-already": N_("{player} has drawn already: place the drawn tile ({tile})"),
    "double-taken-already": N_(
        "{player} has taken a double-hex tile already (a second one only once the pile is empty)"
    ),
    "double-instead-of-draw": N_(
        "{player} has drawn {tile}: a double-hex tile is taken instead of drawing"
    ),
    # the Game Board expansion (expansions/board_zones.py)
    "outside-zone": N_(
        "the tile would stick out of the {zone} zone by {corners} corners (at most 2 may)"
    ),
    # leaving the game and taking moves back (rules/resignation.py, game.py)
    "no-such-player": N_("there is no player {player} in this game (players 0 to {last})"),
    "no-player-named": N_("there is no player named {name} in this game"),
    "already-out": N_("{name} is already out of the game"),
    "unknown-leaving-reason": N_("a player leaves a game as {choices}, not {reason}"),
    "nothing-to-take-back": N_("there is no move to take back"),
    # move text that names no move (moves.py, hexes.py, tiles.py)
    "not-move-text": N_("{value} is neither a Move nor move text"),
    "move-not-text": N_("a move is text such as 'tile 0,0 3', not {type}"),
    "empty-move": N_("empty move text: expected e.g. 'tile 0,0 3' or 'hut 1,0'"),
    "unknown-move": N_("{text}: unknown move {word}, expected one of {kinds}"),
    "not-a-hex": N_("{text} is not a hex: expected Q,R such as 0,0 or -2,1"),
    "hex-off-map": N_("hex {hex} is off the map: coordinates range from -{limit} to {limit}"),
    "not-a-terrain": N_("{text} is not a terrain: expected one of {terrains}"),
    "bad-orientation": N_("orientation {text} must be a whole number from 0 to 5"),
    "tile-usage": N_("expected 'tile Q,R K' (volcano hex, orientation 0-5)"),
    "draw-usage": N_("expected 'draw' with nothing after it"),
    "double-usage": N_("expected 'double XY Q,R K' with XY one of {tiles}"),
    "one-hex-usage": N_("expected '{kind} Q,R' (one hex)"),
    "expand-usage": N_("expected 'expand TERRAIN Q,R ...' (a terrain and at least one hex)"),
    "not-a-double-tile": N_("{text} is not a double-hex tile: one of {tiles}"),
    "expand-onto-volcano": N_("a settlement cannot expand onto volcanoes"),
    "hex-twice": N_("a hex is listed twice"),
    # the options of a new game (options.py, tiles.py, expansions/double_hex.py)
    "bad-tiles-per-player": N_("tiles_per_player is {value}: choose 12, 18 or 24"),
    "tiles-per-player-two-only": N_(
        "{tiles} tiles per player is for two players only; a {players}-player game uses 12"
    ),
    "one-board-zone": N_("choose one board zone, not {zones}"),
    "unknown-house-rule": N_("unknown house rule {value}: choose from {choices}"),
    "unknown-expansion": N_("unknown expansion {value}: choose from {choices}"),
    "player-count": N_("players is {players}: Taluva is for {fewest} to {most} players"),
    "players-not-list": N_("players must be a count or a list of names, not {value}"),
    "player-names-count": N_("{named} players named: Taluva is for {fewest} to {most} players"),
    "empty-player-name": N_("player {number}'s name {name} must be non-empty text"),
    "deck-not-text": N_("deck[{index}] is {value}, not a tile code such as 'JC'"),
    "deck-not-tile": N_("deck[{index}] is {value}, not a tile code: two of the letters J C S R L"),
    "deck-too-many": N_(
        "the deck holds {many} {tile} tiles, but a {players}-player box has only {available}"
    ),
    "doubles-need-expansion": N_("face-up double-hex tiles need the double_hex expansion"),
    "not-a-double-code": N_("doubles[{index}] is {value}, not one of {tiles}"),
    "double-listed-twice": N_("doubles lists {tile} twice: there is one of each"),
    "doubles-per-player": N_(
        "{laid} face-up double-hex tiles for {players} players: lay one per player"
    ),
    "not-unseen": N_("not among the unseen tiles: {tiles}"),
}
"""Every refusal code with its English template (``{name}`` placeholders, its values)."""

REFUSED_MOVE: Final = N_("{move}: {reason}")
"""A refusal said with the move text it refuses ("hut 1,0: 1,0 is not next to ..."); it
carries the code of the refusal it wraps."""


def refusal(code: str, /, **values: Any) -> Text:
    """The refusal ``code`` in words, its placeholders filled from ``values``."""
    return Text(REFUSALS[code], values, code=code)


def refused_move(move: object, reason: Text) -> Text:
    """``reason`` said after the move (or text) it refuses, keeping the reason's code."""
    return Text(REFUSED_MOVE, {"move": str(move), "reason": reason}, code=reason.code)


IN_RECORD: Final = N_("{source}: {problem}")
MOVE_IN_RECORD: Final = N_("{source}: moves[{index}] {problem}")
RESIGNATION_IN_RECORD: Final = N_("{source}: resignations[{index}]: {problem}")
"""A problem found replaying a record, said with where it lies (``in_record``)."""


def in_record(
    problem: Text, source: str, *, move: int | None = None, resignation: int | None = None
) -> Text:
    """A problem found replaying a record, said with where it lies (the record's name, the
    move or resignation by its index), keeping the problem's code."""
    values: dict[str, Any] = {"source": source, "problem": problem}
    if move is not None:
        return Text(MOVE_IN_RECORD, {"index": str(move), **values}, code=problem.code)
    if resignation is not None:
        return Text(RESIGNATION_IN_RECORD, {"index": str(resignation), **values}, code=problem.code)
    return Text(IN_RECORD, values, code=problem.code)


def and_list(items: Sequence[str]) -> str:
    """Items joined by "and" as a Text said in the reader's language: ``a and b and c``."""
    words = items[0]
    for item in items[1:]:
        words = T("{first} and {second}", first=words, second=item)
    return words


def player_words(seat: int) -> Text:
    """A seat as a refusal names it: ``player 1`` for seat 0."""
    return T("player {number}", number=seat + 1)
