"""GET /metrics: the Prometheus text format (agent.metrics), behind a bearer token of its own.

No CLAUSEDESK_METRICS_TOKEN: 404, as if there were no such page. A missing or wrong token:
401. The token is compared in constant time. Not in the OpenAPI document: it is for the
operator's scraper, not for the insurer's clients.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Annotated

from fastapi import APIRouter, Header, HTTPException, Response
from prometheus_client import CONTENT_TYPE_LATEST

from agent import metrics
from agent.api.deps import ServicesDep

router = APIRouter()


def _same(given: str, expected: str) -> bool:
    # Digests of equal length: neither the token's length nor its bytes show in the timing.
    return hmac.compare_digest(
        hashlib.sha256(given.encode()).digest(), hashlib.sha256(expected.encode()).digest()
    )


@router.get("/metrics", include_in_schema=False)
def scrape(svc: ServicesDep, authorization: Annotated[str | None, Header()] = None) -> Response:
    expected = svc.settings.metrics_token
    if not expected:
        raise HTTPException(404, "Not Found")
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not _same(given.strip(), expected):
        raise HTTPException(
            401,
            "send the metrics token as 'Authorization: Bearer <token>'",
            headers={"WWW-Authenticate": "Bearer"},
        )
    # Scrapes are not cached anywhere between the scraper and the app.
    return Response(
        metrics.exposition(svc.sessions),
        media_type=CONTENT_TYPE_LATEST,
        headers={"Cache-Control": "no-store"},
    )
