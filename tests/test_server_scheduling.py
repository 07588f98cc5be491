"""Fair AI scheduling: each game's AI jobs one at a time, round-robin across games, people's
games before AI-only ones (which leave a worker free), and who may create AI-only games."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
from argon2 import PasswordHasher, profiles
from fastapi.testclient import TestClient
from test_server_support import free_port, sqlite_url, start_server

from taluva.cli import main
from taluva.engine.game import Game
from taluva.server import Settings, create_app
from taluva.server.ai.scheduling import Audience, FairScheduler, SchedulerClosed
from taluva.server.ai.workers import AI_ONLY_NICENESS, fallback_move
from taluva.server.errors import ApiError
from taluva.server.games.service import GameService
from taluva.server.players import accounts
from taluva.server.storage.store import FINISHED

PEOPLE, AI_ONLY = Audience.PEOPLE, Audience.AI_ONLY
AI_SEATS = [{"kind": "ai", "level": 1}, {"kind": "ai", "level": 1}]
HUMAN_AND_AI = [{"kind": "human", "take": True}, {"kind": "ai", "level": 1}]


class Jobs:
    """Stub jobs that note when they start and end only when the test releases them."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.releases: dict[str, asyncio.Event] = {}

    def job(self, name: str) -> Callable[[], Awaitable[str]]:
        release = self.releases[name] = asyncio.Event()

        async def work() -> str:
            self.started.append(name)
            await release.wait()
            return name

        return work

    async def release(self, name: str) -> None:
        """Let the job ``name`` end, then let the scheduler hand out the freed worker."""
        self.releases[name].set()
        for _ in range(5):
            await asyncio.sleep(0)


async def settle() -> None:
    """Let every task that can run, run."""
    for _ in range(5):
        await asyncio.sleep(0)


def queue(
    scheduler: FairScheduler, jobs: Jobs, game: str, audience: Audience, name: str
) -> asyncio.Task[str]:
    return asyncio.ensure_future(scheduler.run(game, audience, jobs.job(name)))


def test_free_workers_go_round_robin_across_games_one_job_per_game_at_a_time() -> None:
    async def scenario() -> list[str]:
        scheduler, jobs = FairScheduler(workers=1), Jobs()
        names = ["a1", "a2", "a3", "b1", "b2", "b3", "c1"]
        tasks = [queue(scheduler, jobs, name[0], PEOPLE, name) for name in names]
        await settle()
        for _ in names:
            await jobs.release(jobs.started[-1])
        assert [task.result() for task in tasks] == names
        return jobs.started

    assert asyncio.run(scenario()) == ["a1", "b1", "c1", "a2", "b2", "a3", "b3"]


def test_a_game_never_runs_two_jobs_at_once_even_with_workers_free() -> None:
    async def scenario() -> None:
        scheduler, jobs = FairScheduler(workers=3), Jobs()
        for name in ("x1", "x2", "x3"):
            queue(scheduler, jobs, "x", PEOPLE, name)
        queue(scheduler, jobs, "y", PEOPLE, "y1")
        await settle()
        assert (jobs.started, scheduler.running(), scheduler.waiting()) == (["x1", "y1"], 2, 2)
        await jobs.release("x1")
        assert jobs.started == ["x1", "y1", "x2"]

    asyncio.run(scenario())


def test_people_games_are_served_before_ai_only_games_that_waited_longer() -> None:
    async def scenario() -> list[str]:
        scheduler, jobs = FairScheduler(workers=1), Jobs()
        queue(scheduler, jobs, "bots1", AI_ONLY, "bots1-a")
        queue(scheduler, jobs, "bots1", AI_ONLY, "bots1-b")
        queue(scheduler, jobs, "bots2", AI_ONLY, "bots2-a")
        queue(scheduler, jobs, "duel", PEOPLE, "duel-a")
        queue(scheduler, jobs, "hinted", PEOPLE, "hint")
        await settle()
        for _ in range(5):
            await jobs.release(jobs.started[-1])
        return jobs.started

    assert asyncio.run(scenario()) == ["bots1-a", "duel-a", "hint", "bots2-a", "bots1-b"]


def test_ai_only_games_leave_one_worker_for_people() -> None:
    async def scenario() -> None:
        scheduler, jobs = FairScheduler(workers=3), Jobs()
        for number in range(6):
            queue(scheduler, jobs, f"bots{number}", AI_ONLY, f"bots{number}")
        await settle()
        assert (scheduler.running(AI_ONLY), scheduler.waiting()) == (2, 4)
        queue(scheduler, jobs, "duel", PEOPLE, "duel")
        await settle()
        assert jobs.started == ["bots0", "bots1", "duel"]
        await jobs.release("duel")
        assert (scheduler.running(), scheduler.running(AI_ONLY)) == (2, 2)

    asyncio.run(scenario())


