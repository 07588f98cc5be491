"""The exact checks behind the puzzles, by enumerating every turn (a tile placement, then a
build) of a position.

``survey_wins``: the turns that win the game at once. A build wins at once when it places the
last piece of a second kind (the last temple with every tower placed, say), so only positions
where the mover has already placed every piece of one kind can hold such a turn, and only
builds of the kinds still missing are tried: a position takes a few hundredths of a second.

``survey_blocks``: the turns after which the opponent has no turn that wins at once, whatever
unseen tile they draw. Proving that a turn blocks tries every tile and every reply; refuting
one needs a single winning reply, so replies that refuted other turns are tried first.

``survey_spoils``: the same, grouping the turns by the opponent's huts their placement
destroys, to find the positions where only eruptions on the opponent's huts stop their win.

``survey_saves``: the turns after which no eruption can destroy a hut of the mover's
(``destroyable``: where an eruption may go does not depend on the tile's terrain, so one
check holds for every tile the opponent may draw).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from taluva.engine.game import Game
from taluva.engine.hexes import DELTAS
from taluva.engine.moves import EXPAND, HUT, TEMPLE, TILE, TILE_MOVES, TOWER, Move, MoveKind
from taluva.engine.outcome import Reason
from taluva.engine.pieces import HUT_KIND
from taluva.engine.rules.placement import sync_placements
from taluva.engine.tiles import TERRAIN_LETTERS, footprint

WINNING_KINDS: dict[str, tuple[MoveKind, ...]] = {
    "huts": (HUT, EXPAND),
    "temples": (TEMPLE,),
    "towers": (TOWER,),
}
"""The builds that place each kind of piece."""


@dataclass(frozen=True, slots=True)
class WinSurvey:
    """Every turn of a position, counted, and those that win at once.

    ``placements`` is the number of legal tile placements, ``turns`` the number of legal
    (placement, build) pairs, ``wins`` every winning pair as canonical move texts, in order."""

    placements: int
    turns: int
    wins: tuple[tuple[str, str], ...]

    @property
    def winning_builds(self) -> tuple[str, ...]:
        """The distinct builds that win after some placement, in order."""
        return tuple(sorted({build for _, build in self.wins}))

    @property
    def winning_placements(self) -> int:
        """How many placements leave a winning build."""
        return len({tile for tile, _ in self.wins})


def candidate_kinds(game: Game) -> tuple[MoveKind, ...]:
    """The kinds of build that could end the game at once for the side to move: none unless
    one kind of piece is already all placed."""
    supply = game.supply(game.to_move)
    done = [name for name in WINNING_KINDS if supply[name] == 0]
    if len(done) != 1:
        return ()
    kinds: list[MoveKind] = []
    for name, builds in WINNING_KINDS.items():
        if name in done:
            continue
        if name == "huts" or supply[name] == 1:
            kinds.extend(builds)
    return tuple(kinds)


def wins_at_once(game: Game, mover: int) -> bool:
    """Whether the game has just ended with ``mover`` winning by placing two kinds of piece."""
    result = game.result
    return result is not None and result.reason == Reason.VICTORY and result.winners == (mover,)


def survey_wins(game: Game) -> WinSurvey:
    """Enumerate every turn of a position at the start of a turn (tile phase) and return the
    ones that win at once. The game is left as it was."""
    if game.is_over or game.phase != "tile":
        raise ValueError("a puzzle position is the start of a turn, with a tile to place")
    mover = game.to_move
    kinds = candidate_kinds(game)
    placements = turns = 0
    wins: list[tuple[str, str]] = []
    for placement in game.legal_moves():
        if placement.kind != TILE:
            continue
        placements += 1
        game.push(placement)
        builds = game.legal_moves()
        turns += len(builds)
        for build in builds:
            if build.kind not in kinds:
                continue
            game.push(build)
            if wins_at_once(game, mover):
                wins.append((str(placement), str(build)))
            game.pop()
        game.pop()
    return WinSurvey(placements, turns, tuple(sorted(wins)))


class OutOfWork(Exception):
    """The check of one position tried more placements than its budget allows."""


@dataclass
class Work:
    """A budget of tile placements to try, so that one position's check stays bounded and the
    same on every machine (a time limit would not)."""

    left: int

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise OutOfWork


def winning_turn(
    game: Game, work: Work | None = None, guesses: Sequence[tuple[str, str]] = ()
) -> tuple[str, str] | None:
    """A turn that wins at once for the side to move, or None: the first of ``guesses`` that
    is legal and wins (turns that won in similar positions save the search), else the first
    in move order, the guesses' placements tried first."""
    if game.is_over or game.phase != "tile":
        return None
    mover = game.to_move
    kinds = candidate_kinds(game)
    if not kinds:
        return None
    for guess in guesses:
        if _wins(game, mover, guess):
            return guess
    placements = game.legal_moves()
    if guesses:
        guessed = {Move.parse(tile) for tile, _ in guesses}
        placements.sort(key=lambda move: move not in guessed)
    for placement in placements:
        if placement.kind != TILE:
            continue
        if work is not None:
            work.spend()
        game.push(placement)
        for build in game.legal_moves():
            if build.kind in kinds:
                game.push(build)
                won = wins_at_once(game, mover)
                game.pop()
                if won:
                    game.pop()
                    return str(placement), str(build)
        game.pop()
    return None


