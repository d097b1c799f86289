"""Delivering the outbox: each event POSTed as JSON to CLAUSEDESK_EVENTS_URL, signed with
HMAC-SHA256, marked delivered only after a 2xx, otherwise retried with exponential backoff.

At least once: a process killed after the receiver got an event but before it was marked
sends it again, with the same event ID, for the receiver to deduplicate. One at a time: a
delivery claims one event just before sending it (a lease and a claim token set by one
conditional UPDATE, atomic on SQLite and PostgreSQL), and one send is cut off well within the
lease, so while it is in flight no other process can claim the event. A lease that runs out
(its holder killed) lets another process send the event again.

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
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
from sqlalchemy import ColumnElement, or_, select, update
from sqlalchemy.orm import sessionmaker

from agent import metrics
from agent.db.tables import OutboxEvent, new_id, utcnow
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


def _claimable(now: datetime) -> tuple[ColumnElement[bool], ...]:
    """Due now, not delivered, and held by nobody (never held, or its lease has run out)."""
    return (
        OutboxEvent.delivered_at.is_(None),
        OutboxEvent.next_attempt_at <= now,
        or_(OutboxEvent.lease_until.is_(None), OutboxEvent.lease_until < now),
    )


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
    claim: str  # the lease's claim token: results are recorded only while it still holds


class Delivery:
    def __init__(self, sessions: sessionmaker, settings: Settings) -> None:
        problem = events_config_problem(settings)
        if problem:
            raise EventsConfigError(problem)
        self.sessions = sessions
        self.settings = settings
        # One send is cut off at events_timeout_s (`send`); the lease outlasts it and the
        # bookkeeping around it, so it never runs out while the event is in flight.
        self.lease = timedelta(seconds=2 * settings.events_timeout_s + 1)

    def take_one(self, tried: Collection[str] = ()) -> Due | None:
        """The oldest event due now that nobody holds, claimed for this delivery: of any number
        of processes trying at once, the conditional UPDATE applies for one. Claimed one at a
        time, just before it is sent: a batch claimed at once would wait in line for the
        sends before it, and its leases could run out while this process still meant to send
        them. `tried`: events this pass has already sent (each at most once a pass)."""
        with self.sessions() as session:
            now = utcnow()
            candidates = session.scalars(
                select(OutboxEvent.id)
                .where(*_claimable(now), OutboxEvent.id.not_in(tried))
                .order_by(OutboxEvent.created_at)
                .limit(BATCH)
            ).all()
            for event_id in candidates:
                claim = new_id()
                held = session.execute(
                    update(OutboxEvent)
                    .where(OutboxEvent.id == event_id, *_claimable(now))
                    .values(lease_until=now + self.lease, lease_owner=claim)
                    .execution_options(synchronize_session=False)
                )
                session.commit()
                if held.rowcount == 1:
                    row = session.get(OutboxEvent, event_id, populate_existing=True)
                    body = json.dumps(envelope(row), sort_keys=True, separators=(",", ":")).encode()
                    return Due(row.id, row.attempts, body, row.kind, claim)
        return None

    def delivered(self, due: Due) -> None:
        """Marked delivered whoever holds it now (the receiver has it); the lease is let go
        only if it is still this delivery's."""
        with self.sessions.begin() as session:
            session.execute(
                update(OutboxEvent)
                .where(OutboxEvent.id == due.id, OutboxEvent.delivered_at.is_(None))
                .values(delivered_at=utcnow(), attempts=due.attempts + 1, last_error=None)
            )
            session.execute(
                update(OutboxEvent)
                .where(OutboxEvent.id == due.id, OutboxEvent.lease_owner == due.claim)
                .values(lease_until=None, lease_owner=None)
            )

    def failed(self, due: Due, error: str) -> None:
        """The next attempt scheduled, only while this delivery still holds the event: a
        delivery whose lease ran out must not undo the claim of one that took it since."""
        s = self.settings
        wait = min(s.events_retry_base_s * 2**due.attempts, s.events_retry_max_s)
        with self.sessions.begin() as session:
            held = session.execute(
                update(OutboxEvent)
                .where(
                    OutboxEvent.id == due.id,
                    OutboxEvent.lease_owner == due.claim,
                    OutboxEvent.delivered_at.is_(None),
                )
                .values(
                    attempts=due.attempts + 1,
                    next_attempt_at=utcnow() + timedelta(seconds=wait),
                    lease_until=None,
                    lease_owner=None,
                    last_error=error[:300],
                )
            )
        log.info(
            "event %s %s attempt %s failed (%s); next in %.1f s%s",
            due.id,
            due.kind,
            due.attempts + 1,
            error,
            wait,
            "" if held.rowcount == 1 else " (its lease had passed to another delivery)",
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
            # httpx's timeout bounds each phase (connect, each read); this bounds the whole send
            # within the lease, however slowly a receiver trickles its answer.
            async with asyncio.timeout(self.settings.events_timeout_s):
                response = await client.post(
                    self.settings.events_url or "", content=due.body, headers=headers
                )
        except (httpx.HTTPError, TimeoutError) as exc:
            metrics.delivery_failed(due.kind, type(exc).__name__)
            await asyncio.to_thread(self.failed, due, type(exc).__name__)
            return False
        if 200 <= response.status_code < 300:
            await asyncio.to_thread(self.delivered, due)
            metrics.delivered(due.kind)
            log.info("event %s %s delivered (HTTP %s)", due.id, due.kind, response.status_code)
            return True
        metrics.delivery_failed(due.kind, f"http_{response.status_code // 100}xx")
        await asyncio.to_thread(self.failed, due, f"HTTP {response.status_code}")
        return False

    async def run_once(self, client: httpx.AsyncClient) -> int:
        """Send what is due now, oldest first, each event once and up to a batch; how many
        were delivered."""
        sent, tried = 0, set[str]()
        while len(tried) < BATCH:
            due = await asyncio.to_thread(self.take_one, frozenset(tried))
            if due is None:
                break
            tried.add(due.id)
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
