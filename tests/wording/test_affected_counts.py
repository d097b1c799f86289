"""The wording page counts what `affected` lists with grouped counts, not by reading the lists:
the counts equal the lists' lengths, and the clause filter read in SQL keeps what the exact
filter keeps (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.orm import Session

from agent.db.tables import Draft, Turn, utcnow
from agent.wording.affected import Counts, affected, counts
from tests.db import rows
from tests.support import seeded_database

# The database is the subject: these run on SQLite and PostgreSQL in every run.
pytestmark = pytest.mark.databases


def _turn(s: Session, n: int, version: str, cited: list[str]) -> Turn:
    outcome = "answered" if cited else "routed_to_staff"
    started = utcnow() - timedelta(minutes=100 - n)
    return rows.turn(s, n, version=version, cited=cited, outcome=outcome, started_at=started)


def test_grouped_counts_equal_the_lists_and_the_clause_filter_is_exact(database_url) -> None:
    engine, sessions = seeded_database(database_url)
    with sessions.begin() as s:
        _turn(s, 1, "2026.2", ["MTR-BEN-03"])
        _turn(s, 2, "2026.2", ["MTR-BEN-01", "MTR-BEN-03"])
        _turn(s, 3, "2026.2", ["MTR-BEN-030"])  # another clause whose ID starts the same
        _turn(s, 4, "2026.2", [])  # routed, cited nothing: not a reply that stood on it
        _turn(s, 5, "2025.1", ["MTR-BEN-03"])
        # Sent under 2026.2 quoting 2025.1: it stood on both.
        both = rows.answered_item(s, "WL-900006", "2026.2", ["2025.1"])
        rows.answered_item(s, "WL-900007", "2026.2", [])
        s.add(
            Draft(
                item_id=both.id,
                origin="turn",
                text="draft",
                citations=[],
                family="motor",
                version="2026.2",
                content_hash="h",
                claim_status="open",
            )
        )
    with sessions() as s:
        found = counts(s)["motor"]
        lists = {v: affected(s, "motor", v) for v in ("2025.1", "2026.2", "2027.1")}
        only = affected(s, "motor", "2026.2", {"MTR-BEN-03"})
    engine.dispose()
    assert found == {"2026.2": Counts(3, 2, 1), "2025.1": Counts(1, 1, 0)}
    for version, listed in lists.items():
        assert found.get(version, Counts()) == Counts(
            len(listed.agent), len(listed.staff), len(listed.drafts)
        ), version
    assert sorted(r.cited for r in only.agent) == [["MTR-BEN-01", "MTR-BEN-03"], ["MTR-BEN-03"]]
    assert [r.at for r in only.agent] == sorted(r.at for r in only.agent)
