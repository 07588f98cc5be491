"""A throwaway PostgreSQL cluster the test can stop and start again on the same port (as the
``postgres`` user when the tests run as root), and a server process whose log is kept."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType

import httpx
from test_server_support import free_port, postgres_binaries

POSTGRES = postgres_binaries()


def _as_postgres_user(command: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


class Postgres:
    """A cluster in a temporary folder on 127.0.0.1: ``url`` reaches its ``postgres``
    database; ``stop`` and ``start`` take it down and up on the same port."""

    def __init__(self) -> None:
        assert POSTGRES is not None, "PostgreSQL is missing: run scripts/ci-system-deps.sh"
        self.folder = Path(tempfile.mkdtemp(prefix="taluva-pg-"))
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self.data = self.folder / "data"
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        initdb = [str(POSTGRES / "initdb"), "-D", str(self.data), "-U", "postgres"]
        options = ["--auth=trust", "--no-sync", "-E", "UTF8"]
        subprocess.run(_as_postgres_user(initdb + options), check=True, capture_output=True)

    def start(self) -> None:
        options = f"-h 127.0.0.1 -p {self.port} -k {self.folder} -c fsync=off"
        command = [str(POSTGRES / "pg_ctl"), "-D", str(self.data), "-o", options]
        command += ["-l", str(self.folder / "log"), "-w", "start"]
        subprocess.run(_as_postgres_user(command), check=True, capture_output=True)

    def stop(self) -> None:
        command = [str(POSTGRES / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"]
        subprocess.run(_as_postgres_user(command), check=True, capture_output=True)

    def database(self, name: str) -> str:
        """The URL of a new, empty database ``name`` in the cluster."""
        command = [str(POSTGRES / "createdb"), "-h", "127.0.0.1", "-p", str(self.port)]
        subprocess.run(
            _as_postgres_user([*command, "-U", "postgres", name]), check=True, capture_output=True
        )
        return self.url.rsplit("/", 1)[0] + f"/{name}"

    def __enter__(self) -> Postgres:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        command = [str(POSTGRES / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"]
        subprocess.run(_as_postgres_user(command), capture_output=True)
        shutil.rmtree(self.folder, ignore_errors=True)


class LoggedServer:
    """``taluva serve`` as a real process whose stderr lines are kept in ``log``."""

    def __init__(self, database: str, *extra: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log: list[str] = []
        command = [sys.executable, "-m", "taluva", "serve", "--port", str(self.port)]
        self.process = subprocess.Popen(
            [*command, "--database", database, "--ai-workers", "0", *extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert self.process.stderr is not None
        threading.Thread(target=self.log.extend, args=(self.process.stderr,), daemon=True).start()

    def wait_ready(self, seconds: float = 60) -> None:
        """Return once ``/readyz`` answers 200 (AssertionError with the log otherwise)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "the server exited:\n" + "".join(self.log)
            try:
                if httpx.get(f"{self.url}/readyz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError("the server was not ready in time:\n" + "".join(self.log))

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
