"""The container recipe (``Dockerfile``, ``compose.yaml``, ``deploy/nginx/``) agrees with the
code, so it cannot rot where no container engine runs: every command is one the real
command line parses, every ``TALUVA_`` variable names a real option and fits it, every health
check asks a real route (the image's is run against a real server), nginx's upstreams are
compose's servers on the port they listen on, and Debian's nginx accepts the TLS sites.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_server_support import free_port

from taluva.cli import build_parser
from taluva.cli.common import ENV_PREFIX, check_environment
from taluva.server.config import SERVICE_STOP_SECONDS
from taluva.server.http.app import ROUTERS

ROOT = Path(__file__).resolve().parents[1]
NGINX = ROOT / "deploy" / "nginx"
EXAMPLE_ENV = {"POSTGRES_PASSWORD": "example-password"}
"""What .env holds for this test (compose.yaml refuses to start without it)."""


# ---------------------------------------------------------------- reading the files


@dataclass
class Dockerfile:
    """The instructions of the Dockerfile's last stage (the image that runs), and the COPY
    sources and RUN commands of every stage."""

    env: dict[str, str] = field(default_factory=dict)
    cmd: list[str] = field(default_factory=list)
    healthcheck: list[str] = field(default_factory=list)
    user: str = "root"
    expose: list[int] = field(default_factory=list)
    copied: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)


def read_dockerfile() -> Dockerfile:
    text = (ROOT / "Dockerfile").read_text()
    lines = re.sub(r"\\\n\s*", " ", re.sub(r"(?m)^\s*#.*\n", "", text)).splitlines()
    image = Dockerfile()
    for line in filter(None, (line.strip() for line in lines)):
        instruction, _, rest = line.partition(" ")
        instruction = instruction.upper()
        if instruction == "FROM":
            image = Dockerfile(copied=image.copied, runs=image.runs)
        elif instruction == "ENV":
            image.env.update(pair.split("=", 1) for pair in shlex.split(rest))  # type: ignore[misc]
        elif instruction == "CMD":
            image.cmd = json.loads(rest)
        elif instruction == "HEALTHCHECK":
            image.healthcheck = json.loads(rest[rest.index("CMD ") + 4 :])
        elif instruction == "USER":
            image.user = rest.strip()
        elif instruction == "EXPOSE":
            image.expose = [int(port) for port in rest.split()]
        elif instruction == "COPY" and "--from=" not in rest:
            image.copied += rest.split()[:-1]
        elif instruction == "RUN":
            image.runs.append(rest)
    return image


def interpolate(value: str, environment: dict[str, str]) -> str:
    """Compose's ``${NAME}``, ``${NAME:-default}`` and ``${NAME:?error}`` in ``value``."""

    def one(match: re.Match[str]) -> str:
        name, how, other = match.group(1), match.group(2) or "", match.group(3) or ""
        if name in environment and environment[name] != "":
            return environment[name]
        if how == ":?":
            raise AssertionError(f"compose would refuse to start: {other}")
        return other

    return re.sub(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}", one, value)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return loaded


@pytest.fixture(scope="module")
def image() -> Dockerfile:
    return read_dockerfile()


def built_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The services that run the image of ./Dockerfile."""
    return {name: service for name, service in compose["services"].items() if "build" in service}


def environment_of(service: dict[str, Any]) -> dict[str, str]:
    raw = service.get("environment") or {}
    if isinstance(raw, list):
        raw = dict(entry.split("=", 1) for entry in raw)
    return {name: interpolate(str(value), EXAMPLE_ENV) for name, value in raw.items()}


def command_of(service: dict[str, Any], image: Dockerfile) -> list[str]:
    command = service.get("command", image.cmd)
    return shlex.split(command) if isinstance(command, str) else [str(part) for part in command]


def subcommand_parser(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    chosen: argparse.ArgumentParser = commands.choices[name]
    return chosen


def parsed(
    command: list[str], environment: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> argparse.Namespace:
    """``command`` as the real command line reads it with only the ``TALUVA_`` variables of
    ``environment`` set."""
    assert command[0] == "taluva", f"{command}: not the taluva command"
    for name in [name for name in os.environ if name.startswith(ENV_PREFIX)]:
        monkeypatch.delenv(name)
    for name, value in environment.items():
        if name.startswith(ENV_PREFIX):
            monkeypatch.setenv(name, value)
    args = build_parser().parse_args(command[1:])
    check_environment(args)
    return args


def variables_of(args: argparse.Namespace) -> set[str]:
    """The ``TALUVA_`` names a parsed command reads: its options', and those of the settings
    that have a variable but no option (a password)."""
    options = {
        ENV_PREFIX + action.dest.upper()
        for action in subcommand_parser(args.command)._actions
        if action.option_strings
    }
    return options | {ENV_PREFIX + dest.upper() for dest, _ in getattr(args, "secret_settings", ())}


def route_paths() -> set[str]:
    return {route.path for router in ROUTERS for route in router.routes}  # type: ignore[attr-defined]


def quoted_paths(command: list[str]) -> list[str]:
    """The URL paths a health check's command asks (``'/healthz'`` or ``http://h:p/healthz``)."""
    text = " ".join(command)
    return re.findall(r"['\"](/[\w/-]*)['\"]", text) + re.findall(
        r"https?://[\w.:-]+(/[\w/-]*)", text
    )


