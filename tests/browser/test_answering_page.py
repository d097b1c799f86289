"""The wording page's earned answering in headless Chromium: each version's mode, each clause's
evidence and measured precision, the mode changes; a policy owner moves a clause below the bar
only with a written reason; the staff list links the drafted items."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from agent.db.tables import Evidence
from tests.answering.support import db, drafting, live_at, load_inventory, owner, stored_check
from tests.browser.conftest import ARTIFACTS
from tests.browser.staff_login import log_in
from tests.conftest import TOKENS, use_model
from tests.support import answer, scripted

pytestmark = pytest.mark.browser


@pytest.fixture
def live40(database_url, corpus_store):
    """The bar at 40 %: MTR-BEN-03's seven right answers (bound 34.8 %) meet it."""
    with live_at(database_url, corpus_store, 40.0) as server:
        yield server


def test_the_wording_page_shows_each_clauses_evidence_and_mode_changes(
    live40, database_url, corpus_store, browser
) -> None:
    live = live40
    drafting(database_url)
    load_inventory(database_url, corpus_store)
    check = stored_check(database_url, corpus_store)
    with owner(live) as mere:
        moved = mere.post(
            "/staff/api/wording/motor/2026.2/answering/answers",
            json={"clause_ids": ["MTR-BEN-03"], "check_id": check},
        )
        assert moved.status_code == 200, moved.text
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(page, live.url, "mere.staff", "/staff/wording")
    section = page.get_by_role("heading", name="Answering: motor 2026.2")
    assert section.is_visible()
    summary = page.locator("section.answering", has=section)
    assert "answers in part" in summary.inner_text()
    assert "1 of 23 clauses and rules answer claimants directly" in summary.inner_text()
    assert "72 verified evidence questions" in summary.inner_text()
    row = page.locator("#evidence-motor-2026-2").get_by_role("row").filter(has_text="MTR-BEN-03")
    text = row.inner_text()
    assert "\tanswers\t" in text.lower() and "7 questions" in text
    assert "7 (0 wrong)" in text and "34.8%" in text
    clm = page.locator("#evidence-motor-2026-2").get_by_role("row").filter(has_text="MTR-CLM-01").inner_text()
    assert "\tdrafts\t" in clm.lower() and "4 questions" in clm
    modes = page.locator("#modes-motor-2026-2").inner_text()
    assert "MTR-BEN-03 → answers" in modes and check in modes

    # Below the bar without a reason: refused, saying which clause and by what.
    page.get_by_label("Clause IDs to move to answers (motor 2026.2)").fill("MTR-CLM-01")
    page.get_by_role("button", name="Move to answers: motor 2026.2").click()
    assert (
        "MTR-CLM-01: 0 of 4 served answers wrong or irrelevant, upper bound 52.7% at 95%"
        in page.get_by_role("alert").inner_text()
    )

    page.get_by_label("Clause IDs to move to answers (motor 2026.2)").fill("MTR-CLM-01")
    page.get_by_label("Reason, if below the bar (motor 2026.2)").fill(
        "Claims contact clause checked by the owner"
    )
    page.get_by_role("button", name="Move to answers: motor 2026.2").click()
    assert (
        "MTR-CLM-01 now answer claimants (MTR-CLM-01 below the bar, on your reason)"
        in page.get_by_role("status").inner_text()
    )
    modes = page.locator("#modes-motor-2026-2").inner_text()
    assert "below the bar" in modes and "Claims contact clause checked by the owner" in modes
    page.locator("section.answering", has=page.locator("#answering-motor-2026-2")).screenshot(
        path=ARTIFACTS / "answering-wording-page.png"
    )

    # Every clause at once, on a reason: those below the bar say so.
    page.get_by_label("Every clause of motor 2026.2").check()
    page.get_by_label("Reason, if below the bar (motor 2026.2)").fill("Pilot of the whole wording")
    page.get_by_role("button", name="Move to answers: motor 2026.2").click()
    done = page.get_by_role("status").inner_text()
    # MTR-BEN-03 already answers: a move that changes nothing writes nothing.
    assert "MTR-BEN-03," not in done and "MTR-GEN-03" in done and "below the bar, on your reason" in done
    assert (
        "20 of 23 clauses and rules answer claimants directly"
        in page.locator("section.answering", has=section).inner_text()
    )

    # The staff list filters the drafted items.
    page.goto(f"{live.url}/staff")
    page.get_by_role("link", name="Drafted answers to check").click()
    assert "reason=drafted_for_review" in page.url
    assert page.get_by_label("Reason").input_value() == "drafted_for_review"


RATE = "We pay up to NZD 60 a day for up to 21 days for each event."


def ask(live, question: str) -> dict:
    use_model(live, scripted(["MTR-BEN-03"], answer("", ("MTR-BEN-03", RATE))))
    with live.client(TOKENS["CLM-204518"]) as claimant:
        return claimant.post("/claims/CLM-204518/messages", json={"text": question}).json()


def test_a_handler_flags_a_served_answer_and_sends_a_draft_as_drafted_from_the_item_page(
    live, database_url, browser
) -> None:
    served = ask(live, "Do I get a hire car?")
    assert served["outcome"] == "answered", served  # the test seed has motor 2026.2 answering
    drafting(database_url)
    reply = ask(live, "How long is the hire car?")
    assert reply["route_reason"] == "drafted_for_review", reply
    reference = reply["waiting_list_reference"]

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(page, live.url, "aroha.staff", f"/staff/items/{reference}")
    # Only the served answer can be flagged, not the reply saying a handler will check it.
    flag = page.get_by_role("button", name="Flag this answer as wrong")
    assert flag.count() == 1
    flag.click()
    assert "recorded as wrong against every clause it quoted" in page.get_by_role("status").inner_text()
    page.get_by_role("button", name="Send as drafted").click()
    assert "Your answer was added to the claimant's conversation." in page.get_by_role("status").inner_text()
    page.screenshot(path=ARTIFACTS / "answering-sent-as-drafted.png", full_page=True)
    with db(database_url) as session:
        row = session.scalar(select(Evidence).where(Evidence.key == f"staff-{reference}"))
        assert (row.verdict, row.outcome, row.question) == ("sent_as_drafted", "right", None)
        flagged = session.scalar(select(Evidence).where(Evidence.key == f"flag-{served['turn_id']}"))
        assert (flagged.outcome, flagged.served_clauses) == ("wrong", ["MTR-BEN-03"])
