"""How strong the agents are: a round-robin table of every agent against every other, and a
chain of arena matches.

The table (the default): every pair among ``--agents`` (random, level 1, greedy, levels 2-6)
in two-player games, each deck in both seat orders, and four-player tables (each agent with
three greedy ones, and four neighbouring agents together), each deck in every rotation of the
seats. Neighbouring agents (in the order given, weakest first) and the top level against greedy
play ``--games`` games; a pair further apart plays half as many for each step of distance,
down to ``--min-games``, since its result is plain from few games. Every pair plays the same
decks (one seed). Printed, as Markdown: a cross table of win shares with 95% Wilson intervals,
openskill ratings (Plackett-Luce, the server's model) updated game by game, and each
four-player table's first-place shares and mean places with ratings from those games. Games
are played in an interleaved order (every pair's first deck, then the next), so a run cut
short still covers every pair; ``--records FILE --resume`` goes on with it. Agents that search
on every core (level 6) play their games one at a time after the others.

The chain (``--chain``, or ``--only NAME``): greedy vs random; level:5 (the top level, plain
``mcts``) vs greedy; level:N vs level:N-1 for N = 2..5; four players, level:5 against three
greedy agents; and level:6 vs level:5, one game at a time so that both think for about the
same wall time. For each: win rate with a 95% interval, seconds per move and per turn (mean and
max) and the wall time.

The search levels are bounded by iterations, so the games do not depend on the machine's
speed; their time limits are far above what the iterations take on an idle machine, but on a
heavily shared one a limit can cut a search short (the max seconds show it; ``--untimed``
plays the table's search levels by their iterations alone). Seconds are wall time, so on a
shared machine they are noisy.
Run ``python bench/ai_strength.py`` (the table; ``--agents random,greedy,level:3 --games 8``
for a quick look, ``--minutes M`` to stop after M minutes with the whole decks played),
``--chain`` (200 games a match, 100 for the four-player one, both cores), ``--out FILE`` to
keep the numbers as JSON Lines, ``--records FILE --resume`` to go on with an interrupted run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import sys
import time
from typing import Any

from taluva.ai import arena
from taluva.ai.levels import LEVELS, TOP_LEVEL
from taluva.ai.specs import InvalidAgentSpec, make_agent
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


# --------------------------------------------------------------------------- the table

TABLE_AGENTS = (
    "random",
    "level:1",
    "greedy",
    "level:2",
    "level:3",
    "level:4",
    "level:5",
    "level:6",
)
"""The table's agents by default, weakest first (the order decides which pairs are
neighbours and play the most games)."""


def plays_greedy(spec: str) -> bool:
    """Whether ``spec`` is greedy itself or a level that plays greedy (with a time limit)."""
    kind, _, number = spec.partition(":")
    if spec == "greedy":
        return True
    return (
        kind == "level"
        and number.isdigit()
        and LEVELS.get(int(number)) is not None
        and (LEVELS[int(number)].agent == "greedy")
    )


def uses_every_core(spec: str) -> bool:
    """Whether ``spec`` searches in several processes (level 6, ``processes=P``): its games
    are played one at a time, so that it has the cores it counts on."""
    kind, _, rest = spec.partition(":")
    if kind == "level" and rest.isdigit() and int(rest) in LEVELS:
        return LEVELS[int(rest)].agent == "parallel"
    return kind == "mcts" and "processes=" in rest


def strength_ranks(agents: list[str]) -> dict[str, int]:
    """Each agent's place in ``agents`` (weakest first), levels that play greedy sharing
    greedy's place when it is there (their pair with it is a mirror match)."""
    ranks: dict[str, int] = {}
    rank = -1
    greedy_rank = None
    for spec in agents:
        if plays_greedy(spec) and greedy_rank is not None:
            ranks[spec] = greedy_rank
            continue
        rank += 1
        ranks[spec] = rank
        if plays_greedy(spec):
            greedy_rank = rank
    return ranks


