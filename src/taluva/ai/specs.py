"""Agents from their text: ``make_agent("mcts:iterations=200", seed)``, the one place that knows
every kind of agent (the arena, the terminal's seats and the server's AI seats build theirs
here)."""

from __future__ import annotations

from typing import Final

from taluva.ai.agents import Agent, GreedyAgent, RandomAgent
from taluva.ai.evaluation import DEFAULT_EVALUATOR, Evaluator
from taluva.ai.learned import LearnedEvaluator, ModelError, load_network
from taluva.ai.levels import LEVELS, TOP_LEVEL, level_agent
from taluva.ai.mcts import SEVERAL_PLAYERS, TWO_PLAYERS, MctsAgent, SearchSettings
from taluva.ai.parallel import ParallelMctsAgent
from taluva.ai.protocol import ENGINE_TIMEOUT, EngineAgent

AGENT_SPECS: Final = (
    "random",
    "greedy",
    "mcts",
    "mcts:iterations=N",
    "mcts:time=SECONDS",
    "mcts:iterations=N,processes=P",
    "mcts:iterations=N,eval=learned",
    "mcts:iterations=N,eval=learned,model=PATH",
    "mcts:iterations=N,eval=learned-own",
    "mcts:iterations=N,shape=wide|narrow",
    "level:N",
    "engine:COMMAND",
)


class InvalidAgentSpec(ValueError):
    """Agent text that names no agent, or an option it does not have."""


def make_agent(spec: str, seed: int | None = None, *, engine_timeout: float | None = None) -> Agent:
    """Build an agent from its text: ``random``, ``greedy``, ``mcts`` (the top level's budget),
    ``mcts:iterations=N``, ``mcts:time=SECONDS`` (both may be given, comma-separated; with
    ``processes=P``, that search in P processes at once, merged at the root: level 6's way;
    with ``eval=learned``, valuing positions by the learned network, ``taluva.ai.learned``,
    the shipped one or ``model=PATH``; with ``eval=learned-own``, valuing by the network only
    the searching player's results and the others' by the heuristic;
    with ``shape=wide`` or ``shape=narrow``, the tree of two-player games or the one of three
    or more players whatever the player count, ``taluva.ai.mcts.default_settings``),
    ``level:N`` (N one of ``LEVELS``) or ``engine:COMMAND`` (an outside program speaking the
    engine protocol, given ``engine_timeout`` seconds an answer, ``protocol.ENGINE_TIMEOUT`` by
    default)."""
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
        options = _options(
            text, rest, {"iterations", "time", "processes", "eval", "shape", "model"}
        )
        settings = _shape(text, options.pop("shape", None))
        if settings is not None and "processes" in options:
            raise InvalidAgentSpec(f"agent {text!r}: shape= is for a search in one process")
        evaluation = options.pop("eval", "heuristic").lower()
        if evaluation not in {"heuristic", "learned", "learned-own"}:
            raise InvalidAgentSpec(
                f"agent {text!r}: eval={evaluation!r} is not an evaluation; use eval=heuristic, "
                "eval=learned or eval=learned-own"
            )
        learned = evaluation != "heuristic"
        model = options.pop("model", None)
        if model is not None and not learned:
            raise InvalidAgentSpec(
                f"agent {text!r}: model= is the learned evaluation's; add eval=learned"
            )
        if learned and "processes" in options:
            raise InvalidAgentSpec(f"agent {text!r}: eval=learned searches in one process")
        if options:
            iterations = (
                int(_number(text, options, "iterations", int)) if "iterations" in options else None
            )
            seconds = _number(text, options, "time", float) if "time" in options else None
            if iterations is None and seconds is None:
                raise InvalidAgentSpec(f"agent {text!r}: give iterations=N, time=SECONDS or both")
        else:  # the top level's budget
            iterations, seconds = LEVELS[TOP_LEVEL].iterations, LEVELS[TOP_LEVEL].seconds
        if learned or settings is not None:
            own = evaluation == "learned-own"
            evaluator = _learned_evaluator(text, model, own) if learned else DEFAULT_EVALUATOR
            return MctsAgent(seed, iterations, seconds, evaluator, settings, name=text)
        if "processes" in options:
            processes = int(_number(text, options, "processes", int))
            return ParallelMctsAgent(
                seed, iterations=iterations, seconds=seconds, processes=processes, name=text
            )
        return MctsAgent(seed, iterations, seconds, name=None if options else "mcts")
    if kind == "level":
        if rest.strip() not in {str(n) for n in LEVELS}:
            raise InvalidAgentSpec(
                f"agent {text!r}: a level is a whole number from 1 to {len(LEVELS)}"
            )
        return level_agent(int(rest), seed)
    if kind == "engine":
        if not rest.strip():
            raise InvalidAgentSpec(f"agent {text!r}: give the command, e.g. 'engine:taluva engine'")
        timeout = ENGINE_TIMEOUT if engine_timeout is None else engine_timeout
        return EngineAgent(rest.strip(), seed, timeout=timeout)
    raise InvalidAgentSpec(f"unknown agent {text!r}: expected one of {', '.join(AGENT_SPECS)}")


SHAPES: Final = {"wide": TWO_PLAYERS, "narrow": SEVERAL_PLAYERS}
"""The trees ``shape=`` names (``taluva.ai.mcts``): by default the player count picks one."""


def _shape(text: str, name: str | None) -> SearchSettings | None:
    """The search settings a ``shape=`` option names; None without the option."""
    if name is None:
        return None
    try:
        return SHAPES[name.lower()]
    except KeyError:
        raise InvalidAgentSpec(
            f"agent {text!r}: shape={name!r} is not a shape; use shape=wide or shape=narrow"
        ) from None


def _learned_evaluator(text: str, model: str | None, own: bool) -> Evaluator:
    """The learned evaluation: the shipped networks, or the one in the file ``model``; with
    ``own``, for the searching player only (the heuristic values the others)."""
    if model is None:
        return LearnedEvaluator(own=own)
    try:
        return LearnedEvaluator(load_network(model), own=own)
    except ModelError as problem:
        raise InvalidAgentSpec(f"agent {text!r}: {problem}") from None


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
