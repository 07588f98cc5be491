"""A game with its seats: who sits where (people or AI), asking the AI, undo, save and load,
a new game.

Both the full-screen app and the ``--plain`` line mode play through a Session, so they agree
on what ``undo`` takes back and how seats and records fit together.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from taluva.ai import Agent, hint, make_agent
from taluva.ai.levels import LEVELS
from taluva.engine.errors import IllegalMove, InvalidRecord
from taluva.engine.game import Game
from taluva.engine.hexes import format_hex
from taluva.engine.moves import Move
from taluva.engine.options import PLAYER_COUNTS, player_count_range
from taluva.engine.outcome import YOU
from taluva.engine.tiles import TERRAIN_LETTERS
from taluva.engine.wording import T
from taluva.lang import _, ngettext, say
from taluva.render.position import ships_of
from taluva.render.style import PLAYER_COLOUR_NAMES
from taluva.terminal.words import piece_of, terrain_word

DEFAULT_AI: Final = "level:3"


class SeatError(ValueError):
    """A ``--players`` text that names no valid set of seats."""


@dataclass(frozen=True, slots=True)
class Seat:
    """One player's seat: a person (``spec`` empty) or an AI with an agent spec."""

    name: str
    spec: str = ""

    @property
    def is_ai(self) -> bool:
        return bool(self.spec)

    def describe(self) -> str:
        """``Ana (person)`` or ``AI 3 (level:3)``."""
        if self.spec:
            return f"{self.name} ({self.spec})"
        return _("{name} (person)", name=self.name)


def parse_seats(text: str) -> list[Seat]:
    """Read ``--players``: a comma-separated list of ``human[:NAME]`` and ``ai[:SPEC]``.

    SPEC is a level of ``LEVELS`` (``ai:3``) or any agent spec of ``taluva.ai.make_agent``
    (``ai:random``, ``ai:mcts:iterations=200``); ``ai`` alone is level 3.

    >>> [seat.describe() for seat in parse_seats("human,ai:5")]
    ['You (person)', 'AI 2 (level:5)']
    """
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or any(not item for item in items):
        raise SeatError(
            T(
                "--players {text}: expected seats such as 'human,ai:3' (no empty ones)",
                text=repr(text),
            )
        )
    if len(items) not in PLAYER_COUNTS:
        raise SeatError(
            T(
                "--players {text} names {seats} seats: Taluva is for {range}",
                text=repr(text),
                seats=str(len(items)),
                range=player_count_range(),
            )
        )
    humans = sum(1 for item in items if item.split(":")[0].lower() == "human")
    seats = []
    for index, item in enumerate(items):
        kind, _colon, rest = item.partition(":")
        kind = kind.lower()
        if kind == "human":
            # the Text itself: said in the player's language, and the headline says "You win"
            default = YOU if humans == 1 else _("Player {number}", number=index + 1)
            seats.append(Seat(rest.strip() or default))
        elif kind == "ai":
            spec = _agent_spec(rest.strip(), item)
            seats.append(Seat(_("AI {number}", number=index + 1), spec))
        else:
            raise SeatError(
                T(
                    "--players: seat {number} is {item}; each seat is 'human', 'human:NAME', "
                    "'ai', 'ai:LEVEL' ({lowest}-{highest}) or 'ai:SPEC' (random, greedy, "
                    "mcts:...)",
                    number=str(index + 1),
                    item=repr(item),
                    lowest=str(min(LEVELS)),
                    highest=str(max(LEVELS)),
                )
            )
    return seats


def _agent_spec(rest: str, item: str) -> str:
    if not rest:
        return DEFAULT_AI
    if rest.isdigit():
        if int(rest) not in LEVELS:
            raise SeatError(
                T(
                    "--players: {item}: AI levels go from {lowest} to {highest}",
                    item=repr(item),
                    lowest=str(min(LEVELS)),
                    highest=str(max(LEVELS)),
                )
            )
        return f"level:{rest}"
    return rest


def make_agents(seats: Sequence[Seat], seed: int | None) -> dict[int, Agent]:
    """An agent for each AI seat, seeded per seat so a seeded game replays the same."""
    agents: dict[int, Agent] = {}
    for index, seat in enumerate(seats):
        if seat.is_ai:
            try:
                agents[index] = make_agent(seat.spec, None if seed is None else seed + index)
            except ValueError as error:
                raise SeatError(
                    T(
                        "--players: seat {number} ({spec}): {error}",
                        number=str(index + 1),
                        spec=seat.spec,
                        error=error.args[0] if len(error.args) == 1 else str(error),
                    )
                ) from None
    return agents


