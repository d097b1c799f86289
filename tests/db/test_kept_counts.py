"""The kept tables (routed share per day, citing counts, rows per cited clause) agree with a
recount from the turn records and waiting items after every kind of write: the ORM, bulk
inserts, hand-made updates and deletes, items routed long after their turn, emptied tables
(SQLite and PostgreSQL)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import create_engine, delete, insert, select, update

from agent.db.tables import (
    Base,
    Message,
    Turn,
    WaitingItem,
    make_engine,
    make_sessionmaker,
    new_id,
    upgrade,
    utcnow,
)
from agent.seed import seed_policies
from tests.db import rows
from tests.db.recount import assert_kept, kept_share_days
from tests.db.rows import CLAIM
from tests.support import seeded_database

# The database is the subject: these run on SQLite and PostgreSQL in every run.
pytestmark = pytest.mark.databases


def _forty_turns_in_one_statement(sessions, now):  # type: ignore[no-untyped-def]
    """Forty turns, with a waiting item for every fourth, each kind written in one statement:
    many rows at once, as a bulk load writes them."""
    with sessions.begin() as s:
        first = s.scalar(select(Message.id).order_by(Message.id)) or 0
        bulk = [
            {
                "id": new_id(),
                "claim_id": CLAIM,
                "message_id": first,
                "family": "motor",
                "version": "2026.2",
                "returned": ["MTR-BEN-03", f"MTR-BEN-0{n % 3}"],
                "cited": [f"MTR-BEN-0{n % 2}"] if n % 3 else [],
                "outcome": "answered",
                "started_at": now - timedelta(days=n),
            }
            for n in range(40)
        ]
        messages = [{"claim_id": CLAIM, "role": "claimant", "body": f"bulk {n}"} for n in range(40)]
        ids = s.scalars(insert(Message).returning(Message.id), messages).all()
        s.execute(insert(Turn), [dict(t, message_id=m) for t, m in zip(bulk, ids, strict=True)])
        s.execute(
            insert(WaitingItem),
            [
                {"reference": f"WL-6{n:05d}", "claim_id": CLAIM, "turn_id": t["id"], "family": "motor"}
                | {"question": "?", "reason": "needs_decision", "status": "open", "created_at": now}
                for n, t in enumerate(bulk)
                if n % 4 == 0
            ],
        )
    return bulk


def test_kept_tables_agree_with_a_recount_after_every_kind_of_write(database_url) -> None:
    engine, sessions = seeded_database(database_url)
    now = utcnow()
    with sessions.begin() as s:
        a = rows.turn(s, 1, returned=["MTR-BEN-03", "MTR-BEN-03", "MTR-BEN-01"], cited=["MTR-BEN-03"])
        b = rows.turn(
            s, 2, returned=["MTR-BEN-03"], cited=["MTR-BEN-03", "MTR-BEN-01"], outcome="routed_to_staff"
        )
        rows.item(s, 2, b)  # routed in the turn's own transaction
        rows.turn(s, 3, returned=[], cited=[], outcome="nothing_asked")  # not a question
        rows.turn(s, 4, family=None, version=None, returned=["MTR-BEN-03"], cited=[])
        rows.turn(s, 5, version=None, returned=["MTR-BEN-02"], cited=["MTR-BEN-02"], outcome="unavailable")
        old = rows.turn(s, 6, family="home", returned=["HOM-BEN-01"], started_at=now - timedelta(weeks=3))
        rows.turn(s, 7, returned=["MTR-BEN-03"], started_at=now - timedelta(weeks=12))  # outside the window
    with sessions() as s:
        assert_kept(s, now)

    # Routed much later than its turn (a follow-up for an old conversation): routed in its own week.
    with sessions.begin() as s:
        late = rows.item(s, 8, old, created_at=now)
    with sessions() as s:
        assert_kept(s, now)
        assert kept_share_days(s)[((now - timedelta(weeks=3)).date(), "home", "HOM-BEN-01")] == (1, 1)
    # A second item for a routed turn, then each removed: routed until the last one goes.
    with sessions.begin() as s:
        second = rows.item(s, 9, old)
    with sessions.begin() as s:
        s.execute(delete(WaitingItem).where(WaitingItem.id == late.id))
    with sessions() as s:
        assert kept_share_days(s)[((now - timedelta(weeks=3)).date(), "home", "HOM-BEN-01")] == (1, 1)
        assert_kept(s, now)
    with sessions.begin() as s:
        s.execute(delete(WaitingItem).where(WaitingItem.id == second.id))
    with sessions() as s:
        assert kept_share_days(s)[((now - timedelta(weeks=3)).date(), "home", "HOM-BEN-01")] == (1, 0)
        assert_kept(s, now)

    # Hand-made updates of every counted column, and of a column nothing counts.
    changes = [
        {"started_at": now - timedelta(weeks=2)},
        {"returned": ["MTR-BEN-05"], "cited": ["MTR-BEN-05", "MTR-BEN-05"]},
        {"outcome": "nothing_asked"},
        {"outcome": "answered", "version": "2025.1"},
        {"family": None},
        {"family": "motor", "cited": []},
        {"latency_ms": 12.5},
    ]
    for values in changes:
        with sessions.begin() as s:
            s.execute(update(Turn).where(Turn.id.in_([a.id, b.id])).values(**values))
        with sessions() as s:
            assert_kept(s, now)
    with sessions.begin() as s:  # an item moved to another turn
        s.execute(update(WaitingItem).where(WaitingItem.turn_id == b.id).values(turn_id=a.id))
    with sessions() as s:
        assert_kept(s, now)

    # Many rows in one statement, then deleted in one statement.
    bulk = _forty_turns_in_one_statement(sessions, now)
    with sessions() as s:
        assert_kept(s, now)
    with sessions.begin() as s:
        gone = [t["id"] for n, t in enumerate(bulk) if n % 2]
        s.execute(delete(WaitingItem).where(WaitingItem.turn_id.in_(gone)))
        s.execute(delete(Turn).where(Turn.id.in_(gone)))
    with sessions() as s:
        assert_kept(s, now)

    # Every table emptied (in the order the test fixtures use), then written again.
    with engine.begin() as connection:
        for table in reversed(Base.metadata.sorted_tables):
            connection.execute(table.delete())
    seed_policies(sessions)
    with sessions.begin() as s:
        rows.item(s, 10, rows.turn(s, 10, returned=["MTR-BEN-03"], cited=["MTR-BEN-03"]))
    with sessions() as s:
        assert_kept(s, now)
        assert len(kept_share_days(s)) == 2
    engine.dispose()


def test_two_items_for_one_turn_at_once_count_it_routed_once(postgres_url) -> None:
    """On PostgreSQL two transactions may add items for one turn at the same time: the second
    waits for the first, then sees its item, so the turn is counted routed once."""
    engine = make_engine(postgres_url)
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    with engine.begin() as connection:
        for table in reversed(Base.metadata.sorted_tables):
            connection.execute(table.delete())
    seed_policies(sessions)
    with sessions.begin() as s:
        turn = rows.turn(s, 1, returned=["MTR-BEN-03"])
    raw = create_engine(postgres_url)
    first, second = raw.connect(), raw.connect()
    row = {"claim_id": CLAIM, "turn_id": turn.id, "family": "motor", "question": "?", "reason": "x"}
    first.begin()
    first.execute(insert(WaitingItem), {**row, "reference": "WL-500001"})
    done = threading.Event()

    def add_second() -> None:
        with second.begin():
            second.execute(insert(WaitingItem), {**row, "reference": "WL-500002"})
        done.set()

    worker = threading.Thread(target=add_second)
    worker.start()
    assert not done.wait(0.5)  # waiting for the first transaction's lock on the turn
    first.commit()
    worker.join(10)
    assert done.is_set()
    first.close()
    second.close()
    raw.dispose()
    with sessions() as s:
        assert_kept(s)
        assert {v for k, v in kept_share_days(s).items() if k[1] == "motor"} == {(1, 1)}
    engine.dispose()
