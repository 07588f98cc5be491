"""Monte Carlo tree search over whole turns, with tile draws as chance events.

The pile's order is hidden, so the search plays in a few *worlds*: copies of the game whose
remaining pile is a guess drawn from the unseen tiles (``game.redeal``), made once per search.
A root plan's n-th visit is played in world n mod ``worlds``, so every plan is compared on the
same guesses, and each plan's subtree in a world is visited often enough to grow several turns
deep (with a fresh guess every iteration, almost every visit met a tile never seen there
before and the tree stayed one reply deep). An edge of the tree is a turn plan (a placement and
its build, from ``turns.plan_turns``); below it, children are keyed by what the next player
then sees (the tile they drew). A new node is scored by letting its mover play the plan the
heuristic likes best (a one-turn look-ahead), so even a shallow tree weighs the opponents'
best replies. Every node's mover maximises their own expected result, so any number of
players works. Selection is UCB1 started from the heuristic's value of each plan (a prior
worth a few visits), over the best few plans, widened as a node is visited more often; with
three or more players a node below the root starts from its mover's best-looking plan alone
(``SEVERAL_PLAYERS``), so the tree follows each opponent's likeliest turn further.
"""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final

from taluva.ai.agents import SAFETY, PlanningAgent
from taluva.ai.evaluation import DEFAULT_EVALUATOR, Evaluator
from taluva.ai.turns import Turn, ordered, plan_turns
from taluva.engine.game import Game
from taluva.engine.moves import DRAW, Move


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """Shape of the search: how wide, how much a prior counts, how much to explore."""

    root_tiles: int = 0  # placements whose builds the root tries, best-looking first (0: all)
    inner_tiles: int = 3  # the same, in nodes below the root
    inner_sample: int = 40  # placements looked at in nodes below the root, drawn at random
    root_width: int = 6  # plans a fresh root tries before widening
    inner_width: int = 3
    widening: float = 0.6  # more plans as sqrt(visits) grows
    prior_visits: float = 5.0  # the heuristic's value counts as this many visits
    exploration: float = 0.2
    root_share: float = 0.45  # of a time budget, at most this much for the root's plans
    worlds: int | None = None  # guesses of the pile (None: by budget; 0: a new one each time)
    lookahead_leaves: bool = False  # value a new leaf by its mover's best plan, made at once


TWO_PLAYERS: Final = SearchSettings()
"""The search's shape with two players, tuned with ``bench/ai_strength.py``."""

SEVERAL_PLAYERS: Final = SearchSettings(inner_tiles=1, inner_width=1, widening=0.3)
"""The search's shape with three or more players: below the root each mover first plays the
plan the heuristic likes best and others open only as the node is visited often, so the
tree follows each opponent's likeliest turn several turns deep instead of spreading over
every reply. Against three greedy agents level 5 won 63.4% of 80 four-player games with it
and 45% with the two-player shape (docs/ai.md, "Four players against greedy")."""


def default_settings(players: int) -> SearchSettings:
    """The search's shape for a game of ``players``: two-player or ``SEVERAL_PLAYERS``."""
    return SEVERAL_PLAYERS if players >= 3 else TWO_PLAYERS


ITERATIONS_PER_WORLD = 75
"""A search gets a world per this many iterations (2 to 16): at 150 iterations 2 or 4 worlds
played best, at 600 iterations 8 beat 3 (61.7% of 60 games), see bench/ai_strength.py."""
ITERATIONS_PER_SECOND = 200
"""About how many iterations a second of thinking gives (two players, bench/mcts_speed.py),
to size the worlds of a search bounded by time alone."""


def _draw_valued(plans: list[Turn], mover: int) -> list[Turn]:
    """Plans with a lone draw (Double-Hex: draw rather than take a double-hex tile) valued as
    the best other plan, second in line. The heuristic scores a draw before its tile is seen,
    with no build, so it always looked worse than taking the double-hex tile and building, and
    the search, which opens the best-looking plans first, never tried it."""
    draws = [plan for plan in plans if plan.moves[0].kind == DRAW]
    if not draws or len(draws) == len(plans):
        return plans
    others = [plan for plan in plans if plan.moves[0].kind != DRAW]
    draw = Turn(draws[0].moves, others[0].results)
    return [others[0], draw, *others[1:]]


def world_count(iterations: int | None, seconds: float | None) -> int:
    """How many worlds a search with this budget uses: more as it can afford to visit them."""
    budget = iterations if iterations is not None else (seconds or 0.0) * ITERATIONS_PER_SECOND
    return max(2, min(16, round(budget / ITERATIONS_PER_WORLD)))


