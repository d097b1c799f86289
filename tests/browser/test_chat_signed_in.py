"""The chat page opened by the insurer's portal with a signed token in the address fragment."""

from __future__ import annotations

import pytest

from tests.api.test_claimant_tokens import insurer_keys, portal_app, signed
from tests.policy.intake_support import integration_token

pytestmark = pytest.mark.browser


@pytest.fixture
def signed_in(sqlite_url, corpus_store, tmp_path):
    server = portal_app(sqlite_url, corpus_store, insurer_keys(tmp_path))
    yield server
    server.stop()
    server.app.state.engine.dispose()


def test_the_portal_opens_the_chat_with_a_signed_token(signed_in, browser) -> None:
    page = browser.new_page(viewport={"width": 900, "height": 900})
    page.goto(f"{signed_in.url}/#claim=CLM-402118&token={signed(claim_id='CLM-402118')}")
    page.get_by_label("Your question").wait_for()
    assert page.evaluate("location.hash") == ""  # the token leaves the address bar at once
    page.get_by_label("Your question").fill("What's the limit for jewellery?")
    page.get_by_role("button", name="Send").click()
    agent = page.locator(".msg.agent").first
    agent.wait_for()
    assert "NZD 15,000" in agent.inner_text()

    with signed_in.client(integration_token(signed_in)) as intake:
        intake.put("/integration/api/claims/CLM-402118/status", json={"status": "closed"})
    page.get_by_role("button", name="Open conversation").click()
    page.get_by_text("This claim is closed").wait_for()
    page.get_by_label("Your question").fill("And watches?")
    page.get_by_role("button", name="Send").click()
    page.get_by_text("This claim is closed, so new messages can't be sent").wait_for()
    assert page.locator(".msg.agent").count() == 1
