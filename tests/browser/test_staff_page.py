"""The staff page in headless Chromium: log in, open an item, take it, answer it."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import ARTIFACTS
from tests.conftest import STAFF_PASSWORDS, TOKENS, use_model
from tests.support import route, scripted

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."

pytestmark = pytest.mark.browser


def test_staff_log_in_take_and_answer_an_item_in_the_browser(staff_live, browser, request) -> None:
    live = staff_live
    use_model(live, scripted([], route("I can't answer that.", "Will you pay for a rental car?")))
    with live.client(TOKENS["CLM-204518"]) as claimant:
        reference = claimant.post(
            "/claims/CLM-204518/messages", json={"text": "Will you pay for a rental car?"}
        ).json()["waiting_list_reference"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    db = request.node.callspec.params["database_url"]

    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.goto(f"{live.url}/staff")
    assert re.search(r"/staff/login\?next=", page.url)
    page.get_by_label("Username").fill("aroha.staff")
    page.get_by_label("Password").fill(STAFF_PASSWORDS["aroha.staff"])
    page.get_by_role("button", name="Log in").click()

    page.wait_for_url(f"{live.url}/staff")
    assert page.get_by_role("heading", name="Waiting list").is_visible()
    assert "Signed in as Aroha Ngata" in page.content()
    row = page.get_by_role("row").filter(has_text=reference)
    assert "no clause selected" in row.inner_text()
    page.screenshot(path=ARTIFACTS / f"staff-queue-{db}.png", full_page=True)

    row.get_by_role("link", name=reference).click()
    page.wait_for_url(f"{live.url}/staff/items/{reference}")
    assert "Will you pay for a rental car?" in page.content()
    assert "motor 2026.2" in page.content()
    page.get_by_role("button", name="Take this item").click()
    assert page.get_by_role("status").inner_text() == "You have taken this item."
    page.screenshot(path=ARTIFACTS / f"staff-item-taken-{db}.png", full_page=True)

    page.get_by_label("Answer", exact=True).fill(
        "Your policy includes a hire car while yours is repaired, subject to the claim being accepted."
    )
    page.get_by_label("Clause ID to cite (optional)").fill("MTR-BEN-07")
    page.get_by_label("Quote from that clause").fill(RATE)
    page.get_by_role("button", name="Send answer").click()
    assert "Citation refused" in page.get_by_role("alert").inner_text()
    assert page.get_by_label("Quote from that clause").input_value() == RATE

    page.get_by_label("Clause ID to cite (optional)").fill("MTR-BEN-03")
    page.get_by_role("button", name="Send answer").click()
    assert page.get_by_role("status").inner_text() == "Your answer was added to the claimant's conversation."
    assert "answered by Aroha Ngata" in re.sub(r"\s+", " ", page.locator("dd").first.text_content())
    assert page.locator(".msg.staff").filter(has_text=RATE).is_visible()
    page.screenshot(path=ARTIFACTS / f"staff-item-{db}.png", full_page=True)

    page.goto(f"{live.url}/staff?status=answered")
    assert page.get_by_role("row").filter(has_text=reference).is_visible()
    page.get_by_role("link", name="Content gaps").click()
    gaps = page.get_by_role("row").filter(has_text=reference)
    assert "Will you pay for a rental car?" in gaps.inner_text()
    page.screenshot(path=ARTIFACTS / f"staff-gaps-{db}.png", full_page=True)
    page.get_by_role("button", name="Log out").click()
    page.goto(f"{live.url}/staff")
    assert "/staff/login" in page.url

    with live.client(TOKENS["CLM-204518"]) as claimant:
        last = claimant.get("/claims/CLM-204518/messages").json()["messages"][-1]
    assert (last["role"], last["author"], last["waiting_list_reference"]) == (
        "staff",
        "Aroha Ngata",
        reference,
    )
