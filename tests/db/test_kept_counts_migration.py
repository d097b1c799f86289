"""Migration 0014 fills the kept tables from the turn records and waiting items already stored:
the routed share, the wording page's counts and `affected` read the same figures as before it."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa
from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy import create_engine, text

from agent.db.revision import KEPT_TRIGGERS, SchemaNotReady
from agent.db.tables import Draft, make_sessionmaker, open_current, upgrade, utcnow
from agent.seed import seed_policies
from agent.staff.routed_share import routed_share, week_of
from agent.wording.affected import Counts, affected, counts
from tests.db import rows
from tests.db.recount import assert_kept
from tests.db.test_migrations import start_at

# The database is the subject: these run on SQLite and PostgreSQL in every run.
pytestmark = pytest.mark.databases


def test_turns_and_items_stored_before_the_migration_are_counted(blank_database_url) -> None:
    engine = create_engine(blank_database_url)
    start_at(engine, "0013")  # a database from before this migration
    sessions = make_sessionmaker(engine)
    seed_policies(sessions)
    now = utcnow()
    with sessions.begin() as s:
        cited = rows.turn(s, 1, returned=["MTR-BEN-03", "MTR-BEN-01"], cited=["MTR-BEN-03"])
        routed = rows.turn(s, 2, returned=["MTR-BEN-03"], cited=[], outcome="routed_to_staff")
        rows.item(s, 2, routed)
        rows.turn(s, 3, returned=[], cited=[], outcome="nothing_asked")
        earlier = rows.turn(s, 4, family="home", returned=["HOM-BEN-01"], started_at=now - timedelta(weeks=2))
        item = rows.item(s, 4, earlier, created_at=now)  # routed later than its turn
        s.add(
            Draft(
                item_id=item.id,
                origin="turn",
                text="draft",
                citations=[{"clause_id": "MTR-BEN-03", "version": "2026.2", "title": "t", "quote": "q"}],
                family="motor",
                version="2026.2",
                content_hash="h",
                claim_status="open",
            )
        )
    upgrade(engine)
    with sessions() as s:
        assert_kept(s, now)
        weeks = [(r.week, r.family, r.clause_id, r.questions, r.routed) for r in routed_share(s, now=now)]
        found = affected(s, "motor", "2026.2", {"MTR-BEN-03"})
        wording = counts(s)["motor"]["2026.2"]
    engine.dispose()
    this_week, two_back = week_of(now), week_of(now - timedelta(weeks=2))
    assert weeks == [
        (this_week, "motor", None, 2, 1),
        (this_week, "motor", "MTR-BEN-01", 1, 0),
        (this_week, "motor", "MTR-BEN-03", 2, 1),
        (two_back, "home", None, 1, 1),
        (two_back, "home", "HOM-BEN-01", 1, 1),
    ]
    assert [r.ref for r in found.agent] == [cited.id] and found.totals == Counts(1, 0, 1)
    assert wording == Counts(1, 0, 1)


def test_a_database_that_lost_a_kept_count_trigger_is_refused_by_name(blank_database_url) -> None:
    """A table rebuilt without its triggers would keep stale counts silently; upgrading and the
    read-only commands refuse it and name what is missing. On SQLite, the hazard itself: a
    batch migration (which copies the table) must drop the triggers that name `turns` first,
    and here forgets to create them again."""
    engine = create_engine(blank_database_url)
    start_at(engine, "head")
    every = [f"{table}.{name}" for table, names in KEPT_TRIGGERS.items() for name in sorted(names)]
    try:
        with engine.begin() as connection:
            if engine.dialect.name == "sqlite":
                for name in every:
                    connection.execute(text(f"DROP TRIGGER {name.split('.')[1]}"))
                with Operations(MigrationContext.configure(connection)).batch_alter_table(
                    "turns", recreate="always"
                ) as batch:
                    batch.alter_column("outcome", existing_type=sa.String(30), nullable=True)
                lost = every
            else:
                connection.execute(text("DROP TRIGGER waiting_items_kept_update ON waiting_items"))
                lost = ["waiting_items.waiting_items_kept_update"]
        for refused in (lambda: upgrade(engine), lambda: open_current(blank_database_url).dispose()):
            with pytest.raises(SchemaNotReady) as caught:
                refused()
            assert f"lacks the trigger(s) {', '.join(lost)} " in str(caught.value)
    finally:
        if engine.dialect.name == "postgresql":
            start_at(engine, "head")  # the database is shared with the other tests
        engine.dispose()
