"""How strong the agents are: arena matches of every level against the one below, and more.

Matches (each deck played in every seat rotation, so tile luck cancels out):
  greedy vs random; level:5 (the top level, plain ``mcts``) vs greedy; level:N vs
  level:N-1 for N = 2..5; four players, level:5 against three greedy agents; and level:6
  (level 5's search on every core) vs level:5, one game at a time so that both think for
  about the same wall time.
For each: win rate with a 95% interval, seconds per move and per turn (mean and max) and the
wall time. The search levels are bounded by iterations, so the games do not depend on the
machine's speed; their time limits are far above what the iterations take on an idle machine,
but on a heavily shared one a limit can cut a search short (the max seconds show it).
Run ``python bench/ai_strength.py`` (200 games a match, 100 for the four-player one, both
cores), ``--games 20 --games-4p 20`` for a quick look, ``--only NAME`` for one match,
``--out FILE`` to keep the numbers as JSON Lines, ``--records FILE --resume`` to go on with an
interrupted run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from taluva.ai import arena
from taluva.ai.levels import LEVELS, TOP_LEVEL
from taluva.engine.game import Game

TOP = f"level:{TOP_LEVEL}"
MATCHES: dict[str, tuple[list[str], str]] = {
    "greedy-random": (["greedy", "random"], "greedy"),
    "top-greedy": ([TOP, "greedy"], TOP),
    "4p-top-greedy": ([TOP, "greedy", "greedy", "greedy"], TOP),
    **{
        f"level{n}-level{n - 1}": ([f"level:{n}", f"level:{n - 1}"], f"level:{n}")
        for n in range(2, TOP_LEVEL + 1)
    },
    "level6-level5": (["level:6", "level:5"], "level:6"),
}
TARGETS = {
    "greedy-random": 0.95,
    "top-greedy": 0.80,
    "4p-top-greedy": 0.40,
    "level6-level5": 0.70,
}
ONE_GAME_AT_A_TIME = {"level6-level5"}
"""Matches whose agents search on every core: their games are played one at a time, so that
level 6 has the cores it counts on and both sides think for about the same wall time."""


def already_played(records: str, name: str, tasks: list[arena.Task]) -> list[dict[str, Any]]:
    """The results of this match's games found in the ``records`` file, rebuilt from their
    lines; a line whose agents or deck differ from its task's (another setting or seed) is
    not used."""
    if not os.path.exists(records):
        return []
    wanted = {task["index"]: task for task in tasks}
    found: dict[int, dict[str, Any]] = {}
    with open(records, encoding="utf-8") as lines:
        for number, text in enumerate(lines, 1):
            try:
                line = json.loads(text)
            except json.JSONDecodeError as problem:
                raise SystemExit(f"{records}, line {number}: not JSON ({problem})") from None
            task = wanted.get(line.get("game", -1))
            if line.get("match") != name or task is None or line["agents"] != task["agents"]:
                continue
            deck = Game.new(len(task["agents"]), seed=task["seed"]).deck
            if line["record"]["deck"] != list(deck):
                continue
            result = line["record"].get("result")
            found[line["game"]] = {
                "index": line["game"],
                "deck": line["deck"],
                "rotation": line["rotation"],
                "agents": line["agents"],
                "ranking": line["ranking"],
                "reason": None if result is None else result["reason"],
                "error": line["error"],
                "record": line["record"],
                "seconds": line["seconds"],
                "longest": line["longest"],
                "moves": line["moves"],
            }
    return [found[index] for index in sorted(found)]


def run_match(
    name: str,
    games: int,
    seed: int,
    workers: int,
    records: str | None = None,
    top: str = TOP,
    resume: bool = False,
) -> dict[str, Any]:
    """Play one match and return its numbers; each game's record is appended to ``records``
    as soon as it ends, so an interrupted run keeps what it played, and with ``resume`` the
    games found there are not played again. ``top`` replaces the top level in the matches
    against greedy agents. The wall time counts only the games played in this run."""
    agents, hero = MATCHES[name]
    if name in ("top-greedy", "4p-top-greedy"):
        agents = [top if agent == TOP else agent for agent in agents]
        hero = top
    tasks = arena.make_tasks(agents, games, seed)
    kept = already_played(records, name, tasks) if resume and records else []
    done = {r["index"] for r in kept}
    tasks_left = [task for task in tasks if task["index"] not in done]
    if kept:
        print(f"{name}: {len(kept)} games kept from {records}, {len(tasks_left)} to play")
    start = time.perf_counter()
    progress = arena.stderr_progress() if sys.stderr.isatty() else None
    results = list(kept)
    for result in arena.local_map(workers)(arena.play_task, tasks_left):
        results.append(result)
        if records:
            with open(records, "a", encoding="utf-8") as out:
                arena.write_records([{**result, "match": name}], out, timing=True)
        if progress:
            progress(len(results), len(tasks))
    if not tasks_left and progress:
        progress(len(results), len(tasks))
    results.sort(key=lambda r: r["index"])
    wall = time.perf_counter() - start
    summary = arena.report(results)
    rows = {s.agent: s for s in summary.standings}
    main = rows[hero]
    low, high = main.interval
    timing = {
        s.agent: {
            "seconds_per_move": s.seconds / max(1, s.moves),
            "seconds_per_turn": s.seconds / max(1, s.moves / 2),
            "max_seconds_per_move": s.longest,
        }
        for s in summary.standings
    }
    target = TARGETS.get(name, 0.5)
    return {
        "match": name,
        "agents": agents,
        "games": len(results),
        "hero": hero,
        "wins": main.wins,
        "win_rate": main.win_rate,
        "interval": [low, high],
        "target": target,
        "met": main.win_rate >= target if name in TARGETS else low > 0.5,
        "reasons": summary.reasons,
        "errors": summary.errors,
        "timing": timing,
        "wall_seconds": wall,
        "report": summary.lines(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per match (default 200)")
    parser.add_argument(
        "--games-4p", type=int, default=100, help="games of the four-player match (default 100)"
    )
    parser.add_argument("--seed", type=int, default=2024, help="arena seed")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", action="append", choices=sorted(MATCHES), help="match to run")
    parser.add_argument("--out", help="append each match's numbers to this JSON Lines file")
    parser.add_argument("--records", help="append every game, as it ends, to this JSON Lines file")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --records: keep the games already in that file and play only the rest",
    )
    parser.add_argument("--top", default=TOP, help=f"agent playing against greedy (default {TOP})")
    args = parser.parse_args(argv)
    if args.resume and not args.records:
        parser.error("--resume needs --records FILE: the games to go on from")
    print("levels: " + "; ".join(level.describe() for level in LEVELS.values()))
    for name in args.only or list(MATCHES):
        games = args.games_4p if name.startswith("4p") else args.games
        workers = 1 if name in ONE_GAME_AT_A_TIME else args.workers
        numbers = run_match(name, games, args.seed, workers, args.records, args.top, args.resume)
        low, high = numbers["interval"]
        verdict = "met" if numbers["met"] else "MISSED"
        goal = f"target >= {numbers['target']:.0%}" if name in TARGETS else "target: beat it (>50%)"
        print(
            f"\n== {name}: {numbers['hero']} wins {numbers['win_rate']:.1%} "
            f"(95% {low:.1%}-{high:.1%}) of {numbers['games']} games; {goal}: {verdict}; "
            f"{numbers['wall_seconds']:.0f} s on {workers} workers"
        )
        print("\n".join(numbers["report"]))
        for agent, t in numbers["timing"].items():
            print(
                f"   {agent}: {t['seconds_per_move']:.3f} s/move, "
                f"{t['seconds_per_turn']:.3f} s/turn, max {t['max_seconds_per_move']:.2f} s"
            )
        sys.stdout.flush()
        if args.out:
            with open(args.out, "a", encoding="utf-8") as out:
                numbers.pop("report")
                out.write(json.dumps(numbers) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