def _wins(game: Game, mover: int, turn: tuple[str, str]) -> bool:
    """Whether ``turn`` is legal and wins at once; the game is left as it was."""
    tile, build = (Move.parse(text) for text in turn)
    if game.explain(tile) is not None:
        return False
    game.push(tile)
    won = False
    if game.explain(build) is None:
        game.push(build)
        won = wins_at_once(game, mover)
        game.pop()
    game.pop()
    return won


@dataclass(frozen=True, slots=True)
class Threat:
    """What a turn leaves the opponent: the tile they might draw and their winning turn."""

    tile: str
    turn: tuple[str, str]


TERRAIN_BLIND: Final = frozenset({TEMPLE, TOWER})
"""Builds whose legality does not depend on terrain: where a tile may go does not either, so
when these are the only builds that can win, one tile stands for every tile."""


def next_tiles(game: Game) -> list[str]:
    """The kinds of tile the next player may draw after the turn under way (in build
    phase): the real next tile first, then every other unseen kind in order."""
    first = game.deck[len(game.deck) - game.tiles_left] if game.tiles_left else None
    kinds = sorted(game.unseen_tiles())
    return ([first] if first else []) + [k for k in kinds if k != first]


def threat_after(
    game: Game, build: str, work: Work | None = None, guesses: Sequence[tuple[str, str]] = ()
) -> Threat | None:
    """In build phase: play ``build``, and find a tile the next player may draw with which
    they win at once (None when no unseen tile gives them a winning turn, or the build ends
    the game); ``guesses`` are their turns to try first. The game is left as it was."""
    move = Move.parse(build)
    game.push(move)
    try:
        if game.is_over:
            return None
        found = winning_turn(game, work, guesses)
        if found is not None:
            return Threat(str(game.tile), found)
        if set(candidate_kinds(game)) <= TERRAIN_BLIND:
            return None
    finally:
        game.pop()
    unseen = game.unseen_tiles()
    kinds = next_tiles(game)[1:]
    expansions = [Move.parse(b) for _, b in guesses if b.startswith(EXPAND.value)]
    if expansions:
        letter = TERRAIN_LETTERS[expansions[0][2]]
        kinds.sort(key=lambda kind: letter not in kind)  # tiles with its terrain first
    for kind in kinds:
        rest = unseen.copy()
        rest[kind] -= 1
        pile = [kind, *sorted(rest.elements())][: game.tiles_left]
        trial = game.with_pile(pile)
        trial.play(build)
        if trial.is_over:
            return None
        found = winning_turn(trial, work, guesses)
        if found is not None:
            return Threat(kind, found)
    return None


@dataclass(frozen=True, slots=True)
class BlockSurvey:
    """The turns of a position that leave the opponent no winning turn, whatever tile they
    draw: ``blocks`` maps each such build to the first placement found with it (builds met
    again after other placements are not checked: they are the same answer). ``refuted``
    counts the other turns, each shown to let the opponent win."""

    placements: int
    turns: int
    refuted: int
    blocks: dict[str, str]


KILLERS: Final = 4
"""How many of the latest refutations a block survey tries first."""

Likely = Callable[[Move, Move], bool]
"""Whether a turn (placement, build) is worth trying first as a block."""


def survey_blocks(
    game: Game,
    work: Work,
    most: int = 2,
    likely: Likely | None = None,
    first: tuple[str, str] | None = None,
) -> BlockSurvey:
    """Try every turn of a two-player position for one that stops the opponent's win at once
    next turn; stop once ``most`` different blocking builds are found. Raise OutOfWork when
    the budget runs out. With ``likely``, the turns it names are tried first, and when none
    of them blocks the survey stops there (``blocks`` empty: the position is passed over
    unproven, which only ever loses puzzles). ``first`` is the opponent's reply to try first;
    after it, the replies that refuted the latest turns (like a chess search's killer moves:
    they only save time). The game is left as it was."""
    if game.is_over or game.phase != "tile" or game.player_count != 2:
        raise ValueError("a block puzzle is a two-player position at the start of a turn")
    seen: dict[tuple[Move, Move], bool] = {}
    killers = [first] if first is not None else []
    if likely is not None:
        tried = _scan(game, work, most, likely, killers, seen)
        if not tried.blocks or len(tried.blocks) >= most:
            return tried
    return _scan(game, work, most, None, killers, seen)


