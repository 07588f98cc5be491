"""The AI at work in worker threads, so the screen never freezes: the AI seats' turns (each
move then stays on screen for a short pause) and a person's hints. An answer about a
position that changed meanwhile (undo, load, a new game) is dropped.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any, Protocol

from textual.app import App
from textual.timer import Timer

from taluva.engine.errors import IllegalMove
from taluva.engine.game import Game
from taluva.engine.moves import Move
from taluva.lang import _
from taluva.terminal.pointer import Pointer
from taluva.terminal.session import Session, ai_hint
from taluva.terminal.words import carried, decimal, error_words


class Host(Protocol):
    """What the AI's turns and hints need of the game screen: its app (for threads and
    timers), its pointer, and to speak, redraw and look at the position again."""

    @property
    def app(self) -> App[Any]: ...

    pointer: Pointer
    settled: asyncio.Event

    def say(self, text: str, kind: str = "") -> None: ...

    def refresh_view(self) -> None: ...

    def after_change(self) -> None: ...


class AiTurns:
    """Plays the AI seats of a session (the agent thinks in a worker thread, its move is
    played on the interface thread and stays on screen for ``delay`` seconds) and asks the
    AI of ``hint_level`` for hints."""

    def __init__(self, host: Host, session: Session, *, delay: float, hint_level: int) -> None:
        self.host = host
        self.session = session
        self.delay = delay
        self.hint_level = hint_level
        self.token = 0
        """Counts the changes of position under the threads (undo, load, new game)."""
        self.running = False
        self.paused = False
        self.timer: Timer | None = None

    def forget(self) -> None:
        """Forget any AI move being computed or waiting: the position changed under it."""
        self.token += 1
        if self.timer is not None:
            self.timer.stop()
            self.timer = None

    # ------------------------------------------------------------------ the AI seats

    def take_turn(self) -> None:
        """Start the AI to move thinking, unless it already is or is paused."""
        if self.running or self.paused or not self.session.ai_to_move:
            return
        self.running = True
        token = self.token
        game = self.session.game.copy()
        self.host.refresh_view()
        work = carried(partial(self.think, token, game))
        self.host.app.run_worker(work, thread=True, group="ai", exit_on_error=False)

    def think(self, token: int, game: Game) -> None:
        """Worker thread: ask the AI, then hand the move back to the interface thread."""
        error: Exception | None = None
        move: Move | None = None
        try:
            move = self.session.choose_ai_move(game)
        except Exception as failure:  # shown on screen: an AI bug must not kill the game
            error = failure
        self.host.app.call_from_thread(self.done, token, move, error)

    def done(self, token: int, move: Move | None, error: Exception | None) -> None:
        """Interface thread: play the AI's move and show it for a pause (or stop on error)."""
        host = self.host
        self.running = False
        if token != self.token:
            host.after_change()  # the position changed meanwhile (undo, load): think again
            return
        if error is not None or move is None:
            reason = "" if error is None else error_words(error)
            self.stop(_("The AI failed: {reason}. Undo, load or quit.", reason=reason))
            return
        try:
            self.session.play(move)
        except IllegalMove as failure:
            self.stop(_("The AI chose an illegal move: {reason}", reason=error_words(failure)))
            return
        player = self.session.game.players[self._mover_of_last()]
        host.say(_("{player} played {move}.", player=player, move=str(move)))
        if self.session.ai_to_move and self.delay > 0:
            host.refresh_view()
            self.timer = host.app.set_timer(self.delay, self.after_pause)
        else:
            if not self.session.ai_to_move:
                host.pointer.reset()
            host.after_change()

    def after_pause(self) -> None:
        self.timer = None
        self.host.after_change()

    def stop(self, text: str) -> None:
        """Pause the AI seats and wait for a person to undo, load or quit."""
        self.paused = True
        self.host.say(text, "bold red")
        self.host.refresh_view()
        self.host.settled.set()

    def _mover_of_last(self) -> int:
        probe = self.session.game.copy()
        probe.pop()
        return probe.to_move

    # ------------------------------------------------------------------ hints

    def hint(self) -> None:
        """Ask the AI for a move for the person about to place a tile or build; the ghost
        (or the cursor) goes there when it answers."""
        host, pointer = self.host, self.host.pointer
        if not pointer.human_turn or (pointer.drawing_choice() and pointer.double is None):
            host.say(_("A hint is for a person about to place a tile or build."))
            host.refresh_view()
            return
        host.say(_("Asking the AI for a hint…"))
        host.refresh_view()
        token = self.token
        game = self.session.game.copy()

        def work() -> None:
            try:
                move, value = ai_hint(game, self.hint_level)
            except Exception as error:  # shown on screen
                host.app.call_from_thread(self.hint_done, token, None, 0.0, error_words(error))
            else:
                host.app.call_from_thread(self.hint_done, token, move, value, "")

        host.app.run_worker(carried(work), thread=True, group="hint", exit_on_error=False)

    def hint_done(self, token: int, move: Move | None, value: float, error: str) -> None:
        host = self.host
        if token != self.token or not host.pointer.human_turn:
            return
        if move is None:
            host.say(_("No hint: {reason}", reason=error), "red")
        else:
            host.pointer.follow_hint(move)
            words = _(
                "Hint: {move} (AI rates your position {value})",
                move=str(move),
                value=decimal(value),
            )
            host.say(words, "bold magenta")

        host.refresh_view()
