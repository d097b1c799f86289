"""The item page in Chromium at 1,280 and 360 px (issue 38 Build 2, issue 41 Staff): words a
model wrote are marked beside "Send as drafted" and must be confirmed; the claimant's words as
they would be kept sit beside the button; the inferred verdict is corrected in one click.
axe-core finds nothing serious or critical. Screenshots go to reports/test-artifacts/staff/."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from agent.db.tables import Evidence
from tests.answering.support import db, drafting
from tests.browser.conftest import ARTIFACTS
from tests.browser.staff_login import log_in
from tests.browser.test_chat_structure import WIDTHS, serious_violations
from tests.staff.test_send_as_drafted import LEAD, RATE, drafted
from tests.turn.test_claim_turns import use_style

pytestmark = pytest.mark.browser
SHOTS = ARTIFACTS / "staff"


def test_send_as_drafted_with_the_models_words_and_a_verdict_corrected_in_one_click(
    live, database_url, browser
) -> None:
    drafting(database_url)
    use_style(live, "explained")
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, width in WIDTHS.items():
        ref = drafted(
            live,
            f"Do I get a hire car while mine is repaired ({name})?",
            ["MTR-BEN-03"],
            ("MTR-BEN-03", RATE),
            lead=LEAD,
        )
        # CSP bypassed only so the test can inject axe-core; the page itself is unchanged.
        page = browser.new_page(viewport={"width": width, "height": 900}, bypass_csp=True)
        log_in(page, live.url, "aroha.staff", f"/staff/items/{ref}")
        marked = page.locator("#model-words")
        assert "Words a model wrote" in marked.inner_text() and LEAD in marked.inner_text()
        assert serious_violations(page) == []
        page.screenshot(path=SHOTS / f"send-as-drafted-{name}.png", full_page=True)

        # The browser itself refuses the send until the model's words are confirmed.
        page.get_by_role("button", name="Send as drafted").click()
        assert page.url.endswith(f"/staff/items/{ref}")
        page.get_by_label("I have read the model's words").check()
        page.locator("#send-draft").get_by_label("Keep the question's words as evidence").check()
        page.get_by_label("Question as kept", exact=True).fill("Do I get a hire car while mine is repaired?")
        page.get_by_role("button", name="Send as drafted").click()
        assert "Your answer was added" in page.get_by_role("status").inner_text()
        assert "sent as drafted" in page.locator("#verdict-section").inner_text()
        assert serious_violations(page) == []
        page.screenshot(path=SHOTS / f"verdict-{name}.png", full_page=True)
        page.get_by_role("button", name="The draft was wrong").click()
        assert "The verdict on the draft is corrected." in page.get_by_role("status").inner_text()
        with db(database_url) as session:
            row = session.scalar(select(Evidence).where(Evidence.key == f"staff-{ref}"))
            assert (row.verdict, row.outcome, row.question) == (
                "said_wrong",
                "wrong",
                "Do I get a hire car while mine is repaired?",
            )
        page.close()
