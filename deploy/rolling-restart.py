#!/usr/bin/env python3
"""Restart every taluva server process, one at a time, so that the players notice nothing.

Each process in turn is stopped with SIGTERM (it fails /readyz, finishes what is under way and
closes its WebSockets with 1012: the browsers reconnect through nginx to the others), and the
next is not touched before this one answers ``GET /readyz`` with 200 again and nginx has had
``--settle`` seconds to take it back (open-source nginx checks upstreams only passively: a
process that failed is left out for ``fail_timeout``, 5 s in deploy/nginx/taluva.conf).

    # systemd units taluva-server@8001 and @8002 (deploy/install.sh), as root:
    python3 deploy/rolling-restart.py --systemd 8001 8002
    # processes that something else starts again when they exit (bench/rolling_restart.py):
    python3 deploy/rolling-restart.py --pid 4242:8001 --pid 4243:8002

Standard library only, so the system's python3 runs it. Exit status 0 when every process came
back ready, 1 when one did not within ``--timeout`` seconds (the rest are left alone)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

POLL = 0.2
"""Seconds between two looks at /readyz."""


def say(text: str) -> None:
    """One line of the log, with the time, so it lines up with the bench's and nginx's."""
    print(f"{time.strftime('%H:%M:%S')} rolling-restart: {text}", flush=True)


def ready(host: str, port: int) -> bool | None:
    """Whether the process on ``port`` says it is ready: True (200), False (an answer, not
    ready: stopping, or its database or Redis unreachable), None (nothing listens)."""
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/readyz", timeout=2) as answer:
            return bool(json.load(answer).get("ready"))
    except urllib.error.HTTPError:
        return False
    except (OSError, ValueError):
        return None


def wait_until_ready(host: str, port: int, timeout: float) -> float | None:
    """Seconds until ``/readyz`` on ``port`` answers 200; None if ``timeout`` passes first."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if ready(host, port):
            return time.monotonic() - started
        time.sleep(POLL)
    return None


def wait_until_not_ready(host: str, port: int, timeout: float) -> bool:
    """Whether the process on ``port`` stopped being ready (stopping, or gone) in time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not ready(host, port):
            return True
        time.sleep(POLL)
    return False


def restart_unit(port: int, host: str, timeout: float) -> float | None:
    """``systemctl restart taluva-server@PORT`` (it returns once the old process has ended),
    then wait for the new one's readiness; the seconds that took, or None."""
    started = time.monotonic()
    say(f"systemctl restart taluva-server@{port}")
    subprocess.run(["systemctl", "restart", f"taluva-server@{port}"], check=True)
    waited = wait_until_ready(host, port, timeout)
    return None if waited is None else time.monotonic() - started


def restart_process(pid: int, port: int, host: str, timeout: float) -> float | None:
    """SIGTERM to ``pid``, which something else (systemd, the bench) starts again on ``port``
    when it exits; wait until it is not ready, then ready again: the seconds, or None."""
    started = time.monotonic()
    say(f"SIGTERM to process {pid} (port {port})")
    os.kill(pid, signal.SIGTERM)
    if not wait_until_not_ready(host, port, timeout):
        say(f"port {port} still answers ready {timeout:g} s after the signal")
        return None
    waited = wait_until_ready(host, port, timeout)
    return None if waited is None else time.monotonic() - started


def pid_and_port(text: str) -> tuple[int, int]:
    """``PID:PORT`` as two numbers (an argparse type)."""
    pid, _colon, port = text.partition(":")
    if not (pid.isdigit() and port.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r}: expected PID:PORT, e.g. 4242:8001")
    return int(pid), int(port)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--systemd",
        type=int,
        nargs="+",
        metavar="PORT",
        help="restart the units taluva-server@PORT, in this order",
    )
    which.add_argument(
        "--pid",
        type=pid_and_port,
        action="append",
        metavar="PID:PORT",
        help="stop process PID, listening on PORT, that something starts again (repeat)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="where the processes listen")
    parser.add_argument(
        "--settle",
        type=float,
        default=6.0,
        metavar="S",
        help="seconds to wait after a process is ready before the next is stopped: longer "
        "than nginx's fail_timeout, so nginx has taken it back (default 6)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="S",
        help="seconds a process may take to be ready again (default 120)",
    )
    args = parser.parse_args()
    steps = [(None, port) for port in args.systemd] if args.systemd else args.pid
    for number, (pid, port) in enumerate(steps):
        if not ready(args.host, port):
            say(f"port {port} is not ready before its restart: stopping here")
            return 1
        if pid is None:
            took = restart_unit(port, args.host, args.timeout)
        else:
            took = restart_process(pid, port, args.host, args.timeout)
        if took is None:
            say(f"port {port} did not come back ready within {args.timeout:g} s: stopping here")
            return 1
        say(f"port {port} ready again {took:.1f} s after its restart began")
        if number < len(steps) - 1:
            time.sleep(args.settle)
    say(f"all {len(steps)} processes restarted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
