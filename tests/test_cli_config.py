"""The long-running commands' settings from a TOML file (``--config FILE``, ``TALUVA_CONFIG``):
the command line wins over the environment, which wins over the file; a wrong key or value
stops the command with status 2, naming the file and the key; no password of a URL is
printed; and the tables of docs/deploy.md are the parsers' own options.

Run as a script, this module writes those tables anew (after an option changed)."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from test_server_support import free_port

from taluva import cli
from taluva.cli import server as server_commands
from taluva.cli.common import check_environment, options_table, safe_url
from taluva.cli.errors import UsageError

DEPLOY_DOC = Path(__file__).resolve().parents[1] / "docs" / "deploy.md"
COMMANDS = ("serve", "ai-worker")
PASSWORD = "hunter2"


def settled(*argv: str) -> argparse.Namespace:
    """The options of ``argv`` as the command's handler sees them, config file read."""
    args = cli.build_parser().parse_args(list(argv))
    check_environment(args)
    return args


def write(folder: Path, text: str) -> Path:
    path = folder / "taluva.toml"
    path.write_text(text)
    return path


def test_the_command_line_wins_over_the_environment_which_wins_over_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write(
        tmp_path,
        'claim-after = 5\nabandon_after = 3\nport = 9000\nsmtp-security = "none"\n'
        "quiet = true\nai-workers = 1\n",
    )
    monkeypatch.setenv("TALUVA_PORT", "9001")
    monkeypatch.setenv("TALUVA_AI_WORKERS", "2")
    args = settled("serve", "--config", str(config), "--ai-workers", "3", "--claim-after", "60")
    # the file's own; the environment's; the command line's (even when it equals the default)
    assert (args.abandon_after, args.smtp_security, args.quiet) == (3.0, "none", True)
    assert args.port == 9001
    assert (args.ai_workers, args.claim_after) == (3, 60.0)
    # an option the file leaves out keeps its default
    assert args.hint_level == 3


def test_the_file_may_come_from_the_environment_and_give_a_required_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write(tmp_path, 'redis = "redis://127.0.0.1:6379/0"\nprocesses = 2\n')
    monkeypatch.setenv("TALUVA_CONFIG", str(config))
    args = settled("ai-worker")
    assert (args.redis, args.processes) == ("redis://127.0.0.1:6379/0", 2)
    monkeypatch.delenv("TALUVA_CONFIG")
    with pytest.raises(UsageError, match=r"--redis is needed \(or TALUVA_REDIS, or redis in"):
        settled("ai-worker")


def test_the_smtp_password_may_come_from_the_file_and_the_environment_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write(tmp_path, 'smtp-host = "mail.example.org"\nsmtp-password = "from-file"\n')
    args = settled("serve", "--config", str(config))
    settings = server_commands._settings(args, "sqlite://", ())
    assert (settings.smtp_host, settings.smtp_password) == ("mail.example.org", "from-file")
    monkeypatch.setenv("TALUVA_SMTP_PASSWORD", "from-environment")
    args = settled("serve", "--config", str(config))
    assert server_commands._settings(args, "sqlite://", ()).smtp_password == "from-environment"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("ai-worker = 2", "'ai-worker' is no setting of this command (did you mean ai-workers?)"),
        ("port = 8.5", "port=8.5 does not fit --port"),
        ('ai_workers = "two"', "ai-workers='two' does not fit --ai-workers"),
        ("host = 5", "host=5 does not fit --host: expected text (in quotes)"),
        ('quiet = "maybe"', "quiet='maybe' is not true or false"),
        ('log-format = "xml"', "log-format='xml' is not one of text, json"),
        ("config = 'other.toml'", "'config' is no setting of this command"),
        ("stop-drain = [1, 2]", "stop-drain=[1, 2] does not fit --stop-drain: expected one value"),
    ],
)
def test_a_wrong_key_or_value_in_the_file_is_refused_naming_file_and_key(
    tmp_path: Path, line: str, message: str
) -> None:
    config = write(tmp_path, line + "\n")
    with pytest.raises(UsageError) as refused:
        settled("serve", "--config", str(config))
    assert str(refused.value).startswith(f"--config {config}: {message}")


def run_taluva(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "taluva", *argv],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
    )


