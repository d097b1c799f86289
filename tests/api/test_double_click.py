"""A double click: two identical POSTs without an Idempotency-Key, sent at once, are one
message and one turn, held by the database (a unique index), on SQLite and PostgreSQL."""

from __future__ import annotations

import threading

import httpx
import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from agent.db.tables import Message, Turn
from tests.conftest import TOKENS, make_live_app

# The database is the subject: these run on SQLite and PostgreSQL in every run.
pytestmark = pytest.mark.databases

TRIALS = 20


def double_click(server, text: str) -> list[httpx.Response]:
    """Two requests released together by a barrier, as a double click sends them."""
    barrier = threading.Barrier(2)
    replies: list[httpx.Response] = []

    def click() -> None:
        with server.client(TOKENS["CLM-204518"]) as client:
            barrier.wait()
            replies.append(client.post("/claims/CLM-204518/messages", json={"text": text}))

    clicks = [threading.Thread(target=click) for _ in range(2)]
    for thread in clicks:
        thread.start()
    for thread in clicks:
        thread.join()
    return replies


def test_two_identical_posts_at_once_are_one_message_and_one_turn(database_url, corpus_store) -> None:
    server = make_live_app(database_url, corpus_store, limit_messages_per_claim="1000/minute")
    try:
        for trial in range(TRIALS):
            text = f"Can I get a rental car while mine is being repaired? (trial {trial})"
            replies = double_click(server, text)
            assert [r.status_code for r in replies] == [200, 200], [r.text for r in replies]
            assert replies[0].json()["turn_id"] == replies[1].json()["turn_id"], trial
    finally:
        server.stop()
        server.app.state.engine.dispose()
    engine = create_engine(database_url)
    with Session(engine) as session:
        stored = session.scalars(
            select(Message.body).where(Message.role == "claimant").order_by(Message.id)
        ).all()
        turns = session.scalar(select(func.count()).select_from(Turn))
    engine.dispose()
    assert len(stored) == TRIALS, f"{len(stored) - len(set(stored))} double clicks stored twice"
    assert turns == TRIALS
