"""The Content-Security-Policy allows what the pages really use: in headless Chromium the
chat page and the staff pages work and report no CSP violation (finding 8)."""

from __future__ import annotations

import pytest

from tests.conftest import STAFF_PASSWORDS, TOKENS

pytestmark = pytest.mark.browser


def test_pages_run_under_the_csp_without_violations(staff_live, browser) -> None:
    live = staff_live
    page = browser.new_page()
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("pageerror", lambda e: violations.append(str(e)))

    page.goto(f"{live.url}/")
    page.get_by_label("Claim number").fill("CLM-204518")
    page.get_by_label("Access code").fill(TOKENS["CLM-204518"])
    page.get_by_role("button", name="Open conversation").click()
    page.get_by_label("Your question").fill("What is my excess?")
    page.get_by_role("button", name="Send").click()
    page.locator(".msg.agent").first.wait_for()
    # The inline style applied: the body is not in the browser's default font.
    assert page.evaluate("getComputedStyle(document.body).maxWidth") != "none"

    page.goto(f"{live.url}/staff/login")
    page.get_by_label("Username").fill("aroha.staff")
    page.get_by_label("Password").fill(STAFF_PASSWORDS["aroha.staff"])
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live.url}/staff")
    assert page.evaluate("getComputedStyle(document.body).maxWidth") != "none"
    page.get_by_role("link", name="Content gaps").click()
    assert violations == []
