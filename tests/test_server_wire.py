"""How the server writes messages: one line of compact JSON that reads back as json.dumps'."""

from __future__ import annotations

import json
import random

from taluva.engine.game import Game
from taluva.server.games.view import state_view
from taluva.server.storage.store import StoredGame, StoredSeat, now
from taluva.server.wire import to_json


def test_a_message_is_one_line_that_reads_back_as_the_standard_library_writes_it() -> None:
    """Names with emoji sequences and newlines, numbers as keys: what a client reads is what
    ``json.dumps`` would have given it, and the text never breaks the bus's line framing."""
    message = {
        "type": "chat",
        "name": "👩‍👩‍👧 Zoë\nline two",
        "scores": {0: 3, 1: 4},
        "nested": [[1, 2.5, None, True], {"a": []}],
    }
    text = to_json(message)
    assert "\n" not in text and ", " not in text and ": " not in text
    assert json.loads(text) == json.loads(json.dumps(message))


def test_what_json_allows_beyond_orjson_is_still_written() -> None:
    """A lone surrogate or a huge integer must never stop a broadcast."""
    for message in ({"name": "x\udc80"}, {"count": 2**70}):
        assert to_json(message) == json.dumps(message, separators=(",", ":"))


def test_a_whole_game_state_reads_back_unchanged() -> None:
    """Every state of a played game, written and read back, is the view the server built."""
    game = Game.new(players=3, seed=5)
    record = game.to_record()
    seats = [StoredSeat(seat=k, kind="human", name=f"player {k}") for k in range(3)]
    meta = StoredGame.starting("g", "wire", record, seats, status="live", hints=False, stamp=now())
    rng = random.Random(5)
    for _ in range(40):
        view = state_view(meta, game)
        assert json.loads(to_json(view)) == json.loads(json.dumps(view))
        game.play(rng.choice(game.legal_moves()))
        meta.move_seats.append(0)
