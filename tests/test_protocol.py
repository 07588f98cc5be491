"""The engine protocol: the session's answers, and whole games through a subprocess."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time

import pytest

from taluva import Game
from taluva.ai import arena
from taluva.ai.protocol import PROTOCOL, EngineSession

ENGINE = [sys.executable, "-m", "taluva", "engine"]


class Engine:
    """A ``taluva engine`` subprocess driven line by line, as an outside program would."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            ENGINE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def ask(self, command: str) -> list[str]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while (line := self.process.stdout.readline().rstrip("\n")) != "ok":
            lines.append(line)
        return lines

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=10)


def test_a_full_game_through_the_engine_subprocess() -> None:
    engine = Engine()
    try:
        assert engine.ask("info")[2] == f"protocol {PROTOCOL}"
        assert engine.ask("newgame players=2 seed=6") == []
        turn = 0
        while True:
            status = engine.ask("status")[0]
            if "result none" not in status:
                break
            moves = engine.ask("validmoves")[0].split(";")
            if turn % 8 == 0:
                (move,) = engine.ask("bestmove iterations 2")
                assert move in moves
            else:
                move = moves[turn * 7 % len(moves)]
            assert engine.ask(f"play {move}") == []
            turn += 1
        record = json.loads(engine.ask("record")[0])
        assert engine.ask("validmoves") == [""]
        assert engine.ask("bestmove iterations 2")[0].startswith("err the game is over")
    finally:
        assert engine.close() == 0
    game = Game.from_record(record)
    assert game.result is not None and game.ply == turn
    assert game.deck == Game.new(players=2, seed=6).deck


def test_a_refused_command_answers_err_then_ok_and_changes_nothing() -> None:
    session = EngineSession()
    assert session.handle("newgame players=2 seed=1") == ["ok"]
    before = session.handle("record")
    answer = session.handle("play hut 5,5")
    assert answer[0].startswith("err hut 5,5:") and answer[1:] == ["ok"]
    assert session.handle("record") == before
    assert session.handle("newgame players=9")[0].startswith("err players is 9")
    assert session.handle("record") == before


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("fly", "err unknown command 'fly'"),
        ("play tile 0,0 3", "err no game yet"),
        ("newgame players=two", "err newgame: players='two' is not a whole number"),
        ("newgame colour=red", "err newgame: unknown setting 'colour'"),
        ("newgame {broken", "err record: not valid JSON"),
        ("set speed 3", "err unknown option 'speed'"),
        ("info now", "err info takes no arguments"),
    ],
)
def test_bad_commands_are_refused_with_a_reason(command: str, error: str) -> None:
    answer = EngineSession().handle(command)
    assert answer[0].startswith(error)
    assert answer[-1] == "ok" and len(answer) == 2


def test_bestmove_with_a_budget_and_undo() -> None:
    session = EngineSession()
    session.handle("newgame players=3 seed=2 tiles_per_player=12")
    move = session.handle("bestmove iterations 3")[0]
    assert session.handle(f"play {move}") == ["ok"]
    assert session.handle("undo") == ["ok"]
    assert session.handle("status")[0].startswith("phase tile to_move 0 tile ")
    assert session.handle("bestmove depth 3")[0].startswith("err bestmove: expected")
    assert session.handle("bestmove time 0")[0].startswith("err bestmove: time must be")


def test_newgame_from_a_record_line_continues_that_game() -> None:
    game = Game.new(players=2, seed=3)
    game.play("tile 0,0 2")
    session = EngineSession()
    assert session.handle("newgame " + json.dumps(game.to_record())) == ["ok"]
    assert json.loads(session.handle("record")[0]) == game.to_record()


def test_newgame_passes_expansions_to_the_engine() -> None:
    answer = EngineSession().handle("newgame players=2 seed=1 expansions=dragons,ships")
    assert answer[0].startswith("err") and "dragons" in answer[0]


def test_an_outside_engine_plays_in_the_arena() -> None:
    command = shlex.join([*ENGINE, "--level", "2"])
    task = arena.make_tasks(["random", f"engine:{command}"], games=1, seed=2)[0]
    result = arena.play_task(task)
    assert result["error"] is None
    game = Game.from_record(result["record"])
    assert game.result is not None
    assert result["moves"][1] > 0


SLOW_ENGINE = """
import sys
for line in sys.stdin:
    if line.startswith("bestmove"):
        break
    print("ok", flush=True)
sys.stdin.read()
"""
"""An engine that answers every command but never the request for a move."""


def test_an_engine_that_does_not_answer_in_time_forfeits_and_is_stopped() -> None:
    command = shlex.join([sys.executable, "-c", SLOW_ENGINE])
    task = arena.make_tasks([f"engine:{command}", "random"], games=1, seed=2)[0]
    task["options"] = {"engine_timeout": 0.5}
    start = time.perf_counter()
    result = arena.play_task(task)
    assert time.perf_counter() - start < 10
    assert result["error"] == (
        f"engine:{command} (seat 1): engine:{command}: no answer to 'bestmove' within 0.5 s; "
        "the engine was stopped"
    )
    assert result["ranking"] == [[1], [0]]
