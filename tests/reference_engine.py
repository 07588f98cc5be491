"""A deliberately simple reference implementation of base-game Taluva.

It exists only to cross-check the real engine (differential testing and perft). It follows
docs/rules.md and docs/notation.md directly, favours obvious correctness over speed
(everything is recomputed from scratch by rescanning the board) and shares no code with the
engine under src/.
"""

from __future__ import annotations

from collections import deque
from typing import Any

Hex = tuple[int, int]

DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
TERRAIN_WORDS: dict[str, str] = {
    "J": "jungle",
    "C": "clearing",
    "S": "sand",
    "R": "rock",
    "L": "lake",
}
START_SUPPLY: dict[str, int] = {"hut": 20, "temple": 3, "tower": 2}
PIECE_KINDS: tuple[str, ...] = ("hut", "temple", "tower")
HOUSE_RULES: frozenset[str] = frozenset({"adjacent_hut", "all_tiles"})


def add(a: Hex, b: Hex) -> Hex:
    """Sum of two axial vectors."""
    return (a[0] + b[0], a[1] + b[1])


def neighbours(h: Hex) -> list[Hex]:
    """The six hexes sharing an edge with `h`."""
    return [add(h, d) for d in DIRECTIONS]


def footprint(volcano: Hex, orientation: int) -> tuple[Hex, Hex, Hex]:
    """Hexes of a tile (volcano, terrain A, terrain B) placed at `volcano` with `orientation`."""
    a = add(volcano, DIRECTIONS[orientation])
    b = add(volcano, DIRECTIONS[(orientation + 1) % 6])
    return (volcano, a, b)


def hex_text(h: Hex) -> str:
    """Canonical text of a hex, e.g. ``-2,1``."""
    return f"{h[0]},{h[1]}"


def parse_hex(text: str) -> Hex:
    """Inverse of `hex_text`."""
    q, r = text.split(",")
    return (int(q), int(r))


