"""Level 6, the root-parallel search (``taluva.ai.parallel``): legal moves under any budget,
root statistics merged by plan, and no helper process outliving its agent or its parent."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import psutil
import pytest

from taluva import Game
from taluva.ai.learned import LearnedEvaluator
from taluva.ai.levels import LEVELS, level_agent
from taluva.ai.mcts import Search
from taluva.ai.parallel import ParallelMctsAgent, answer_of, evaluator_for, merge, root_search


def helpers(process: psutil.Process) -> list[psutil.Process]:
    """The search helpers among a process's children (multiprocessing's resource tracker,
    which lives as long as its parent, is not one)."""
    found = []
    for child in process.children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE and "resource_tracker" not in " ".join(
                child.cmdline()
            ):
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def test_level_6_searches_on_every_core_with_level_5s_budget() -> None:
    agent = level_agent(6, seed=1)
    try:
        assert isinstance(agent, ParallelMctsAgent)
        assert agent.processes == (os.cpu_count() or 1)
        assert (agent.iterations, agent.seconds) == (LEVELS[5].iterations, LEVELS[5].seconds)
        assert agent.name == "level:6"
    finally:
        agent.close()


def test_merging_adds_the_visits_of_the_same_plan_and_keeps_the_most_visited() -> None:
    game = Game.new(players=2, seed=3)
    game.play("tile 0,0 0")
    game.play("hut 1,-1")
    first = Search(game.copy(), random.Random(1)).run(40, None)
    second = Search(game.copy(), random.Random(2)).run(40, None)
    merged = merge(game, [answer_of(first), answer_of(second)])
    assert merged.iterations == 80
    visits = {tuple(str(m) for m in s.plan.moves): 0 for s in first.stats + second.stats}
    for s in first.stats + second.stats:
        visits[tuple(str(m) for m in s.plan.moves)] += s.visits
    assert {tuple(str(m) for m in s.plan.moves): s.visits for s in merged.stats} == visits
    assert merged.stats[0].visits == max(visits.values())
    assert merged.plan is merged.stats[0].plan
    assert game.is_legal(merged.plan.moves[0])


def test_merging_the_root_searches_of_the_agents_seeds_gives_the_agents_result() -> None:
    game = Game.new(players=2, seed=7)
    game.play("tile 0,0 2")
    agent = ParallelMctsAgent(seed=11, iterations=25, processes=2)
    try:
        agent.choose(game.copy())
    finally:
        agent.close()
    seeds = agent.seeds(game)
    answers = [root_search(game.to_record(), seed, 25, None) for seed in seeds]
    merged = merge(game, answers)
    assert agent.last is not None and len(set(seeds)) == 2
    assert (merged.plan, merged.value, merged.iterations) == (
        agent.last.plan,
        agent.last.value,
        agent.last.iterations,
    )
    assert merged.stats == agent.last.stats


def test_helpers_value_the_learned_player_counts_with_the_learned_evaluation_as_it_does() -> None:
    game = Game.new(players=2, seed=7)
    game.play("tile 0,0 2")
    agent = ParallelMctsAgent(seed=11, iterations=25, processes=2, learned=frozenset({2}))
    try:
        agent.choose(game.copy())
    finally:
        agent.close()
    seeds = agent.seeds(game)
    answers = [root_search(game.to_record(), seed, 25, None, agent.learned) for seed in seeds]
    assert agent.last is not None and merge(game, answers).stats == agent.last.stats
    # each plan's value before the search is the learned evaluation's, not the heuristic's
    heuristic = root_search(game.to_record(), seeds[0], 25, None)
    assert [plan[3] for plan in answers[0]] != [plan[3] for plan in heuristic]
    assert evaluator_for(agent.learned).results(game) == LearnedEvaluator().results(game)


def test_helpers_value_only_their_own_player_by_the_network_where_the_agent_does() -> None:
    game = Game.new(players=4, seed=7)
    game.play("tile 0,0 2")
    learned = own = frozenset({4})
    agent = ParallelMctsAgent(seed=11, iterations=20, processes=2, learned=learned, own=own)
    try:
        agent.choose(game.copy())
    finally:
        agent.close()
    seeds = agent.seeds(game)
    answers = [root_search(game.to_record(), seed, 20, None, learned, own) for seed in seeds]
    assert agent.last is not None and merge(game, answers).stats == agent.last.stats
    everyone = root_search(game.to_record(), seeds[0], 20, None, learned)
    assert [plan[3] for plan in answers[0]] != [plan[3] for plan in everyone]


def test_merging_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one search"):
        merge(Game.new(players=2, seed=1), [])


def test_a_tiny_time_budget_still_gives_a_legal_move_and_close_ends_the_helpers() -> None:
    game = Game.new(players=2, seed=5)
    agent = ParallelMctsAgent(seed=1, seconds=0.02, processes=2)
    try:
        for _ in range(4):
            move = agent.choose(game.copy())
            assert game.is_legal(move)
            game.play(move)
        assert helpers(psutil.Process()) != []
    finally:
        agent.close()
    assert helpers(psutil.Process()) == []


def test_helpers_answer_and_their_visits_count() -> None:
    game = Game.new(players=2, seed=5)
    agent = ParallelMctsAgent(seed=1, iterations=20, processes=2)
    try:
        agent.choose(game.copy())
        assert agent.last is not None and agent.last.iterations == 40
    finally:
        agent.close()


def test_no_helper_outlives_a_killed_parent() -> None:
    script = textwrap.dedent(
        """
        import sys, time
        from taluva import Game
        from taluva.ai.parallel import ParallelMctsAgent
        if __name__ == "__main__":
            agent = ParallelMctsAgent(seed=1, iterations=5, processes=3)
            agent.choose(Game.new(players=2, seed=1))
            print("ready", flush=True)
            time.sleep(60)
        """
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert parent.stdout is not None
        assert parent.stdout.readline().strip() == "ready"
        started = helpers(psutil.Process(parent.pid))
        assert len(started) == 2
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(
            p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in started
        ):
            time.sleep(0.1)
        assert [
            p.pid for p in started if p.is_running() and p.status() != psutil.STATUS_ZOMBIE
        ] == []
    finally:
        if parent.poll() is None:
            parent.kill()
