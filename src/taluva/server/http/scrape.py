"""``GET /metrics``: the process's Prometheus metrics (``taluva.server.metrics``) in the text
exposition format, for a Prometheus server to scrape. Not rate-limited, like the probes."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from taluva.server.http.site import Site
from taluva.server.metrics import CONTENT_TYPE

router = APIRouter()


@router.get("/metrics", summary="Prometheus metrics of this process (text exposition format)")
async def metrics(request: Request) -> Response:
    """Every metric, the games and the AI queue read now."""
    site: Site = request.app.state.site
    return Response(site.service.metrics.exposition(), media_type=CONTENT_TYPE)
