"""What clients may see of a game, as JSON: the board, the players, the log, the legal moves.

The draw pile's order is hidden information, so no view includes it; seat tokens never
appear in a view either. Expansion data (ships, lagoons, face-up double-hex tiles, the
board zone) is read only when the engine offers it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from taluva.engine.errors import IllegalMove
from taluva.engine.expansions.board_zones import ZONES
from taluva.engine.game import Game
from taluva.engine.hexes import coords
from taluva.engine.moves import EXPAND, move_texts
from taluva.engine.outcome import PLACE_NAMES
from taluva.engine.position import Phase
from taluva.engine.tiles import TERRAIN_NAMES
from taluva.engine.wording import T, Text
from taluva.server.games import clocks
from taluva.server.players.ratings import Rated, Shown
from taluva.server.players.standings import subject_of
from taluva.server.storage.store import StoredGame, StoredSeat, utc


def _qr(hex_: int) -> list[int]:
    q, r = coords(hex_)
    return [q, r]


def _optional(game: Game, name: str) -> Any:
    """An engine attribute that only some versions have (expansions), or None."""
    value = getattr(game, name, None)
    if callable(value):
        call: Callable[[], Any] = value
        return call()
    return value


def zone_view(name: str | None) -> dict[str, Any] | None:
    """The board zone's name and outline (in units of the hex size), if the game has one."""
    if not name:
        return None
    zone = ZONES.get(name)
    polygon = [] if zone is None else [[round(x, 4), round(y, 4)] for x, y in zone.polygon]
    return {"name": name, "title": getattr(zone, "title", name), "polygon": polygon}


def board_view(game: Game) -> dict[str, Any]:
    """The island: hexes ``[q, r, level, terrain, tile]``, buildings, ships and lagoons."""
    heights, terrains, tiles = game.heights(), game.terrains(), game.tile_indexes()
    hexes = [[*coords(h), level, terrains[h], tiles[h]] for h, level in sorted(heights.items())]
    buildings = [
        [*coords(h), player, kind, heights[h]]
        for h, (player, kind) in sorted(game.buildings().items())
    ]
    ships_raw = _optional(game, "ships")
    ships = (
        [[*coords(h), player] for h, player in sorted(ships_raw.items())]
        if isinstance(ships_raw, dict)
        else []
    )
    lagoons_raw = _optional(game, "lagoons")
    lagoons = (
        [[_qr(h) for h in sorted(lagoon)] for lagoon in lagoons_raw]
        if isinstance(lagoons_raw, Iterable)
        else []
    )
    return {"hexes": hexes, "buildings": buildings, "ships": ships, "lagoons": lagoons}


def players_view(meta: StoredGame, game: Game) -> list[dict[str, Any]]:
    """One entry per seat: name, human or AI, pieces left and placed, whether still in (and
    Board Game Arena's score, for tools: the page does not show it)."""
    out = set(game.eliminated)
    left = {entry.player: entry.reason.value for entry in game.resignations}
    return [
        {
            "seat": seat.seat,
            "name": seat_name(seat),
            "kind": seat.kind,
            "level": seat_level(seat),
            "taken": seat.taken,
            "account_id": seat.account_id,
            "supply": game.supply(seat.seat),
            "placed": game.placed(seat.seat),
            "score": game.score(seat.seat),
            "destroyed": game.destroyed_huts(seat.seat),
            "eliminated": seat.seat in out,
            "left": left.get(seat.seat),
            **PRESENT,
        }
        for seat in meta.seats
    ]


PRESENT: dict[str, Any] = {"claim_in_ms": None}
"""A seat's presence field when no claim against it can come: set as a state is sent
(``with_presence``)."""


def with_presence(players: list[dict[str, Any]], claims: Mapping[int, int]) -> list[dict[str, Any]]:
    """``players`` (of ``players_view``) with the wait before the others may claim the win
    against each seat (``claim_in_ms``, milliseconds from now; None when none can come)."""
    return [{**player, "claim_in_ms": claims.get(player["seat"])} for player in players]


def presence_entries(seats: int, claims: Mapping[int, int]) -> list[dict[str, Any]]:
    """One ``{"seat", "claim_in_ms"}`` a seat: the ``presence`` message's list."""
    return [{"seat": seat, "claim_in_ms": claims.get(seat)} for seat in range(seats)]


