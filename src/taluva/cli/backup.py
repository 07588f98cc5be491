"""The commands that save a server's games and bring them back: ``taluva backup`` copies a
SQLite database while the server runs (SQLite's online backup API, from one consistent
snapshot), ``taluva restore`` puts such a copy in place and migrates it to this version's
schema. PostgreSQL has its own tools, ``pg_dump`` and ``pg_restore``, which these commands
name rather than wrap (docs/deploy.md, "Backups and restore")."""

from __future__ import annotations

import argparse
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Final

from taluva.cli.common import ENV_PREFIX, safe_url, wrap
from taluva.cli.errors import InputError, UsageError, needs_extra
from taluva.server.config import default_database_url

PAGES_PER_STEP: Final = 1024
"""Pages copied between two progress lines (4 MiB with SQLite's usual 4 KiB pages)."""

SQLITE_HEADER: Final = b"SQLite format 3\x00"
PG_DUMP_HEADER: Final = b"PGDMP"
"""The first bytes of a SQLite file and of a pg_dump archive (``--format=custom``)."""

BACKUP_EPILOG: Final = """\
examples:
  taluva backup games-2026-12-04.sqlite3
  taluva backup --database sqlite:///club.sqlite3 backups/club.sqlite3

The server may keep running: the copy is one consistent snapshot, taken without holding up
its moves. --database may also come from TALUVA_DATABASE. A PostgreSQL database is saved with
pg_dump (the command names it). docs/deploy.md, "Backups and restore", says what to keep.

exit codes:
  0    the backup is written
  1    the database is missing or not a taluva database, or OUT cannot be written
  2    the command line is wrong (OUT exists without --force, a PostgreSQL --database)"""

RESTORE_EPILOG: Final = """\
examples:
  taluva restore games-2026-12-04.sqlite3 --database sqlite:///club.sqlite3
  taluva restore backup.sqlite3 --database sqlite:///club.sqlite3 --force

Stop the server first: a running server keeps its games in memory and would not see the
restored ones. The restored database is migrated to this version's schema. A pg_dump archive
is restored with pg_restore (the command names it).

exit codes:
  0    the database is restored and migrated
  1    BACKUP is missing, not a taluva database, or newer than this taluva
  2    the command line is wrong (the target holds games without --force, a PostgreSQL
       --database)"""


def register(subparsers: Any) -> None:
    """Add the ``backup`` and ``restore`` subcommands."""
    _add_backup(subparsers)
    _add_restore(subparsers)


