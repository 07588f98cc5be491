"""How a game ended: the ranking with shared places, the reason, and the BGA score
(docs/rules.md, "Ranking"); ``rules/ending.py`` decides when it ends."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from taluva.engine.pieces import (
    HUTS,
    PIECE_NAMES,
    PILE_WORDS,
    SHIPS,
    STARTING_SUPPLY,
    TEMPLES,
    TOWERS,
    piece_count,
)
from taluva.engine.refusals import and_list
from taluva.engine.wording import T, Text

__all__ = [
    "PIECE_NAMES",
    "PLACE_NAMES",
    "REASON_TEXTS",
    "STARTING_SUPPLY",
    "Outcome",
    "Reason",
    "Resignation",
    "placed_counts",
    "rank_players",
    "score",
]


class Reason(StrEnum):
    """Why the game ended, as written in a record's ``result.reason``."""

    VICTORY = "victory"
    LAST_STANDING = "last-standing"
    TILES = "tiles"
    NO_PLACEMENT = "no-placement"
    RESIGNED = "resigned"
    TIMEOUT = "timeout"
    LEFT = "left"

    def __str__(self) -> str:
        return self.value

    @property
    def description(self) -> Text:
        """The reason in words, as every interface shows it ("the tiles ran out")."""
        return REASON_TEXTS[self]


REASON_TEXTS: Final[Mapping[Reason, Text]] = {
    Reason.VICTORY: T("a player placed all pieces of two kinds"),
    Reason.LAST_STANDING: T("every other player was eliminated"),
    Reason.TILES: T("no tile was left to take"),
    Reason.NO_PLACEMENT: T("no tile could be placed"),
    Reason.RESIGNED: T("the last opponent resigned"),
    Reason.TIMEOUT: T("the last opponent ran out of time"),
    Reason.LEFT: T("the last opponent left the game"),
}
"""The one table of end-reason texts that the CLI, terminal, server and research layer show."""

LEAVING_REASONS: Final = (Reason.RESIGNED, Reason.TIMEOUT, Reason.LEFT)
"""How a player may leave a game that goes on without them (docs/rules.md, ruling 22)."""
LEAVING_CHOICES: Final = (
    ", ".join(repr(r.value) for r in LEAVING_REASONS[:-1]) + f" or {LEAVING_REASONS[-1].value!r}"
)
"""The leaving reasons as an error message lists them: "'resigned', 'timeout' or 'left'"."""

LEFT_TEXTS: Final[Mapping[Reason, Text]] = {
    Reason.RESIGNED: T("resigned"),
    Reason.TIMEOUT: T("ran out of time"),
    Reason.LEFT: T("left the game"),
}
"""What a player who left did, in words: "Ben resigned", "Ben ran out of time"."""

PLACE_NAMES: Final = (T("1st"), T("2nd"), T("3rd"), T("4th"), T("5th"))
"""Ordinal names of the places, by 1-based place minus one."""


@dataclass(frozen=True, eq=False)
class Outcome(Mapping[str, Any]):
    """The end of a game: ``ranking`` lists places best first, each a tuple of player indices.

    It reads like the record's result object (``outcome["reason"] == "tiles"``) and equals it.

    >>> outcome = Outcome(((1,), (0, 2)), Reason.TILES)
    >>> outcome.winners, dict(outcome)
    ((1,), {'ranking': [[1], [0, 2]], 'reason': 'tiles'})
    """

    ranking: tuple[tuple[int, ...], ...]
    reason: Reason

    @property
    def winners(self) -> tuple[int, ...]:
        """The player or players sharing first place."""
        return self.ranking[0]

    def place_of(self, player: int) -> int:
        """1-based place of a player (players sharing a place get the same number)."""
        try:
            return self.places()[player]
        except KeyError:
            raise ValueError(f"player {player} is not in this ranking") from None

    def places(self) -> dict[int, int]:
        """Every ranked player's 1-based place, best first; a shared place spans its players.

        >>> Outcome(((1,), (0, 2), (3,)), Reason.TILES).places()
        {1: 1, 0: 2, 2: 2, 3: 4}
        """
        places: dict[int, int] = {}
        place = 1
        for group in self.ranking:
            places.update(dict.fromkeys(group, place))
            place += len(group)
        return places

    def to_json(self) -> dict[str, Any]:
        """The record's ``result`` object."""
        return {"ranking": [list(group) for group in self.ranking], "reason": self.reason.value}

    @classmethod
    def from_json(cls, obj: Any) -> Outcome:
        """Read a record's ``result`` object; raise ValueError if malformed."""
        if not isinstance(obj, Mapping) or set(obj) != {"ranking", "reason"}:
            raise ValueError("result must be null or an object with 'ranking' and 'reason'")
        try:
            reason = Reason(obj["reason"])
        except ValueError:
            raise ValueError(
                f"result.reason {obj['reason']!r} is not one of "
                + ", ".join(r.value for r in Reason)
            ) from None
        ranking = obj["ranking"]
        if not isinstance(ranking, list) or not all(
            isinstance(g, list) and g and all(type(p) is int for p in g) for g in ranking
        ):
            raise ValueError("result.ranking must be a list of non-empty lists of player indices")
        return cls(tuple(tuple(g) for g in ranking), reason)

    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(("ranking", "reason"))

    def __len__(self) -> int:
        return 2

    def __repr__(self) -> str:
        return f"Outcome({self.ranking!r}, {self.reason!s})"


