"""The claimant chat page in headless Chromium, on top of the claim message API."""

from __future__ import annotations

import pytest

from tests.browser.conftest import ARTIFACTS
from tests.conftest import TOKENS

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_claimant_asks_and_sees_a_cited_answer(live, browser) -> None:
    page = browser.new_page(viewport={"width": 900, "height": 900})
    page.goto(live.url)
    page.get_by_label("Claim number").fill("CLM-402118")
    page.get_by_label("Access code").fill(TOKENS["CLM-402118"])
    page.get_by_role("button", name="Open conversation").click()
    page.get_by_label("Your question").fill("What's the limit for jewellery?")
    page.get_by_role("button", name="Send").click()
    agent = page.locator(".msg.agent").first
    agent.wait_for()
    assert "NZD 15,000" in agent.inner_text()
    assert "CNT-LIM-01" in page.locator(".msg.agent blockquote").first.inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "claimant-chat.png"), full_page=True)

    page.get_by_label("Access code").fill("wrong-code")
    page.get_by_role("button", name="Open conversation").click()
    page.get_by_text("no claim CLM-402118 for this access token").wait_for()
