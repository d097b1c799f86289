"""Migration 0015 (SQLite and PostgreSQL): the outbox gains the claim token of the delivery
holding an event; events stored before it, pending, delivered or held by a lease, are kept and
delivered as before."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from sqlalchemy import inspect, select, text
from sqlalchemy.orm import Session

from agent.db.tables import OutboxEvent, make_engine, make_sessionmaker, upgrade
from agent.events.delivery import Delivery
from agent.settings import Settings
from tests.db.test_migrations import start_at
from tests.events.receiver import SECRET, Receiver

ROWS = [  # id, delivered_at, lease_until: pending, delivered, held by a lease long run out
    ("e-pending", None, None),
    ("e-delivered", "2026-03-01 10:00:05", None),
    ("e-held", None, "2026-03-01 10:00:10"),
]


@pytest.mark.databases
def test_events_stored_before_0015_are_kept_and_delivered(blank_database_url) -> None:
    engine = make_engine(blank_database_url)
    start_at(engine, "0014")
    assert "lease_owner" not in {c["name"] for c in inspect(engine).get_columns("outbox")}
    with engine.begin() as connection:
        for event_id, delivered_at, lease_until in ROWS:
            connection.execute(
                text(
                    "INSERT INTO outbox (id, kind, payload, created_at, attempts, next_attempt_at, "
                    "lease_until, delivered_at) VALUES (:id, 'question_routed', '{\"claim_id\": \"CLM-1\"}', "
                    "'2026-03-01 10:00:00', 1, '2026-03-01 10:00:00', :lease, :delivered)"
                ),
                {"id": event_id, "lease": lease_until, "delivered": delivered_at},
            )

    upgrade(engine)

    with Session(engine) as session:
        kept = {e.id: e for e in session.scalars(select(OutboxEvent))}
    assert set(kept) == {r[0] for r in ROWS}
    assert all(e.lease_owner is None for e in kept.values())
    receiver = Receiver()
    try:
        delivery = Delivery(
            make_sessionmaker(engine), Settings(events_url=receiver.url, events_secret=SECRET)
        )

        async def once() -> int:
            async with httpx.AsyncClient(timeout=5) as client:
                return await delivery.run_once(client)

        assert asyncio.run(once()) == 2
    finally:
        receiver.stop()
    with Session(engine) as session:
        rows = session.scalars(select(OutboxEvent)).all()
    engine.dispose()
    assert sorted(receiver.ids()) == ["e-held", "e-pending"]
    assert all(r.delivered_at is not None and r.lease_owner is None for r in rows)
