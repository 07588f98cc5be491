"""Helpers of the mail tests: an SMTP server on loopback (aiosmtpd) that keeps what it is
sent, and the server app as a process of its own with SMTP settings. No tests here."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from test_server_support import _drain, free_port

HERE = Path(__file__).resolve().parent
SENDER = "Taluva <taluva@example.org>"
WAIT = 30.0
"""Seconds a test waits for a mail or a process before it fails."""


class Sink:
    """What the SMTP server was sent, as parsed messages; ``pause`` seconds per message make
    it a slow mail server."""

    def __init__(self, pause: float = 0.0) -> None:
        self.pause = pause
        self.messages: list[EmailMessage] = []
        self._lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.pause:
            import asyncio

            await asyncio.sleep(self.pause)
        parsed = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        with self._lock:
            self.messages.append(parsed)
        return "250 kept"

    def wait_for(self, count: int) -> list[EmailMessage]:
        """The messages once there are at least ``count`` (fails after ``WAIT`` seconds)."""
        until(lambda: len(self.messages) >= count, f"{count} mails")
        with self._lock:
            return list(self.messages)


@contextmanager
def smtp_server(port: int | None = None, pause: float = 0.0) -> Iterator[tuple[Sink, int]]:
    """An SMTP server on 127.0.0.1 (a free port, or ``port``) that keeps every mail."""
    sink = Sink(pause)
    port = port or free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield sink, port
    finally:
        controller.stop()


def until(done: Callable[[], object], what: str) -> None:
    """Wait until ``done()`` is true; fail saying ``what`` after ``WAIT`` seconds."""
    deadline = time.monotonic() + WAIT
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {WAIT:g} s for {what}")
        time.sleep(0.05)


def mail_settings(smtp_port: int, **more: Any) -> dict[str, Any]:
    """Settings of a server that mails through the tests' SMTP server, trying again soon."""
    return {
        "smtp_host": "127.0.0.1",
        "smtp_port": smtp_port,
        "smtp_security": "none",
        "smtp_timeout": 5.0,
        "mail_from": SENDER,
        "mail_retry_after": 0.2,
        **more,
    }


def link_in(message: EmailMessage, kind: str) -> str:
    """The token of the ``#/confirm/`` or ``#/reset/`` link in a mail's plain text, checked
    to be in its HTML too."""
    text = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert text is not None and html is not None
    found = re.search(rf"#/{kind}/([A-Za-z0-9_.-]+)", text.get_content())
    assert found is not None, text.get_content()
    assert found.group(1) in html.get_content()
    return found.group(1)


class AppProcess:
    """The server app (``tests/mail_serve.py``) as a process on a free port; startable
    again on the same port after it was killed."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self.settings = settings
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "mail_serve.py"), str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={
                **os.environ,
                "PYTHONUNBUFFERED": "1",
                "TALUVA_TEST_SETTINGS": json.dumps(self.settings),
            },
        )
        assert self.process.stderr is not None
        seen = []
        for line in self.process.stderr:
            seen.append(line)
            if "Uvicorn running on" in line:
                threading.Thread(target=_drain, args=(self.process.stderr,), daemon=True).start()
                return
        self.process.wait()
        raise RuntimeError("the server exited before listening:\n" + "".join(seen))

    def kill(self) -> None:
        """End the process at once (SIGKILL): nothing of it is tidied up."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None
