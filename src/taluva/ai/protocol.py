"""The engine protocol: a line protocol on stdin/stdout (docs/engine-protocol.md).

``EngineSession`` answers commands one line at a time, so that any program can drive this
engine; ``EngineAgent`` is the other side: it runs an outside engine as a subprocess and uses
it as an agent. Every answer ends with a line ``ok``; a refused command answers
``err MESSAGE`` first and changes nothing.
"""

from __future__ import annotations

import json
import queue
import random
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Final

import taluva
from taluva.ai.agents import Agent
from taluva.ai.levels import LEVELS, TOP_LEVEL, level_agent
from taluva.ai.mcts import MctsAgent
from taluva.engine.errors import IllegalMove, InvalidOption, InvalidRecord
from taluva.engine.game import Game
from taluva.engine.moves import Move

PROTOCOL: Final = "taluva-engine/1"
ENGINE_NAME: Final = "taluva"
MAX_SECONDS: Final = 3600.0
MAX_ITERATIONS: Final = 10_000_000
ENGINE_TIMEOUT: Final = 60.0
"""Seconds an outside engine may take over one answer before it forfeits the game."""

_OPTIONS: Final = {
    "seed": ("int", "0", "seed of the searches (same seed, same answers)"),
    "level": (
        f"int {min(LEVELS)}-{max(LEVELS)}",
        str(TOP_LEVEL),
        "level used by a bestmove without a budget",
    ),
}


class ProtocolError(ValueError):
    """A command this engine refuses, with the reason to send back after ``err``."""