def test_a_bad_file_stops_the_command_with_status_2_and_shows_no_password(
    tmp_path: Path,
) -> None:
    config = write(
        tmp_path,
        f'database = "postgresql+psycopg://taluva:{PASSWORD}@127.0.0.1:1/taluva"\n'
        'port = "eighty"\n'
        f'smtp-password = "{PASSWORD}"\n',
    )
    done = run_taluva("serve", "--config", str(config))
    assert done.returncode == 2
    assert f"--config {config}: port='eighty' does not fit --port" in done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    missing = run_taluva("serve", "--config", str(tmp_path / "none.toml"))
    assert missing.returncode == 2
    assert "none.toml: cannot read it (No such file or directory)" in missing.stderr


def test_a_password_in_a_url_from_the_file_is_never_printed(tmp_path: Path) -> None:
    config = write(tmp_path, f'redis = "redis://:{PASSWORD}@127.0.0.1:1/0"\n')
    done = run_taluva("ai-worker", "--config", str(config))
    assert done.returncode == 1  # read, then Redis does not answer
    assert "redis://:***@127.0.0.1:1/0" in done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    config = write(tmp_path, f'database = "postgresql+psycopg://taluva:{PASSWORD}@127.0.0.1:1/x"\n')
    done = run_taluva("serve", "--config", str(config), "--port", str(free_port()))
    assert done.returncode == 1
    assert "postgresql+psycopg://taluva:***@127.0.0.1:1/x" in done.stderr
    assert PASSWORD not in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "postgresql+psycopg://taluva:hunter2@db/taluva",
            "postgresql+psycopg://taluva:***@db/taluva",
        ),
        ("redis://:hunter2@127.0.0.1:notaport/0", "redis://:***@127.0.0.1:notaport/0"),
        ("'redis://:hunter2@h/0' and more", "'redis://:***@h/0' and more"),
        ("sqlite:///club.sqlite3", "sqlite:///club.sqlite3"),
        ("redis://h:6379/0", "redis://h:6379/0"),
    ],
)
def test_a_url_is_shown_without_its_password_however_it_is_written(text: str, shown: str) -> None:
    assert safe_url(text) == shown


def test_a_server_started_with_a_config_file_serves_on_the_files_port(tmp_path: Path) -> None:
    port = free_port()
    database = tmp_path / "club.sqlite3"
    config = write(
        tmp_path,
        f'port = {port}\ndatabase = "sqlite:///{database}"\nai-workers = 0\nquiet = true\n',
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "taluva", "serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "TALUVA_CONFIG": str(config), "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.strip() == f"Taluva server: open http://127.0.0.1:{port}/ in your browser"
        assert process.stdout.readline().strip() == f"games are stored in sqlite:///{database}"
        assert healthz(f"http://127.0.0.1:{port}", process) == {"status": "alive"}
        assert database.exists()
    finally:
        process.terminate()
        process.wait(timeout=30)


def healthz(url: str, process: subprocess.Popen[str]) -> object:
    """``GET /healthz`` once the server listens (it prints its address just before)."""
    while process.poll() is None:
        try:
            return httpx.get(f"{url}/healthz", timeout=2).json()
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError(f"the server exited with {process.returncode}")


def section(command: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- settings of taluva {command}: begin -->\n)(.*?)"
        rf"(<!-- settings of taluva {command}: end -->)",
        re.DOTALL,
    )


def tables() -> dict[str, str]:
    """Each long-running command's table of settings, from its parser."""
    parser = cli.build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {command: options_table(commands.choices[command]) for command in COMMANDS}


def test_the_settings_tables_of_the_deploy_doc_are_the_commands_options() -> None:
    doc = DEPLOY_DOC.read_text()
    for command, table in tables().items():
        found = section(command).search(doc)
        assert found is not None, f"docs/deploy.md has no table for taluva {command}"
        assert found.group(2) == table, (
            f"the table of taluva {command} in docs/deploy.md is not its options': "
            "run .venv/bin/python tests/test_cli_config.py"
        )


def write_tables() -> None:
    """Write each command's table of settings into docs/deploy.md, between its markers."""
    text = DEPLOY_DOC.read_text()
    for command, table in tables().items():
        found = section(command).search(text)
        assert found is not None, f"docs/deploy.md has no table for taluva {command}"
        text = text[: found.start(2)] + table + text[found.end(2) :]
    DEPLOY_DOC.write_text(text)


if __name__ == "__main__":
    write_tables()