@dataclass(frozen=True, slots=True)
class Resignation:
    """A player leaving the game, not a move: after ``ply`` moves, ``player`` resigned
    (``Reason.RESIGNED``) or ran out of time (``Reason.TIMEOUT``)."""

    ply: int
    player: int
    reason: Reason

    def to_json(self) -> dict[str, Any]:
        """One entry of a record's ``resignations`` list."""
        return {"ply": self.ply, "player": self.player, "reason": self.reason.value}


def placed_counts(supply: Sequence[int], ships: bool) -> tuple[int, ...]:
    """Pieces a player has placed (destroyed huts count), in ranking order."""
    placed = tuple(start - left for start, left in zip(STARTING_SUPPLY, supply, strict=True))
    return (placed[TEMPLES], placed[TOWERS], placed[HUTS]) + ((placed[SHIPS],) if ships else ())


def score(supply: Sequence[int]) -> int:
    """Board Game Arena's score: 1000 a temple, 100 a tower, 1 a hut placed."""
    placed = [start - left for start, left in zip(STARTING_SUPPLY, supply, strict=True)]
    return 1000 * placed[TEMPLES] + 100 * placed[TOWERS] + placed[HUTS]


def rank_players(
    supplies: Sequence[Sequence[int]],
    eliminated: Sequence[int],
    winner: int | None,
    ships: bool,
) -> tuple[tuple[int, ...], ...]:
    """Order players: the winner, then the others still in by pieces placed, then the eliminated.

    Players equal on every count share a place; the later eliminated rank higher.
    """
    out = set(eliminated)
    remaining = [p for p in range(len(supplies)) if p not in out and p != winner]
    keys = {p: placed_counts(supplies[p], ships) for p in remaining}
    ranking: list[tuple[int, ...]] = [(winner,)] if winner is not None else []
    for key in sorted(set(keys.values()), reverse=True):
        ranking.append(tuple(p for p in remaining if keys[p] == key))
    ranking.extend((p,) for p in reversed(eliminated))
    return tuple(ranking)


YOU: Final = T("You")
"""The name the terminal gives a lone person: the headline then says "You win". Give this
Text itself as the name (not words already translated), so that every language finds it."""

RANKING_KINDS: Final = ("temples", "towers", "huts", "ships")
"""What decides the ranking at the end, in order (ships only with the Ships expansion)."""
_RANKING_PIECES: Final = (TEMPLES, TOWERS, HUTS, SHIPS)


def _listed(words: Sequence[str]) -> str:
    """``Ana``, ``Ana and Ben``, ``Ana, Ben and Cy``."""
    if len(words) == 1:
        return words[0]
    first = words[0] if len(words) == 2 else ", ".join(words[:-1])
    return T("{first} and {second}", first=first, second=words[-1])


def _placed_words(placed: Sequence[int]) -> Text:
    """``3 temples, 0 towers, 11 huts`` (and ships with the Ships expansion)."""
    counts = {
        PIECE_NAMES[kind]: piece_count(kind, n)
        for kind, n in zip(_RANKING_PIECES, placed, strict=False)
    }
    if len(counts) == 4:
        return T("{temples}, {towers}, {huts}, {ships}", **counts)
    return T("{temples}, {towers}, {huts}", **counts)


def _victory_kinds(supply: Sequence[int], ships: bool) -> str:
    """The piles a winner emptied: ``temples and towers``."""
    kinds = [PILE_WORDS[k] for k in (TEMPLES, TOWERS, HUTS) if supply[k] == 0]
    if ships and supply[SHIPS] == 0:
        kinds.append(PILE_WORDS[SHIPS])
    return and_list(kinds)


def _most(kind: int, mine: int, theirs: int) -> Text:
    if kind == TEMPLES:
        return T("most temples built ({mine} against {theirs})", mine=mine, theirs=theirs)
    if kind == TOWERS:
        return T("most towers built ({mine} against {theirs})", mine=mine, theirs=theirs)
    if kind == HUTS:
        return T("most huts built ({mine} against {theirs})", mine=mine, theirs=theirs)
    return T("most ships built ({mine} against {theirs})", mine=mine, theirs=theirs)


def _as_many(kind: int, mine: int) -> Text:
    if kind == TEMPLES:
        return T("as many temples ({mine})", mine=mine)
    if kind == TOWERS:
        return T("as many towers ({mine})", mine=mine)
    if kind == HUTS:
        return T("as many huts ({mine})", mine=mine)
    return T("as many ships ({mine})", mine=mine)


