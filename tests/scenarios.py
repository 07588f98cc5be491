"""Building Taluva positions from real move sequences, for the rules tests.

Positions are played, never poked into the engine: ``position`` plays turns of move text with
a chosen deck; ``refused`` and ``allowed`` check one move and return the rule's verdict.
Positions that are hard to reach by hand are game records in ``tests/data/rules/``; run this
file (``python tests/scenarios.py``) to search seeded games for them again.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from taluva import Game, IllegalMove, Move, format_hex, parse_hex
from taluva.engine.hexes import DELTAS
from taluva.engine.moves import EXPAND, HUT, TEMPLE, TOWER
from taluva.engine.tiles import TERRAIN_NAMES

FIXTURES = Path(__file__).resolve().parent / "data" / "rules"


def position(
    turns: Sequence[str],
    deck: Sequence[str],
    players: int = 2,
    house_rules: Sequence[str] = (),
) -> Game:
    """A new game with ``deck`` drawn in order, after playing ``turns``.

    Each turn is move text, or several moves separated by ``;`` (usually "tile ...; build ...").

    >>> game = position(["tile 0,0 0; hut 1,0"], deck=["JC", "SR"])
    >>> game.to_move, game.tile
    (1, 'SR')
    """
    game = Game.new(players=players, deck=deck, house_rules=house_rules)
    for turn in turns:
        for text in turn.split(";"):
            if text.strip():
                game.play(text.strip())
    return game


def legal(game: Game, kind: str | None = None) -> list[str]:
    """Canonical texts of the legal moves (of one kind, if given), sorted."""
    return sorted(str(move) for move in game.legal_moves() if kind in (None, move.kind))


def refused(game: Game, text: str) -> str:
    """Check that the rules refuse a move here and leave the game as it was; return the reason.

    The reason is what ``explain`` says, and ``play`` raises IllegalMove with the same words.
    """
    before = game.to_record()
    assert str(Move.parse(text)) not in legal(game), f"{text} is legal here"
    assert not game.is_legal(text)
    reason = game.explain(text)
    assert reason is not None, f"explain finds nothing wrong with {text}"
    try:
        game.play(text)
    except IllegalMove as error:
        assert str(error) == f"{text}: {reason}"
    else:
        raise AssertionError(f"play({text!r}) was accepted")
    assert game.to_record() == before
    return reason


def allowed(game: Game, text: str) -> Game:
    """Check that a move is legal here (listed, nothing to explain) and play it."""
    move = Move.parse(text)
    assert str(move) in legal(game), f"{text} is not among the legal moves"
    assert game.explain(text) is None
    ply = game.ply
    game.play(text)
    assert (game.ply, game.moves[-1]) == (ply + 1, move)
    return game


def cell(game: Game, text: str) -> tuple[int, str | None, tuple[int, str] | None]:
    """What stands on a hex: ``(level, terrain name, (player, building) or None)``."""
    hex_ = parse_hex(text)
    terrain = game.terrain(hex_)
    return (
        game.level(hex_),
        None if terrain is None else TERRAIN_NAMES[terrain],
        game.building(hex_),
    )


def board(game: Game) -> dict[str, tuple[int, str | None, tuple[int, str] | None]]:
    """Every hex of the island as ``cell`` shows it, by hex text."""
    return {format_hex(h): cell(game, format_hex(h)) for h in game.land()}


def changes(
    before: dict[str, tuple[int, str | None, tuple[int, str] | None]], game: Game
) -> dict[str, tuple[int, str | None, tuple[int, str] | None]]:
    """The hexes whose level, terrain or building differ from ``before`` (a ``board``)."""
    return {h: now for h, now in board(game).items() if before.get(h) != now}


def settlements(game: Game, player: int) -> list[list[str]]:
    """A player's settlements as sorted lists of hex texts, ordered as the engine orders them."""
    return [[format_hex(h) for h in sorted(group)] for group in game.settlements(player)]


def buildings_of(game: Game, hexes: Sequence[str]) -> list[str]:
    """The building kinds standing on some hexes, in the order given."""
    kinds = []
    for text in hexes:
        piece = game.building(parse_hex(text))
        kinds.append("" if piece is None else piece[1])
    return kinds


def fixture(name: str) -> dict[str, Any]:
    """A game record kept in tests/data/rules/ (``name`` without ``.json``)."""
    record: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return record


def replay(record: dict[str, Any], plies: int | None = None) -> Game:
    """Replay a record's first ``plies`` moves (all of them if None), checking each one."""
    moves = record["moves"] if plies is None else record["moves"][:plies]
    return Game.from_record({**record, "moves": moves, "result": None})


def movers(record: dict[str, Any]) -> list[int]:
    """Who made each move of a record."""
    game = Game.from_record({**record, "moves": [], "result": None})
    seats = []
    for text in record["moves"]:
        seats.append(game.to_move)
        game.play(text)
    return seats


# ----------------------------------------------------------------- searching for fixtures


