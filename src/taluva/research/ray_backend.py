"""Run independent tasks (arena games) on a Ray cluster: ``ray_map(fn, tasks, address)``.

``address`` is what ``ray.init`` takes: ``HOST:PORT`` of a running cluster's head (what
``ray start --head`` prints), ``auto`` for the cluster this machine belongs to,
``ray://HOST:10001`` for a remote cluster through Ray Client, or ``local`` to start a private
Ray instance in this process. When connecting to a cluster, the ``taluva`` package itself is
shipped to the workers (Ray's ``py_modules``), so they run exactly this code; they need the
same Python version. Needs the ``[research]`` extra (Ray).
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Final, TypeVar

import taluva

T = TypeVar("T")
R = TypeVar("R")

LOCAL: Final = "local"


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster at the given address cannot be reached."""


def ray_map(fn: Callable[[T], R], tasks: Iterable[T], address: str) -> list[R]:
    """``[fn(task) for task in tasks]``, each call a Ray task; results in task order.

    ``fn`` must be picklable (a top-level function) and so must tasks and results. The
    process stays connected to the cluster afterwards, so later calls start at once.
    Raises RayUnavailable (naming the address) when the cluster cannot be reached.
    """
    if not isinstance(address, str) or not address.strip():
        raise RayUnavailable("a Ray address is needed: HOST:PORT, auto, ray://HOST:PORT or local")
    address = address.strip()
    ray = _ray()
    if address != LOCAL:
        _check_reachable(address)
    if not ray.is_initialized():
        _connect(ray, address)
    remote = ray.remote(num_cpus=1, max_retries=1)(fn)
    return list(ray.get([remote.remote(task) for task in tasks]))


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailable(
            "Ray is not installed: pip install 'taluva[research]' (or pip install ray)"
        ) from None
    return ray


def _connect(ray: Any, address: str) -> None:
    options: dict[str, Any] = {"log_to_driver": False, "logging_level": "warning"}
    if address == LOCAL:
        options["include_dashboard"] = False
    else:
        options["address"] = address
        options["runtime_env"] = {"py_modules": [str(Path(taluva.__file__).parent)]}
    try:
        ray.init(**options)
    except (ConnectionError, TimeoutError, ValueError, RuntimeError) as error:
        raise RayUnavailable(f"cannot reach a Ray cluster at {address!r}: {error}") from None


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast when nothing listens at ``HOST:PORT`` (``ray.init`` retries for minutes)."""
    target = address.removeprefix("ray://")
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        return  # "auto" and other forms Ray resolves itself
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise RayUnavailable(
            f"cannot reach a Ray cluster at {address!r}: nothing answers at {target} ({reason})"
        ) from None