class EngineSession:
    """The state of one protocol conversation: the game, the options, and the commands."""

    def __init__(self, level: int = TOP_LEVEL, seed: int = 0) -> None:
        self.game: Game | None = None
        self.seed = seed
        self.level = level
        self.finished = False
        self._commands: dict[str, Callable[[str], list[str]]] = {
            "info": self._info,
            "options": self._options,
            "set": self._set,
            "newgame": self._newgame,
            "play": self._play,
            "undo": self._undo,
            "validmoves": self._validmoves,
            "bestmove": self._bestmove,
            "record": self._record,
            "status": self._status,
            "quit": self._quit,
        }

    def handle(self, line: str) -> list[str]:
        """The answer to one command line, ``ok`` included (no answer to an empty line)."""
        text = line.strip()
        if not text:
            return []
        word, _, rest = text.partition(" ")
        command = self._commands.get(word.lower())
        try:
            if command is None:
                raise ProtocolError(
                    f"unknown command {word!r}: expected one of {', '.join(self._commands)}"
                )
            answer = command(rest.strip())
        except (ProtocolError, IllegalMove, InvalidOption, InvalidRecord) as error:
            answer = [f"err {_one_line(str(error))}"]
        except Exception as error:  # a bug must not end the conversation: report it
            answer = [f"err internal error: {type(error).__name__}: {_one_line(str(error))}"]
        return [*answer, "ok"]

    def _need_game(self) -> Game:
        if self.game is None:
            raise ProtocolError("no game yet: start one with 'newgame players=2 seed=1'")
        return self.game

    def _info(self, rest: str) -> list[str]:
        _no_arguments("info", rest)
        return [f"name {ENGINE_NAME}", f"version {taluva.__version__}", f"protocol {PROTOCOL}"]

    def _options(self, rest: str) -> list[str]:
        _no_arguments("options", rest)
        return [
            f"option {name} type {kind} default {default} -- {text}"
            for name, (kind, default, text) in _OPTIONS.items()
        ]

    def _set(self, rest: str) -> list[str]:
        name, _, value = rest.partition(" ")
        value = value.strip()
        if name not in _OPTIONS:
            raise ProtocolError(f"unknown option {name!r}: options are {', '.join(_OPTIONS)}")
        if not _is_int(value):
            raise ProtocolError(f"option {name} takes a whole number, not {value!r}")
        if name == "level":
            if int(value) not in LEVELS:
                raise ProtocolError(f"level is {value}: choose from {min(LEVELS)} to {max(LEVELS)}")
            self.level = int(value)
        else:
            self.seed = int(value)
        return []

    def _newgame(self, rest: str) -> list[str]:
        if rest.startswith("{"):
            self.game = Game.from_record(rest)
            return []
        settings: dict[str, str] = {}
        for word in rest.split():
            key, sep, value = word.partition("=")
            if not sep or not value:
                raise ProtocolError(f"newgame: {word!r} is not KEY=VALUE")
            settings[key.lower()] = value
        allowed = {"players", "seed", "tiles_per_player", "expansions", "house_rules"}
        unknown = sorted(settings.keys() - allowed)
        if unknown:
            raise ProtocolError(
                f"newgame: unknown setting {unknown[0]!r}; settings are "
                + ", ".join(sorted(allowed))
            )
        players = settings.get("players", "2")
        if not _is_int(players):
            raise ProtocolError(f"newgame: players={players!r} is not a whole number")
        tiles = settings.get("tiles_per_player", "12")
        if not _is_int(tiles):
            raise ProtocolError(f"newgame: tiles_per_player={tiles!r} is not a whole number")
        seed: int | str | None = settings.get("seed")
        if isinstance(seed, str) and _is_int(seed):
            seed = int(seed)
        self.game = Game.new(
            players=int(players),
            seed=seed,
            tiles_per_player=int(tiles),
            expansions=_names(settings.get("expansions", "")),
            house_rules=_names(settings.get("house_rules", "")),
        )
        return []

    def _play(self, rest: str) -> list[str]:
        if not rest:
            raise ProtocolError("play: give a move, e.g. 'play tile 0,0 3'")
        self._need_game().play(Move.parse(rest))
        return []

    def _undo(self, rest: str) -> list[str]:
        _no_arguments("undo", rest)
        self._need_game().pop()
        return []

    def _validmoves(self, rest: str) -> list[str]:
        _no_arguments("validmoves", rest)
        return [";".join(str(m) for m in sorted(self._need_game().legal_moves(), key=str))]

    def _bestmove(self, rest: str) -> list[str]:
        game = self._need_game()
        if game.result is not None:
            raise ProtocolError("the game is over: there is no move to make")
        words = rest.split()
        agent: Agent
        if not words:
            agent = level_agent(self.level, self.seed)
        elif len(words) == 2 and words[0] == "iterations" and _is_int(words[1]):
            count = int(words[1])
            if not 1 <= count <= MAX_ITERATIONS:
                raise ProtocolError(f"bestmove: iterations from 1 to {MAX_ITERATIONS}")
            agent = MctsAgent(self.seed, iterations=count)
        elif len(words) == 2 and words[0] == "time" and _is_number(words[1]):
            seconds = float(words[1])
            if not 0 < seconds <= MAX_SECONDS:
                raise ProtocolError(
                    f"bestmove: time must be more than 0 and at most {MAX_SECONDS:g}"
                )
            agent = MctsAgent(self.seed, seconds=seconds)
        else:
            raise ProtocolError(
                f"bestmove: expected 'bestmove', 'bestmove iterations N' or "
                f"'bestmove time SECONDS', not 'bestmove {rest}'"
            )
        try:
            return [str(agent.choose(game.copy()))]
        finally:
            agent.close()

    def _record(self, rest: str) -> list[str]:
        _no_arguments("record", rest)
        return [json.dumps(self._need_game().to_record(), separators=(",", ":"))]

    def _status(self, rest: str) -> list[str]:
        _no_arguments("status", rest)
        game = self._need_game()
        result = "none" if game.result is None else json.dumps(dict(game.result))
        return [
            f"phase {game.phase} to_move {game.to_move} tile {game.tile or '-'} "
            f"ply {game.ply} tiles_left {game.tiles_left} result {result}"
        ]

    def _quit(self, rest: str) -> list[str]:
        self.finished = True
        return []


def serve(
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    level: int = TOP_LEVEL,
    seed: int = 0,
) -> int:
    """Answer protocol commands from ``stdin`` until it closes or ``quit``; return 0."""
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    session = EngineSession(level, seed)
    for line in stdin:
        answer = session.handle(line)
        if answer:
            stdout.write("\n".join(answer) + "\n")
            stdout.flush()
        if session.finished:
            break
    return 0