def biased_move(game: Game, rng: random.Random, style: dict[str, float]) -> Move:
    """A random move leaning towards what makes rare endings happen: eruptions, towers and
    temples first, expansions that place many huts. Reproducible for a seeded ``rng``."""
    moves = sorted(game.legal_moves(), key=str)
    if game.phase == "tile":
        eruptions = [m for m in moves if game.level(m.hex) > 0]
        if eruptions and rng.random() < style["erupt"]:
            return rng.choice(eruptions)
        return rng.choice(moves)
    for kind in (TOWER, TEMPLE, HUT):
        options = [m for m in moves if m.kind == kind]
        if options and rng.random() < style[kind]:
            return rng.choice(options)
    expansions = [m for m in moves if m.kind == EXPAND]
    if expansions and rng.random() < style["big"]:
        return max(expansions, key=lambda m: (sum(game.level(h) for h in m.hexes), rng.random()))
    return rng.choice(moves)


STYLES: dict[str, dict[str, float]] = {
    "plain": {"erupt": 0.7, "tower": 0.9, "temple": 0.8, "hut": 0.0, "big": 0.6},
    "builder": {"erupt": 0.7, "tower": 1.0, "temple": 1.0, "hut": 0.0, "big": 0.9},
    "volcanic": {"erupt": 0.9, "tower": 1.0, "temple": 1.0, "hut": 0.0, "big": 1.0},
    "sprawl": {"erupt": 0.9, "tower": 0.3, "temple": 0.3, "hut": 0.0, "big": 1.0},
    "priestly": {"erupt": 0.0, "tower": 0.0, "temple": 1.0, "hut": 0.2, "big": 1.0},
}
"""Weights of ``biased_move``: how often it takes an eruption, a tower, a temple or a new hut
when it can, and how often the expansion that places the most huts."""


def biased_game(seed: int, players: int, style: str, tiles_per_player: int = 12) -> Iterator[Game]:
    """Play a seeded game with ``biased_move``, yielding the game before every move and at the
    end (the same object, moved on)."""
    rng = random.Random(seed)
    game = Game.new(players=players, seed=seed, tiles_per_player=tiles_per_player)
    while game.phase != "over":
        yield game
        game.play(biased_move(game, rng, STYLES[style]))
    yield game


def _free_border(game: Game, group: frozenset[int]) -> set[int]:
    """Buildable hexes next to a settlement."""
    return {
        h + d
        for h in group
        for d in DELTAS
        if game.terrain(h + d) not in (None, 0) and game.building(h + d) is None
    }


def _expansion_too_big(game: Game) -> bool:
    """The player to build lacks the huts for one expansion but has them for another."""
    if game.phase != "build":
        return False
    huts = game.supply(game.to_move)["huts"]
    for group in game.settlements(game.to_move):
        need: dict[int, int] = {}
        for h in _free_border(game, group):
            terrain = game.terrain(h) or 0
            need[terrain] = need.get(terrain, 0) + game.level(h)
        if huts and any(n > huts for n in need.values()) and any(n <= huts for n in need.values()):
            return True
    return False


def _spare_site(game: Game, piece: str) -> bool:
    """The player to build holds no ``piece`` yet has a settlement where one would fit."""
    if game.phase != "build" or game.supply(game.to_move)[piece + "s"]:
        return False
    for group in game.settlements(game.to_move):
        kinds = [game.building(h) for h in group]
        if any(k is not None and k[1] == piece for k in kinds):
            continue
        border = _free_border(game, group)
        if piece == "temple" and len(group) >= 3 and border:
            return True
        if piece == "tower" and any(game.level(h) >= 3 for h in border):
            return True
    return False


def _tower_in_the_way(game: Game) -> bool:
    """Some eruption is refused only because it would cover a tower."""
    if game.phase != "tile":
        return False
    return any("cover the tower" in (game.explain(str(m)) or "") for m in _over_towers(game))


def _over_towers(game: Game) -> list[Move]:
    """Placements whose volcano lies on a volcano and whose terrain covers a tower."""
    moves = []
    for h, (_, kind) in game.buildings().items():
        if kind == "tower":
            for k in range(6):
                for v in (h - DELTAS[k], h - DELTAS[(k + 1) % 6]):
                    if game.terrain(v) == 0:
                        moves.append(Move.place_tile(v, k))
    return moves


def _two_of(game: Game, piece: str) -> bool:
    """Some settlement holds two buildings of the kind ``piece``."""
    for player in range(game.player_count):
        for group in game.settlements(player):
            if sum(1 for h in group if (game.building(h) or (0, ""))[1] == piece) >= 2:
                return True
    return False


def _grown_together(game: Game, piece: str) -> bool:
    """The last move, a hut or an expansion, joined settlements into one with two ``piece``."""
    if not game.moves or game.moves[-1].kind not in (HUT, EXPAND) or not _two_of(game, piece):
        return False
    before = game.copy()
    before.pop()
    return not _two_of(before, piece)


