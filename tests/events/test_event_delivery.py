"""Events out: routed questions, staff answers and withdrawal notices reach the insurer's
receiver, signed, from an outbox written with each change; a receiver that is down gets them
when it comes back."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from agent.db.tables import Message, OutboxEvent
from agent.evaluation.localstore import free_port
from agent.events.delivery import Delivery, EventsConfigError
from agent.settings import Settings
from tests.conftest import STAFF_TOKENS, TOKENS, make_live_app, use_model
from tests.events.receiver import SECRET, Receiver
from tests.support import answer, route, scripted, wait_until

# The database is the subject: these run on SQLite and PostgreSQL in every run.
pytestmark = pytest.mark.databases

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."


def outbox(url: str) -> list[OutboxEvent]:
    engine = create_engine(url)
    with Session(engine) as session:
        rows = session.scalars(select(OutboxEvent).order_by(OutboxEvent.created_at)).all()
    engine.dispose()
    return list(rows)


@pytest.fixture
def sending(database_url, corpus_store):
    """The live app sending events to a loopback port where nothing listens yet."""

    port = free_port()
    server = make_live_app(
        database_url,
        corpus_store,
        events_url=f"http://127.0.0.1:{port}/events",
        events_secret=SECRET,
        events_timeout_s=1.0,
        events_retry_base_s=0.05,
        events_retry_max_s=0.2,
        events_poll_s=0.05,
    )
    yield server, port
    server.stop()
    server.app.state.engine.dispose()


def test_a_receiver_that_is_down_gets_every_event_when_it_comes_back(sending, database_url) -> None:
    live, port = sending
    question = "Will you pay for my rental car while mine is repaired?"
    use_model(live, scripted(route("I can't answer that.", question)))
    with live.client(TOKENS["CLM-204518"]) as client:
        reference = client.post("/claims/CLM-204518/messages", json={"text": question}).json()[
            "waiting_list_reference"
        ]
    with live.client(STAFF_TOKENS["aroha.staff"]) as staff:
        assert staff.post(f"/staff/api/items/{reference}/take").status_code == 200
        basis = staff.get(f"/staff/api/items/{reference}").json()["basis"]
        answered = staff.post(
            f"/staff/api/items/{reference}/answer", json={"text": "Yes, up to 21 days.", "basis": basis}
        )
        assert answered.status_code == 200, answered.text

    # Down: every event is tried again and again, and none is marked delivered.
    wait_until(lambda: all(e.attempts >= 3 for e in outbox(database_url)), timeout=20)
    pending = outbox(database_url)
    assert [e.kind for e in pending] == ["question_routed", "staff_answered"]
    assert all(e.delivered_at is None and e.last_error == "ConnectError" for e in pending)

    receiver = Receiver(port=port)
    try:
        wait_until(lambda: all(e.delivered_at for e in outbox(database_url)), timeout=20)
    finally:
        receiver.stop()
    assert receiver.bad_signatures == 0
    # Each once; the order is each event's own retry time, so the receiver goes by kind and ID.
    assert sorted(receiver.ids()) == sorted(e.id for e in pending)
    by_kind = {d["kind"]: d for d in receiver.deliveries}
    routed, staff_answer = by_kind["question_routed"], by_kind["staff_answered"]
    assert routed["kind"] == "question_routed"
    assert routed["data"] == {**routed["data"], "claim_id": "CLM-204518", "reference": reference}
    assert routed["data"]["reason"] == "no_clause_selected" and "question" not in routed["data"]
    assert staff_answer["kind"] == "staff_answered"
    assert staff_answer["data"]["answered_by"] == "aroha.staff"
    assert "Yes, up to 21 days." in staff_answer["data"]["body"]


def test_a_refusing_receiver_is_retried_until_it_accepts(database_url, corpus_store) -> None:
    """A 5xx (or any non-2xx) is not a delivery."""
    from agent.db.tables import make_engine, make_sessionmaker, upgrade
    from agent.events import outbox as events

    engine = make_engine(database_url)
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    with sessions.begin() as session:
        event = events.add(session, "question_routed", {"claim_id": "CLM-1", "reference": "WL-000001"})
    wrong = Settings(
        events_url="http://127.0.0.1:1/unused", events_secret="another-secret-entirely-0123456789"
    )
    receiver = Receiver()
    try:
        settings = wrong.model_copy(update={"events_url": receiver.url, "events_retry_base_s": 0.0})
        delivery = Delivery(sessions, settings)  # signs with a secret the receiver does not know

        async def once() -> int:
            async with httpx.AsyncClient(timeout=2) as client:
                return await delivery.run_once(client)

        assert asyncio.run(once()) == 0 and receiver.bad_signatures == 1
        [row] = outbox(database_url)
        assert row.delivered_at is None and row.last_error == "HTTP 401" and row.attempts == 1
        delivery.settings = settings.model_copy(update={"events_secret": SECRET})
        assert asyncio.run(once()) == 1
        assert receiver.ids() == [event.id]
    finally:
        receiver.stop()
        engine.dispose()


def test_an_events_url_without_a_long_secret_is_refused() -> None:
    with pytest.raises(EventsConfigError, match="CLAUSEDESK_EVENTS_SECRET"):
        Delivery(None, Settings(events_url="http://127.0.0.1:9/events"))  # type: ignore[arg-type]
    with pytest.raises(EventsConfigError, match="shorter than 32"):
        Delivery(None, Settings(events_url="http://127.0.0.1:9/events", events_secret="short"))  # type: ignore[arg-type]


def test_a_withdrawal_notice_is_an_event_written_with_the_notice(wording_live, database_url) -> None:
    live = wording_live
    use_model(live, scripted(["MTR-BEN-03"], answer("Up to NZD 60 a day for 21 days.", ("MTR-BEN-03", RATE))))
    with live.client(TOKENS["CLM-204518"]) as client:
        reply = client.post("/claims/CLM-204518/messages", json={"text": "How long can I keep a hire car?"})
        assert reply.json()["outcome"] == "answered", reply.text
    with live.client(STAFF_TOKENS["mere.staff"]) as owner:
        done = owner.post("/staff/api/wording/motor/2026.2/withdraw", json={"reason": "hire car limit wrong"})
        assert done.status_code == 200, done.text

    engine = create_engine(database_url)
    with Session(engine) as session:
        notice = session.scalars(select(Message).where(Message.role == "notice")).one()
    engine.dispose()
    [event] = [e for e in outbox(database_url) if e.kind == "withdrawal_notice"]
    assert event.payload == {
        "claim_id": "CLM-204518",
        "reference": notice.waiting_list_reference,
        "family": "motor",
        "version": "2026.2",
        "body": notice.body,
    }
    receiver = Receiver()
    try:
        settings = Settings(events_url=receiver.url, events_secret=SECRET)
        delivery = Delivery(live.app.state.services.sessions, settings)

        async def once() -> int:
            async with httpx.AsyncClient(timeout=2) as client:
                return await delivery.run_once(client)

        assert asyncio.run(once()) == len(outbox(database_url))
        assert asyncio.run(once()) == 0  # delivered once; nothing is sent again
    finally:
        receiver.stop()
    assert event.id in receiver.ids() and len(receiver.ids()) == len(set(receiver.ids()))
