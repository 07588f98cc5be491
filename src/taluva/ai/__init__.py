"""Taluva opponents: agents from random to Monte Carlo tree search, levels, hints, an arena.

>>> from taluva import Game
>>> from taluva.ai import make_agent
>>> game = Game.new(players=2, seed=1)
>>> agent = make_agent("greedy", seed=1)
>>> game.is_legal(agent.choose(game.copy()))
True
"""

from __future__ import annotations

from taluva.ai.agents import Agent
from taluva.ai.hint import hint
from taluva.ai.specs import InvalidAgentSpec, make_agent

__all__ = ["Agent", "InvalidAgentSpec", "hint", "make_agent"]
