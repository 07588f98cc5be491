"""Hints: the move the AI would play for the side to move, with its evaluation."""

from __future__ import annotations

from taluva.ai.agents import best_turn
from taluva.ai.evaluation import DEFAULT_EVALUATOR
from taluva.ai.levels import LEVELS, level_agent
from taluva.ai.mcts import MctsAgent
from taluva.ai.parallel import ParallelMctsAgent
from taluva.ai.turns import Turn
from taluva.engine.game import Game
from taluva.engine.moves import Move
from taluva.engine.wording import T

HINT_SEED = 0
"""Hints are seeded, so the same position always gets the same hint at the same level."""


def hint(game: Game, level: int = 5) -> tuple[Move, float]:
    """The best move found at ``level`` and its evaluation in [0, 1]: the expected result for
    the side to move (1 a sure win; with more players, the share of opponents beaten)."""
    move, value, _ = hint_plan(game, level)
    return move, value


def hint_plan(game: Game, level: int = 5) -> tuple[Move, float, Turn]:
    """Like ``hint``, also returning the whole plan for the turn (placement and build).

    Levels 1 and 2 give the heuristic's best plan (level 1 plays worse moves on purpose, but
    a hint should not)."""
    if game.result is not None:
        raise ValueError(T("the game is over: there is no move to suggest"))
    if level not in LEVELS:
        raise ValueError(
            T("level {level}: choose a level from 1 to {last}", level=repr(level), last=len(LEVELS))
        )
    agent = level_agent(level, HINT_SEED)
    copy = game.copy()
    if isinstance(agent, MctsAgent | ParallelMctsAgent):
        try:
            result = agent.search(copy)
        finally:
            agent.close()
        return result.plan.moves[0], result.value, result.plan
    plan = best_turn(copy, DEFAULT_EVALUATOR, agent.rng_for(copy))
    return plan.moves[0], plan.results[game.to_move], plan
