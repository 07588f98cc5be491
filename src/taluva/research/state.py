"""An OpenSpiel-style state: explicit chance nodes for the tile draw, integer actions, returns.

Works without OpenSpiel installed (``taluva.research.spiel`` wraps it for ``pyspiel``). The
draw pile is not fixed in advance: each time the engine would draw, the state stops at a
chance node whose outcomes are the unseen tiles weighted by how many of each are left, which
is the same distribution as drawing from a shuffled pile. With the Double-Hex expansion the
game opens with a chance node that lays the face-up double-hex tiles.

>>> state = TaluvaState(TaluvaConfig(players=2))
>>> state.current_player(), len(state.chance_outcomes())
(-1, 25)
>>> state.apply_action(TILE_CODES.index("JC"))
>>> state.current_player(), state.action_to_string(state.legal_actions()[0])
(0, 'tile 0,0 0')
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from itertools import combinations
from math import comb
from typing import Any, Final

from taluva.engine.errors import InvalidOption
from taluva.engine.game import Game
from taluva.engine.moves import Move
from taluva.engine.outcome import Outcome
from taluva.engine.tiles import DOUBLE_HEX_TILES, tile_set
from taluva.research.actions import (
    CHANCE_PLAYER,
    DEFAULT_RADIUS,
    TERMINAL_PLAYER,
    TILE_CODES,
    ActionSpace,
    action_space,
    returns_of,
)

SERIAL_FORMAT: Final = "taluva-state/1"
_DEAL_DOUBLES: Final = "deal doubles"
_DEAL_TILE: Final = "deal tile"
_PLAY: Final = "play"


@dataclass(frozen=True)
class TaluvaConfig:
    """The options of a game (as ``Game.new`` takes them) and the action window's radius."""

    players: int = 2
    tiles_per_player: int = 12
    expansions: tuple[str, ...] = ()
    house_rules: tuple[str, ...] = ()
    radius: int = DEFAULT_RADIUS
    names: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "expansions", tuple(self.expansions))
        object.__setattr__(self, "house_rules", tuple(self.house_rules))
        if type(self.radius) is not int or self.radius < 2:
            raise InvalidOption(f"radius is {self.radius!r}: choose a whole number, 2 or more")
        Game.new(
            players=self.players,
            seed=0,
            tiles_per_player=self.tiles_per_player,
            expansions=self.expansions,
            house_rules=self.house_rules,
        )
        if not self.names:
            object.__setattr__(self, "names", tuple(f"Player {i + 1}" for i in range(self.players)))

    @property
    def deck_length(self) -> int:
        """Tiles in the draw pile."""
        if "all_tiles" in self.house_rules:
            return sum(tile_set(self.players).values())
        return self.tiles_per_player * self.players

    @property
    def double_hex(self) -> bool:
        """Whether the Double-Hex expansion is on (the game opens by laying doubles face up)."""
        return "double_hex" in self.expansions

    @property
    def max_game_length(self) -> int:
        """An upper bound on the number of player actions: three a turn (draw, tile, build)."""
        doubles = self.players if self.double_hex else 0
        return 3 * (self.deck_length + doubles)

    @property
    def max_chance_outcomes(self) -> int:
        """The largest number of outcomes of any chance node."""
        deals = comb(len(DOUBLE_HEX_TILES), self.players) if self.double_hex else 0
        return max(len(TILE_CODES), deals)

    def new_game(self, deck: list[str], doubles: tuple[str, ...] | None) -> Game:
        """An engine game with these options and a given pile."""
        return Game.new(
            players=list(self.names),
            deck=deck,
            tiles_per_player=self.tiles_per_player,
            expansions=self.expansions,
            house_rules=self.house_rules,
            doubles=doubles if self.double_hex else None,
        )

    def to_json(self) -> dict[str, Any]:
        """The options as plain JSON data."""
        data = asdict(self)
        for key in ("expansions", "house_rules", "names"):
            data[key] = list(data[key])
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TaluvaConfig:
        """Read ``to_json``'s output."""
        return cls(
            players=data["players"],
            tiles_per_player=data["tiles_per_player"],
            expansions=tuple(data["expansions"]),
            house_rules=tuple(data["house_rules"]),
            radius=data["radius"],
            names=tuple(data.get("names", ())),
        )


