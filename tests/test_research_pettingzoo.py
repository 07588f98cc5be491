"""The PettingZoo AEC environment taluva_v0: PettingZoo's own tests, eliminations, rendering."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from taluva.research import taluva_v0
from taluva.research.actions import returns_of
from taluva.research.pettingzoo_env import raw_env

RULES_DATA = Path(__file__).resolve().parent / "data" / "rules"

# PettingZoo's api_test advises flat Box observations; like its classic board games, this one
# is a dict of planes, scalars and the action mask.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation is not a NumPy array:UserWarning",
    "ignore:Observation space for each agent probably should be:UserWarning",
)


def test_passes_pettingzoo_api_test() -> None:
    api_test(taluva_v0.env(), num_cycles=200)


def test_passes_pettingzoo_api_test_with_expansions_and_four_players() -> None:
    api_test(taluva_v0.env(players=4, expansions=("ships", "double_hex")), num_cycles=200)


def test_passes_pettingzoo_seed_test() -> None:
    seed_test(lambda: taluva_v0.env(players=3), num_cycles=100)


def test_render_modes_pass_pettingzoo_render_test() -> None:
    checks = {
        "svg": lambda svg: svg.startswith("<svg") or svg.startswith("<?xml"),
        "ansi": lambda text: "to move: player_" in text,
    }
    render_test(lambda render_mode=None: taluva_v0.env(render_mode=render_mode), checks)


def play(env: Any, seed: int) -> dict[str, float]:
    """Play random legal actions to the end; return each agent's summed rewards."""
    rng = random.Random(seed)
    totals: dict[str, float] = {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        if terminated or truncated:
            env.step(None)
        else:
            env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    return totals


def test_the_same_seed_plays_the_same_game_and_rewards_are_the_returns() -> None:
    first, second = raw_env(players=3), raw_env(players=3)
    first.reset(seed=9)
    second.reset(seed=9)
    totals = play(first, seed=1)
    play(second, seed=1)
    assert first.game is not None and second.game is not None
    assert first.game.to_record() == second.game.to_record()
    assert first.outcome is not None
    expected = returns_of(first.outcome, 3)
    assert [totals[f"player_{p}"] for p in range(3)] == expected


def test_an_eliminated_player_leaves_through_termination_with_its_final_reward() -> None:
    record = json.loads((RULES_DATA / "two_players_eliminated.json").read_text())
    env = raw_env(players=3)
    env.reset(seed=0, options={"deck": record["deck"]})
    moves = iter(record["moves"])
    left: list[tuple[str, float, int, bool]] = []
    for agent in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        if terminated:
            left.append((agent, reward, env.game.ply, env.outcome is None))
            env.step(None)
            continue
        assert agent == f"player_{env.game.to_move}"
        env.step(env.space.encode(env.game, next(moves)))
    assert next(moves, None) is None
    assert env.game.to_record()["result"] == record["result"]
    assert record["result"] == {"ranking": [[1], [0], [2]], "reason": "last-standing"}
    assert left == [
        ("player_2", -1.0, 5, True),
        ("player_0", 0.0, 38, False),
        ("player_1", 1.0, 38, False),
    ]
    assert env.agents == []


def test_observations_are_seen_from_each_agents_seat_and_only_the_mover_has_a_mask() -> None:
    env = raw_env(players=2, radius=5)
    env.reset(seed=3)
    mover = env.agent_selection
    other = "player_1" if mover == "player_0" else "player_0"
    mine, theirs = env.observe(mover), env.observe(other)
    assert mine["action_mask"].sum() == 6 and theirs["action_mask"].sum() == 0
    assert env.observation_space(mover).contains(mine)
    assert mine["scalars"][env.observer.scalar("phase_tile")] == 1
    env.step(int(np.flatnonzero(mine["action_mask"])[0]))
    env.step(int(np.flatnonzero(env.observe(mover)["action_mask"])[0]))
    hut = env.observer.channel("p0_hut")
    assert env.observe(mover)["observation"][hut].sum() == 1
    assert env.observe(other)["observation"][env.observer.channel("p1_hut")].sum() == 1
    seat_zero = env.observe("player_0")["observation"]
    assert np.array_equal(env.state(), seat_zero)


def test_an_illegal_action_is_refused_with_its_move_text() -> None:
    env = raw_env()
    env.reset(seed=1)
    hut = env.space.encode(None, "hut 1,0")
    with pytest.raises(ValueError, match=r"player_0: action \d+ \(hut 1,0\) is not legal here"):
        env.step(hut)


def test_rgb_frames_keep_one_size_for_the_whole_game() -> None:
    env = raw_env(render_mode="rgb_array", radius=6)
    env.reset(seed=2)
    sizes = {env.render().shape}
    rng = random.Random(0)
    for _ in range(30):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(rng.choice(np.flatnonzero(mask).tolist()))
        sizes.add(env.render().shape)
    frame = env.render()
    assert sizes == {frame.shape} and frame.dtype == np.uint8
    assert len({tuple(pixel) for pixel in frame.reshape(-1, 3)}) > 8


def test_unknown_render_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="render_mode 'video' is not one of"):
        raw_env(render_mode="video")
