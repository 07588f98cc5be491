"""Arena games on Ray: ``ray_map`` and ``taluva arena --ray`` against one local Ray instance.

The instance is started once for this module, bound to the loopback address, with two CPUs;
``taluva arena --ray ADDRESS`` then runs in another process and joins it as a cluster client
would join a real cluster.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from taluva.ai.arena import make_tasks, play_task
from taluva.research.dataset import read_records
from taluva.research.ray_backend import RayUnavailable, ray_map

LOOPBACK_ONLY = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
"""Ray binds to the machine's address unless told it is a single-machine cluster."""


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in LOOPBACK_ONLY.items():
            patch.setenv(name, value)
        assert "ray" not in sys.modules, "Ray must first be imported here, to bind to 127.0.0.1"
        import ray

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            address = ray.get_runtime_context().gcs_address
            assert address.startswith("127.0.0.1:")
            yield address
        finally:
            ray.shutdown()


def test_ray_map_plays_arena_games_in_task_order(ray_address: str) -> None:
    tasks = make_tasks(["random", "greedy"], games=2, seed=5)
    results = ray_map(play_task, tasks, ray_address)
    assert [r["index"] for r in results] == [0, 1]
    here = [play_task(task) for task in tasks]
    assert [(r["record"], r["ranking"]) for r in results] == [
        (r["record"], r["ranking"]) for r in here
    ]


def test_arena_runs_its_games_on_the_ray_cluster(ray_address: str, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "taluva", "arena", "random", "greedy", "--games", "2"]
    command += ["--seed", "7", "--json"]
    env = {**os.environ, **LOOPBACK_ONLY}
    on_ray = subprocess.run(
        [*command, "--ray", ray_address, "--records", str(tmp_path / "ray.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert on_ray.returncode == 0, on_ray.stderr
    report = json.loads(on_ray.stdout)
    assert report["games"] == 2 and {s["agent"] for s in report["standings"]} == {
        "random",
        "greedy",
    }
    options = {"tiles_per_player": 12, "expansions": []}
    expected = [
        play_task(task)["record"] for task in make_tasks(["random", "greedy"], 2, 7, options)
    ]
    played = [entry.record for entry in read_records(tmp_path / "ray.jsonl")]
    assert played == expected


def test_a_missing_or_silent_address_is_a_clear_error() -> None:
    with pytest.raises(RayUnavailable, match="a Ray address is needed"):
        ray_map(play_task, [], " ")
    script = (
        "from taluva.research.ray_backend import RayUnavailable, ray_map\n"
        "try:\n    ray_map(len, [], '127.0.0.1:1')\n"
        "except RayUnavailable as error:\n    print(error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.stdout == (
        "cannot reach a Ray cluster at '127.0.0.1:1': nothing answers at 127.0.0.1:1 "
        "(Connection refused)\n"
    )