class EngineAgent(Agent):
    """An outside engine speaking the protocol, run as a subprocess and used as an agent.

    It is shown the visible game only: the record it gets has the hidden part of the pile
    re-guessed from the unseen tiles. An engine that takes longer than ``timeout`` seconds over
    one answer is stopped, and the move it owed raises RuntimeError (a forfeit in the arena).
    """

    def __init__(
        self,
        command: str,
        seed: int | None = None,
        budget: str = "",
        timeout: float | None = ENGINE_TIMEOUT,
    ) -> None:
        super().__init__(f"engine:{command}", seed)
        try:
            argv = shlex.split(command)
        except ValueError as error:
            raise ValueError(f"engine command {command!r}: {error}") from None
        if not argv:
            raise ValueError("the engine command is empty")
        self.budget = budget
        self.timeout = timeout
        try:
            self.process: subprocess.Popen[str] | None = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
        except OSError as error:
            raise ValueError(
                f"cannot start engine {command!r}: {error.strerror or error}"
            ) from None
        # a thread reads the answers, so that waiting for one can give up after the timeout
        self._answers: queue.Queue[str | None] = queue.Queue()
        assert self.process.stdout is not None
        threading.Thread(
            target=_pump, args=(self.process.stdout, self._answers), daemon=True
        ).start()
        self._ask(f"set seed {self.seed % 2**31}", check=False)

    def _ask(self, command: str, check: bool = True) -> list[str]:
        process = self.process
        if process is None or process.stdin is None:
            raise RuntimeError(f"{self.name}: the engine is closed")
        try:
            process.stdin.write(command + "\n")
            process.stdin.flush()
        except OSError as error:
            raise RuntimeError(f"{self.name}: cannot write to the engine ({error})") from None
        end = None if self.timeout is None else time.monotonic() + self.timeout
        lines = []
        while True:
            try:
                raw = self._answers.get(
                    timeout=None if end is None else max(0.0, end - time.monotonic())
                )
            except queue.Empty:
                self._kill()
                raise RuntimeError(
                    f"{self.name}: no answer to {command.split()[0]!r} within "
                    f"{self.timeout:g} s; the engine was stopped"
                ) from None
            if raw is None:
                raise RuntimeError(f"{self.name}: the engine stopped while answering {command!r}")
            line = raw.rstrip("\n")
            if line == "ok":
                break
            lines.append(line)
        if check and lines and lines[0].startswith("err"):
            raise RuntimeError(f"{self.name}: {command.split()[0]}: {lines[0][4:]}")
        return lines

    def choose(self, game: Game) -> Move:
        shown = game.redeal(random.Random(f"{self.seed}|{game.ply}"))
        self._ask("newgame " + json.dumps(shown.to_record(), separators=(",", ":")))
        answer = self._ask(f"bestmove {self.budget}".strip())
        if len(answer) != 1:
            raise RuntimeError(f"{self.name}: bestmove answered {answer!r}, expected one move")
        try:
            return Move.parse(answer[0])
        except IllegalMove as error:
            raise RuntimeError(f"{self.name}: bestmove answered {answer[0]!r}: {error}") from None

    def _kill(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            process.kill()
            process.wait()

    def close(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.write("quit\n")
                process.stdin.close()
            process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def _pump(stream: IO[str], answers: queue.Queue[str | None]) -> None:
    """Pass the engine's lines on until it closes its output (then None)."""
    try:
        for line in iter(stream.readline, ""):
            answers.put(line)
    except (OSError, ValueError):  # closed under us by close()
        pass
    answers.put(None)


def _no_arguments(command: str, rest: str) -> None:
    if rest:
        raise ProtocolError(f"{command} takes no arguments, got {rest!r}")


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _is_int(text: str) -> bool:
    return text.lstrip("+-").isdigit() and len(text) < 20


def _is_number(text: str) -> bool:
    try:
        value = float(text)
    except ValueError:
        return False
    return value == value and abs(value) != float("inf")


def _one_line(text: str) -> str:
    return " ".join(text.split())
