"""The agent interface and the simple agents (random, and greedy: the heuristic's best turn).

An agent is asked for one move at a time and gets a copy of the game it may change. Every
agent is deterministic for its seed: its random choices come from a generator seeded with the
agent's seed and the visible history (moves played, tile on show), never from the hidden pile.
"""

from __future__ import annotations

import random
import time
from abc import ABC, abstractmethod

from taluva.ai.evaluation import DEFAULT_EVALUATOR, Evaluator
from taluva.ai.turns import Turn, ordered, plan_turns
from taluva.engine.game import Game
from taluva.engine.moves import DRAW, Move

SAFETY = 0.9
"""Share of a time budget an agent plans to use, leaving room for its last steps."""


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
        if len(moves) > 1 and moves[0].kind != DRAW:
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