# ---------------------------------------------------------------- the commands and variables


def test_every_container_command_is_a_real_command_whose_variables_are_real_options(
    compose: dict[str, Any], image: Dockerfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = built_services(compose)
    assert {"server", "ai-worker"} <= set(services)
    runs = {"the image": (image.cmd, image.env, image.env)} | {
        name: (command_of(service, image), image.env | environment_of(service), service_env)
        for name, service in services.items()
        for service_env in [environment_of(service)]
    }
    for name, (command, environment, set_here) in runs.items():
        args = parsed(command, environment, monkeypatch)
        variables = {key for key in set_here if key.startswith(ENV_PREFIX)}
        unknown = variables - variables_of(args)
        assert not unknown, f"{name}: {sorted(unknown)} name no setting of {args.command}"
    server = parsed(
        command_of(services["server"], image),
        {**image.env, **environment_of(services["server"])},
        monkeypatch,
    )
    assert server.command == "serve" and server.database.startswith("postgresql+psycopg://")
    assert server.redis == services["ai-worker"]["environment"]["TALUVA_REDIS"]


def test_no_command_line_holds_a_password(compose: dict[str, Any], image: Dockerfile) -> None:
    for name, service in compose["services"].items():
        command = " ".join(command_of(service, image))
        assert "PASSWORD" not in command and "postgresql" not in command, name


def test_a_server_container_is_given_time_to_stop_as_it_means_to(
    compose: dict[str, Any], image: Dockerfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = compose["services"]["server"]
    args = parsed(command_of(service, image), image.env, monkeypatch)
    grace = re.fullmatch(r"(\d+)s", service["stop_grace_period"])
    assert grace is not None
    assert int(grace.group(1)) > args.stop_drain + args.stop_grace + SERVICE_STOP_SECONDS
    assert service.get("init") is True  # signals reach taluva; the workers' children are reaped


def test_the_servers_trust_forwarded_addresses_from_compose_network_only(
    compose: dict[str, Any], image: Dockerfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = parsed(command_of(compose["services"]["server"], image), image.env, monkeypatch)
    subnets = [entry["subnet"] for entry in compose["networks"]["taluva"]["ipam"]["config"]]
    assert args.forwarded_allow_ips.split(",") == subnets
    for name, service in compose["services"].items():
        assert service["networks"] == ["taluva"], name


def test_the_data_services_keep_their_data_and_report_their_health(
    compose: dict[str, Any],
) -> None:
    postgres, redis = compose["services"]["postgres"], compose["services"]["redis"]
    assert postgres["healthcheck"]["test"][1] == "pg_isready"
    assert any(volume.endswith(":/var/lib/postgresql/data") for volume in postgres["volumes"])
    assert redis["command"][redis["command"].index("--appendonly") + 1] == "yes"
    assert redis["healthcheck"]["test"][1:] == ["redis-cli", "ping"]
    assert any(volume.endswith(":/data") for volume in redis["volumes"])
    for name in ("server", "nginx"):
        for needed, condition in compose["services"][name]["depends_on"].items():
            assert needed in compose["services"] and condition == {"condition": "service_healthy"}


# ---------------------------------------------------------------- the image


def test_the_image_installs_the_server_extra_and_runs_as_a_user(image: Dockerfile) -> None:
    assert image.user not in ("root", "0") and image.user
    assert any('".[server]"' in run for run in image.runs)
    kept = (ROOT / ".dockerignore").read_text().splitlines()
    assert "*" in kept  # an allow-list: only what is named again goes in (no .env, no .git)
    for source in image.copied:
        assert (ROOT / source).exists(), source
        assert f"!{source.rstrip('/')}" in kept or f"!{source}/" in kept, source


def test_every_health_check_asks_a_real_route(compose: dict[str, Any], image: Dockerfile) -> None:
    routes = route_paths()
    checks = [image.healthcheck] + [
        service["healthcheck"]["test"]
        for service in built_services(compose).values()
        if "test" in service.get("healthcheck", {})
    ]
    for check in checks:
        paths = quoted_paths(check)
        assert paths and set(paths) <= routes, check
    assert quoted_paths(image.healthcheck) == ["/healthz"]
    assert built_services(compose)["ai-worker"]["healthcheck"] == {"disable": True}


@pytest.fixture
def image_server(image: Dockerfile, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The image's own command with its environment (on a SQLite file of loopback's free
    port), as a real process; yields the environment the health check sees."""
    environment = {
        **{key: value for key, value in os.environ.items() if not key.startswith(ENV_PREFIX)},
        **{key: value for key, value in image.env.items() if key.startswith(ENV_PREFIX)},
        "TALUVA_HOST": "127.0.0.1",
        "TALUVA_PORT": str(free_port()),
        "TALUVA_DATABASE": f"sqlite:///{tmp_path / 'games.sqlite3'}",
        "TALUVA_AI_WORKERS": "0",
    }
    assert image.cmd[0] == "taluva"
    process = subprocess.Popen(
        [sys.executable, "-m", "taluva", *image.cmd[1:]],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield environment
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_images_health_check_passes_on_its_server_and_fails_without_one(
    image: Dockerfile, image_server: dict[str, str]
) -> None:
    check = [sys.executable if part == "python" else part for part in image.healthcheck]

    def healthy() -> bool:
        done = subprocess.run(check, env=image_server, capture_output=True, timeout=30)
        return done.returncode == 0

    deadline = time.monotonic() + 60  # the image's --start-period
    while not healthy():
        assert time.monotonic() < deadline, "the health check never passed"
        time.sleep(0.2)
    elsewhere = {**image_server, "TALUVA_PORT": str(free_port())}
    assert subprocess.run(check, env=elsewhere, capture_output=True, timeout=30).returncode != 0


# ---------------------------------------------------------------- nginx


def directives(path: Path) -> list[str]:
    """The lines of an nginx file without comments and blank lines."""
    stripped = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [line for line in stripped if line]


def test_the_compose_site_sends_players_to_the_servers_on_their_port(
    compose: dict[str, Any], image: Dockerfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = directives(NGINX / "compose.conf")
    upstreams = [line.split()[1] for line in site if re.match(r"server \S+:\d+", line)]
    assert upstreams
    for upstream in upstreams:
        host, port = upstream.rsplit(":", 1)
        service = built_services(compose)[host]
        args = parsed(
            command_of(service, image), {**image.env, **environment_of(service)}, monkeypatch
        )
        assert (args.command, args.host, args.port) == ("serve", "0.0.0.0", int(port))
        assert args.port in image.expose


def test_the_compose_site_finds_every_file_it_names_in_its_mounts(
    compose: dict[str, Any],
) -> None:
    nginx = compose["services"]["nginx"]
    mounts = {
        target: source for source, target, *_ in (volume.split(":") for volume in nginx["volumes"])
    }
    assert mounts["/etc/nginx/conf.d/default.conf"] == "./deploy/nginx/compose.conf"
    for line in directives(NGINX / "compose.conf") + directives(NGINX / "taluva-locations.conf"):
        name, _, value = line.rstrip(";").partition(" ")
        if name == "include":
            assert (ROOT / mounts[value]).is_file(), value
        elif name in ("ssl_certificate", "ssl_certificate_key", "root"):
            assert any(value.startswith(target + "/") or value == target for target in mounts)
    assert {"80:80", "443:443"} <= set(nginx["ports"])


def test_the_tls_sites_hold_the_plain_sites_limits_and_locations() -> None:
    plain = set(directives(NGINX / "taluva.conf"))
    for snippet in ("taluva-http.conf", "taluva-locations.conf"):
        missing = [line for line in directives(NGINX / snippet) if line not in plain]
        assert missing == [], f"{snippet} and taluva.conf differ: {missing}"
    shared = directives(NGINX / "taluva-locations.conf")
    assert sum(line.startswith("location") for line in shared) == sum(
        line.startswith("location") for line in plain
    )


@pytest.mark.parametrize("site", ["compose.conf", "taluva-tls.conf"])
def test_nginx_accepts_the_tls_site(site: str, tmp_path: Path) -> None:
    program = shutil.which("nginx") or "/usr/sbin/nginx"
    assert Path(program).exists(), "nginx is missing: run scripts/ci-system-deps.sh"
    openssl = shutil.which("openssl")
    assert openssl, "openssl is missing: run scripts/ci-system-deps.sh"
    subprocess.run(
        [
            *(openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=localhost", "-keyout", str(tmp_path / "privkey.pem")),
            *("-out", str(tmp_path / "fullchain.pem")),
        ],
        check=True,
        capture_output=True,
    )
    text = (NGINX / site).read_text()
    for snippet in ("taluva-http.conf", "taluva-locations.conf"):
        shutil.copy(NGINX / snippet, tmp_path / snippet)
        text = text.replace(f"/etc/nginx/snippets/{snippet}", str(tmp_path / snippet))
    for certificates in ("/etc/nginx/certs/", "/etc/ssl/taluva/"):
        text = text.replace(certificates, f"{tmp_path}/")
    # compose's service names resolve only inside compose's network
    text = text.replace("server server:", "server 127.0.0.1:")
    (tmp_path / "site.conf").write_text(text)
    temp = " ".join(f"{kind}_temp_path {tmp_path / kind};" for kind in TEMP_PATHS)
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path / 'nginx.pid'}; error_log {tmp_path / 'error.log'};\n"
        f"events {{}}\nhttp {{ access_log off; {temp} include {tmp_path / 'site.conf'}; }}\n"
    )
    done = subprocess.run(
        [
            *(program, "-t", "-p", str(tmp_path), "-e", str(tmp_path / "error.log")),
            *("-c", str(tmp_path / "nginx.conf")),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr


TEMP_PATHS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
