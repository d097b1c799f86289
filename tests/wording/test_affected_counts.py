"""The wording page counts what `affected` lists with grouped counts, not by reading the lists:
the counts equal the lists' lengths, and the clause filter read in SQL keeps what the exact
filter keeps (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

from agent.db.tables import Draft, Message, Turn, WaitingItem, make_engine, make_sessionmaker, upgrade, utcnow
from agent.seed import seed_policies
from agent.wording.affected import Counts, affected, counts

CLAIM = "CLM-204518"


def _turn(s, n: int, version: str, cited: list[str] | None) -> Turn:
    message = Message(claim_id=CLAIM, role="claimant", body=f"question {n}")
    s.add(message)
    s.flush()
    turn = Turn(
        claim_id=CLAIM,
        message_id=message.id,
        family="motor",
        version=version,
        cited=cited,
        outcome="answered" if cited else "routed_to_staff",
        started_at=utcnow() - timedelta(minutes=100 - n),
    )
    s.add(turn)
    s.flush()
    return turn


def _answered_item(s, n: int, version: str, citation_versions: list[str]) -> WaitingItem:
    message = Message(claim_id=CLAIM, role="staff", body=f"answer {n}")
    s.add(message)
    s.flush()
    item = WaitingItem(
        reference=f"WL-9{n:05d}",
        claim_id=CLAIM,
        family="motor",
        question="?",
        reason="needs_decision",
        status="answered",
        answer_message_id=message.id,
        answered_at=utcnow(),
        answer_version=version,
        answer_citations=[
            {"clause_id": "MTR-BEN-03", "title": "Hire car", "version": v, "quote": "q"}
            for v in citation_versions
        ],
    )
    s.add(item)
    s.flush()
    return item


def test_grouped_counts_equal_the_lists_and_the_clause_filter_is_exact(database_url) -> None:
    engine = make_engine(database_url)
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    seed_policies(sessions)
    with sessions.begin() as s:
        _turn(s, 1, "2026.2", ["MTR-BEN-03"])
        _turn(s, 2, "2026.2", ["MTR-BEN-01", "MTR-BEN-03"])
        _turn(s, 3, "2026.2", ["MTR-BEN-030"])  # another clause whose ID starts the same
        _turn(s, 4, "2026.2", [])  # routed, cited nothing: not a reply that stood on it
        _turn(s, 5, "2025.1", ["MTR-BEN-03"])
        # Sent under 2026.2 quoting 2025.1: it stood on both.
        both = _answered_item(s, 6, "2026.2", ["2025.1"])
        _answered_item(s, 7, "2026.2", [])
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
