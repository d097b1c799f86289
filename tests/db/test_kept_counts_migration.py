"""Migration 0014 fills the kept tables from the turn records and waiting items already stored:
the routed share, the wording page's counts and `affected` read the same figures as before it."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import create_engine

from agent.db.tables import Draft, make_sessionmaker, upgrade, utcnow
from agent.seed import seed_policies
from agent.staff.routed_share import routed_share, week_of
from agent.wording.affected import Counts, affected, counts
from tests.db.recount import assert_kept
from tests.db.test_kept_counts import _item, _turn
from tests.db.test_migrations import start_at


def test_turns_and_items_stored_before_the_migration_are_counted(database_url) -> None:
    engine = create_engine(database_url)
    start_at(engine, "0013")  # a database from before this migration
    sessions = make_sessionmaker(engine)
    seed_policies(sessions)
    now = utcnow()
    with sessions.begin() as s:
        cited = _turn(s, 1, returned=["MTR-BEN-03", "MTR-BEN-01"], cited=["MTR-BEN-03"])
        routed = _turn(s, 2, returned=["MTR-BEN-03"], cited=[], outcome="routed_to_staff")
        _item(s, 2, routed)
        _turn(s, 3, returned=[], cited=[], outcome="nothing_asked")
        earlier = _turn(s, 4, family="home", returned=["HOM-BEN-01"], started_at=now - timedelta(weeks=2))
        item = _item(s, 4, earlier, created_at=now)  # routed later than its turn
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
        rows = [(r.week, r.family, r.clause_id, r.questions, r.routed) for r in routed_share(s, now=now)]
        found = affected(s, "motor", "2026.2", {"MTR-BEN-03"})
        wording = counts(s)["motor"]["2026.2"]
    engine.dispose()
    this_week, two_back = week_of(now), week_of(now - timedelta(weeks=2))
    assert rows == [
        (this_week, "motor", None, 2, 1),
        (this_week, "motor", "MTR-BEN-01", 1, 0),
        (this_week, "motor", "MTR-BEN-03", 2, 1),
        (two_back, "home", None, 1, 1),
        (two_back, "home", "HOM-BEN-01", 1, 1),
    ]
    assert [r.ref for r in found.agent] == [cited.id] and found.totals == Counts(1, 0, 1)
    assert wording == Counts(1, 0, 1)
