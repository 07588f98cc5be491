"""The game: the public face of the engine, a position with its history.

``Game`` reads the position for its callers and hands moves to the rules (``rules/``,
``expansions/``); it holds no rule itself. ``play`` checks a move, ``push``/``pop`` make and
unmake one without checking (for search and perft), ``copy`` is cheap: positions are shared,
never changed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from taluva.engine.errors import IllegalMove, InvalidOption, InvalidRecord
from taluva.engine.expansions import ships as ships_rules
from taluva.engine.expansions.catalogue import make_setup
from taluva.engine.expansions.double_hex import checked_doubles, shuffled_doubles
from taluva.engine.moves import EXPAND, HUT, Move
from taluva.engine.options import Options, player_names
from taluva.engine.outcome import Outcome, Reason, Resignation, result_in_words
from taluva.engine.pieces import BUILDING_NAMES, PIECE_NAMES, starting_supply
from taluva.engine.position import OVER, Phase, Position, Setup
from taluva.engine.record import (
    make_record,
    read_record,
    read_record_file,
    write_record_file,
)
from taluva.engine.refusals import in_record, refusal, refused_move
from taluva.engine.rules import building, ending, resignation, turns
from taluva.engine.rules.effects import MoveEffect, move_effect
from taluva.engine.rules.settlements import settlements_of
from taluva.engine.text_board import board_text
from taluva.engine.tiles import check_deck, shuffled_deck, tile_set
from taluva.engine.wording import Text


class Game:
    """A game of Taluva in progress: the position, its history and the options it was set up with.

    >>> game = Game.new(players=2, deck=["JC", "SR", "LL"])
    >>> game.phase, game.to_move, game.tile
    ('tile', 0, 'JC')
    >>> game.play("tile 0,0 0")
    >>> sorted(str(move) for move in game.legal_moves())
    ['hut 1,-1', 'hut 1,0']
    """

    __slots__ = ("_history", "_position")

    def __init__(self, setup: Setup) -> None:
        """Start a game from a checked setup; use ``Game.new`` or ``Game.from_record``."""
        position = Position.empty(setup, starting_supply(setup.options.ships))
        turns.start_turn(position, 0)
        self._position = position
        self._history: list[tuple[Position, Move]] = []

    @classmethod
    def new(
        cls,
        players: int | Sequence[str] = 2,
        seed: int | str | None = None,
        deck: Sequence[str] | None = None,
        tiles_per_player: int = 12,
        expansions: Iterable[str] = (),
        house_rules: Iterable[str] = (),
        doubles: Sequence[str] | None = None,
    ) -> Game:
        """Start a game for a number of players in ``PLAYER_COUNTS`` (a count or their names).

        The draw pile (and, with Double-Hex tiles, the face-up double-hex tiles) are shuffled
        from ``seed`` unless ``deck`` (draw order) and ``doubles`` give them. Raises
        InvalidOption for options that do not exist or do not fit together.
        """
        names = player_names(players)
        count = len(names)
        options = Options.new(count, tiles_per_player, expansions, house_rules)
        rng = random.Random(seed)
        if deck is None:
            deck = shuffled_deck(count, tiles_per_player, rng, options.all_tiles)
        else:
            try:
                deck = check_deck(deck, count)
            except ValueError as error:
                raise InvalidOption(*error.args) from None
        if not options.double_hex:
            if doubles:
                raise InvalidOption(refusal("doubles-need-expansion"))
            doubles = ()
        elif doubles is None:
            doubles = shuffled_doubles(count, rng)
        else:
            doubles = checked_doubles(doubles, count)
        return cls(make_setup(names, options, tuple(deck), tuple(doubles)))

    # ----------------------------------------------------------------- the setup

    @property
    def position(self) -> Position:
        """The current position: an immutable snapshot the rules functions read."""
        return self._position

    @property
    def players(self) -> tuple[str, ...]:
        """The players' names, in seat order."""
        return self._position.setup.players

    @property
    def player_count(self) -> int:
        """Number of seats, eliminated players included."""
        return self._position.setup.player_count

    @property
    def options(self) -> dict[str, Any]:
        """The record's ``options`` object."""
        return self._position.setup.options.to_json()

    @property
    def deck(self) -> tuple[str, ...]:
        """The whole draw pile in draw order (what a record stores)."""
        return self._position.setup.deck

    @property
    def expansions(self) -> tuple[str, ...]:
        """The expansions this game plays with (``ships``, ``double_hex``, ``board:<zone>``)."""
        return self._position.setup.options.expansions

    @property
    def zone(self) -> str | None:
        """Name of the board zone the island must grow in (Game Board expansion), or None."""
        return self._position.setup.options.zone

    @property
    def face_up_doubles(self) -> tuple[str, ...]:
        """The double-hex tiles laid face up at setup (what a record stores)."""
        return self._position.setup.doubles

    # ----------------------------------------------------------------- the turn

    @property
    def phase(self) -> Phase:
        """``"tile"``, ``"build"`` or ``"over"`` (a ``Phase``, equal to its text)."""
        return self._position.phase

    @property
    def to_move(self) -> int:
        """Index of the player whose turn it is."""
        return self._position.to_move

    @property
    def tile(self) -> str | None:
        """The drawn tile waiting to be placed, or None outside the tile phase."""
        return self._position.tile

    @property
    def result(self) -> Outcome | None:
        """None while the game runs; then the outcome (equal to the record's result object)."""
        return self._position.result

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self._position.phase == OVER

    @property
    def moves(self) -> list[Move]:
        """Every move played so far."""
        return [move for _, move in self._history]

    def effects(self, start: int = 0) -> list[MoveEffect]:
        """What each move from ply ``start`` on did: the level a tile reached, the huts a
        build placed, the huts an eruption destroyed (``rules.effects.move_effect``). Read
        from the positions kept before and after each move: nothing is played again."""
        history = self._history
        afters = [position for position, _ in history[start + 1 :]]
        afters.append(self._position)
        return [
            move_effect(before, move, after)
            for (before, move), after in zip(history[start:], afters, strict=False)
        ]

    @property
    def ply(self) -> int:
        """Number of moves played."""
        return len(self._history)

    @property
    def tiles_left(self) -> int:
        """Tiles still in the draw pile (the drawn tile is no longer in it)."""
        return self._position.pile_left

    @property
    def eliminated(self) -> tuple[int, ...]:
        """Players out of the game (who could not build, resigned or ran out of time), in the
        order they left it."""
        return self._position.eliminated

    @property
    def resignations(self) -> tuple[Resignation, ...]:
        """The players who resigned or ran out of time, in order, each with the ply it
        happened at (what a record's ``resignations`` stores)."""
        return self._position.resignations

    def resign(self, player: int | str, reason: Reason | str = Reason.RESIGNED) -> None:
        """Take ``player`` (a seat or a name) out of the game now, whoever is to move:
        ``"resigned"``, ``"timeout"`` for a clock that ran out, or ``"left"`` for a player
        gone on their turn until the others claimed the win (docs/rules.md, ruling 22).
        Not a move: ``pop`` takes it back with the move before it. Raise IllegalMove and
        change nothing if the player is unknown or out, or the game is over."""
        if isinstance(player, str):
            if player not in self.players:
                raise IllegalMove(refusal("no-player-named", name=repr(player)))
            player = self.players.index(player)
        self._position = resignation.resign(self._position, player, reason, len(self._history))

    def result_in_words(self) -> tuple[Text, list[str]]:
        """The end in words: who won and why, then each player's place and pieces placed
        (``outcome.result_in_words``, each a ``Text``); raise ValueError while the game runs."""
        result = self._position.result
        if result is None:
            raise ValueError("the game is not over")
        position = self._position
        ships = position.setup.options.ships
        left = {r.player: r.reason for r in position.resignations}
        return result_in_words(result, self.players, position.supply, ships, self.eliminated, left)

    # ----------------------------------------------------------------- the players' pieces

    def supply(self, player: int) -> dict[str, int]:
        """Pieces a player still holds: ``{"huts": n, "temples": n, "towers": n, "ships": n}``."""
        return dict(zip(PIECE_NAMES, self._position.supply[player], strict=True))

    def placed(self, player: int) -> dict[str, int]:
        """Pieces a player has put on the board, destroyed huts included (they count as
        placed): ``{"huts": n, "temples": n, "towers": n, "ships": n}``."""
        start = starting_supply(self._position.setup.options.ships)
        left = self._position.supply[player]
        return {name: start[kind] - left[kind] for kind, name in enumerate(PIECE_NAMES)}

    def destroyed_huts(self, player: int) -> int:
        """Huts of a player destroyed by eruptions (they count as placed)."""
        return self._position.destroyed[player]

    def score(self, player: int) -> int:
        """Board Game Arena's score: 1000 a temple, 100 a tower, 1 a hut placed."""
        return ending.score(self._position.supply[player])

    @property
    def doubles(self) -> tuple[str, ...]:
        """Face-up double-hex tiles still to be taken (Double-Hex expansion)."""
        return self._position.doubles_left

    def doubles_taken(self, player: int) -> int:
        """How many double-hex tiles a player has taken (at most two)."""
        return self._position.doubles_taken[player]

    # ----------------------------------------------------------------- the island

    def level(self, hex_: int) -> int:
        """Number of tiles stacked on a hex (0 for sea)."""
        return self._position.level.get(hex_, 0)

    def terrain(self, hex_: int) -> int | None:
        """Terrain of the top tile on a hex, None for sea."""
        return self._position.terrain.get(hex_)

    def heights(self) -> Mapping[int, int]:
        """Every land hex with its level: a read-only view of this position, for reading the
        board fast in a search (it keeps showing this position after later moves)."""
        return MappingProxyType(self._position.level)

    def terrains(self) -> Mapping[int, int]:
        """Every land hex with the terrain code of its top tile (``tiles.VOLCANO`` is 0), a
        read-only view of this position like ``heights``."""
        return MappingProxyType(self._position.terrain)

    def tile_indexes(self) -> Mapping[int, int]:
        """Every land hex with the placement index of its top tile, a read-only view of this
        position like ``heights``."""
        return MappingProxyType(self._position.tile_at)

    def buildable(self) -> frozenset[int]:
        """The hexes a building could stand on now: land, not a volcano, no piece on it."""
        return self._position.free

    def tile_index(self, hex_: int) -> int | None:
        """Placement index of the top tile on a hex (for drawing tile outlines), None for sea."""
        return self._position.tile_at.get(hex_)

    def building(self, hex_: int) -> tuple[int, str] | None:
        """``(player, "hut" | "temple" | "tower")`` on a hex, or None."""
        piece = self._position.building.get(hex_)
        return None if piece is None else (piece >> 2, BUILDING_NAMES[piece & 3])

    def land(self) -> list[int]:
        """Every hex of the island, sorted."""
        return sorted(self._position.level)

    def buildings(self) -> dict[int, tuple[int, str]]:
        """Every building: hex to ``(player, kind)``."""
        return {h: (p >> 2, BUILDING_NAMES[p & 3]) for h, p in self._position.building.items()}

    def settlements(self, player: int) -> list[frozenset[int]]:
        """A player's settlements, each the set of its hexes, ordered by lowest hex."""
        return list(settlements_of(self._position, player))

    def ships(self) -> dict[int, int]:
        """Every ship: the lowest hex of its lagoon mapped to its owner."""
        return dict(self._position.ships)

    def ship_at(self, hex_: int) -> int | None:
        """Owner of the ship in the lagoon containing ``hex_``, or None."""
        lagoon = ships_rules.lagoon_of(self._position, hex_)
        return None if lagoon is None else self._position.ships.get(min(lagoon))

    def lagoons(self) -> list[frozenset[int]]:
        """Sea areas the island encloses completely, ordered by lowest hex (Ships expansion)."""
        return list(ships_rules.lagoons(self._position))

    # ----------------------------------------------------------------- moves

    def legal_moves(self) -> list[Move]:
        """Every legal move of the current phase, each exactly once (empty when it is over)."""
        return list(turns.legal_moves(self._position))

    def random_move(self, rng: random.Random) -> Move:
        """A random legal move, much quicker than choosing from ``legal_moves()``.

        Not uniform: it tries random spots near random land hexes, for playouts.
        """
        return turns.random_move(self._position, rng)

    def is_legal(self, move: Move | str) -> bool:
        """Whether a move (or move text) may be played now."""
        try:
            return turns.legal_form(self._position, _as_move(move)) is not None
        except IllegalMove:
            return False

    def huts_placed(self, move: Move | str) -> int:
        """The huts a legal build of huts (a settlement founded, an expansion) would place
        now: one per level of each of its hexes; 0 for any other move."""
        move = _as_move(move)
        if move.kind not in (HUT, EXPAND):
            return 0
        return building.huts_needed(self._position, move.hexes or (move.hex,))

    def explain(self, move: Move | str) -> Text | None:
        """Why a move may not be played now, in words (a refusal with its code and values:
        docs/engine.md, "Refusals"), or None if it may."""
        try:
            parsed = _as_move(move)
        except IllegalMove as error:
            return error.text
        if turns.legal_form(self._position, parsed) is not None:
            return None
        return turns.why_illegal(self._position, parsed)

    def play(self, move: Move | str) -> None:
        """Play a move or move text; raise IllegalMove (naming the rule) and change nothing if
        it is not legal here.

        The position left behind forgets its list of legal moves (found again if the game is
        taken back to it): a game played to its end keeps one list, not one per move, which
        is most of what a server holding hundreds of games would otherwise keep and scan."""
        position = self._position
        if move is not position.sampled:
            parsed = move if type(move) is Move else _as_move(move)
            legal = turns.legal_form(position, parsed)
            if legal is None:
                raise IllegalMove(refused_move(move, turns.why_illegal(position, parsed)))
            move = legal
        self._history.append((position, move))  # push, inlined: playouts go through here
        self._position = turns.apply(position, move)
        position.tile_moves = position.builds = None

    def push(self, move: Move) -> None:
        """Play a move from ``legal_moves()`` or ``random_move()`` without checking it: the
        fast make of search and perft (``pop`` unmakes it). An illegal move corrupts the game."""
        self._history.append((self._position, move))
        self._position = turns.apply(self._position, move)

    def pop(self) -> Move:
        """Take back the last move and return it."""
        if not self._history:
            raise IllegalMove(refusal("nothing-to-take-back"))
        position, move = self._history.pop()
        setup = self._position.setup
        self._position = position if position.setup is setup else position.rebased(setup)
        return move

    def copy(self) -> Game:
        """An independent game in the same position, cheap enough for search."""
        new = Game.__new__(Game)
        new._position = self._position
        new._history = list(self._history)
        return new

    # ----------------------------------------------------------------- hidden tiles

    def unseen_tiles(self) -> Counter[str]:
        """Tiles nobody has seen yet: the rest of the draw pile and those left in the box.

        The order of the pile is hidden information; an AI that must not peek draws its
        guesses from these (``redeal``).
        """
        unseen = tile_set(self.player_count)
        unseen.subtract(self.deck[: self._position.deck_pos])
        return +unseen

    def redeal(self, rng: random.Random) -> Game:
        """A copy whose remaining pile is a random guess drawn from the unseen tiles.

        Same position and history; only the tiles still to come differ. For determinized
        search (the real order is not looked at).
        """
        unseen = sorted(self.unseen_tiles().elements())
        rng.shuffle(unseen)
        return self._with_rest_of_pile(unseen[: self.tiles_left])

    def with_pile(self, tiles: Sequence[str]) -> Game:
        """A copy whose remaining draw pile is ``tiles`` (in draw order), drawn from the unseen
        tiles: for chance nodes and search that choose what comes next."""
        codes = [code.strip().upper() for code in tiles]
        missing = Counter(codes) - self.unseen_tiles()
        if missing:
            extra = " ".join(sorted(missing.elements()))
            raise InvalidOption(refusal("not-unseen", tiles=extra))
        return self._with_rest_of_pile(codes)

    def _with_rest_of_pile(self, rest: Sequence[str]) -> Game:
        position = self._position
        deck = self.deck[: position.deck_pos] + tuple(rest)
        new = self.copy()
        new._position = position.rebased(position.setup.with_deck(deck))
        return new

    # ----------------------------------------------------------------- records

    def to_record(self) -> dict[str, Any]:
        """The JSON-ready game record of docs/notation.md."""
        result = self._position.result
        return make_record(
            players=self.players,
            options=self.options,
            deck=self.deck,
            doubles=self.face_up_doubles,
            moves=[str(move) for _, move in self._history],
            result=None if result is None else result.to_json(),
            resignations=[r.to_json() for r in self._position.resignations],
        )

    @classmethod
    def from_record(cls, record: Any, *, source: str = "record") -> Game:
        """Replay a record (a dict, or JSON text), checking every move; raise InvalidRecord
        naming the first illegal move by its index and saying why."""
        fields = read_record(record, source=source)
        try:
            game = cls.new(
                players=fields.players,
                deck=fields.deck,
                tiles_per_player=fields.tiles_per_player,
                expansions=fields.expansions,
                house_rules=fields.house_rules,
                doubles=fields.doubles,
            )
        except InvalidOption as error:
            raise InvalidRecord(in_record(error.text, source)) from None
        leaving = list(enumerate(fields.resignations))
        for index, text in [*enumerate(fields.moves), (len(fields.moves), None)]:
            while leaving and leaving[0][1].ply == index:
                number, entry = leaving.pop(0)
                try:
                    game.resign(entry.player, entry.reason)
                except IllegalMove as error:
                    raise InvalidRecord(in_record(error.text, source, resignation=number)) from None
            if text is None:
                break
            if not isinstance(text, str):
                raise InvalidRecord(f"{source}: moves[{index}] is {text!r}, not move text")
            try:
                game.play(text)
            except IllegalMove as error:
                raise InvalidRecord(in_record(error.text, source, move=index)) from None
        claimed = fields.claimed_result()
        if claimed is not None and claimed != game.result:
            actual = "the game is not over" if game.result is None else f"it is {dict(game.result)}"
            raise InvalidRecord(
                f"{source}: result says {dict(claimed)} but after the moves {actual}"
            )
        return game

    @classmethod
    def load(cls, path: str | Path) -> Game:
        """Read a record file and replay it; raise InvalidRecord naming the file on any problem."""
        return cls.from_record(read_record_file(path), source=str(path))

    def save(self, path: str | Path) -> None:
        """Write the game's record as JSON, atomically (a crash never leaves half a file)."""
        write_record_file(self.to_record(), path)

    # ----------------------------------------------------------------- text views

    def __repr__(self) -> str:
        return (
            f"<Game players={self.player_count} ply={len(self._history)} phase={self.phase} "
            f"to_move={self.to_move}>"
        )

    def __str__(self) -> str:
        return board_text(self._position)


def _as_move(move: Move | str) -> Move:
    if isinstance(move, Move):
        return move
    if isinstance(move, str):
        return Move.parse(move)
    raise IllegalMove(refusal("not-move-text", value=repr(move)))
