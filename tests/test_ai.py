"""The agents: legal moves only, determinism for a seed, budgets, specs, hints, evaluation."""

from __future__ import annotations

import gc
import json
import math
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import taluva.ai.mcts
import taluva.ai.turns
from taluva import Game
from taluva.ai import InvalidAgentSpec, hint, make_agent
from taluva.ai.agents import SAFETY
from taluva.ai.evaluation import (
    DEFAULT_EVALUATOR,
    Evaluator,
    Features,
    outcome_results,
    turns_left,
)
from taluva.ai.learned import _PLAYER_INPUTS, LearnedEvaluator, load_network
from taluva.ai.levels import LEVELS
from taluva.ai.mcts import (
    SEVERAL_PLAYERS,
    TWO_PLAYERS,
    MctsAgent,
    Search,
    SearchSettings,
    world_count,
)
from taluva.cli import main
from taluva.engine.options import EXPANSIONS
from taluva.engine.outcome import Outcome, Reason

SETUPS = [((), 2), ((), 3), ((), 5)] + [((name,), 2) for name in EXPANSIONS]
"""Every expansion (each zone of the Game Board too) with two players: one the engine refuses
fails its tests, it does not drop out of them."""


def _random_positions(expansions: tuple[str, ...], players: int, count: int) -> list[Game]:
    """Positions reached by random play, in both phases, from several decks."""
    rng = random.Random(f"{expansions}{players}")
    positions = []
    for deck in range(count):
        game = Game.new(players=players, seed=deck, expansions=expansions)
        stop = rng.randrange(0, 12 * players * 2)
        while game.result is None and game.ply < stop:
            game.play(game.random_move(rng))
        if game.result is None:
            positions.append(game)
    return positions


@pytest.mark.parametrize(("expansions", "players"), SETUPS)
@pytest.mark.parametrize("spec", ["random", "greedy", "level:1", "mcts:iterations=3"])
def test_agents_play_only_legal_moves_in_random_positions(
    spec: str, expansions: tuple[str, ...], players: int
) -> None:
    for index, game in enumerate(_random_positions(expansions, players, 3)):
        agent = make_agent(spec, seed=index)
        move = agent.choose(game.copy())
        assert game.explain(move) is None, f"{spec} chose {move} at ply {game.ply}"


def test_agents_finish_a_whole_game_with_legal_moves() -> None:
    game = Game.new(players=3, seed=11)
    agents = [make_agent("greedy", 1), make_agent("mcts:iterations=2", 2), make_agent("random", 3)]
    while game.result is None:
        move = agents[game.to_move].choose(game.copy())
        game.play(move)
    assert game.result.reason in (Reason.TILES, Reason.VICTORY, Reason.LAST_STANDING)


@pytest.mark.parametrize("spec", ["random", "greedy", "level:1", "mcts:iterations=12"])
def test_same_seed_same_move(spec: str) -> None:
    game = _random_positions((), 2, 1)[0]
    while game.phase != "tile":
        game.play(game.random_move(random.Random(1)))
    first = make_agent(spec, seed=42).choose(game.copy())
    again = make_agent(spec, seed=42).choose(game.copy())
    assert first == again