def ai_hint(game: Game, level: int = 5) -> tuple[Move, float]:
    """The AI's suggestion for the side to move and its evaluation in [0, 1]."""
    move, value = hint(game.copy(), level)
    return move, float(value)


class Session:
    """A game, its seats and their agents."""

    def __init__(self, game: Game, seats: Sequence[Seat], seed: int | None = None) -> None:
        if len(seats) != game.player_count:
            raise SeatError(
                T(
                    "the game has {players} players but {seats} seats were given",
                    players=str(game.player_count),
                    seats=str(len(seats)),
                )
            )
        self.game = game
        self.seats = list(seats)
        self.seed = seed
        self.agents = make_agents(self.seats, seed)

    # ---------------------------------------------------------------- whose turn

    @property
    def seat(self) -> Seat:
        """The seat of the player to move."""
        return self.seats[self.game.to_move]

    @property
    def ai_to_move(self) -> bool:
        """Whether an AI must move now."""
        return not self.game.is_over and self.seat.is_ai

    @property
    def has_humans(self) -> bool:
        return any(not seat.is_ai for seat in self.seats)

    def choose_ai_move(self, game: Game | None = None) -> Move:
        """The move the AI to move picks (slow: call it off the interface's thread)."""
        game = game or self.game
        return self.agents[game.to_move].choose(game.copy())

    def player_label(self, player: int) -> str:
        """``Ana (red, a)``: a name with the colour and letter the board uses."""
        colour = PLAYER_COLOUR_NAMES[player % len(PLAYER_COLOUR_NAMES)]
        return _(
            "{name} ({colour}, {letter})",
            name=self.game.players[player],
            colour=colour_word(colour),
            letter="abcde"[player],
        )

    # ---------------------------------------------------------------- changing the game

    def play(self, move: Move | str) -> Move:
        """Play a move or move text; raise IllegalMove with the rule that forbids it."""
        game = self.game
        if game.is_over:
            raise IllegalMove(T("the game is over: start a new one, undo or load a record"))
        parsed = Move.parse(move) if isinstance(move, str) else move
        reason = game.explain(parsed)
        if reason is not None:
            raise IllegalMove(T("{move}: {reason}", move=str(parsed), reason=reason))
        game.play(parsed)
        return game.moves[-1]

    def undo(self) -> list[Move]:
        """Take back moves up to and including the last decision of a person (one move if
        every seat is an AI); return the moves taken back, latest first."""
        game = self.game
        if game.ply == 0:
            raise IllegalMove(T("there is nothing to undo: no move has been played"))
        if not self.has_humans:
            return [game.pop()]
        probe = game.copy()
        count = 0
        while probe.ply > 0:
            probe.pop()
            count += 1
            if not self.seats[probe.to_move].is_ai:
                return [game.pop() for _taken in range(count)]
        raise IllegalMove(T("there is nothing to undo: no person has moved yet"))

    def save(self, path: str | Path) -> Path:
        """Write the game record; raise InvalidRecord naming the file if it cannot be written."""
        target = Path(path).expanduser()
        try:
            self.game.save(target)
        except OSError as error:
            raise InvalidRecord(
                T(
                    "{path}: cannot write ({reason})",
                    path=str(target),
                    reason=error.strerror or str(error),
                )
            ) from None
        return target

    def load(self, path: str | Path) -> None:
        """Replace the game by a saved record with the same number of players."""
        game = Game.load(Path(path).expanduser())
        if game.player_count != len(self.seats):
            raise InvalidRecord(
                T(
                    "{path}: the record has {players} players but this game has {seats} seats "
                    "(start it with --load and matching --players)",
                    path=str(path),
                    players=str(game.player_count),
                    seats=str(len(self.seats)),
                )
            )
        self.game = game

    def new_game(self) -> None:
        """Start again with the same seats and options and the next seed: a new shuffle, and
        agents seeded afresh."""
        old = self.game
        options = old.options
        seed = (self.seed or 0) + 1
        self.game = Game.new(
            players=list(old.players),
            seed=seed,
            tiles_per_player=options["tiles_per_player"],
            expansions=options["expansions"],
            house_rules=options["house_rules"],
        )
        self.seed = seed
        self.agents = make_agents(self.seats, seed)

    # ---------------------------------------------------------------- describing

    def pieces_line(self, player: int) -> str:
        """``placed 0 temples, 0 towers, 1 hut; left 3 temples, 2 towers, 19 huts`` (ships
        with the Ships expansion)."""
        placed, left = pieces_in_words(self.game, player)
        return _("placed {placed}; left {left}", placed=placed, left=left)

    def result_lines(self) -> list[str]:
        """The end in the engine's words: who won and why, then each place with the pieces
        placed (``Game.result_in_words``); raise ValueError while the game runs."""
        headline, lines = self.game.result_in_words()
        return [say(headline), *(say(line) for line in lines)]

    def task(self) -> str:
        """What the player to move must do now, in words."""
        game = self.game
        if game.is_over:
            return _("The game is over.")
        who = self.player_label(game.to_move)
        if game.phase == "tile":
            if game.tile is None:
                return _(
                    "{player}: draw a tile or take a double-hex tile ({tiles})",
                    player=who,
                    tiles=" ".join(game.doubles),
                )
            return _("{player}: place the tile {tile}", player=who, tile=tile_words(game.tile))
        if "ships" in game.options.get("expansions", []):
            return _("{player}: build (hut, expansion, temple, tower, ship)", player=who)
        return _("{player}: build (hut, expansion, temple, tower)", player=who)


