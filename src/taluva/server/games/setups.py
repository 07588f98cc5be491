"""The game a seek or a challenge asks for (``Setup``: players, rated or casual, a clock
preset, options), the lobby's quick pairing tiles, and starting such a game with its players
seated under their accounts."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Engine

from taluva.engine.errors import InvalidOption
from taluva.engine.game import Game
from taluva.engine.options import PLAYER_COUNTS
from taluva.engine.wording import T, Text, Tn
from taluva.server.errors import ApiError
from taluva.server.games import clocks
from taluva.server.games.service import RATED_NEEDS_CLOCK, GameService
from taluva.server.games.words import reason_of
from taluva.server.players.accounts import Account
from taluva.server.players.ratings import Rated, ratings_of

RATING_RANGES: Final = (100, 200, 300, 500)
"""The rating ranges a seek may ask for (plus or minus so many points), or none."""

_TILES: Final = (
    (2, True, "5 minutes + 10 seconds"),
    (2, True, "10 minutes + 20 seconds"),
    (2, True, "1 day a turn"),
    (3, True, "10 minutes + 20 seconds"),
)
"""The quick pairing tiles: players, rated, and the clock preset (``clocks.PRESETS``) by label."""


def _preset(label: str) -> dict[str, Any]:
    """The clock preset of this label (a KeyError at import if the presets changed)."""
    for preset in clocks.PRESETS:
        if preset["label"] == label:
            return dict(preset)
    raise KeyError(label)


def _tile(players: int, rated: bool, label: str) -> dict[str, Any]:
    preset = _preset(label)
    rule = {key: value for key, value in preset.items() if key != "label"}
    kind = "rated" if rated else "casual"
    clock = preset["label"]
    words = (
        Tn(
            "{players} player · {clock} · rated",
            "{players} players · {clock} · rated",
            players,
            players=players,
            clock=clock,
        )
        if rated
        else Tn(
            "{players} player · {clock} · casual",
            "{players} players · {clock} · casual",
            players,
            players=players,
            clock=clock,
        )
    )
    if rule["kind"] == clocks.TURN:
        pace = f"{rule['per_turn'] // clocks.DAY}d"
    else:
        pace = f"{rule['base'] // 60}+{rule['increment']}"
    return {
        "id": f"{players}p-{pace}-{kind}",
        "label": words,
        "seek": {"players": players, "rated": rated, "clock": rule},
    }


QUICK_PAIRINGS: Final = tuple(_tile(*tile) for tile in _TILES)
"""The lobby's quick pairing tiles, sent in ``GET /api/config``: each posts its ``seek``."""


def seeks_config() -> dict[str, Any]:
    """What ``GET /api/config`` says about seeks: the quick pairing tiles and the ranges."""
    return {"quick": [dict(tile) for tile in QUICK_PAIRINGS], "rating_ranges": list(RATING_RANGES)}


# ---------------------------------------------------------------------- the game asked for