def result_view(game: Game) -> dict[str, Any] | None:
    """The ranking with the reason in words, the headline (who won and why) and one line a
    place, and each seat's place; None while the game runs (clients show the engine's texts,
    ``Game.result_in_words``, rather than keeping their own)."""
    outcome = game.result
    if outcome is None:
        return None
    data = outcome.to_json()
    data["explanation"] = outcome.reason.description
    data["headline"], data["lines"] = game.result_in_words()
    data["places"] = [
        {"seat": seat, "place": place, "name": PLACE_NAMES[place - 1]}
        for seat, place in outcome.places().items()
    ]
    return data


ENDING_TEXTS = {
    "abandoned": T("The game was abandoned: nobody moved for too long"),
    "cancelled": T("The game was cancelled by its host before it started"),
    "aborted": T("The game was aborted in its first turns: no result, no rating change"),
}
"""Headlines of the endings the server decides (the engine's are ``Game.result_in_words``)."""


def ending_view(meta: StoredGame) -> dict[str, Any] | None:
    """The result of a game abandoned, cancelled or aborted (no ranking), or None."""
    reason = (meta.result or {}).get("reason")
    if reason not in ENDING_TEXTS:
        return None
    text = ENDING_TEXTS[reason]
    return {
        "ranking": [],
        "reason": reason,
        "explanation": text,
        "headline": text,
        "lines": [],
        "places": [],
    }


def state_view(
    meta: StoredGame,
    game: Game,
    plies: int | None = None,
    *,
    live: bool = True,
    effects: list[dict[str, Any]] | None = None,
    legal_for: int | None = None,
) -> dict[str, Any]:
    """The whole public state of a game at ``game``'s position: the current one, or a past one
    for replays (``plies`` then says how many moves the game has). ``effects``: those of the
    game's moves as JSON, if the caller keeps them (a room does, so each is computed once).
    ``legal_for``: list legal moves only while that seat is to move (None: any seat)."""
    playing = live and meta.status == "live" and not game.is_over
    playing = playing and legal_for in (None, game.to_move)
    legal = game.legal_moves() if playing else ()
    building = playing and game.phase == Phase.BUILD
    doubles = _optional(game, "doubles")
    return {
        "id": meta.id,
        "name": meta.name,
        "status": meta.status if live else ("finished" if game.is_over else "replay"),
        "ply": game.ply,
        "plies": game.ply if plies is None else plies,
        "phase": game.phase,
        "to_move": game.to_move,
        "tile": game.tile,
        "tiles_left": game.tiles_left,
        "doubles": list(doubles) if doubles is not None else [],
        "zone": zone_view(_optional(game, "zone")),
        "options": game.options,
        "hints": meta.hints,
        "rated": meta.rated,
        "players": players_view(meta, game),
        **board_view(game),
        "moves": move_texts(game.moves),
        "movers": meta.move_seats[: game.ply],
        "effects": [e.to_json() for e in game.effects()] if effects is None else effects,
        "legal": sorted(move_texts(legal)),
        "expansion_huts": (
            {str(m): game.huts_placed(m) for m in legal if m.kind == EXPAND} if building else {}
        ),
        "result": result_view(game) or (ending_view(meta) if live else None),
        "terrains": list(TERRAIN_NAMES),
        "clock": clocks.clock_view(meta.clock, clocks.now_ms()) if live else None,
        "resignations": [entry.to_json() for entry in game.resignations],
    }


SCRIPT = "script"
"""The ``kind`` of a seat whose moves a script makes (a lesson's opponents, a puzzle's)."""
_NEVER = datetime(2000, 1, 1, tzinfo=UTC)


def explain_view(game: Game, text: str, reason: str | None) -> dict[str, Any]:
    """The answer to "may I play ``text`` now?" in ``game``: ``reason`` is why not (None: it
    may), and a legal move carries what it would do (``MoveEffect.to_json``, as in a state);
    the words of the hover explanations."""
    effect = None
    if reason is None:
        trial = game.copy()
        trial.play(text)
        effect = trial.effects(game.ply)[0].to_json()
    return {
        "type": "explain",
        "ply": game.ply,
        "move": text,
        "legal": reason is None,
        "reason": reason,
        "effect": effect,
    }