@dataclass(frozen=True, slots=True)
class PlanStats:
    """What the search learnt of one root plan: its visits and every player's expected result
    after it (the heuristic's value counted as ``prior_visits`` visits)."""

    plan: Turn
    visits: int
    results: tuple[float, ...]


@dataclass(slots=True)
class SearchResult:
    """What a search found: the plan chosen, its expected result for the mover, the effort,
    and the statistics of every root plan (best first: most visited, then best valued)."""

    plan: Turn
    value: float
    iterations: int
    seconds: float
    stats: list[PlanStats] = field(default_factory=list)

    @property
    def results(self) -> tuple[float, ...]:
        """Every player's expected result after the plan chosen."""
        return self.stats[0].results if self.stats else self.plan.results


class Node:
    """A position where ``mover`` decides: its candidate plans and their statistics."""

    __slots__ = ("children", "mover", "plans", "sums", "terminal", "visits", "width")

    def __init__(self, mover: int, plans: list[Turn], width: int) -> None:
        self.mover = mover
        self.plans = plans
        self.visits = [0] * len(plans)
        self.sums = [0.0] * len(plans)
        # None: a position reached once, valued by the heuristic, its plans not made yet
        self.children: list[dict[tuple[object, ...], Node | None]] = [{} for _ in plans]
        self.width = width
        self.terminal = not plans

    def select(self, settings: SearchSettings) -> int:
        """UCB1 over the plans open so far, each started from its heuristic value."""
        total = sum(self.visits)
        open_count = min(len(self.plans), self.width + int(settings.widening * math.sqrt(total)))
        log_total = math.log(total + 1)
        prior = settings.prior_visits
        mover = self.mover
        best = 0
        best_score = -1.0
        for i in range(open_count):
            n = self.visits[i]
            mean = (self.sums[i] + prior * self.plans[i].results[mover]) / (n + prior)
            score = mean + settings.exploration * math.sqrt(log_total / (n + 1))
            if score > best_score:
                best, best_score = i, score
        return best

    def mean(self, i: int, prior: float) -> float:
        """Expected result of plan ``i`` for the mover, prior included."""
        return (self.sums[i] + prior * self.plans[i].results[self.mover]) / (self.visits[i] + prior)


_UNSEEN = Node(0, [], 0)
"""Marks a child never reached (a reached one is a Node, or None until it is revisited)."""