def _shared_place_with_destroyed_huts(game: Game) -> bool:
    """Tiles ran out with a shared place that counts destroyed huts."""
    result = game.result
    if result is None or result.reason != "tiles":
        return False
    return any(len(g) > 1 and any(game.destroyed_huts(p) for p in g) for g in result.ranking)


def _placed(game: Game, player: int) -> tuple[int, int, int]:
    """Temples, towers and huts a player has placed."""
    left = game.supply(player)
    return 3 - left["temples"], 2 - left["towers"], 20 - left["huts"]


def _decided_by(game: Game, index: int) -> bool:
    """Tiles ran out and the first two places differ first in count ``index`` (temples 0,
    towers 1, huts 2), the runner-up having more of every later count."""
    result = game.result
    if result is None or result.reason != "tiles" or len(result.ranking[0]) > 1:
        return False
    first, second = _placed(game, result.ranking[0][0]), _placed(game, result.ranking[1][0])
    differs = [i for i in range(3) if first[i] != second[i]]
    return (
        differs[:1] == [index]
        and all(first[i] < second[i] for i in differs[1:])
        and (len(differs) > 1 or index == 2)
    )


def _others_out_of_seat_order(game: Game) -> bool:
    """An early victory after which the two others rank in reverse seat order."""
    result = game.result
    if result is None or result.reason != "victory":
        return False
    return list(result.ranking[1:]) == sorted(result.ranking[1:], reverse=True)


def _eliminated_ahead_on_pieces(game: Game) -> bool:
    """Tiles ran out and an eliminated player had placed more than a player still in."""
    result = game.result
    if result is None or result.reason != "tiles" or not game.eliminated:
        return False
    standing = [p for p in range(game.player_count) if p not in game.eliminated]
    return any(_placed(game, e) > _placed(game, p) for e in game.eliminated for p in standing)


POSITIONS: dict[str, Callable[[Game], bool]] = {
    "expansion_short_of_huts": _expansion_too_big,
    "no_temples_left": lambda g: _spare_site(g, "temple"),
    "no_towers_left": lambda g: _spare_site(g, "tower"),
    "eruption_over_tower": _tower_in_the_way,
    "settlement_with_two_towers": lambda g: _two_of(g, "tower"),
    "settlement_with_two_temples": lambda g: _two_of(g, "temple"),
    "grown_together_with_two_temples": lambda g: _grown_together(g, "temple"),
    "grown_together_with_two_towers": lambda g: _grown_together(g, "tower"),
}
"""Positions met during a game: the record is cut where the predicate first holds."""

ENDINGS: dict[str, tuple[int, Callable[[Game], bool]]] = {
    "two_players_eliminated": (3, lambda g: len(g.eliminated) == 2),
    "victory_on_last_tile": (
        2,
        lambda g: g.result is not None and g.result.reason == "victory" and g.tiles_left == 0,
    ),
    "victory_before_the_end": (
        2,
        lambda g: g.result is not None and g.result.reason == "victory" and g.tiles_left > 0,
    ),
    "victory_three_players": (3, _others_out_of_seat_order),
    "elimination_three_players": (3, _eliminated_ahead_on_pieces),
    "tiles_out_shared_place": (2, _shared_place_with_destroyed_huts),
    "tiles_out_temples_first": (2, lambda g: _decided_by(g, 0)),
    "tiles_out_towers_next": (2, lambda g: _decided_by(g, 1)),
    "tiles_out_huts_last": (2, lambda g: _decided_by(g, 2)),
}
"""Whole games, kept to their end: players, and what the finished game must show."""


def search(seeds: int = 200) -> dict[str, dict[str, Any]]:
    """The shortest record found for each position and ending, over seeds, styles and sizes."""
    found: dict[str, dict[str, Any]] = {}
    for players, tiles_per_player in ((2, 12), (3, 12), (2, 24)):
        for style in STYLES:
            for seed in range(seeds):
                for game in biased_game(seed, players, style, tiles_per_player):
                    for name, seen in POSITIONS.items():
                        if players == 2 and seen(game):
                            _keep(found, name, game.to_record())
                for name, (count, finished) in ENDINGS.items():
                    if (players, tiles_per_player) == (count, 12) and finished(game):
                        _keep(found, name, game.to_record())
    return found


def _keep(found: dict[str, dict[str, Any]], name: str, record: dict[str, Any]) -> None:
    """Keep the shorter of two records found for the same name."""
    if name not in found or len(record["moves"]) < len(found[name]["moves"]):
        found[name] = record


def main() -> None:
    """Search again and write the fixtures to tests/data/rules/ or the folder given.

    The tests name what these records show, so compare before replacing them.
    """
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURES
    folder.mkdir(parents=True, exist_ok=True)
    for name, record in sorted(search().items()):
        (folder / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")
        print(f"{name}: {len(record['moves'])} moves", file=sys.stderr)


if __name__ == "__main__":
    main()
