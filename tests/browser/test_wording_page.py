"""The wording page and the release check view in headless Chromium: a policy owner runs
a release check, approves with it and withdraws a version; a handler only reads."""

from __future__ import annotations

import pytest

from agent.models.offline import offline_model
from tests.browser.conftest import ARTIFACTS
from tests.browser.staff_login import log_in
from tests.conftest import TOKENS, use_model
from tests.support import answer, scripted

RELEASE_CHECK_MS = 180_000

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."

pytestmark = pytest.mark.browser


def test_policy_owner_checks_approves_and_withdraws_on_the_wording_page(
    wording_live, browser, request
) -> None:
    live = wording_live
    use_model(live, scripted(["MTR-BEN-03"], answer("Up to NZD 60 a day.", ("MTR-BEN-03", RATE))))
    with live.client(TOKENS["CLM-204518"]) as claimant:
        claimant.post("/claims/CLM-204518/messages", json={"text": "How long can I keep a hire car?"})
    use_model(live, offline_model())  # the release check runs with the system's model
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    db = request.node.callspec.params["database_url"]

    page = browser.new_page(viewport={"width": 1200, "height": 900})
    log_in(page, live.url, "mere.staff", "/staff/wording")
    assert page.get_by_role("heading", name="Policy wording").is_visible()
    row = page.locator("#family-motor + table").get_by_role("row").filter(has_text="2026.2")
    assert "approved" in row.inner_text().lower() and "1 agent" in row.inner_text()
    assert "[2026-07-01, open)" in row.inner_text()

    page.get_by_role("button", name="Run release check of motor 2027.1").click(timeout=RELEASE_CHECK_MS)
    # The check asks the family's whole inventory twice: give it time on a loaded machine.
    page.wait_for_url(f"{live.url}/staff/wording/checks/RC-*", timeout=RELEASE_CHECK_MS)
    check_id = page.url.rsplit("/", 1)[1]
    assert page.get_by_role("heading", name=f"Release check {check_id}: motor 2027.1").is_visible()
    figures = page.locator("#rc-figures + table").get_by_role("row").filter(has_text="MTR-BEN-03")
    assert "NZD 60" in figures.inner_text() and "NZD 80" in figures.inner_text()
    assert page.locator("article.rc-clause del", has_text="60").first.is_visible()
    assert "MTR-Q01" in page.locator("#rc-questions + table").inner_text()
    page.screenshot(path=ARTIFACTS / f"wording-release-check-{db}.png", full_page=True)

    page.get_by_role("navigation", name="Staff").get_by_role("link", name="Wording").click()
    page.get_by_label("Effective from").fill("2027-07-01")
    page.get_by_label(f"I have read release check {check_id}").check()
    page.get_by_role("button", name="Approve motor 2027.1").click()
    assert page.get_by_role("status").inner_text() == (
        f"motor 2027.1 approved from 2027-07-01, citing release check {check_id}."
    )
    page.get_by_label("Reason for withdrawing motor 2026.2").fill("hire car limit misprinted")
    page.get_by_role("button", name="Withdraw motor 2026.2").click()
    status = page.get_by_role("status").inner_text()
    assert status.startswith("motor 2026.2 withdrawn; 1 follow-up items put on the waiting list (WL-")
    audit = page.locator("#family-motor ~ table").last.inner_text()
    assert "withdraw 2026.2" in audit and "hire car limit misprinted" in audit
    assert f"approve 2027.1 from 2027-07-01 · check {check_id}" in audit
    page.screenshot(path=ARTIFACTS / f"wording-page-{db}.png", full_page=True)

    reference = status.split("(")[1].rstrip(").")
    page.goto(f"{live.url}/staff/items/{reference}")
    heading = "Replies that relied on withdrawn wording motor 2026.2"
    assert page.get_by_role("heading", name=heading).is_visible()
    assert RATE in page.locator("#withdrawn ~ div").first.inner_text()
    notice = page.locator(".msg.notice")
    assert "has since been withdrawn" in notice.inner_text() and reference in notice.inner_text()
    page.screenshot(path=ARTIFACTS / f"wording-follow-up-item-{db}.png", full_page=True)
    page.get_by_role("button", name="Log out").click()

    handler = browser.new_page(viewport={"width": 1200, "height": 900})
    log_in(handler, live.url, "aroha.staff", "/staff/wording")
    assert "Approving and withdrawing is for policy owners." in handler.content()
    assert handler.get_by_role("button", name="Withdraw motor 2027.1").count() == 0
    assert handler.get_by_role("link", name=check_id).first.is_visible()
