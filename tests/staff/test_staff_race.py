"""Fifty staff take one item at once: exactly one wins, on SQLite and on PostgreSQL."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlalchemy.orm import Session

from agent.db.tables import StaffUser, WaitingItem
from agent.security import hash_token
from agent.staff import item_states
from agent.staff.waiting_list import ItemConflict, create_item
from tests.support import seeded_database

# The database is the subject: these run on SQLite and PostgreSQL in every run.
pytestmark = pytest.mark.databases

TAKERS = 50


def add_crowd(sessions) -> list[StaffUser]:
    """Fifty staff users; their password hashes are placeholders, they only use tokens."""
    crowd = [
        StaffUser(
            username=f"racer{n:02d}",
            display_name=f"Racer {n:02d}",
            password_hash="scrypt$00$00",
            token_hash=hash_token(f"race-token-{n:02d}"),
        )
        for n in range(TAKERS)
    ]
    with sessions.begin() as session:
        session.add_all(crowd)
    return crowd


def add_item(sessions) -> int:
    with sessions.begin() as session:
        item = create_item(
            session,
            claim_id="CLM-204518",
            turn_id=None,
            family="motor",
            question="Rental car?",
            reason="no_clause_selected",
        )
        return item.id


def test_fifty_concurrent_takes_over_http_have_one_winner(live) -> None:
    sessions = live.app.state.services.sessions
    add_crowd(sessions)
    item_id = add_item(sessions)
    start = threading.Barrier(TAKERS)

    def take(n: int) -> tuple[int, str]:
        with httpx.Client(
            base_url=live.url, headers={"Authorization": f"Bearer race-token-{n:02d}"}, timeout=60
        ) as client:
            client.get("/health")  # connect before the barrier, so the takes start together
            start.wait()
            response = client.post(f"/staff/api/items/{item_id}/take")
        return response.status_code, f"racer{n:02d}"

    with ThreadPoolExecutor(TAKERS) as pool:
        results = list(pool.map(take, range(TAKERS)))

    assert Counter(status for status, _ in results) == {200: 1, 409: TAKERS - 1}
    [winner] = [who for status, who in results if status == 200]
    with sessions() as session:
        item = session.get(WaitingItem, item_id)
        assert (item.status, item.taken_by) == ("taken", winner)


def test_fifty_concurrent_takes_in_the_database_have_one_winner(database_url: str) -> None:
    """The SQL itself is atomic: fifty threads, each on its own session, no HTTP in between."""
    engine, sessions = seeded_database(database_url)
    crowd = add_crowd(sessions)
    item_id = add_item(sessions)
    start = threading.Barrier(TAKERS)

    def take(staff: StaffUser) -> str:
        with Session(engine, expire_on_commit=False) as session:
            start.wait()
            try:
                item_states.take(session, item_id, staff)
            except ItemConflict:
                return "conflict"
            return "won"

    with ThreadPoolExecutor(TAKERS) as pool:
        outcomes = list(pool.map(take, crowd))

    assert Counter(outcomes) == {"won": 1, "conflict": TAKERS - 1}
    with sessions() as session:
        item = session.get(WaitingItem, item_id)
        assert item.status == "taken"
        assert item.taken_by == crowd[outcomes.index("won")].username
    engine.dispose()
