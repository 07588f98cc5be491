"""Playing levels for people, 1 (beginner) to 6 (expert), mapped to agents and budgets.

The search levels are bounded by iterations (so they play the same way on any machine) and
by a time limit that they never exceed by more than a tenth (so a slow machine never keeps a
player waiting longer than promised).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Final

from taluva.ai.agents import SAFETY, Agent, GreedyAgent, PlanningAgent
from taluva.ai.evaluation import DEFAULT_EVALUATOR, Evaluator
from taluva.ai.mcts import MctsAgent
from taluva.ai.parallel import ParallelMctsAgent, evaluator_for
from taluva.ai.turns import plan_turns
from taluva.engine.game import Game
from taluva.engine.moves import Move
from taluva.engine.wording import T


@dataclass(frozen=True, slots=True)
class Level:
    """One level: what plays it and how long it may think per move."""

    number: int
    title: str
    """The level's name for people (a ``Text``: "beginner" ... "expert")."""
    agent: str  # "casual", "greedy", "mcts" or "parallel" (mcts on every core)
    iterations: int | None = None
    seconds: float | None = None
    learned: frozenset[int] = frozenset()
    """The numbers of players whose games the search values with the learned evaluation
    (``taluva.ai.learned``); the heuristic values the others. Levels 5 and 6 use it with two
    and four players, where it beat the heuristic at equal time (docs/ai.md, "Third round"
    and "Four players: the network for the searcher alone")."""
    own: frozenset[int] = frozenset()
    """Among ``learned``, the numbers of players whose games the network values only for the
    searching player, the heuristic for the others (``eval=learned-own``)."""

    def describe(self) -> str:
        budget = ""
        if self.iterations is not None:
            budget = f", {self.iterations} iterations"
        if self.seconds is not None:
            budget += f", at most {self.seconds:g} s a move"
        if self.learned:
            counts = " or ".join(str(n) for n in sorted(self.learned))
            budget += f", the learned evaluation with {counts} players"
        if self.own:
            counts = " or ".join(str(n) for n in sorted(self.own))
            budget += f" (with {counts} for its own results only)"
        return f"level {self.number} ({self.title}): {self.agent}{budget}"

    def evaluator(self, own: bool = True) -> Evaluator:
        """What values the positions this level searches (one per process, so that what it
        remembers serves every move). ``own=False`` values every player by the network where
        the level values only its own: chances shown to people (a review, the win-chance
        bar) must not depend on whose move it is."""
        return evaluator_for(self.learned, self.own if own else frozenset())


LEARNED: Final = frozenset({2, 4})
"""The player counts whose games the top levels value with the learned evaluation."""
LEARNED_OWN: Final = frozenset({4})
"""Those of them where the network values the searching player only."""

LEVELS: Final = {
    1: Level(1, T("beginner"), "casual", seconds=2.0),
    2: Level(2, T("easy"), "greedy", seconds=2.0),
    3: Level(3, T("medium"), "mcts", iterations=30, seconds=2.0),
    4: Level(4, T("hard"), "mcts", iterations=150, seconds=4.0),
    5: Level(
        5, T("strongest"), "mcts", iterations=800, seconds=8.0, learned=LEARNED, own=LEARNED_OWN
    ),
    6: Level(
        6, T("expert"), "parallel", iterations=800, seconds=8.0, learned=LEARNED, own=LEARNED_OWN
    ),
}
"""The levels. Level 6 runs level 5's search on every core at once, each process from its own
seed and with the whole budget, and adds up their root visits (``taluva.ai.parallel``)."""


def level_range() -> str:
    """The AI levels as help texts and messages write them: ``FIRST-LAST``."""
    return f"{min(LEVELS)}-{max(LEVELS)}"


TOP_LEVEL: Final = 5
"""The strongest level that searches in one process: the agent ``mcts`` without a budget
searches with its budget (and the heuristic evaluation, ``mcts:eval=learned`` the learned)."""


class CasualAgent(PlanningAgent):
    """A beginner's opponent: it picks among the plans the heuristic likes, not always the
    best (a soft-max with a high temperature), so it blunders now and then."""

    def __init__(
        self,
        seed: int | None = None,
        evaluator: Evaluator = DEFAULT_EVALUATOR,
        temperature: float = 0.08,
        seconds: float | None = None,
    ) -> None:
        super().__init__("level:1", seed)
        self.evaluator = evaluator
        self.temperature = temperature
        self.seconds = seconds

    def plan(self, game: Game) -> tuple[Move, ...]:
        rng = self.rng_for(game)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds * SAFETY
        plans = plan_turns(game, self.evaluator, rng, deadline=deadline)
        if not plans:
            return (rng.choice(sorted(game.legal_moves())),)
        mover = game.to_move
        top = plans[0].results[mover]
        weights = [math.exp((p.results[mover] - top) / self.temperature) for p in plans]
        return rng.choices(plans, weights)[0].moves


def level_agent(number: int, seed: int | None = None) -> Agent:
    """The agent that plays at a level from 1 to 6."""
    level = LEVELS[number]
    if level.agent == "casual":
        return CasualAgent(seed, seconds=level.seconds)
    if level.agent == "greedy":
        agent: Agent = GreedyAgent(seed, seconds=level.seconds)
        agent.name = f"level:{number}"
        return agent
    if level.agent == "parallel":
        return ParallelMctsAgent(
            seed,
            iterations=level.iterations,
            seconds=level.seconds,
            name=f"level:{number}",
            learned=level.learned,
            own=level.own,
        )
    return MctsAgent(
        seed,
        iterations=level.iterations,
        seconds=level.seconds,
        name=f"level:{number}",
        evaluator=level.evaluator(),
    )