def _outcome_key(game: Game) -> tuple[object, ...]:
    """What the next decision-maker sees that the plan did not decide: the tile drawn."""
    return (game.to_move, game.phase, game.tile)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Hold Python's cyclic garbage collector off for one search, then restore it as it was.

    A search makes no reference cycles (refcounts free all it drops), so a collection during
    it finds nothing and only takes time: over the tracked objects of a process that has
    played for a while, a full one held a 0.3-s move up to a second or more."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Search:
    """One search from one position, bounded by iterations, by a deadline, or both."""

    def __init__(
        self,
        game: Game,
        rng: random.Random,
        evaluator: Evaluator = DEFAULT_EVALUATOR,
        settings: SearchSettings | None = None,
    ) -> None:
        self.game = game
        self.rng = rng
        self.evaluator = evaluator.seen_by(game.to_move)
        self.settings = settings or default_settings(game.player_count)
        self.iterations = 0
        self.worlds: list[Game] = []
        self.totals: list[list[float]] = []  # per root plan: every player's summed results

    def run(self, iterations: int | None, seconds: float | None) -> SearchResult:
        """Search until the budget is spent and return the most visited plan."""
        with collector_paused():
            return self._run(iterations, seconds)

    def _run(self, iterations: int | None, seconds: float | None) -> SearchResult:
        start = time.perf_counter()
        # stop a little early: the last iteration and the answer must fit in the budget
        deadline = None if seconds is None else start + seconds * SAFETY
        root_deadline = None if seconds is None else start + seconds * self.settings.root_share
        game = self.game
        mover = game.to_move
        plans = plan_turns(
            game, self.evaluator, self.rng, self.settings.root_tiles, deadline=root_deadline
        )
        if not plans:
            moves = ordered(game.legal_moves())
            plan = Turn((self.rng.choice(moves),), tuple(self.evaluator.results(game)))
            stats = [PlanStats(plan, 0, plan.results)]
            return SearchResult(plan, plan.results[mover], 0, time.perf_counter() - start, stats)
        plans = _draw_valued(plans, mover)
        root = Node(mover, plans, self.settings.root_width)
        self.totals = [[0.0] * game.player_count for _ in plans]
        count = self.settings.worlds
        if count is None:
            count = world_count(iterations, seconds)
        self.worlds = [game.redeal(self.rng) for _ in range(count)]
        if len(plans) > 1:
            while iterations is None or self.iterations < iterations:
                if deadline is not None and time.perf_counter() >= deadline:
                    break
                self._iterate(root, deadline)
                self.iterations += 1
                if iterations is None and deadline is None:
                    break
        prior = self.settings.prior_visits
        ranked = sorted(range(len(plans)), key=lambda i: (-root.visits[i], -root.mean(i, prior), i))
        stats = [self._stats(root, i) for i in ranked]
        best = ranked[0]
        return SearchResult(
            plans[best], root.mean(best, prior), self.iterations, time.perf_counter() - start, stats
        )

    def _stats(self, root: Node, i: int) -> PlanStats:
        prior = self.settings.prior_visits
        n = root.visits[i]
        plan = root.plans[i]
        results = tuple(
            (total + prior * value) / (n + prior)
            for total, value in zip(self.totals[i], plan.results, strict=True)
        )
        return PlanStats(plan, n, results)

    def _iterate(self, root: Node, deadline: float | None) -> None:
        i = root.select(self.settings)
        worlds = self.worlds
        game = worlds[root.visits[i] % len(worlds)].copy() if worlds else self.game.redeal(self.rng)
        path: list[tuple[Node, int]] = []
        node = root
        results: Sequence[float]
        while True:
            path.append((node, i))
            for move in node.plans[i].moves:
                game.push(move)  # legal in every world: they differ only in tiles to come
            if game.result is not None:
                results = self.evaluator.results(game)
                break
            key = _outcome_key(game)
            children = node.children[i]
            child = children.get(key, _UNSEEN)
            if child is _UNSEEN:
                # after a draw the same player places the tile revealed: valued as their best
                # plan with it at once, as the plans beside the draw are valued with a build
                if not self.settings.lookahead_leaves and node.plans[i].moves[-1].kind != DRAW:
                    # a leaf seen once: the heuristic values it; its plans wait for a revisit
                    children[key] = None
                    results = self._leaf_results(node.plans[i], game)
                    break
                child, results = self._expand(game, deadline)
                children[key] = child
                break
            if child is None:
                child, results = self._expand(game, deadline)
                children[key] = child
            if child.terminal:
                results = self.evaluator.results(game)
                break
            node = child
            i = node.select(self.settings)
        for parent, i in path:
            parent.visits[i] += 1
            parent.sums[i] += results[parent.mover]
        totals = self.totals[path[0][1]]
        for p, value in enumerate(results):
            totals[p] += value

    def _leaf_results(self, plan: Turn, game: Game) -> Sequence[float]:
        """The heuristic's results in the position a plan led to: the plan's own, scored
        there when the plan was made, unless it ended by drawing a tile (scored before)."""
        if plan.moves[-1].kind == DRAW:
            return self.evaluator.results(game)
        return plan.results

    def _expand(self, game: Game, deadline: float | None) -> tuple[Node, list[float]]:
        settings = self.settings
        plans = plan_turns(
            game,
            self.evaluator,
            self.rng,
            settings.inner_tiles,
            tile_sample=settings.inner_sample,
            deadline=deadline,
        )
        plans = _draw_valued(plans, game.to_move)
        node = Node(game.to_move, plans, settings.inner_width)
        if not plans:
            return node, self.evaluator.results(game)
        return node, list(plans[0].results)


class MctsAgent(PlanningAgent):
    """The strong agent: a turn-level Monte Carlo tree search (see the module docstring).

    Bounded by ``iterations``, by ``seconds`` of thinking per turn, or by both (whichever ends
    first); ``taluva.ai.levels`` names the budgets people play against.
    """

    def __init__(
        self,
        seed: int | None = None,
        iterations: int | None = None,
        seconds: float | None = None,
        evaluator: Evaluator = DEFAULT_EVALUATOR,
        settings: SearchSettings | None = None,
        name: str | None = None,
    ) -> None:
        if iterations is None and seconds is None:
            raise ValueError("a search needs a budget: iterations, seconds or both")
        if name is None:
            parts = [f"iterations={iterations}"] if iterations is not None else []
            parts += [f"time={seconds:g}"] if seconds is not None else []
            name = "mcts:" + ",".join(parts)
        super().__init__(name, seed)
        self.iterations = iterations
        self.seconds = seconds
        self.evaluator = evaluator
        self.settings = settings
        self.last: SearchResult | None = None

    def plan(self, game: Game) -> tuple[Move, ...]:
        return self.search(game).plan.moves

    def search(self, game: Game) -> SearchResult:
        """Run one search from the game's position and remember its result in ``last``."""
        search = Search(game, self.rng_for(game), self.evaluator, self.settings)
        self.last = search.run(self.iterations, self.seconds)
        return self.last