def _scan(
    game: Game,
    work: Work,
    most: int,
    only: Likely | None,
    killers: list[tuple[str, str]],
    seen: dict[tuple[Move, Move], bool],
) -> BlockSurvey:
    """One pass over the turns (those ``only`` names, or all); ``seen`` remembers whether
    each turn tried blocks, across passes, and ``killers`` the latest refutations."""
    placements = turns = refuted = 0
    blocks: dict[str, str] = {}
    for placement in game.legal_moves():
        if placement.kind != TILE:
            continue
        placements += 1
        game.push(placement)
        try:
            for build in game.legal_moves():
                turns += 1
                text = str(build)
                if text in blocks or (only is not None and not only(placement, build)):
                    continue
                key = (placement, build)
                if key not in seen:
                    threat = threat_after(game, text, work, killers)
                    seen[key] = threat is None
                    if threat is not None and threat.turn not in killers:
                        killers.insert(0, threat.turn)
                        del killers[KILLERS:]
                if seen[key]:
                    blocks[text] = str(placement)
                    if len(blocks) >= most:
                        return BlockSurvey(placements, turns, refuted, blocks)
                else:
                    refuted += 1
        finally:
            game.pop()
    return BlockSurvey(placements, turns, refuted, blocks)


def destroyable(game: Game, player: int) -> dict[int, str]:
    """The huts of ``player`` that an eruption on the board as it stands could destroy, each
    with one such tile placement (canonical text). Where an eruption may go does not depend
    on the tile's terrain, so this holds whatever tile the next player draws."""
    position = game.position
    sync_placements(position)
    building = position.building
    found: dict[int, str] = {}
    for code in sorted(position.erupt):
        for hex_ in footprint(code >> 3, code & 7)[1:]:
            piece = building.get(hex_)
            if piece is not None and piece >> 2 == player and piece & 3 == HUT_KIND:
                found.setdefault(hex_, str(TILE_MOVES[code]))
    return found


@dataclass(frozen=True, slots=True)
class SaveSurvey:
    """Every turn of a position where the mover's huts are under threat of an eruption, and
    the turns that *save* them: after a saving turn no eruption can destroy any hut of the
    mover's, and the turn itself destroyed none of theirs. ``threatened`` are the huts an
    eruption could destroy before the turn; ``saves`` every saving turn, in order."""

    placements: int
    turns: int
    threatened: tuple[int, ...]
    saves: tuple[tuple[str, str], ...]

    @property
    def key(self) -> str | None:
        """What every saving turn shares: one placement or one build (its text), or None when
        they share neither (or there are none)."""
        if not self.saves:
            return None
        for half in (0, 1):
            if len({turn[half] for turn in self.saves}) == 1:
                return self.saves[0][half]
        return None

    @property
    def saving_placements(self) -> int:
        return len({tile for tile, _ in self.saves})


def saves_after(game: Game, mover: int, destroyed_before: int) -> bool:
    """After a whole turn of ``mover``: whether none of their huts can be destroyed by the
    next eruption, and the turn destroyed none of theirs (or won)."""
    if game.is_over:
        return wins_at_once(game, mover)
    return game.destroyed_huts(mover) == destroyed_before and not destroyable(game, mover)


def eruption_reach(game: Game, player: int) -> tuple[frozenset[int], frozenset[int]]:
    """The hexes an eruption on the board as it stands would cover (beside its volcano): of
    the eruptions that destroy a hut of ``player``, and of all of them."""
    position = game.position
    sync_placements(position)
    building = position.building
    hitting: set[int] = set()
    every: set[int] = set()
    for code in position.erupt:
        covered = footprint(code >> 3, code & 7)[1:]
        every.update(covered)
        for hex_ in covered:
            piece = building.get(hex_)
            if piece is not None and piece >> 2 == player and piece & 3 == HUT_KIND:
                hitting.update(covered)
    return frozenset(hitting), frozenset(every)


