"""The claimant chat page in headless Chromium, on top of the claim message API: a cited
answer, a staff answer that arrives without reopening the conversation, one message in
flight at a time with an Idempotency-Key that a retry reuses, and errors in plain words."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx
import pytest

from tests.browser.conftest import ARTIFACTS
from tests.conftest import REPO, STAFF_TOKENS, TOKENS

pytestmark = pytest.mark.browser

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."  # motor 2026.2, MTR-BEN-03
SCREENSHOTS = REPO / "reports" / "screenshots"  # git ignores reports/
# Counts the page's POSTs and whether Send was disabled when each went out.
WATCH_SENDS = """
window.__sends = [];
const realFetch = window.fetch;
window.fetch = (resource, init) => {
  if (init && init.method === "POST") {
    const button = document.getElementById("send-button");
    window.__sends.push({disabled: button ? button.disabled : null, key: init.headers["Idempotency-Key"]});
  }
  return realFetch(resource, init);
};
"""


def keep_screenshot(page, tmp_path: Path, name: str) -> None:
    """Into the test run's own folder, then copied where people look (reports/screenshots)."""
    shot = tmp_path / name
    page.screenshot(path=str(shot), full_page=True)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, SCREENSHOTS / name)


def open_claim(page, url: str, claim: str) -> None:
    page.goto(url)
    page.get_by_label("Claim number").fill(claim)
    page.get_by_label("Access code").fill(TOKENS[claim])
    page.get_by_role("button", name="Open conversation").click()