def position_view(game: Game, *, view_id: str, name: str, player: int) -> dict[str, Any]:
    """A position no stored game holds (a lesson's, a puzzle's) as a game's page reads a state
    (``state_view``): ``player``'s seat is a person's, the others follow a script, and legal
    moves are listed only while ``player`` is to move."""
    seats = [
        StoredSeat(seat, "human" if seat == player else SCRIPT, seat_name, None, SCRIPT)
        for seat, seat_name in enumerate(game.players)
    ]
    meta = StoredGame(
        id=view_id,
        name=name,
        status="finished" if game.is_over else "live",
        options=game.options,
        deck=[],
        doubles=[],
        hints=False,
        ply=game.ply,
        result=None,
        created_at=_NEVER,
        updated_at=_NEVER,
        seats=seats,
        move_seats=movers_of(game),
    )
    return state_view(meta, game, legal_for=player)


def movers_of(game: Game) -> list[int]:
    """The seat that made each move of ``game``, from its start (taken back one by one)."""
    probe = game.copy()
    seats = []
    while probe.ply:
        probe.pop()
        seats.append(probe.to_move)
    return seats[::-1]


def plan_effects(game: Game, ply: int, plan: Iterable[str]) -> list[dict[str, Any]]:
    """What each move of ``plan`` would do if played after the first ``ply`` moves of ``game``
    (``MoveEffect.to_json``, as ``effects`` in a state): the words of a review's preferred
    plan. The list stops before a move that is not legal there (a plan's guessed draw)."""
    trial = game.copy()
    while trial.ply > ply:
        trial.pop()
    for text in plan:
        try:
            trial.play(text)
        except IllegalMove:
            break
    return [effect.to_json() for effect in trial.effects(ply)]


def review_view(review: dict[str, Any], game: Game) -> dict[str, Any]:
    """A review (``taluva review --json``) whose marked moves also carry ``best_effects``:
    one effect a move of ``best`` (``plan_effects``), so clients put the better plan in
    words from the server's facts, as they do the log. ``review`` is not changed."""
    moves = [
        {**entry, "best_effects": plan_effects(game, entry["ply"], entry["best"])}
        if entry.get("best")
        else entry
        for entry in review.get("moves", [])
    ]
    return {**review, "moves": moves}


def summary_view(game: StoredGame, ratings: Mapping[Rated, Shown] | None = None) -> dict[str, Any]:
    """A lobby entry: enough to list the game and offer its free seats, with each seated
    account's or AI level's rating when ``ratings`` holds it."""
    return {
        "id": game.id,
        "name": game.name,
        "status": game.status,
        "ply": game.ply,
        "options": game.options,
        "hints": game.hints,
        "rated": game.rated,
        "players": [seat_summary(seat, ratings or {}) for seat in game.seats],
        "result": game.result,
        "clock": clocks.rule_view(game.clock),
        "created_at": utc(game.created_at).isoformat(),
        "updated_at": utc(game.updated_at).isoformat(),
    }


def seat_summary(seat: StoredSeat, ratings: Mapping[Rated, Shown]) -> dict[str, Any]:
    """A seat in a lobby entry: who holds it, and their rating (null when unknown)."""
    subject = subject_of(seat)
    shown = ratings.get(subject) if subject is not None else None
    return {
        "seat": seat.seat,
        "name": seat_name(seat),
        "kind": seat.kind,
        "level": seat_level(seat),
        "taken": seat.taken,
        "account_id": seat.account_id,
        "rating": None if shown is None else shown.rating,
        "provisional": None if shown is None else shown.provisional,
    }


def ai_seat_name(level: int) -> Text:
    """The name an AI seat gets ("AI level 2"): stored in English, said in each reader's
    language wherever the seat is named (``seat_name``)."""
    return T("AI level {level}", level=level)


def seat_name(seat: StoredSeat) -> str:
    """A seat's name as the game says it: an AI seat still named as it was made is the
    ``Text`` of ``ai_seat_name`` (so every language names it), any other the name stored."""
    level = seat_level(seat)
    if seat.kind == "ai" and level is not None and seat.name == ai_seat_name(level):
        return ai_seat_name(level)
    return seat.name


def seat_level(seat: StoredSeat) -> int | None:
    """The level of an AI seat (``level:N``), None for a human."""
    if seat.ai and seat.ai.startswith("level:"):
        return int(seat.ai.split(":", 1)[1])
    return None
