"""The probes of a process manager or load balancer: ``/healthz`` (the process answers) and
``/readyz`` (it can serve games: database and Redis reachable, schema at the newest
revision, not shutting down). Neither is rate-limited nor touches a game."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from taluva.server.http.site import Site

PROBE_SECONDS = 3.0
"""How long ``/readyz`` waits for the database or Redis before calling it unreachable."""

router = APIRouter()


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is alive: its event loop answers (nothing else is checked)."""
    return {"status": "alive"}


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    """200 when every check passes, else 503; the body names each check's outcome."""
    site: Site = request.app.state.site
    checks = await readiness(site)
    ready = all(outcome in ("ok", "not used") for outcome in checks.values())
    return JSONResponse({"ready": ready, "checks": checks}, status_code=200 if ready else 503)


async def readiness(site: Site) -> dict[str, Any]:
    """Each check of ``/readyz`` with its outcome: ``ok``, ``not used`` or what is wrong."""
    checks: dict[str, Any] = {"shutdown": "stopping" if site.stopping else "ok"}
    service = site.service
    try:
        at_head = await asyncio.wait_for(service.db(service.store.at_head), PROBE_SECONDS)
    except asyncio.CancelledError:
        raise
    except Exception:  # unreachable, timed out, or the process is closing its database
        checks["database"] = "unreachable"
        checks["migrations"] = "unknown"
    else:
        checks["database"] = "ok"
        checks["migrations"] = "ok" if at_head else "not at head"
    if service.cluster is None:
        checks["redis"] = "not used"
    else:
        reachable = await service.cluster.bus.reachable(PROBE_SECONDS)
        checks["redis"] = "ok" if reachable else "unreachable"
    return checks