def test_an_agent_does_not_read_the_hidden_pile() -> None:
    game = Game.new(players=2, seed=5)
    rng = random.Random(2)
    for _ in range(14):
        game.play(game.random_move(rng))
    assert game.phase == "tile"
    shown = game.redeal(random.Random(9))
    assert shown.deck[: game.ply // 2 + 1] == game.deck[: game.ply // 2 + 1]
    assert shown.deck != game.deck
    for spec in ("greedy", "mcts:iterations=10"):
        assert make_agent(spec, 3).choose(game.copy()) == make_agent(spec, 3).choose(shown)


def test_a_search_plays_in_a_few_shared_guesses_of_the_pile_more_as_its_budget_grows() -> None:
    assert [world_count(n, None) for n in (1, 30, 150, 300, 800, 10_000)] == [2, 2, 2, 4, 11, 16]
    assert world_count(None, 1.0) == world_count(200, None)
    game = Game.new(players=2, seed=5)
    rng = random.Random(2)
    for _ in range(10):
        game.play(game.random_move(rng))
    search = Search(game.copy(), random.Random(1))
    result = search.run(300, None)
    assert result.iterations == 300 and len(search.worlds) == 4
    drawn = len(game.deck) - game.tiles_left
    guesses = {world.deck[drawn:] for world in search.worlds}
    assert len(guesses) == 4 and game.deck[drawn:] not in guesses
    for world in search.worlds:
        assert world.deck[:drawn] == game.deck[:drawn] and world.moves == game.moves
        assert Counter(world.deck[drawn:]) <= game.unseen_tiles()


def test_with_three_or_more_players_the_search_follows_each_movers_likeliest_turn() -> None:
    four = Game.new(players=4, seed=6)
    two = Game.new(players=2, seed=6)
    assert Search(two, random.Random(1)).settings == TWO_PLAYERS
    assert Search(Game.new(players=3, seed=6), random.Random(1)).settings == SEVERAL_PLAYERS
    search = Search(four.copy(), random.Random(1))
    assert search.settings == SEVERAL_PLAYERS
    # below the root a node opens one plan, a second only after a few visits
    assert (SEVERAL_PLAYERS.inner_width, SEVERAL_PLAYERS.inner_tiles) == (1, 1)
    assert SEVERAL_PLAYERS.inner_width < TWO_PLAYERS.inner_width
    wide = SearchSettings(inner_width=3)
    assert Search(four, random.Random(1), settings=wide).settings == wide
    plan = search.run(60, None).plan
    for move in plan.moves:
        assert move in four.legal_moves()
        four.play(move)


def test_the_planned_build_follows_the_planned_tile() -> None:
    game = Game.new(players=2, seed=8)
    agent = MctsAgent(seed=1, iterations=8)
    plan = agent.search(game.copy()).plan
    tile = agent.choose(game.copy())
    assert tile == plan.moves[0]
    game.play(tile)
    assert agent.choose(game.copy()) == plan.moves[1]


def test_the_search_weighs_drawing_against_taking_a_double_hex_tile() -> None:
    """A draw is valued before its tile is seen and with no build, so it looked worse than
    every double-hex placement and was never searched: level 5 always took the tile at once."""
    game = Game.new(players=["a", "b"], seed=0, expansions=["double_hex"])
    rng = random.Random(0)
    while not ("draw" in (legal := sorted(map(str, game.legal_moves()))) and game.ply >= 2):
        game.play(rng.choice(legal))
    assert any(text.startswith("double ") for text in legal)
    result = MctsAgent(1, iterations=150).search(game.copy())
    visits = {str(stats.plan): stats.visits for stats in result.stats}
    assert visits["draw"] >= 10
    assert sum(v for plan, v in visits.items() if plan.startswith("double ")) >= 10


def test_make_agent_reads_budgets_and_names() -> None:
    agent = make_agent("mcts:iterations=7", seed=1)
    assert isinstance(agent, MctsAgent)
    assert (agent.iterations, agent.seconds, agent.name) == (7, None, "mcts:iterations=7")
    timed = make_agent("mcts:time=0.5", seed=1)
    assert isinstance(timed, MctsAgent)
    assert (timed.iterations, timed.seconds, timed.name) == (None, 0.5, "mcts:time=0.5")
    assert make_agent("level:2", 1).name == "level:2"
    assert make_agent("random", 1).name == "random"
    top = make_agent("mcts", 1)
    assert isinstance(top, MctsAgent)
    assert (top.name, top.iterations, top.seconds) == ("mcts", 800, 8.0)


def test_make_agent_names_the_search_shape_whatever_the_player_count() -> None:
    wide = make_agent("mcts:iterations=40,shape=wide", seed=1)
    assert isinstance(wide, MctsAgent) and wide.settings == TWO_PLAYERS
    assert wide.name == "mcts:iterations=40,shape=wide"
    narrow = make_agent("mcts:shape=NARROW", seed=1)
    assert isinstance(narrow, MctsAgent) and narrow.settings == SEVERAL_PLAYERS
    assert (narrow.iterations, narrow.seconds) == (800, 8.0)
    four = Game.new(players=4, seed=2)
    wide.choose(four.copy())
    assert wide.last is not None and wide.last.iterations == 40
    assert make_agent("mcts:iterations=40", seed=1).settings is None  # the player count decides


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("minimax", "unknown agent 'minimax'"),
        ("mcts:iterations=lots", "iterations='lots' is not a number"),
        ("mcts:time=-1", "time must be a positive number"),
        ("mcts:depth=3", "'depth=3' is not an option"),
        ("mcts:iterations=9,shape=tall", "shape='tall' is not a shape; use shape=wide"),
        ("mcts:iterations=9,shape=wide,processes=2", "shape= is for a search in one process"),
        ("level:7", "a level is a whole number from 1 to 6"),
        ("engine:", "give the command"),
        ("", "expected one of random, greedy"),
    ],
)
def test_make_agent_rejects_bad_specs_saying_why(spec: str, message: str) -> None:
    with pytest.raises(InvalidAgentSpec, match=message.replace("(", r"\(")):
        make_agent(spec)


