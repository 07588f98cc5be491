"""How a game ended: the ranking with shared places, the reason, and the BGA score
(docs/rules.md, "Ranking"); ``rules/ending.py`` decides when it ends."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from taluva.engine.pieces import HUTS, PIECE_NAMES, SHIPS, STARTING_SUPPLY, TEMPLES, TOWERS

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
    def description(self) -> str:
        """The reason in words, as every interface shows it ("the tiles ran out")."""
        return REASON_TEXTS[self]


REASON_TEXTS: Final[Mapping[Reason, str]] = {
    Reason.VICTORY: "a player placed all pieces of two kinds",
    Reason.LAST_STANDING: "every other player was eliminated",
    Reason.TILES: "no tile was left to take",
    Reason.NO_PLACEMENT: "no tile could be placed",
    Reason.RESIGNED: "the last opponent resigned",
    Reason.TIMEOUT: "the last opponent ran out of time",
    Reason.LEFT: "the last opponent left the game",
}
"""The one table of end-reason texts that the CLI, terminal, server and research layer show."""

LEAVING_REASONS: Final = (Reason.RESIGNED, Reason.TIMEOUT, Reason.LEFT)
"""How a player may leave a game that goes on without them (docs/rules.md, ruling 22)."""
LEAVING_CHOICES: Final = (
    ", ".join(repr(r.value) for r in LEAVING_REASONS[:-1]) + f" or {LEAVING_REASONS[-1].value!r}"
)
"""The leaving reasons as an error message lists them: "'resigned', 'timeout' or 'left'"."""

LEFT_TEXTS: Final[Mapping[Reason, str]] = {
    Reason.RESIGNED: "resigned",
    Reason.TIMEOUT: "ran out of time",
    Reason.LEFT: "left the game",
}
"""What a player who left did, in words: "Ben resigned", "Ben ran out of time"."""

PLACE_NAMES: Final = ("1st", "2nd", "3rd", "4th", "5th")
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


YOU: Final = "You"
"""The name the terminal gives a lone person: the headline then says "You win"."""

RANKING_KINDS: Final = ("temples", "towers", "huts", "ships")
"""What decides the ranking at the end, in order (ships only with the Ships expansion)."""


def _counted(kind: str, count: int) -> str:
    return f"{count} {kind if count != 1 else kind[:-1]}"


def _listed(words: Sequence[str]) -> str:
    """``Ana``, ``Ana and Ben``, ``Ana, Ben and Cy``."""
    return " and ".join([", ".join(words[:-1]), words[-1]] if len(words) > 2 else words)


def _placed_words(placed: Sequence[int]) -> str:
    return ", ".join(_counted(kind, n) for kind, n in zip(RANKING_KINDS, placed, strict=False))


def _victory_kinds(supply: Sequence[int], ships: bool) -> list[str]:
    kinds = [PIECE_NAMES[k] for k in (TEMPLES, TOWERS, HUTS) if supply[k] == 0]
    if ships and supply[SHIPS] == 0:
        kinds.append(PIECE_NAMES[SHIPS])
    return kinds


def _decided_by(first: Sequence[int], second: Sequence[int]) -> str:
    """How one player's placed pieces beat another's: the counts compared, in order."""
    parts = []
    for kind, mine, theirs in zip(RANKING_KINDS, first, second, strict=False):
        if mine != theirs:
            parts.append(f"most {kind} built ({mine} against {theirs})")
            break
        parts.append(f"as many {kind} ({mine})")
    return ", then ".join(parts)


def result_in_words(
    outcome: Outcome,
    names: Sequence[str],
    supplies: Sequence[Sequence[int]],
    ships: bool,
    eliminated: Sequence[int] = (),
    left: Mapping[int, Reason] | None = None,
) -> tuple[str, list[str]]:
    """The end of a game as people say it: a headline naming the winners and why, then one
    line a player in ranking order (place, name, pieces placed; eliminated players say so).
    No composite score: the counts that decided, in the order they decide. ``left`` names the
    eliminated players who resigned or ran out of time (``Reason.RESIGNED``, ``TIMEOUT``).

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
    you = who == YOU
    if outcome.reason == Reason.VICTORY:
        kinds = " and ".join(_victory_kinds(supplies[winners[0]], ships))
        headline = f"{who} {'win' if you else 'wins'} by placing every one of "
        headline += f"{'your' if you else 'their'} {kinds}"
    elif outcome.reason in LEAVING_REASONS and eliminated:
        last_out = eliminated[-1]
        headline = f"{who} {'win' if you else 'wins'}: {names[last_out]} "
        headline += LEFT_TEXTS[left.get(last_out, outcome.reason)]
    elif len(winners) > 1:
        headline = (
            f"{who} share first place: {outcome.reason.description}; equal on everything "
            f"({_placed_words(placed[winners[0]])})"
        )
    else:
        headline = f"{who} {'win' if you else 'wins'}: {outcome.reason.description}"
        if outcome.reason != Reason.LAST_STANDING and len(outcome.ranking) > 1:
            runner = outcome.ranking[1][0]
            if runner not in eliminated:
                headline += f"; {_decided_by(placed[winners[0]], placed[runner])}"
    lines = []
    for player, place in outcome.places().items():
        line = f"{PLACE_NAMES[place - 1]} {names[player]}: {_placed_words(placed[player])} placed"
        if player in left:
            line += f", {LEFT_TEXTS[left[player]]}"
        elif player in eliminated:
            line += ", eliminated"
        lines.append(line)
    return headline, lines
