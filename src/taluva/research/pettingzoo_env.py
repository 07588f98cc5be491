"""Taluva as a PettingZoo AEC environment (``taluva_v0``); needs the ``[rl]`` extra.

Agents are ``player_0`` ... ``player_{n-1}`` in seat order. A turn is two steps of the same
agent (place the tile, then build; three with the Double-Hex expansion's ``draw``); the
engine draws tiles from a pile shuffled from the reset seed. Observations are dicts:
``observation`` (the planes of ``taluva.research.observations``, seen by that agent),
``scalars`` and ``action_mask`` (int8 over the whole action space; all zero for an agent
that is not to move). Rewards come at the end: each player's ``returns_of`` the ranking; an
eliminated player gets its (already fixed) reward when it is eliminated and leaves through
``terminations``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env import ActionType

from taluva.engine.game import Game
from taluva.engine.outcome import Outcome
from taluva.research.actions import DEFAULT_RADIUS, returns_of
from taluva.research.observations import Observer
from taluva.research.render import ansi_picture, rgb_frame, svg_picture
from taluva.research.state import TaluvaConfig

ENV_NAME: Final = "taluva_v0"
RENDER_MODES: Final = ["human", "ansi", "rgb_array", "svg"]


def env(**kwargs: Any) -> Any:
    """The environment wrapped as PettingZoo's classic games are: order enforced, actions
    checked against the action space."""
    wrapped: Any = raw_env(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped


class raw_env(AECEnv):  # type: ignore[misc]
    """Taluva for any number of agents in ``PLAYER_COUNTS``, with action masks; see the module
    docstring."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo reads it from the class)
        "render_modes": RENDER_MODES,
        "name": ENV_NAME,
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        players: int = 2,
        tiles_per_player: int = 12,
        expansions: Sequence[str] = (),
        house_rules: Sequence[str] = (),
        radius: int = DEFAULT_RADIUS,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r} is not one of {', '.join(RENDER_MODES)}")
        self.config = TaluvaConfig(
            players=players,
            tiles_per_player=tiles_per_player,
            expansions=tuple(expansions),
            house_rules=tuple(house_rules),
            radius=radius,
        )
        self.render_mode = render_mode
        self.observer = Observer(players, radius)
        self.space = self.observer.space
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agents: list[str] = []
        agents = self.possible_agents
        self.action_spaces = {agent: spaces.Discrete(self.space.size) for agent in agents}
        self.observation_spaces = {agent: self._observation_space() for agent in agents}
        self.game: Game | None = None
        self.outcome: Outcome | None = None
        self._rng = np.random.default_rng()
        self._legal: list[int] = []
        self._legal_set: frozenset[int] = frozenset()
        self._cache: tuple[tuple[int, str], dict[str, Any]] | None = None

    def _observation_space(self) -> spaces.Dict:
        observer = self.observer
        return spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, observer.planes_shape, np.float32),
                "scalars": spaces.Box(0.0, 255.0, observer.scalars_shape, np.float32),
                "action_mask": spaces.Box(0, 1, (self.space.size,), np.int8),
            }
        )

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The same Dict space object for an agent every time (PettingZoo seeds it)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(size of the action space)``; the mask says which actions are legal."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; the same seed gives the same pile, so the same game.

        ``options`` may fix the pile: ``{"deck": [...], "doubles": [...]}`` in draw order
        (e.g. to replay a record's game); other keys are ignored.
        """
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        config = self.config
        options = options or {}
        engine_seed = int(self._rng.integers(2**63))
        self.game = Game.new(
            players=config.players,
            seed=engine_seed,
            deck=options.get("deck"),
            doubles=options.get("doubles"),
            tiles_per_player=config.tiles_per_player,
            expansions=config.expansions,
            house_rules=config.house_rules,
        )
        self.outcome = None
        self._cache = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        self._settle()

    def step(self, action: ActionType) -> None:
        """Play the selected agent's action (``None`` for an agent that has terminated)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.game is not None
        chosen = int(action)
        if chosen not in self._legal_set:
            raise ValueError(
                f"{agent}: action {chosen} ({self.space.describe(chosen)}) is not legal here; "
                "take one whose action_mask entry is 1"
            )
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.game.play(self.space.decode(self.game, chosen))
        self._settle()
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _settle(self) -> None:
        """After a move: legal actions, eliminations, the end of the game, who moves next."""
        game = self.game
        assert game is not None
        players = self.config.players
        self._legal = self.space.legal_actions(game) if not game.is_over else []
        self._legal_set = frozenset(self._legal)
        self.outcome = self.space.window_outcome(game, self._legal)
        for order, seat in enumerate(game.eliminated):
            agent = self.possible_agents[seat]
            if agent in self.terminations and not self.terminations[agent]:
                self.terminations[agent] = True
                self.rewards[agent] = (2 * order - (players - 1)) / (players - 1)
        if self.outcome is not None:
            final = returns_of(self.outcome, players)
            for agent in self.agents:
                if not self.terminations[agent]:
                    self.terminations[agent] = True
                    self.rewards[agent] = final[self.possible_agents.index(agent)]
        else:
            self.agent_selection = self.possible_agents[game.to_move]
        for agent in self.agents:
            self.infos[agent] = {}

    # ------------------------------------------------------------------ observing

    def observe(self, agent: str) -> dict[str, Any]:
        """What ``agent`` sees: planes and scalars from its seat, and its action mask."""
        game = self.game
        assert game is not None
        key = (game.ply, agent)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        seat = self.possible_agents.index(agent)
        moving = self.outcome is None and seat == game.to_move and agent == self.agent_selection
        planes, scalars = self.observer.observe(game, seat, legal_actions=self._legal)
        mask = np.zeros(self.space.size, np.int8)
        if moving:
            mask[self._legal] = 1
        observation = {"observation": planes, "scalars": scalars, "action_mask": mask}
        self._cache = (key, observation)
        return observation

    def render(self) -> Any:
        """The position in the chosen render mode: text (``ansi``, printed for ``human``), an
        RGB frame of the whole window (``rgb_array``) or an SVG document (``svg``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode: nothing to render")
            return None
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "rgb_array":
            return rgb_frame(game, self.config.radius)
        if self.render_mode == "svg":
            return svg_picture(game)
        text = ansi_picture(game, self.outcome)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: rendering opens no window."""

    def state(self) -> np.ndarray:
        """The planes seen from seat 0: the whole position (nothing is hidden but the pile)."""
        assert self.game is not None
        return self.observer.observe(self.game, 0)[0]