class _IterationClock:
    """Stands in for ``time.perf_counter`` in the search: time moves on by ``step`` seconds
    with each iteration and at no other moment, so a time budget becomes a number of
    iterations, the same on any machine however loaded."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


def test_a_time_bounded_search_stops_at_its_deadline_within_its_budget_plus_ten_percent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = _random_positions((), 2, 1)[0]
    while game.ply < 24:
        game.play(game.random_move(random.Random(3)))
    clock = _IterationClock(step=1 / 64)  # exact in binary: the sums are not rounded
    for module in (taluva.ai.mcts, taluva.ai.turns):
        monkeypatch.setattr(module, "time", clock)
    iterate = Search._iterate

    def iterate_for_one_step(search: Search, root: Any, deadline: float | None) -> None:
        assert clock.now < 2, "the search ran on past twice its budget"
        iterate(search, root, deadline)
        clock.now += clock.step

    monkeypatch.setattr(Search, "_iterate", iterate_for_one_step)
    agent = make_agent("mcts:time=1", seed=1)
    assert isinstance(agent, MctsAgent)
    move = agent.choose(game.copy())
    assert game.is_legal(move)
    assert agent.last is not None
    # it looks at the clock before every iteration and stops at the first one that finds
    # SAFETY (90%) of the budget gone: ceil(0.9 * 64) = 58 iterations, 0.906 s, not one more
    assert agent.last.iterations == math.ceil(SAFETY * 64) == 58
    assert agent.last.seconds == 58 / 64 <= 1.1


class _Watching(Evaluator):
    """The heuristic, noting at each evaluation whether the garbage collector is on and how
    many collections have run."""

    def __init__(self, collections: list[str]) -> None:
        super().__init__()
        self.collections = collections
        self.seen: list[tuple[bool, int]] = []

    def results_from_features(self, game: Game, features: list[Features]) -> list[float]:
        self.seen.append((gc.isenabled(), len(self.collections)))
        return super().results_from_features(game, features)


@pytest.mark.parametrize("enabled", [True, False])
def test_a_search_runs_no_garbage_collection_and_makes_no_reference_cycles(
    enabled: bool,
) -> None:
    game = _random_positions((), 4, 1)[0]
    collections: list[str] = []
    evaluator = _Watching(collections)
    thresholds = gc.get_threshold()
    gc.collect()
    gc.set_threshold(1, 1, 1)  # with the collector on, nearly every allocation would collect

    def watch(phase: str, info: dict[str, int]) -> None:
        collections.append(phase)

    gc.callbacks.append(watch)
    try:
        if not enabled:
            gc.disable()
        Search(game, random.Random(1), evaluator).run(60, None)
        assert gc.isenabled() is enabled  # as it was before
        gc.disable()
        # nothing for the collector to find: reference counts freed all the search dropped
        found = gc.collect()
    finally:
        gc.callbacks.remove(watch)
        gc.set_threshold(*thresholds)
        gc.enable()
    assert len(evaluator.seen) > 100
    assert {on for on, _ in evaluator.seen} == {False}
    assert len({count for _, count in evaluator.seen}) == 1  # none ran while it searched
    assert found == 0


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("learned", [False, True])
def test_what_the_evaluators_remember_is_out_of_the_garbage_collectors_sight(
    players: int, learned: bool
) -> None:
    # Hundreds of thousands of remembered values that the collector tracked made each full
    # collection stall the game for up to a second; plain tuples of numbers it stops tracking.
    game = _random_positions((), players, 1)[0]
    evaluator = LearnedEvaluator() if learned else Evaluator()
    Search(game, random.Random(1), evaluator).run(60, None)
    caches: list[dict[Any, Any]] = [evaluator._known, evaluator._results, evaluator._outcomes]
    if isinstance(evaluator, LearnedEvaluator):  # the network's own, and its inputs'
        network = load_network(players=players)
        caches = [evaluator._learned, _PLAYER_INPUTS, network._rows, network._parts]
    assert all(caches)
    gc.collect()  # where the collector stops tracking tuples that hold nothing it tracks
    entries = [entry for cache in caches for item in cache.items() for entry in item]
    assert [entry for entry in entries if gc.is_tracked(entry)] == []


def test_levels_run_from_casual_to_search_with_growing_budgets() -> None:
    assert [LEVELS[n].agent for n in range(1, 6)] == ["casual", "greedy", "mcts", "mcts", "mcts"]
    budgets = [LEVELS[n].iterations or 0 for n in (3, 4, 5)]
    assert budgets == sorted(budgets) and len(set(budgets)) == 3


def test_a_level_with_the_learned_evaluation_values_only_its_player_counts_with_it() -> None:
    level = replace(LEVELS[4], learned=frozenset({2}))
    evaluator = level.evaluator()
    assert isinstance(evaluator, LearnedEvaluator) and evaluator is level.evaluator()
    two, four = Game.new(players=2, seed=3), Game.new(players=4, seed=3)
    for game in (two, four):
        rng = random.Random(3)
        for _ in range(6):
            game.play(game.random_move(rng))
    assert evaluator.results(four) == DEFAULT_EVALUATOR.results(four)
    assert evaluator.results(two) == LearnedEvaluator().results(two)
    assert evaluator.results(two) != DEFAULT_EVALUATOR.results(two)
    assert "the learned evaluation with 2 players" in level.describe()
    assert LEVELS[4].evaluator() is DEFAULT_EVALUATOR


def test_the_top_levels_use_the_network_with_two_players_and_for_themselves_with_four() -> None:
    # where each beat the heuristic at equal time (docs/ai.md): the network for every player
    # with two players, for the searching player alone with four
    top = [n for n, level in LEVELS.items() if level.learned]
    assert top == [5, 6] and not any(LEVELS[n].learned for n in range(1, 5))
    for n in top:
        assert (LEVELS[n].learned, LEVELS[n].own) == (frozenset({2, 4}), frozenset({4}))
        assert "with 2 or 4 players (with 4 for its own results only)" in LEVELS[n].describe()
    four = Game.new(players=4, seed=3)
    rng = random.Random(3)
    for _ in range(6):
        four.play(four.random_move(rng))
    heuristic, learned = DEFAULT_EVALUATOR.results(four), LearnedEvaluator().results(four)
    mover = four.to_move
    seen = LEVELS[5].evaluator().seen_by(mover).results(four)
    assert seen[mover] == pytest.approx(learned[mover])
    assert [v for p, v in enumerate(seen) if p != mover] == pytest.approx(
        [v for p, v in enumerate(heuristic) if p != mover]
    )
    # what people are shown (a review, the win-chance bar) values every player alike
    neutral = LEVELS[5].evaluator(own=False)
    assert neutral.seen_by(mover).results(four) == pytest.approx(learned)
    three = Game.new(players=3, seed=3)
    assert LEVELS[5].evaluator().seen_by(0).results(three) == DEFAULT_EVALUATOR.results(three)


def test_hint_gives_a_legal_move_and_an_expected_result() -> None:
    game = Game.new(players=2, seed=4)
    rng = random.Random(4)
    for _ in range(9):
        game.play(game.random_move(rng))
    move, value = hint(game, level=3)
    assert game.is_legal(move)
    assert 0.0 <= value <= 1.0
    assert hint(game, level=3) == (move, value)


def test_hint_refuses_a_finished_game() -> None:
    game = Game.new(players=2, seed=4)
    rng = random.Random(4)
    while game.result is None:
        game.play(game.random_move(rng))
    with pytest.raises(ValueError, match="the game is over"):
        hint(game)


def test_results_of_a_finished_game_are_exact() -> None:
    outcome = Outcome(((2,), (0, 3), (1,)), Reason.TILES)
    assert outcome_results(outcome, 4) == [0.5, 0.0, 1.0, 0.5]
    assert outcome_results(Outcome(((1,), (0,)), Reason.VICTORY), 2) == [0.0, 1.0]


def test_turns_left_counts_the_pending_turn_and_the_pile() -> None:
    game = Game.new(players=3, seed=1)
    assert turns_left(game) == [12, 12, 12]
    game.play(game.random_move(random.Random(1)))
    game.play(game.random_move(random.Random(1)))
    assert game.to_move == 1
    assert turns_left(game) == [11, 12, 12]


def test_the_heuristic_prefers_a_temple_to_a_new_hut() -> None:
    game = Game.new(players=2, seed=21)
    rng = random.Random(21)
    temples: list[str] = []
    while not temples:
        game.play(game.random_move(rng))
        moves = [str(m) for m in game.legal_moves()] if game.phase == "build" else []
        temples = [m for m in moves if m.startswith("temple")]
        huts = [m for m in moves if m.startswith("hut")]
        if not huts:
            temples = []
    mover = game.to_move
    scores = {}
    for text in (temples[0], huts[0]):
        game.play(text)
        scores[text.split()[0]] = DEFAULT_EVALUATOR.results(game)[mover]
        game.pop()
    assert scores["temple"] > scores["hut"]


def test_hint_command_prints_the_move_and_its_evaluation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = Game.new(players=2, seed=12)
    game.play("tile 0,0 1")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.to_record()))
    assert main(["hint", str(path), "--level", "2", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    move, value = hint(game, level=2)
    assert answer == {
        "move": str(move),
        "plan": [str(move)],
        "evaluation": round(value, 4),
        "player": 0,
        "level": 2,
    }
    assert main(["hint", str(path), "--level", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"best move: {move}"
    assert lines[1].startswith("evaluation: ") and "for Player 1" in lines[1]


def test_hint_command_refuses_a_bad_level_and_a_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hint", str(tmp_path / "none.json")]) == 1
    assert "none.json" in capsys.readouterr().err
    assert main(["hint", str(tmp_path / "none.json"), "--level", "9"]) == 2
    err = capsys.readouterr().err
    assert "level '9'" in err and "Traceback" not in err


def test_the_heuristic_ranks_the_later_eliminated_above_the_earlier() -> None:
    game = Game.new(players=4, seed=5)
    game.play(game.legal_moves()[0])
    game.play(game.legal_moves()[0])
    game.resign(3)
    game.resign(1)

    results = DEFAULT_EVALUATOR.results(game)

    assert max(results[1], results[3]) < min(results[0], results[2])
    assert results[1] > results[3]