def test_people_may_take_every_worker() -> None:
    async def scenario() -> None:
        scheduler, jobs = FairScheduler(workers=2), Jobs()
        queue(scheduler, jobs, "duel1", PEOPLE, "duel1")
        queue(scheduler, jobs, "duel2", PEOPLE, "duel2")
        queue(scheduler, jobs, "bots", AI_ONLY, "bots")
        await settle()
        assert (jobs.started, scheduler.waiting()) == (["duel1", "duel2"], 1)
        await jobs.release("duel2")
        assert jobs.started[-1] == "bots"

    asyncio.run(scenario())


def test_a_withdrawn_job_never_runs_and_its_game_loses_its_turn() -> None:
    async def scenario() -> None:
        scheduler, jobs = FairScheduler(workers=1), Jobs()
        queue(scheduler, jobs, "a", PEOPLE, "a1")
        withdrawn = queue(scheduler, jobs, "b", PEOPLE, "b1")
        queue(scheduler, jobs, "c", PEOPLE, "c1")
        await settle()
        withdrawn.cancel()
        await settle()
        await jobs.release("a1")
        assert (jobs.started, scheduler.waiting()) == (["a1", "c1"], 0)
        assert withdrawn.cancelled()

    asyncio.run(scenario())


def test_a_job_keeps_its_worker_until_its_work_ends_though_nobody_waits() -> None:
    async def scenario() -> None:
        scheduler, jobs = FairScheduler(workers=1), Jobs()
        abandoned = queue(scheduler, jobs, "a", PEOPLE, "a1")
        queue(scheduler, jobs, "b", PEOPLE, "b1")
        await settle()
        abandoned.cancel()
        await settle()
        assert (jobs.started, scheduler.running()) == (["a1"], 1)
        await jobs.release("a1")
        assert jobs.started == ["a1", "b1"]

    asyncio.run(scenario())


def test_stopping_refuses_new_jobs_and_drops_the_waiting_ones() -> None:
    async def scenario() -> None:
        scheduler, jobs = FairScheduler(workers=1), Jobs()
        queue(scheduler, jobs, "a", PEOPLE, "a1")
        waiting = queue(scheduler, jobs, "b", PEOPLE, "b1")
        await settle()
        scheduler.close()
        await settle()
        assert isinstance(waiting.exception(), SchedulerClosed)
        with pytest.raises(SchedulerClosed):
            await scheduler.run("c", PEOPLE, jobs.job("c1"))
        assert jobs.started == ["a1"]

    asyncio.run(scenario())


# ---------------------------------------------------------------- jobs of several parts


def together(
    scheduler: FairScheduler, jobs: Jobs, game: str, audience: Audience, names: list[str]
) -> list[asyncio.Task[str]]:
    return scheduler.run_together(game, audience, [jobs.job(name) for name in names])


def test_the_parts_of_a_job_take_every_free_worker() -> None:
    async def scenario() -> None:
        scheduler, jobs = FairScheduler(workers=3), Jobs()
        tasks = together(scheduler, jobs, "expert", PEOPLE, ["e1", "e2", "e3"])
        await settle()
        assert (jobs.started, scheduler.running()) == (["e1", "e2", "e3"], 3)
        for name in ("e1", "e2", "e3"):
            await jobs.release(name)
        assert [task.result() for task in tasks] == ["e1", "e2", "e3"]
        assert scheduler.running() == 0

    asyncio.run(scenario())


def test_a_further_part_waits_while_another_game_waits_for_its_first_worker() -> None:
    async def scenario() -> None:
        scheduler, jobs = FairScheduler(workers=2), Jobs()
        queue(scheduler, jobs, "duel", PEOPLE, "duel1")
        await settle()
        together(scheduler, jobs, "expert", PEOPLE, ["e1", "e2"])
        queue(scheduler, jobs, "other", PEOPLE, "other1")
        queue(scheduler, jobs, "bots", AI_ONLY, "bots1")
        await settle()
        assert (jobs.started, scheduler.waiting()) == (["duel1", "e1"], 3)
        await jobs.release("duel1")
        assert jobs.started[-1] == "other1"
        await jobs.release("other1")
        assert jobs.started[-1] == "e2"
        await jobs.release("e1")
        assert jobs.started[-1] == "bots1"

    asyncio.run(scenario())


