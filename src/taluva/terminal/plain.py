"""``taluva play --plain``: the game line by line, for scripts, screen readers and dumb terminals.

The board is drawn with ASCII characters, moves are typed in the notation of docs/notation.md,
and every message is a whole sentence. With AI seats only, the game plays to the end
without input and prints each move and the final ranking.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import TextIO

from taluva.ai.review import position_chances
from taluva.engine.errors import IllegalMove, InvalidRecord
from taluva.engine.wording import T
from taluva.lang import _, ngettext, say
from taluva.learn.guide import GuideError, load_guide
from taluva.terminal.guide_view import section_plain
from taluva.terminal.mapview import draw_map
from taluva.terminal.session import (
    SeatError,
    Session,
    ai_hint,
    chances_line,
    describe_position,
)
from taluva.terminal.words import decimal, error_words

LEGEND = T(
    "Each hex shows its terrain letter on top (V volcano, J jungle, C clearing, S sand, "
    "R rock, L lake), its coordinates, then its level and any piece: the owner's letter "
    "(a-e) followed by h hut, T temple, W tower or S ship. *** marks the hexes of the last "
    "turn."
)
"""How the text board is read (said in the player's language when shown)."""
COMMANDS = T("""\
Type a move in notation, or a command:
  tile Q,R K          place the drawn tile: volcano on Q,R, orientation K (0-5)
  draw                draw a tile (Double-Hex games) / double XY Q,R K  take a double-hex tile
  hut Q,R  expand TERRAIN Q,R ...  temple Q,R  tower Q,R  ship Q,R     build
  moves               list every legal move now
  board               draw the board again;  list  read every hex in words
  hint                ask the AI for a move;  undo  take back your last decision
  chances             turn on or off a line of each player's win chance after each move
  save PATH           save the game record;  load PATH  continue a saved game
  rules [SECTION]     how to play: a section of the rules (without SECTION, their list)
  help                this text;  quit  stop playing""")
"""The commands of the line mode; the command words themselves stay English, like moves."""


class PlainGame:
    """The line-mode loop: read a line, answer it, let the AI seats move."""

    def __init__(
        self,
        session: Session,
        read_line: Callable[[], str],
        out: TextIO,
        *,
        scale: int = 2,
        hint_level: int = 5,
        win_chance: bool = False,
    ) -> None:
        self.session = session
        self.read_line = read_line
        self.out = out
        self.scale = scale
        self.hint_level = hint_level
        self.win_chance = win_chance
        self.shown_ply = -1

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def run(self) -> int:
        """Play until the game ends (0), the player quits (0) or the input ends first (1)."""
        session = self.session
        person = _("person")
        seats = "; ".join(
            f"{session.player_label(i)}: {seat.spec or person}"
            for i, seat in enumerate(session.seats)
        )
        count = session.game.player_count
        self.say(
            ngettext(
                "Taluva, {n} player. {seats}.",
                "Taluva, {n} players. {seats}.",
                count,
                n=count,
                seats=seats,
            )
        )
        if session.has_humans:
            self.say(textwrap.fill(say(LEGEND), 100))
            self.say(_("Type 'help' for the commands."))
        while True:
            game = session.game
            if game.is_over:
                self.show_board()
                for line in session.result_lines():
                    self.say(line)
                return 0
            if session.ai_to_move:
                if not self.ai_turn():
                    return 1
                continue
            if game.ply != self.shown_ply:
                self.show_board()
                self.say(session.task() + ".")
            self.out.write("> ")
            self.out.flush()
            line = self.read_line()
            if not line:
                self.say()
                self.say(_("The input ended before the game was over."))
                return 1
            if self.answer(line.strip()) == "quit":
                self.say(_("Game left unfinished."))
                return 0

    def ai_turn(self) -> bool:
        session = self.session
        player = session.game.to_move
        try:
            move = session.choose_ai_move()
            session.play(move)
        except Exception as error:  # an AI failure must not lose the game on screen
            self.say(
                _(
                    "The AI of {player} failed: {error}",
                    player=session.player_label(player),
                    error=error_words(error),
                )
            )
            return False
        self.say(f"{session.game.ply}. {say(session.game.players[player])}: {move}")
        self.say_chances()
        return True

    def say_chances(self) -> None:
        """The win-chance line, when it is asked for and the game goes on."""
        game = self.session.game
        if self.win_chance and not game.is_over:
            self.say(chances_line(game.players, position_chances(game)) + ".")

    def show_board(self) -> None:
        session = self.session
        game = session.game
        self.shown_ply = game.ply
        self.say()
        if game.land():
            self.say(draw_map(game, scale=self.scale, ascii_only=True).text().strip("\n"))
        else:
            self.say(_("No tiles yet: the first tile goes with its volcano on 0,0."))
        for player in range(game.player_count):
            notes = _(" (eliminated)") if player in game.eliminated else ""
            if not game.is_over and player == game.to_move:
                notes += _(" (to move)")
            label, pieces = session.player_label(player), session.pieces_line(player)
            self.say(_("{player}: {pieces}", player=label, pieces=pieces) + notes)
        doubles = getattr(game, "doubles", ())
        if doubles:
            self.say(
                _(
                    "Ply {ply}, tiles left {tiles}, double-hex tiles face up: {doubles}.",
                    ply=game.ply,
                    tiles=game.tiles_left,
                    doubles=" ".join(doubles),
                )
            )
        else:
            self.say(_("Ply {ply}, tiles left {tiles}.", ply=game.ply, tiles=game.tiles_left))

    def answer(self, line: str) -> str | None:
        """Carry out one line of input; return ``"quit"`` to stop."""
        session = self.session
        word, _space, rest = line.partition(" ")
        command = word.lower()
        if not line:
            return None
        if command in ("quit", "exit", "q"):
            return "quit"
        if command in ("help", "?"):
            self.say(say(COMMANDS))
            self.say(textwrap.fill(say(LEGEND), 100))
        elif command == "board":
            self.show_board()
        elif command == "list":
            for text in describe_position(session.game):
                self.say(text)
        elif command == "moves":
            texts = sorted(str(move) for move in session.game.legal_moves())
            self.say(ngettext("{n} legal move:", "{n} legal moves:", len(texts), n=len(texts)))
            self.say(textwrap.fill("; ".join(texts), 100))
        elif command == "undo":
            try:
                taken = session.undo()
            except IllegalMove as error:
                self.say(_("Cannot undo: {reason}.", reason=error_words(error)))
            else:
                moves = ", ".join(str(m) for m in reversed(taken))
                self.say(_("Took back: {moves}.", moves=moves))
                self.shown_ply = -1
        elif command == "hint":
            try:
                move, value = ai_hint(session.game, self.hint_level)
            except IllegalMove as error:
                self.say(_("No hint: {reason}.", reason=error_words(error)))
            else:
                self.say(
                    _(
                        "Hint: {move} (the AI rates the position {value} for you).",
                        move=str(move),
                        value=decimal(value),
                    )
                )
        elif command == "chances":
            self.win_chance = not self.win_chance
            if self.win_chance:
                self.say(_("Win chances after each move: on."))
            else:
                self.say(_("Win chances after each move: off."))
            self.say_chances()
        elif command in ("save", "load"):
            self.file_command(command, rest.strip())
        elif command == "rules":
            self.rules_command(rest.strip())
        else:
            self.move_command(line)
        return None

    def file_command(self, command: str, path: str) -> None:
        session = self.session
        if not path:
            self.say(_("Which file? Type '{command} PATH'.", command=command))
            return
        try:
            if command == "save":
                self.say(_("Saved to {path}.", path=str(session.save(path))))
            else:
                session.load(path)
                self.say(_("Loaded {path} at ply {ply}.", path=path, ply=session.game.ply))
                self.shown_ply = -1
        except (InvalidRecord, SeatError) as error:
            if command == "save":
                self.say(_("Cannot save: {reason}", reason=error_words(error)))
            else:
                self.say(_("Cannot load: {reason}", reason=error_words(error)))

    def rules_command(self, name: str) -> None:
        """A section of the guide with its pictures as text boards, or the list of sections."""
        guide = load_guide()
        sections = guide.for_game(self.session.game.expansions)
        if not name:
            names = ", ".join(s.id for s in sections)
            self.say(_("Type 'rules SECTION' for one of: {sections}.", sections=names))
            return
        try:
            self.say(section_plain(guide.section(name.lower()), width=100).rstrip("\n"))
        except GuideError as error:
            self.say(error_words(error) + ".")

    def move_command(self, line: str) -> None:
        session = self.session
        player = session.game.to_move
        try:
            move = session.play(line)
        except IllegalMove as error:
            section = load_guide().section_for_move(session.game, line)
            reason = error_words(error)
            if section is None:
                self.say(
                    _(
                        "Not played: {reason}. Type 'moves' for the legal moves, 'help' for more.",
                        reason=reason,
                    )
                )
            else:
                self.say(
                    _(
                        "Not played: {reason}. Type 'moves' for the legal moves, 'rules "
                        "{section}' for the rule, 'help' for more.",
                        reason=reason,
                        section=section.id,
                    )
                )
            return

        self.say(f"{session.game.ply}. {say(session.game.players[player])}: {move}")
        self.say_chances()


def run_plain(
    session: Session, stdin: TextIO, stdout: TextIO, *, scale: int = 2, win_chance: bool = False
) -> int:
    """Play a session in line mode on the given streams; return the exit code."""
    return PlainGame(session, stdin.readline, stdout, scale=scale, win_chance=win_chance).run()