def ask(page, text: str) -> None:
    page.get_by_label("Your question").fill(text)
    page.get_by_role("button", name="Send").click()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_claimant_asks_and_sees_a_cited_answer(live, browser, tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 900, "height": 900})
    open_claim(page, live.url, "CLM-402118")
    ask(page, "What's the limit for jewellery?")
    agent = page.locator(".msg.agent").first
    agent.wait_for()
    assert "NZD 15,000" in agent.inner_text()
    heading = agent.locator("section.clause h2").first.inner_text()  # the title, never the ID
    assert heading.startswith("Item limits by plan") and "CNT-LIM-01" not in heading
    assert "NZD 15,000" in agent.locator("blockquote").first.inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "claimant-chat.png"), full_page=True)

    page.get_by_label("Access code").fill("wrong-code")
    page.get_by_role("button", name="Open conversation").click()
    page.get_by_text("We couldn't open that claim. Check the claim number and access code").wait_for()
    assert "access token" not in page.locator("#error").inner_text()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_staff_answer_appears_without_reopening_the_conversation(staff_live, browser, tmp_path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)  # CSP: for axe
    open_claim(page, staff_live.url, "CLM-204518")
    ask(page, "is my claim approved yet?")
    routed = page.locator(".msg.agent").first
    routed.wait_for()
    meta = routed.locator(".meta").inner_text()  # "Our reply · with our claims team · reference WL-…"
    assert meta.startswith("Our reply · with our claims team · reference WL-")
    reference = meta.rsplit(" ", 1)[1]

    staff = {"Authorization": f"Bearer {STAFF_TOKENS['aroha.staff']}"}
    with httpx.Client(base_url=staff_live.url, headers=staff) as aroha:
        assert aroha.post(f"/staff/api/items/{reference}/take").status_code == 200
        answer = "A claims handler is looking at your claim today; meanwhile your hire car is covered."
        basis = aroha.get(f"/staff/api/items/{reference}").json()["basis"]
        cited = [{"clause_id": "MTR-BEN-03", "quote": RATE}]
        answered = aroha.post(
            f"/staff/api/items/{reference}/answer", json={"text": answer, "citations": cited, "basis": basis}
        )
        assert answered.status_code == 200, answered.text

    # No click: the page finds the answer on its own, and shows it as it shows a served one:
    # the handler's words, the clause by its title with the quote, the whole clause to open.
    staff_message = page.locator(".msg.staff")
    staff_message.wait_for(timeout=15_000)
    words = staff_message.inner_text()
    assert answer in words and "MTR-BEN-03" not in words
    clause = staff_message.locator("section.clause")
    assert clause.locator("h2").inner_text().endswith("(your policy wording 2026.2)")
    assert clause.locator("blockquote").inner_text() == RATE
    clause.get_by_text("Read the whole clause").click()
    whole = clause.locator(".full-text").inner_text()
    assert len(whole) > len(RATE) and "MTR-BEN-03" not in whole.split("\n")[0]  # no heading line
    keep_screenshot(page, tmp_path, "claimant-chat-staff-answer.png")
    from tests.browser.test_chat_structure import serious_violations  # it imports this module

    assert serious_violations(page) == []
    page.set_viewport_size({"width": 360, "height": 800})
    keep_screenshot(page, tmp_path, "claimant-chat-staff-answer-360.png")
    assert serious_violations(page) == []


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_one_message_in_flight_and_a_retry_reuses_its_idempotency_key(live, browser, tmp_path) -> None:
    page = browser.new_page(viewport={"width": 900, "height": 900})
    page.add_init_script(WATCH_SENDS)
    posts: list[str] = []

    def drop_the_first_send(route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        posts.append(route.request.headers["idempotency-key"])
        if len(posts) == 1:
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route("**/claims/*/messages", drop_the_first_send)
    open_claim(page, live.url, "CLM-204518")
    page.locator("#conversation").wait_for(state="attached")
    ask(page, "Can I get a rental car while mine is being repaired?")
    error = page.locator("#error")
    error.get_by_text("press Send again and it won't be sent twice").wait_for()
    assert page.locator("#send-button").is_enabled()

    page.get_by_role("button", name="Send").click()
    page.locator(".msg.agent").first.wait_for()
    assert len(posts) == 2 and posts[0] == posts[1], posts
    assert error.inner_text() == ""

    # Two submits at once: the second finds Send disabled and sends nothing.
    page.get_by_label("Your question").fill("How many days can I keep it for?")
    page.evaluate(
        "() => { const f = document.getElementById('send'); f.requestSubmit(); f.requestSubmit(); }"
    )
    page.locator(".msg.agent").nth(1).wait_for()
    sends = page.evaluate("() => window.__sends")
    assert [s["disabled"] for s in sends] == [True, True, True]
    assert len(posts) == 3 and posts[2] != posts[0]
    assert len({s["key"] for s in sends}) == 2
    assert len(page.locator(".msg.claimant").all()) == 2  # the retried message is in the conversation once


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_errors_are_in_plain_words_not_the_apis_text(live, browser) -> None:
    page = browser.new_page(viewport={"width": 900, "height": 900})
    replies = [
        (500, {}, {"detail": "IntegrityError: duplicate key value violates unique constraint"}),
        (429, {"Retry-After": "30"}, {"detail": "message limit exceeded: 10 per 1 minute"}),
    ]

    def refuse(route) -> None:
        if route.request.method == "POST" and replies:
            status, extra, body = replies.pop(0)
            route.fulfill(
                status=status, headers={"Content-Type": "application/json", **extra}, body=json.dumps(body)
            )
        else:
            route.continue_()

    page.route("**/claims/*/messages", refuse)
    open_claim(page, live.url, "CLM-204518")
    page.locator("#conversation").wait_for(state="attached")
    error = page.locator("#error")
    ask(page, "how much is my excess")
    error.get_by_text("Something went wrong on our side").wait_for()
    assert "IntegrityError" not in page.content()
    page.get_by_role("button", name="Send").click()
    error.get_by_text("Please wait 30 seconds and try again").wait_for()
    assert "message limit" not in page.content()
    page.get_by_label("Your question").fill("")
    page.get_by_role("button", name="Send").click()
    error.get_by_text("Type your question first.").wait_for()
