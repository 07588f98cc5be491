"""Taluva for OpenSpiel: importing this module registers ``python_taluva`` with ``pyspiel``.

>>> import pyspiel
>>> import taluva.research.spiel
>>> game = pyspiel.load_game("python_taluva(players=3)")
>>> game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()
(3, 18292, 25)

Parameters: ``players`` (a count of ``taluva.engine.options.PLAYER_COUNTS``),
``tiles_per_player`` (12, 18, 24), ``expansions`` and ``house_rules`` (names joined by ``+``,
e.g. ``python_taluva(expansions=ships+double_hex)``, since commas separate parameters there)
and ``radius`` (the action window, see ``taluva.research.actions``). Needs the ``[openspiel]``
extra.
"""

from __future__ import annotations

import re
from typing import Any, Final

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from taluva.engine.errors import InvalidOption
from taluva.engine.options import PLAYER_COUNTS
from taluva.research.actions import DEFAULT_RADIUS
from taluva.research.observations import Observer
from taluva.research.state import TaluvaConfig, TaluvaState

SHORT_NAME: Final = "python_taluva"
DEFAULT_PARAMETERS: Final[dict[str, Any]] = {
    "players": 2,
    "tiles_per_player": 12,
    "expansions": "",
    "house_rules": "",
    "radius": DEFAULT_RADIUS,
}

GAME_TYPE: Final = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Taluva",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=max(PLAYER_COUNTS),
    min_num_players=min(PLAYER_COUNTS),
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMETERS,
)


def config_from_parameters(params: dict[str, Any]) -> TaluvaConfig:
    """The game options that OpenSpiel parameters describe; InvalidOption if they are wrong."""
    merged = {**DEFAULT_PARAMETERS, **params}

    def names(text: str) -> tuple[str, ...]:
        return tuple(part for part in re.split(r"[+,\s]+", str(text)) if part)

    return TaluvaConfig(
        players=int(merged["players"]),
        tiles_per_player=int(merged["tiles_per_player"]),
        expansions=names(merged["expansions"]),
        house_rules=names(merged["house_rules"]),
        radius=int(merged["radius"]),
    )


class TaluvaGame(pyspiel.Game):  # type: ignore[misc]
    """The pyspiel game: fixed action space, chance nodes for the draws, zero-sum returns."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.config = config_from_parameters(params or {})
        info = pyspiel.GameInfo(
            num_distinct_actions=TaluvaState(self.config).space.size,
            max_chance_outcomes=self.config.max_chance_outcomes,
            num_players=self.config.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.config.max_game_length,
        )
        super().__init__(GAME_TYPE, info, {**DEFAULT_PARAMETERS, **(params or {})})

    def new_initial_state(self) -> SpielState:
        """A game before its first chance node (the first tile, or the face-up doubles)."""
        return SpielState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        """The planes-and-scalars observer, or OpenSpiel's public-information observer when
        an algorithm asks for perfect recall (the history is the information state)."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return SpielObserver(self.config, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class SpielState(pyspiel.State):  # type: ignore[misc]
    """A pyspiel state that hands every call to a ``TaluvaState``."""

    def __init__(self, game: TaluvaGame) -> None:
        super().__init__(game)
        self.core = TaluvaState(game.config)

    def current_player(self) -> int:
        """The player to move, ``PlayerId.CHANCE`` or ``PlayerId.TERMINAL``."""
        return self.core.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self.core.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The unseen tiles (or face-up double sets) with their probabilities."""
        return self.core.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.core.apply_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self.core.action_to_string(action, player)

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.core.is_terminal()

    def returns(self) -> list[float]:
        """Zero-sum returns from the final ranking (zeros while the game runs)."""
        return self.core.returns()

    def __str__(self) -> str:
        return str(self.core)


class SpielObserver:
    """OpenSpiel's PyObserver: a flat ``tensor`` with ``dict`` views ``planes`` and ``scalars``."""

    def __init__(self, config: TaluvaConfig, params: dict[str, Any] | None) -> None:
        if params:
            raise InvalidOption(f"the Taluva observer takes no parameters, got {params}")
        self.observer = Observer(config.players, config.radius)
        planes = int(np.prod(self.observer.planes_shape))
        scalars = self.observer.scalars_shape[0]
        self.tensor = np.zeros(planes + scalars, np.float32)
        self.dict = {
            "planes": self.tensor[:planes].reshape(self.observer.planes_shape),
            "scalars": self.tensor[planes:],
        }

    def set_from(self, state: SpielState, player: int) -> None:
        """Fill ``tensor`` with the position seen by ``player``."""
        game, hide_tile, hide_doubles = state.core.position()
        planes, scalars = self.observer.observe(
            game,
            player,
            legal_actions=state.core.legal_actions(),
            hide_tile=hide_tile,
            hide_doubles=hide_doubles,
        )
        self.dict["planes"][...] = planes
        self.dict["scalars"][...] = scalars

    def string_from(self, state: SpielState, player: int) -> str:
        """The position as text (the same for every player: nothing is hidden)."""
        return str(state.core)


pyspiel.register_game(GAME_TYPE, TaluvaGame)
