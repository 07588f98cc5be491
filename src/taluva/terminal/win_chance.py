"""The optional win-chance bar of the terminal game: every player's winning chance in the
position on screen, as ``taluva review`` reckons it (``taluva.ai.review.position_chances``).

The full-screen game computes it in a worker thread after each change of position, so the
screen never waits for it; an answer about a position that changed meanwhile is dropped and
the current one is asked for. ``--plain`` prints it as a line after each move.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from rich.style import Style
from rich.text import Text
from textual.app import App

from taluva.ai.review import LIVE_ITERATIONS, position_chances
from taluva.engine.game import Game
from taluva.lang import _, say
from taluva.render import style
from taluva.terminal.session import percentages
from taluva.terminal.words import carried

BAR_WIDTH = 30
"""Characters of the bar in the side panel."""


def chances_text(players: Sequence[str], chances: Sequence[float], width: int = BAR_WIDTH) -> Text:
    """The bar split in the players' colours (each part as wide as its chance), then each
    player's chip, name and percentage: colour is never the only sign."""
    total = sum(chances) or 1.0
    text = Text(_("Win chances (w hides)") + "\n", "bold")
    used = 0
    for player, chance in enumerate(chances):
        cells = round(width * chance / total) if player < len(chances) - 1 else width - used
        cells = max(0, min(cells, width - used))
        used += cells
        text.append("█" * cells, Style(color=style.player_colour(player)))
    text.append("\n")
    for player, (name, share) in enumerate(zip(players, percentages(chances), strict=True)):
        colour = style.player_colour(player)
        chip = Style(color=style.contrast_text(colour), bgcolor=colour, bold=True)
        text.append(f" {'abcde'[player]} ", chip)
        text.append(f" {say(name)} {share}%  ")
    text.append("\n")
    return text


class Host(Protocol):
    """What the bar needs of the game screen: its app (for threads), the game, and a redraw."""

    @property
    def app(self) -> App[Any]: ...

    @property
    def game(self) -> Game: ...

    def refresh_view(self) -> None: ...


class WinChanceBar:
    """Whether the bar is on, the chances of the latest position computed, and the worker
    thread computing the next ones (one at a time)."""

    def __init__(self, host: Host, *, on: bool = False, iterations: int = LIVE_ITERATIONS) -> None:
        self.host = host
        self.on = on
        self.iterations = iterations
        self.token = 0
        """Counts the positions replaced under the thread (undo, load, a new game)."""
        self.known: tuple[tuple[int, int], tuple[float, ...]] | None = None
        """The latest position whose chances came, with them (empty if the AI failed)."""
        self.running = False

    def position(self) -> tuple[int, int]:
        """The position on screen: the replacements so far and the ply."""
        return self.token, self.host.game.ply

    def forget(self) -> None:
        """The position was replaced (undo, load, a new game): its chances are unknown."""
        self.token += 1
        self.known = None

    def toggle(self) -> None:
        """Show or hide the bar (asking for the chances when it is shown)."""
        self.on = not self.on
        self.follow()

    def follow(self) -> None:
        """After a change of position: start computing its chances if the bar is on."""
        game = self.host.game
        wanted = self.position()
        if not self.on or self.running or game.is_over:
            return
        if self.known is not None and self.known[0] == wanted:
            return
        self.running = True
        copy = game.copy()

        def work() -> None:
            try:
                found: tuple[float, ...] | None = position_chances(copy, self.iterations)
            except Exception:  # an AI failure leaves the bar empty, never the game broken
                found = None
            self.host.app.call_from_thread(self.done, wanted, found)

        self.host.app.run_worker(carried(work), thread=True, group="chances", exit_on_error=False)

    def done(self, position: tuple[int, int], found: tuple[float, ...] | None) -> None:
        """Interface thread: keep the answer if it is about the position on screen, else ask
        for the current one."""
        self.running = False
        if position == self.position():
            self.known = (position, () if found is None else found)
            self.host.refresh_view()
        else:
            self.follow()

    def text(self) -> Text | None:
        """What the side panel shows: None when the bar is off or the game is over."""
        game = self.host.game
        if not self.on or game.is_over:
            return None
        if self.known is None:
            return Text(_("Win chances (w hides)") + "\n" + _("computing…") + "\n", "bold")
        # Until the chances of a new position come, those of the one before stay on screen.
        chances = self.known[1]
        if not chances:
            failed = _("the AI failed to estimate them")
            return Text(_("Win chances (w hides)") + "\n" + failed + "\n", "bold")

        return chances_text(game.players, chances)
