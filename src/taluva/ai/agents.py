"""The agent interface, the simple agents, and ``make_agent``, which builds any agent from text.

An agent is asked for one move at a time and gets a copy of the game it may change. Every
agent is deterministic for its seed: its random choices come from a generator seeded with the
agent's seed and the visible history (moves played, tile on show), never from the hidden pile.
"""

from __future__ import annotations

import random
import time
from abc import ABC, abstractmethod
from typing import Final

from taluva.ai.evaluation import DEFAULT_EVALUATOR, Evaluator
from taluva.ai.turns import Turn, ordered, plan_turns
from taluva.engine.game import Game
from taluva.engine.moves import Move

SAFETY = 0.9
"""Share of a time budget an agent plans to use, leaving room for its last steps."""


class InvalidAgentSpec(ValueError):
    """Agent text that names no agent, or an option it does not have."""


class Agent(ABC):
    """Something that picks moves: ``choose(game)`` returns a legal move for the side to move."""

    name: str
    seed: int

    def __init__(self, name: str, seed: int | None) -> None:
        self.name = name
        self.seed = random.SystemRandom().randrange(2**32) if seed is None else seed

    @abstractmethod
    def choose(self, game: Game) -> Move:
        """A legal move for the player to move (the game is a copy the agent may change)."""

    def close(self) -> None:  # noqa: B027 - most agents hold nothing to release
        """Release what the agent holds (an outside engine's process); a no-op by default."""

    def rng_for(self, game: Game) -> random.Random:
        """A generator seeded by the agent's seed and what every player can see."""
        return random.Random(f"{self.seed}|{game.ply}|{game.tile}|{turn_key(game)}")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} seed={self.seed}>"


def turn_key(game: Game) -> str:
    """The visible history as text: identifies the position for seeding and plan reuse."""
    return ";".join(str(move) for move in game.moves)


class RandomAgent(Agent):
    """Uniformly random legal moves: the weakest opponent and a fuzzer of the rules."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__("random", seed)

    def choose(self, game: Game) -> Move:
        moves = ordered(game.legal_moves())
        if not moves:
            raise ValueError("the game is over: there is no move to choose")
        return self.rng_for(game).choice(moves)


class PlanningAgent(Agent):
    """An agent that decides a whole turn in its tile phase and then plays the build it
    planned (placing the tile reveals nothing, so the plan still holds)."""

    def __init__(self, name: str, seed: int | None) -> None:
        super().__init__(name, seed)
        self._plan: tuple[str, Move] | None = None

    def choose(self, game: Game) -> Move:
        if game.result is not None:
            raise ValueError("the game is over: there is no move to choose")
        key = turn_key(game)
        if self._plan is not None and self._plan[0] == key and game.is_legal(self._plan[1]):
            move = self._plan[1]
            self._plan = None
            return move
        moves = self.plan(game)
        self._plan = None
        if len(moves) > 1 and moves[0].kind != "draw":
            after = f"{key};{moves[0]}" if key else str(moves[0])
            self._plan = (after, moves[1])
        return moves[0]

    @abstractmethod
    def plan(self, game: Game) -> tuple[Move, ...]:
        """The moves for the rest of this turn (at least one)."""


class GreedyAgent(PlanningAgent):
    """Plays the turn (placement + build) that the heuristic of ``evaluation`` scores best.

    It looks one turn ahead only: every relevant placement with every build after it.
    """

    def __init__(
        self,
        seed: int | None = None,
        evaluator: Evaluator = DEFAULT_EVALUATOR,
        seconds: float | None = None,
    ) -> None:
        super().__init__("greedy", seed)
        self.evaluator = evaluator
        self.seconds = seconds

    def plan(self, game: Game) -> tuple[Move, ...]:
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds * SAFETY
        return best_turn(game, self.evaluator, self.rng_for(game), deadline).moves


def best_turn(
    game: Game, evaluator: Evaluator, rng: random.Random, deadline: float | None = None
) -> Turn:
    """The best-scored plan for the mover's turn (a random legal move if none is found);
    past ``deadline`` the placements not yet looked at are skipped."""
    plans = plan_turns(game, evaluator, rng, deadline=deadline)
    if plans:
        return plans[0]
    moves = ordered(game.legal_moves())
    return Turn((rng.choice(moves),), tuple(evaluator.results(game)))


AGENT_SPECS: Final = (
    "random",
    "greedy",
    "mcts",
    "mcts:iterations=N",
    "mcts:time=SECONDS",
    "level:N",
    "engine:COMMAND",
)


def make_agent(
    spec: str, seed: int | None = None, *, engine_timeout: float | None = None
) -> Agent:
    """Build an agent from its text: ``random``, ``greedy``, ``mcts``, ``mcts:iterations=N``,
    ``mcts:time=SECONDS`` (both may be given, comma-separated), ``level:N`` (1-5) or
    ``engine:COMMAND`` (an outside program speaking the engine protocol, given
    ``engine_timeout`` seconds an answer, ``protocol.ENGINE_TIMEOUT`` by default)."""
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidAgentSpec(f"agent {spec!r}: expected one of {', '.join(AGENT_SPECS)}")
    text = spec.strip()
    kind, _, rest = text.partition(":")
    kind = kind.strip().lower()
    if kind == "random" and not rest:
        return RandomAgent(seed)
    if kind == "greedy" and not rest:
        return GreedyAgent(seed)
    if kind == "mcts":
        from taluva.ai.mcts import MctsAgent

        options = _options(text, rest, {"iterations", "time"})
        iterations = (
            int(_number(text, options, "iterations", int)) if "iterations" in options else None
        )
        seconds = _number(text, options, "time", float) if "time" in options else None
        return MctsAgent(seed, iterations=iterations, seconds=seconds)
    if kind == "level":
        from taluva.ai.levels import LEVELS, level_agent

        if rest.strip() not in {str(n) for n in LEVELS}:
            raise InvalidAgentSpec(
                f"agent {text!r}: a level is a whole number from 1 to {len(LEVELS)}"
            )
        return level_agent(int(rest), seed)
    if kind == "engine":
        from taluva.ai.protocol import ENGINE_TIMEOUT, EngineAgent

        if not rest.strip():
            raise InvalidAgentSpec(f"agent {text!r}: give the command, e.g. 'engine:taluva engine'")
        timeout = ENGINE_TIMEOUT if engine_timeout is None else engine_timeout
        return EngineAgent(rest.strip(), seed, timeout=timeout)
    raise InvalidAgentSpec(f"unknown agent {text!r}: expected one of {', '.join(AGENT_SPECS)}")


def _options(text: str, rest: str, allowed: set[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for part in rest.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep or key not in allowed:
            raise InvalidAgentSpec(
                f"agent {text!r}: {part.strip()!r} is not an option; use "
                + " or ".join(f"{name}=VALUE" for name in sorted(allowed))
            )
        options[key] = value.strip()
    return options


def _number(text: str, options: dict[str, str], key: str, kind: type[int] | type[float]) -> float:
    raw = options[key]
    try:
        value = kind(raw)
    except ValueError:
        raise InvalidAgentSpec(f"agent {text!r}: {key}={raw!r} is not a number") from None
    if not value > 0 or value != value or value == float("inf"):
        raise InvalidAgentSpec(f"agent {text!r}: {key} must be a positive number, not {raw}")
    return value
