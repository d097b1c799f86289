"""The gaps page's figures from the waiting list: the last 30 days' questions per family and
reason, and the questions whose turns selected no clause (families by name, each newest first,
at most `limit`), read one family at a time from the index (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import event

from agent.db.tables import utcnow
from agent.staff.content_gaps import content_gaps
from tests.db import rows
from tests.support import seeded_database


@pytest.mark.databases
def test_questions_with_no_clause_are_listed_by_family_newest_first_up_to_the_limit(database_url) -> None:
    engine, sessions = seeded_database(database_url)
    now = utcnow()
    expected = []
    with sessions.begin() as s:
        for n in range(12):
            family = ("motor", "home", None)[n % 3]
            guidance = "clauses_returned" if n % 4 == 3 else "no_clause_selected"
            turn = rows.turn(s, n, family=family, guidance_status=guidance, outcome="routed_to_staff")
            at = now - timedelta(days=n * 3)  # 0 to 33 days ago: the oldest two fall outside
            reason = ("needs_decision", "no_clause_selected")[n % 2]
            item = rows.item(s, n, turn, created_at=at, reason=reason)
            # A decision is staff's by its nature: counted by reason, but no gap in the wording.
            if guidance == "no_clause_selected" and n * 3 <= 30 and reason != "needs_decision":
                expected.append((family, at, item.reference))
    expected.sort(key=lambda e: (e[0] is None, e[0] or "", -e[1].timestamp()))
    statements: list[tuple[str, tuple]] = []
    event.listen(engine, "before_cursor_execute", lambda *a: statements.append((a[2], a[3])))
    with sessions() as s:
        gaps = content_gaps(s, now=now)
        limited = content_gaps(s, now=now, limit=2)
    if engine.dialect.name == "sqlite":
        with engine.connect() as c:
            plan = " / ".join(
                r[3] for r in c.exec_driver_sql("EXPLAIN QUERY PLAN " + statements[0][0], statements[0][1])
            )
        assert "COVERING INDEX ix_waiting_created" in plan, plan
    engine.dispose()
    assert [q.item.reference for q in gaps.no_clause] == [r for _, _, r in expected]
    assert len(expected) == 3  # the limit below cuts the list
    assert [q.item.reference for q in limited.no_clause] == [r for _, _, r in expected[:2]]
    counts = {g.family: (g.last_30_days, g.last_7_days) for g in gaps.families}
    assert counts == {
        "home": ({"needs_decision": 2, "no_clause_selected": 2}, {"no_clause_selected": 1}),
        "motor": ({"needs_decision": 2, "no_clause_selected": 2}, {"needs_decision": 1}),
        "unknown": ({"needs_decision": 2, "no_clause_selected": 1}, {"needs_decision": 1}),
    }