def _add_database_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--database URL``; unset, ``TALUVA_DATABASE`` gives it, as for ``serve``
    (``_database``). It alone: a ``TALUVA_FORCE`` left in the environment must never
    replace a database."""
    parser.add_argument("--database", metavar="URL", default=None, help=help)


def _database(args: argparse.Namespace) -> str:
    """The database URL: ``--database``, else ``TALUVA_DATABASE``, else the default file."""
    return args.database or os.environ.get(DATABASE_VARIABLE) or default_database_url()


DATABASE_VARIABLE: Final = ENV_PREFIX + "DATABASE"


def _add_progress(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--quiet", action="store_true", help="print nothing but errors (no progress lines)"
    )


def _add_backup(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "backup",
        help="copy the server's SQLite database to a file, while the server runs",
        description=wrap(
            "Copy a taluva SQLite database to OUT with SQLite's online backup: a "
            "consistent snapshot, taken while the server keeps playing."
        ),
        epilog=BACKUP_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("out", metavar="OUT", help="the backup file to write")
    _add_database_option(
        parser,
        "the database to copy, sqlite:///FILE (default: TALUVA_DATABASE, else "
        f"{default_database_url()})",
    )
    parser.add_argument("--force", action="store_true", help="replace OUT if it exists")
    _add_progress(parser)
    parser.set_defaults(func=_cmd_backup)


def _add_restore(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "restore",
        help="put a backup in place of the server's database and migrate it",
        description=wrap(
            "Copy a backup made by 'taluva backup' into the database, then bring its "
            "schema up to this version's. A database that holds anything is only replaced "
            "with --force."
        ),
        epilog=RESTORE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("backup", metavar="BACKUP", help="a file written by 'taluva backup'")
    _add_database_option(
        parser,
        "the database to restore into, sqlite:///FILE (default: TALUVA_DATABASE, else "
        f"{default_database_url()})",
    )
    parser.add_argument(
        "--force", action="store_true", help="replace the database even if it holds games"
    )
    _add_progress(parser)
    parser.set_defaults(func=_cmd_restore)


# ---------------------------------------------------------------- the commands


def _cmd_backup(args: argparse.Namespace) -> int:
    """Copy the database to OUT through a file beside it, renamed once complete and checked,
    so a failed backup never leaves a half-written OUT."""
    database = _database(args)
    source = _sqlite_path(database, "backup")
    out = Path(args.out)
    say = _printer(args.quiet)
    if out.is_dir():
        raise UsageError(f"{out}: is a directory; give the backup file's name")
    if out.exists() and not args.force:
        raise UsageError(f"{out} exists: give another name, or --force to replace it")
    if not source.is_file():
        raise InputError(f"{source}: no such database file")
    if out.exists() and out.resolve() == source.resolve():
        raise UsageError(f"{out}: is the database itself; write the backup elsewhere")
    _check_sqlite_file(source)
    partial = out.with_name(out.name + ".partial")
    try:
        with _connect(source, "rw") as origin:
            revision = _taluva_revision(origin, source)
            # One read transaction for the whole copy: in WAL mode it is a fixed snapshot
            # that the server's commits meanwhile neither change nor wait for.
            origin.execute("BEGIN")
            games = _game_count(origin)
            say(f"backing up {source} (revision {revision}, {games} games) to {out}")
            partial.unlink(missing_ok=True)
            with _connect(partial, "rwc") as copy:
                origin.backup(copy, pages=PAGES_PER_STEP, progress=_progress(say))
                origin.execute("COMMIT")
                # a single file, with no write-ahead log beside it, and sound
                copy.execute("PRAGMA journal_mode=DELETE")
                problems = copy.execute("PRAGMA quick_check").fetchall()
            if problems != [("ok",)]:
                raise InputError(f"{out}: the copy failed its check: {problems[0][0]}")
        os.replace(partial, out)
    except sqlite3.Error as error:
        raise InputError(f"cannot back up {source} to {out}: {error}") from None
    except OSError as error:
        raise InputError.unwritable(out, error) from None
    finally:
        partial.unlink(missing_ok=True)
    say(f"done: {out} holds {games} games at revision {revision}")
    return 0


def _cmd_restore(args: argparse.Namespace) -> int:
    """Check the backup, refuse a target that holds anything (unless --force), copy the
    backup into it with SQLite's backup API, then migrate it to this version's schema."""
    with needs_extra("server", "restoring a database needs SQLAlchemy and Alembic"):
        from alembic.util import CommandError
        from sqlalchemy.exc import SQLAlchemyError

        from taluva.server.storage.store import Store

    backup = Path(args.backup)
    database = _database(args)
    if not backup.is_file():
        raise InputError(f"{backup}: no such backup file")
    if _starts_with(backup, PG_DUMP_HEADER):
        raise UsageError(
            f"{backup} is a pg_dump archive: restore it with pg_restore (docs/deploy.md, "
            "'Backups and restore')"
        )
    target = _sqlite_path(database, "restore")
    say = _printer(args.quiet)
    _check_sqlite_file(backup)
    with _connect(backup, "ro") as origin:
        revision = _taluva_revision(origin, backup)
        if revision not in _known_revisions():
            raise InputError(
                f"{backup}: its schema is at revision {revision}, which this taluva does not "
                "know: restore it with the taluva that made it, or a newer one"
            )
        games = _game_count(origin)
        if target.exists() and target.resolve() == backup.resolve():
            raise UsageError(f"{backup}: is the database itself")
        _refuse_nonempty(target, args.force)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(f"{target.parent}: cannot create ({error.strerror})") from None
        say(f"restoring {backup} (revision {revision}, {games} games) into {target}")
        try:
            with _connect(target, "rwc") as copy:
                origin.backup(copy, pages=PAGES_PER_STEP, progress=_progress(say))
        except sqlite3.Error as error:
            raise InputError(f"cannot restore into {target}: {error}") from None
    store = Store(database, game_end=None)
    try:
        store.migrate()
        at_head = store.at_head()
    except (SQLAlchemyError, CommandError) as error:
        raise InputError(f"{target}: restored, but its migration failed: {error}") from None
    finally:
        store.close()
    if not at_head:
        raise InputError(f"{target}: restored, but its schema is not at the newest revision")
    head = ", ".join(_heads())
    moved = "already at" if revision == head else f"migrated from {revision} to"
    say(f"done: {target} holds {games} games, {moved} revision {head}")
    return 0


# ---------------------------------------------------------------- the checks


def _sqlite_path(database: str, verb: str) -> Path:
    """The file of a ``sqlite:///FILE`` URL; a PostgreSQL URL is a UsageError naming the
    PostgreSQL tool that does ``verb`` (``backup`` or ``restore``) instead."""
    if database.startswith("postgresql"):
        url = _libpq_url(database)
        tool = (
            f'pg_dump --format=custom --file OUT "{url}"'
            if verb == "backup"
            else f'pg_restore --clean --if-exists --dbname "{url}" DUMP, from a pg_dump archive'
        )
        action = "back it up" if verb == "backup" else "restore it"
        raise UsageError(
            f"--database {safe_url(database)} is PostgreSQL: {action} with its own tool, "
            f"{tool} (the password from PGPASSWORD or ~/.pgpass; docs/deploy.md, "
            "'Backups and restore')"
        )
    if not database.startswith("sqlite:///") or database == "sqlite:///":
        raise UsageError(f"--database {database!r}: expected sqlite:///FILE")
    path = database.removeprefix("sqlite:///").partition("?")[0]
    if path in ("", ":memory:"):
        raise UsageError(f"--database {database!r}: an in-memory database has nothing to {verb}")
    return Path(path)


def _libpq_url(database: str) -> str:
    """A SQLAlchemy PostgreSQL URL as pg_dump takes it: no driver, no password."""
    rest = database.partition("://")[2]
    return safe_url("postgresql://" + rest).replace(":***@", "@")


def _check_sqlite_file(path: Path) -> None:
    """InputError unless ``path`` is a SQLite database file."""
    if not _starts_with(path, SQLITE_HEADER):
        raise InputError(f"{path}: not a SQLite database (nor a taluva backup)")


def _starts_with(path: Path, header: bytes) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(len(header)) == header
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror})") from None


def _taluva_revision(connection: sqlite3.Connection, path: Path) -> str:
    """The schema revision a taluva database is at; InputError for any other database."""
    try:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        rows = (
            connection.execute("SELECT version_num FROM alembic_version").fetchall()
            if "alembic_version" in tables
            else []
        )
    except sqlite3.DatabaseError as error:
        raise InputError(f"{path}: cannot read it as a database ({error})") from None
    if "games" not in tables or len(rows) != 1:
        raise InputError(f"{path}: not a taluva database (no games table at a known revision)")
    return str(rows[0][0])


def _game_count(connection: sqlite3.Connection) -> int:
    return int(connection.execute("SELECT count(*) FROM games").fetchone()[0])


def _refuse_nonempty(target: Path, force: bool) -> None:
    """UsageError, unless ``force``, when the file at ``target`` holds any table."""
    if not target.exists() or target.stat().st_size == 0 or force:
        return
    _check_sqlite_file(target)
    with _connect(target, "ro") as existing:
        tables = {row[0] for row in existing.execute("SELECT name FROM sqlite_master")}
        games = _game_count(existing) if "games" in tables else None
    if not tables:
        return
    holds = f"{games} games" if games is not None else "tables of something else"
    raise UsageError(
        f"{target} already holds a database ({holds}): give --force to replace it, "
        "or another --database"
    )


def _known_revisions() -> set[str]:
    """Every schema revision this version ships."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from taluva.server.storage.store import MIGRATIONS

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}


