"""The long-running commands' options from the environment (``TALUVA_<NAME>``): the command
line wins, a value that does not fit is refused naming its variable, the SMTP password comes
only from there, and no password of a URL is printed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from taluva import cli
from taluva.cli import server as server_commands
from taluva.cli.errors import UsageError


def parsed(*argv: str) -> object:
    return cli.build_parser().parse_args(list(argv))


def test_an_option_may_come_from_the_environment_and_the_command_line_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TALUVA_CLAIM_AFTER", "5")
    monkeypatch.setenv("TALUVA_DATABASE", "sqlite:///club.sqlite3")
    monkeypatch.setenv("TALUVA_QUIET", "yes")
    monkeypatch.setenv("TALUVA_SMTP_SECURITY", "tls")
    args = parsed("serve")
    assert (args.claim_after, args.database, args.quiet, args.smtp_security) == (  # type: ignore[attr-defined]
        5.0,
        "sqlite:///club.sqlite3",
        True,
        "tls",
    )
    args = parsed("serve", "--claim-after", "30")
    assert args.claim_after == 30.0  # type: ignore[attr-defined]


def test_the_smtp_password_comes_from_the_environment_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TALUVA_SMTP_PASSWORD", "s3cret")
    monkeypatch.setenv("TALUVA_SMTP_HOST", "mail.example.org")
    args = parsed("serve", "--mail-from", "Taluva <taluva@example.org>")
    settings = server_commands._settings(args, "sqlite://", ())  # type: ignore[arg-type]
    assert (settings.smtp_host, settings.smtp_password, settings.mail_from) == (
        "mail.example.org",
        "s3cret",
        "Taluva <taluva@example.org>",
    )
    assert "s3cret" not in repr(settings)
    with pytest.raises(UsageError, match="unrecognized arguments: --smtp-password"):
        parsed("serve", "--smtp-password", "s3cret")  # no such option: never in argv


def run_taluva(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "taluva", *argv],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
    )


def test_a_value_from_the_environment_that_does_not_fit_is_refused_naming_it() -> None:
    done = run_taluva({"TALUVA_PORT": "abc", "TALUVA_LOG_FORMAT": "xml"}, "serve")
    assert done.returncode == 2
    assert "TALUVA_PORT='abc' does not fit --port" in done.stderr
    assert "TALUVA_LOG_FORMAT='xml' is not one of text, json" in done.stderr


def test_a_redis_password_is_never_printed() -> None:
    done = run_taluva({"TALUVA_REDIS": "redis://:hunter2@127.0.0.1:1/0"}, "ai-worker")
    assert done.returncode == 1
    assert "redis://:***@127.0.0.1:1/0" in done.stderr
    assert "hunter2" not in done.stdout + done.stderr
