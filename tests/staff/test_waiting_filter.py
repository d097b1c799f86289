"""The default queue ("waiting": open and taken) is filtered by the literal SQL of its partial
index; it lists, pages and counts exactly the open and taken items, oldest first (SQLite and
PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from agent.db.tables import WAITING, WaitingItem, utcnow
from agent.staff.waiting_list import STATUS_FILTERS, list_items
from tests.support import seeded_database


def test_the_index_predicate_names_the_waiting_statuses() -> None:
    assert "status IN (" + ", ".join(f"'{s}'" for s in STATUS_FILTERS["waiting"]) + ")" == WAITING


@pytest.mark.databases
def test_waiting_lists_the_open_and_taken_items_oldest_first(database_url) -> None:
    engine, sessions = seeded_database(database_url)
    start = utcnow() - timedelta(days=1)
    statuses = ["open", "answered", "taken", "closed", "open", "taken", "open", "answered"]
    with sessions.begin() as s:
        for n, status in enumerate(statuses):
            s.add(
                WaitingItem(
                    reference=f"WL-7{n:05d}",
                    claim_id="CLM-204518",
                    family="motor" if n % 2 else "home",
                    question="?",
                    reason="needs_decision" if n % 3 else "interrupted",
                    status=status,
                    # Newest first as inserted, so the order cannot come from the ids.
                    created_at=start - timedelta(minutes=n),
                )
            )
    with sessions() as s:
        page = list_items(s, status="waiting", limit=2, offset=1)
        whole = list_items(s, status="waiting", limit=50)
        by_in = list_items(s, status="open", limit=50).total + list_items(s, status="taken", limit=50).total
    engine.dispose()
    expected = [f"WL-7{n:05d}" for n in reversed(range(len(statuses))) if statuses[n] in ("open", "taken")]
    assert [i.reference for i in whole.items] == expected
    assert [i.reference for i in page.items] == expected[1:3]
    assert whole.total == page.total == by_in == 5
    assert whole.by_reason == {"interrupted": 2, "needs_decision": 3}
    assert whole.by_family == {"home": 4, "motor": 1}


def test_sqlite_walks_the_waiting_index_in_order_instead_of_sorting_the_queue(sqlite_url) -> None:
    """SQLite has no statistics: asked for status IN ('open', 'taken') it would read every
    waiting item through a status index and sort them at each page (104 ms at offset 10,000 in
    the growth bench). The page query walks ix_waiting_waiting_created instead."""
    from sqlalchemy import event

    engine, sessions = seeded_database(sqlite_url)
    pages: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def keep(conn, cursor, statement, parameters, context, executemany) -> None:  # type: ignore[no-untyped-def]
        if "ORDER BY waiting_items.created_at" in statement:
            pages.append((statement, parameters))

    with sessions() as s:
        list_items(s, status="waiting", offset=10)
    event.remove(engine, "before_cursor_execute", keep)
    [(statement, parameters)] = pages
    with engine.connect() as c:
        plan = " / ".join(row[3] for row in c.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters))
    engine.dispose()
    assert "ix_waiting_waiting_created" in plan and "TEMP B-TREE" not in plan, plan
