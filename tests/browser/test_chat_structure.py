"""The chat page renders a reply's structure, in headless Chromium at desktop (1280 px) and
phone (360 px) width: the runtime's statement first, one block per clause with its sentences
(each quote once, each list's lead-in once), the schedule facts as a list, the closing line,
"Read the whole clause" with the clause's text and its line breaks; a route in the runtime's
words; "This didn't help" under a served answer. Labels, focus order and contrast are checked
with axe-core (tests/browser/axe.min.js, vendored from npm with its licence header): no
violation of serious or critical impact. Screenshots of a yes, a no, an answer in part and a
route at both widths go to reports/test-artifacts/chat/ (structure is asserted, not pixels)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.boundary.replies import NOTHING_DECIDED
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_chat_page import ask, open_claim
from tests.conftest import use_model
from tests.support import answer, route, scripted

pytestmark = pytest.mark.browser

AXE = Path(__file__).with_name("axe.min.js")
SHOTS = ARTIFACTS / "chat"
WIDTHS = {"desktop": 1280, "phone": 360}
CLAIM = "CLM-204518"
RATE = "We pay up to NZD 60 a day for up to 21 days for each event."
TWO_PARTS = "Can I get a rental car while mine is repaired, and will you pay the panel beater directly?"
REST = "will you pay the panel beater directly?"

# Each scenario: the claimant's question and the scripted model's steps.
SCENARIOS = {
    "yes": (
        "Can I get a rental car while mine is repaired?",
        (
            ["MTR-BEN-03"],
            answer("", ("MTR-BEN-03", RATE), schedule_facts=["alternative_transport", "standard"]),
        ),
    ),
    "no": (
        "I put the wrong fuel in my car. Is the damage covered?",
        (["MTR-EXC-02"], answer("", ("MTR-EXC-02", "damage from putting the wrong fuel in the car"))),
    ),
    "part": (TWO_PARTS, (["MTR-BEN-03"], answer("", ("MTR-BEN-03", RATE), unanswered_part=REST))),
    "route": ("Is my claim approved yet?", (route("", "", "needs_decision"),)),
}


def serious_violations(page) -> list[str]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def converse(page, live) -> None:
    """The four scenarios, one message each, in one conversation."""
    open_claim(page, live.url, CLAIM)
    for n, (question, moves) in enumerate(SCENARIOS.values()):
        use_model(live, scripted(*moves))
        ask(page, question)
        page.locator(".msg.agent").nth(n).wait_for()


def asked_yes_at_phone_width(live, browser):  # type: ignore[no-untyped-def]
    """A page at phone width whose claimant has asked the "yes" scenario's question."""
    page = browser.new_page(viewport={"width": 360, "height": 800})
    open_claim(page, live.url, CLAIM)
    question, moves = SCENARIOS["yes"]
    use_model(live, scripted(*moves))
    ask(page, question)
    return page


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_reply_s_structure_is_rendered_at_desktop_and_phone_width(live, browser) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    converse(page, live)
    yes, no, part, routed = (page.locator(".msg.agent").nth(n) for n in range(4))

    # Yes: the statement first, the clause's block, the schedule facts as a list, the closing.
    children = yes.locator(":scope > *")
    assert children.nth(0).get_attribute("class") == "meta"
    assert children.nth(1).get_attribute("class") == "statement"
    assert children.nth(1).inner_text().startswith("Your policy includes “Hire car, rental car")
    # The cover that answers first; an exclusion of the wording naming what it gives after it.
    heading = yes.locator("section.clause h2").first.inner_text()
    assert heading.startswith("Hire car, rental car") and "MTR-BEN-03" not in heading
    added = yes.locator("section.clause h2").all_inner_texts()[1:]
    assert all(h.endswith("(limits the cover above)") for h in added)
    quotes = yes.locator("blockquote").all_inner_texts()
    assert sum(q.count(RATE) for q in quotes) == 1  # each quote once, no second copy
    assert yes.locator(".facts li").all_inner_texts() == [
        "Alternative transport (hire car): included",
        "Standard excess: NZD 500",
    ]
    assert yes.locator(".closing").inner_text() == NOTHING_DECIDED

    # The whole clause one click away, its line breaks kept.
    full = yes.locator(".full-text").first
    assert not full.is_visible()
    yes.get_by_text("Read the whole clause").first.click()
    assert full.is_visible() and full.inner_text().count("\n") >= 5
    assert "We do not pay for fuel, tolls, parking or fines." in full.inner_text()

    # No: the exclusion's statement first; its list under its lead-in, shown once.
    assert no.locator(".statement").inner_text().startswith("This exclusion is part of your policy")
    assert no.locator(".lead-in").all_inner_texts() == ["We do not cover:"]
    items = no.locator("blockquote li").all_inner_texts()
    assert len(items) == 6 and "damage from putting the wrong fuel in the car" in items

    # In part: the answer, then where the rest went with its reference, in the claimant's words.
    also = part.locator(".also").inner_text()
    assert f"“{REST}”" in also and "WL-" in also

    # A route: the runtime's words, line breaks kept, no decision asserted, no answer button.
    body = routed.locator(".body")
    assert "I've passed your question to our claims team under reference WL-" in body.inner_text()
    assert body.evaluate("e => getComputedStyle(e).whiteSpace") == "pre-wrap"
    assert "decision" not in body.inner_text()
    assert routed.get_by_role("button", name="This didn't help").count() == 0
    assert page.get_by_role("button", name="This didn't help").count() == 3

    # Issue 41: the words the claimant reads carry no internal code and no clause ID (the
    # wording's own quoted words aside, and the note that ties an ID they use to its title).
    said = page.evaluate(
        """() => [...document.querySelectorAll('.msg')].map((m) => {
             const copy = m.cloneNode(true);
             copy.querySelectorAll('blockquote, .full-text, button').forEach((e) => e.remove());
             return copy.innerText; }).join('\\n')"""
    )
    said = re.sub(r"\(which the words above call [A-Z]{2,5}-[A-Z]{3}-\d{2}\)", "", said)
    metas = " | ".join(page.locator(".msg .meta").all_inner_texts())
    for code in ("routed_to_staff", "answered", "nothing_asked", "agent", "staff", "claimant"):
        assert code not in metas, metas
    assert not re.search(r"\b[A-Z]{2,5}-[A-Z]{3}-\d{2}\b", said), re.findall(
        r"[A-Z]{2,5}-[A-Z]{3}-\d{2}", said
    )
    assert "with our claims team · reference WL-" in routed.locator(".meta").inner_text()

    assert serious_violations(page) == []
    for width_name, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        overflow = page.evaluate("() => document.documentElement.scrollWidth")
        assert overflow <= width, f"{width_name}: {overflow} px wide at {width} px"
        for name, message in zip(SCENARIOS, (yes, no, part, routed), strict=True):
            message.screenshot(path=str(SHOTS / f"{name}-{width_name}.png"))
        page.screenshot(path=str(SHOTS / f"conversation-{width_name}.png"), full_page=True)
    assert serious_violations(page) == []  # at phone width too


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_keyboard_order_follows_the_page_and_the_answer(live, browser) -> None:
    page = asked_yes_at_phone_width(live, browser)
    page.locator(".msg.agent").first.wait_for()
    page.locator("#claim").focus()
    clauses = page.locator(".msg.agent details").count()  # the cover, and what limits it
    order = []
    for _ in range(6 + clauses):
        order.append(page.evaluate("() => document.activeElement.id || document.activeElement.textContent"))
        page.keyboard.press("Tab")
    assert order == [
        "claim",
        "token",
        "open",
        *["Read the whole clause"] * clauses,
        "This didn't help",
        "text",
        "send-button",
    ]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_this_didn_t_help_sends_the_question_to_a_claims_handler(live, browser) -> None:
    page = asked_yes_at_phone_width(live, browser)
    page.get_by_role("button", name="This didn't help").click()
    told = page.locator(".unhelpful-said")
    told.wait_for()
    assert "A claims handler will look at your question" in told.inner_text() and "WL-" in told.inner_text()
    assert page.evaluate("() => document.activeElement.className") == "unhelpful-said"
    assert page.get_by_role("button", name="This didn't help").count() == 0
    # Reopened, the conversation still says so.
    page.get_by_role("button", name="Open conversation").click()
    page.locator(".unhelpful-said").wait_for()
