"""Events are never lost: a real API process is killed with SIGKILL while the receiver holds
one of its deliveries; after a restart the receiver has every event, and deduplicating by
event ID it acts on each once (the one in flight may come twice: at least once)."""

from __future__ import annotations

import os
import signal
import sys
from collections import Counter

import httpx
import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from agent.db.tables import OutboxEvent
from agent.evaluation.localstore import free_port
from tests.conftest import TOKENS
from tests.events.receiver import SECRET, Receiver
from tests.support import process_env
from tests.turn.test_crash_recovery import scalar, start, wait_until

# The database is the subject: these run on SQLite and PostgreSQL in every run.
pytestmark = [pytest.mark.databases, pytest.mark.slow]

# Questions the built-in offline model routes: about the claim itself, which no wording answers.
QUESTIONS = [
    ("CLM-204518", "Any update on my claim?"),
    ("CLM-204519", "Has my claim been approved yet?"),
    ("CLM-118230", "When will the assessor call me about my claim?"),
    ("CLM-310442", "Any update on my claim?"),
    ("CLM-402117", "Has my claim been approved yet?"),
    ("CLM-402118", "When will the assessor call me about my claim?"),
]


def outbox_rows(url: str) -> list[OutboxEvent]:
    engine = create_engine(url)
    with Session(engine) as session:
        rows = list(session.scalars(select(OutboxEvent)))
    engine.dispose()
    return rows


def test_kill_9_mid_delivery_loses_no_event_and_repeats_only_the_one_in_flight(
    database_url, corpus_store
) -> None:
    receiver = Receiver(hold=3)  # the third delivery is read, then not answered: in flight
    env = process_env(
        database_url,
        corpus_store,
        CLAUSEDESK_EVENTS_URL=receiver.url,
        CLAUSEDESK_EVENTS_SECRET=SECRET,
        CLAUSEDESK_EVENTS_TIMEOUT_S="2",
        CLAUSEDESK_EVENTS_RETRY_BASE_S="0.1",
        CLAUSEDESK_EVENTS_POLL_S="0.05",
    )
    serve = [sys.executable, "-m", "agent", "serve", "--port"]
    try:
        port = free_port()
        first = start([*serve, str(port)], env, port)
        for claim_id, question in QUESTIONS:
            response = httpx.post(
                f"http://127.0.0.1:{port}/claims/{claim_id}/messages",
                json={"text": question},
                headers={"Authorization": f"Bearer {TOKENS[claim_id]}"},
                timeout=60,
            )
            assert response.json()["outcome"] == "routed_to_staff", response.text
        assert receiver.held.wait(30)
        os.kill(first.pid, signal.SIGKILL)
        first.wait(10)
        receiver.release.set()
        undelivered = select(func.count()).select_from(OutboxEvent).where(OutboxEvent.delivered_at.is_(None))
        assert scalar(database_url, undelivered) >= 4  # the one in flight and those after it

        port = free_port()
        restarted = start([*serve, str(port)], env, port)
        try:
            wait_until(lambda: scalar(database_url, undelivered) == 0, timeout=30)
        finally:
            restarted.terminate()
            restarted.wait(10)
    finally:
        receiver.stop()

    events = outbox_rows(database_url)
    assert len(events) == len(QUESTIONS) and {e.kind for e in events} == {"question_routed"}
    counts = Counter(receiver.ids())
    assert set(counts) == {e.id for e in events}  # every event arrived
    assert receiver.bad_signatures == 0
    # Only the one in flight at the kill came twice (it was received, never marked delivered).
    held = receiver.deliveries[2]["id"]
    assert {event_id: n for event_id, n in counts.items() if n > 1} == {held: 2}
    assert len(receiver.processed()) == len(QUESTIONS)  # deduplicated by ID: each acted on once
    assert {d["data"]["claim_id"] for d in receiver.processed().values()} == {c for c, _ in QUESTIONS}
