"""Game options: players, tiles per player, expansions and house rules, as one checked value.

``Options.new`` refuses what does not exist or does not fit together with ``InvalidOption``;
an ``Options`` value is always valid, and its ``to_json`` is a record's ``options`` object.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from taluva.engine.errors import InvalidOption
from taluva.engine.refusals import and_list, refusal
from taluva.engine.wording import T, Text

PLAYER_COUNTS: Final = range(2, 6)
"""How many players a game of Taluva can have: 2 to 5."""
TILES_PER_PLAYER_CHOICES: Final = (12, 18, 24)
HOUSE_RULES: Final = ("adjacent_hut", "all_tiles")
ZONE_NAMES: Final = ("beginner", "intermediate-a", "intermediate-b", "expert")
"""The Game Board zones, largest first (their shapes: ``expansions.board_zones``)."""
EXPANSIONS: Final = ("ships", "double_hex", *(f"board:{name}" for name in ZONE_NAMES))


def player_count_range() -> Text:
    """How many players a game may have, as messages write it: ``FEWEST to MOST`` (a Text,
    said in the reader's language where a message takes it as a value)."""
    return T("{fewest} to {most}", fewest=min(PLAYER_COUNTS), most=max(PLAYER_COUNTS))


@dataclass(frozen=True, slots=True)
class Options:
    """The options of a game: how many players, tiles per player, expansions, house rules."""

    player_count: int = 2
    tiles_per_player: int = 12
    expansions: tuple[str, ...] = ()
    house_rules: tuple[str, ...] = ()

    @classmethod
    def new(
        cls,
        player_count: int,
        tiles_per_player: Any = 12,
        expansions: Iterable[str] | str = (),
        house_rules: Iterable[str] | str = (),
    ) -> Options:
        """Check options given by a person or a record; raise InvalidOption naming the
        problem."""
        if type(tiles_per_player) is not int or tiles_per_player not in TILES_PER_PLAYER_CHOICES:
            raise InvalidOption(refusal("bad-tiles-per-player", value=repr(tiles_per_player)))
        if tiles_per_player != 12 and player_count != 2:
            raise InvalidOption(
                refusal("tiles-per-player-two-only", tiles=tiles_per_player, players=player_count)
            )
        rules = _checked_names(house_rules, HOUSE_RULES, "unknown-house-rule")
        chosen = _checked_names(expansions, EXPANSIONS, "unknown-expansion")
        boards = [value for value in chosen if value.startswith("board:")]
        if len(boards) > 1:
            raise InvalidOption(refusal("one-board-zone", zones=and_list(boards)))
        return cls(player_count, tiles_per_player, tuple(chosen), tuple(rules))

    @property
    def ships(self) -> bool:
        """Whether the Ships expansion is played."""
        return "ships" in self.expansions

    @property
    def double_hex(self) -> bool:
        """Whether the Double-Hex expansion is played."""
        return "double_hex" in self.expansions

    @property
    def zone(self) -> str | None:
        """The Game Board zone the island must grow in, or None."""
        for expansion in self.expansions:
            if expansion.startswith("board:"):
                return expansion.partition(":")[2]
        return None

    @property
    def adjacent_hut(self) -> bool:
        """House rule: a new settlement's hut may stand next to the player's own buildings."""
        return "adjacent_hut" in self.house_rules

    @property
    def all_tiles(self) -> bool:
        """House rule: play with every tile in the box, whatever the number of players."""
        return "all_tiles" in self.house_rules

    def to_json(self) -> dict[str, Any]:
        """The record's ``options`` object."""
        return {
            "tiles_per_player": self.tiles_per_player,
            "expansions": list(self.expansions),
            "house_rules": list(self.house_rules),
        }


def player_names(players: int | Sequence[str]) -> tuple[str, ...]:
    """The seats' names from a count (``Player 1``...) or a list; raise InvalidOption."""
    if isinstance(players, int) and not isinstance(players, bool):
        if players not in PLAYER_COUNTS:
            raise InvalidOption(
                refusal(
                    "player-count",
                    players=players,
                    fewest=min(PLAYER_COUNTS),
                    most=max(PLAYER_COUNTS),
                )
            )
        return tuple(f"Player {i + 1}" for i in range(players))
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise InvalidOption(refusal("players-not-list", value=repr(players)))
    names = tuple(players)
    if len(names) not in PLAYER_COUNTS:
        raise InvalidOption(
            refusal(
                "player-names-count",
                named=len(names),
                fewest=min(PLAYER_COUNTS),
                most=max(PLAYER_COUNTS),
            )
        )
    for index, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            raise InvalidOption(refusal("empty-player-name", number=index + 1, name=repr(name)))
    return names


def _checked_names(values: Iterable[str] | str, allowed: Sequence[str], code: str) -> list[str]:
    if isinstance(values, str):
        values = [values]
    chosen: list[str] = []
    for value in values:
        if not isinstance(value, str) or value not in allowed:
            raise InvalidOption(refusal(code, value=repr(value), choices=", ".join(allowed)))
        if value not in chosen:
            chosen.append(value)
    return chosen
