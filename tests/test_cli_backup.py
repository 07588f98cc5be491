"""``taluva backup`` and ``taluva restore`` on SQLite: a backup taken while the server plays
is one consistent snapshot, restores into a new file whose games load and play on, and every
refusal (missing file, not a taluva database, a target that holds games) says what is wrong.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from test_server_support import client_for, play_http, sqlite_url, state_of, two_humans

from taluva.cli import backup, main


def sqlite_file(url: str) -> Path:
    return Path(url.removeprefix("sqlite:///"))


def play_first_legal(client: TestClient, game_id: str, tokens: dict[int, str]) -> None:
    state = state_of(client, game_id)
    answer = play_http(client, game_id, tokens[state["to_move"]], state["ply"], state["legal"][0])
    assert answer.status_code == 200, answer.text


def test_a_backup_taken_while_the_server_plays_is_its_snapshot_and_restores_to_play_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    database = sqlite_url(tmp_path)
    copy, restored = tmp_path / "backup.sqlite3", f"sqlite:///{tmp_path / 'restored.sqlite3'}"
    with client_for(database) as client:
        game_id, tokens = two_humans(client)
        for _ in range(3):
            play_first_legal(client, game_id, tokens)
        # a few pages a step, and between steps the server stores a move and another
        # connection holds a write transaction open: neither reaches the copy, nor stops it
        monkeypatch.setattr(backup, "PAGES_PER_STEP", 4)
        steps: list[int] = []
        writer = sqlite3.connect(sqlite_file(database), isolation_level=None)
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("UPDATE games SET name = 'never committed'")

        def progress(say: Callable[[str], None]) -> Callable[[int, int, int], None]:
            def step(status: int, remaining: int, total: int) -> None:
                say(f"{remaining} of {total} left")
                steps.append(remaining)
                if len(steps) == 2:
                    writer.execute("ROLLBACK")
                    play_first_legal(client, game_id, tokens)

            return step

        monkeypatch.setattr(backup, "_progress", progress)
        assert main(["backup", "--database", database, str(copy)]) == 0
        writer.close()
        assert state_of(client, game_id)["ply"] == 4
    assert len(steps) > 2 and steps[-1] == 0
    printed = capsys.readouterr().out
    assert f"backing up {sqlite_file(database)}" in printed and "1 games" in printed
    assert main(["restore", str(copy), "--database", restored]) == 0
    assert "done: " in capsys.readouterr().out
    with client_for(restored) as client:
        state = state_of(client, game_id)
        assert state["ply"] == 3  # as the backup began: the fourth move came after
        play_first_legal(client, game_id, tokens)
        assert state_of(client, game_id)["ply"] == 4
        assert client.get("/readyz").json()["ready"] is True


def test_a_restore_migrates_an_older_backup_to_the_newest_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    from taluva.server.storage.store import MIGRATIONS, shipped_heads

    old = tmp_path / "first.sqlite3"
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    engine = create_engine(f"sqlite:///{old}")
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, FIRST_REVISION)
    engine.dispose()
    target = tmp_path / "restored.sqlite3"
    assert main(["restore", str(old), "--database", f"sqlite:///{target}"]) == 0
    (head,) = shipped_heads()
    assert f"migrated from {FIRST_REVISION} to revision {head}" in capsys.readouterr().out
    with sqlite3.connect(target) as restored:
        assert restored.execute("SELECT version_num FROM alembic_version").fetchone() == (head,)


FIRST_REVISION = "0001"
"""The first schema taluva shipped, which every later one must be able to restore."""


def refusal(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    """The exit code and the one error line of a refused command."""
    code = main(argv)
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1, captured.err
    return code, captured.err.removeprefix("taluva: error: ").strip()


@pytest.fixture
def taluva_database(tmp_path: Path) -> str:
    """A taluva database holding one game."""
    database = f"sqlite:///{tmp_path / 'club.sqlite3'}"
    with client_for(database) as client:
        two_humans(client)
    return database


def test_a_backup_of_a_missing_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere.sqlite3"
    code, error = refusal(
        capsys, ["backup", "--database", f"sqlite:///{missing}", str(tmp_path / "out")]
    )
    assert (code, error) == (1, f"{missing}: no such database file")
    assert not missing.exists() and not (tmp_path / "out").exists()


def test_a_backup_of_a_database_that_is_not_taluvas_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text)")
    code, error = refusal(
        capsys, ["backup", "--database", f"sqlite:///{other}", str(tmp_path / "out")]
    )
    assert (code, error) == (
        1,
        f"{other}: not a taluva database (no games table at a known revision)",
    )
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all\n")
    code, error = refusal(capsys, ["restore", str(text), "--database", f"sqlite:///{other}"])
    assert (code, error) == (1, f"{text}: not a SQLite database (nor a taluva backup)")


def test_a_backup_does_not_overwrite_a_file_without_force(
    taluva_database: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "kept.sqlite3"
    out.write_text("precious")
    code, error = refusal(capsys, ["backup", "--database", taluva_database, str(out)])
    assert (code, error) == (2, f"{out} exists: give another name, or --force to replace it")
    assert out.read_text() == "precious"
    monkeypatch.setenv("TALUVA_DATABASE", taluva_database)  # as in the server's environment
    assert main(["backup", str(out), "--force", "--quiet"]) == 0
    with sqlite3.connect(out) as copy:
        assert copy.execute("SELECT count(*) FROM games").fetchone() == (1,)


def test_a_restore_into_a_database_that_holds_games_needs_force(
    taluva_database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "backup.sqlite3"
    assert main(["backup", "--database", taluva_database, str(copy), "--quiet"]) == 0
    target = sqlite_url(tmp_path)
    with client_for(target) as client:
        two_humans(client)
        two_humans(client)
    code, error = refusal(capsys, ["restore", str(copy), "--database", target])
    assert (code, error) == (
        2,
        f"{sqlite_file(target)} already holds a database (2 games): give --force to "
        "replace it, or another --database",
    )
    assert main(["restore", str(copy), "--database", target, "--force", "--quiet"]) == 0
    with client_for(target) as client:
        assert len(client.get("/api/games?status=live").json()["games"]) == 1


def test_a_restore_of_a_missing_backup_or_an_unknown_schema_is_refused(
    taluva_database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"sqlite:///{tmp_path / 'new.sqlite3'}"
    code, error = refusal(capsys, ["restore", str(tmp_path / "gone"), "--database", target])
    assert (code, error) == (1, f"{tmp_path / 'gone'}: no such backup file")
    newer = tmp_path / "newer.sqlite3"
    assert main(["backup", "--database", taluva_database, str(newer), "--quiet"]) == 0
    with sqlite3.connect(newer) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999'")
    code, error = refusal(capsys, ["restore", str(newer), "--database", target])
    assert (code, error) == (
        1,
        f"{newer}: its schema is at revision 9999, which this taluva does not know: "
        "restore it with the taluva that made it, or a newer one",
    )
    assert not (tmp_path / "new.sqlite3").exists()


def test_postgresql_is_pointed_to_its_own_tools_without_showing_the_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = "postgresql+psycopg://taluva:s3cret@db.example:5432/taluva"
    code, error = refusal(capsys, ["backup", "--database", url, str(tmp_path / "out")])
    assert code == 2 and "s3cret" not in error
    assert (
        'pg_dump --format=custom --file OUT "postgresql://taluva@db.example:5432/taluva"' in error
    )
    dump = tmp_path / "taluva.dump"
    dump.write_bytes(b"PGDMP\x01\x0e\x00")
    code, error = refusal(capsys, ["restore", str(dump), "--database", url])
    assert code == 2 and error.startswith(
        f"{dump} is a pg_dump archive: restore it with pg_restore"
    )