def pair_games(strong: str, weak: str, ranks: dict[str, int], games: int, minimum: int) -> int:
    """Games for one pair: ``games`` for neighbours and for the top level against greedy,
    half as many for each further step apart, never under ``minimum`` (a mirror match of
    greedy and a level that plays it gets ``minimum``)."""
    gap = abs(ranks[strong] - ranks[weak])
    if gap == 0:
        return minimum
    if {strong, weak} == {TOP, "greedy"}:
        gap = 1
    return max(minimum, -(-games // (1 << (gap - 1))))


def two_player_pairs(
    agents: list[str], games: int, minimum: int
) -> list[tuple[str, list[str], int]]:
    """The two-player matches of the table: (name, [stronger, weaker], games)."""
    ranks = strength_ranks(agents)
    pairs = []
    for high in range(len(agents) - 1, 0, -1):
        for low in range(high - 1, -1, -1):
            strong, weak = agents[high], agents[low]
            pairs.append(
                (
                    f"{strong} vs {weak}",
                    [strong, weak],
                    pair_games(strong, weak, ranks, games, minimum),
                )
            )
    return pairs


def four_player_tables(agents: list[str]) -> list[tuple[str, list[str]]]:
    """The four-player tables: each agent with three greedy ones (with greedy among the
    agents), and every four neighbouring agents together (levels that play greedy left out
    when greedy is there: they would be a second greedy)."""
    distinct = [a for a in agents if not (plays_greedy(a) and a != "greedy" and "greedy" in agents)]
    tables: list[tuple[str, list[str]]] = []
    if "greedy" in distinct:
        for spec in distinct:
            if spec != "greedy":
                tables.append((f"4p {spec} + 3 greedy", [spec, "greedy", "greedy", "greedy"]))
    for start in range(len(distinct) - 3):
        seats = distinct[start : start + 4][::-1]
        tables.append(("4p " + ", ".join(seats), seats))
    return tables


def untimed(spec: str) -> str:
    """A search level's spec without its time limit (``level:5`` becomes
    ``mcts:iterations=800``): the same search when the limit is not reached, so that a machine
    too busy to finish a search in time does not weaken it. Other specs are kept."""
    kind, _, rest = spec.partition(":")
    if kind == "level" and rest.isdigit() and int(rest) in LEVELS:
        level = LEVELS[int(rest)]
        if level.agent == "mcts" and level.iterations is not None:
            return f"mcts:iterations={level.iterations}"
    return spec


def schedule(
    matches: list[tuple[str, list[str], int]], seed: int, without_limits: bool = False
) -> list[arena.Task]:
    """Every game of every match, interleaved so that each match is played at the same pace
    (its decks spread over the run): a run cut short still covers every match. All matches
    share the decks of one seed. With ``without_limits``, search levels play ``untimed``."""
    ordered = []
    for position, (name, agents, games) in enumerate(matches):
        seated = [untimed(a) for a in agents] if without_limits else agents
        tasks = arena.make_tasks(seated, games, seed)
        decks = tasks[-1]["deck"] + 1
        for task in tasks:
            task["match"] = name
            ordered.append(((task["deck"] + 0.5) / decks, position, task["index"], task))
    ordered.sort(key=lambda item: item[:3])
    return [item[3] for item in ordered]


def play_scheduled(task: arena.Task) -> arena.TaskResult:
    """Play one scheduled game (in a worker process); its result carries the match name."""
    return {**arena.play_task(task), "match": task["match"]}


def _winner_text(result: arena.TaskResult) -> str:
    first = result["ranking"][0]
    return " and ".join(f"{result['agents'][seat]} (seat {seat + 1})" for seat in first)


def play_schedule(
    tasks: list[arena.Task],
    workers: int,
    records: str | None,
    resume: bool,
    minutes: float | None = None,
) -> tuple[list[arena.TaskResult], list[float]]:
    """Play the scheduled games (those of agents on every core one at a time, after the
    others), appending each to ``records`` as it ends; with ``resume``, games found there are
    kept. After ``minutes`` no game is started and those under way are dropped (a resumed run
    plays them). Returns the results in schedule order and the load average after each game."""
    stop = None if minutes is None else time.perf_counter() + 60 * minutes
    order = {(t["match"], t["index"]): n for n, t in enumerate(tasks)}
    kept: list[arena.TaskResult] = []
    if resume and records:
        by_match: dict[str, list[arena.Task]] = {}
        for task in tasks:
            by_match.setdefault(task["match"], []).append(task)
        for name, match_tasks in by_match.items():
            kept += [{**r, "match": name} for r in already_played(records, name, match_tasks)]
        print(f"{len(kept)} games kept from {records}", file=sys.stderr)
    done = {(r["match"], r["index"]) for r in kept}
    left = [t for t in tasks if (t["match"], t["index"]) not in done]
    shared = [t for t in left if not any(uses_every_core(a) for a in t["agents"])]
    alone = [t for t in left if any(uses_every_core(a) for a in t["agents"])]
    results = list(kept)
    loads: list[float] = []

    def finished(result: arena.TaskResult) -> None:
        results.append(result)
        loads.append(os.getloadavg()[0])
        if records:
            with open(records, "a", encoding="utf-8") as out:
                arena.write_records([result], out, timing=True)
        print(
            f"[{len(results)}/{len(tasks)}] {result['match']}, game {result['index'] + 1}: "
            f"{_winner_text(result)} first; {sum(result['seconds']):.0f} s; "
            f"load {loads[-1]:.1f}",
            file=sys.stderr,
            flush=True,
        )

    if workers > 1 and len(shared) > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(min(workers, len(shared))) as pool:
            for result in pool.imap_unordered(play_scheduled, shared):
                finished(result)
                if stop is not None and time.perf_counter() > stop:
                    break
    else:
        for task in shared:
            if stop is not None and time.perf_counter() > stop:
                break
            finished(play_scheduled(task))
    for task in alone:
        if stop is not None and time.perf_counter() > stop:
            break
        finished(play_scheduled(task))
    if len(results) < len(tasks):
        print(
            f"stopped after {minutes:g} minutes: {len(tasks) - len(results)} games not played",
            file=sys.stderr,
        )
    results.sort(key=lambda r: order[(r["match"], r["index"])])
    return results, loads


def whole_decks(results: list[arena.TaskResult], tasks: list[arena.Task]) -> list[arena.TaskResult]:
    """The results of the decks played in every seat order (a run cut short may leave a deck
    half played: counting it would let the luck of its tiles favour one side)."""
    wanted: dict[tuple[str, int], int] = {}
    for task in tasks:
        key = (task["match"], task["deck"])
        wanted[key] = wanted.get(key, 0) + 1
    got: dict[tuple[str, int], int] = {}
    for r in results:
        key = (r["match"], r["deck"])
        got[key] = got.get(key, 0) + 1
    return [r for r in results if got[(r["match"], r["deck"])] == wanted[(r["match"], r["deck"])]]


def win_share(results: list[arena.TaskResult], agent: str) -> tuple[float, int]:
    """``agent``'s share of first places in ``results`` (a shared first place counts as a
    share) and the games it played."""
    wins = 0.0
    games = 0
    for r in results:
        seats = [seat for seat, spec in enumerate(r["agents"]) if spec == agent]
        if not seats:
            continue
        games += 1
        first = r["ranking"][0]
        wins += sum(1 for seat in seats if seat in first) / len(first)
    return wins, games


def percent_cell(wins: float, games: int) -> str:
    """A win share with its 95% interval and the games it is from, for a Markdown cell."""
    low, high = arena.wilson(wins, games)
    return f"{wins / games:.0%} [{low * 100:.0f}-{high * 100:.0f}] n={games}"


def cross_table(agents: list[str], results: list[arena.TaskResult]) -> list[str]:
    """Markdown: each row agent's win share against each column agent (two-player games)."""
    by_pair: dict[frozenset[str], list[arena.TaskResult]] = {}
    for r in results:
        by_pair.setdefault(frozenset(r["agents"]), []).append(r)
    strongest_first = agents[::-1]
    lines = [
        "| row vs column | " + " | ".join(strongest_first) + " |",
        "| --- |" + " ---: |" * len(agents),
    ]
    for row in strongest_first:
        cells = []
        for column in strongest_first:
            games = by_pair.get(frozenset((row, column)), []) if row != column else []
            if not games:
                cells.append("")
                continue
            wins, played = win_share(games, row)
            cells.append(percent_cell(wins, played))
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return lines


def ratings_table(results: list[arena.TaskResult]) -> list[str]:
    """Markdown: openskill ratings (Plackett-Luce, the server's model, updated game by game in
    the order given) with each agent's games, first-place share, mean place and time, best
    conservative rating (mu - 3 sigma) first; an agent in several seats of a game counts
    each seat in its first-place share and mean place, and is rated once a game."""
    summary = arena.report(results)
    lines = [
        "| agent | games | first place | mean place | mu | sigma | mu - 3 sigma "
        "| s a turn | max s a move |",
        "| --- |" + " ---: |" * 8,
    ]
    for s in summary.standings:
        games = sum(1 for r in results if s.agent in r["agents"])
        turn = 2 * s.seconds / max(1, s.moves)
        lines.append(
            f"| {s.agent} | {games} | {percent_cell(s.wins, s.seats)} "
            f"| {s.place_sum / s.seats:.2f} | {s.mu:.1f} | {s.sigma:.2f} | {s.ordinal:.1f} "
            f"| {turn:.2f} | {s.longest:.2f} |"
        )
    return lines


def four_player_table(
    tables: list[tuple[str, list[str]]], results: list[arena.TaskResult]
) -> list[str]:
    """Markdown: in each four-player table, each agent's share of first places (a greedy agent
    in three seats counts its three seats) and mean place."""
    lines = [
        "| table | games | agent | seats | first place | mean place |",
        "| --- | ---: | --- | ---: | ---: | ---: |",
    ]
    for name, seats in tables:
        games = [r for r in results if r["match"] == name]
        if not games:
            continue
        summary = arena.report(games)
        by_agent = {s.agent: s for s in summary.standings}
        for n, agent in enumerate(dict.fromkeys(seats)):
            s = by_agent[agent]
            lines.append(
                f"| {name.removeprefix('4p ') if n == 0 else ''} | {len(games) if n == 0 else ''} "
                f"| {agent} | {s.seats} | {percent_cell(s.wins, s.seats)} "
                f"| {s.place_sum / s.seats:.2f} |"
            )
    return lines


def run_table(args: argparse.Namespace) -> int:
    """The round-robin table: play it (or go on with it) and print its Markdown tables."""
    agents = args.agents
    pairs = two_player_pairs(agents, args.games, args.min_games) if 2 in args.players else []
    tables = four_player_tables(agents) if 4 in args.players else []
    matches = pairs + [(name, seats, args.games_4p) for name, seats in tables]
    tasks = schedule(matches, args.seed, args.untimed)
    started = datetime.datetime.now(datetime.UTC)
    load_before = os.getloadavg()
    print(f"command: {' '.join(['bench/ai_strength.py', *(args.argv)])}")
    print(
        f"started {started:%Y-%m-%d %H:%M} UTC; seed {args.seed}; {args.workers} workers"
        + ("; search levels untimed" if args.untimed else "")
    )
    print("levels: " + "; ".join(level.describe() for level in LEVELS.values()))
    print(
        "games: "
        + ", ".join(
            f"{name} {len([t for t in tasks if t['match'] == name])}" for name, _, _ in matches
        )
    )
    sys.stdout.flush()
    clock = time.perf_counter()
    played, loads = play_schedule(tasks, args.workers, args.records, args.resume, args.minutes)
    wall = time.perf_counter() - clock
    names = {untimed(a): a for a in agents} if args.untimed else {}
    results = [
        {**r, "agents": [names.get(a, a) for a in r["agents"]]} for r in whole_decks(played, tasks)
    ]
    cpu = sum(
        getattr(resource.getrusage(who), field)
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
        for field in ("ru_utime", "ru_stime")
    )
    two = [r for r in results if len(r["agents"]) == 2]
    four = [r for r in results if len(r["agents"]) == 4]
    if len(results) < len(tasks):
        print(
            f"\n{len(played)} of the {len(tasks)} games planned were played; the tables count "
            f"the {len(results)} in whole decks (every seat order played): "
            + ", ".join(
                f"{name} {sum(r['match'] == name for r in results)}" for name, _, _ in matches
            )
        )
    print(
        f"\n{len(results)} games ({len(two)} two-player, {len(four)} four-player); "
        f"{wall:.0f} s wall, {cpu:.0f} s CPU in this run; load average {load_before[0]:.1f} at "
        f"the start, {min(loads, default=0):.1f}-{max(loads, default=0):.1f} "
        f"(mean {sum(loads) / max(1, len(loads)):.1f}) after each game"
    )
    errors = [f"{r['match']}, game {r['index'] + 1}: {r['error']}" for r in results if r["error"]]
    print("\n".join(f"error: {e}" for e in errors))
    if two:
        seated = [a for a in agents if any(a in r["agents"] for r in two)]
        print(
            "\nTwo players: the row agent's win share against the column agent "
            "[95% interval], games\n"
        )
        print("\n".join(cross_table(seated, two)))
        print("\nTwo players: openskill ratings from every game\n")
        print("\n".join(ratings_table(two)))
    if four:
        print("\nFour players: first-place share [95% interval] and mean place at each table\n")
        print("\n".join(four_player_table(tables, four)))
        print("\nFour players: openskill ratings from the same games\n")
        print("\n".join(ratings_table(four)))
    if args.out:
        with open(args.out, "a", encoding="utf-8") as out:
            for label, games in (("two players", two), ("four players", four)):
                if games:
                    out.write(
                        json.dumps(
                            {"table": label, "seed": args.seed, **arena.report(games).to_json()}
                        )
                        + "\n"
                    )
    return 0


def agent_list(text: str) -> list[str]:
    """The ``--agents`` option: comma-separated agents, weakest first, each one an agent
    ``make_agent`` knows, none twice."""
    agents = [part.strip() for part in text.split(",") if part.strip()]
    if len(agents) < 2:
        raise argparse.ArgumentTypeError(f"{text!r}: give at least two agents, comma-separated")
    twice = sorted({a for a in agents if agents.count(a) > 1})
    if twice:
        raise argparse.ArgumentTypeError(f"{text!r}: {', '.join(twice)} given twice")
    for spec in agents:
        try:
            make_agent(spec, 0).close()
        except InvalidAgentSpec as problem:
            raise argparse.ArgumentTypeError(str(problem)) from None
    return agents


def player_counts(text: str) -> set[int]:
    """The ``--players`` option: ``2``, ``4`` or ``2,4``."""
    counts = {part.strip() for part in text.split(",") if part.strip()}
    if not counts or not counts <= {"2", "4"}:
        raise argparse.ArgumentTypeError(
            f"{text!r}: the table has 2- and 4-player games: 2, 4 or 2,4"
        )
    return {int(count) for count in counts}


def positive(text: str) -> int:
    """A whole number of games, at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: play at least one game")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--chain", action="store_true", help="play the chain of matches instead of the table"
    )
    parser.add_argument(
        "--games",
        type=positive,
        help="games per match of the chain (default 200); in the table, of neighbouring "
        "agents and of the top level against greedy (default 40)",
    )
    parser.add_argument(
        "--games-4p",
        type=positive,
        help="games of each four-player match (default 100 in the chain, 16 in the table)",
    )
    parser.add_argument(
        "--min-games",
        type=positive,
        default=4,
        help="table: fewest games of a pair, however lopsided (default 4)",
    )
    parser.add_argument(
        "--agents",
        type=agent_list,
        default=list(TABLE_AGENTS),
        help="table: comma-separated agents, weakest first (default "
        + ",".join(TABLE_AGENTS)
        + ")",
    )
    parser.add_argument(
        "--players", type=player_counts, default={2, 4}, help="table: 2, 4 or 2,4 (default)"
    )
    parser.add_argument(
        "--minutes",
        type=float,
        help="table: start no game after this many minutes and report the whole decks played "
        "(go on later with --records FILE --resume)",
    )
    parser.add_argument(
        "--untimed",
        action="store_true",
        help="table: search levels without their time limits (mcts:iterations=N, the same "
        "search), so that a busy machine does not cut them short; the tables keep their names",
    )
    parser.add_argument("--seed", type=int, default=2024, help="arena seed")
    parser.add_argument("--workers", type=positive, default=os.cpu_count() or 1)
    parser.add_argument(
        "--only", action="append", choices=sorted(MATCHES), help="chain: match to run"
    )
    parser.add_argument("--out", help="append the numbers to this JSON Lines file")
    parser.add_argument("--records", help="append every game, as it ends, to this JSON Lines file")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --records: keep the games already in that file and play only the rest",
    )
    parser.add_argument(
        "--top", default=TOP, help=f"chain: agent playing against greedy (default {TOP})"
    )
    args = parser.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else argv
    if args.resume and not args.records:
        parser.error("--resume needs --records FILE: the games to go on from")
    if args.min_games > (args.games or 40):
        parser.error(f"--min-games {args.min_games} is more than --games {args.games or 40}")
    if args.minutes is not None and not args.minutes > 0:
        parser.error(f"--minutes {args.minutes:g}: give a positive number of minutes")
    if not (args.chain or args.only):
        args.games = args.games or 40
        args.games_4p = args.games_4p or 16
        return run_table(args)
    args.games = args.games or 200
    args.games_4p = args.games_4p or 100
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
