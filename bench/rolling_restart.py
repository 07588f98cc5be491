"""A rolling restart under load: does any player notice?

Starts a throwaway PostgreSQL and Redis, two ``taluva serve --redis`` processes (each started
again whenever it exits, as systemd's ``Restart=always`` does), and Debian's nginx in front
with the deploy site (deploy/nginx/taluva.conf, its ports and per-address limits changed: every
client here is 127.0.0.1). Then it drives the cluster through nginx with
``bench/server_load.py --url`` and, meanwhile, restarts every server process one at a time
with ``deploy/rolling-restart.py --pid``, while ``--creators`` lobby clients create games
without a pause (POSTs, which nginx may resend only because the site says so). The bench's
report counts what the players saw:
HTTP errors, WebSocket reconnects and lost moves; nginx's error log shows why any request
failed. Exit status: the bench's (0: no error and no lost move).

    .venv/bin/python bench/rolling_restart.py                      # 60 s, 30 games
    .venv/bin/python bench/rolling_restart.py --seconds 30 --games 10 --stop-drain 2
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from server_load import OPEN_LIMITS, free_port, fresh_database, postgres_and_redis, start_server

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "deploy" / "nginx" / "taluva.conf"
RESTART = ROOT / "deploy" / "rolling-restart.py"
LOAD = ROOT / "bench" / "server_load.py"

UNLIMITED = {
    "limit_conn taluva_connections 32;": "limit_conn taluva_connections 60000;",
    "rate=20r/m;": "rate=1000000r/m;",
    "burst=19 nodelay;": "burst=60000 nodelay;",
}
"""The site's per-address limits, lifted: every client of the bench is 127.0.0.1."""


def say(text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} bench: {text}", flush=True)


class Supervised:
    """One server process on ``port``, started again whenever it exits until ``stop``."""

    def __init__(self, database: str, port: int, redis: str, options: list[str]) -> None:
        self.database, self.port, self.redis, self.options = database, port, redis, options
        self.stopping = False
        self.starts = 0
        self.process = self._start()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _start(self) -> subprocess.Popen[str]:
        process = start_server(
            self.database, self.port, [*OPEN_LIMITS, *self.options], redis=self.redis
        )
        self.starts += 1
        say(f"server on port {self.port} listening (process {process.pid})")
        return process

    def _watch(self) -> None:
        while True:
            code = self.process.wait()
            if self.stopping:
                return
            say(f"server on port {self.port} exited with {code}: starting it again")
            self.process = self._start()

    def stop(self) -> None:
        self.stopping = True
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def nginx_site(ports: list[int], listen: int) -> str:
    """The deploy site with the bench's ports and no per-address limits."""
    site = SITE.read_text()
    replacements = {
        "listen 80;": f"listen 127.0.0.1:{listen};",
        "127.0.0.1:8001": f"127.0.0.1:{ports[0]}",
        "127.0.0.1:8002": f"127.0.0.1:{ports[1]}",
        **UNLIMITED,
    }
    for old, new in replacements.items():
        if old not in site:
            raise SystemExit(f"{SITE} no longer holds {old!r}: update {Path(__file__).name}")
        site = site.replace(old, new)
    return site


@contextlib.contextmanager
def nginx(ports: list[int], folder: Path) -> Iterator[int]:
    """Debian's nginx with the site in front of ``ports``; yields the port it listens on."""
    program = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(program).exists():
        raise SystemExit("nginx is not installed: run scripts/ci-system-deps.sh")
    listen = free_port()
    (folder / "taluva.conf").write_text(nginx_site(ports, listen))
    temp = " ".join(
        f"{kind}_temp_path {folder / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (folder / "nginx.conf").write_text(
        f"daemon off; worker_processes 1; pid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'} warn;\n"
        "events { worker_connections 4096; }\n"
        f"http {{ access_log off; {temp} include {folder / 'taluva.conf'}; }}\n"
    )
    process = subprocess.Popen(
        [program, "-p", str(folder), "-c", str(folder / "nginx.conf")],
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group: stopping it stops its worker too
    )
    try:
        for _attempt in range(300):
            if process.poll() is not None:
                raise SystemExit(
                    "nginx exited:\n" + (process.stderr.read() if process.stderr else "")
                )
            with contextlib.suppress(httpx.HTTPError):
                httpx.get(f"http://127.0.0.1:{listen}/api/config", timeout=1).raise_for_status()
                break
            time.sleep(0.1)
        say(f"nginx listening on 127.0.0.1:{listen}, in front of ports {ports}")
        yield listen
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)


def stream(process: subprocess.Popen[str]) -> threading.Thread:
    """Print a child's output as it comes (the bench's report, the restart script's log)."""

    def run() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            print(line, end="", flush=True)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=30, help="simultaneous games (30)")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of load (60)")
    parser.add_argument(
        "--think", type=float, default=0.3, help="seconds each player thinks per move (0.3)"
    )
    parser.add_argument(
        "--restart-after",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds of load before the first restart (10)",
    )
    parser.add_argument(
        "--creators",
        type=int,
        default=2,
        metavar="N",
        help="lobby clients that only create games: a stream of POSTs (2)",
    )
    parser.add_argument(
        "--stop-drain",
        type=float,
        default=0.0,
        help="the servers' (0, as in the systemd unit: nginx does not poll /readyz)",
    )
    parser.add_argument("--stop-grace", type=float, default=10.0, help="the servers' (10)")
    args = parser.parse_args()
    python = sys.executable
    options = [
        "--stop-drain",
        str(args.stop_drain),
        "--stop-grace",
        str(args.stop_grace),
        "--forwarded-allow-ips",
        "127.0.0.1",
    ]
    say(
        f"two server processes (--stop-drain {args.stop_drain:g} --stop-grace "
        f"{args.stop_grace:g}) on PostgreSQL + Redis behind nginx"
    )
    with contextlib.ExitStack() as stack:
        server, redis = stack.enter_context(postgres_and_redis())
        database = fresh_database(server, "rolling")
        ports = [free_port(), free_port()]
        servers = []
        for port in ports:  # one at a time: the first creates the schema
            supervised = Supervised(database, port, redis, options)
            stack.callback(supervised.stop)
            servers.append(supervised)
        nginx_folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="nginx-")))
        listen = stack.enter_context(nginx(ports, nginx_folder))
        command = [
            python,
            str(LOAD),
            "--url",
            f"http://127.0.0.1:{listen}",
            "--games",
            str(args.games),
            "--seconds",
            str(args.seconds),
            "--think",
            str(args.think),
            "--creators",
            str(args.creators),
        ]
        say("load: " + " ".join(Path(part).name if "/" in part else part for part in command))
        load = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT
        )
        printing = stream(load)
        time.sleep(args.restart_after)
        restart = subprocess.Popen(
            [
                python,
                str(RESTART),
                *(f"--pid={server.process.pid}:{server.port}" for server in servers),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        stream(restart).join()
        say(f"rolling restart ended with {restart.wait()}")
        code = load.wait()
        printing.join()
        errors = (nginx_folder / "error.log").read_text().splitlines()
        upstream = [line for line in errors if "upstream" in line]
        say(f"nginx logged {len(upstream)} upstream problems (retried or not):")
        for line in upstream[:20]:
            print("  " + line.split(" ", 2)[-1][:300])
        starts = ", ".join(f"port {server.port}: {server.starts}" for server in servers)
        say(f"server starts: {starts}; the load ended with {code}")
    return code


if __name__ == "__main__":
    sys.exit(main())