@dataclass(frozen=True, slots=True)
class Setup:
    """The game a seek or a challenge asks for: how many players, rated or casual, the clock
    (a lobby preset, label included; None for none) and the options."""

    players: int
    rated: bool
    clock: dict[str, Any] | None
    tiles_per_player: int = 12
    expansions: tuple[str, ...] = ()
    house_rules: tuple[str, ...] = ()

    @classmethod
    def parse(cls, fields: dict[str, Any]) -> Setup:
        """The setup of a request's fields (``players``, ``rated``, ``clock``,
        ``tiles_per_player``, ``expansions``, ``house_rules``), or ApiError 422 saying what
        is wrong: ``bad-request``, ``not-rateable`` or the engine's ``bad-option``."""
        players = fields.get("players")
        if not isinstance(players, int) or players not in PLAYER_COUNTS:
            counts = ", ".join(str(n) for n in PLAYER_COUNTS)
            raise ApiError(422, "bad-request", T("players must be one of {counts}", counts=counts))
        clock = preset_of(fields.get("clock"))
        rated = fields.get("rated")
        if rated is None:
            rated = clock is not None
        if rated and clock is None:
            raise ApiError(422, "not-rateable", RATED_NEEDS_CLOCK)
        tiles = fields.get("tiles_per_player", 12)
        expansions = tuple(sorted(set(fields.get("expansions") or [])))
        house_rules = tuple(sorted(set(fields.get("house_rules") or [])))
        try:
            Game.new(
                players=[f"Player {n + 1}" for n in range(players)],
                seed=0,
                tiles_per_player=tiles,
                expansions=list(expansions),
                house_rules=list(house_rules),
            )
        except InvalidOption as error:
            raise ApiError(422, "bad-option", reason_of(error)) from None
        return cls(players, bool(rated), clock, tiles, expansions, house_rules)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Setup:
        """The setup stored as ``to_json`` made it; the clock's label (kept as English) is
        its preset's ``Text`` again, said in each reader's language."""
        clock = data.get("clock")
        if clock is not None:
            clock = {**clock, "label": clocks.preset_label(clock, clock.get("label"))}
        return cls(
            players=int(data["players"]),
            rated=bool(data["rated"]),
            clock=clock,
            tiles_per_player=int(data.get("tiles_per_player", 12)),
            expansions=tuple(data.get("expansions") or ()),
            house_rules=tuple(data.get("house_rules") or ()),
        )

    def to_json(self) -> dict[str, Any]:
        """The setup as the API shows it (and the database keeps it)."""
        return {
            "players": self.players,
            "rated": self.rated,
            "clock": None if self.clock is None else dict(self.clock),
            "tiles_per_player": self.tiles_per_player,
            "expansions": list(self.expansions),
            "house_rules": list(self.house_rules),
        }

    def words(self) -> Text:
        """The setup as a mail says it: "2 players, 10 minutes + 20 seconds, rated" (a
        ``Text``: the clock's words are the preset's, in the reader's language)."""
        n = self.players
        if self.clock is None:
            clock = T("no clock")
        else:
            clock = clocks.preset_label(self.clock, self.clock.get("label"))
        if self.rated:
            return Tn(
                "{n} player, {clock}, rated", "{n} players, {clock}, rated", n, n=n, clock=clock
            )
        return Tn(
            "{n} player, {clock}, casual", "{n} players, {clock}, casual", n, n=n, clock=clock
        )

    def key(self) -> str:
        """The digest that equal setups share: seeks with the same key match."""
        canonical = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def request(self, names: Sequence[str]) -> dict[str, Any]:
        """The new-game request (``GameService.create_game``) of this setup for players of
        these names: the first seat taken by the creator, the others left free for them."""
        request: dict[str, Any] = {
            "seats": [
                {"kind": "human", "name": name, "take": index == 0}
                for index, name in enumerate(names)
            ],
            "tiles_per_player": self.tiles_per_player,
            "expansions": list(self.expansions),
            "house_rules": list(self.house_rules),
            "hints": not self.rated,
            "rated": self.rated,
        }
        if self.clock is not None:
            request["clock"] = {k: v for k, v in self.clock.items() if k != "label"}
        return request


def preset_of(clock: Any) -> dict[str, Any] | None:
    """The lobby's clock preset (``clocks.PRESETS``, with its label) that the request's
    ``clock`` field names, None for no clock; ApiError 422 for any other clock."""
    if clock is None:
        return None
    if isinstance(clock, dict):
        rule = {key: value for key, value in clock.items() if value is not None}
        if rule.get("kind") == clocks.NONE:
            return None
        for preset in clocks.PRESETS:
            if preset["kind"] != clocks.NONE and rule == {
                key: value for key, value in preset.items() if key != "label"
            }:
                return dict(preset)
    labels = _joined([preset["label"] for preset in clocks.PRESETS])
    raise ApiError(
        422,
        "bad-request",
        T(
            "clock must be one of the lobby's presets ({where}): {labels}",
            where="GET /api/config",
            labels=labels,
        ),
    )


def _joined(labels: Sequence[Any]) -> Any:
    """Labels joined by commas, each said in the reader's language (English: ", ")."""
    if len(labels) == 1:
        return labels[0]
    return T("{first}, {rest}", first=labels[0], rest=_joined(labels[1:]))


async def start_game(service: GameService, setup: Setup, players: Sequence[Account]) -> str:
    """Create the game of ``setup`` with ``players`` seated under their accounts, in an
    order drawn at random, so it is live at once; return its id. The first player creates it
    (``GameService.create_game``), the others take their seats (``GameService.join``), as if
    each had clicked."""
    order = list(players)
    random.SystemRandom().shuffle(order)
    room, _tokens = await service.create_game(
        setup.request([player.name for player in order]), order[0].id
    )
    for seat, player in enumerate(order[1:], start=1):
        await service.join(room.id, seat, player.name, player)
    return room.id


def displayed_ratings(engine: Engine, account_ids: Iterable[int]) -> dict[int, int]:
    """The rating people see of each account (``players.ratings.ratings_of``)."""
    found = ratings_of(engine, [Rated(account_id=account) for account in set(account_ids)])
    return {
        subject.account_id: shown.rating
        for subject, shown in found.items()
        if subject.account_id is not None
    }
