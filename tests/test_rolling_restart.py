"""``deploy/rolling-restart.py --pid``: each process in turn is stopped and the next is not
touched before the first answers ``/readyz`` again; a process that does not come back stops
the restart with status 1, leaving the others alone. The processes here are stand-ins that
answer ``/readyz`` like a server and exit on SIGTERM (bench/rolling_restart.py runs the script
against real servers under load, docs/deploy.md)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
from test_server_support import free_port

SCRIPT = Path(__file__).resolve().parents[1] / "deploy" / "rolling-restart.py"
STAND_IN = """
import http.server, json, signal, sys
class Ready(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"ready": True}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
signal.signal(signal.SIGTERM, lambda *args: sys.exit(0))
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Ready).serve_forever()
"""


def stand_in(port: int) -> subprocess.Popen[bytes]:
    """A process answering ``/readyz`` on ``port`` once it listens."""
    return subprocess.Popen([sys.executable, "-c", STAND_IN, str(port)])


class Restarting:
    """A stand-in on ``port``, started again whenever it exits (as systemd does); ``pids``
    lists every process it started, in order."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.pids: list[int] = []
        self.stopped = False
        self.process = self._start()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _start(self) -> subprocess.Popen[bytes]:
        process = stand_in(self.port)
        self.pids.append(process.pid)
        return process

    def _watch(self) -> None:
        while True:
            self.process.wait()
            if self.stopped:
                return
            self.process = self._start()

    def stop(self) -> None:
        self.stopped = True
        self.process.terminate()
        self.process.wait()


def restart(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *argv], capture_output=True, text=True, timeout=60
    )


def wait_ready(port: int) -> None:
    """Return once the stand-in on ``port`` answers (it takes a moment to start)."""
    for _attempt in range(300):
        try:
            httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).raise_for_status()
            return
        except httpx.HTTPError:
            time.sleep(0.05)
    raise AssertionError(f"nothing answers on port {port}")


def test_every_process_is_restarted_in_turn_each_ready_before_the_next() -> None:
    servers = [Restarting(free_port()), Restarting(free_port())]
    try:
        for server in servers:
            wait_ready(server.port)
        done = restart(
            *(f"--pid={server.pids[0]}:{server.port}" for server in servers), "--settle", "0"
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert [len(server.pids) for server in servers] == [2, 2]
        lines = [line.split(": ", 1)[1] for line in done.stdout.splitlines()]
        first, second = servers
        assert lines[0] == f"SIGTERM to process {first.pids[0]} (port {first.port})"
        assert lines[1].startswith(f"port {first.port} ready again")
        assert lines[2] == f"SIGTERM to process {second.pids[0]} (port {second.port})"
        assert lines[3].startswith(f"port {second.port} ready again")
        assert lines[4] == "all 2 processes restarted"
    finally:
        for server in servers:
            server.stop()


def test_a_process_that_does_not_come_back_stops_the_restart() -> None:
    gone_port = free_port()
    gone, other = stand_in(gone_port), Restarting(free_port())
    try:
        wait_ready(gone_port)
        wait_ready(other.port)
        done = restart(
            f"--pid={gone.pid}:{gone_port}",
            f"--pid={other.pids[0]}:{other.port}",
            "--timeout",
            "3",
        )
        assert done.returncode == 1
        assert f"port {gone_port} did not come back ready within 3 s: stopping here" in done.stdout
        assert len(other.pids) == 1  # never touched
    finally:
        gone.wait()
        other.stop()