def colour_word(colour: str) -> str:
    """A player's colour (one of the board's) by name in the player's language."""
    word = COLOUR_WORDS.get(colour)
    return colour if word is None else say(word)


COLOUR_WORDS: Final = {
    "red": T("red"),
    "white": T("white"),
    "purple": T("purple"),
    "orange": T("orange"),
    "black": T("black"),
}
"""The board's player colours (``PLAYER_COLOUR_NAMES``) by name."""


def pieces_in_words(game: Game, player: int) -> tuple[str, str]:
    """A player's pieces placed and pieces left, in the order that ranks players.

    >>> pieces_in_words(Game.new(players=2), 0)
    ('0 temples, 0 towers, 0 huts', '3 temples, 2 towers, 20 huts')
    """
    kinds = ["temples", "towers", "huts"]
    if "ships" in game.options.get("expansions", []):
        kinds.append("ships")
    placed, left = game.placed(player), game.supply(player)
    return (
        ", ".join(count(placed[kind], kind) for kind in kinds),
        ", ".join(count(left[kind], kind) for kind in kinds),
    )


def count(number: int, plural: str) -> str:
    """``1 hut``, ``2 huts``.

    >>> count(1, "temples"), count(0, "towers")
    ('1 temple', '0 towers')
    """
    if plural == "temples":
        return ngettext("{n} temple", "{n} temples", number, n=number)
    if plural == "towers":
        return ngettext("{n} tower", "{n} towers", number, n=number)
    if plural == "ships":
        return ngettext("{n} ship", "{n} ships", number, n=number)
    return ngettext("{n} hut", "{n} huts", number, n=number)


def tile_words(code: str, double: bool = False) -> str:
    """``JC (volcano, jungle, clearing)``: a tile code with its terrains spelled out
    (a double-hex code such as ``VL`` names both of its hexes)."""
    letters = code if double else "V" + code
    names = ", ".join(terrain_word(TERRAIN_LETTERS.index(c)) for c in letters)
    return f"{code} ({names})"


def describe_position(game: Game, labels: Sequence[str] | None = None) -> list[str]:
    """Every hex of the island in words, for screen readers: ``0,0 volcano level 1``."""
    names = list(labels or game.players)
    lines = []
    for hex_ in game.land():
        text = _(
            "{hex} {terrain} level {level}",
            hex=format_hex(hex_),
            terrain=terrain_word(game.terrain(hex_) or 0),
            level=game.level(hex_),
        )
        piece = game.building(hex_)
        if piece is not None:
            text += ", " + piece_of(piece[1], say(names[piece[0]]))
        lines.append(text)
    for hex_, owner in sorted(ships_of(game).items()):
        lines.append(_("{hex} lagoon, ship of {player}", hex=format_hex(hex_), player=names[owner]))
    return lines


def percentages(chances: Sequence[float]) -> list[int]:
    """Whole percentages of chances in [0, 1]; chances that add up to one give percentages
    that add up to 100 (largest remainders first), so two players never read 63% and 38%.

    >>> percentages([0.625, 0.375]), percentages([0.5, 0.25, 0.75])
    ([63, 37], [50, 25, 75])
    """
    raw = [min(1.0, max(0.0, c)) * 100 for c in chances]
    if abs(sum(raw) - 100) > 1:
        return [math.floor(value + 0.5) for value in raw]
    out = [math.floor(value) for value in raw]
    order = sorted(range(len(raw)), key=lambda seat: out[seat] - raw[seat])
    for seat in order[: 100 - sum(out)]:
        out[seat] += 1
    return out


def chances_line(players: Sequence[str], chances: Sequence[float]) -> str:
    """``Win chances: Ana 52%, Ben 48%``: the win-chance bar in words (``--plain``)."""
    shares = percentages(chances)
    each = ", ".join(
        _("{player} {percent}%", player=n, percent=s) for n, s in zip(players, shares, strict=True)
    )
    return _("Win chances: {chances}", chances=each)