class TaluvaState:
    """A game position with chance nodes, as OpenSpiel's ``State`` presents one."""

    def __init__(self, config: TaluvaConfig | None = None) -> None:
        self.config = config or TaluvaConfig()
        self.space: ActionSpace = action_space(self.config.radius)
        self.game: Game | None = None
        self.history: list[int] = []
        self.outcome: Outcome | None = None
        self._stage = _DEAL_DOUBLES if self.config.double_hex else _DEAL_TILE
        self._doubles: tuple[str, ...] | None = None
        self._before: Game | None = None
        self._trigger: Move | None = None
        self._legal: list[int] = []

    # ------------------------------------------------------------------ OpenSpiel's API

    def current_player(self) -> int:
        """The player to move, ``-1`` at a chance node, ``-4`` when the game is over."""
        if self.outcome is not None:
            return TERMINAL_PLAYER
        if self._stage != _PLAY:
            return CHANCE_PLAYER
        assert self.game is not None
        return self.game.to_move

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.outcome is not None

    def is_chance_node(self) -> bool:
        """Whether the next action is a chance outcome."""
        return self.outcome is None and self._stage != _PLAY

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Sorted legal actions (chance outcomes at a chance node, none when it is over)."""
        if self.outcome is not None or (player is not None and player != self.current_player()):
            return []
        if self._stage != _PLAY:
            return [action for action, _ in self.chance_outcomes()]
        return list(self._legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(action, probability)`` of each outcome of a chance node: a tile, weighted by how
        many of it are unseen, or a set of face-up double-hex tiles."""
        if self._stage == _DEAL_DOUBLES:
            count = comb(len(DOUBLE_HEX_TILES), self.config.players)
            return [(i, 1.0 / count) for i in range(count)]
        if self._stage != _DEAL_TILE or self.outcome is not None:
            return []
        unseen = self._unseen()
        total = sum(unseen.values())
        return [(i, unseen[code] / total) for i, code in enumerate(TILE_CODES) if unseen[code]]

    def apply_action(self, action: int) -> None:
        """Play an action (a chance outcome at a chance node); ValueError if it is not legal."""
        action = int(action)
        if self.outcome is not None:
            raise ValueError(f"action {action}: the game is over")
        if self._stage == _DEAL_DOUBLES:
            self._deal_doubles(action)
        elif self._stage == _DEAL_TILE:
            self._deal_tile(action)
        else:
            self._play(action)
        self.history.append(action)

    def action_to_string(self, action: int, player: int | None = None) -> str:
        """Move text of an action here (chance outcomes read ``deal JC``, ``face up VL VS``)."""
        if self._stage == _DEAL_DOUBLES and self.outcome is None:
            return "face up " + " ".join(self._deals()[action])
        if self._stage == _DEAL_TILE and self.outcome is None:
            return f"deal {TILE_CODES[action]}"
        try:
            return str(self.space.decode(self.game, action))
        except ValueError:
            return self.space.describe(action)

    def returns(self) -> list[float]:
        """Each player's result in [-1, 1] (``returns_of``); zeros while the game runs."""
        if self.outcome is None:
            return [0.0] * self.config.players
        return returns_of(self.outcome, self.config.players)

    def clone(self) -> TaluvaState:
        """An independent copy (engine games are copied cheaply, sharing their snapshots)."""
        new = TaluvaState.__new__(TaluvaState)
        new.config = self.config
        new.space = self.space
        new.game = None if self.game is None else self.game.copy()
        new.history = list(self.history)
        new.outcome = self.outcome
        new._stage = self._stage
        new._doubles = self._doubles
        new._before = None if self._before is None else self._before.copy()
        new._trigger = self._trigger
        new._legal = self._legal
        return new

    def serialize(self) -> str:
        """JSON text with the options and every action so far (``deserialize`` replays it)."""
        return json.dumps(
            {"format": SERIAL_FORMAT, "config": self.config.to_json(), "history": self.history},
            separators=(",", ":"),
        )

    @classmethod
    def deserialize(cls, text: str) -> TaluvaState:
        """Rebuild a state from ``serialize``'s text; ValueError if it does not replay."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"not a serialized Taluva state: {error}") from None
        if not isinstance(data, dict) or data.get("format") != SERIAL_FORMAT:
            raise ValueError(f"not a serialized Taluva state (format {SERIAL_FORMAT!r})")
        try:
            config = TaluvaConfig.from_json(data["config"])
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a serialized Taluva state: bad config ({error})") from None
        state = cls(config)
        for index, action in enumerate(data["history"]):
            try:
                state.apply_action(action)
            except ValueError as error:
                raise ValueError(f"history[{index}]: {error}") from None
        return state

    def __deepcopy__(self, memo: dict[int, Any]) -> TaluvaState:
        return self.clone()

    def __getstate__(self) -> str:
        return self.serialize()

    def __setstate__(self, text: str) -> None:
        self.__dict__.update(TaluvaState.deserialize(text).__dict__)

    def __str__(self) -> str:
        lines = []
        game = self.game
        if game is None:
            lines.append("(no tiles yet)")
        else:
            lines.append(str(game))
            left = game.tiles_left + (1 if self._stage == _DEAL_TILE and game.tile else 0)
            lines.append(f"tiles left: {left}")
            if game.doubles:
                lines.append("face up: " + " ".join(game.doubles))
        if self.outcome is not None:
            lines.append(f"over: {dict(self.outcome)}")
        elif self._stage != _PLAY:
            lines.append(f"chance: {self._stage}")
        else:
            assert game is not None
            tile = f", tile {game.tile}" if game.tile else ""
            lines.append(f"to move: player {game.to_move} ({game.phase}{tile})")
        return "\n".join(lines)

    # ------------------------------------------------------------------ for observers

    def position(self) -> tuple[Game, bool, bool]:
        """What an observer shows: an engine game, whether its drawn tile is still hidden
        (a tile chance node) and whether the face-up doubles are (before they are laid)."""
        if self.game is not None:
            return self.game, self._stage == _DEAL_TILE and self.outcome is None, False
        deals = self._deals()
        doubles = self._doubles or (deals[0] if self.config.double_hex else None)
        deck = _filler(tile_set(self.config.players), "", 0, self.config.deck_length)
        return self.config.new_game(deck, doubles), True, self._doubles is None

    # ------------------------------------------------------------------ internals

    def _deals(self) -> list[tuple[str, ...]]:
        return list(combinations(DOUBLE_HEX_TILES, self.config.players))

    def _unseen(self) -> Any:
        if self._before is not None:
            return self._before.unseen_tiles()
        return tile_set(self.config.players)

    def _deal_doubles(self, action: int) -> None:
        deals = self._deals()
        if not 0 <= action < len(deals):
            raise ValueError(f"chance outcome {action} is not one of 0..{len(deals) - 1}")
        self._doubles = deals[action]
        game = self.config.new_game(
            _filler(tile_set(self.config.players), "", 0, self.config.deck_length), self._doubles
        )
        if game.tile is not None:
            self._stage, self.game, self._before, self._trigger = _DEAL_TILE, None, None, None
        else:
            self._enter_play(game)

    def _deal_tile(self, action: int) -> None:
        unseen = self._unseen()
        if not 0 <= action < len(TILE_CODES) or not unseen[TILE_CODES[action]]:
            raise ValueError(f"chance outcome {action} is not an unseen tile here")
        code = TILE_CODES[action]
        before, trigger = self._before, self._trigger
        if before is None:
            deck = _filler(unseen, code, 0, self.config.deck_length)
            game = self.config.new_game(deck, self._doubles)
        elif self.game is not None and self.game.tile == code:
            game = self.game
        else:
            assert trigger is not None
            game = before.with_pile(_filler(before.unseen_tiles(), code, 0, before.tiles_left))
            game.play(trigger)
        self._before = self._trigger = None
        self._enter_play(game)

    def _play(self, action: int) -> None:
        game = self.game
        assert game is not None
        legal = self._legal
        if action not in legal:
            raise ValueError(
                f"action {action} ({self.space.describe(action)}) is not legal here: "
                f"{len(legal)} legal actions"
            )
        after = game.copy()
        after.play(self.space.decode(game, action))
        if after.tiles_left < game.tiles_left and not after.is_over:
            self._stage = _DEAL_TILE
            self._before, self._trigger, self.game = game, after.moves[-1], after
            self._legal = []
        else:
            self._enter_play(after)

    def _enter_play(self, game: Game) -> None:
        self.game = game
        self._stage = _PLAY
        self._legal = self.space.legal_actions(game) if not game.is_over else []
        self.outcome = self.space.window_outcome(game, self._legal)


def _filler(unseen: Any, first: str, drawn: int, length: int) -> list[str]:
    """A pile of ``length - drawn`` tiles from ``unseen``, starting with ``first`` (if given)."""
    rest = unseen.copy()
    pile = []
    if first:
        rest[first] -= 1
        pile.append(first)
    pile += sorted(rest.elements())[: length - drawn - len(pile)]
    return pile