def survey_saves(game: Game) -> SaveSurvey:
    """Enumerate every turn of a position at the start of a turn and return those that save
    the mover's threatened huts (none when nothing is threatened). A build only matters where
    an eruption reaches: after a placement that leaves some hut destroyable, only builds on a
    hex such an eruption covers can save; after one that leaves none, only builds on or next
    to a hex some eruption covers, or next to a settlement of one or two huts (which an
    eruption may not wipe out), can make a hut destroyable. The others are decided without
    playing them, but for an expansion or a build that may end the game. The game is left as
    it was."""
    if game.is_over or game.phase != "tile":
        raise ValueError("a puzzle position is the start of a turn, with a tile to place")
    mover = game.to_move
    threatened = tuple(sorted(destroyable(game, mover)))
    if not threatened:
        return SaveSurvey(0, 0, (), ())
    before = game.destroyed_huts(mover)
    winning = candidate_kinds(game)
    placements = turns = 0
    saves: list[tuple[str, str]] = []
    for placement in game.legal_moves():
        if placement.kind != TILE:
            continue
        placements += 1
        game.push(placement)
        own_lost = game.destroyed_huts(mover) != before
        hitting, every = eruption_reach(game, mover)
        # a build next to a settlement of one or two huts may end the rule that saved them
        # (an eruption may not destroy a whole settlement)
        small = {h for group in game.settlements(mover) if len(group) <= 2 for h in group}
        near = every | small
        near |= {h + d for h in near for d in DELTAS}
        for build in game.legal_moves():
            turns += 1
            # a build that may end the game, or an expansion (its huts' hexes are not in
            # its text), is played
            plain = not (game.tiles_left == 0 or build.kind in winning or build.kind == EXPAND)
            hexes = {build[1]}
            if plain and (own_lost or (hitting and not hexes & hitting)):
                continue  # a hut stays destroyable, or the tile destroyed some
            if plain and not hitting and not hexes & near:
                saves.append((str(placement), str(build)))
                continue
            game.push(build)
            if saves_after(game, mover, before):
                saves.append((str(placement), str(build)))
            game.pop()
        game.pop()
    return SaveSurvey(placements, turns, threatened, tuple(sorted(saves)))


def huts_destroyed_by(game: Game, placement: Move, victim: int) -> frozenset[int]:
    """The huts of ``victim`` a tile placement of the side to move destroys (none for a
    placement on the sea)."""
    if placement.kind != TILE:
        return frozenset()
    building = game.position.building
    hexes = footprint(placement[1], placement[2])[1:]
    return frozenset(
        h
        for h in hexes
        if (piece := building.get(h)) is not None and piece >> 2 == victim and game.level(h) > 0
    )


@dataclass(frozen=True, slots=True)
class SpoilSurvey:
    """The turns of a two-player position that stop the opponent's win at once next turn
    (whatever tile they draw), grouped by the opponent's huts their placement destroys:
    ``blocks`` maps each group (empty: the placement destroys none) to its first blocking
    turn. ``refuted`` counts the turns shown to let the opponent win; ``complete`` whether
    every turn was tried (a survey stops at a blocking turn that destroys nothing)."""

    placements: int
    turns: int
    refuted: int
    blocks: dict[frozenset[int], tuple[str, str]]
    complete: bool


def survey_spoils(game: Game, work: Work, first: tuple[str, str] | None = None) -> SpoilSurvey:
    """Try every turn of a two-player position for one that stops the opponent's win at once
    next turn, the placements that erupt on the opponent's huts first: when none of those
    blocks, or another placement does, the survey stops (the position is no spoil). Builds
    after a placement are tried until one blocks (the others are the same answer). Raise
    OutOfWork when the budget runs out. The game is left as it was."""
    if game.is_over or game.phase != "tile" or game.player_count != 2:
        raise ValueError("a spoil puzzle is a two-player position at the start of a turn")
    victim = 1 - game.to_move
    tiles = [move for move in game.legal_moves() if move.kind == TILE]
    groups = {tile: huts_destroyed_by(game, tile, victim) for tile in tiles}
    tiles.sort(key=lambda tile: not groups[tile])
    killers = [first] if first is not None else []
    blocks: dict[frozenset[int], tuple[str, str]] = {}
    placements = turns = refuted = 0
    for placement in tiles:
        group = groups[placement]
        if not group and not blocks:
            return SpoilSurvey(placements, turns, refuted, blocks, False)
        placements += 1
        if group in blocks:
            continue
        game.push(placement)
        try:
            for build in game.legal_moves():
                turns += 1
                threat = threat_after(game, str(build), work, killers)
                if threat is None:
                    blocks[group] = (str(placement), str(build))
                    break
                refuted += 1
                if threat.turn not in killers:
                    killers.insert(0, threat.turn)
                    del killers[KILLERS:]
        finally:
            game.pop()
        if frozenset() in blocks:
            return SpoilSurvey(placements, turns, refuted, blocks, False)
    return SpoilSurvey(placements, turns, refuted, blocks, True)