def _heads() -> tuple[str, ...]:
    from taluva.server.storage.store import shipped_heads

    return shipped_heads()


# ---------------------------------------------------------------- helpers


@contextmanager
def _connect(path: Path, mode: str) -> Iterator[sqlite3.Connection]:
    """A connection to the SQLite file at ``path`` (``ro``, ``rw``: it must exist; ``rwc``:
    made if missing), in autocommit mode so that this module's BEGIN and COMMIT are the
    only transactions; closed on leaving."""
    uri = f"{path.resolve().as_uri().replace('file://', 'file:', 1)}?mode={mode}"
    try:
        connection = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=10)
    except sqlite3.Error as error:
        raise InputError(f"{path}: cannot open ({error})") from None
    with closing(connection):
        yield connection


def _printer(quiet: bool) -> Callable[[str], None]:
    def say(line: str) -> None:
        if not quiet:
            print(line, flush=True)

    return say


def _progress(say: Callable[[str], None]) -> Callable[[int, int, int], None]:
    """A progress callback of ``Connection.backup``: one line per step, with the share of
    the database's pages copied so far."""

    def step(_status: int, remaining: int, total: int) -> None:
        done = total - remaining
        say(f"  copied {done} of {total} pages ({100 * done // max(total, 1)}%)")

    return step
