"""Ratings and per-seat statistics: what ``standings.settle`` stores when a game ends, in
the transaction of its result, on SQLite and PostgreSQL."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest
import test_server_storage
from sqlalchemy import delete, func, select, update
from test_server_support import store_game

from taluva import Game
from taluva.engine.moves import TILE
from taluva.server.players import standings
from taluva.server.players.accounts import AccountStore
from taluva.server.players.profiles import leaderboard, profile
from taluva.server.players.ratings import MODEL, PROVISIONAL_GAMES, shown, updated
from taluva.server.players.standings import replay_stats, settle
from taluva.server.storage.models import Base
from taluva.server.storage.store import FINISHED, NewMove, Store, StoredSeat

# the storage tests' fixtures: an empty SQLite or PostgreSQL database
postgres_server = test_server_storage.postgres_server
database = test_server_storage.database
NEW = (MODEL.mu, MODEL.sigma)


def played(seed: int, players: int = 2) -> Game:
    """A whole game of random legal moves."""
    rng = random.Random(seed)
    game = Game.new(players=[f"P{n}" for n in range(players)], seed=seed)
    while not game.is_over:
        game.play(game.random_move(rng))
    return game


def count(store: Store, table: str) -> int:
    with store.engine.connect() as connection:
        return int(
            connection.execute(
                select(func.count()).select_from(Base.metadata.tables[table])
            ).scalar_one()
        )


def rows(store: Store, table: str) -> list[Any]:
    with store.engine.connect() as connection:
        return list(connection.execute(select(Base.metadata.tables[table])).all())


@pytest.fixture
def store(database: str) -> Any:
    store = Store(database, game_end=settle)
    store.migrate()
    yield store
    store.close()


def human(seat: int, account_id: int | None) -> StoredSeat:
    return StoredSeat(seat, "human", f"P{seat}", None, f"{seat}" * 64, account_id)


# ---------------------------------------------------------------------- the rating model


def test_the_winner_gains_and_the_loser_loses() -> None:
    (winner, loser) = updated([NEW, NEW], [1, 2])
    assert winner[0] > MODEL.mu > loser[0]
    assert shown(winner[0]) > shown(loser[0])


def test_ties_in_place_count_as_ties() -> None:
    tied = updated([NEW, NEW], [1, 1])
    assert tied[0] == tied[1]
    assert tied[0][0] == pytest.approx(MODEL.mu)
    first, second, third = updated([NEW, NEW, NEW], [1, 2, 2])
    assert second == third and first[0] > second[0]


# ---------------------------------------------------------------------- settling a game


def test_a_rated_game_stores_statistics_and_ratings_with_its_result(store: Store) -> None:
    accounts = AccountStore(store.engine)
    ana, ben = accounts.create("Ana", "x"), accounts.create("Ben", "x")
    game = played(seed=1)
    store_game(store, "g1", game, [human(0, ana.id), human(1, ben.id)])
    stats = sorted(rows(store, "seat_stats"), key=lambda r: r.seat)
    assert game.result is not None
    places = game.result.places()
    assert [(s.seat, s.account_id, s.place, s.rated) for s in stats] == [
        (0, ana.id, places[0], True),
        (1, ben.id, places[1], True),
    ]
    expected = replay_stats(game)
    assert [(s.tiles, s.huts, s.temples, s.towers, s.huts_lost) for s in stats] == [
        (e.tiles, e.huts, e.temples, e.towers, e.huts_lost) for e in expected
    ]
    assert sum(s.tiles for s in stats) == sum(1 for m in game.moves if m.kind == TILE)
    after = updated([NEW, NEW], [places[0], places[1]])
    ratings = {r.account_id: (r.mu, r.sigma, r.games) for r in rows(store, "ratings")}
    assert ratings == {
        ana.id: pytest.approx((*after[0], 1)),
        ben.id: pytest.approx((*after[1], 1)),
    }
    assert count(store, "rating_changes") == 2


def test_nothing_is_settled_when_the_results_transaction_rolls_back(store: Store) -> None:
    accounts = AccountStore(store.engine)
    ana, ben = accounts.create("Ana", "x"), accounts.create("Ben", "x")
    game = played(seed=2)
    unfinished = game.copy()
    unfinished.pop()
    store_game(store, "g2", unfinished, [human(0, ana.id), human(1, ben.id)])
    assert count(store, "seat_stats") == 0
    assert game.result is not None
    with pytest.raises(RuntimeError), store.engine.begin() as connection:
        settle(connection, "g2", game.result.to_json())
        raise RuntimeError("the result's write failed")
    assert (count(store, "seat_stats"), count(store, "ratings")) == (0, 0)
    with store.engine.begin() as connection:
        settle(connection, "g2", game.result.to_json())
        settle(connection, "g2", game.result.to_json())  # a second call stores nothing
    assert (count(store, "seat_stats"), count(store, "rating_changes")) == (2, 2)


def test_a_game_settled_as_it_ended_stores_what_its_replay_would(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = played(seed=4, players=3)
    assert game.result is not None
    seats = [human(seat, None) for seat in range(3)]
    store_game(store, "replayed", game, seats)  # its last move settles it from the stored moves
    before = game.copy()
    before.pop()
    store_game(store, "as-played", before, seats)
    last = NewMove(
        "as-played",
        before.ply,
        before.to_move,
        str(game.moves[-1]),
        FINISHED,
        game.result.to_json(),
        final=game,
    )
    monkeypatch.setattr(standings, "_replay", None)  # the game at hand needs no replay
    assert store.append_moves([last]) == [None]
    columns = ("seat", "place", "tiles", "huts", "temples", "towers", "huts_lost", "highest_level")
    stored = {
        game_id: sorted(tuple(getattr(row, c) for c in columns) for row in found)
        for game_id in ("replayed", "as-played")
        if (found := [row for row in rows(store, "seat_stats") if row.game_id == game_id])
    }
    assert stored["as-played"] == stored["replayed"]
    assert len(stored["replayed"]) == 3 and stored["replayed"][0][2] is not None


def test_a_game_with_a_guest_keeps_statistics_but_rates_no_one(store: Store) -> None:
    ana = AccountStore(store.engine).create("Ana", "x")
    store_game(store, "g3", played(seed=3), [human(0, ana.id), human(1, None)])
    assert [s.rated for s in rows(store, "seat_stats")] == [False, False]
    assert count(store, "ratings") == 0
    assert profile(store.engine, ana.id)["games"] == 1  # type: ignore[index]


def test_an_ai_level_in_several_seats_has_one_rating(store: Store) -> None:
    ana = AccountStore(store.engine).create("Ana", "x")
    level = StoredSeat(1, "ai", "AI level 2", "level:2")
    again = StoredSeat(2, "ai", "AI level 2", "level:2")
    store_game(store, "g4", played(seed=4, players=3), [human(0, ana.id), level, again])
    ratings = sorted((r.ai or "", r.games) for r in rows(store, "ratings"))
    assert ratings == [("", 1), ("level:2", 1)]
    board = leaderboard(store.engine, 10)
    assert board["players"] == []  # one game each: both provisional
    assert sorted(entry["name"] for entry in board["provisional"]) == ["AI level 2", "Ana"]


def test_ratings_survive_a_restart(database: str) -> None:
    store = Store(database, game_end=settle)
    store.migrate()
    accounts = AccountStore(store.engine)
    ana, ben = accounts.create("Ana", "x"), accounts.create("Ben", "x")
    store_game(store, "g5", played(seed=5), [human(0, ana.id), human(1, ben.id)])
    before = leaderboard(store.engine, 10)
    store.close()
    reopened = Store(database, game_end=settle)
    reopened.migrate()
    assert leaderboard(reopened.engine, 10) == before
    assert [entry["games"] for entry in before["provisional"]] == [1, 1]
    reopened.close()


def test_games_ending_at_once_each_update_the_shared_ai_rating(store: Store) -> None:
    accounts = AccountStore(store.engine)
    players = [accounts.create(f"P{n}", "x") for n in range(4)]
    games = [played(seed=10 + n) for n in range(4)]
    start = threading.Barrier(4)
    failures: list[BaseException] = []

    def finish(n: int) -> None:
        try:
            seats = [human(0, players[n].id), StoredSeat(1, "ai", "AI level 1", "level:1")]
            start.wait()
            store_game(store, f"race{n}", games[n], seats)
        except BaseException as error:  # reported below
            failures.append(error)

    threads = [threading.Thread(target=finish, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    ai = next(r for r in rows(store, "ratings") if r.ai == "level:1")
    assert ai.games == 4
    assert count(store, "rating_changes") == 8


def test_statistics_follow_a_resigned_player_out_of_the_game() -> None:
    rng = random.Random(6)
    game = Game.new(players=["Ana", "Ben", "Cy"], seed=6)
    while not game.is_over:
        if game.ply == 30:
            game.resign(1)
        game.play(game.random_move(rng))
    stats = replay_stats(Game.from_record(game.to_record()))
    tiles_by_player = [0, 0, 0]
    forward = Game.new(players=["Ana", "Ben", "Cy"], seed=6)
    for ply, move in enumerate(game.moves):
        if ply == 30:
            forward.resign(1)
        if move.kind == TILE:
            tiles_by_player[forward.to_move] += 1
        forward.play(move)
    assert [s.tiles for s in stats] == tiles_by_player
    assert tiles_by_player[1] < min(tiles_by_player[0], tiles_by_player[2])
    assert [s.huts for s in stats] == [game.placed(p)["huts"] for p in range(3)]


def test_an_abandoned_game_that_ranks_no_one_leaves_nothing(store: Store) -> None:
    accounts = AccountStore(store.engine)
    ana, ben = accounts.create("Ana", "x"), accounts.create("Ben", "x")
    unfinished = played(seed=7)
    unfinished.pop()
    store_game(store, "g7", unfinished, [human(0, ana.id), human(1, ben.id)])
    with store.engine.begin() as connection:
        settle(connection, "g7", {"ranking": [], "reason": "abandoned"})
    assert (count(store, "seat_stats"), count(store, "ratings")) == (0, 0)


def test_a_record_that_does_not_replay_still_ends_with_places_and_ratings(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    accounts = AccountStore(store.engine)
    ana, ben = accounts.create("Ana", "x"), accounts.create("Ben", "x")
    store_game(store, "g8", played(seed=8), [human(0, ana.id), human(1, ben.id)])
    with store.engine.begin() as connection:
        connection.execute(delete(Base.metadata.tables["seat_stats"]))
        connection.execute(delete(Base.metadata.tables["rating_changes"]))
        moves = Base.metadata.tables["moves"]
        connection.execute(update(moves).where(moves.c.ply == 0).values(text="hut 9,9"))
        settle(connection, "g8", {"ranking": [[1], [0]], "reason": "tiles"})
    stats = sorted(rows(store, "seat_stats"), key=lambda r: r.seat)
    assert [(s.place, s.tiles, s.huts) for s in stats] == [(2, None, None), (1, None, None)]
    assert count(store, "rating_changes") == 2
    assert "cannot be replayed" in caplog.text


def test_the_leaderboard_ranks_only_players_past_their_provisional_games(store: Store) -> None:
    accounts = AccountStore(store.engine)
    ana, ben = accounts.create("Ana", "x"), accounts.create("Ben", "x")
    level = StoredSeat(1, "ai", "AI level 1", "level:1")
    for n in range(PROVISIONAL_GAMES):
        store_game(store, f"a{n}", played(seed=20 + n), [human(0, ana.id), level])
    store_game(store, "b", played(seed=30), [human(0, ben.id), level])
    board = leaderboard(store.engine, 10)
    ratings = {r.account_id or r.ai: r for r in rows(store, "ratings")}
    ranked = sorted([ratings[ana.id], ratings["level:1"]], key=lambda r: -r.mu)
    assert [(e["rank"], e["rating"], e["provisional"]) for e in board["players"]] == [
        (1, shown(ranked[0].mu), False),
        (2, shown(ranked[1].mu), False),
    ]
    assert [(e["name"], e["rank"], e["provisional"]) for e in board["provisional"]] == [
        ("Ben", None, True)
    ]