def test_the_parts_of_an_ai_only_job_keep_to_the_ai_only_share() -> None:
    async def scenario() -> None:
        scheduler, jobs = FairScheduler(workers=3), Jobs()
        together(scheduler, jobs, "bots", AI_ONLY, ["b1", "b2", "b3"])
        await settle()
        assert (jobs.started, scheduler.running(AI_ONLY), scheduler.waiting()) == (
            ["b1", "b2"],
            2,
            1,
        )
        queue(scheduler, jobs, "duel", PEOPLE, "duel1")
        await settle()
        assert jobs.started[-1] == "duel1"
        await jobs.release("b1")
        assert jobs.started[-1] == "b3"

    asyncio.run(scenario())


def test_a_games_next_job_starts_once_every_part_of_its_job_has_ended() -> None:
    async def scenario() -> None:
        scheduler, jobs = FairScheduler(workers=3), Jobs()
        together(scheduler, jobs, "expert", PEOPLE, ["e1", "e2"])
        queue(scheduler, jobs, "expert", PEOPLE, "hint")
        await settle()
        assert (jobs.started, scheduler.running()) == (["e1", "e2"], 2)
        await jobs.release("e1")
        assert jobs.started == ["e1", "e2"]
        await jobs.release("e2")
        assert jobs.started == ["e1", "e2", "hint"]

    asyncio.run(scenario())


def test_a_withdrawn_part_never_runs_and_its_job_ends_with_its_running_parts() -> None:
    async def scenario() -> None:
        scheduler, jobs = FairScheduler(workers=1), Jobs()
        tasks = together(scheduler, jobs, "expert", PEOPLE, ["e1", "e2"])
        queue(scheduler, jobs, "expert", PEOPLE, "hint")
        await settle()
        tasks[1].cancel()
        await settle()
        assert scheduler.waiting() == 1
        await jobs.release("e1")
        assert (jobs.started, tasks[0].result(), tasks[1].cancelled()) == (
            ["e1", "hint"],
            "e1",
            True,
        )

    asyncio.run(scenario())


def test_a_part_left_waiting_when_its_job_has_no_worker_waits_its_turn_like_a_job() -> None:
    async def scenario() -> None:
        scheduler, jobs = FairScheduler(workers=1), Jobs()
        together(scheduler, jobs, "expert", PEOPLE, ["e1", "e2"])
        queue(scheduler, jobs, "duel", PEOPLE, "duel1")
        queue(scheduler, jobs, "bots", AI_ONLY, "bots1")
        await settle()
        await jobs.release("e1")
        assert jobs.started == ["e1", "duel1"]
        await jobs.release("duel1")
        assert jobs.started[-1] == "e2"

    asyncio.run(scenario())


def test_stopping_drops_the_parts_that_have_not_started() -> None:
    async def scenario() -> None:
        scheduler, jobs = FairScheduler(workers=1), Jobs()
        tasks = together(scheduler, jobs, "expert", PEOPLE, ["e1", "e2"])
        await settle()
        scheduler.close()
        await jobs.release("e1")
        assert tasks[0].result() == "e1"
        assert isinstance(tasks[1].exception(), SchedulerClosed)
        assert (jobs.started, scheduler.running(), scheduler.waiting()) == (["e1"], 0, 0)

    asyncio.run(scenario())


# ---------------------------------------------------------------- who may create AI-only games


def app_client(tmp_path: Path, **settings: Any) -> TestClient:
    return TestClient(create_app(Settings(database=sqlite_url(tmp_path), ai_workers=0, **settings)))


def test_guests_may_not_create_ai_only_games_by_default(tmp_path: Path) -> None:
    with app_client(tmp_path) as client:
        refused = client.post("/api/games", json={"seats": AI_SEATS})
        assert refused.status_code == 403
        assert refused.json() == {
            "error": {
                "code": "ai-only-off",
                "message": "games with only AI seats are for signed-in players on this server: "
                "sign in, or make one seat human",
            }
        }
        assert client.get("/api/games", params={"status": "live"}).json() == {"games": []}
        assert client.post("/api/games", json={"seats": HUMAN_AND_AI}).status_code == 201


def test_the_ai_only_games_option_lets_guests_create_them(tmp_path: Path) -> None:
    with app_client(tmp_path, ai_only_games=True) as client:
        created = client.post("/api/games", json={"seats": AI_SEATS})
        assert created.status_code == 201
        assert created.json()["game"]["status"] == "live"


