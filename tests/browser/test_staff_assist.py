"""Staff assist in headless Chromium: a routed item opens with its draft beside the clause text,
is edited and sent, and the claimant sees it; the claimant writing again before the send makes
it stale with the reason in plain words and one rebuild; a send while the store is down goes
out with the warning and is counted. Screenshots go to the test's tmp dir and reports/screenshots/."""

from __future__ import annotations

import re
import shutil

import pytest

from tests.browser.staff_login import log_in
from tests.conftest import REPO, TOKENS, use_model
from tests.support import route, scripted

pytestmark = pytest.mark.browser

CLAIM = "CLM-204518"
SCREENSHOTS = REPO / "reports" / "screenshots"


def ask(live, text: str, steps: list) -> str:  # type: ignore[type-arg]
    use_model(live, scripted(*steps))
    with live.client(TOKENS[CLAIM]) as client:
        reply = client.post(f"/claims/{CLAIM}/messages", json={"text": text}).json()
    assert reply["outcome"] == "routed_to_staff", reply
    return reply["waiting_list_reference"]


def screenshots(request, tmp_path):  # type: ignore[no-untyped-def]
    """shot(page, name): a full-page screenshot in the test's tmp dir, copied to reports/screenshots/."""
    db = request.node.callspec.params["database_url"]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def shot(page, name: str) -> None:  # type: ignore[no-untyped-def]
        path = tmp_path / f"assist-{name}-{db}.png"
        page.screenshot(path=path, full_page=True)
        shutil.copy(path, SCREENSHOTS / path.name)

    return shot


def test_a_handler_edits_a_draft_sees_it_go_stale_rebuilds_and_sends(
    staff_live, browser, request, tmp_path
) -> None:
    live = staff_live
    shot = screenshots(request, tmp_path)

    question = "How many days of hire car do I get?"
    reference = ask(live, question, [["MTR-BEN-03"], route("I can't say.", question, "needs_decision")])

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(page, live.url, "aroha.staff", f"/staff/items/{reference}")
    page.get_by_role("button", name="Take this item").click()
    assert page.get_by_role("status").inner_text() == "You have taken this item."

    # The draft fills the form; the clause's full text sits beside it.
    draft = page.get_by_label("Answer", exact=True).input_value()
    assert "(your policy wording 2026.2)" in draft
    assert "from the clauses the turn fetched" in page.locator("#draft-note").inner_text()
    clause = page.locator("article.clause[data-clause-id='MTR-BEN-03']")
    assert "We pay up to NZD 60 a day" in clause.inner_text()
    assert page.get_by_label("Clause ID to cite (optional)").input_value() == "MTR-BEN-03"

    # Quoting by selection: select a sentence in the clause text and quote it into row 2.
    wanted = "We pay up to NZD 60 a day for up to 21 days for each event."
    page.evaluate(
        """wanted => {
            const el = document.querySelector("article.clause[data-clause-id='MTR-BEN-03'] .clause-text");
            const node = el.firstChild, at = node.textContent.indexOf(wanted);
            const range = document.createRange();
            range.setStart(node, at); range.setEnd(node, at + wanted.length);
            const sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
        }""",
        wanted,
    )
    page.get_by_role("button", name="Quote the selection from MTR-BEN-03").click()
    assert page.get_by_label("Clause ID 2 to cite (optional)").input_value() == "MTR-BEN-03"
    assert page.get_by_label("Quote 2 from that clause").input_value() == wanted
    page.get_by_label("Answer", exact=True).fill("Kia ora Aroha, here is what your wording says.\n\n" + draft)
    shot(page, "1-draft")

    # The claimant writes again before the send: stale, with the reason, and one rebuild.
    with live.client(TOKENS[CLAIM]) as client:
        use_model(live, scripted([], route("I can't say.", "Also: can it be a van?")))
        client.post(f"/claims/{CLAIM}/messages", json={"text": "Also: can it be a van?"})
    page.get_by_role("button", name="Send answer").click()
    alert = page.get_by_role("alert").inner_text()
    assert "Not sent" in alert
    reasons = page.locator("#stale + ul").inner_text()
    assert re.search(r"The claimant wrote again at \d\d:\d\d UTC", reasons)
    assert "Also: can it be a van?" in page.locator(".msg.claimant").last.inner_text()
    shot(page, "2-stale")
    page.get_by_role("button", name="Rebuild the draft").click()
    assert "Draft rebuilt from motor wording 2026.2" in page.get_by_role("status").inner_text()
    assert page.get_by_text("Your text before the rebuild (not sent)").is_visible()
    rebuilt = page.get_by_label("Answer", exact=True).input_value()
    page.get_by_label("Answer", exact=True).fill(
        "Kia ora Aroha, a van counts too. Your wording says:\n\n" + rebuilt
    )
    shot(page, "3-rebuilt")
    page.get_by_role("button", name="Send answer").click()
    assert page.get_by_role("status").inner_text() == "Your answer was added to the claimant's conversation."
    assert "under motor wording 2026.2" in page.locator("dd").first.inner_text()
    shot(page, "4-sent")
    page.get_by_role("link", name="Content gaps").click()  # the routed turn's clause is counted
    assert page.locator("#routed-share").get_by_role("row").filter(has_text="MTR-BEN-03").is_visible()
    page.go_back()

    # The claimant sees it in their conversation.
    chat = browser.new_page(viewport={"width": 900, "height": 900})
    chat.goto(live.url)
    chat.get_by_label("Claim number").fill(CLAIM)
    chat.get_by_label("Access code").fill(TOKENS[CLAIM])
    chat.get_by_role("button", name="Open conversation").click()
    staff_message = chat.locator(".msg.staff").last
    staff_message.wait_for()
    assert "a van counts too" in staff_message.inner_text()
    shot(chat, "5-claimant")


def test_a_send_while_the_store_is_down_goes_out_with_the_warning_and_is_counted(
    staff_live, browser, request, tmp_path
) -> None:
    from agent.evaluation.localstore import free_port
    from knowledge.clauses import ClauseLibrary
    from knowledge.store import ObjectStore
    from tests.conftest import store_settings

    live = staff_live
    shot = screenshots(request, tmp_path)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    # The store goes down between opening and sending: the answer goes out with the warning.
    second = ask(
        live, "Who do I call about the tow?", [[], route("I can't say.", "Who do I call about the tow?")]
    )
    log_in(page, live.url, "aroha.staff", f"/staff/items/{second}")
    page.get_by_role("button", name="Take this item").click()
    page.get_by_label("Answer", exact=True).fill("We'll call you today about the tow.")
    runner = live.app.state.services.runner
    working = runner.library
    runner.library = ClauseLibrary(ObjectStore(store_settings(f"127.0.0.1:{free_port()}")))
    try:
        page.get_by_role("button", name="Send answer").click()
        assert "the pre-send check could not run" in page.get_by_role("status").inner_text()
        warning = page.get_by_role("note").inner_text()
        assert "Sent without the check: The pre-send check could not confirm the governing wording" in warning
        shot(page, "6-sent-unchecked")
    finally:
        runner.library = working
    page.get_by_role("link", name="Content gaps").click()
    assert page.locator("#unchecked-sends").inner_text().strip() == "motor: 1"
    shot(page, "7-gaps")