def _decided_by(first: Sequence[int], second: Sequence[int]) -> Text:
    """How one player's placed pieces beat another's: the counts compared, in order."""
    words: Text | None = None
    for kind, mine, theirs in zip(_RANKING_PIECES, first, second, strict=False):
        part = _most(kind, mine, theirs) if mine != theirs else _as_many(kind, mine)
        words = part if words is None else T("{first}, then {next}", first=words, next=part)
        if mine != theirs:
            break
    assert words is not None
    return words


def _player_line(place: Text, name: str, pieces: Text, left: Reason | None, out: bool) -> Text:
    """One player's line of the result: place, name, pieces placed, and how they left."""
    values = {"place": place, "name": name, "pieces": pieces}
    if left == Reason.RESIGNED:
        return T("{place} {name}: {pieces} placed, resigned", **values)
    if left == Reason.TIMEOUT:
        return T("{place} {name}: {pieces} placed, ran out of time", **values)
    if left == Reason.LEFT:
        return T("{place} {name}: {pieces} placed, left the game", **values)
    if out:
        return T("{place} {name}: {pieces} placed, eliminated", **values)
    return T("{place} {name}: {pieces} placed", **values)


def _gone(name: str, reason: Reason) -> Text:
    """The last opponent's leaving as a clause: ``Ben resigned``."""
    if reason == Reason.TIMEOUT:
        return T("{name} ran out of time", name=name)
    if reason == Reason.LEFT:
        return T("{name} left the game", name=name)
    return T("{name} resigned", name=name)


def _wins(who: str, reason: Text, decided: Text | None = None) -> Text:
    """``Ben wins: REASON`` (``You win`` for the lone person), with what decided it if given."""
    if who == YOU:
        if decided is None:
            return T("You win: {reason}", reason=reason)
        return T("You win: {reason}; {decided}", reason=reason, decided=decided)
    if decided is None:
        return T("{who} wins: {reason}", who=who, reason=reason)
    return T("{who} wins: {reason}; {decided}", who=who, reason=reason, decided=decided)


def result_in_words(
    outcome: Outcome,
    names: Sequence[str],
    supplies: Sequence[Sequence[int]],
    ships: bool,
    eliminated: Sequence[int] = (),
    left: Mapping[int, Reason] | None = None,
) -> tuple[Text, list[str]]:
    """The end of a game as people say it: a headline naming the winners and why, then one
    line a player in ranking order (place, name, pieces placed; eliminated players say so).
    No composite score: the counts that decided, in the order they decide. ``left`` names the
    eliminated players who resigned or ran out of time (``Reason.RESIGNED``, ``TIMEOUT``).
    The headline and each line are ``Text``s, to be said in the reader's language.

    >>> outcome = Outcome(((1,), (0,)), Reason.TILES)
    >>> headline, lines = result_in_words(outcome, ["Ana", "Ben"], [(8, 1, 1, 0), (9, 0, 2, 0)],
    ...                                   ships=False)
    >>> headline
    'Ben wins: no tile was left to take; most temples built (3 against 2)'
    >>> lines
    ['1st Ben: 3 temples, 0 towers, 11 huts placed', '2nd Ana: 2 temples, 1 tower, 12 huts placed']
    """
    left = left or {}
    placed = {p: placed_counts(supplies[p], ships) for p in range(len(names))}
    winners = outcome.winners
    who = _listed([names[p] for p in winners])
    headline: Text
    if outcome.reason == Reason.VICTORY:
        kinds = _victory_kinds(supplies[winners[0]], ships)
        if who == YOU:
            headline = T("You win by placing every one of your {kinds}", kinds=kinds)
        else:
            headline = T("{who} wins by placing every one of their {kinds}", who=who, kinds=kinds)
    elif outcome.reason in LEAVING_REASONS and eliminated:
        last_out = eliminated[-1]
        headline = _wins(who, _gone(names[last_out], left.get(last_out, outcome.reason)))
    elif len(winners) > 1:
        headline = T(
            "{who} share first place: {reason}; equal on everything ({pieces})",
            who=who,
            reason=outcome.reason.description,
            pieces=_placed_words(placed[winners[0]]),
        )
    else:
        decided = None
        if outcome.reason != Reason.LAST_STANDING and len(outcome.ranking) > 1:
            runner = outcome.ranking[1][0]
            if runner not in eliminated:
                decided = _decided_by(placed[winners[0]], placed[runner])
        headline = _wins(who, outcome.reason.description, decided)
    lines: list[str] = [
        _player_line(
            PLACE_NAMES[place - 1],
            names[player],
            _placed_words(placed[player]),
            left.get(player),
            player in eliminated,
        )
        for player, place in outcome.places().items()
    ]
    return headline, lines
