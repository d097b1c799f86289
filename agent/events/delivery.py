"""Delivering the outbox: each event POSTed as JSON to CLAUSEDESK_EVENTS_URL, signed with
HMAC-SHA256, marked delivered only after a 2xx, otherwise retried with exponential backoff.

At least once: a process killed after the receiver got an event but before it was marked
sends it again, with the same event ID, for the receiver to deduplicate. A worker holds an
event (a lease on its row) while sending it, so two API processes never send it at once.

Headers: Clausedesk-Event-Id, Clausedesk-Event-Kind, Clausedesk-Timestamp (Unix seconds)
and Clausedesk-Signature: `sha256=` + hex HMAC-SHA256 of `{timestamp}.{body}` under the secret.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import time
from dataclasses import dataclass
from datetime import timedelta

import httpx
from sqlalchemy import or_, select, update
from sqlalchemy.orm import sessionmaker

from agent.db.tables import OutboxEvent, utcnow
from agent.events.outbox import envelope
from agent.settings import Settings

log = logging.getLogger(__name__)
BATCH = 20


class EventsConfigError(ValueError):
    pass


def events_config_problem(settings: Settings) -> str | None:
    if settings.events_url and not settings.events_secret:
        return "CLAUSEDESK_EVENTS_URL is set without CLAUSEDESK_EVENTS_SECRET; events are always signed"
    if settings.events_secret is not None and len(settings.events_secret) < 32:
        return "CLAUSEDESK_EVENTS_SECRET is shorter than 32 characters; set a long random secret"
    return None


def signature(secret: str, timestamp: str, body: bytes) -> str:
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def verify(secret: str, timestamp: str, body: bytes, header: str) -> bool:
    """For receivers (and the tests): does the signature header match this body?"""
    return hmac.compare_digest(signature(secret, timestamp, body), header)


@dataclass(frozen=True)
class Due:
    id: str
    attempts: int
    body: bytes
    kind: str


class Delivery:
    def __init__(self, sessions: sessionmaker, settings: Settings) -> None:
        problem = events_config_problem(settings)
        if problem:
            raise EventsConfigError(problem)
        self.sessions = sessions
        self.settings = settings
        # Long enough for one POST and its bookkeeping; a dead holder's events come back after it.
        self.lease = timedelta(seconds=2 * settings.events_timeout_s + 1)

    def take_due(self) -> list[Due]:
        """Events due now and held by nobody, each taken with a conditional UPDATE."""
        now = utcnow()
        with self.sessions() as session:
            rows = session.scalars(
                select(OutboxEvent)
                .where(
                    OutboxEvent.delivered_at.is_(None),
                    OutboxEvent.next_attempt_at <= now,
                    or_(OutboxEvent.lease_until.is_(None), OutboxEvent.lease_until < now),
                )
                .order_by(OutboxEvent.created_at)
                .limit(BATCH)
            ).all()
            taken = []
            for row in rows:
                held = session.execute(
                    update(OutboxEvent)
                    .where(
                        OutboxEvent.id == row.id,
                        OutboxEvent.delivered_at.is_(None),
                        or_(OutboxEvent.lease_until.is_(None), OutboxEvent.lease_until < now),
                    )
                    .values(lease_until=now + self.lease)
                    .execution_options(synchronize_session=False)
                )
                session.commit()
                if held.rowcount == 1:
                    body = json.dumps(envelope(row), sort_keys=True, separators=(",", ":")).encode()
                    taken.append(Due(row.id, row.attempts, body, row.kind))
        return taken

    def delivered(self, due: Due) -> None:
        with self.sessions.begin() as session:
            session.execute(
                update(OutboxEvent)
                .where(OutboxEvent.id == due.id)
                .values(delivered_at=utcnow(), lease_until=None, attempts=due.attempts + 1, last_error=None)
            )

    def failed(self, due: Due, error: str) -> None:
        s = self.settings
        wait = min(s.events_retry_base_s * 2**due.attempts, s.events_retry_max_s)
        with self.sessions.begin() as session:
            session.execute(
                update(OutboxEvent)
                .where(OutboxEvent.id == due.id)
                .values(
                    attempts=due.attempts + 1,
                    next_attempt_at=utcnow() + timedelta(seconds=wait),
                    lease_until=None,
                    last_error=error[:300],
                )
            )
        log.info(
            "event %s %s attempt %s failed (%s); next in %.1f s",
            due.id,
            due.kind,
            due.attempts + 1,
            error,
            wait,
        )

    async def send(self, client: httpx.AsyncClient, due: Due) -> bool:
        timestamp = str(int(time.time()))
        headers = {
            "Content-Type": "application/json",
            "Clausedesk-Event-Id": due.id,
            "Clausedesk-Event-Kind": due.kind,
            "Clausedesk-Timestamp": timestamp,
            "Clausedesk-Signature": signature(self.settings.events_secret or "", timestamp, due.body),
        }
        try:
            response = await client.post(self.settings.events_url or "", content=due.body, headers=headers)
        except httpx.HTTPError as exc:
            await asyncio.to_thread(self.failed, due, type(exc).__name__)
            return False
        if 200 <= response.status_code < 300:
            await asyncio.to_thread(self.delivered, due)
            log.info("event %s %s delivered (HTTP %s)", due.id, due.kind, response.status_code)
            return True
        await asyncio.to_thread(self.failed, due, f"HTTP {response.status_code}")
        return False

    async def run_once(self, client: httpx.AsyncClient) -> int:
        """Send what is due now, oldest first; how many were delivered."""
        sent = 0
        for due in await asyncio.to_thread(self.take_due):
            sent += await self.send(client, due)
        return sent

    async def run_forever(self) -> None:
        async with httpx.AsyncClient(timeout=self.settings.events_timeout_s) as client:
            while True:
                try:
                    if await self.run_once(client):
                        continue  # more may be waiting
                except Exception as exc:  # the database down: try again next time
                    log.warning("event delivery pass failed: %s", type(exc).__name__)
                await asyncio.sleep(self.settings.events_poll_s)