class RefGame:
    """A base-game Taluva position: board, pieces, supplies, deck and whose move it is."""

    def __init__(self, players: int, deck: list[str], house_rules: tuple[str, ...] = ()) -> None:
        """Start a game for `players` players drawing `deck` in order."""
        if not 2 <= players <= 5:
            raise ValueError(f"unsupported number of players: {players}")
        unknown = set(house_rules) - HOUSE_RULES
        if unknown:
            raise ValueError(f"unknown house rules: {sorted(unknown)}")
        for tile in deck:
            if len(tile) != 2 or any(t not in TERRAIN_WORDS for t in tile):
                raise ValueError(f"not a base tile: {tile!r}")
        self.players = players
        self.deck = list(deck)
        self.house_rules = tuple(house_rules)
        self.next_tile = 0  # index into deck of the tile to place next
        # top of each stack: (level, terrain letter, index of the tile in placement order)
        self.board: dict[Hex, tuple[int, str, int]] = {}
        self.pieces: dict[Hex, tuple[int, str]] = {}
        self.hand = [dict(START_SUPPLY) for _ in range(players)]
        self.eliminated: list[int] = []  # in order of elimination
        self.phase = "tile"
        self.to_move = 0
        self.result: dict[str, Any] | None = None
        if not self.deck:
            self._finish("tiles")

    # ----- read-only views -------------------------------------------------------------

    def supply(self, player: int) -> dict[str, int]:
        """Pieces `player` still holds."""
        return dict(self.hand[player])

    def cells(self) -> dict[Hex, tuple[int, str, int]]:
        """Every island hex: (level, top terrain letter, top tile index)."""
        return dict(self.board)

    def buildings(self) -> dict[Hex, tuple[int, str]]:
        """Every building on the board: hex -> (player, kind)."""
        return dict(self.pieces)

    def settlements(self, player: int) -> list[frozenset[Hex]]:
        """Edge-connected groups of `player`'s buildings, found by BFS, sorted by lowest hex."""
        own = {h for h, (p, _) in self.pieces.items() if p == player}
        seen: set[Hex] = set()
        groups: list[frozenset[Hex]] = []
        for start in sorted(own):
            if start in seen:
                continue
            group = {start}
            queue = deque([start])
            while queue:
                h = queue.popleft()
                for n in neighbours(h):
                    if n in own and n not in group:
                        group.add(n)
                        queue.append(n)
            seen |= group
            groups.append(frozenset(group))
        return groups

    def copy(self) -> RefGame:
        """An independent copy of this position."""
        other = RefGame.__new__(RefGame)
        other.players = self.players
        other.deck = list(self.deck)
        other.house_rules = self.house_rules
        other.next_tile = self.next_tile
        other.board = dict(self.board)
        other.pieces = dict(self.pieces)
        other.hand = [dict(h) for h in self.hand]
        other.eliminated = list(self.eliminated)
        other.phase = self.phase
        other.to_move = self.to_move
        other.result = None
        if self.result is not None:
            ranking = [list(group) for group in self.result["ranking"]]
            other.result = {"ranking": ranking, "reason": self.result["reason"]}
        return other

    # ----- move generation -------------------------------------------------------------

    def legal_moves(self) -> list[str]:
        """Canonical texts of every legal move, each once; empty when the game is over."""
        if self.phase == "tile":
            return self._tile_moves()
        if self.phase == "build":
            return self._build_moves(self.to_move)
        return []

    def _tile_moves(self) -> list[str]:
        """All placements of the drawn tile, on sea level or as an eruption."""
        if not self.board:
            return [f"tile 0,0 {k}" for k in range(6)]
        candidates: set[Hex] = set()
        for h in self.board:
            for n in neighbours(h):
                candidates.add(n)
                candidates.update(neighbours(n))
        moves = []
        for v in sorted(candidates):
            for k in range(6):
                if self._tile_placement_is_legal(footprint(v, k)):
                    moves.append(f"tile {hex_text(v)} {k}")
        return moves

    def _tile_placement_is_legal(self, hexes: tuple[Hex, Hex, Hex]) -> bool:
        """Whether a tile may lie on `hexes` (volcano first)."""
        on_island = [h in self.board for h in hexes]
        if not any(on_island):
            return self._sea_placement_is_legal(hexes)
        if all(on_island):
            return self._eruption_is_legal(hexes)
        return False  # overhang

    def _sea_placement_is_legal(self, hexes: tuple[Hex, Hex, Hex]) -> bool:
        """All hexes are sea and at least one shares an edge with the island."""
        return any(n in self.board for h in hexes for n in neighbours(h))

    def _eruption_is_legal(self, hexes: tuple[Hex, Hex, Hex]) -> bool:
        """The volcanic-eruption conditions of docs/rules.md, for hexes all on the island."""
        below = [self.board[h] for h in hexes]
        if len({level for level, _, _ in below}) != 1:
            return False
        if below[0][1] != "V":
            return False
        if len({tile for _, _, tile in below}) < 2:
            return False
        for h in hexes:
            if h in self.pieces and self.pieces[h][1] != "hut":
                return False
        covered = set(hexes)
        for player in range(self.players):
            for settlement in self.settlements(player):
                if settlement <= covered:
                    return False
        return True

    def _buildable(self, h: Hex) -> bool:
        """A top hex that is not a volcano and holds no piece."""
        return h in self.board and self.board[h][1] != "V" and h not in self.pieces

    def _build_moves(self, player: int) -> list[str]:
        """Every building action open to `player` now, deduplicated by text."""
        hand = self.hand[player]
        own = {h for h, (p, _) in self.pieces.items() if p == player}
        settlements = self.settlements(player)
        moves: dict[str, None] = {}

        if hand["hut"] >= 1:
            for h in sorted(self.board):
                if not self._buildable(h) or self.board[h][0] != 1:
                    continue
                if "adjacent_hut" not in self.house_rules and any(n in own for n in neighbours(h)):
                    continue
                moves[f"hut {hex_text(h)}"] = None

        for settlement in settlements:
            border = {n for h in settlement for n in neighbours(h) if self._buildable(n)}
            for letter, word in TERRAIN_WORDS.items():
                targets = sorted(h for h in border if self.board[h][1] == letter)
                if not targets:
                    continue
                if sum(self.board[h][0] for h in targets) > hand["hut"]:
                    continue
                moves[f"expand {word} " + " ".join(hex_text(h) for h in targets)] = None

        if hand["temple"] >= 1:
            for settlement in settlements:
                if len(settlement) < 3:
                    continue
                if any(self.pieces[h][1] == "temple" for h in settlement):
                    continue
                for h in sorted({n for s in settlement for n in neighbours(s)}):
                    if self._buildable(h):
                        moves[f"temple {hex_text(h)}"] = None

        if hand["tower"] >= 1:
            for settlement in settlements:
                if any(self.pieces[h][1] == "tower" for h in settlement):
                    continue
                for h in sorted({n for s in settlement for n in neighbours(s)}):
                    if self._buildable(h) and self.board[h][0] >= 3:
                        moves[f"tower {hex_text(h)}"] = None

        return list(moves)

    # ----- playing moves ---------------------------------------------------------------

    def play(self, text: str) -> None:
        """Play one move given in canonical text; ValueError if it is not legal here."""
        if text not in self.legal_moves():
            raise ValueError(f"illegal move in phase {self.phase!r}: {text!r}")
        words = text.split()
        if words[0] == "tile":
            self._place_tile(parse_hex(words[1]), int(words[2]))
        elif words[0] == "expand":
            hexes = [parse_hex(w) for w in words[2:]]
            for h in hexes:
                self.hand[self.to_move]["hut"] -= self.board[h][0]
                self.pieces[h] = (self.to_move, "hut")
            self._after_build()
        else:
            self.hand[self.to_move][words[0]] -= 1
            self.pieces[parse_hex(words[1])] = (self.to_move, words[0])
            self._after_build()

    def _place_tile(self, volcano: Hex, orientation: int) -> None:
        """Put the drawn tile down, destroying covered huts, then check for elimination."""
        tile = self.deck[self.next_tile]
        index = self.next_tile
        hexes = footprint(volcano, orientation)
        level = self.board[volcano][0] + 1 if volcano in self.board else 1
        for h, terrain in zip(hexes, ("V", tile[0], tile[1]), strict=True):
            self.board[h] = (level, terrain, index)
            self.pieces.pop(h, None)  # only huts can be here; they leave the game
        self.next_tile += 1
        self.phase = "build"
        if not self._build_moves(self.to_move):
            self.eliminated.append(self.to_move)
            self._next_turn()

    def _after_build(self) -> None:
        """Early victory check, then pass the turn."""
        emptied = sum(1 for kind in PIECE_KINDS if self.hand[self.to_move][kind] == 0)
        if emptied >= 2:
            self._finish("victory", winner=self.to_move)
            return
        self._next_turn()

    def _remaining(self) -> list[int]:
        """Players not eliminated, by index."""
        return [p for p in range(self.players) if p not in self.eliminated]

    def _next_turn(self) -> None:
        """End the game if a player stands alone or the tiles ran out, else pass the turn."""
        remaining = self._remaining()
        if len(remaining) == 1:
            self._finish("last-standing", winner=remaining[0])
            return
        if self.next_tile >= len(self.deck):
            self._finish("tiles")
            return
        p = self.to_move
        while True:
            p = (p + 1) % self.players
            if p not in self.eliminated:
                break
        self.to_move = p
        self.phase = "tile"

    def _placed(self, player: int) -> tuple[int, int, int]:
        """(temples, towers, huts) placed by `player`, destroyed huts included."""
        hand = self.hand[player]
        return (
            START_SUPPLY["temple"] - hand["temple"],
            START_SUPPLY["tower"] - hand["tower"],
            START_SUPPLY["hut"] - hand["hut"],
        )

    def _finish(self, reason: str, winner: int | None = None) -> None:
        """Set the final ranking and end the game."""
        ranking: list[list[int]] = []
        others = [p for p in self._remaining() if p != winner]
        if winner is not None:
            ranking.append([winner])
        for key in sorted({self._placed(p) for p in others}, reverse=True):
            ranking.append([p for p in others if self._placed(p) == key])
        for p in reversed(self.eliminated):
            ranking.append([p])
        self.phase = "over"
        self.result = {"ranking": ranking, "reason": reason}


def ref_from_record(obj: dict[str, Any]) -> RefGame:
    """Replay a base-game record of docs/notation.md; ValueError names the first illegal move."""
    options = obj.get("options", {})
    if options.get("expansions"):
        raise ValueError(f"expansions are not supported: {options['expansions']}")
    game = RefGame(len(obj["players"]), list(obj["deck"]), tuple(options.get("house_rules", ())))
    for i, move in enumerate(obj["moves"]):
        try:
            game.play(move)
        except ValueError as error:
            raise ValueError(f"move {i} ({move!r}): {error}") from error
    return game


def ref_perft(game: RefGame, depth: int) -> int:
    """Number of distinct sequences of `depth` legal moves; a game-ending move ends one."""
    if depth == 0:
        return 1
    moves = game.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = game.copy()
        child.play(move)
        total += 1 if child.phase == "over" else ref_perft(child, depth - 1)
    return total


def ref_divide(game: RefGame, depth: int) -> dict[str, int]:
    """Perft split by first move, for locating a disagreement."""
    counts: dict[str, int] = {}
    for move in game.legal_moves():
        child = game.copy()
        child.play(move)
        counts[move] = 1 if child.phase == "over" else ref_perft(child, depth - 1)
    return counts
