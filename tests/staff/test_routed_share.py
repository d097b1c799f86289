"""The routed share a manager watches: per family and per fetched clause each week, on the
gaps page and the staff API, exported as CSV (SQLite and PostgreSQL)."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from sqlalchemy import update

from agent.db.tables import Turn, utcnow
from agent.staff.routed_share import week_of
from tests.conftest import STAFF_PASSWORDS, TOKENS, use_model
from tests.staff.staff_web import web_login
from tests.staff.test_staff_api import staff
from tests.support import answer, route, scripted, seeded_database

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."


def ask(live, claim: str, *steps) -> str:  # type: ignore[no-untyped-def]
    use_model(live, scripted(*steps))
    with live.client(TOKENS[claim]) as client:
        reply = client.post(f"/claims/{claim}/messages", json={"text": "A question about my cover?"}).json()
    return reply["turn_id"]


def test_routed_share_per_family_and_clause_each_week_and_as_csv(staff_live) -> None:
    live = staff_live
    ask(live, "CLM-204518", ["MTR-BEN-03"], answer("Up to NZD 60 a day.", ("MTR-BEN-03", RATE)))
    ask(live, "CLM-204518", ["MTR-BEN-03"], route("I can't say.", "Hire car for a van?", "needs_decision"))
    ask(live, "CLM-204519", [], route("I can't say.", "Where is my assessor?"))
    earlier = ask(live, "CLM-310442", [], route("I can't say.", "Is my fence covered?"))
    # One question two weeks back: its own week.
    with live.app.state.services.sessions.begin() as db:
        db.execute(update(Turn).where(Turn.id == earlier).values(started_at=utcnow() - timedelta(weeks=2)))
    this_week, two_back = week_of(utcnow()), week_of(utcnow() - timedelta(weeks=2))

    with staff(live) as aroha:
        shares = aroha.get("/staff/api/content-gaps").json()["routed_share"]
        rows = [
            (r["week_starting"], r["family"], r["clause_id"], r["questions"], r["routed"]) for r in shares
        ]
        assert rows == [
            (str(this_week), "motor", None, 3, 2),
            (str(this_week), "motor", "MTR-BEN-03", 2, 1),
            (str(two_back), "home", None, 1, 1),
        ]
        assert [r["routed_share"] for r in shares] == [0.667, 0.5, 1.0]

        exported = aroha.get("/staff/api/content-gaps/routed-share.csv")
        assert exported.status_code == 200
        assert exported.headers["content-type"].startswith("text/csv")
        assert "attachment" in exported.headers["content-disposition"]
        table = list(csv.reader(io.StringIO(exported.text)))
        assert table[0] == ["week_starting", "family", "clause_id", "questions", "routed", "routed_share"]
        assert table[1:] == [
            [str(this_week), "motor", "", "3", "2", "0.667"],
            [str(this_week), "motor", "MTR-BEN-03", "2", "1", "0.500"],
            [str(two_back), "home", "", "1", "1", "1.000"],
        ]

    with live.client() as browser:
        assert web_login(browser, "aroha.staff", STAFF_PASSWORDS["aroha.staff"]).status_code == 303
        page = browser.get("/staff/gaps")
        assert page.status_code == 200
        assert 'href="/staff/gaps/routed-share.csv"' in page.text
        assert "<td>MTR-BEN-03</td>" in page.text and "67 %" in page.text
        downloaded = browser.get("/staff/gaps/routed-share.csv")
        assert downloaded.headers["content-type"].startswith("text/csv")
        assert downloaded.text == exported.text
    with live.client() as anonymous:
        assert anonymous.get("/staff/api/content-gaps/routed-share.csv").status_code == 401
        assert anonymous.get("/staff/gaps/routed-share.csv", follow_redirects=False).status_code == 303


@pytest.mark.databases
def test_routed_share_counted_in_the_database_equals_the_turn_by_turn_tally(database_url) -> None:
    """Grouped per day and fetched clauses in SQL, the share is what counting each turn gives,
    across a week boundary at midnight UTC and with a clause fetched twice in one turn."""
    from datetime import datetime

    from agent.db.tables import Message, WaitingItem
    from agent.staff.routed_share import routed_share

    engine, sessions = seeded_database(database_url)
    now = utcnow()
    monday = datetime.combine(week_of(now - timedelta(weeks=1)), datetime.min.time(), now.tzinfo)
    plan = [  # started at, family, fetched, routed
        (monday + timedelta(minutes=30), "motor", ["MTR-BEN-03"], False),
        (monday + timedelta(days=2), "motor", ["MTR-BEN-03", "MTR-BEN-03"], True),
        (monday + timedelta(days=2), "motor", ["MTR-BEN-01", "MTR-BEN-03"], False),
        (monday - timedelta(minutes=30), "motor", ["MTR-BEN-03"], True),  # Sunday: the week before
        (monday + timedelta(days=1), "home", [], True),
        (now - timedelta(weeks=9), "motor", ["MTR-BEN-03"], True),  # outside the eight weeks
    ]
    with sessions.begin() as s:
        for n, (at, family, fetched, routed) in enumerate(plan):
            claim = "CLM-204518" if family == "motor" else "CLM-310442"
            message = Message(claim_id=claim, role="claimant", body=f"q{n}")
            s.add(message)
            s.flush()
            turn = Turn(claim_id=claim, message_id=message.id, family=family, returned=fetched, started_at=at)
            s.add(turn)
            s.flush()
            if routed:
                s.add(
                    WaitingItem(
                        reference=f"WL-8{n:05d}",
                        claim_id=claim,
                        turn_id=turn.id,
                        family=family,
                        question="?",
                        reason="needs_decision",
                        created_at=at + timedelta(seconds=1),
                    )
                )
    with sessions() as s:
        rows = [(r.week, r.family, r.clause_id, r.questions, r.routed) for r in routed_share(s, now=now)]
    engine.dispose()
    week, before = week_of(monday), week_of(monday - timedelta(days=1))
    assert rows == [
        (week, "home", None, 1, 1),
        (week, "motor", None, 3, 1),
        (week, "motor", "MTR-BEN-01", 1, 0),
        (week, "motor", "MTR-BEN-03", 3, 1),
        (before, "motor", None, 1, 1),
        (before, "motor", "MTR-BEN-03", 1, 1),
    ]