def test_a_signed_in_player_may_create_ai_only_games_up_to_the_quota(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cheapest = PasswordHasher.from_parameters(profiles.CHEAPEST)
    monkeypatch.setattr(accounts, "default_hasher", lambda: cheapest)
    with app_client(tmp_path, ai_only_quota=1) as client:
        password = {"name": "Ana", "password": "correct horse battery"}
        assert client.post("/api/accounts", json=password).status_code == 201
        codes = [client.post("/api/games", json={"seats": AI_SEATS}) for _ in range(2)]
        assert client.delete("/api/session").status_code == 200
        as_guest = client.post("/api/games", json={"seats": AI_SEATS})
    answers = [(r.status_code, r.json().get("error", {}).get("code")) for r in codes]
    assert answers == [(201, None), (409, "ai-only-quota")]
    assert (as_guest.status_code, as_guest.json()["error"]["code"]) == (403, "ai-only-off")


def test_a_seat_error_is_reported_before_the_ai_only_refusal(tmp_path: Path) -> None:
    with app_client(tmp_path) as client:
        refused = client.post("/api/games", json={"seats": [{"kind": "ai", "level": 9}] * 2})
        assert (refused.status_code, refused.json()["error"]["code"]) == (422, "bad-request")


class RandomMoves:
    """An AI runner that plays a random legal move at once, to finish AI games quickly."""

    async def choose(self, record: dict[str, Any], spec: str, seed: int, **_turn: Any) -> str:
        return fallback_move(Game.from_record(record), seed)

    def close(self) -> None:
        """Nothing to stop."""


def test_an_account_has_a_quota_of_unfinished_ai_only_games(tmp_path: Path) -> None:
    async def scenario() -> list[str]:
        settings = Settings(database=sqlite_url(tmp_path), ai_workers=0, ai_only_quota=2)
        service = GameService(settings, ai=RandomMoves())  # type: ignore[arg-type]
        await service.start()
        try:
            first, _ = await service.create_game({"seats": AI_SEATS}, account_id=7)
            await service.create_game({"seats": AI_SEATS}, account_id=7)
            await service.create_game({"seats": [{"kind": "human"}, *AI_SEATS]}, account_id=7)
            await service.create_game({"seats": AI_SEATS}, account_id=8)
            outcomes = []
            try:
                await service.create_game({"seats": AI_SEATS}, account_id=7)
            except ApiError as error:
                outcomes.append(f"{error.status} {error.code}: {error.message}")
            assert first.ai_task is not None
            await first.ai_task
            assert first.meta.status == FINISHED
            third, _ = await service.create_game({"seats": AI_SEATS}, account_id=7)
            outcomes.append(third.meta.status)
            return outcomes
        finally:
            await service.stop()

    assert asyncio.run(scenario()) == [
        "409 ai-only-quota: you have 2 unfinished games with only AI seats, as many as this "
        "server allows one account (2): wait for one to end, or make one seat human",
        "live",
    ]


class NoMoves:
    """An AI runner that never answers, so that AI-only games stay unfinished."""

    async def choose(self, record: dict[str, Any], spec: str, seed: int, **_turn: Any) -> str:
        await asyncio.Event().wait()
        raise AssertionError("never answered")

    def close(self) -> None:
        """Nothing to stop."""


def test_the_ai_only_quota_counts_the_games_stored_before_a_restart(tmp_path: Path) -> None:
    async def scenario() -> list[str]:
        settings = Settings(database=sqlite_url(tmp_path), ai_workers=0, ai_only_quota=2)
        outcomes = []
        for _restart in range(2):
            service = GameService(settings, ai=NoMoves())  # type: ignore[arg-type]
            await service.start()
            try:
                for _ in range(2):
                    try:
                        room, _ = await service.create_game({"seats": AI_SEATS}, account_id=7)
                        outcomes.append(room.meta.status)
                    except ApiError as error:
                        outcomes.append(error.code)
            finally:
                await service.stop()
        return outcomes

    assert asyncio.run(scenario()) == ["live", "live", "ai-only-quota", "ai-only-quota"]


def test_a_quota_of_zero_turns_ai_only_games_off_for_accounts_too(tmp_path: Path) -> None:
    async def scenario() -> str:
        settings = Settings(database=sqlite_url(tmp_path), ai_workers=0, ai_only_quota=0)
        service = GameService(settings)
        await service.start()
        try:
            await service.create_game({"seats": AI_SEATS}, account_id=7)
        except ApiError as error:
            return f"{error.status} {error.code}: {error.message}"
        finally:
            await service.stop()
        return "created"

    assert asyncio.run(scenario()) == (
        "403 ai-only-off: games with only AI seats are turned off on this server: "
        "make one seat human"
    )


def test_serve_refuses_a_negative_quota(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--ai-only-quota", "-1"]) == 2
    assert capsys.readouterr().err == "taluva: error: --ai-only-quota must be 0 or more\n"


def test_serve_help_explains_the_ai_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "people's games first; games with only AI seats get all but one, at low CPU" in shown
    assert "--ai-only-games let guests (not signed in) create games with only AI seats" in shown
    assert "--ai-only-quota N unfinished games with only AI seats one signed-in account" in shown


# ---------------------------------------------------------------- a real server under AI load


HUNG = 120.0
"""Seconds after which a wait is taken to hang: only stops a broken test, never a slow one."""
DUEL_AI_PLIES = 2
"""The plies of the duel's AI turn (tile and build): one AI job each."""
AI_ONLY_GAMES = 6


def plies(http: httpx.Client, games: list[str]) -> int:
    """How many plies the games ``games`` have played, in all."""
    return sum(http.get(f"/api/games/{game}").json()["state"]["ply"] for game in games)


def ai_only_plies_while_answering(
    http: httpx.Client, game_id: str, token: str, ai_only: list[str]
) -> int:
    """Play the first legal move of a human seat (tile and build) and wait until the AI seat
    has answered (its tile and build); return how many plies the AI-only games ``ai_only``
    played from the human's build (which asks for the AI's turn) until that answer."""
    state = http.get(f"/api/games/{game_id}").json()["state"]
    ply = state["ply"]
    before = 0
    for step in range(2):  # the human's tile and build
        if step == 1:
            before = plies(http, ai_only)
        move = state["legal"][0]
        answer = http.post(
            f"/api/games/{game_id}/moves",
            json={"state": state["ply"], "move": move},
            headers={"authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200, answer.text
        state = answer.json()["state"]
    deadline = time.monotonic() + HUNG
    while state["ply"] < ply + 2 + DUEL_AI_PLIES and state["result"] is None:
        assert time.monotonic() < deadline, "the AI seat did not answer"
        time.sleep(0.02)
        state = http.get(f"/api/games/{game_id}").json()["state"]
    return plies(http, ai_only) - before


def worker_niceness(server: int) -> list[int]:
    """The niceness of each AI worker process of the server with process id ``server``."""
    children = psutil.Process(server).children(recursive=True)
    workers = [c for c in children if "multiprocessing-fork" in " ".join(c.cmdline())]
    return sorted(worker.nice() for worker in workers)


def test_a_people_games_ai_turn_overtakes_the_waiting_ai_only_games_which_search_niced(
    tmp_path: Path,
) -> None:
    port = free_port()
    options = ("--ai-workers", "2", "--ai-only-games", "--games-per-minute", "60")
    server = start_server(sqlite_url(tmp_path), port, *options)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            duel = http.post("/api/games", json={"seats": HUMAN_AND_AI}).json()
            game_id, token = duel["game"]["id"], duel["tokens"][0]["token"]
            ai_only_plies_while_answering(http, game_id, token, [])  # the duel's worker is up
            strongest = {"seats": [{"kind": "ai", "level": 5}] * 2}
            ai_only = []
            for _ in range(AI_ONLY_GAMES):
                created = http.post("/api/games", json=strongest)
                assert created.status_code == 201, created.text
                ai_only.append(created.json()["game"]["id"])
            deadline = time.monotonic() + HUNG
            while AI_ONLY_NICENESS not in worker_niceness(server.pid):
                assert time.monotonic() < deadline, "no AI-only game started its search"
                time.sleep(0.1)
            overtaken = [
                ai_only_plies_while_answering(http, game_id, token, ai_only) for _ in range(2)
            ]
        niceness = worker_niceness(server.pid)
        # The AI-only games hold one worker, at the lowest priority; the duel has its own, at
        # the server's (which is this test's, should the tests run niced).
        usual = os.nice(0)
        assert (niceness.count(AI_ONLY_NICENESS), set(niceness)) == (1, {usual, AI_ONLY_NICENESS})
        # Six AI-only games always have a job each: one runs on their worker, five wait. Served
        # in the order asked on two workers (two running, four waiting), each of the duel's AI
        # jobs would start only once the four AI-only jobs before it had ended: 8 AI-only plies
        # or more per AI turn. Served first on the worker kept for people, a job of the duel
        # waits for none: while it runs, only the search that held the AI-only worker when it
        # was asked may end (a level-5 move takes far longer than a level-1 one, on a niced
        # worker), so at most one AI-only ply per job of the duel.
        assert max(overtaken) <= DUEL_AI_PLIES, overtaken
    finally:
        server.terminate()
        server.wait(timeout=30)
